#!/usr/bin/env bash
# test.sh — the whole test suite, as CI runs it.
#
# First scripts/setup.sh checks every tool the suite needs (Go, gcc, Node
# 20+, npm, git, python3, Neovim, Chromium, ...) and installs the missing
# ones with apt-get when run as root on Debian or Ubuntu; otherwise it
# names them in one line and nothing else runs.
#
# The first run downloads about 840 MB into ~/.cache/ctxls (Node 24 and
# code-server for the VS Code host test, 805 MB; the ONNX Runtime library,
# 34 MB) plus the real-code corpus and the editors' npm dependencies, and
# takes 20 to 30 minutes on two cores with an empty Go build cache: the C grammars are
# compiled three times (plain, with -race, and instrumented for fuzzing),
# about 6 minutes each.
#
# Fetches the ONNX Runtime library the ONNX tests need (from the npm
# registry, once) and the real-code corpus (Go module proxy and npm), then
# checks formatting, vet and the structure limits, runs every Go test with
# the race detector, the retrieval eval with its ratchet, the VS Code
# extension's tests and packaging, the extension in code-server driven
# by headless Chromium, `ctxls mcp` with the official MCP
# client, and the Neovim plugin's headless test. The ONNX
# tests run against the real runtime and are never skipped here.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup.sh

ort_dir="${CTXLS_ORT_DIR:-${HOME}/.cache/ctxls/onnxruntime}"
bash scripts/fetch-onnxruntime.sh "$ort_dir" >/dev/null
export CTXLS_ORT_LIB="$ort_dir/libonnxruntime.so.1"
export CTXLS_REQUIRE_ONNX=1

echo "== gofmt"
unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go' -not -path './editors/*'))
if [ -n "$unformatted" ]; then
	echo "gofmt would change:"; echo "$unformatted"; exit 1
fi

echo "== go vet"
go vet ./...

# Issue 21's structure limits: at most 15 non-test files and 10 arrows
# between files that run back up per package, no function over 80 lines.
echo "== archcheck"
go run ./scripts/archcheck

bindir=$(mktemp -d "${TMPDIR:-/tmp}/ctxls-test.XXXXXX")
trap 'rm -rf "$bindir"' EXIT
go build -o "$bindir/ctxls" ./cmd/ctxls
export CTXLS_BIN="$bindir/ctxls"

echo "== ctxls eval"
"$CTXLS_BIN" eval testdata

# The real-code benchmark: seven pinned projects from the Go module proxy
# and npm, so that the real-code tests run here too, never skipped.
echo "== ctxls eval testdata/realcode"
bash scripts/fetch-realcode.sh >/dev/null
"$CTXLS_BIN" eval testdata/realcode | tail -n 3

# Real history: the project's own last commits as cases (a smoke test; a
# shallow clone has fewer).
echo "== ctxls replay --root . --commits 30"
"$CTXLS_BIN" replay --root . --commits 30 --baseline

echo "== editors/vscode"
bash scripts/test-vscode.sh

echo "== editors/vscode in code-server (a real VS Code host)"
bash scripts/test-codeserver.sh

echo "== ctxls mcp (official MCP TypeScript SDK client)"
bash scripts/test-mcp.sh

echo "== editors/neovim"
bash scripts/test-neovim.sh

echo "== raw JSON-RPC demo"
python3 editors/jsonrpc-demo.py --quiet --ctxls "$CTXLS_BIN" >/dev/null

echo "== fuzz (short)"
bash scripts/fuzz.sh

# Last, so that the run closes with go test's own summary lines. The full
# go vet ran above: -vet=off spares go test its second pass over every
# package.
echo "== go test -race"
go test -race -vet=off -timeout 20m ./...
