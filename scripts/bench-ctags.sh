#!/usr/bin/env bash
# bench-ctags.sh — the cold index of ctxls beside universal-ctags on the
# same trees, side by side (issue 24: "cold index CPU within 6× of
# universal-ctags").
#
#   scripts/bench-ctags.sh DIR...           # each DIR: a source tree (not modified)
#   CTXLS_BASE=/path/to/other/ctxls scripts/bench-ctags.sh DIR...
#                                           # also an older binary, e.g. main's
#   ROUNDS=5 scripts/bench-ctags.sh DIR...  # rounds per tool (default 3)
#
# With no DIR it uses the 10k-symbol synthetic workspace (generated under
# $TMPDIR if missing). For each tree and round it runs, one after the
# other: `ctags -R -f OUT --exclude=.git DIR`, the CTXLS_BASE binary if
# given, then this checkout's ctxls, as `ctxls index --root DIR
# --cache-dir off` (which reads the git history too, as a cold start
# does) and, in a git repository, `... --history-commits 0` (the index
# alone). Each line gives
# wall, user and system seconds and max RSS (/usr/bin/time), with the
# load average beside it; the summary per tree is the median CPU (user +
# sys) of each and its ratio to ctags'. CPU is the comparable figure on a
# shared machine; wall time is mostly queueing under load.
#
# Without universal-ctags on PATH (ctags --version saying "Universal
# Ctags") the ctags runs are skipped with a message and no ratio is given.
set -euo pipefail
cd "$(dirname "$0")/.."

rounds="${ROUNDS:-3}"
out="$(mktemp -d "${TMPDIR:-/tmp}/ctxls-bench-ctags.XXXXXX")"
go build -o "$out/ctxls" ./cmd/ctxls

dirs=("$@")
if [ ${#dirs[@]} -eq 0 ]; then
	ws="${TMPDIR:-/tmp}/ctxls-synthgen-10000"
	[ -d "$ws" ] || go run ./workspace/synth/cmd/synthgen -symbols 10000 -out "$ws" >/dev/null
	dirs=("$ws")
fi

ctags=""
if command -v ctags >/dev/null 2>&1 && ctags --version 2>/dev/null | grep -q "Universal Ctags"; then
	ctags=$(command -v ctags)
	echo "ctags: $(ctags --version | head -1)"
else
	echo "ctags: universal-ctags is not installed (no 'ctags --version' saying Universal Ctags on PATH); its runs and the ratios are skipped"
fi
echo "ctxls: $out/ctxls ($(git rev-parse --short HEAD 2>/dev/null || echo unknown))"
[ -n "${CTXLS_BASE:-}" ] && echo "base:  $CTXLS_BASE"

# run NAME CMD...: one timed run; prints its line and appends its CPU
# seconds to $out/NAME.cpu.
run() {
	local name=$1
	shift
	/usr/bin/time -f '%e %U %S %M' -o "$out/time" "$@" >/dev/null 2>"$out/err" || {
		echo "$name failed:"; cat "$out/err"; exit 1
	}
	read -r wall usr sys rss <"$out/time"
	printf '  %-14s wall %6.2f s  cpu %6.2f s (user %5.2f, sys %4.2f)  maxRSS %5.0f MB  load %s\n' \
		"$name" "$wall" "$(echo "$usr + $sys" | bc -l)" "$usr" "$sys" "$(echo "$rss / 1000" | bc -l)" \
		"$(cut -d' ' -f1 /proc/loadavg)"
	echo "$usr + $sys" | bc -l >>"$out/$name.cpu"
}

median() { sort -g "$1" | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

for dir in "${dirs[@]}"; do
	dir=$(cd "$dir" && pwd)
	echo "== $dir: $(find "$dir" -name .git -prune -o -type f -print | wc -l) files"
	rm -f "$out"/*.cpu
	git=""
	git -C "$dir" rev-parse --git-dir >/dev/null 2>&1 && git=1 # else there is no history to leave out
	for r in $(seq "$rounds"); do
		echo " round $r"
		[ -n "$ctags" ] && run ctags "$ctags" -R -f "$out/tags" --exclude=.git "$dir"
		if [ -n "${CTXLS_BASE:-}" ]; then
			XDG_CACHE_HOME="$out/xdg" run base "$CTXLS_BASE" index --root "$dir" --cache-dir off
			if [ -n "$git" ]; then
				XDG_CACHE_HOME="$out/xdg" run base-nohist "$CTXLS_BASE" index --root "$dir" --cache-dir off --history-commits 0
			fi
		fi
		XDG_CACHE_HOME="$out/xdg" run ctxls "$out/ctxls" index --root "$dir" --cache-dir off
		if [ -n "$git" ]; then
			XDG_CACHE_HOME="$out/xdg" run ctxls-nohist "$out/ctxls" index --root "$dir" --cache-dir off --history-commits 0
		fi
	done
	echo " median CPU of $rounds:"
	for name in ctags base base-nohist ctxls ctxls-nohist; do
		[ -f "$out/$name.cpu" ] || continue
		m=$(median "$out/$name.cpu")
		ratio=""
		if [ -n "$ctags" ] && [ "$name" != ctags ]; then
			ratio=$(printf '  %.1f× ctags' "$(echo "$m / $(median "$out/ctags.cpu")" | bc -l)")
		fi
		printf '  %-14s %6.2f s%s\n' "$name" "$m" "$ratio"
	done
done
echo "raw files in $out"
