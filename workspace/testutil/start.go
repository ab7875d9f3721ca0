package testutil

import (
	"io"
	"os/exec"
	"testing"
)

// Start starts cmd (a test's ctxls subprocess) with pipes to its standard
// input and output; t fails if it cannot.
func Start(t testing.TB, cmd *exec.Cmd) (stdin io.WriteCloser, stdout io.ReadCloser) {
	t.Helper()
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err = cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return stdin, stdout
}
