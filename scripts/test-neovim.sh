#!/usr/bin/env bash
# test-neovim.sh — the Neovim plugin's headless end-to-end test.
#
# Builds ctxls (unless CTXLS_BIN names one), then runs
# editors/neovim/test/e2e.lua in a real `nvim --headless -u NONE` against it
# on a fixture workspace. Exits non-zero when a case fails. Without nvim it
# says so and exits 0, except in CI (CI set), where nvim is required.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v nvim >/dev/null 2>&1; then
	if [ -n "${CI:-}" ]; then
		echo "test-neovim: nvim is not installed; CI must install it (apt-get install -y neovim)" >&2
		exit 1
	fi
	echo "test-neovim: nvim not found, Neovim test not run (install Neovim 0.7+ to run it)"
	exit 0
fi

if [ -z "${CTXLS_BIN:-}" ]; then
	bindir=$(mktemp -d)
	trap 'rm -rf "$bindir"' EXIT
	go build -o "$bindir/ctxls" ./cmd/ctxls
	CTXLS_BIN="$bindir/ctxls"
fi
export CTXLS_BIN

echo "test-neovim: $(nvim --version | head -n 1)"
# The test exits Neovim itself (qall or cquit 1); the trailing cquit catches
# a script that stops early, and timeout a Neovim that hangs.
limit=()
if command -v timeout >/dev/null 2>&1; then
	limit=(timeout 300)
fi
"${limit[@]}" nvim --headless -u NONE -i NONE -n \
	-c 'luafile editors/neovim/test/e2e.lua' -c 'cquit 1' </dev/null
