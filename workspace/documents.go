package workspace

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/ctxls/ctxls/symbolindex"
	"github.com/ctxls/ctxls/symbolindex/embed"
	"github.com/ctxls/ctxls/symbolindex/parse"
	"github.com/ctxls/ctxls/workspace/glob"
	"github.com/ctxls/ctxls/workspace/snapshot"
)

// document is an open editor buffer: its text wins over the file on disk.
type document struct {
	version int32
	text    []byte
	// tree is the document's syntax tree, which the next change re-parses
	// incrementally; nil until parsed, and for text that is not code. It
	// holds C memory: closed when the document is closed or no longer
	// indexed.
	tree *parse.DocTree
}

// dropTree frees the document's syntax tree.
func (d *document) dropTree() {
	d.tree.Close()
	d.tree = nil
}

// activity is the log of what the user looked at and changed.
type activity struct {
	activeAbs string  // the last opened, changed or focused document
	cursor    *Cursor // its cursor, when the editor reported one
	edits     map[snapshot.EditKey]time.Time
}

// maxEdits bounds the activity log; the oldest entries go first.
const maxEdits = 512

// DidOpen records an opened document, indexes its text and makes it active.
// Documents are named by path: absolute, or relative to the first folder.
func (w *Workspace) DidOpen(path string, version int32, text string) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	_, _, abs, err := w.resolve(path)
	if err != nil {
		return err
	}
	d := &document{version: version, text: []byte(text)}
	if old := w.docs[abs]; old != nil {
		old.dropTree() // opened again without a close
	}
	w.docs[abs] = d
	w.setActive(abs, nil)
	defer w.rulesTouched(abs)
	return w.reindexDoc(abs, d, false)
}

// DidChange changes an open document, re-indexes it and records which
// symbols the edit touched. edit returns the new text from the old, which
// it must not modify (lsp/wire.ApplyChanges applies didChange's changes).
// A select sent after DidChange returns sees the edit.
func (w *Workspace) DidChange(path string, version int32, edit func(text []byte) ([]byte, error)) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	_, _, abs, err := w.resolve(path)
	if err != nil {
		return err
	}
	d := w.docs[abs]
	if d == nil {
		return fmt.Errorf("%s: not open (send didOpen first)", path)
	}
	text, err := edit(d.text)
	if err != nil {
		return err
	}
	d.text, d.version = text, version
	w.setActive(abs, nil)
	defer w.rulesTouched(abs)
	return w.reindexDoc(abs, d, true)
}

// DidSave notes a saved document. The text in memory is already indexed;
// a rule file's text on disk is read again.
func (w *Workspace) DidSave(path string) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	_, _, abs, err := w.resolve(path)
	if err == nil {
		w.rulesTouched(abs)
	}
	return err
}

// DidClose forgets an open document; the file on disk is indexed again.
func (w *Workspace) DidClose(path string) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	f, rel, abs, err := w.resolve(path)
	if err != nil {
		return err
	}
	if d := w.docs[abs]; d != nil {
		d.dropTree()
	}
	delete(w.docs, abs)
	defer w.rulesTouched(abs)
	return w.reindexDisk(f, rel, abs)
}

// DidFocus makes a document active and records its cursor.
func (w *Workspace) DidFocus(path string, cursor *Cursor) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	_, _, abs, err := w.resolve(path)
	if err != nil {
		return err
	}
	w.setActive(abs, cursor)
	return nil
}

// FileEvent is a change on disk, as workspace/didChangeWatchedFiles reports.
type FileEvent struct {
	Path    string // absolute, or relative to the first folder
	Deleted bool   // false: created or changed
}

// FilesChanged re-indexes files created or changed on disk and drops deleted
// ones. Open documents keep their in-memory text. Every path goes through
// the gate: a file is indexed under its real path, and what the event
// named is dropped from the index when it is now a symlink (to elsewhere
// inside, or refused for leading outside). Events outside the workspace
// are ignored; the first error is returned after all events are applied.
func (w *Workspace) FilesChanged(events []FileEvent) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	var first error
	ignores := map[*Folder]*ignoreFiles{} // each ignore file read once for the batch
	var touched []string
	for _, ev := range events {
		if err := w.fileChanged(ev, ignores, &touched); err != nil && !errors.Is(err, ErrOutside) && first == nil {
			first = err
		}
	}
	w.rulesTouched(touched...) // rules.go
	w.refreshHistory()
	return first
}

// refreshHistory reads the history again in the background if HEAD moved
// (files changing on disk is what a commit, a checkout or a pull looks
// like from here). One refresh runs at a time.
func (w *Workspace) refreshHistory() {
	if !w.histLoading.CompareAndSwap(false, true) {
		return
	}
	go func() {
		defer w.histLoading.Store(false)
		w.loadHistory(context.Background())
	}()
}

// fileChanged applies one watched-file event; ignores holds the batch's
// ignore files by folder. It adds to touched the absolute path the event
// names and, when a symlink on the way leads elsewhere, where it leads:
// what rulesTouched is told. Caller holds w.mu.
func (w *Workspace) fileChanged(ev FileEvent, ignores map[*Folder]*ignoreFiles, touched *[]string) error {
	f, rel, abs, err := w.resolve(ev.Path)
	named, nerr := absPath(w.folders, ev.Path)
	if nerr == nil {
		*touched = append(*touched, named)
		if nf, nrel, lerr := locate(w.folders, named); lerr == nil && (err != nil || nf != f || nrel != rel) {
			nf.mu.Lock()
			removeTree(nf.idx, nrel)
			nf.mu.Unlock()
		}
	}
	if err != nil {
		return err
	}
	if abs != named {
		*touched = append(*touched, abs)
	}
	if _, open := w.docs[abs]; open {
		return nil
	}
	ig := ignores[f]
	if ig == nil {
		ig = newIgnoreFiles(f.Root, w.cfg.MaxFileBytes)
		ignores[f] = ig
	}
	if ev.Deleted || ig.ignored(rel, false) {
		// Deleted, or a file discovery would leave out (.gitignore):
		// changes to it never enter the index.
		f.mu.Lock()
		removeTree(f.idx, rel)
		f.mu.Unlock()
		return nil
	}
	return w.reindexDisk(f, rel, abs)
}

func (w *Workspace) setActive(abs string, pos *Cursor) {
	if w.act.activeAbs != abs || pos != nil {
		w.act.cursor = pos
	}
	w.act.activeAbs = abs
}

// reindexDisk indexes a file from disk, read through the gate, or drops
// it (and, for a directory that is gone or refused, every file under it)
// when it is gone, no longer indexable or refused. abs is the real path
// resolve returned. Caller holds w.mu.
func (w *Workspace) reindexDisk(f *Folder, rel, abs string) error {
	src, st, err := readRegular(f.Root, abs, w.cfg.MaxFileBytes)
	if err == nil && !w.excluded(rel) {
		return w.reindexText(f, FileInfo{Path: rel, Abs: abs, Size: int64(len(src)), ModTime: st.ModTime(), Ino: inoOf(st)}, src, nil, false)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if errors.Is(err, syscall.EISDIR) {
		f.idx.Remove(rel) // a file that became a directory; its files come as their own events
		return nil
	}
	removeTree(f.idx, rel)
	if r, ok := errors.AsType[*Refusal](err); ok {
		w.refuse(r.Reason)
		return err
	}
	if err == nil || errors.Is(err, fs.ErrNotExist) || errors.Is(err, errTooLarge) {
		return nil
	}
	return fmt.Errorf("%s: %w", abs, err)
}

// removeTree drops rel from idx and, when rel names a directory, every
// file under it.
func removeTree(idx *symbolindex.Index, rel string) {
	if idx.Remove(rel) {
		return
	}
	prefix := rel + "/"
	var under []string
	idx.EachPath(func(p string, _ uint32) bool {
		if strings.HasPrefix(p, prefix) {
			under = append(under, p)
		}
		return true
	})
	for _, p := range under {
		idx.Remove(p)
	}
}

// reindexDoc indexes an open document's text. Caller holds w.mu. The
// selects in flight pause at their next stage until it is done
// (applyingEdit).
func (w *Workspace) reindexDoc(abs string, d *document, edit bool) error {
	defer w.applyingEdit()()
	f, rel, err := locate(w.folders, abs)
	if err != nil {
		d.dropTree()
		return err
	}
	if w.excluded(rel) || int64(len(d.text)) > w.cfg.MaxFileBytes {
		d.dropTree()
		return nil
	}
	return w.reindexText(f, FileInfo{Path: rel, Abs: abs, Size: int64(len(d.text))}, d.text, d, edit)
}

// excluded reports whether rel is excluded by the configuration's globs.
func (w *Workspace) excluded(rel string) bool {
	set, err := glob.CompileSet(w.cfg.Exclude)
	return err == nil && set.MatchAny(rel)
}

// reindexText parses src and puts it into f's index, recording the symbols
// an edit changed. d is the open document src is the text of, nil for a
// file from disk. Caller holds w.mu.
func (w *Workspace) reindexText(f *Folder, fi FileInfo, src []byte, d *document, edit bool) error {
	if w.parser == nil {
		w.parser = parse.NewParser()
	}
	f.mu.RLock()
	old, _ := f.idx.State(fi.Path)
	emb := f.idx.Embedder()
	f.mu.RUnlock()
	known := func(key string, hash uint64) bool {
		f.mu.RLock()
		defer f.mu.RUnlock()
		return f.idx.Has(fi.Path, key, hash)
	}
	var p prepared
	if d != nil {
		p = w.prepareDoc(d, emb, fi, src, old, known)
	} else {
		p = prepareContent(parseWith(w.parser, fi.Path), emb, fi, src, old, known)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	switch {
	case p.skip != nil:
		f.idx.Remove(fi.Path)
		if p.skip.Err != nil {
			return fmt.Errorf("%s: %w", fi.Path, p.skip.Err)
		}
	case p.same:
	default:
		changed := f.idx.Put(p.doc)
		if edit {
			now := w.opts.Now()
			for _, s := range changed {
				w.recordEdit(fi.Abs, f.idx.LeafKey(s), now)
			}
		}
		f.maybeMerge(w.cfg, w.log)
	}
	return nil
}

// prepareDoc is prepareContent for an open document: its text is parsed
// incrementally, from the tree of its previous version. Caller holds w.mu.
func (w *Workspace) prepareDoc(d *document, emb embed.Embedder, fi FileInfo, src []byte, old symbolindex.FileState, known symbolindex.Known) prepared {
	parseEdit := func(src []byte) (*parse.ParsedFile, error) {
		pf, tree, err := w.parser.ParseEdit(context.Background(), fi.Path, d.tree, src)
		d.tree = tree
		return pf, err
	}
	r := prepareContent(parseEdit, emb, fi, src, old, known)
	if r.skip != nil {
		d.dropTree()
	}
	return r
}

func (w *Workspace) recordEdit(abs, key string, t time.Time) {
	if w.act.edits == nil {
		w.act.edits = make(map[snapshot.EditKey]time.Time)
	}
	w.act.edits[snapshot.EditKey{Abs: abs, Key: key}] = t
	if len(w.act.edits) <= maxEdits {
		return
	}
	type kv struct {
		k snapshot.EditKey
		t time.Time
	}
	all := make([]kv, 0, len(w.act.edits))
	for k, t := range w.act.edits {
		all = append(all, kv{k, t})
	}
	sort.Slice(all, func(i, j int) bool { return all[i].t.Before(all[j].t) })
	for _, e := range all[:len(all)-maxEdits] {
		delete(w.act.edits, e.k)
	}
}
