package workspace

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"strings"
	"time"

	"github.com/ctxls/ctxls/workspace/history"
)

// loadHistory reads each folder's history, or reads it again when its
// repository's HEAD moved (or its shallow boundary: a deepened clone). A
// folder without usable history (no git, not a repository, historyCommits
// 0) gets none, and the reason is logged once and kept for stats.history.
// A shallow clone's history (its commits up to the boundary) and a history
// read in part (git could not read some objects: a partial clone, a
// damaged pack) are used for what they hold, and what they lack
// (History.Partial) is warned about once and kept for
// stats.history.partial.
func (w *Workspace) loadHistory(ctx context.Context) {
	w.mu.Lock()
	cfg, folders := w.cfg, append([]*Folder(nil), w.folders...)
	w.mu.Unlock()
	for _, f := range folders {
		h, reason := w.readHistory(ctx, f, cfg)
		if ctx.Err() != nil {
			return
		}
		f.mu.Lock()
		if h != nil || reason != "" {
			f.hist = h
		}
		f.histReason, f.histDone = reason, true
		f.mu.Unlock()
		if s := h.Shallow(); s != "" {
			w.warnOnce("history shallow "+f.Root, s, "root", f.Root)
		}
		if lost := h.Lost(); lost != "" {
			w.warnOnce("history lost "+f.Root, lost, "root", f.Root)
		}
		if reason != "" {
			w.mu.Lock()
			if !w.warned["history "+f.Root] {
				w.warned["history "+f.Root] = true
				w.log.Debug("no history for the history sources", "root", f.Root, "reason", reason)
			}
			w.mu.Unlock()
		}
	}
}

// readHistory reads f's history, unless it has the current one (nil, "":
// at HEAD, on the same shallow boundary, history.Current). It starts from
// the history it has, else from the history cache beside the index cache:
// one at HEAD is used as it is, one at an ancestor of HEAD is extended
// with the commits since (history.Extend), so that no start or HEAD move
// reads the whole history again; one read on another shallow boundary (a
// deepened clone) is read again whole. A cache that cannot be used is
// said once in the log and replaced. A read that failed is not tried
// again at the same HEAD with the same bounds: it keeps its reason. New
// bounds (historyCommits, historyDays) at the same HEAD read it again.
func (w *Workspace) readHistory(ctx context.Context, f *Folder, cfg Config) (*history.History, string) {
	if cfg.HistoryCommits == 0 {
		return nil, "historyCommits is 0"
	}
	repo, err := history.Open(ctx, f.Root)
	if err != nil {
		return nil, strings.TrimPrefix(err.Error(), history.ErrNoHistory.Error()+": ")
	}
	f.mu.RLock()
	cur, failed, was := f.hist, f.histFailed, f.histReason
	f.mu.RUnlock()
	opts := history.Options{MaxCommits: cfg.HistoryCommits, MaxAge: time.Duration(cfg.HistoryDays) * 24 * time.Hour}
	if cur.Current(ctx, repo, opts) {
		return nil, ""
	}
	if cur == nil && failed == (histRead{repo.Head, opts}) {
		return nil, was // it would fail the same way again
	}
	dir, persist := cfg.ResolvedCacheDir()
	cfile := ""
	if persist && !f.noCache.Load() {
		cfile = folderCacheFile(dir, f.Root, ".hist")
	}
	if cur == nil && cfile != "" {
		cur = w.cachedHistory(cfile, f.Root, opts)
	}
	h, err := cur.Extend(ctx, repo, repo.Head, opts)
	if err != nil {
		if errors.Is(err, context.Canceled) {
			return nil, ""
		}
		f.mu.Lock()
		f.histFailed = histRead{repo.Head, opts}
		f.mu.Unlock()
		return nil, err.Error()
	}
	if cfile != "" && h != cur {
		if err := os.MkdirAll(dir, 0o700); err == nil {
			err = h.Save(cfile, f.Root)
		}
		if err != nil {
			w.warnOnce("history cache save "+f.Root, "could not save the history cache", "root", f.Root, "err", err)
		}
	}
	return h, ""
}

// histRead is what shapes a history read: the HEAD it is read at and
// its bounds.
type histRead struct {
	head string
	opts history.Options
}

// cachedHistory is the history cached in cfile for the folder root, or
// nil; a cache that is there but cannot be used is warned about once.
func (w *Workspace) cachedHistory(cfile, root string, opts history.Options) *history.History {
	h, err := history.LoadCache(cfile, root, opts)
	switch {
	case err == nil:
		return h
	case errors.Is(err, fs.ErrNotExist):
	case errors.Is(err, history.ErrCacheForeign):
		w.log.Info("history cache not for this folder, these bounds or this version; reading the history again", "root", root, "why", err)
	default:
		w.warnOnce("history cache "+cfile, "ignoring unreadable history cache; reading the history again", "root", root, "err", err)
	}
	return nil
}

// warnOnce logs a warning the first time key is seen.
func (w *Workspace) warnOnce(key, msg string, args ...any) {
	w.mu.Lock()
	seen := w.warned[key]
	w.warned[key] = true
	w.mu.Unlock()
	if !seen {
		w.log.Warn(msg, args...)
	}
}

// historyOf is what f's history holds.
func historyOf(f *Folder) HistoryStats {
	f.mu.RLock()
	defer f.mu.RUnlock()
	return folderHistory(f.hist, f.histReason, f.histDone)
}

func folderHistory(h *history.History, reason string, done bool) HistoryStats {
	st := HistoryStats{Ready: done, Reason: reason}
	if h != nil {
		st.Commits, st.Head, st.Reason, st.Partial = h.Len(), h.Head, "", h.Partial()
	}
	return st
}
