package workspace

import (
	"context"
	"errors"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/ctxls/ctxls/heuristics"
	"github.com/ctxls/ctxls/symbolindex/parse"
	"github.com/ctxls/ctxls/workspace/history"
)

// HistoryStats says what history the history sources read.
type HistoryStats struct {
	Ready     bool    `json:"ready"`            // every folder's history was read, or is known to be unavailable
	Commits   int     `json:"commits"`          // commits read, over all folders
	Head      string  `json:"head,omitempty"`   // the head commit of the first folder with history
	Reason    string  `json:"reason,omitempty"` // why a folder has none ("" when all have one)
	ElapsedMs float64 `json:"elapsedMs"`        // time spent reading it (ctxls index only)
}

// loadHistory reads each folder's history, or reads it again when its
// repository's HEAD moved. A folder without usable history (no git, not a
// repository, a shallow or partial clone, historyCommits 0) gets none, and
// the reason is logged once and kept for stats.history.
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
// It starts from the history it has, else from the history cache beside
// the index cache: one at HEAD is used as it is, one at an ancestor of
// HEAD is extended with the commits since (history.Extend), so that no
// start or HEAD move reads the whole history again. A cache that cannot
// be used is said once in the log and replaced.
func (w *Workspace) readHistory(ctx context.Context, f *Folder, cfg Config) (*history.History, string) {
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
	opts := history.Options{MaxCommits: cfg.HistoryCommits, MaxAge: time.Duration(cfg.HistoryDays) * 24 * time.Hour}
	dir, persist := cfg.ResolvedCacheDir()
	cfile := ""
	if persist && !f.noCache.Load() {
		cfile = folderCacheFile(dir, f.Root, ".hist")
	}
	if cur == nil && cfile != "" {
		cur = w.cachedHistory(cfile, f.Root, opts)
	}
	h, err := cur.Extend(ctx, f.Root, head, opts)
	if err != nil {
		if errors.Is(err, context.Canceled) {
			return nil, ""
		}
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

// cachedHistory is the history cached in cfile for the folder root, or
// nil; a cache that is there but cannot be used is warned about once.
func (w *Workspace) cachedHistory(cfile, root string, opts history.Options) *history.History {
	h, err := history.LoadCache(cfile, root, opts)
	switch {
	case err == nil:
		return h
	case errors.Is(err, fs.ErrNotExist):
	case errors.Is(err, history.ErrCacheForeign):
		w.log.Info("history cache not for this folder or these bounds; reading the history again", "root", root, "path", cfile)
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
		st.Commits, st.Head, st.Reason = h.Len(), h.Head, ""
	}
	return st
}

// historyStats sums the snapshot's folders' history.
func (s *Snapshot) historyStats() HistoryStats {
	st := HistoryStats{Ready: true}
	for _, fv := range s.folders {
		h := folderHistory(fv.hist, fv.histReason, fv.histDone)
		st.Ready = st.Ready && h.Ready
		st.Commits += h.Commits
		if st.Head == "" {
			st.Head = h.Head
		}
		if st.Reason == "" {
			st.Reason = h.Reason
		}
	}
	return st
}

// pastSymbolSource ranks the symbols whose lines past commits described in
// words like the query's touched (history.PastTouches): the within-file
// ranking the file-level history lacks. Each commit's weight is spread
// over the symbols it touched.
func pastSymbolSource(s *scope) ranked {
	if s.fv.hist == nil || heuristics.Weights[heuristics.SrcPastSymbol] == 0 {
		return ranked{}
	}
	return s.touchedSymbols(s.fv.hist.PastTouches(s.q.terms, s.q.release))
}

// coChangeSymbolSource ranks the symbols, in other files, whose lines
// changed in the same commits as the symbol under the cursor and the
// active file's recently edited symbols; with neither, as the active
// file's lines (history.CoTouches).
func coChangeSymbolSource(s *scope) ranked {
	h := s.fv.hist
	if h == nil || s.activeRel == "" || heuristics.Weights[heuristics.SrcCoChangeSymbol] == 0 {
		return ranked{}
	}
	fs, ok := s.idx.FileSlot(s.activeRel)
	if !ok {
		return ranked{}
	}
	seeds := map[uint32]float64{}
	if slot, ok := s.cursorSlot(); ok {
		seeds[slot] = 1
	}
	halfLife := time.Duration(s.snap.cfg.RecentEditHalfLife)
	activeAbs := filepath.Join(s.fv.Root, filepath.FromSlash(s.activeRel))
	for k, t := range s.snap.edits {
		if k.abs != activeAbs {
			continue
		}
		for _, slot := range s.idx.FileSymbols(fs) {
			if s.idx.LeafKey(slot) == k.key {
				if wt := heuristics.Decay(s.snap.now.Sub(t), halfLife); wt > heuristics.MinEditWeight {
					seeds[slot] = max(seeds[slot], wt)
				}
				break
			}
		}
	}
	var touches []history.Touch
	if len(seeds) == 0 {
		touches = h.CoTouches(s.activeRel, 1, math.MaxInt32)
	}
	for slot, w := range seeds {
		ref, ok := s.idx.Symbol(slot)
		if !ok {
			continue
		}
		for _, t := range h.CoTouches(s.activeRel, int(ref.Range.StartLine)+1, int(ref.Range.EndLine)+1) {
			t.Weight *= w
			touches = append(touches, t)
		}
	}
	return s.touchedSymbols(touches)
}

// touchedSymbols maps the lines past commits touched to the symbols that
// hold them in the index: the innermost symbols overlapping each span. A
// commit's weight is spread over the symbols it touched (by the square
// root of their number, as the file tables spread it over files).
func (s *scope) touchedSymbols(touches []history.Touch) ranked {
	if len(touches) == 0 {
		return ranked{}
	}
	type fileSyms struct {
		slots  []uint32
		ranges []parse.Range
	}
	files := map[string]*fileSyms{}
	symsOf := func(p string) *fileSyms {
		if f, ok := files[p]; ok {
			return f
		}
		f := &fileSyms{}
		files[p] = f
		fs, ok := s.idx.FileSlot(p)
		if !ok || s.fileFilter != nil && !s.fileFilter(fs) {
			return f
		}
		for _, slot := range s.idx.FileSymbols(fs) {
			if ref, ok := s.idx.Symbol(slot); ok {
				f.slots = append(f.slots, slot)
				f.ranges = append(f.ranges, ref.Range)
			}
		}
		return f
	}
	score := map[uint32]float64{}
	var commit []uint32 // the symbols of the commit being summed
	var hit []int
	flush := func(w float64) {
		if len(commit) == 0 {
			return
		}
		slices.Sort(commit)
		commit = slices.Compact(commit)
		share := w / math.Sqrt(float64(len(commit)))
		for _, slot := range commit {
			score[slot] += share
		}
		commit = commit[:0]
	}
	for i, t := range touches {
		f := symsOf(t.Path)
		// Symbols come outer before inner: an overlapping symbol that
		// holds the next overlapping one is its container.
		hit = hit[:0]
		for j, r := range f.ranges {
			if int(r.StartLine)+1 <= t.End && t.Start <= int(r.EndLine)+1 {
				hit = append(hit, j)
			}
		}
		for k, j := range hit {
			inner := false
			for _, j2 := range hit[k+1:] {
				if f.ranges[j].Contains(f.ranges[j2]) {
					inner = true
					break
				}
			}
			if !inner {
				commit = append(commit, f.slots[j])
			}
		}
		if i+1 == len(touches) || touches[i+1].Commit != t.Commit {
			flush(t.Weight)
		}
	}
	list := make([]weightedSlot, 0, len(score))
	for slot, sc := range score {
		if s.symFilter == nil || s.symFilter(slot) {
			list = append(list, weightedSlot{slot, sc})
		}
	}
	sort.Slice(list, func(i, j int) bool {
		return list[i].w > list[j].w || list[i].w == list[j].w && list[i].slot < list[j].slot
	})
	list = list[:min(len(list), heuristics.HistorySymbolK)]
	var out ranked
	for i, r := range heuristics.CompetitionRanks(list, weightOf) {
		out.syms = append(out.syms, symRank{list[i].slot, int32(r), float32(list[i].w)})
	}
	return out
}
