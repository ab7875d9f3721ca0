#!/usr/bin/env bash
# bench-cli.sh — `ctxls select` as a whole process on a cached repository,
# in this process (--remote=off) and through a shared daemon, beside a
# lexical search of the same tree (ripgrep when installed, else grep -r).
# Median of 5 wall times each, after one warm-up run that fills the cache.
#
#   bash scripts/bench-cli.sh DIR [QUERY]
#   CTXLS_BIN=/path/to/ctxls bash scripts/bench-cli.sh DIR
set -euo pipefail
dir=$(cd "$1" && pwd)
query=${2:-"dependency injection"}
bin=${CTXLS_BIN:-}
work=$(mktemp -d "${TMPDIR:-/tmp}/ctxls-cli.XXXXXX")
trap 'kill "${dpid:-}" 2>/dev/null || true; rm -rf "$work"' EXIT
if [ -z "$bin" ]; then
	bin="$work/ctxls"
	(cd "$(dirname "$0")/.." && go build -o "$bin" ./cmd/ctxls)
fi
export XDG_CACHE_HOME="$work/cache" CTXLS_REMOTE=

# median runs a command 5 times and prints the median wall time and the
# median CPU time (user+sys) of the process, in seconds.
median() {
	for _ in 1 2 3 4 5; do
		/usr/bin/time -f "%e %U %S" -o "$work/time" "$@" >/dev/null 2>&1 || true
		tail -n 1 "$work/time"
	done >"$work/times"
	wall=$(awk '{print $1}' "$work/times" | sort -n | sed -n 3p)
	cpu=$(awk '{print $2 + $3}' "$work/times" | sort -n | sed -n 3p)
	echo "${wall} s wall, ${cpu} s CPU"
}

files=$(git -C "$dir" ls-files 2>/dev/null | wc -l)
echo "tree: $dir ($files files), query: $query, load: $(cut -d' ' -f1-3 /proc/loadavg)"
if command -v rg >/dev/null; then
	echo "ripgrep:                    $(median rg -n --no-heading "$query" "$dir")"
else
	echo "grep -rn (no rg installed): $(median grep -rn "$query" "$dir")"
fi
"$bin" select --root "$dir" "$query" >/dev/null # warm-up: builds the cache
echo "select, in process:         $(median "$bin" select --root "$dir" "$query")"
echo "  --history-commits 0:      $(median "$bin" select --root "$dir" --history-commits 0 "$query")"
mkdir -m 700 "$work/run"
sock="$work/run/d.sock"
"$bin" daemon --socket "$sock" --idle 2m 2>"$work/daemon.log" &
dpid=$!
for _ in $(seq 100); do [ -S "$sock" ] && break; sleep 0.05; done
"$bin" select --remote="$sock" --root "$dir" "$query" >/dev/null # the daemon's first index (from the cache)
echo "select --remote (daemon):   $(median "$bin" select --remote="$sock" --root "$dir" "$query")"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
