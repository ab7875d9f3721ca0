#!/usr/bin/env python3
"""Show the raw JSON-RPC exchange with ctxls, message by message.

This is the smallest complete client: it starts `ctxls serve`, sends
initialize, initialized, textDocument/didOpen, waits for the first index,
asks workspace/contextSelect, then shutdown and exit, and prints every
message in both directions exactly as it crossed the pipe (Content-Length
framing on stdin/stdout). Use it as a template when wiring ctxls into your
own tool. Python 3.8+, standard library only.

    python3 editors/jsonrpc-demo.py [--ctxls PATH] [--root DIR] [--file PATH]
                                    [--limit N] [--quiet] [QUERY...]

Without --root it writes a small fixture workspace to a temporary directory.
Exit status: 0 when the selection returned at least one item, 1 otherwise.
"""

import argparse
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import threading
import queue

FIXTURE = {
    "go.mod": "module example.com/shop\n\ngo 1.22\n",
    "cart/cart.go": '''package cart

// Cart holds the line items a customer is about to buy.
type Cart struct {
	Items []Item
}

// Item is one product and its quantity.
type Item struct {
	SKU      string
	Quantity int
	PriceCents int
}

// Total returns the price of every item in the cart, in cents.
func (c *Cart) Total() int {
	sum := 0
	for _, it := range c.Items {
		sum += it.Quantity * it.PriceCents
	}
	return sum
}
''',
    "pricing/discount.py": '''"""Discount rules applied at checkout."""


def apply_discount(total_cents, code):
    """Return the total after applying a discount code such as SAVE10."""
    if code == "SAVE10":
        return total_cents * 90 // 100
    return total_cents
''',
}


class Connection:
    """One LSP connection over a child process's stdin/stdout."""

    def __init__(self, argv, quiet):
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE)
        self.quiet = quiet
        self.next_id = 0
        self.inbox = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=self._drain_stderr, daemon=True).start()

    def _show(self, arrow, msg):
        if self.quiet:
            return
        text = json.dumps(msg, indent=2, ensure_ascii=False)
        if len(text) > 2400:
            text = text[:2400] + "\n  ... (%d more characters)" % (len(text) - 2400)
        print("%s %s" % (arrow, text), flush=True)

    def _drain_stderr(self):
        for line in self.proc.stderr:
            if not self.quiet:
                sys.stderr.write("   [ctxls stderr] " + line.decode("utf-8", "replace"))

    def _read(self):
        out = self.proc.stdout
        while True:
            length = None
            while True:  # headers end with an empty line
                line = out.readline()
                if not line:
                    self.inbox.put(None)
                    return
                line = line.strip()
                if not line:
                    break
                name, _, value = line.decode("ascii").partition(":")
                if name.lower() == "content-length":
                    length = int(value)
            if length is None:
                self.inbox.put(None)
                return
            msg = json.loads(out.read(length))
            self._show("<--", msg)
            self.inbox.put(msg)

    def send(self, msg):
        self._show("-->", msg)
        body = json.dumps(msg).encode("utf-8")
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()

    def notify(self, method, params):
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def wait_for(self, what, match, timeout=60):
        """Read messages until match(msg) is true, answering server requests
        (window/workDoneProgress/create, client/registerCapability) on the way."""
        while True:
            try:
                msg = self.inbox.get(timeout=timeout)
            except queue.Empty:
                raise RuntimeError("no %s from ctxls within %ds" % (what, timeout)) from None
            if msg is None:
                raise RuntimeError("ctxls closed the connection while we waited for %s" % what)
            if "method" in msg and "id" in msg:
                self.send({"jsonrpc": "2.0", "id": msg["id"], "result": None})
            if match(msg):
                return msg

    def request(self, method, params):
        """Send a request and return its result; an error response raises."""
        self.next_id += 1
        rid = self.next_id
        self.send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        msg = self.wait_for("the response to " + method,
                            lambda m: "method" not in m and m.get("id") == rid)
        if "error" in msg:
            raise RuntimeError("%s failed: %s" % (method, msg["error"].get("message")))
        return msg.get("result")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ctxls", default=os.environ.get("CTXLS_BIN") or shutil.which("ctxls") or "ctxls",
                    help="the ctxls binary (default: $CTXLS_BIN, then PATH)")
    ap.add_argument("--root", help="workspace folder (default: a temporary fixture)")
    ap.add_argument("--file", help="a file under the root to open (default: the first fixture file)")
    ap.add_argument("--limit", type=int, default=3)
    ap.add_argument("--quiet", action="store_true", help="print only the selected items")
    ap.add_argument("query", nargs="*", help="the query (default: 'cart total price')")
    args = ap.parse_args()

    query = " ".join(args.query) or "cart total price"
    tmp = None
    if args.root:
        root = pathlib.Path(args.root).resolve()
        if not root.is_dir():
            sys.exit("jsonrpc-demo: --root %s is not a directory" % args.root)
    else:
        tmp = tempfile.mkdtemp(prefix="ctxls-demo-")
        root = pathlib.Path(tmp)
        for rel, text in FIXTURE.items():
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_text(text)
    try:
        doc = pathlib.Path(args.file).resolve() if args.file else root / "cart" / "cart.go"
        return run(args.ctxls, root, doc, query, args.limit, args.quiet)
    finally:
        if tmp:
            shutil.rmtree(tmp, ignore_errors=True)


def run(ctxls, root, doc, query, limit, quiet):
    """Run the whole exchange on root and print the selected items."""
    try:
        conn = Connection([ctxls, "serve"], quiet)
    except OSError as err:
        sys.exit("jsonrpc-demo: cannot run %r (%s): build it with `go build -o ctxls ./cmd/ctxls` "
                 "and pass --ctxls PATH" % (ctxls, err.strerror))
    try:
        conn.request("initialize", {
            "processId": os.getpid(),
            "clientInfo": {"name": "jsonrpc-demo"},
            "rootUri": root.as_uri(),
            "workspaceFolders": [{"uri": root.as_uri(), "name": root.name}],
            "capabilities": {"window": {"workDoneProgress": True}},
            "initializationOptions": {"cacheDir": "off"},
        })
        conn.notify("initialized", {})
        if doc.is_file():
            conn.notify("textDocument/didOpen", {"textDocument": {
                "uri": doc.as_uri(), "languageId": "", "version": 1,
                "text": doc.read_text(encoding="utf-8", errors="replace")}})
        # The server indexes in the background and reports $/progress.
        # Requests are answered meanwhile (with stats.ready false); this demo
        # waits for the end of the first index to show a complete answer.
        conn.wait_for("the end of indexing", lambda m: m.get("method") == "$/progress"
                      and (m.get("params") or {}).get("value", {}).get("kind") == "end")
        params = {"query": query, "limit": limit, "maxChars": 4000}
        if doc.is_file():
            params["activeUri"] = doc.as_uri()
        result = conn.request("workspace/contextSelect", params)
        conn.request("shutdown", None)
        conn.notify("exit", None)
        conn.proc.wait(timeout=10)
    except (RuntimeError, subprocess.TimeoutExpired) as err:
        sys.exit("jsonrpc-demo: %s" % err)
    finally:
        if conn.proc.poll() is None:
            conn.proc.kill()

    print("\n%d items for %r (ready=%s, %s symbols):" % (
        len(result["items"]), query, result["stats"]["ready"], result["stats"].get("symbols")))
    for it in result["items"]:
        line = it["range"]["start"]["line"] + 1
        print("  %s:%d  %s  %s  %.4f  %s" % (it["path"], line, it["symbol"] or "-", it["kind"],
                                             it["score"], it["reason"]))
    return 0 if result["items"] else 1

if __name__ == "__main__":
    sys.exit(main())
