package workspace

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/ctxls/ctxls/workspace/history"
)

// loadHistory reads each folder's history, or reads it again when its
// repository's HEAD moved. A folder without usable history (no git, not a
// repository, a shallow or partial clone, historyCommits 0) gets none, and
// the reason is logged once and kept for stats.history.
func (w *Workspace) loadHistory(ctx context.Context) {
	w.mu.Lock()
	cfg, folders := w.cfg, append([]*Folder(nil), w.folders...)
	w.mu.Unlock()
	for _, f := range folders {
		h, reason := readHistory(ctx, f, cfg)
		if ctx.Err() != nil {
			return
		}
		f.mu.Lock()
		if h != nil || reason != "" {
			f.hist = h
		}
		f.histReason, f.histDone = reason, true
		f.mu.Unlock()
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

// readHistory reads f's history, unless it has the current one (nil, "").
func readHistory(ctx context.Context, f *Folder, cfg Config) (*history.History, string) {
	if cfg.HistoryCommits == 0 {
		return nil, "historyCommits is 0"
	}
	head, err := history.Head(ctx, f.Root)
	if err != nil {
		return nil, strings.TrimPrefix(err.Error(), history.ErrNoHistory.Error()+": ")
	}
	f.mu.RLock()
	cur := f.hist
	f.mu.RUnlock()
	if cur != nil && cur.Head == head {
		return nil, ""
	}
	if why := history.Unusable(ctx, f.Root); why != "" {
		return nil, why
	}
	h, err := history.Load(ctx, f.Root, head, history.Options{
		MaxCommits: cfg.HistoryCommits, MaxAge: time.Duration(cfg.HistoryDays) * 24 * time.Hour,
	})
	if err != nil {
		if errors.Is(err, context.Canceled) {
			return nil, ""
		}
		return nil, err.Error()
	}
	return h, ""
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
		st.Commits, st.Head, st.Reason = h.Len(), h.Head, ""
	}
	return st
}
