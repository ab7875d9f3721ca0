#!/usr/bin/env python3
"""Screenshots of ctxls.nvim in a real terminal, for a reviewer to look at.

Runs the real Neovim with the plugin and the real ctxls binary (CTXLS_BIN)
in a tmux session of a fixed size (120x35), on the fixture workspace
testdata/workspaces/shop.txtar, and types what a user types:

  1. :CtxlsSelect {question}   the results buffer, a Why: line per item
  2. :CtxlsPick                the floating list with the preview
  3. j                         the preview follows the cursor
  4. :CtxlsSelect! {question}  the quickfix list

After each step it saves the screen to CTXLS_SCREENSHOTS (default
editors/neovim/test/screenshots/) as N-name.ansi (tmux capture-pane -e),
N-name.txt (plain) and N-name.html (the ANSI colours as spans; open it in a
browser), and checks what a user would see there. Exits 1 with one line
naming the first thing missing (the screen is saved as N-name.txt all the
same); the tmux server, on its own socket, is killed whatever happens.

  CTXLS_BIN=/path/to/ctxls python3 editors/neovim/test/screens.py
"""

import html
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
PLUGIN = os.path.dirname(HERE)
REPO = os.path.dirname(os.path.dirname(PLUGIN))
FIXTURE = os.path.join(REPO, "testdata", "workspaces", "shop.txtar")
WIDTH, HEIGHT = 120, 35
QUESTION = "expired coupon codes are still accepted at checkout"
OPEN = "internal/cart/pricing.go"


class Failed(Exception):
    pass


def show(path):
    """A path as a reader finds it: relative to here when it is below."""
    rel = os.path.relpath(path)
    return path if rel.startswith("..") else rel


# --------------------------------------------------------------------------
# the fixture


def extract_txtar(archive, root):
    """Writes the files of a txtar archive under root."""
    name, lines = None, []

    def flush():
        if name is not None:
            path = os.path.join(root, name)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w", encoding="utf-8") as f:
                f.write("".join(lines))

    with open(archive, encoding="utf-8") as f:
        for line in f:
            m = re.match(r"^-- (\S.*?) --$", line.rstrip("\n"))
            if m:
                flush()
                name, lines = m.group(1), []
            elif name is not None:
                lines.append(line)
    flush()


# --------------------------------------------------------------------------
# ANSI (SGR) to HTML

# xterm's 16 colours, then the 6x6x6 cube and the grey ramp of the 256.
BASE16 = [
    "#000000", "#cd0000", "#00cd00", "#cdcd00", "#0000ee", "#cd00cd", "#00cdcd", "#e5e5e5",
    "#7f7f7f", "#ff0000", "#00ff00", "#ffff00", "#5c5cff", "#ff00ff", "#00ffff", "#ffffff",
]
DEFAULT_FG, DEFAULT_BG = "#d0d0d0", "#1c1c1c"


def colour256(n):
    if n < 16:
        return BASE16[n]
    if n < 232:
        n -= 16
        steps = [0, 95, 135, 175, 215, 255]
        return "#%02x%02x%02x" % (steps[n // 36], steps[(n // 6) % 6], steps[n % 6])
    g = 8 + (n - 232) * 10
    return "#%02x%02x%02x" % (g, g, g)


def apply_sgr(params, st):
    """Updates the style st (a dict) by one SGR sequence's parameters."""
    ps = [int(p) if p.isdigit() else 0 for p in params.split(";")] if params else [0]
    i = 0
    while i < len(ps):
        p = ps[i]
        if p == 0:
            st.clear()
        elif p == 1:
            st["bold"] = True
        elif p == 2:
            st["dim"] = True
        elif p == 3:
            st["italic"] = True
        elif p in (4, 21):
            st["underline"] = True
        elif p == 7:
            st["reverse"] = True
        elif p == 9:
            st["strike"] = True
        elif p == 22:
            st.pop("bold", None)
            st.pop("dim", None)
        elif p == 23:
            st.pop("italic", None)
        elif p == 24:
            st.pop("underline", None)
        elif p == 27:
            st.pop("reverse", None)
        elif p == 29:
            st.pop("strike", None)
        elif 30 <= p <= 37 or 90 <= p <= 97:
            st["fg"] = BASE16[p - 30 if p < 90 else p - 90 + 8]
        elif 40 <= p <= 47 or 100 <= p <= 107:
            st["bg"] = BASE16[p - 40 if p < 100 else p - 100 + 8]
        elif p == 39:
            st.pop("fg", None)
        elif p == 49:
            st.pop("bg", None)
        elif p in (38, 48) and i + 1 < len(ps):
            key = "fg" if p == 38 else "bg"
            if ps[i + 1] == 5 and i + 2 < len(ps):
                st[key] = colour256(ps[i + 2])
                i += 2
            elif ps[i + 1] == 2 and i + 4 < len(ps):
                st[key] = "#%02x%02x%02x" % tuple(min(255, c) for c in ps[i + 2:i + 5])
                i += 4
        i += 1


def css(st):
    fg, bg = st.get("fg"), st.get("bg")
    if st.get("reverse"):
        fg, bg = bg or DEFAULT_BG, fg or DEFAULT_FG
    out = []
    if fg:
        out.append("color:" + fg)
    if bg:
        out.append("background:" + bg)
    if st.get("bold"):
        out.append("font-weight:bold")
    if st.get("dim"):
        out.append("opacity:.7")
    if st.get("italic"):
        out.append("font-style:italic")
    deco = [d for d, k in (("underline", "underline"), ("line-through", "strike")) if st.get(k)]
    if deco:
        out.append("text-decoration:" + " ".join(deco))
    return ";".join(out)


ESCAPE = re.compile(r"\x1b\[([0-9;:]*)([A-Za-z])|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b.")


def style_at(ansi, text):
    """The CSS style of the first character of text where ANSI text first shows it."""
    at = ESCAPE.sub("", ansi).find(text)
    if at < 0:
        return None
    st, seen = {}, 0
    for part in re.split(r"(\x1b\[[0-9;:]*m)", ansi):
        if part.startswith("\x1b["):
            apply_sgr(part[2:-1].replace(":", ";"), st)
            continue
        seen += len(ESCAPE.sub("", part))
        if seen > at:
            return css(st)
    return None


def ansi_to_html(ansi, title):
    """An HTML page showing ANSI text as a terminal would."""
    body, st, pos = [], {}, 0

    def text(s):
        if not s:
            return
        style = css(st)
        # A span never holds a line break (its inline-block would).
        parts = [html.escape(p) for p in s.split("\n")]
        if style:
            parts = ['<span style="%s">%s</span>' % (style, p) if p else p for p in parts]
        body.append("\n".join(parts))

    for m in ESCAPE.finditer(ansi):
        text(ansi[pos:m.start()])
        pos = m.end()
        if m.group(2) == "m":
            apply_sgr(m.group(1).replace(":", ";"), st)
    text(ansi[pos:])
    return (
        "<!doctype html>\n<meta charset=\"utf-8\">\n<title>%s</title>\n"
        "<style>body{background:#111;margin:1em}"
        "pre{display:inline-block;margin:0;padding:.5em;background:%s;color:%s;"
        "font:14px/1.2 'DejaVu Sans Mono',Menlo,Consolas,monospace}"
        # Each span as tall as its line, so backgrounds meet with no gaps.
        "pre span{display:inline-block;vertical-align:top}</style>\n"
        "<pre>%s</pre>\n" % (html.escape(title), DEFAULT_BG, DEFAULT_FG, "".join(body))
    )


# --------------------------------------------------------------------------
# the terminal


class Terminal:
    """A tmux server of its own (its own socket) with one window."""

    def __init__(self, tmp):
        self.sock = os.path.join(tmp, "tmux.sock")
        conf = os.path.join(tmp, "tmux.conf")
        with open(conf, "w") as f:
            f.write("set -g default-terminal tmux-256color\n"
                    "set -g status off\n"
                    "set -g remain-on-exit on\n"
                    "set -g escape-time 0\n")
        self.conf = conf
        self.started = False

    def tmux(self, *args, check=True):
        r = subprocess.run(["tmux", "-S", self.sock, "-f", self.conf] + list(args),
                           capture_output=True, text=True, timeout=10)
        if check and r.returncode != 0:
            raise Failed("tmux %s: %s" % (args[0], (r.stderr or r.stdout).strip()))
        return r.stdout

    def start(self, command, cwd):
        self.started = True
        self.tmux("new-session", "-d", "-x", str(WIDTH), "-y", str(HEIGHT), "-c", cwd,
                  "-s", "ctxls", command)

    def keys(self, *keys):
        self.tmux("send-keys", "-t", "ctxls", *keys)

    def type(self, line):
        # -l: literally, so a question is not read as key names.
        self.tmux("send-keys", "-t", "ctxls", "-l", line)
        self.keys("Enter")

    def screen(self, ansi=False):
        args = ["capture-pane", "-p", "-t", "ctxls"]
        if ansi:
            args.insert(1, "-e")
        return self.tmux(*args)

    def kill(self):
        if self.started:
            self.tmux("kill-server", check=False)
            self.started = False


# --------------------------------------------------------------------------
# the steps


class Shots:
    def __init__(self, term, outdir):
        self.term, self.outdir, self.n = term, outdir, 0

    def wait(self, what, cond, timeout=15):
        """Waits until cond(screen) holds; returns the screen."""
        deadline = time.monotonic() + timeout
        while True:
            screen = self.term.screen()
            if cond(screen):
                return screen
            if time.monotonic() > deadline:
                self.n += 1
                path = os.path.join(self.outdir, "%d-timeout.txt" % self.n)
                with open(path, "w") as f:
                    f.write(screen)
                raise Failed("timed out after %d s waiting for %s (screen saved to %s)"
                             % (timeout, what, show(path)))
            time.sleep(0.1)

    def save(self, name):
        """Saves the screen as .ansi, .txt and .html; returns the plain text."""
        self.n += 1
        base = os.path.join(self.outdir, "%d-%s" % (self.n, name))
        ansi = self.term.screen(ansi=True)
        plain = ESCAPE.sub("", ansi)  # one capture: the two files show the same moment
        with open(base + ".ansi", "w") as f:
            f.write(ansi)
        with open(base + ".txt", "w") as f:
            f.write(plain)
        with open(base + ".html", "w") as f:
            f.write(ansi_to_html(ansi, "ctxls.nvim: %d-%s" % (self.n, name)))
        print("     screenshot: %s.{ansi,txt,html}" % show(base), flush=True)
        self.base = show(base) + ".txt"
        return plain, ansi

    def check(self, cond, what, screen):
        if not cond:
            raise Failed("%s: %s\n%s" % (self.base, what, screen))


INIT = r"""
vim.o.swapfile = false
vim.o.shortmess = vim.o.shortmess .. 'F'
vim.o.laststatus = 2
vim.o.statusline = "%%f %%= %%{luaeval(\"require'ctxls'.statusline()\")} "
vim.o.background = 'dark'
vim.opt.rtp:prepend(%(plugin)s)
vim.cmd('filetype plugin on')
vim.cmd('syntax on')
vim.cmd('runtime plugin/ctxls.lua')
require('ctxls').setup({
  cmd = { %(bin)s },
  init_options = { cacheDir = 'off' },
  request = { limit = 6 },
})
"""

# A list entry: "path:first-last Symbol (kind) — why", "* " before a pinned one.
ENTRY = re.compile(r"^[ *] ([\w./-]+\.\w+:\d+(?:-\d+)?) .*\(\w[^)]*\) — \S")


def same_item(a, b):
    """Whether two renderings of an item's line, each cut at its box's
    edge, are of the same item: the shorter starts the longer."""
    a, b = a.rstrip(), b.rstrip()
    return bool(a) and bool(b) and (a.startswith(b) or b.startswith(a))


def inside(line):
    """The text of a line between a floating window's borders, or None."""
    a, b = line.find("│"), line.rfind("│")
    return line[a + 1:b].rstrip() if 0 <= a < b else None


def lua_str(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def run(bin_path, outdir):
    tmp = tempfile.mkdtemp(prefix="ctxls-screens-")
    term = Terminal(tmp)

    def on_signal(signum, _frame):
        raise Failed("stopped by signal %d" % signum)

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGHUP, on_signal)
    try:
        shop = os.path.join(tmp, "shop")
        extract_txtar(FIXTURE, shop)
        os.makedirs(os.path.join(shop, ".git"))  # the root marker
        init = os.path.join(tmp, "init.lua")
        with open(init, "w") as f:
            f.write(INIT % {"plugin": lua_str(PLUGIN), "bin": lua_str(bin_path)})
        env = " ".join("%s=%s" % (k, shlex.quote(os.path.join(tmp, v))) for k, v in
                       (("XDG_CONFIG_HOME", "config"), ("XDG_DATA_HOME", "data"),
                        ("XDG_STATE_HOME", "state"), ("XDG_CACHE_HOME", "cache")))
        term.start("env %s nvim --noplugin -u %s -i NONE -n %s"
                   % (env, shlex.quote(init), shlex.quote(OPEN)), shop)
        shots = Shots(term, outdir)

        # The file is open and its project indexed: the status line says "ctxls".
        shots.wait("the status line to say the index is ready",
                   lambda s: re.search(re.escape(OPEN) + r" .*\bctxls\s*$", s, re.M), timeout=30)

        # 1. The results buffer.
        term.type(":CtxlsSelect " + QUESTION)
        shots.wait("the results buffer", lambda s: "# ctxls: " + QUESTION in s and "Why: " in s)
        screen, _ = shots.save("results")
        shots.check(re.search(r"^## [\w./-]+:\d+(?:-\d+)? \S+ \(\w", screen, re.M),
                    "no item heading (## path:lines symbol (kind))", screen)
        whys = re.findall(r"^Why: (\S.*)$", screen, re.M)
        shots.check(whys, "no Why: line with a reason", screen)
        shots.check(re.search(r"^```go$", screen, re.M), "no Go code in the results", screen)

        # 2. The picker: the list, the focused entry's preview below it.
        term.type(":CtxlsPick")
        shots.wait("the picker", lambda s: "<CR> open  d remove" in s and "```" in s)
        screen, ansi = shots.save("picker")
        boxed = [t for t in map(inside, screen.splitlines()) if t is not None]
        shots.check(boxed and QUESTION in boxed[0] and "<CR> open" in boxed[0],
                    "the picker's title line does not hold the question and the keys", screen)
        entries = [m for m in map(ENTRY.match, boxed) if m]
        shots.check(len(entries) >= 2, "fewer than 2 entries (path:lines symbol (kind) — why)", screen)
        previews = [t for t in boxed if t.startswith("## ")]
        shots.check(previews, "the preview has no heading naming the item", screen)
        # Both lines are cut at the box's edge, the heading one character
        # sooner ("## " against two spaces): one must start the other.
        shots.check(same_item(previews[0][3:], entries[0].string[2:]),
                    "the preview is of %r, the focused entry is %r" % (previews[0], entries[0].string), screen)
        shots.check("```go" in boxed and any(re.match(r"\s*(func|type|var|const|if|return|//) ", t) for t in boxed),
                    "the preview shows no Go code", screen)
        # The focused entry stands out (the cursor line): its attributes differ from the next one's.
        looks = [style_at(ansi, e.group(1)) for e in entries[:2]]
        shots.check(looks[0] != looks[1], "the focused entry looks like the next one (%s)" % looks[0], screen)

        # 3. j moves to the next entry; the preview follows.
        term.keys("j")
        second = entries[1].string[2:]
        shots.wait("the preview of the second entry (%s)" % entries[1].group(1),
                   lambda s: any(t is not None and t.startswith("## ") and same_item(t[3:], second)
                                 for t in map(inside, s.splitlines())))
        screen, ansi = shots.save("picker-next")
        shots.check(style_at(ansi, entries[1].group(1)) == looks[0] != style_at(ansi, entries[0].group(1)),
                    "the cursor line did not move to the second entry", screen)

        # 4. The quickfix list.
        term.keys("q")
        term.type(":CtxlsSelect! " + QUESTION)
        shots.wait("the quickfix list", lambda s: "[Quickfix List]" in s and re.search(r"\|\d+(-\d+)? col \d+\|", s))
        screen, _ = shots.save("quickfix")
        qf = re.findall(r"^([\w./-]+)\|\d+(?:-\d+)? col \d+\| .*\(\w[^)]*, lines (\d+)-(\d+)\): \S", screen, re.M)
        shots.check(qf, "no entry path|line col n| symbol (kind, lines a-b): why", screen)
        # The same question twice: the same items, with the same lines, as the
        # picker listed (as many as the window shows: long reasons wrap).
        listed = [e.group(1) for e in entries]
        shown = ["%s:%s" % (p, a if a == b else a + "-" + b) for p, a, b in qf]
        shots.check(len(shown) >= 2 and shown == listed[:len(shown)], "the quickfix list holds %s, the picker listed %s" % (shown, listed), screen)

        term.type(":qa!")
    finally:
        term.kill()
        shutil.rmtree(tmp, ignore_errors=True)


def main():
    bin_path = os.environ.get("CTXLS_BIN", "")
    if not bin_path or not os.access(bin_path, os.X_OK):
        print("screens: set CTXLS_BIN to an executable ctxls binary (got %r)" % bin_path, file=sys.stderr)
        return 1
    for tool in ("tmux", "nvim"):
        if not shutil.which(tool):
            print("screens: %s is not installed (apt-get install %s)" % (tool, "neovim" if tool == "nvim" else tool),
                  file=sys.stderr)
            return 1
    outdir = os.environ.get("CTXLS_SCREENSHOTS") or os.path.join(HERE, "screenshots")
    os.makedirs(outdir, exist_ok=True)
    for name in os.listdir(outdir):
        if re.match(r"^\d+-.*\.(ansi|txt|html)$", name):
            os.remove(os.path.join(outdir, name))
    start = time.monotonic()
    try:
        run(os.path.abspath(bin_path), outdir)
    except Failed as e:
        print("FAIL screens: %s" % e, file=sys.stderr)
        return 1
    print("ok   screens: %d s, in %s" % (round(time.monotonic() - start), show(outdir)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
