//go:build unix

package workspace

import (
	"context"
	"maps"
	"os"
	"path/filepath"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/cespare/xxhash/v2"
)

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

func TestDiscoverSymlinks(t *testing.T) {
	base := t.TempDir()
	root := filepath.Join(base, "root")
	outside := filepath.Join(base, "outside")
	writeTree(t, root, `
-- real/a.go --
package real
-- real/sub/b.go --
package sub
`)
	writeTree(t, outside, `
-- x.go --
package outside
`)
	symlink(t, "real/a.go", filepath.Join(root, "linkfile.go")) // file inside: its target is indexed, once
	symlink(t, "real", filepath.Join(root, "linkdir"))          // directory inside: not walked twice
	symlink(t, "..", filepath.Join(root, "real", "sub", "up"))  // to an ancestor: loop
	symlink(t, ".", filepath.Join(root, "self"))                // to the root: loop
	symlink(t, filepath.Join(outside, "x.go"), filepath.Join(root, "out.go"))
	symlink(t, outside, filepath.Join(root, "outdir"))
	symlink(t, "../outside/x.go", filepath.Join(root, "escape.go")) // relative, still outside
	symlink(t, "missing.go", filepath.Join(root, "broken.go"))      // dangling
	symlink(t, "chain2", filepath.Join(root, "chain1"))             // a link cycle
	symlink(t, "chain1", filepath.Join(root, "chain2"))
	symlink(t, "linkdir/sub", filepath.Join(root, "viaLink"))      // through another link, still inside
	symlink(t, "real", filepath.Join(root, "ignored-dir"))         // gitignored: not followed
	symlink(t, outside, filepath.Join(root, "ignored-out"))        // gitignored: not reported
	symlink(t, "x/../../y", filepath.Join(root, "ignored-broken")) // gitignored: not reported
	writeFile(t, filepath.Join(root, ".gitignore"), []byte("ignored-*\n"))

	wantFiles := []string{".gitignore", "real/a.go", "real/sub/b.go"}
	wantSkips := map[string]SkipReason{
		"linkfile.go": SkipSymlinkInside,
		"linkdir":     SkipSymlinkInside,
		"viaLink":     SkipSymlinkInside,
		"real/sub/up": SkipSymlinkLoop,
		"self":        SkipSymlinkLoop,
		"chain1":      SkipSymlinkLoop,
		"chain2":      SkipSymlinkLoop,
		"out.go":      SkipSymlinkOutsideRoot,
		"outdir":      SkipSymlinkOutsideRoot,
		"escape.go":   SkipSymlinkOutsideRoot,
		"broken.go":   SkipUnreadable,
	}
	files, skips := discover(t, root, DiscoverOptions{})
	assertFiles(t, files, wantFiles)
	assertSkips(t, skips, wantSkips)

	// The same through a symlink to the root: links are judged against
	// the real root, paths are the same, Abs is the real path.
	rootLink := filepath.Join(base, "rootlink")
	symlink(t, root, rootLink)
	got, _, err := Discover(context.Background(), rootLink, DiscoverOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, f := range got {
		paths = append(paths, f.Path)
		if real := filepath.Join(root, filepath.FromSlash(f.Path)); f.Abs != real {
			t.Errorf("%s: Abs %s, want the real path %s", f.Path, f.Abs, real)
		}
	}
	assertFiles(t, paths, wantFiles)
}

func TestDiscoverExcludedDirectoryIsNotWalked(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, `
-- keep.go --
package keep
-- gen/a.go --
package gen
`)
	// Walking gen/ would report this loop; excluding gen/ must prune it.
	symlink(t, "..", filepath.Join(root, "gen", "loop"))
	files, skips := discover(t, root, DiscoverOptions{Exclude: []string{"gen/"}})
	assertFiles(t, files, []string{"keep.go"})
	assertSkips(t, skips, map[string]SkipReason{})

	_, skips = discover(t, root, DiscoverOptions{})
	assertSkips(t, skips, map[string]SkipReason{"gen/loop": SkipSymlinkLoop})
}

func TestDiscoverNotRegular(t *testing.T) {
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "a.go"), []byte("package a\n"))
	if err := syscall.Mkfifo(filepath.Join(root, "pipe"), 0o644); err != nil {
		t.Fatal(err)
	}
	symlink(t, "pipe", filepath.Join(root, "pipelink"))
	if err := syscall.Mkfifo(filepath.Join(root, "ignored.fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	// Discover must not block opening the FIFOs.
	files, skips := discover(t, root, DiscoverOptions{Exclude: []string{"*.fifo"}})
	assertFiles(t, files, []string{"a.go"})
	assertSkips(t, skips, map[string]SkipReason{"pipe": SkipNotRegular, "pipelink": SkipSymlinkInside})
}

func TestDiscoverUnreadable(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, `
-- a.go --
package a
-- locked/b.go --
package locked
-- secret.go --
package secret
`)
	locked, secret := filepath.Join(root, "locked"), filepath.Join(root, "secret.go")
	if err := os.Chmod(locked, 0); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(secret, 0); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		os.Chmod(locked, 0o755)
		os.Chmod(secret, 0o644)
	})

	files, skips := discover(t, root, DiscoverOptions{})

	// A privileged user (root, CAP_DAC_OVERRIDE) reads mode-000 files
	// anyway; whatever this process can read, Discover must index, and
	// whatever it cannot must be a skip, not a failure.
	_, dirErr := os.ReadDir(locked)
	_, fileErr := os.ReadFile(secret)
	if (dirErr == nil) != (fileErr == nil) {
		t.Fatalf("inconsistent permissions: dir %v, file %v", dirErr, fileErr)
	}
	if dirErr == nil {
		t.Logf("running privileged (euid %d): mode 000 does not stop reads", os.Geteuid())
		assertFiles(t, files, []string{"a.go", "locked/b.go", "secret.go"})
		assertSkips(t, skips, map[string]SkipReason{})
		return
	}
	assertFiles(t, files, []string{"a.go"})
	assertSkips(t, skips, map[string]SkipReason{"locked": SkipUnreadable, "secret.go": SkipUnreadable})
}

func TestDiscoverSymlinkCycleAcrossDirectories(t *testing.T) {
	// Neither link points at a directory containing itself, but following
	// both leads back to where the walk started.
	root := t.TempDir()
	writeTree(t, root, `
-- x/a.go --
package x
-- y/b.go --
package y
`)
	symlink(t, "../y", filepath.Join(root, "x", "toY"))
	symlink(t, "../x", filepath.Join(root, "y", "toX"))
	files, skips := discover(t, root, DiscoverOptions{})
	assertFiles(t, files, []string{"x/a.go", "y/b.go"})
	assertSkips(t, skips, map[string]SkipReason{"x/toY": SkipSymlinkInside, "y/toX": SkipSymlinkInside})
}

// Discover walks before the index it compares stats with is ready
// (KnownReady): Known is asked only once it is, a file whose stat matches
// its record takes the record's hash without being read, and one that
// does not match, or has no record, is read and hashed.
func TestDiscoverWaitsForKnown(t *testing.T) {
	root := t.TempDir()
	for _, name := range []string{"a.go", "b.go", "c.go"} {
		writeFile(t, filepath.Join(root, name), []byte("package x // "+name+"\n"))
	}
	stat := func(name string) (int64, int64, uint64) {
		st, err := os.Lstat(filepath.Join(root, name))
		if err != nil {
			t.Fatal(err)
		}
		return st.Size(), st.ModTime().UnixNano(), inoOf(st)
	}
	aSize, aTime, aIno := stat("a.go")
	bSize, bTime, bIno := stat("b.go")
	ready := make(chan struct{})
	var early atomic.Bool
	known := func(rel string, size, modTime int64, ino uint64) (uint64, bool) {
		select {
		case <-ready:
		default:
			early.Store(true)
		}
		switch rel {
		case "a.go":
			return 42, size == aSize && modTime == aTime && ino == aIno
		case "b.go": // its record is of another size: changed since
			return 43, size == bSize+1 && modTime == bTime && ino == bIno
		}
		return 0, false
	}
	go func() {
		time.Sleep(20 * time.Millisecond) // let the walk come first (the test holds either way)
		close(ready)
	}()
	files, skips, err := Discover(context.Background(), root, DiscoverOptions{Known: known, KnownReady: ready})
	if err != nil || len(skips) > 0 {
		t.Fatalf("Discover: %v, skips %v", err, skips)
	}
	if early.Load() {
		t.Error("Known was asked before KnownReady was closed")
	}
	got := map[string]uint64{}
	for _, f := range files {
		got[f.Path] = f.Hash
	}
	want := map[string]uint64{
		"a.go": 42,
		"b.go": xxhash.Sum64([]byte("package x // b.go\n")),
		"c.go": xxhash.Sum64([]byte("package x // c.go\n")),
	}
	if !maps.Equal(got, want) {
		t.Errorf("hashes: got %v, want %v", got, want)
	}
}

// A file the cache knows, made unreadable since, is skipped as unreadable
// at the restart, as a cold build skips it, and not served from the cache.
// chmod 000 makes it so for an ordinary user (chmod changes no
// modification time: the restart must ask access(2)); a privileged user
// may still read it, and its restart reuses it (a cold build would read
// it too), so the test then puts a symlink to nothing in its place, which
// no user can read, and the restart must skip it all the same.
func TestCacheRestartFileMadeUnreadable(t *testing.T) {
	root, dir, files := cachedTree(t)
	var secret string
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if secret == "" && err == nil && !d.IsDir() && filepath.Ext(p) == ".go" {
			secret = p
		}
		return nil
	})
	if err := os.Chmod(secret, 0); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(secret, 0o644) })
	rel, _ := filepath.Rel(root, secret)
	rel = filepath.ToSlash(rel)
	skipped := func(st IndexStats) SkipReason {
		for _, s := range st.SkippedFiles {
			if s.Path == rel {
				return s.Reason
			}
		}
		return ""
	}

	if _, err := os.ReadFile(secret); err == nil {
		t.Logf("running privileged (euid %d): mode 000 does not stop reads; a dangling symlink replaces %s", os.Geteuid(), rel)
		if _, warm, _ := cacheIndex(t, root, dir); warm.Files != files || warm.Reused != files || skipped(warm) != "" {
			t.Errorf("restart, mode 000: files %d, reused %d, %s skipped as %q; want all %d reused", warm.Files, warm.Reused, rel, skipped(warm), files)
		}
		if err := os.Remove(secret); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(secret+".gone", secret); err != nil {
			t.Fatal(err)
		}
		if _, err := os.ReadFile(secret); err == nil {
			t.Fatalf("%s still reads after being replaced by a dangling symlink", rel)
		}
	}
	_, warm, _ := cacheIndex(t, root, dir)
	if warm.Files != files-1 || warm.Reused != files-1 || skipped(warm) != SkipUnreadable {
		t.Errorf("restart: files %d, reused %d, %s skipped as %q; want %d files, all reused, and it skipped as %q",
			warm.Files, warm.Reused, rel, skipped(warm), files-1, SkipUnreadable)
	}
	if _, cold, _ := cacheIndex(t, root, t.TempDir()); cold.Files != warm.Files || skipped(cold) != skipped(warm) {
		t.Errorf("cold build: files %d, %s skipped as %q; the restart: %d, %q", cold.Files, rel, skipped(cold), warm.Files, skipped(warm))
	}
}
