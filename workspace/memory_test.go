//go:build unix

package workspace

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ctxls/ctxls/symbolindex/cachefile"
)

// memWorkspace is a workspace of a fresh folder keeping its notes in
// cache, with the warnings it gives.
type memWorkspace struct {
	*Workspace
	root, cache string

	mu       sync.Mutex
	warnings []string
}

func (m *memWorkspace) warned() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return strings.Join(m.warnings, "\n")
}

func openMemory(t *testing.T, root, cache string) *memWorkspace {
	t.Helper()
	cfg := DefaultConfig()
	cfg.CacheDir = cache
	m := &memWorkspace{root: root, cache: cache}
	ws, err := New(cfg, Options{Warn: func(msg string) {
		m.mu.Lock()
		m.warnings = append(m.warnings, msg)
		m.mu.Unlock()
	}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ws.AddFolder(root); err != nil {
		t.Fatal(err)
	}
	m.Workspace = ws
	return m
}

// memoryFolder is a folder with the selApp files, symlinks resolved.
func memoryFolder(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	selWriteTree(t, root, selApp)
	root, err := filepath.EvalSymlinks(root)
	if err != nil {
		t.Fatal(err)
	}
	return root
}

func noteTexts(notes []Note) map[string]bool {
	out := map[string]bool{}
	for _, n := range notes {
		out[n.Text] = true
	}
	return out
}

// fileNotes are the notes the memory file holds, read with no workspace.
func fileNotes(t *testing.T, file string) []Note {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var notes []Note
	if err := json.Unmarshal(b, &notes); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	return notes
}

// Two workspaces on one cache (two servers, or a server and the CLI) each
// keep a stale copy of the notes; every write merges into what the file
// holds now, and each sees the other's notes.
func TestMemoryWritersMerge(t *testing.T) {
	root, cache := memoryFolder(t), t.TempDir()
	a, b := openMemory(t, root, cache), openMemory(t, root, cache)
	remember := func(m *memWorkspace, text string) Note {
		t.Helper()
		n, err := m.Remember(NoteRequest{Text: text})
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	first := remember(a, "first, by a")
	remember(b, "second, by b")
	remember(a, "third, by a")
	want := []string{"first, by a", "second, by b", "third, by a"}
	for _, m := range []*memWorkspace{a, b} {
		got := noteTexts(m.Memories())
		for _, w := range want {
			if !got[w] {
				t.Errorf("a workspace lists %v, missing %q", got, w)
			}
		}
	}
	// b forgets a's note; a, which read it before, keeps it forgotten
	// when it writes next.
	if ok, err := b.Forget(first.ID); !ok || err != nil {
		t.Fatalf("b.Forget(a's note): %v %v", ok, err)
	}
	remember(a, "fourth, by a")
	got := noteTexts(fileNotes(t, memoryFile(cache, root)))
	if got["first, by a"] || !got["second, by b"] || !got["third, by a"] || !got["fourth, by a"] || len(got) != 3 {
		t.Errorf("the file holds %v; want the second, third and fourth notes", got)
	}
	// A note another writer added is forgotten by one that never read it.
	late := remember(b, "fifth, by b")
	if ok, err := a.Forget(late.ID); !ok || err != nil {
		t.Errorf("a.Forget(b's new note): %v %v", ok, err)
	}
	if noteTexts(b.Memories())["fifth, by b"] {
		t.Errorf("b still lists the note a forgot")
	}
}

// Writers of one process and of several workspaces at once lose no note.
func TestMemoryConcurrentWritersLoseNothing(t *testing.T) {
	root, cache := memoryFolder(t), t.TempDir()
	const writers, each = 5, 20
	var wg sync.WaitGroup
	errs := make(chan error, writers*each)
	for w := range writers {
		m := openMemory(t, root, cache)
		wg.Go(func() {
			for i := range each {
				if _, err := m.Remember(NoteRequest{Text: fmt.Sprintf("note %d of writer %d", i, w)}); err != nil {
					errs <- err
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	notes := fileNotes(t, memoryFile(cache, root))
	if got := noteTexts(notes); len(got) != writers*each || len(notes) != writers*each {
		t.Errorf("%d writers × %d notes: the file holds %d notes (%d distinct)", writers, each, len(notes), len(got))
	}
	if got := openMemory(t, root, cache).Memories(); len(got) != writers*each {
		t.Errorf("a new workspace lists %d notes, want %d", len(got), writers*each)
	}
}

// Each bound on a note is a ParamError naming the field and the bound;
// characters are code points, not bytes.
func TestNoteBounds(t *testing.T) {
	root, cache := memoryFolder(t), t.TempDir()
	m := openMemory(t, root, cache)
	tags := func(n, size int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = strings.Repeat("t", size)
		}
		return out
	}
	paths := make([]string, MaxNotePaths+1)
	for i := range paths {
		paths[i] = "go.mod"
	}
	for _, tc := range []struct {
		req          NoteRequest
		field, bound string
	}{
		{NoteRequest{Text: strings.Repeat("é", MaxNoteChars+1)}, "text", fmt.Sprintf("at most %d characters (MaxNoteChars), got %d", MaxNoteChars, MaxNoteChars+1)},
		{NoteRequest{Text: "x", Tags: tags(MaxNoteTags+1, 3)}, "tags", "MaxNoteTags"},
		{NoteRequest{Text: "x", Tags: tags(100_000, 1)}, "tags", "got 100000"},
		{NoteRequest{Text: "x", Tags: []string{"ok", strings.Repeat("ü", MaxTagChars+1)}}, "tags[1]", "MaxTagChars"},
		{NoteRequest{Text: "x", Paths: paths}, "paths", "MaxNotePaths"},
	} {
		_, err := m.Remember(tc.req)
		pe, ok := errors.AsType[*ParamError](err)
		if !ok || pe.Field != tc.field || !strings.Contains(pe.Msg, tc.bound) {
			t.Errorf("%.60v: got %v, want a ParamError on %s saying %q", tc.req, err, tc.field, tc.bound)
		}
	}
	// At the bounds, in multi-byte characters, a note is kept.
	n, err := m.Remember(NoteRequest{Text: strings.Repeat("é", MaxNoteChars), Tags: tags(MaxNoteTags, MaxTagChars)})
	if err != nil || len(n.Tags) != MaxNoteTags {
		t.Errorf("a note at every bound: %v", err)
	}
	if got := m.Memories(); len(got) != 1 {
		t.Errorf("%d notes kept, want the one at the bounds", len(got))
	}

	// A folder keeps at most MaxNotesPerFolder notes.
	full := make([]Note, MaxNotesPerFolder)
	for i := range full {
		full[i] = Note{ID: fmt.Sprintf("m%012x", i), Text: fmt.Sprintf("note %d", i), Root: root, Created: time.Now().UTC()}
	}
	b, _ := json.Marshal(full)
	if err := os.WriteFile(memoryFile(cache, root), b, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = m.Remember(NoteRequest{Text: "one too many"})
	if err == nil || !strings.Contains(err.Error(), "MaxNotesPerFolder") {
		t.Errorf("note %d: got %v, want an error naming MaxNotesPerFolder", MaxNotesPerFolder+1, err)
	}
	if got := len(fileNotes(t, memoryFile(cache, root))); got != MaxNotesPerFolder {
		t.Errorf("the refused note changed the file: %d notes", got)
	}
}

// A memory file that is a FIFO, a symlink or a directory is refused with
// a warning naming it: listing does not hang, its notes are not served,
// and a write is an error that changes nothing behind the link.
func TestMemoryFileNotRegular(t *testing.T) {
	root := memoryFolder(t)
	elsewhere := filepath.Join(t.TempDir(), "notes.json")
	theirs := `[{"id":"m000000000001","text":"a note from elsewhere","root":"/x","created":"2026-01-01T00:00:00Z"}]`
	if err := os.WriteFile(elsewhere, []byte(theirs), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, what string
		make       func(path string) error
	}{
		{"fifo", "a named pipe (FIFO)", func(p string) error { return syscall.Mkfifo(p, 0o644) }},
		{"symlink", "a symlink", func(p string) error { return os.Symlink(elsewhere, p) }},
		{"directory", "a directory", func(p string) error { return os.Mkdir(p, 0o755) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cache := t.TempDir()
			file := memoryFile(cache, root)
			if err := tc.make(file); err != nil {
				t.Fatal(err)
			}
			done := make(chan *memWorkspace, 1)
			go func() {
				m := openMemory(t, root, cache)
				m.Memories()
				done <- m
			}()
			var m *memWorkspace
			select {
			case m = <-done:
			case <-time.After(20 * time.Second):
				t.Fatalf("opening the workspace and listing its notes with %s at the memory file hangs", tc.what)
			}
			if got := m.Memories(); len(got) != 0 {
				t.Errorf("notes served from %s: %+v", tc.what, got)
			}
			if w := m.warned(); !strings.Contains(w, file) || !strings.Contains(w, tc.what) {
				t.Errorf("warnings %q, want one naming %s and saying it is %s", w, file, tc.what)
			}
			_, err := m.Remember(NoteRequest{Text: "not to be written through"})
			if err == nil || !strings.Contains(err.Error(), file) || !strings.Contains(err.Error(), tc.what) {
				t.Errorf("Remember: got %v, want an error naming %s as %s", err, file, tc.what)
			}
			if b, _ := os.ReadFile(elsewhere); string(b) != theirs {
				t.Errorf("the file behind the link changed: %s", b)
			}
		})
	}
	// A lock file that is a symlink is not followed either.
	cache := t.TempDir()
	target := filepath.Join(t.TempDir(), "target")
	if err := os.Symlink(target, memoryLockFile(memoryFile(cache, root))); err != nil {
		t.Fatal(err)
	}
	m := openMemory(t, root, cache)
	if _, err := m.Remember(NoteRequest{Text: "x"}); err == nil || !strings.Contains(err.Error(), "symlink") {
		t.Errorf("Remember with a symlinked lock file: got %v, want an error naming the symlink", err)
	}
	if _, err := os.Lstat(target); err == nil {
		t.Errorf("the lock file's symlink was followed: %s was created", target)
	}
}

// Temp files of writers that died are swept, at the next start and the
// next write; a live writer's is not.
func TestMemoryTempSweep(t *testing.T) {
	root, cache := memoryFolder(t), t.TempDir()
	file := memoryFile(cache, root)
	prefix := cachefile.MemoryTempPrefix(file)
	write := func(name string, age time.Duration) string {
		p := filepath.Join(cache, name)
		if err := os.WriteFile(p, []byte(`[`), 0o644); err != nil {
			t.Fatal(err)
		}
		if age > 0 {
			old := time.Now().Add(-age)
			os.Chtimes(p, old, old)
		}
		return p
	}
	// A live process other than this one: the test's parent.
	live := os.Getppid()
	dead := write(fmt.Sprintf("%s%d-1", prefix, deadPid(t)), 0)
	liveYoung := write(fmt.Sprintf("%s%d-2", prefix, live), 0)
	liveOld := write(fmt.Sprintf("%s%d-3", prefix, live), time.Hour)                                  // its pid was reused
	legacyOld := write(filepath.Base(file)+".123456789", time.Hour)                                   // an older version's
	legacyYoung := write(filepath.Base(file)+".987654321", 0)                                         // may still be written
	other := write(cachefile.MemoryTempPrefix(memoryFile(cache, "/another/folder"))+"1-1", time.Hour) // not this folder's

	m := openMemory(t, root, cache) // the start sweeps
	gone := func(p string) bool { _, err := os.Lstat(p); return errors.Is(err, os.ErrNotExist) }
	for _, p := range []string{dead, liveOld, legacyOld} {
		if !gone(p) {
			t.Errorf("at start, the stale temp file %s was not swept", filepath.Base(p))
		}
	}
	for _, p := range []string{liveYoung, legacyYoung} {
		if gone(p) {
			t.Errorf("at start, the temp file %s of a writer that may be live was swept", filepath.Base(p))
		}
	}
	// A write sweeps too, and its own temp file leaves no trace.
	dead2 := write(fmt.Sprintf("%s%d-4", prefix, deadPid(t)), 0)
	own := write(fmt.Sprintf("%s%d-5", prefix, os.Getpid()), 0) // this process, under the lock: stale
	if _, err := m.Remember(NoteRequest{Text: "sweeps"}); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{dead2, own} {
		if !gone(p) {
			t.Errorf("at a write, the stale temp file %s was not swept", filepath.Base(p))
		}
	}
	if gone(liveYoung) {
		t.Errorf("a write swept the temp file of a live writer")
	}
	if gone(other) {
		t.Errorf("a write swept another folder's file")
	}
	entries, _ := os.ReadDir(cache)
	for _, e := range entries {
		p := filepath.Join(cache, e.Name())
		if strings.HasPrefix(e.Name(), prefix) && p != liveYoung {
			t.Errorf("left behind: %s", e.Name())
		}
	}
}
