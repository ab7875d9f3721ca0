//go:build unix

package workspace

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ctxls/ctxls/symbolindex"
	"github.com/ctxls/ctxls/symbolindex/cachefile"
	"github.com/ctxls/ctxls/symbolindex/embed"
)

// indexGuarded indexes root with cacheDir in a new workspace, as a CLI run
// or a server start does, and fails the test if that does not end: a
// cache path that blocks must never hang the index.
func indexGuarded(t *testing.T, root, cacheDir string) (*Workspace, IndexStats, *cacheLog) {
	t.Helper()
	type result struct {
		ws    *Workspace
		stats []IndexStats
		err   error
	}
	log := &cacheLog{}
	done := make(chan result, 1)
	go func() {
		cfg := DefaultConfig()
		cfg.CacheDir = cacheDir
		ws, err := New(cfg, Options{Logger: slog.New(slog.NewTextHandler(log, &slog.HandlerOptions{Level: slog.LevelDebug}))})
		if err == nil {
			_, err = ws.AddFolder(root)
		}
		var stats []IndexStats
		if err == nil {
			stats, err = ws.Index(context.Background(), nil)
		}
		done <- result{ws, stats, err}
	}()
	select {
	case r := <-done:
		if r.err != nil {
			t.Fatalf("index: %v (log: %s)", r.err, log.lines(""))
		}
		return r.ws, r.stats[0], log
	case <-time.After(2 * time.Minute):
		t.Fatalf("the index did not end with the cache dir %s (log: %s)", cacheDir, log.lines(""))
		return nil, IndexStats{}, nil
	}
}

// TestCachePathNotAFile: whatever stands at the cache file's path instead
// of a regular file (a FIFO, a socket, a symlink to a cache file elsewhere
// or to nothing, a directory), the index completes, is built from the
// files (nothing read through the entry), and a warning names the path and
// what it is. The new cache replaces the entry itself, the symlink's
// target untouched, and the next run loads it; a directory is left alone
// and the folder runs without a cache.
func TestCachePathNotAFile(t *testing.T) {
	root := t.TempDir()
	selWriteTree(t, root, selApp)
	// A sound cache of the same folder, elsewhere: followed, the symlink
	// would make the index reuse every file instead of parsing it.
	elsewhere := t.TempDir()
	_, cold, _ := indexGuarded(t, root, elsewhere)
	name := filepath.Base(cold.Cache)
	sound, err := os.ReadFile(cold.Cache)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		what string // as the warning says it
		make func(t *testing.T, path string)
	}{
		{"a FIFO", func(t *testing.T, path string) {
			if err := syscall.Mkfifo(path, 0o644); err != nil {
				t.Fatal(err)
			}
		}},
		{"a socket", func(t *testing.T, path string) {
			l, err := net.Listen("unix", path)
			if err != nil {
				t.Fatal(err)
			}
			l.(*net.UnixListener).SetUnlinkOnClose(false)
			t.Cleanup(func() { l.Close() })
		}},
		{"a symlink", func(t *testing.T, path string) {
			if err := os.Symlink(cold.Cache, path); err != nil {
				t.Fatal(err)
			}
		}},
		{"a symlink", func(t *testing.T, path string) {
			if err := os.Symlink(filepath.Join(t.TempDir(), "nothing"), path); err != nil {
				t.Fatal(err)
			}
		}},
		{"a directory", func(t *testing.T, path string) {
			if err := os.MkdirAll(filepath.Join(path, "inside"), 0o755); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(strings.TrimPrefix(tc.what, "a "), func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, name)
			tc.make(t, path)
			ws, st, log := indexGuarded(t, root, dir)
			if st.Files != selAppFiles || st.Parsed != selAppFiles || st.Reused != 0 {
				t.Errorf("with %s at the cache path: %d files, %d parsed, %d reused; want all %d parsed", tc.what, st.Files, st.Parsed, st.Reused, selAppFiles)
			}
			warn := log.lines("WARN")
			if len(warn) != 1 || !strings.Contains(warn[0], path) || !strings.Contains(warn[0], tc.what) {
				t.Errorf("want one warning naming %s and %q, got %q", path, tc.what, warn)
			}
			selFirst(t, selDo(t, ws, &SelectRequest{Query: "parseConfig"}), "sym:internal/config/config.go::parseConfig")
			if b, err := os.ReadFile(cold.Cache); err != nil || !bytes.Equal(b, sound) {
				t.Errorf("the cache a symlink led to changed (%v)", err)
			}
			fi, err := os.Lstat(path)
			if err != nil {
				t.Fatal(err)
			}
			if tc.what == "a directory" {
				if !fi.IsDir() || st.Cache != "off" {
					t.Errorf("the directory became %v; stats name the cache %q, want off", fi.Mode(), st.Cache)
				}
				if names := cacheDirFiles(t, dir); len(names) != 1 {
					t.Errorf("the cache dir holds %q, want the directory alone", names)
				}
				return
			}
			if !fi.Mode().IsRegular() {
				t.Fatalf("the cache path is still %v after the rebuild", fi.Mode().Type())
			}
			_, again, log := indexGuarded(t, root, dir)
			if again.Reused != selAppFiles || len(log.lines("WARN")) > 0 {
				t.Errorf("the run after: %d reused, warnings %q; want all reused from the new cache", again.Reused, log.lines("WARN"))
			}
		})
	}
}

// TestCacheDirNotADirectory: a cache directory that is a FIFO does not
// hang the index (it runs without a cache, saying so); one that is a
// symlink to a directory is the user's choice and is used.
func TestCacheDirNotADirectory(t *testing.T) {
	root := t.TempDir()
	selWriteTree(t, root, selApp)
	fifo := filepath.Join(t.TempDir(), "cache")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	_, st, log := indexGuarded(t, root, fifo)
	if st.Files != selAppFiles || len(log.lines("WARN")) == 0 {
		t.Errorf("cache dir a FIFO: %d files, warnings %q; want every file and a warning", st.Files, log.lines("WARN"))
	}
	real := t.TempDir()
	link := filepath.Join(t.TempDir(), "cache")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	indexGuarded(t, root, link)
	_, again, log := indexGuarded(t, root, link)
	if again.Reused != selAppFiles || len(log.lines("WARN")) > 0 || len(cacheDirFiles(t, real)) != 1 {
		t.Errorf("cache dir a symlink: %d reused, warnings %q, %q in its target", again.Reused, log.lines("WARN"), cacheDirFiles(t, real))
	}
}

// deadPid is the id of a process that has exited.
func deadPid(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid
}

// TestStaleTempsSwept: at start the temporary cache files of writers that
// are gone are removed: one named with a pid that exited, one whose pid
// is alive (reused) but unlocked for longer than StaleTempAge, an
// old-style name as old. A live writer's file stays: one a writer holds
// locked (in another process, or this one), and a fresh one whose pid is
// alive. So do files that are not ctxls temporaries.
func TestStaleTempsSwept(t *testing.T) {
	root := t.TempDir()
	selWriteTree(t, root, selApp)
	dir := t.TempDir()
	cfile := cachePath(dir, root)
	base := filepath.Base(cfile)
	old := time.Now().Add(-cachefile.StaleTempAge - time.Minute)
	mk := func(name string, mtime time.Time) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, bytes.Repeat([]byte("x"), 4096), 0o644); err != nil {
			t.Fatal(err)
		}
		if !mtime.IsZero() {
			if err := os.Chtimes(p, mtime, mtime); err != nil {
				t.Fatal(err)
			}
		}
		return p
	}
	me := strconv.Itoa(os.Getpid())
	dead := mk(fmt.Sprintf("%s.tmp.%d.123", base, deadPid(t)), time.Time{})
	reused := mk(base+".tmp.1.456", old) // pid 1 is alive, the file unlocked and old
	oldStyle := mk(base+".tmp987654", old)
	freshOldStyle := mk(base+".tmp555", time.Time{})
	unlocked := mk(base+".tmp."+me+".789", time.Time{}) // a writer between its create and its lock
	other := mk("notes.tmp.1.2", old)

	// A writer in another process, holding its lock on an old file named
	// with a pid that has exited: the lock says it is alive.
	held := mk(fmt.Sprintf("%s.tmp.%d.321", base, deadPid(t)), old)
	locker := exec.Command(os.Args[0], "-test.run=^TestHelperHoldLock$")
	locker.Env = append(os.Environ(), "CTXLS_HOLD_LOCK="+held)
	stdout, err := locker.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := locker.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { locker.Process.Kill(); locker.Wait() })
	for sc := bufio.NewScanner(stdout); sc.Text() != "locked"; {
		if !sc.Scan() {
			t.Fatalf("the locking process ended: %v", sc.Err())
		}
	}
	// A writer in this process at work on another cache file.
	w, err := symbolindex.NewStreamWriter(filepath.Join(dir, fmt.Sprintf("%016x.idx", 42)), embed.NewHashEmbedder(64), 10)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	var live string
	for _, n := range cacheDirFiles(t, dir) {
		if strings.HasPrefix(n, fmt.Sprintf("%016x.idx.tmp.%s.", 42, me)) {
			live = filepath.Join(dir, n)
		}
	}
	if live == "" {
		t.Fatalf("the stream writer's temporary file is not named with its pid: %q", cacheDirFiles(t, dir))
	}

	_, st, log := indexGuarded(t, root, dir)
	if st.Files != selAppFiles {
		t.Fatalf("%d files indexed", st.Files)
	}
	for _, p := range []string{dead, reused, oldStyle} {
		if _, err := os.Lstat(p); err == nil {
			t.Errorf("%s was not swept", filepath.Base(p))
		}
		if !strings.Contains(strings.Join(log.lines("INFO"), "\n"), p) {
			t.Errorf("no log line names the swept %s: %q", filepath.Base(p), log.lines("INFO"))
		}
	}
	for _, p := range []string{freshOldStyle, unlocked, other, held, live} {
		if _, err := os.Lstat(p); err != nil {
			t.Errorf("%s was removed: a live writer's file or not a ctxls temporary", filepath.Base(p))
		}
	}
}

// TestHelperHoldLock is the other process of TestStaleTempsSwept: run
// with CTXLS_HOLD_LOCK set, it locks that file as a cache writer does,
// says so, and holds the lock until it is killed. Otherwise it does
// nothing.
func TestHelperHoldLock(t *testing.T) {
	path := os.Getenv("CTXLS_HOLD_LOCK")
	if path == "" {
		return
	}
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	fmt.Println("locked")
	time.Sleep(5 * time.Minute)
}
