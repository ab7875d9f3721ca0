#!/usr/bin/env bash
# fuzz.sh — a short run of every robustness fuzz target, as CI runs it:
# the decoding front (jsonfront against encoding/json), the LSP framing
# and its resynchronisation, the MCP line transport, whole requests and
# notifications against a live server, the query analyser, incremental
# re-parsing (random edits must equal a fresh parse) and the cache decoder. Each starts from its seed
# corpus in testdata/fuzz/ (a failing input found later is written there
# too: commit it with the fix). CTXLS_FUZZ_SCALE multiplies the inputs.
set -euo pipefail
cd "$(dirname "$0")/.."
scale=${CTXLS_FUZZ_SCALE:-1}
total=0
run() {
	local pkg=$1 name=$2 n=$(($3 * scale))
	printf 'fuzz %-16s %6d inputs: ' "$name" "$n"
	local out
	if ! out=$(go test -run '^$' -fuzz "^${name}\$" -fuzztime "${n}x" "./$pkg" 2>&1); then
		echo "FAIL"; echo "$out"; exit 1
	fi
	echo "${out##*$'\n'}"
	total=$((total + n))
}
run lsp/jsonfront FuzzCheck 10000
run lsp FuzzFraming 10000
run lsp/mcp FuzzLineTransport 10000
run lsp FuzzRequests 3000
run symbolindex/parse FuzzParseEdit 2000
run heuristics FuzzAnalyze 2000
run symbolindex FuzzDecodeIndex 2000
echo "fuzz: $total inputs, no crash and no hang"
