//go:build unix

package workspace

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ctxls/ctxls/symbolindex"
	"github.com/ctxls/ctxls/symbolindex/embed"
)

func realTemp(t *testing.T) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

func wantRefusal(t *testing.T, err error, reason SkipReason) {
	t.Helper()
	r, ok := errors.AsType[*Refusal](err)
	if !ok || r.Reason != reason {
		t.Fatalf("got %v, want a refusal for %q", err, reason)
	}
}

// TestGateRefusesWhatIsNotAFileInside: the gate opens regular files inside
// the root and nothing else: not a device, not a FIFO (without blocking),
// not a file reached through a directory link that leads out, not a
// symlink in the last place.
func TestGateRefusesWhatIsNotAFileInside(t *testing.T) {
	base := realTemp(t)
	root, outside := filepath.Join(base, "root"), filepath.Join(base, "outside")
	writeFile(t, filepath.Join(root, "ok.go"), []byte("package ok\n"))
	writeFile(t, filepath.Join(outside, "secret.go"), []byte("package secret\n"))
	if err := os.Symlink(outside, filepath.Join(root, "out")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("ok.go", filepath.Join(root, "alias.go")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(root, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}

	if data, _, err := readRegular(root, filepath.Join(root, "ok.go"), 1<<20); err != nil || string(data) != "package ok\n" {
		t.Fatalf("a plain file inside: %q, %v", data, err)
	}
	done := make(chan error, 1)
	go func() {
		_, _, err := readRegular(root, filepath.Join(root, "fifo"), 1<<20)
		done <- err
	}()
	select {
	case err := <-done:
		wantRefusal(t, err, SkipNotRegular)
	case <-time.After(10 * time.Second):
		t.Fatal("reading a FIFO blocked")
	}
	_, _, err := readRegular("/dev", "/dev/null", 1<<20)
	wantRefusal(t, err, SkipNotRegular)
	// The last element a link: the gate reads only real paths.
	_, _, err = readRegular(root, filepath.Join(root, "alias.go"), 1<<20)
	wantRefusal(t, err, SkipChanged)
	// A directory link in the middle: the kernel's path of the opened
	// file gives it away.
	_, _, err = readRegular(root, filepath.Join(root, "out", "secret.go"), 1<<20)
	wantRefusal(t, err, SkipSymlinkOutsideRoot)
	_, _, err = readRegular(root, filepath.Join(outside, "secret.go"), 1<<20)
	wantRefusal(t, err, SkipSymlinkOutsideRoot)
	// A directory is no refusal: a file that became one is dropped, not
	// counted (documents.go).
	if err := os.Mkdir(filepath.Join(root, "dir"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, _, err = readRegular(root, filepath.Join(root, "dir"), 1<<20); !errors.Is(err, syscall.EISDIR) {
		t.Errorf("a directory: %v, want EISDIR", err)
	}
	if _, _, err = readRegular(root, filepath.Join(root, "ok.go"), 4); !errors.Is(err, errTooLarge) {
		t.Errorf("a file over the limit: %v, want errTooLarge", err)
	}
}

// TestRealPath: links resolved on the whole path; a missing tail (a
// deleted file, an unsaved buffer) kept under its real parent; loops
// refused.
func TestRealPath(t *testing.T) {
	base := realTemp(t)
	writeFile(t, filepath.Join(base, "real", "a.go"), []byte("package a\n"))
	if err := os.Symlink("real", filepath.Join(base, "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("loop2", filepath.Join(base, "loop1")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("loop1", filepath.Join(base, "loop2")); err != nil {
		t.Fatal(err)
	}
	for in, want := range map[string]string{
		"link/a.go":         "real/a.go",
		"link/gone.go":      "real/gone.go",
		"link/new/dir/b.go": "real/new/dir/b.go",
		"real/../link/a.go": "real/a.go",
	} {
		got, err := realPath(filepath.Join(base, filepath.FromSlash(in)))
		if err != nil || got != filepath.Join(base, filepath.FromSlash(want)) {
			t.Errorf("realPath(%s) = %s, %v; want %s", in, got, err, want)
		}
	}
	_, err := realPath(filepath.Join(base, "loop1", "x.go"))
	wantRefusal(t, err, SkipSymlinkLoop)
}

// TestFileDeletedMidIndex: files that vanish or turn into FIFOs between
// the walk and the read are skipped, the rest indexed, nothing blocks.
func TestFileDeletedMidIndex(t *testing.T) {
	root := realTemp(t)
	writeTree(t, root, `
-- keep.go --
package keep

func Keep() {}
-- gone.go --
package gone

func Gone() {}
-- piped.go --
package piped

func Piped() {}
`)
	files, _, err := Discover(context.Background(), root, DiscoverOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(root, "gone.go")); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(root, "piped.go")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(root, "piped.go"), 0o644); err != nil {
		t.Fatal(err)
	}
	var mu sync.RWMutex
	read := func(abs string) ([]byte, error) {
		src, _, err := readRegular(root, abs, DefaultMaxFileBytes)
		return src, err
	}
	emb := embed.NewHashEmbedder(64)
	idx, st, err := update(context.Background(), &mu, symbolindex.NewIndex(emb), emb, files, read, func(int, int) {}, false)
	if err != nil {
		t.Fatal(err)
	}
	if got := idx.Paths(); len(got) != 1 || got[0] != "keep.go" {
		t.Errorf("indexed %v, want keep.go only", got)
	}
	reasons := map[string]SkipReason{}
	for _, s := range st.skips {
		reasons[s.Path] = s.Reason
	}
	if reasons["gone.go"] != SkipUnreadable || reasons["piped.go"] != SkipNotRegular {
		t.Errorf("skips %v, want gone.go unreadable and piped.go not regular", reasons)
	}
}
