//go:build unix

package cachefile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Open refuses, naming the path and what it is, anything at the path but
// a regular file, without following a symlink or blocking on a FIFO; the
// refusal is an ErrNotRegular, and says when it is a directory.
func TestOpenRefuses(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target")
	for _, tc := range []struct {
		what, says string
		make       func(path string) error
	}{
		{"a FIFO", "a named pipe (FIFO)", func(p string) error { return syscall.Mkfifo(p, 0o644) }},
		{"a symlink", "a symlink", func(p string) error { return os.Symlink(target, p) }},
		{"a directory", "a directory", func(p string) error { return os.Mkdir(p, 0o755) }},
	} {
		path := filepath.Join(dir, strings.TrimPrefix(tc.what, "a "))
		if err := tc.make(path); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() {
			f, _, err := Open(path, os.O_RDWR|os.O_CREATE, 0o600)
			if err == nil {
				f.Close()
			}
			done <- err
		}()
		var err error
		select {
		case err = <-done:
		case <-time.After(time.Minute):
			t.Fatalf("Open of %s did not return", tc.what)
		}
		var r *Refusal
		if !errors.As(err, &r) || r.Path != path || r.What != tc.what || !errors.Is(err, ErrNotRegular) {
			t.Errorf("Open of %s: %v, want a refusal naming it", tc.what, err)
		} else if !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("Open of %s: %q, want the path and %q", tc.what, err, tc.says)
		}
		if r != nil && r.IsDir() != (tc.what == "a directory") {
			t.Errorf("Open of %s: IsDir %v", tc.what, r.IsDir())
		}
	}
	if _, err := os.Lstat(target); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Open with O_CREATE created the symlink's target (%v)", err)
	}
}

// A memory writer's temporary file is never swept while it writes (its
// lock held), even old and named with this process under the memory lock;
// once closed, the same file is swept.
func TestSweepSparesLockedMemoryTemp(t *testing.T) {
	file := filepath.Join(t.TempDir(), "0123456789abcdef.memory.json")
	tmp, err := CreateMemoryTemp(file)
	if err != nil {
		t.Fatal(err)
	}
	defer tmp.Close()
	if !strings.HasPrefix(filepath.Base(tmp.Name()), MemoryTempPrefix(file)) {
		t.Fatalf("temporary %s not named with %s", tmp.Name(), MemoryTempPrefix(file))
	}
	old := time.Now().Add(-StaleTempAge - time.Minute)
	if err := os.Chtimes(tmp.Name(), old, old); err != nil {
		t.Fatal(err)
	}
	if swept, err := SweepMemoryTemps(file, true); err != nil || len(swept) != 0 {
		t.Fatalf("swept %+v (%v) while its writer holds it", swept, err)
	}
	tmp.Close()
	swept, err := SweepMemoryTemps(file, true)
	if err != nil || len(swept) != 1 || swept[0].Path != tmp.Name() {
		t.Fatalf("after its writer closed it: swept %+v (%v), want %s", swept, err, tmp.Name())
	}
}
