#!/usr/bin/env bash
# test-vscode.sh — the VS Code extension's checks, as CI runs them.
#
# Builds the ctxls server, installs the extension's locked dependencies
# (npm ci), type-checks it, runs its tests with node's test runner (the
# end-to-end test drives the real server through vscode-jsonrpc) and
# packages the .vsix with vsce, offline. Exits non-zero on any failure.
#
#   bash scripts/test-vscode.sh
#   CTXLS_BIN=/path/to/ctxls bash scripts/test-vscode.sh   # skip the go build
set -euo pipefail
cd "$(dirname "$0")/.."

command -v node >/dev/null || { echo "test-vscode: node (20 or newer) is required" >&2; exit 1; }
command -v npm >/dev/null || { echo "test-vscode: npm is required" >&2; exit 1; }
node_major=$(node -p 'process.versions.node.split(".")[0]')
if [ "$node_major" -lt 20 ]; then
	echo "test-vscode: node 20 or newer is required, found $(node --version)" >&2
	exit 1
fi

if [ -z "${CTXLS_BIN:-}" ]; then
	bindir=$(mktemp -d "${TMPDIR:-/tmp}/ctxls-vscode.XXXXXX")
	trap 'rm -rf "$bindir"' EXIT
	echo "== go build ./cmd/ctxls"
	go build -o "$bindir/ctxls" ./cmd/ctxls
	export CTXLS_BIN="$bindir/ctxls"
fi

cd editors/vscode
echo "== npm ci"
npm ci --no-audit --no-fund
rm -rf out dist ./*.vsix
echo "== tsc"
npx --no-install tsc -p .
echo "== node --test"
npm test
echo "== vsce package"
npx --no-install vsce package --no-dependencies
ls -l ./*.vsix
