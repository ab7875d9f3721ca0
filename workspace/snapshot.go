package workspace

import (
	"bytes"
	"context"
	"maps"
	"slices"
	"time"

	"github.com/ctxls/ctxls/workspace/pipeline"
	"github.com/ctxls/ctxls/workspace/snapshot"
)

// snapshotLocked takes a snapshot (workspace/snapshot). Caller holds w.mu;
// the snapshot must be released.
func (w *Workspace) snapshotLocked() *snapshot.Snapshot {
	s := &snapshot.Snapshot{
		Config:   w.cfg,
		Embedder: w.emb,
		Now:      w.opts.Now(),
		Active:   w.act.activeAbs,
		Cursor:   w.act.cursor,
		Edits:    maps.Clone(w.act.edits),
		Refused:  w.refusals(),
		Notes:    w.notesLocked(),
		ItemVecs: w.itemVecs,
		Resolve:  resolver(slices.Clone(w.folders), w.refuse),
		Read:     readGated,
		Pause:    w.pauseForEdits,
	}
	if len(w.docs) > 0 {
		s.Docs = make(map[string][]byte, len(w.docs))
		for abs, d := range w.docs {
			s.Docs[abs] = d.text
		}
	}
	for _, f := range w.folders {
		f.mu.RLock() // waits for an update in progress, never for a reader
		v := f.vers.Acquire()
		s.Keep(v)
		fv := &snapshot.Folder{Root: f.Root, Index: v.Index(), Ready: f.servable(), History: f.hist,
			HistoryStats: folderHistory(f.hist, f.histReason, f.histDone), Weights: f.weights, WeightsStats: f.weightsStats, Words: f.words}
		if f.rules != nil {
			fv.Rules, fv.RuleFiles = f.rules.items, f.rules.files
		}
		f.mu.RUnlock()
		s.Folders = append(s.Folders, fv)
	}
	return s
}

// resolver is a snapshot's Resolve: the gate over the folders it was
// taken with, under no lock.
func resolver(folders []*Folder, refuse func(SkipReason)) func(string) (string, string, string, error) {
	return func(ref string) (root, rel, real string, err error) {
		f, rel, real, err := resolveAmong(folders, ref, refuse)
		if err != nil {
			return "", "", "", err
		}
		return f.Root, rel, real, nil
	}
}

// readGated is Snapshot.Read: readRegular without the file's info.
func readGated(root, real string, limit int64) ([]byte, error) {
	src, _, err := readRegular(root, real, limit)
	return src, err
}

// folderOf is the view of the folder whose root is root, nil if none.
func folderOf(s *snapshot.Snapshot, root string) *snapshot.Folder {
	for _, fv := range s.Folders {
		if fv.Root == root {
			return fv
		}
	}
	return nil
}

// FileLines says whether the file at path (absolute, or relative to the
// first folder) is in the index, and if it is, how many lines its text has
// (the open document's, or the file's read through the gate). A path
// outside the folders is an error.
func (w *Workspace) FileLines(path string) (lines int, indexed bool, err error) {
	w.mu.Lock()
	f, rel, real, err := w.resolve(path)
	if err != nil {
		w.mu.Unlock()
		return 0, false, err
	}
	s := w.snapshotLocked()
	w.mu.Unlock()
	defer s.Release()
	fv := folderOf(s, f.Root)
	if fv == nil {
		return 0, false, nil
	}
	if _, ok := fv.Index.FileSlot(rel); !ok {
		return 0, false, nil
	}
	text, err := s.ReadText(fv.Root, real)
	if err != nil {
		return 0, true, err
	}
	lines = bytes.Count(text, []byte("\n"))
	if len(text) > 0 && text[len(text)-1] != '\n' {
		lines++
	}
	return lines, true, nil
}

// SymbolLines is the line span (0-based, both inclusive) of the symbol
// named qualified in the file relPath of the first folder that has one.
func (w *Workspace) SymbolLines(relPath, qualified string) (start, end uint32, ok bool) {
	w.mu.Lock()
	s := w.snapshotLocked()
	w.mu.Unlock()
	defer s.Release()
	for _, fv := range s.Folders {
		fs, ok := fv.Index.FileSlot(relPath)
		if !ok {
			continue
		}
		for _, slot := range fv.Index.FileSymbols(fs) {
			if ref, _ := fv.Index.Symbol(slot); ref.Qualified == qualified {
				return ref.Range.StartLine, ref.Range.EndLine, true
			}
		}
	}
	return 0, 0, false
}

// Select answers a contextSelect request: it takes a snapshot of the
// workspace and runs the select pipeline (workspace/pipeline) over it.
func (w *Workspace) Select(ctx context.Context, req *SelectRequest) (*Selection, error) {
	start := time.Now()
	select {
	case w.selecting <- struct{}{}: // selectSlots: an edit always finds a core
		defer func() { <-w.selecting }()
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	w.mu.Lock()
	s := w.snapshotLocked()
	w.mu.Unlock()
	defer s.Release()
	res, err := pipeline.Run(ctx, s, req)
	if err != nil {
		return nil, err
	}
	res.Stats.ElapsedMs = float64(time.Since(start).Microseconds()) / 1000
	return res, nil
}
