package testutil

import (
	"io"
	"os/exec"
	"strings"
	"testing"
)

// TestStartReadsAfterWait: what the process wrote is all read even when
// cmd.Wait has returned first, as it may when a test waits in one goroutine
// and reads in another (with cmd.StdoutPipe, Wait closed the read end and
// the read failed with "file already closed").
func TestStartReadsAfterWait(t *testing.T) {
	cmd := exec.Command(Binary(t), "version")
	stdin, stdout := Start(t, cmd)
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("ctxls version: %v", err)
	}
	out, err := io.ReadAll(stdout)
	if err != nil {
		t.Fatalf("reading after Wait: %v", err)
	}
	if !strings.Contains(string(out), "ctxls") {
		t.Fatalf("ctxls version wrote %q, want its version line", out)
	}
}
