package workspace

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/fsnotify/fsnotify"
	"github.com/go-git/go-git/v5/plumbing/format/gitignore"

	"github.com/ctxls/ctxls/workspace/glob"
	"github.com/ctxls/ctxls/workspace/snapshot"
)

// DefaultWatchDebounce is how long Watch waits after the last change on
// disk before it applies a burst of changes (a save, a checkout, a
// formatter run) as one batch.
const DefaultWatchDebounce = 300 * time.Millisecond

// Watch keeps the index live from the file system, for clients that send
// no document or watched-file notifications (an MCP client). It watches
// every directory of the folders that discovery would walk (not .git,
// node_modules and the other default excludes, nor the exclude globs),
// gathers the changes, and once the disk has been quiet for debounce
// applies them with FilesChanged: through the gate, as the server applies
// workspace/didChangeWatchedFiles. Changes wait until the first build is
// complete, even when a cache is served before. A directory created later is watched too, and its files are
// indexed.
//
// applied, when not nil, is told the size of each batch and the error
// FilesChanged returned. Watch returns when ctx ends (nil) or when the
// watcher cannot be created.
func (w *Workspace) Watch(ctx context.Context, debounce time.Duration, applied func(n int, err error)) error {
	if debounce <= 0 {
		debounce = DefaultWatchDebounce
	}
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		return err
	}
	defer fw.Close()
	wt := &watcher{w: w, fw: fw, pending: map[string]bool{}}
	for _, f := range w.Folders() {
		wt.addTree(f.Root, f.Root, false)
	}

	timer := time.NewTimer(time.Hour)
	timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-fw.Events:
			if !ok {
				return nil
			}
			wt.event(ev)
			timer.Reset(debounce)
		case err, ok := <-fw.Errors:
			if !ok {
				return nil
			}
			w.log.Warn("watching files", "err", err)
		case <-timer.C:
			if !w.built() {
				timer.Reset(debounce) // the first build would overwrite the changes
				continue
			}
			n, err := wt.flush()
			if applied != nil && n > 0 {
				applied(n, err)
			}
			if err != nil {
				w.log.Debug("watched change not applied", "err", err)
			}
		}
	}
}

// watcher is Watch's state; only Watch's goroutine uses it.
type watcher struct {
	w       *Workspace
	fw      *fsnotify.Watcher
	pending map[string]bool // paths changed since the last batch
	full    bool            // the watch limit was hit, once logged
}

// event records one change. A new directory is watched, and what it
// already holds is recorded too (a checkout creates a directory and its
// files before the watch on it exists).
func (wt *watcher) event(ev fsnotify.Event) {
	if ev.Op == fsnotify.Chmod {
		return
	}
	path := filepath.Clean(ev.Name)
	wt.pending[path] = true
	if !ev.Op.Has(fsnotify.Create) {
		return
	}
	if st, err := os.Lstat(path); err == nil && st.IsDir() {
		for _, f := range wt.w.Folders() {
			if snapshot.Within(f.Root, path) {
				wt.addTree(f.Root, path, true)
				break
			}
		}
	}
}

// addTree watches dir and every directory under it that discovery would
// walk (not the default excludes, the exclude globs or what .gitignore
// leaves out); with files, the files found are recorded as changed. Symlinks are
// not followed: what they point to inside a folder is watched under its
// own path.
func (wt *watcher) addTree(root, dir string, files bool) {
	cfg := wt.w.Config()
	exclude, _ := glob.CompileSet(cfg.Exclude)
	ignores := newIgnoreFiles(root, cfg.MaxFileBytes)
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if !d.IsDir() {
			if files && d.Type().IsRegular() {
				wt.pending[p] = true
			}
			return nil
		}
		if p != root {
			rel, _ := filepath.Rel(root, p)
			rel = filepath.ToSlash(rel)
			if isDefaultExcludedDir(d.Name()) || exclude != nil && exclude.MatchAny(rel) || ignores.ignored(rel, true) {
				return filepath.SkipDir
			}
		}
		if err := wt.fw.Add(p); err != nil {
			if !wt.full {
				wt.full = true
				wt.w.log.Warn("cannot watch every directory; changes in the others are seen at the next start", "dir", p, "err", err)
			}
			// Out of inotify watches (Linux) or of file descriptors
			// (kqueue opens one per directory): the rest would fail too.
			if errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EMFILE) {
				return filepath.SkipAll
			}
		}
		return nil
	})
}

// flush applies the recorded changes as one batch: a path that is gone is
// a deletion, any other a creation or change.
func (wt *watcher) flush() (int, error) {
	if len(wt.pending) == 0 {
		return 0, nil
	}
	events := make([]FileEvent, 0, len(wt.pending))
	for p := range wt.pending {
		_, err := os.Lstat(p)
		events = append(events, FileEvent{Path: p, Deleted: errors.Is(err, fs.ErrNotExist)})
	}
	clear(wt.pending)
	return len(events), wt.w.FilesChanged(events)
}

// ignoreFiles answers whether paths of one folder are left out by its
// git ignore files, reading each ignore file once: one is made for a batch
// of watched-file events or for one walk of a directory tree.
type ignoreFiles struct {
	root     string
	maxBytes int64
	byDir    map[string][]gitignore.Pattern // a directory's own patterns, "" the root's with .git/info/exclude
}

func newIgnoreFiles(root string, maxBytes int64) *ignoreFiles {
	return &ignoreFiles{root: root, maxBytes: maxBytes, byDir: map[string][]gitignore.Pattern{}}
}

// patterns are the patterns the directory dir (path segments from the
// root) adds; the root's include .git/info/exclude. The files are read
// through the gate.
func (c *ignoreFiles) patterns(dir []string) []gitignore.Pattern {
	key := strings.Join(dir, "/")
	if ps, ok := c.byDir[key]; ok {
		return ps
	}
	var ps []gitignore.Pattern
	if len(dir) == 0 {
		if data, _, err := readRegular(c.root, filepath.Join(c.root, ".git", "info", "exclude"), c.maxBytes); err == nil {
			ps = parseIgnore(data, nil)
		}
	}
	if data, _, err := readRegular(c.root, filepath.Join(c.root, filepath.Join(dir...), ".gitignore"), c.maxBytes); err == nil {
		ps = append(ps, parseIgnore(data, append([]string(nil), dir...))...)
	}
	c.byDir[key] = ps
	return ps
}

// ignored reports whether rel (relative to the root, forward slashes) is
// left out by .git/info/exclude or a .gitignore on its way down from the
// root, as Discover would leave it out: a path under an ignored directory
// is ignored too.
func (c *ignoreFiles) ignored(rel string, isDir bool) bool {
	if rel == "" || rel == "." {
		return false
	}
	segs := strings.Split(rel, "/")
	var patterns []gitignore.Pattern
	for i := range segs {
		patterns = append(patterns, c.patterns(segs[:i])...)
		last := i == len(segs)-1
		if len(patterns) > 0 && gitignore.NewMatcher(patterns).Match(segs[:i+1], !last || isDir) {
			return true
		}
		if !last && isDefaultExcludedDir(segs[i]) {
			return true
		}
	}
	return false
}
