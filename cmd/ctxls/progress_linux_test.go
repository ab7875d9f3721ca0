package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"
	"testing"
	"unsafe"
)

// openPTY opens a pseudo-terminal: the terminal end a program writes to
// and the end that reads what it wrote.
func openPTY(t *testing.T) (term, reader *os.File) {
	t.Helper()
	master, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatalf("no pseudo-terminal: %v", err)
	}
	var unlock int32
	if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, master.Fd(), syscall.TIOCSPTLCK, uintptr(unsafe.Pointer(&unlock))); errno != 0 {
		t.Fatalf("unlockpt: %v", errno)
	}
	var n uint32
	if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, master.Fd(), syscall.TIOCGPTN, uintptr(unsafe.Pointer(&n))); errno != 0 {
		t.Fatalf("ptsname: %v", errno)
	}
	slave, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { slave.Close(); master.Close() })
	return slave, master
}

// runOnTerminal runs one command line with stderr on a terminal and
// returns the exit status, stdout and what the terminal showed.
func runOnTerminal(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	term, reader := openPTY(t)
	shown := make(chan string, 1)
	go func() {
		var buf bytes.Buffer
		io.Copy(&buf, reader) // ends with EIO once the terminal end is closed
		shown <- buf.String()
	}()
	var stdout bytes.Buffer
	code := run(context.Background(), args, strings.NewReader(""), &stdout, term)
	term.Close()
	return code, stdout.String(), <-shown
}

// TestProgressOnTerminal: on a terminal, index and replay show a counter
// redrawn in place, without -v, and clear it before the report; /dev/null
// is no terminal.
func TestProgressOnTerminal(t *testing.T) {
	root := cliTree(t, cliApp)
	code, stdout, shown := runOnTerminal(t, "index", "--root", root, "--cache-dir", "off")
	if code != 0 || !strings.Contains(stdout, "files       5") {
		t.Fatalf("index: exit %d, stdout %q, terminal %q", code, stdout, shown)
	}
	if !strings.Contains(shown, "\rindexing "+root+": ") || !strings.Contains(shown, "5/5 files") || strings.Contains(shown, "level=INFO") {
		t.Errorf("index on a terminal: want a counter redrawn with \\r up to 5/5, no log lines; got %q", shown)
	}
	if !strings.HasSuffix(shown, "\r") {
		t.Errorf("index on a terminal: the counter is not cleared at the end: %q", shown)
	}

	repo := replayRepo(t)
	code, stdout, shown = runOnTerminal(t, "replay", "--root", repo, "--commits", "5", "--cache-dir", "off")
	if code != 0 || !strings.Contains(stdout, "cold     all") {
		t.Fatalf("replay: exit %d, stdout %q, terminal %q", code, stdout, shown)
	}
	if !strings.Contains(shown, "\rreplaying commit 1/3 ") || !strings.Contains(shown, "\rreplaying commit 3/3 ") || strings.Contains(shown, "\n") {
		t.Errorf("replay on a terminal: want a counter redrawn in place; got %q", shown)
	}

	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	if isTerminal(null) {
		t.Error("/dev/null taken for a terminal")
	}
}
