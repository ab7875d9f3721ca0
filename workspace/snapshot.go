package workspace

import (
	"bytes"
	"maps"
	"time"

	"github.com/ctxls/ctxls/symbolindex"
	"github.com/ctxls/ctxls/symbolindex/embed"
	"github.com/ctxls/ctxls/workspace/history"
)

// Snapshot is one consistent view of the workspace for the length of one
// request: every folder's index, the open documents' texts, the activity
// state and the configuration. As with gopls' cache.Snapshot, it is cheap
// to take (one round of the workspace lock, and of each folder's lock) and
// released when the request is done; it holds no lock in between.
//
// An update changes the index of one folder holding that folder's write
// lock (an edit also changes the document's text, both under the
// workspace lock), and the unit of an update is one file: a didChange, a
// watched-file event, one file of a re-scan. A snapshot reads each
// folder's index as a frozen generation (symbolindex.View) taken under
// those locks, so it sees each update whole or not at all, and the texts
// it packs are the texts its index was built from. Updates never wait for
// the snapshots in flight: the index copies what it changes while a
// generation is held, and the next request sees the update. What a
// request reports (counts, the Merkle root, symbols re-embedded) comes
// from its snapshot. The item-vector cache (itemvec.go) keeps its own
// mutex, which no update takes.
type Snapshot struct {
	cfg     Config
	emb     embed.Embedder
	now     time.Time
	folders []*folderView
	// docs are the open documents' texts by absolute path. A text slice is
	// never modified in place (didChange replaces it), so sharing it is
	// safe.
	docs    map[string][]byte
	active  string  // the active document's absolute path, or ""
	cursor  *Cursor // its cursor, when the editor reported one
	edits   map[editKey]time.Time
	refused map[string]int
	notes   []Note        // memory notes, oldest first
	vecs    *itemVecCache // the workspace's; itemvec.go
	views   []*symbolindex.View
}

// folderView is one folder as a snapshot sees it.
type folderView struct {
	Root string
	idx  *symbolindex.Index
	// ready: the first index is built and the history was looked for, so
	// that an answer a client waited for has every source.
	ready bool
	hist  *history.History // immutable; nil without history
	rules *folderRules     // immutable; nil until looked for (rules.go)
	// histReason says why hist is nil; histDone: history was looked for.
	histReason string
	histDone   bool
}

// snapshotLocked takes a snapshot. Caller holds w.mu; the snapshot must be
// released.
func (w *Workspace) snapshotLocked() *Snapshot {
	s := &Snapshot{
		cfg:     w.cfg,
		emb:     w.emb,
		now:     w.opts.Now(),
		active:  w.act.activeAbs,
		cursor:  w.act.cursor,
		edits:   maps.Clone(w.act.edits),
		refused: w.refusals(),
		notes:   w.notesLocked(),
		vecs:    w.itemVecs,
	}
	if len(w.docs) > 0 {
		s.docs = make(map[string][]byte, len(w.docs))
		for abs, d := range w.docs {
			s.docs[abs] = d.text
		}
	}
	for _, f := range w.folders {
		f.mu.RLock() // waits for an update in progress, never for a reader
		v := f.vers.Acquire()
		s.views = append(s.views, v)
		s.folders = append(s.folders, &folderView{Root: f.Root, idx: v.Index(), ready: f.servable(), hist: f.hist, rules: f.rules, histReason: f.histReason, histDone: f.histDone})
		f.mu.RUnlock()
	}
	return s
}

// Release ends the snapshot: the index generations it read may be
// dropped once no other snapshot reads them.
func (s *Snapshot) Release() {
	for _, v := range s.views {
		v.Release()
	}
	s.views = nil
}

// readText returns the text of the file at the real path abs in the folder
// root as the snapshot sees it: the open document's, or the file on disk,
// read through the gate.
func (s *Snapshot) readText(root, abs string) ([]byte, error) {
	if text, ok := s.docs[abs]; ok {
		return text, nil
	}
	src, _, err := readRegular(root, abs, s.cfg.MaxFileBytes)
	return src, err
}

// folderOf is the view of the folder whose root is root, nil if none.
func (s *Snapshot) folderOf(root string) *folderView {
	for _, fv := range s.folders {
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
	fv := s.folderOf(f.Root)
	if fv == nil {
		return 0, false, nil
	}
	if _, ok := fv.idx.FileSlot(rel); !ok {
		return 0, false, nil
	}
	text, err := s.readText(fv.Root, real)
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
	for _, fv := range s.folders {
		fs, ok := fv.idx.FileSlot(relPath)
		if !ok {
			continue
		}
		for _, slot := range fv.idx.FileSymbols(fs) {
			if ref, _ := fv.idx.Symbol(slot); ref.Qualified == qualified {
				return ref.Range.StartLine, ref.Range.EndLine, true
			}
		}
	}
	return 0, 0, false
}
