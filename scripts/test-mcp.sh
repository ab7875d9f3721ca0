#!/usr/bin/env bash
# test-mcp.sh — `ctxls mcp` tested with a real MCP client: the official
# TypeScript SDK (@modelcontextprotocol/sdk, pinned in editors/mcp's
# lockfile) spawns the binary over stdio, as an agent does.
#
#   bash scripts/test-mcp.sh
#   CTXLS_BIN=/path/to/ctxls bash scripts/test-mcp.sh   # skip the go build
set -euo pipefail
cd "$(dirname "$0")/.."

command -v npm >/dev/null || { echo "test-mcp: node and npm are required" >&2; exit 1; }
if [ -z "${CTXLS_BIN:-}" ]; then
	bindir=$(mktemp -d "${TMPDIR:-/tmp}/ctxls-mcp.XXXXXX")
	trap 'rm -rf "$bindir"' EXIT
	go build -o "$bindir/ctxls" ./cmd/ctxls
	export CTXLS_BIN="$bindir/ctxls"
fi
cd editors/mcp
npm ci --no-audit --no-fund >/dev/null
npm test
