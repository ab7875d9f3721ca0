package workspace

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/cespare/xxhash/v2"

	"github.com/ctxls/ctxls/symbolindex/cachefile"
	"github.com/ctxls/ctxls/workspace/pipeline"
)

// Memory: notes the user or an agent asks ctxls to remember ("the billing
// tests need the fake clock"), kept per workspace folder in the cache
// directory and nowhere else, and offered to later requests as context
// items of kind "memory" (workspace/items, workspace/pipeline/pick.go), their weight halving every
// Config.MemoryHalfLife unless pinned. With cacheDir "off" notes last as
// long as the process.
//
// The memory file is shared: several servers, the CLI and any number of
// `ctxls remember` processes may write it at once. Every write (a note
// kept, a note forgotten) is a read-merge-write under an exclusive lock
// (flock on a lock file beside it): the writer re-reads the file under the
// lock, applies its one change to what it holds now, and replaces it
// atomically (a temp file renamed over it), so no writer ever writes back
// a stale copy and none loses another's note. Readers need no lock (a
// rename is atomic): a snapshot re-reads the file when its identity, size
// or time changed. The memory file and its lock are opened as the gate
// opens workspace files (cachefile.Open): a symlink, a FIFO or a device at
// their path is refused with a warning naming it, its notes are
// unavailable and writes fail; nothing blocks. A temp file a killed writer
// left is swept at the next start or write.

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

// Bounds on what a note may cost. Characters are Unicode code points.
const (
	// MaxNoteChars bounds a note's text: a note is a remark, not a
	// document.
	MaxNoteChars = 4000
	// MaxNoteTags bounds the tags of a note, MaxTagChars each tag.
	MaxNoteTags = 32
	MaxTagChars = 64
	// MaxNotePaths bounds the files a note is about.
	MaxNotePaths = 64
	// MaxNotesPerFolder bounds the notes a workspace folder keeps: every
	// note is scored for every request.
	MaxNotesPerFolder = 1000
	// MaxMemoryFileBytes bounds a memory file: a larger one is not read
	// (set aside as unreadable at the next write), and a note that would
	// make it larger is refused.
	MaxMemoryFileBytes = 32 << 20
)

// How long a writer waits for the memory lock before it gives up with an
// error (a writer holds it for one read and one write).
const memoryLockWait = 15 * time.Second

// folderMemory is what this process knows of one folder's notes: the
// notes of its memory file as last read, and the file's identity then.
type folderMemory struct {
	notes []Note
	file  string      // the memory file read; "" when notes live in memory only
	seen  fs.FileInfo // Lstat of file when read; nil when it was missing
}

// memoryFile is where the notes of the folder root are kept: beside its
// index in the cache directory, named by a hash of the folder's path.
func memoryFile(dir, root string) string { return folderCacheFile(dir, root, ".memory.json") }

// memoryLockFile is the lock of a memory file: a file beside it that is
// never replaced (flock locks an inode, and the memory file's is replaced
// by every write).
func memoryLockFile(file string) string { return file + ".lock" }

// loadMemoryLocked reads the notes of the folder root from the cache when
// the file changed since it was last read, and sweeps the temp files
// killed writers left. Caller holds w.mu.
func (w *Workspace) loadMemoryLocked(root string) {
	w.refreshMemoryLocked(root)
	if m := w.mem[root]; m.file != "" {
		cachefile.SweepMemoryTemps(m.file, false)
	}
}

// refreshMemoryLocked brings the notes of the folder root up to date with
// its memory file: re-read when the file is another one, or its size or
// time changed. A file that is not a regular file, or does not parse, is
// warned about and its notes are unavailable. Caller holds w.mu.
func (w *Workspace) refreshMemoryLocked(root string) {
	m := w.mem[root]
	if m == nil {
		m = &folderMemory{}
		w.mem[root] = m
	}
	dir, persist := w.cfg.ResolvedCacheDir()
	if !persist {
		if m.file != "" { // the cache was turned off: keep what was read
			m.file, m.seen = "", nil
		}
		return
	}
	file := memoryFile(dir, root)
	fi, err := os.Lstat(file)
	if err != nil {
		fi = nil
	}
	if file == m.file && sameStamp(m.seen, fi) {
		return
	}
	m.file, m.seen, m.notes = file, fi, nil
	if fi == nil {
		return
	}
	notes, err := readNoteFile(file, root)
	switch {
	case err == nil:
		m.notes = notes
	case errors.Is(err, cachefile.ErrNotRegular):
		w.warn(fmt.Sprintf("ctxls: the memory of %s is unavailable: %v", root, err))
	case errors.Is(err, errMemoryUnreadable):
		w.warn(fmt.Sprintf("ctxls: ignoring the unreadable memory of %s: %v; %s", root, err, setAside(file, false)))
		m.seen, _ = os.Lstat(file)
	default:
		w.warn(fmt.Sprintf("ctxls: cannot read the memory of %s: %v", root, err))
	}
}

// sameStamp reports whether two Lstats of one path show the same file,
// unchanged: both missing, or the same inode of the same size and time.
func sameStamp(a, b fs.FileInfo) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return os.SameFile(a, b) && a.Mode() == b.Mode() && a.Size() == b.Size() && a.ModTime().Equal(b.ModTime())
}

// errMemoryUnreadable is a memory file that is too large or not JSON.
var errMemoryUnreadable = errors.New("unreadable memory file")

// readNoteFile reads the memory file of the folder root (cachefile.Read).
// A missing file holds no notes.
func readNoteFile(file, root string) ([]Note, error) {
	b, _, err := cachefile.Read(file, MaxMemoryFileBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if errors.Is(err, cachefile.ErrTooLarge) {
		return nil, fmt.Errorf("%w: %v", errMemoryUnreadable, err)
	}
	if err != nil {
		return nil, err
	}
	var notes []Note
	if err := json.Unmarshal(b, &notes); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", errMemoryUnreadable, file, err)
	}
	for i := range notes {
		notes[i].Root = root
	}
	return notes, nil
}

// setAside renames an unreadable memory file to file.bad rather than let
// the next note replace it (its notes may be readable by another version,
// or by hand), under the memory lock: locked says the caller holds it;
// otherwise it is tried, and when another process holds it the file is
// left to the next writer. It says what became of the file.
func setAside(file string, locked bool) string {
	aside := file + ".bad"
	if !locked {
		lk, ok, err := lockMemory(file, 0)
		if err != nil || !ok {
			return "it will be kept as " + aside + " when the next note is written"
		}
		defer lk.Release()
		// Still the unreadable file? Another writer may have replaced it.
		if _, err := readNoteFile(file, ""); !errors.Is(err, errMemoryUnreadable) {
			return "it was replaced meanwhile"
		}
	}
	if err := os.Rename(file, aside); err != nil {
		return "could not set it aside: " + err.Error()
	}
	return "it is kept as " + aside
}

// lockMemory takes the exclusive lock of the memory file (its lock file,
// opened safely: a symlink or a special file at its path is an error),
// waiting at most wait for another holder to let go (0: not at all,
// reporting false).
func lockMemory(file string, wait time.Duration) (*cachefile.Lock, bool, error) {
	return cachefile.AcquireLock(memoryLockFile(file), wait)
}

// changeMemory applies change to the notes of the folder root as they are
// now, and keeps the result: in the memory file (read, changed and
// replaced under the memory lock) or, with the cache off, in memory. The
// notes passed to change are the caller's to modify.
func (w *Workspace) changeMemory(root string, change func([]Note) ([]Note, error)) error {
	w.memMu.Lock()
	defer w.memMu.Unlock()
	w.mu.Lock()
	dir, persist := w.cfg.ResolvedCacheDir()
	if !persist {
		defer w.mu.Unlock()
		w.refreshMemoryLocked(root)
		m := w.mem[root]
		notes, err := change(slices.Clone(m.notes))
		if err == nil {
			m.notes = notes
		}
		return err
	}
	w.mu.Unlock()

	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("memory: %w", err)
	}
	file := memoryFile(dir, root)
	lk, ok, err := lockMemory(file, memoryLockWait)
	switch {
	case err != nil:
		return fmt.Errorf("memory: not written: %w", err)
	case !ok:
		return fmt.Errorf("memory: not written: another process has held %s for over %v", memoryLockFile(file), memoryLockWait)
	}
	defer lk.Release()
	cachefile.SweepMemoryTemps(file, true)

	notes, err := readNoteFile(file, root)
	if errors.Is(err, errMemoryUnreadable) {
		w.mu.Lock()
		w.warn(fmt.Sprintf("ctxls: ignoring the unreadable memory of %s: %v; %s", root, err, setAside(file, true)))
		w.mu.Unlock()
		notes, err = nil, nil
	}
	if err != nil {
		return fmt.Errorf("memory: not written: %w", err)
	}
	notes, err = change(notes)
	if err != nil {
		return err
	}
	b, err := json.MarshalIndent(notes, "", "  ")
	if err != nil {
		return fmt.Errorf("memory: %w", err)
	}
	if len(b)+1 > MaxMemoryFileBytes {
		return fmt.Errorf("memory: not written: the memory file of %s would hold %d bytes, over MaxMemoryFileBytes (%d)", root, len(b)+1, MaxMemoryFileBytes)
	}
	fi, err := replaceFile(file, append(b, '\n'))
	if err != nil {
		return fmt.Errorf("memory: not written: %w", err)
	}
	w.mu.Lock()
	if m := w.mem[root]; m != nil {
		m.notes, m.file, m.seen = notes, file, fi
	}
	w.mu.Unlock()
	return nil
}

// replaceFile replaces file with data atomically: a temp file beside it,
// named for this process and locked (cachefile.CreateMemoryTemp), synced
// and renamed over it. It returns the stat of the file written (taken from
// its handle, so that a writer renaming another file over it just after is
// not mistaken for this one).
func replaceFile(file string, data []byte) (fs.FileInfo, error) {
	tmp, err := cachefile.CreateMemoryTemp(file)
	if err != nil {
		return nil, err
	}
	var fi fs.FileInfo
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Sync()
	}
	if err == nil {
		fi, err = tmp.Stat()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), file)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return nil, err
	}
	return fi, nil
}

// Remember keeps a note. Bad input is a *ParamError naming the field and
// the bound it is over.
func (w *Workspace) Remember(req NoteRequest) (Note, error) {
	text := strings.TrimSpace(req.Text)
	switch n := utf8.RuneCountInString(text); {
	case text == "":
		return Note{}, pipeline.ParamErr("text", "must not be empty")
	case n > MaxNoteChars:
		return Note{}, pipeline.ParamErr("text", "must be at most %d characters (MaxNoteChars), got %d", MaxNoteChars, n)
	case !utf8.ValidString(text):
		return Note{}, pipeline.ParamErr("text", "must be valid UTF-8")
	}
	if len(req.Tags) > MaxNoteTags {
		return Note{}, pipeline.ParamErr("tags", "at most %d tags (MaxNoteTags), got %d", MaxNoteTags, len(req.Tags))
	}
	for i, t := range req.Tags {
		field := fmt.Sprintf("tags[%d]", i)
		switch n := utf8.RuneCountInString(t); {
		case strings.TrimSpace(t) == "":
			return Note{}, pipeline.ParamErr(field, "must not be empty")
		case n > MaxTagChars:
			return Note{}, pipeline.ParamErr(field, "must be at most %d characters (MaxTagChars), got %d", MaxTagChars, n)
		}
	}
	if len(req.Paths) > MaxNotePaths {
		return Note{}, pipeline.ParamErr("paths", "at most %d paths (MaxNotePaths), got %d", MaxNotePaths, len(req.Paths))
	}
	w.mu.Lock()
	if len(w.folders) == 0 {
		w.mu.Unlock()
		return Note{}, errors.New("memory: no workspace folder")
	}
	n := Note{Text: text, Root: w.folders[0].Root, Tags: req.Tags, Pinned: req.Pinned, Created: w.opts.Now().UTC()}
	for i, ref := range req.Paths {
		f, rel, _, err := w.resolve(ref)
		field := fmt.Sprintf("paths[%d]", i)
		switch {
		case err != nil:
			w.mu.Unlock()
			return Note{}, pipeline.ParamErr(field, "%v", err)
		case i == 0:
			n.Root = f.Root
		case f.Root != n.Root:
			w.mu.Unlock()
			return Note{}, pipeline.ParamErr(field, "%s is in another workspace folder than paths[0]", ref)
		}
		if !slices.Contains(n.Paths, rel) {
			n.Paths = append(n.Paths, rel)
		}
	}
	w.mu.Unlock()
	err := w.changeMemory(n.Root, func(notes []Note) ([]Note, error) {
		if len(notes) >= MaxNotesPerFolder {
			return nil, fmt.Errorf("memory: %s keeps %d notes, the most a folder may (MaxNotesPerFolder); forget some first", n.Root, len(notes))
		}
		// The id is a hash of the note; another writer's note of the same
		// text at the same moment gets the next free one.
		seed := n.Root + "\x00" + n.Text + "\x00" + n.Created.String()
		for i := 0; ; i++ {
			s := seed
			if i > 0 {
				s += "\x00" + strconv.Itoa(i)
			}
			n.ID = fmt.Sprintf("m%012x", xxhash.Sum64String(s)>>16)
			if !slices.ContainsFunc(notes, func(o Note) bool { return o.ID == n.ID }) {
				break
			}
		}
		return append(notes, n), nil
	})
	if err != nil {
		return Note{}, err
	}
	return n, nil
}

// Forget drops the note with the given id from whichever folder's memory
// holds it now; it reports whether one did.
func (w *Workspace) Forget(id string) (bool, error) {
	if strings.TrimSpace(id) == "" {
		return false, pipeline.ParamErr("id", "must not be empty")
	}
	w.mu.Lock()
	roots := make([]string, 0, len(w.mem))
	for _, f := range w.folders {
		roots = append(roots, f.Root)
	}
	for root := range w.mem { // a removed folder's notes, read before
		if !slices.Contains(roots, root) {
			roots = append(roots, root)
		}
	}
	w.mu.Unlock()
	for _, root := range roots {
		found := false
		errNone := errors.New("no such note")
		err := w.changeMemory(root, func(notes []Note) ([]Note, error) {
			i := slices.IndexFunc(notes, func(n Note) bool { return n.ID == id })
			if i < 0 {
				return nil, errNone // nothing to write
			}
			found = true
			return slices.Delete(notes, i, i+1), nil
		})
		switch {
		case found && err == nil:
			return true, nil
		case err != nil && err != errNone:
			return false, err
		}
	}
	return false, nil
}

// Memories lists the notes of every folder as their memory files hold them
// now, oldest first.
func (w *Workspace) Memories() []Note {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.notesLocked()
}

// notesLocked is a copy of every folder's notes, oldest first, each
// folder's re-read when its memory file changed. Caller holds w.mu.
func (w *Workspace) notesLocked() []Note {
	var out []Note
	for _, f := range w.folders {
		w.refreshMemoryLocked(f.Root)
		out = append(out, w.mem[f.Root].notes...)
	}
	slices.SortStableFunc(out, func(a, b Note) int { return a.Created.Compare(b.Created) })
	return out
}
