package workspace

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/ctxls/ctxls/heuristics"
	"github.com/ctxls/ctxls/workspace/history"
	"github.com/ctxls/ctxls/workspace/snapshot"
)

// Adding, removing and (re)indexing the workspace's folders, and what each
// folder's ranking reads besides its index: its history and its weights.

// SetConfig replaces the configuration. It reports whether the change
// requires the folders to be re-indexed (the embedder, excludes or size
// limit changed); the caller then runs Index.
func (w *Workspace) SetConfig(cfg Config) (reindex bool, err error) {
	if err := cfg.Validate(); err != nil {
		return false, err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	old := w.cfg
	w.cfg = cfg
	if cfg.Embedder != old.Embedder || cfg.ModelPath != old.ModelPath || cfg.ONNXRuntimeLibrary != old.ONNXRuntimeLibrary {
		w.emb = w.newEmbedder(cfg)
		reindex = true
	}
	if strings.Join(cfg.Exclude, "\x00") != strings.Join(old.Exclude, "\x00") || cfg.MaxFileBytes != old.MaxFileBytes || cfg.CacheDir != old.CacheDir {
		reindex = true
	}
	return reindex, nil
}

// AddFolder adds a workspace folder; its index is built by the next Index.
// Adding a folder twice is a no-op.
func (w *Workspace) AddFolder(root string) (*Folder, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	f, err := newFolder(root, w.emb)
	if err != nil {
		return nil, err
	}
	for _, g := range w.folders {
		if g.Root == f.Root {
			return g, nil
		}
	}
	// A rebuild of a damaged cache starts from the files alone: the open
	// documents' unsaved text goes back in when it is installed.
	f.afterRebuild = func() {
		w.mu.Lock()
		defer w.mu.Unlock()
		w.reapplyDocsLocked(f)
	}
	f.holdGC = w.opts.HoldGC
	w.folders = append(w.folders, f)
	w.loadMemoryLocked(f.Root)
	w.discoverRulesLocked(f) // the top-level rules, before the first index
	return f, nil
}

// reapplyDocsLocked puts the open documents' text into the index again
// after a build replaced it with the disk's: every open document, or only
// those inside folder only. Caller holds w.mu.
func (w *Workspace) reapplyDocsLocked(only *Folder) {
	for abs, d := range w.docs {
		if only != nil {
			if f, _, err := locate(w.folders, abs); err != nil || f != only {
				continue
			}
		}
		if err := w.reindexDoc(abs, d, false); err != nil {
			w.log.Warn("re-applying open document", "path", abs, "err", err)
		}
	}
}

// RemoveFolder drops a workspace folder and its index. It reports whether
// the folder was there.
func (w *Workspace) RemoveFolder(root string) bool {
	abs, err := filepath.Abs(root)
	if err != nil {
		return false
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	for i, f := range w.folders {
		if f.Root == abs {
			w.folders = append(w.folders[:i], w.folders[i+1:]...)
			return true
		}
	}
	return false
}

// Index builds or refreshes the index of every folder, reporting progress.
// Open documents are re-applied on top of what is on disk.
func (w *Workspace) Index(ctx context.Context, progress func(Progress)) ([]IndexStats, error) {
	w.mu.Lock()
	cfg, emb, folders := w.cfg, w.emb, append([]*Folder(nil), w.folders...)
	w.mu.Unlock()
	// The history is read while the folders are built: a folder served
	// from its cache is servable once it is read, without waiting for
	// the re-check of its files.
	start := time.Now()
	histDone := make(chan time.Duration, 1)
	go func() {
		w.loadHistory(ctx)
		histDone <- time.Since(start)
	}()
	var out []IndexStats
	for _, f := range folders {
		w.loadWeights(f, cfg)
		st, err := f.build(ctx, cfg, emb, w.log, progress)
		if err != nil {
			<-histDone
			return out, err
		}
		out = append(out, st)
	}
	w.mu.Lock()
	w.reapplyDocsLocked(nil)
	for _, f := range folders {
		w.discoverRulesLocked(f) // rules.go
	}
	w.mu.Unlock()
	elapsed := <-histDone
	for i := range out {
		out[i].History = historyOf(folders[i])
		folders[i].mu.RLock()
		out[i].Weights = folders[i].weightsStats
		folders[i].mu.RUnlock()
		out[i].History.ElapsedMs = float64(elapsed.Microseconds()) / 1000
	}
	return out, nil
}

// SetHistory gives the folder at root the history its co-change and past
// change sources read (nil: none). The next request sees it.
func (w *Workspace) SetHistory(root string, h *history.History) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, f := range w.folders {
		if f.Root == root {
			f.mu.Lock()
			f.hist, f.histReason, f.histDone = h, "", true
			f.mu.Unlock()
			return nil
		}
	}
	return fmt.Errorf("%s: %w", root, ErrOutside)
}

// SetWeights gives the folder at root the fusion weights its candidates
// are fused with, and what stats says of them, until the next Index reads
// the cache's again. ctxls tune answers each case under many sets.
func (w *Workspace) SetWeights(root string, set heuristics.WeightSet, st snapshot.WeightsStats) error {
	if err := set.Check(); err != nil {
		return err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, f := range w.folders {
		if f.Root == root {
			f.mu.Lock()
			f.weights, f.weightsStats = set, st
			f.mu.Unlock()
			return nil
		}
	}
	return fmt.Errorf("%s: %w", root, ErrOutside)
}
