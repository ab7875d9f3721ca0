#!/usr/bin/env bash
# fetch-realcode.sh [DIR]
#
# Fetches the pinned real projects that `ctxls eval testdata/realcode` runs
# its commit-message cases against, and lays each out as
# DIR/workspaces/<name>/: a plain copy of the project's sources, every file
# writable. DIR defaults to testdata/realcode (run from the repository root).
#
# The sources come from the two registries our machines reach:
#   - Go modules with `go mod download -json MODULE@VERSION` (the module
#     zip, checked against the checksum database, includes tests and docs);
#   - npm packages with `npm pack PKG@VERSION` (the published tarball; no
#     install scripts run), checked against the pinned sha512 integrity.
#
# Running it again does nothing for a workspace whose stamp file
# (DIR/workspaces/.<name>.version, outside the workspace so that it is not
# indexed) already names the pinned version; a workspace with another or no
# stamp is rebuilt from scratch.
#
# The workspaces are not committed: add `testdata/realcode/workspaces/` to
# .gitignore.
set -euo pipefail

die() {
	echo "fetch-realcode: $*" >&2
	exit 1
}

dir="${1:-testdata/realcode}"
dir="${dir%/}"
[ -n "$dir" ] || die "DIR is empty"
ws="$dir/workspaces"

command -v go >/dev/null || die "go is not on PATH (needed for the Go modules)"
command -v npm >/dev/null || die "npm is not on PATH (needed for the npm packages)"
command -v node >/dev/null || die "node is not on PATH (needed to check npm tarballs)"
command -v tar >/dev/null || die "tar is not on PATH"

mkdir -p "$ws" || die "cannot create $ws"
ws="$(cd "$ws" && pwd)"

tmp="$(mktemp -d "${TMPDIR:-/tmp}/fetch-realcode.XXXXXX")"
trap 'chmod -R u+w "$tmp" 2>/dev/null || true; rm -rf "$tmp"' EXIT

# Go modules: name module version.
go_projects=(
	"cobra github.com/spf13/cobra v1.10.2"
	"zap go.uber.org/zap v1.28.0"
	"go-toml github.com/pelletier/go-toml/v2 v2.4.3"
)

# npm packages: name package version integrity keep. keep lists the
# tarball's top-level entries to copy (comma-separated), or * for all; it
# leaves out the built bundles (zod's v3/ v4/ ..., ajv's dist/) that
# repeat the sources.
npm_projects=(
	"zod zod 4.6.7 sha512-g8W2D2kU6a8untc053fX1uVBKzM7yqAxW/3zwk83+6RyF2+SKOuV+c0wBDhUwzV1PaGapmZH+rmcUzPf+3CGwg== src,package.json,README.md,LICENSE"
	"ajv ajv 8.20.0 sha512-Thbli+OlOj+iMPYFBVBfJ3OmCAnaSyNn4M1vz9T6Gka5Jt9ba/HIR56joy65tY6kx/FCF5VXNB819Y7/GUrBGA== lib,package.json,README.md,LICENSE"
	"knex knex 3.3.0 sha512-LgWl031hNuLv9Lhxdd9093zULa2aNcoP04Bk29e5NidgRcEr/T0rAr2WYi4BhjTiCDoQiRU56meUE5rppLKZzQ== *"
	"fastify fastify 5.12.8 sha512-moP8exb2sCHLUbJkwp+I6C0padhy4D8lp0SdmzY7HhSdZuqm7O/u3o2aq7u8okaQ//33QDzj3G/u+FsSdB8Qzw== *"
)

# up_to_date NAME STAMP: whether workspace NAME was built from STAMP.
up_to_date() {
	[ -d "$ws/$1" ] && [ -f "$ws/.$1.version" ] && [ "$(cat "$ws/.$1.version")" = "$2" ]
}

# install NAME SRC STAMP: replaces workspace NAME with the directory SRC
# (already a private copy), made writable and stamped.
install() {
	local name="$1" src="$2" stamp="$3"
	chmod -R u+w "$src" || die "$name: cannot make the copy writable"
	rm -f "$ws/.$name.version"
	if [ -e "$ws/$name" ]; then
		chmod -R u+w "$ws/$name" 2>/dev/null || true
		rm -rf "$ws/$name" || die "$name: cannot remove the old $ws/$name"
	fi
	mv "$src" "$ws/$name" || die "$name: cannot move the copy to $ws/$name"
	printf '%s\n' "$stamp" >"$ws/.$name.version" || die "$name: cannot write the stamp $ws/.$name.version"
	echo "fetch-realcode: $name: $stamp ($(find "$ws/$name" -type f | wc -l | tr -d ' ') files)"
}

fetch_go() {
	local name="$1" module="$2" version="$3"
	local stamp="go $module@$version"
	if up_to_date "$name" "$stamp"; then
		echo "fetch-realcode: $name: up to date ($module@$version)"
		return
	fi
	local out moddir
	# Outside any module, so that the download cannot touch a go.mod or go.sum.
	out="$(cd "$tmp" && GOWORK=off GOFLAGS=-mod=mod go mod download -json "$module@$version" 2>&1)" ||
		die "$name: go mod download $module@$version failed: $(printf '%s' "$out" | grep -m1 '"Error"' || printf '%s' "$out" | tail -n1)"
	moddir="$(printf '%s\n' "$out" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",\{0,1\}$/\1/p' | head -n1)"
	[ -n "$moddir" ] && [ -d "$moddir" ] || die "$name: go mod download $module@$version gave no module directory"
	mkdir -p "$tmp/$name.copy"
	cp -R "$moddir/." "$tmp/$name.copy/" || die "$name: cannot copy $moddir"
	install "$name" "$tmp/$name.copy" "$stamp"
}

fetch_npm() {
	local name="$1" pkg="$2" version="$3" integrity="$4" keep="$5"
	local stamp="npm $pkg@$version"
	if up_to_date "$name" "$stamp"; then
		echo "fetch-realcode: $name: up to date ($pkg@$version)"
		return
	fi
	local dl="$tmp/$name.tgz.d" ex="$tmp/$name.extract" dst="$tmp/$name.copy"
	mkdir -p "$dl" "$ex" "$dst"
	(cd "$dl" && npm pack --silent --ignore-scripts "$pkg@$version" >"$tmp/$name.npm.out" 2>"$tmp/$name.npm.err") ||
		die "$pkg@$version: npm pack failed: $(grep -m1 -i 'err' "$tmp/$name.npm.err" || tail -n1 "$tmp/$name.npm.err")"
	local tgz
	tgz="$(find "$dl" -maxdepth 1 -name '*.tgz' | head -n1)"
	[ -n "$tgz" ] || die "$pkg@$version: npm pack wrote no tarball"
	local got
	got="$(node -e 'const c=require("crypto"),f=require("fs");process.stdout.write("sha512-"+c.createHash("sha512").update(f.readFileSync(process.argv[1])).digest("base64"))' "$tgz")" ||
		die "$pkg@$version: cannot hash $tgz"
	[ "$got" = "$integrity" ] || die "$pkg@$version: tarball integrity $got, pinned $integrity (a changed package: check and update the pin)"
	# npm tarballs hold one top-level directory (usually package/).
	tar -xzf "$tgz" -C "$ex" || die "$pkg@$version: cannot extract $tgz"
	local top
	top="$(find "$ex" -mindepth 1 -maxdepth 1 -type d | head -n1)"
	[ -n "$top" ] || die "$pkg@$version: empty tarball"
	if [ "$keep" = "*" ]; then
		cp -R "$top/." "$dst/" || die "$name: cannot copy the sources"
	else
		local entry
		IFS=',' read -r -a entries <<<"$keep"
		for entry in "${entries[@]}"; do
			[ -e "$top/$entry" ] || die "$pkg@$version: the tarball has no $entry (fix the keep list)"
			cp -R "$top/$entry" "$dst/" || die "$name: cannot copy $entry"
		done
	fi
	install "$name" "$dst" "$stamp"
}

for p in "${go_projects[@]}"; do
	read -r name module version <<<"$p"
	fetch_go "$name" "$module" "$version"
done
for p in "${npm_projects[@]}"; do
	read -r name pkg version integrity keep <<<"$p"
	fetch_npm "$name" "$pkg" "$version" "$integrity" "$keep"
done
echo "fetch-realcode: workspaces in $ws"
