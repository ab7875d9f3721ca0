package testutil

import (
	"io"
	"os"
	"os/exec"
	"testing"
)

// Start starts cmd (a test's ctxls subprocess) with pipes to its standard
// input and output; t fails if it cannot.
//
// Its standard output is an os.Pipe the test owns, not cmd.StdoutPipe: Wait
// closes a StdoutPipe's read end when the process ends, so a caller that
// waits in one goroutine while it reads in another would race with it and
// lose what the process wrote last. The read end here is the caller's to
// read to EOF, whenever cmd.Wait runs; it is closed when the test ends.
func Start(t testing.TB, cmd *exec.Cmd) (stdin io.WriteCloser, stdout io.ReadCloser) {
	t.Helper()
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout = w
	err = cmd.Start()
	// The child has its own copy of the write end now: closing ours lets
	// the read end see EOF when the child (and its children) exit.
	w.Close()
	if err != nil {
		r.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return stdin, r
}
