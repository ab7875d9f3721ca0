package workspace

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/cespare/xxhash/v2"
)

// Memory: notes the user or an agent asks ctxls to remember ("the billing
// tests need the fake clock"), kept per workspace folder in the cache
// directory and nowhere else, and offered to later requests as context
// items of kind "memory" (items.go), their weight halving every
// Config.MemoryHalfLife unless pinned. With cacheDir "off" notes last as
// long as the process.

// Note is one remembered note.
type Note struct {
	ID   string `json:"id"` // "m" and 12 hex digits
	Text string `json:"text"`
	// Root is the workspace folder the note belongs to; Paths are files
	// of that folder it is about, relative to it.
	Root    string    `json:"root"`
	Paths   []string  `json:"paths,omitempty"`
	Tags    []string  `json:"tags,omitempty"`
	Pinned  bool      `json:"pinned,omitempty"` // never decays
	Created time.Time `json:"created"`
}

// NoteRequest is what Remember is asked to keep.
type NoteRequest struct {
	Text string
	// Paths are files the note is about (absolute, or relative to the
	// first folder), all in one workspace folder; the note belongs to
	// that folder, or to the first folder when there are none.
	Paths  []string
	Tags   []string
	Pinned bool
}

// MaxNoteChars bounds a note's text: a note is a remark, not a document.
const MaxNoteChars = 4000

// memoryFile is where the notes of the folder root are kept: beside its
// index in the cache directory, named by a hash of the folder's path.
func memoryFile(dir, root string) string { return folderCacheFile(dir, root, ".memory.json") }

// loadMemoryLocked reads the notes of the folder root from the cache, once.
// Caller holds w.mu.
func (w *Workspace) loadMemoryLocked(root string) {
	if _, ok := w.mem[root]; ok {
		return
	}
	w.mem[root] = nil
	dir, persist := w.cfg.ResolvedCacheDir()
	if !persist {
		return
	}
	file := memoryFile(dir, root)
	b, err := os.ReadFile(file)
	if errors.Is(err, os.ErrNotExist) {
		return
	}
	var notes []Note
	if err == nil {
		err = json.Unmarshal(b, &notes)
	}
	if err != nil {
		// Set the file aside rather than let the next note replace it: its
		// notes may be readable by another version, or by hand.
		aside := file + ".bad"
		if rerr := os.Rename(file, aside); rerr != nil {
			aside = "(could not set it aside: " + rerr.Error() + ")"
		}
		w.warn(fmt.Sprintf("ctxls: ignoring the unreadable memory of %s: %v; it is kept as %s", root, err, aside))
		return
	}
	for i := range notes {
		notes[i].Root = root
	}
	w.mem[root] = notes
}

// saveMemoryLocked writes the notes of the folder root to the cache,
// replacing the file whole. Caller holds w.mu.
func (w *Workspace) saveMemoryLocked(root string) error {
	dir, persist := w.cfg.ResolvedCacheDir()
	if !persist {
		return nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("memory: %w", err)
	}
	b, err := json.MarshalIndent(w.mem[root], "", "  ")
	if err != nil {
		return fmt.Errorf("memory: %w", err)
	}
	file := memoryFile(dir, root)
	tmp, err := os.CreateTemp(dir, filepath.Base(file)+".*")
	if err != nil {
		return fmt.Errorf("memory: %w", err)
	}
	_, err = tmp.Write(append(b, '\n'))
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), file)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("memory: %w", err)
	}
	return nil
}

// Remember keeps a note. Bad input is a *ParamError naming the field.
func (w *Workspace) Remember(req NoteRequest) (Note, error) {
	text := strings.TrimSpace(req.Text)
	switch {
	case text == "":
		return Note{}, paramErr("text", "must not be empty")
	case len(text) > MaxNoteChars:
		return Note{}, paramErr("text", "must be at most %d characters, got %d", MaxNoteChars, len(text))
	}
	for i, t := range req.Tags {
		if strings.TrimSpace(t) == "" {
			return Note{}, paramErr(fmt.Sprintf("tags[%d]", i), "must not be empty")
		}
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.folders) == 0 {
		return Note{}, errors.New("memory: no workspace folder")
	}
	n := Note{Text: text, Root: w.folders[0].Root, Tags: req.Tags, Pinned: req.Pinned, Created: w.opts.Now().UTC()}
	for i, ref := range req.Paths {
		f, rel, _, err := w.resolve(ref)
		field := fmt.Sprintf("paths[%d]", i)
		switch {
		case err != nil:
			return Note{}, paramErr(field, "%v", err)
		case i == 0:
			n.Root = f.Root
		case f.Root != n.Root:
			return Note{}, paramErr(field, "%s is in another workspace folder than paths[0]", ref)
		}
		if !slices.Contains(n.Paths, rel) {
			n.Paths = append(n.Paths, rel)
		}
	}
	n.ID = fmt.Sprintf("m%012x", xxhash.Sum64String(n.Root+"\x00"+n.Text+"\x00"+n.Created.String())>>16)
	w.loadMemoryLocked(n.Root)
	w.mem[n.Root] = append(w.mem[n.Root], n)
	if err := w.saveMemoryLocked(n.Root); err != nil {
		w.mem[n.Root] = w.mem[n.Root][:len(w.mem[n.Root])-1]
		return Note{}, err
	}
	return n, nil
}

// Forget drops the note with the given id; it reports whether there was
// one.
func (w *Workspace) Forget(id string) (bool, error) {
	if strings.TrimSpace(id) == "" {
		return false, paramErr("id", "must not be empty")
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	for root, notes := range w.mem {
		i := slices.IndexFunc(notes, func(n Note) bool { return n.ID == id })
		if i < 0 {
			continue
		}
		w.mem[root] = slices.Delete(slices.Clone(notes), i, i+1)
		if err := w.saveMemoryLocked(root); err != nil {
			w.mem[root] = notes
			return false, err
		}
		return true, nil
	}
	return false, nil
}

// Memories lists the notes of every folder, oldest first.
func (w *Workspace) Memories() []Note {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.notesLocked()
}

// notesLocked is a copy of every folder's notes, oldest first. Caller
// holds w.mu.
func (w *Workspace) notesLocked() []Note {
	var out []Note
	for _, f := range w.folders {
		out = append(out, w.mem[f.Root]...)
	}
	slices.SortStableFunc(out, func(a, b Note) int { return a.Created.Compare(b.Created) })
	return out
}
