#!/usr/bin/env bash
# bench.sh — runs the benchmark set that BENCHMARKS.md reports and prints
# the figures.
#
#   scripts/bench.sh                 # everything (about 10 minutes on 2 cores)
#   BENCH_OUT=/tmp/b scripts/bench.sh
#   BENCH_PROFILE=1 scripts/bench.sh # then CPU profiles of cold index, restart and
#                                    # select, and a heap profile, at 100k
#   BENCH_1M=1 scripts/bench.sh      # also 1M symbols (about 640 MB of source generated
#                                    # in $BENCH_OUT; 1.1 GB peak RSS, ~15 minutes more)
#
# 1. the machine: CPU, cores, memory, Go version, load average;
# 2. the ctxls binary on a 100k-symbol synthetic workspace: a cold index,
#    a restart from the cache, and a select, each with its wall time and
#    peak resident set (/usr/bin/time -v), the RSS of a process that holds
#    only that index;
# 3. the go test benchmarks in workspace/bench_test.go: cold index and
#    restart (one iteration each), select and the BM25-over-files baseline
#    (200 queries each, for p50/p95), at 1k, 10k and 100k symbols.
# Raw outputs are kept in $BENCH_OUT (default: a new temp dir).
set -euo pipefail
cd "$(dirname "$0")/.."

out="${BENCH_OUT:-$(mktemp -d "${TMPDIR:-/tmp}/ctxls-bench.XXXXXX")}"
mkdir -p "$out"
query="retry the payment webhook when the gateway times out"

load() { echo "loadavg $(cut -d' ' -f1-3 /proc/loadavg)"; }

# measure NAME CMD...: runs CMD under /usr/bin/time -v, keeps its output in
# $out/NAME.{out,time} and prints wall time and max RSS.
measure() {
	local name=$1
	shift
	/usr/bin/time -v -o "$out/$name.time" "$@" >"$out/$name.out" 2>"$out/$name.err" || {
		echo "$name failed:"; cat "$out/$name.err"; exit 1
	}
	local wall rss usr sys
	wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$out/$name.time")
	rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$out/$name.time")
	usr=$(sed -n 's/.*User time (seconds): //p' "$out/$name.time")
	sys=$(sed -n 's/.*System time (seconds): //p' "$out/$name.time")
	printf '%-18s wall %-8s cpu %6.2f s  maxRSS %6.1f MB  (%s)\n' "$name" "$wall" \
		"$(echo "$usr + $sys" | bc -l)" "$(echo "$rss / 1000" | bc -l)" "$(load)"
}

echo "== machine"
date -u +"date %Y-%m-%d %H:%M UTC"
echo "cpu $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1), nproc $(nproc)"
echo "mem $(awk '/MemTotal/ {printf "%.1f GB", $2/1e6}' /proc/meminfo)"
go version
echo "code ${BENCH_REV:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet HEAD 2>/dev/null || echo ' + uncommitted changes')}"
load

echo "== ctxls binary, 100k symbols"
go build -o "$out/ctxls" ./cmd/ctxls
ws="$out/synth100k"
[ -d "$ws" ] || go run ./workspace/synth/cmd/synthgen -symbols 100000 -out "$ws"
rm -rf "$out/cache"
measure index-cold "$out/ctxls" index --root "$ws" --cache-dir off --json
measure index-cache-write "$out/ctxls" index --root "$ws" --cache-dir "$out/cache" --json
measure index-restart "$out/ctxls" index --root "$ws" --cache-dir "$out/cache" --json
measure index-restart2 "$out/ctxls" index --root "$ws" --cache-dir "$out/cache" --json
measure select-cold "$out/ctxls" select --root "$ws" --cache-dir off --json "$query"
measure select-restart "$out/ctxls" select --root "$ws" --cache-dir "$out/cache" --json "$query"
for n in index-cold index-restart; do
	echo "$n: $(tr -d ' \n' <"$out/$n.out" | grep -o '"files":[0-9]*,"symbols":[0-9]*' | head -1)," \
		"$(tr -d ' \n' <"$out/$n.out" | grep -o '"parsed":[0-9]*,"reused":[0-9]*')," \
		"$(tr -d ' \n' <"$out/$n.out" | grep -o '"elapsedMs":[0-9.]*')"
done
echo "select-restart: $(tr -d ' \n' <"$out/select-restart.out" | grep -o '"elapsedMs":[0-9.]*' | tail -1) (the select alone)"

echo "== over LSP: the ctxls binary serving from its mapped cache (build, then restart)"
load
go test -run '^$' -bench 'ServeMapped' -benchtime 200x -timeout 90m ./lsp/ | tee "$out/bench-serve.txt"

if [ -n "${BENCH_1M:-}" ]; then
	echo "== ctxls binary, 1M symbols (BENCH_1M=1)"
	ws1m="$out/synth1m"
	[ -d "$ws1m" ] || go run ./workspace/synth/cmd/synthgen -symbols 1000000 -out "$ws1m"
	rm -rf "$out/cache1m"
	measure index-cold-1m "$out/ctxls" index --root "$ws1m" --cache-dir "$out/cache1m" --json
	measure index-restart-1m "$out/ctxls" index --root "$ws1m" --cache-dir "$out/cache1m" --json
	measure select-restart-1m "$out/ctxls" select --root "$ws1m" --cache-dir "$out/cache1m" --json "$query"
	CTXLS_BENCH_1M=1 go test -run '^$' -bench 'ServeMapped/symbols=1000000' -benchtime 200x -timeout 90m ./lsp/ | tee "$out/bench-serve-1m.txt"
fi

echo "== go test -bench"
load
go test -run '^$' -bench 'ColdIndex|Restart' -benchtime 1x -timeout 60m ./workspace/ | tee "$out/bench-index.txt"
load
go test -run '^$' -bench 'Select|Baseline' -benchtime 200x -timeout 60m ./workspace/ | tee "$out/bench-select.txt"
load

if [ -n "${BENCH_PROFILE:-}" ]; then
	echo "== CPU profiles at 100k symbols"
	for b in ColdIndex:cold RestartFromCache:restart Select:select; do
		name=${b%%:*} tag=${b##*:}
		CTXLS_BENCH_HEAPPROFILE="$([ "$tag" = cold ] && echo "$out/heap" || true)" go test -run '^$' -bench "$name/symbols=100000\$" -benchtime "$([ "$tag" = select ] && echo 200x || echo 1x)" \
			-timeout 60m -cpuprofile "$out/$tag.cpu" -o "$out/workspace.test" ./workspace/ >"$out/prof-$tag.txt"
		echo "-- $tag (samples labelled bench=$tag), $(load)"
		go tool pprof -top -nodecount 25 -tagfocus "bench=$tag" "$out/workspace.test" "$out/$tag.cpu" 2>/dev/null | sed -n '4,33p'
		go tool pprof -top -cum -nodecount 25 -tagfocus "bench=$tag" "$out/workspace.test" "$out/$tag.cpu" 2>/dev/null | sed -n '9,33p' >"$out/$tag.cum.txt"
	done
	echo "-- live heap after the 100k cold index (inuse_space)"
	go tool pprof -top -nodecount 15 -sample_index=inuse_space "$out/workspace.test" "$out/heap.100000" 2>/dev/null | sed -n '4,24p'
fi
echo "raw output in $out"
