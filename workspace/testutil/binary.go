package testutil

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

var (
	binOnce sync.Once
	binPath string
	binErr  error
)

// Binary is the ctxls binary for tests that run it as a subprocess, built
// once per test process into a temporary directory (CTXLS_BIN names one
// already built).
func Binary(t testing.TB) string {
	t.Helper()
	binOnce.Do(func() {
		if binPath = os.Getenv("CTXLS_BIN"); binPath != "" {
			return
		}
		dir, err := os.MkdirTemp("", "ctxls-test-bin")
		if err != nil {
			binErr = err
			return
		}
		binPath = filepath.Join(dir, "ctxls")
		if out, err := exec.Command("go", "build", "-o", binPath, "github.com/ctxls/ctxls/cmd/ctxls").CombinedOutput(); err != nil {
			binErr = fmt.Errorf("building ctxls: %v\n%s", err, out)
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binPath
}
