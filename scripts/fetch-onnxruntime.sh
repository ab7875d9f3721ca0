#!/usr/bin/env bash
# fetch-onnxruntime.sh [DEST_DIR]
#
# Fetches the CPU build of the ONNX Runtime shared library that ctxls's
# "onnx" embedder loads (github.com/yalue/onnxruntime_go v1.27.0 needs
# ONNX Runtime >= 1.24). The library is taken from the onnxruntime-node
# package on the npm registry with `npm pack`, which downloads the tarball
# only: no install scripts run, nothing else is downloaded.
#
# DEST_DIR defaults to $HOME/.cache/ctxls/onnxruntime, one of the places
# ctxls looks by itself. Running the script again when the library is
# already there does nothing.
#
# Environment: CTXLS_ORT_VERSION overrides the runtime version (default
# 1.24.3).
set -euo pipefail

die() {
	echo "fetch-onnxruntime: $*" >&2
	exit 1
}

version="${CTXLS_ORT_VERSION:-1.24.3}"
default_dest="${HOME:-}/.cache/ctxls/onnxruntime"
dest="${1:-}"
if [ -z "$dest" ]; then
	[ -n "${HOME:-}" ] || die "HOME is not set; pass DEST_DIR"
	dest="$default_dest"
fi
dest="${dest%/}"

os="$(uname -s)"
arch="$(uname -m)"
case "$arch" in
x86_64 | amd64) arch=x64 ;;
aarch64 | arm64) arch=arm64 ;;
*) die "unsupported CPU architecture $arch (onnxruntime-node ships x64 and arm64)" ;;
esac

# pattern: the library inside the npm tarball (an ERE; the package keeps
# it under bin/napi-vN/<os>/<arch>/); lib: its name in DEST_DIR; link: the
# unversioned name, a symlink to lib.
case "$os" in
Linux)
	pattern="^package/bin/napi-v[0-9]+/linux/$arch/libonnxruntime\.so\.1$"
	lib=libonnxruntime.so.1
	link=libonnxruntime.so
	;;
Darwin)
	pattern="^package/bin/napi-v[0-9]+/darwin/$arch/libonnxruntime\.[0-9.]+dylib$"
	lib="libonnxruntime.$version.dylib"
	link=libonnxruntime.dylib
	;;
MINGW* | MSYS* | CYGWIN*)
	pattern="^package/bin/napi-v[0-9]+/win32/$arch/onnxruntime\.dll$"
	lib=onnxruntime.dll
	link=""
	;;
*) die "unsupported OS $os" ;;
esac

report() {
	echo "ONNX Runtime $version: $dest/$lib"
	if [ "$dest" = "$default_dest" ]; then
		echo "ctxls finds it there by itself; to point at it explicitly:"
	else
		echo "point ctxls at it with --ort-lib, or:"
	fi
	echo "export CTXLS_ORT_LIB=$dest/$lib"
}

if [ -f "$dest/$lib" ]; then
	echo "already present, nothing to do"
	report
	exit 0
fi

command -v npm >/dev/null 2>&1 || die "npm not found; install Node.js/npm, or download ONNX Runtime >= 1.24 from https://github.com/microsoft/onnxruntime/releases and pass --ort-lib"
command -v tar >/dev/null 2>&1 || die "tar not found"

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

echo "downloading onnxruntime-node@$version from the npm registry (no install scripts)..."
(cd "$tmp" && npm pack --ignore-scripts --loglevel=error "onnxruntime-node@$version" >pack.log 2>&1) ||
	die "npm pack onnxruntime-node@$version failed: $(tail -n 5 "$tmp/pack.log" 2>/dev/null)"

tarball="$(ls "$tmp"/onnxruntime-node-*.tgz 2>/dev/null | head -n 1)"
[ -n "$tarball" ] || die "npm pack produced no tarball in $tmp"

member="$(tar -tzf "$tarball" | grep -E "$pattern" | head -n 1 || true)"
[ -n "$member" ] || die "onnxruntime-node@$version has no library for $os/$arch; it holds: $(tar -tzf "$tarball" | grep -E 'onnxruntime[^/]*\.(so|dylib|dll)' | tr '\n' ' ')"
tar -xzf "$tarball" -C "$tmp" "$member" || die "cannot extract $member from $tarball"

mkdir -p "$dest" || die "cannot create $dest"
cp "$tmp/$member" "$dest/$lib.tmp"
chmod 0755 "$dest/$lib.tmp"
mv -f "$dest/$lib.tmp" "$dest/$lib"
if [ -n "$link" ]; then
	ln -sfn "$lib" "$dest/$link"
fi

report
