//go:build unix

package symbolindex

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/ctxls/ctxls/symbolindex/cachefile"
)

// TestCacheFileNeverFollowedNorBlocked: LoadIndex refuses, at once and
// naming it, whatever is at the cache path instead of a regular file (a
// FIFO without blocking, a symlink to a sound cache without reading it, a
// directory); Save replaces a symlink or a FIFO entry itself, leaving the
// symlink's target as it was.
func TestCacheFileNeverFollowedNorBlocked(t *testing.T) {
	ix := persistBuild(t)
	dir := t.TempDir()
	sound := filepath.Join(dir, "sound.idx")
	if err := ix.Save(sound); err != nil {
		t.Fatal(err)
	}
	soundBytes, _ := os.ReadFile(sound)
	for _, tc := range []struct {
		what string
		make func(path string) error
	}{
		{"a FIFO", func(p string) error { return syscall.Mkfifo(p, 0o644) }},
		{"a symlink", func(p string) error { return os.Symlink(sound, p) }},
		{"a directory", func(p string) error { return os.Mkdir(p, 0o755) }},
	} {
		path := filepath.Join(dir, "cache-"+tc.what[2:]+".idx")
		if err := tc.make(path); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() {
			_, err := LoadIndex(path, ix.Embedder())
			done <- err
		}()
		var err error
		select {
		case err = <-done:
		case <-time.After(time.Minute):
			t.Fatalf("LoadIndex of %s did not return", tc.what)
		}
		var r *cachefile.Refusal
		if !errors.As(err, &r) || r.What != tc.what || r.Path != path {
			t.Errorf("LoadIndex of %s: %v, want a refusal naming it", tc.what, err)
		}
		err = ix.Save(path)
		if tc.what == "a directory" {
			if err == nil {
				t.Error("Save over a directory succeeded")
			}
			continue
		}
		if err != nil {
			t.Fatalf("Save over %s: %v", tc.what, err)
		}
		if fi, err := os.Lstat(path); err != nil || !fi.Mode().IsRegular() {
			t.Errorf("after Save the path over %s is %v (%v)", tc.what, fi.Mode(), err)
		}
		if _, err := LoadIndex(path, ix.Embedder()); err != nil {
			t.Errorf("the cache saved over %s: %v", tc.what, err)
		}
	}
	if b, _ := os.ReadFile(sound); !bytes.Equal(b, soundBytes) {
		t.Error("the file a symlink led to changed")
	}
	if names, _ := filepath.Glob(filepath.Join(dir, "*.tmp.*")); len(names) > 0 {
		t.Errorf("temporary files left: %q", names)
	}
}
