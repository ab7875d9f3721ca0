#!/usr/bin/env bash
# test-neovim.sh — the Neovim plugin's headless end-to-end test.
#
# Builds ctxls (unless CTXLS_BIN names one), then runs
# editors/neovim/test/e2e.lua in a real `nvim --headless -u NONE` against it
# on a fixture workspace, then editors/neovim/test/screens.py: Neovim in a
# real terminal (tmux, 120x35) on testdata/workspaces/shop.txtar, saving
# each screen as .ansi, .txt and .html to editors/neovim/test/screenshots/
# (or CTXLS_SCREENSHOTS). Exits non-zero when a case fails. Without nvim
# (or tmux, for the screens) it says so and exits 0, except in CI (CI set),
# where both are required.
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

# The e2e's share_index case starts a daemon under this runtime directory
# and stops it whether the case passed or not; should Neovim never get
# there (a hang, a crash), stop_daemons stops what is left on the way out,
# and the run fails.
run=$(mktemp -d)
chmod 700 "$run"
export CTXLS_E2E_RUN="$run"
bindir=""
# stop_daemons asks each daemon listening under $run its pid (ctxls/status,
# framed as LSP) and sends that process SIGTERM; it fails when it found one.
stop_daemons() {
	python3 - "$run" <<'PY'
import glob, json, os, signal, socket, sys
left = 0
def frames(s):
    """Yields the JSON-RPC messages read from s, one Content-Length frame each."""
    buf = b""
    while True:
        while b"\r\n\r\n" not in buf:
            data = s.recv(65536)
            if not data:
                return
            buf += data
        head, buf = buf.split(b"\r\n\r\n", 1)
        n = next(int(l.split(b":")[1]) for l in head.split(b"\r\n") if l.lower().startswith(b"content-length:"))
        while len(buf) < n:
            data = s.recv(65536)
            if not data:
                return
            buf += data
        body, buf = buf[:n], buf[n:]
        yield json.loads(body)

for path in glob.glob(os.path.join(sys.argv[1], "ctxls", "*.sock")):
    s = socket.socket(socket.AF_UNIX)
    s.settimeout(5)
    try:
        s.connect(path)
    except (ConnectionRefusedError, FileNotFoundError):
        continue  # nothing answers there: no daemon left
    pid = None
    try:
        req = b'{"jsonrpc":"2.0","id":1,"method":"ctxls/status","params":{}}'
        s.sendall(b"Content-Length: %d\r\n\r\n" % len(req) + req)
        for msg in frames(s):  # notifications may come first
            if msg.get("id") == 1:
                pid = msg["result"]["pid"]
                break
    except (OSError, ValueError, KeyError, StopIteration) as e:
        print(f"test-neovim: something still answers on {path} but its status did not say its pid: {e}", file=sys.stderr)
    finally:
        s.close()
    left += 1
    if pid is None:
        print(f"test-neovim: a daemon was left running on {path}", file=sys.stderr)
        continue
    os.kill(pid, signal.SIGTERM)
    print(f"test-neovim: a daemon was left running on {path} (pid {pid}); stopped it", file=sys.stderr)
sys.exit(1 if left else 0)
PY
}
cleanup() {
	status=$?
	if ! stop_daemons; then
		status=1
	fi
	rm -rf "$run" ${bindir:+"$bindir"}
	exit "$status"
}
trap cleanup EXIT

if [ -z "${CTXLS_BIN:-}" ]; then
	bindir=$(mktemp -d)
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

# The screens a user sees, in a real terminal, saved for a reviewer.
if ! command -v tmux >/dev/null 2>&1; then
	if [ -n "${CI:-}" ]; then
		echo "test-neovim: tmux is not installed; CI must install it (apt-get install -y tmux)" >&2
		exit 1
	fi
	echo "test-neovim: tmux not found, Neovim screenshots not taken (install tmux to take them)"
	exit 0
fi
if command -v timeout >/dev/null 2>&1; then
	limit=(timeout 120)
fi
"${limit[@]}" python3 editors/neovim/test/screens.py
