package workspace

import (
	"bytes"
	"context"
	"encoding/gob"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ctxls/ctxls/symbolindex"
	"github.com/ctxls/ctxls/symbolindex/embed"
	"github.com/ctxls/ctxls/workspace/testutil"
)

// cacheLog collects a workspace's log records, for counting warnings.
type cacheLog struct {
	testutil.SyncBuffer
}

// lines returns the records at level (e.g. "WARN"), or all of them for "".
func (l *cacheLog) lines(level string) []string {
	var out []string
	for _, line := range strings.Split(strings.TrimSpace(l.String()), "\n") {
		if line != "" && (level == "" || strings.Contains(line, "level="+level)) {
			out = append(out, line)
		}
	}
	return out
}

// cacheIndex opens a new workspace over root with cacheDir and indexes it,
// as a restart of the server or a new CLI run does.
func cacheIndex(t *testing.T, root, cacheDir string) (*Workspace, IndexStats, *cacheLog) {
	t.Helper()
	return cacheIndexHeld(t, root, cacheDir, nil)
}

// cacheIndexHeld is cacheIndex with Options.HoldGC set to hold.
func cacheIndexHeld(t *testing.T, root, cacheDir string, hold func() (release func())) (*Workspace, IndexStats, *cacheLog) {
	t.Helper()
	cfg := DefaultConfig()
	cfg.CacheDir = cacheDir
	log := &cacheLog{}
	ws, err := New(cfg, Options{Logger: slog.New(slog.NewTextHandler(log, &slog.HandlerOptions{Level: slog.LevelDebug})), HoldGC: hold})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ws.AddFolder(root); err != nil {
		t.Fatal(err)
	}
	stats, err := ws.Index(context.Background(), nil)
	if err != nil {
		t.Fatalf("index: %v (log: %s)", err, log)
	}
	return ws, stats[0], log
}

// cachedTree is cacheTree indexed cold into a cache dir of its own.
func cachedTree(t *testing.T) (root, dir string, files int) {
	t.Helper()
	root, files = cacheTree(t)
	dir = t.TempDir()
	if _, cold, _ := cacheIndex(t, root, dir); cold.Files != files {
		t.Fatalf("cold index: %d files, want %d", cold.Files, files)
	}
	return root, dir, files
}

// cacheTree writes selApp and the clones into a new directory.
func cacheTree(t *testing.T) (root string, files int) {
	t.Helper()
	root = t.TempDir()
	selWriteTree(t, root, selApp+selClones())
	return root, selAppFiles + selNumClones
}

// cacheDirFiles lists the names in dir.
func cacheDirFiles(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names
}

func TestCacheRestartReusesEverything(t *testing.T) {
	root, files := cacheTree(t)
	dir := t.TempDir()
	ws1, cold, _ := cacheIndex(t, root, dir)
	if cold.Files != files || cold.Parsed != files || cold.Reused != 0 {
		t.Fatalf("cold index: files %d, parsed %d, reused %d; want %d parsed", cold.Files, cold.Parsed, cold.Reused, files)
	}
	if filepath.Dir(cold.Cache) != dir {
		t.Errorf("cache file %s is not in the cache dir %s", cold.Cache, dir)
	}
	ws2, warm, log := cacheIndex(t, root, dir)
	if warm.Files != files || warm.Reused != files || warm.Parsed != 0 || warm.Symbols != cold.Symbols {
		t.Errorf("restart: files %d, symbols %d, parsed %d, reused %d; want all %d reused", warm.Files, warm.Symbols, warm.Parsed, warm.Reused, files)
	}
	if warm.MerkleRoot != cold.MerkleRoot {
		t.Errorf("restart: Merkle root %s, cold build %s", warm.MerkleRoot, cold.MerkleRoot)
	}
	if w := log.lines("WARN"); len(w) > 0 {
		t.Errorf("warnings on a clean restart: %q", w)
	}
	// A restart answers exactly as the cold build did, ties included.
	for _, q := range []string{"retry delay doubles after a failed attempt", "parseConfig rejects unknown keys", "format amount"} {
		a := selDo(t, ws1, &SelectRequest{Query: q})
		b := selDo(t, ws2, &SelectRequest{Query: q})
		if !slices.Equal(selIDs(a), selIDs(b)) {
			t.Errorf("%q: the restart answers differently:\ncold %q\nwarm %q", q, selIDs(a), selIDs(b))
		}
	}
}

// A restart drops the files deleted since the cache was written, also
// when as many files were added (the count alone does not tell), and
// ends with the tree a cold build of the same files has.
func TestCacheRestartDropsDeletedFiles(t *testing.T) {
	root, dir, files := cachedTree(t)
	var paths []string
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".go") {
			paths = append(paths, p)
		}
		return nil
	})
	if len(paths) < 2 {
		t.Fatalf("the tree has %d Go files", len(paths))
	}
	if err := os.Remove(paths[0]); err != nil {
		t.Fatal(err)
	}
	_, warm, _ := cacheIndex(t, root, dir)
	_, want, _ := cacheIndex(t, root, CacheDirOff)
	if warm.Files != files-1 || warm.Reused != files-1 || warm.Parsed != 0 || warm.MerkleRoot != want.MerkleRoot {
		t.Errorf("restart after a delete: files %d, reused %d, parsed %d, root %s; want %d files reused, root %s",
			warm.Files, warm.Reused, warm.Parsed, warm.MerkleRoot, files-1, want.MerkleRoot)
	}

	// One more deleted and one added: the same count as the cache's.
	if err := os.Remove(paths[1]); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "added.go"), []byte("package added\n\nfunc Added() int { return 1 }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, warm, _ = cacheIndex(t, root, dir)
	_, want, _ = cacheIndex(t, root, CacheDirOff)
	if warm.Files != files-1 || warm.Parsed != 1 || warm.Symbols != want.Symbols || warm.MerkleRoot != want.MerkleRoot {
		t.Errorf("restart after a delete and an add: files %d, parsed %d, symbols %d, root %s; want %d files, 1 parsed, %d symbols, root %s",
			warm.Files, warm.Parsed, warm.Symbols, warm.MerkleRoot, files-1, want.Symbols, want.MerkleRoot)
	}

	// Nothing deleted, one added: every cached file is found again, so the
	// restart takes the shortcut that lists no deleted paths (found ==
	// idx.Files()); it must still keep them all and add the new one.
	if err := os.WriteFile(filepath.Join(root, "added2.go"), []byte("package added\n\nfunc Added2() int { return 2 }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, warm, _ = cacheIndex(t, root, dir)
	_, want, _ = cacheIndex(t, root, CacheDirOff)
	if warm.Files != files || warm.Reused != files-1 || warm.Parsed != 1 || warm.MerkleRoot != want.MerkleRoot {
		t.Errorf("restart after an add: files %d, reused %d, parsed %d, root %s; want %d files, %d reused, 1 parsed, root %s",
			warm.Files, warm.Reused, warm.Parsed, warm.MerkleRoot, files, files-1, want.MerkleRoot)
	}
}

// A cold build with a cache dir streams the index into the cache file a
// segment at a time and serves the file: it must hold and answer what a
// build in memory (no cache dir) does, ties included.
func TestStreamedBuildAnswersAsInMemory(t *testing.T) {
	root, files := cacheTree(t)
	streamed, st, log := cacheIndex(t, root, t.TempDir())
	inMem, want, _ := cacheIndex(t, root, CacheDirOff)
	if w := log.lines("WARN"); len(w) > 0 {
		t.Fatalf("warnings on a streamed build: %q", w)
	}
	if !slices.ContainsFunc(log.lines("DEBUG"), func(l string) bool { return strings.Contains(l, "index streamed into its cache file") }) {
		t.Errorf("the cold build with a cache dir was not streamed: %q", log.lines(""))
	}
	if f := streamed.folders[0]; !f.idx.Mapped() || f.idx.Reembedded != want.Symbols {
		t.Errorf("streamed build serves a mapped index %v with %d symbols embedded, want mapped with %d", f.idx.Mapped(), f.idx.Reembedded, want.Symbols)
	}
	if st.Files != files || st.Parsed != files || st.Symbols != want.Symbols || st.MerkleRoot != want.MerkleRoot {
		t.Errorf("streamed build: %d files (%d parsed), %d symbols, root %s; in memory: %d files, %d symbols, root %s",
			st.Files, st.Parsed, st.Symbols, st.MerkleRoot, want.Files, want.Symbols, want.MerkleRoot)
	}
	for _, q := range []string{"retry delay doubles after a failed attempt", "parseConfig rejects unknown keys", "format amount"} {
		a := selDo(t, streamed, &SelectRequest{Query: q})
		b := selDo(t, inMem, &SelectRequest{Query: q})
		if !slices.Equal(selIDs(a), selIDs(b)) {
			t.Errorf("%q: the streamed build answers differently:\nstreamed  %q\nin memory %q", q, selIDs(a), selIDs(b))
		}
	}
}

func TestCacheReparsesOnlyChangedFiles(t *testing.T) {
	root, files := t.TempDir(), selAppFiles
	selWriteTree(t, root, selApp)
	dir := t.TempDir()
	_, cold, _ := cacheIndex(t, root, dir)

	// New modification time, same content: nothing to parse.
	later := time.Now().Add(time.Minute)
	if err := os.Chtimes(filepath.Join(root, "lsp", "server.go"), later, later); err != nil {
		t.Fatal(err)
	}
	_, touched, _ := cacheIndex(t, root, dir)
	if touched.Parsed != 0 || touched.Reused != files-1 || touched.MerkleRoot != cold.MerkleRoot {
		t.Errorf("after touching one file: parsed %d, reused %d, root %s; want 0 parsed, %d reused, root %s",
			touched.Parsed, touched.Reused, touched.MerkleRoot, files-1, cold.MerkleRoot)
	}
	_, again, _ := cacheIndex(t, root, dir)
	if again.Reused != files {
		t.Errorf("after the touch was saved: reused %d, want %d", again.Reused, files)
	}

	// New content: only that file is parsed.
	path := filepath.Join(root, "billing", "format.go")
	src, _ := os.ReadFile(path)
	if err := os.WriteFile(path, bytes.Replace(src, []byte("cents/100"), []byte("cents / 100"), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, later.Add(time.Minute), later.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	ws, edited, _ := cacheIndex(t, root, dir)
	if edited.Parsed != 1 || edited.Reused != files-1 || edited.Files != files {
		t.Errorf("after editing one file: parsed %d, reused %d, files %d; want 1, %d, %d", edited.Parsed, edited.Reused, edited.Files, files-1, files)
	}
	if edited.MerkleRoot == cold.MerkleRoot {
		t.Error("the Merkle root did not change with the file's content")
	}
	if n := selDo(t, ws, &SelectRequest{Query: "formatAmount"}).Stats.Reembedded; n != 1 {
		t.Errorf("%d symbols re-embedded for an edit of one function, want 1", n)
	}
	it := docItem(t, ws, "formatAmount renders cents as a price", "sym:billing/format.go::formatAmount")
	if !strings.Contains(it.Text, "cents / 100") {
		t.Errorf("formatAmount text not refreshed: %q", it.Text)
	}
}

func TestCacheCorruptIsRebuilt(t *testing.T) {
	for _, c := range []struct {
		name    string
		corrupt func(t *testing.T, path string)
	}{
		{"truncated", func(t *testing.T, path string) {
			fi, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.Truncate(path, fi.Size()/2); err != nil {
				t.Fatal(err)
			}
		}},
		{"garbage", func(t *testing.T, path string) {
			junk := bytes.Repeat([]byte("\xff\x00garbage\x7f"), 5000)
			if err := os.WriteFile(path, junk, 0o644); err != nil {
				t.Fatal(err)
			}
		}},
		{"empty", func(t *testing.T, path string) {
			if err := os.WriteFile(path, nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}},
		{"flipped bytes", func(t *testing.T, path string) {
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			// In the segment's head (its strings, after its section
			// table), which the load checks; a damaged body is found
			// by the first read of it (TestCacheDamagedBodyIsRebuilt).
			for i := 4096 + 512; i < 4096+512+64; i++ {
				b[i] ^= 0xa5
			}
			if err := os.WriteFile(path, b, 0o644); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			selWriteTree(t, root, selApp)
			dir := t.TempDir()
			_, cold, _ := cacheIndex(t, root, dir)
			c.corrupt(t, cold.Cache)
			ws, st, log := cacheIndex(t, root, dir)
			if st.Files != selAppFiles || st.Symbols != cold.Symbols || st.MerkleRoot != cold.MerkleRoot {
				t.Errorf("rebuilt index: files %d, symbols %d, root %s; want %d, %d, %s",
					st.Files, st.Symbols, st.MerkleRoot, selAppFiles, cold.Symbols, cold.MerkleRoot)
			}
			if st.Reused == selAppFiles {
				t.Error("a corrupt cache was trusted")
			}
			if w := log.lines("WARN"); len(w) != 1 || !strings.Contains(w[0], "cache") {
				t.Errorf("want one warning about the cache, got %q", w)
			}
			selFirst(t, selDo(t, ws, &SelectRequest{Query: "parseConfig"}), "sym:internal/config/config.go::parseConfig")
			// The rebuilt cache is sound again.
			_, next, _ := cacheIndex(t, root, dir)
			if next.Reused != selAppFiles {
				t.Errorf("after the rebuild: reused %d, want %d", next.Reused, selAppFiles)
			}
		})
	}
}

// A byte damaged in a segment's body (vectors, postings, text) is not
// read by a restart, which reads only the segments' heads; the first
// select that reads it finds the damage, answers nothing from that
// segment, logs one warning naming the cache file, and the folder is
// rebuilt from its files in the background, cache included.
func TestCacheDamagedBodyIsRebuilt(t *testing.T) {
	root := t.TempDir()
	selWriteTree(t, root, selApp)
	dir := t.TempDir()
	ws, cold, _ := cacheIndex(t, root, dir)
	req := &SelectRequest{Query: "parseConfig"}
	want := selIDs(selDo(t, ws, req))
	selFirst(t, selDo(t, ws, req), "sym:internal/config/config.go::parseConfig")

	damageBodies(t, cold.Cache)

	ws, st, log := cacheIndex(t, root, dir)
	if st.Reused != selAppFiles || st.MerkleRoot != cold.MerkleRoot {
		t.Errorf("restart: reused %d, root %s; want %d from the cache, root %s", st.Reused, st.MerkleRoot, selAppFiles, cold.MerkleRoot)
	}
	if w := log.lines("WARN"); len(w) != 0 {
		t.Errorf("the restart read a segment body: %q", w)
	}
	// The first select reads the damaged bodies: nothing of them is
	// served, and nothing the index did not hold before.
	for _, id := range selIDs(selDo(t, ws, req)) {
		if !slices.Contains(want, id) {
			t.Errorf("select from a damaged cache returned %s, not among %q", id, want)
		}
	}
	// The rebuild, in the background, brings the answer back.
	deadline := time.Now().Add(2 * time.Minute)
	for !slices.Equal(selIDs(selDo(t, ws, req)), want) {
		if time.Now().After(deadline) {
			t.Fatalf("no rebuild after a damaged segment: select %q, want %q (log: %s)", selIDs(selDo(t, ws, req)), want, log)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if w := log.lines("WARN"); len(w) != 1 || !strings.Contains(w[0], cold.Cache) || !strings.Contains(w[0], "damaged") {
		t.Errorf("want one warning naming the cache file %s, got %q", cold.Cache, w)
	}
	// The rebuilt cache is sound: the next restart reads it whole.
	ws, next, log := cacheIndex(t, root, dir)
	if next.Reused != selAppFiles || next.MerkleRoot != cold.MerkleRoot {
		t.Errorf("after the rebuild: reused %d, root %s; want %d, %s", next.Reused, next.MerkleRoot, selAppFiles, cold.MerkleRoot)
	}
	if got := selIDs(selDo(t, ws, req)); !slices.Equal(got, want) {
		t.Errorf("after the rebuild: select %q, want %q", got, want)
	}
	if w := log.lines("WARN"); len(w) != 0 {
		t.Errorf("the rebuilt cache is damaged: %q", w)
	}
}

// damageBodies flips one byte in the middle of each segment body of the
// cache file.
func damageBodies(t *testing.T, cache string) {
	t.Helper()
	bodies, err := symbolindex.BodyRanges(cache)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(cache)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range bodies {
		b[(r[0]+r[1])/2] ^= 0x5a
	}
	if err := os.WriteFile(cache, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestCacheRebuildKeepsUnsavedEdits: the rebuild after a damaged segment
// starts from the files alone; a document open with unsaved text is put
// back when it is installed, so the editor's edit is not lost with the
// cache.
func TestCacheRebuildKeepsUnsavedEdits(t *testing.T) {
	root := t.TempDir()
	selWriteTree(t, root, selApp)
	dir := t.TempDir()
	_, cold, _ := cacheIndex(t, root, dir)
	req := &SelectRequest{Query: "parseConfig"}

	damageBodies(t, cold.Cache)

	ws, _, log := cacheIndex(t, root, dir)
	if strings.Contains(log.String(), "index streamed into its cache file") {
		t.Fatalf("the restart wrote its cache; the test cannot see the rebuild's write (log: %s)", log)
	}
	path := filepath.Join(root, "internal/config/config.go")
	disk, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	unsaved := string(disk) + "\n// reloadQuokkaSettings rereads the settings of the quokka enclosure.\nfunc reloadQuokkaSettings() error { return nil }\n"
	if err := ws.DidOpen(path, 1, unsaved); err != nil {
		t.Fatal(err)
	}
	edited := &SelectRequest{Query: "reload quokka enclosure settings"}
	selFirst(t, selDo(t, ws, edited), "sym:internal/config/config.go::reloadQuokkaSettings")
	// The first select reads the damaged bodies and starts the rebuild,
	// which ends writing a new cache.
	selDo(t, ws, req)
	deadline := time.Now().Add(2 * time.Minute)
	for !strings.Contains(log.String(), "damaged") || !strings.Contains(log.String(), "index streamed into its cache file") {
		if time.Now().After(deadline) {
			t.Fatalf("no rebuild after a damaged segment (log: %s)", log)
		}
		time.Sleep(20 * time.Millisecond)
	}
	deadline = time.Now().Add(10 * time.Second)
	for {
		ids := selIDs(selDo(t, ws, edited))
		if len(ids) > 0 && ids[0] == "sym:internal/config/config.go::reloadQuokkaSettings" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after the rebuild the unsaved reloadQuokkaSettings is gone: %q (log: %s)", ids, log)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestCacheIncompatibleIsRebuilt(t *testing.T) {
	for _, c := range []struct {
		name  string
		write func(t *testing.T, path string)
	}{
		{"other embedder", func(t *testing.T, path string) {
			ix := symbolindex.NewIndex(embed.NewHashEmbedder(128))
			if err := ix.Save(path); err != nil {
				t.Fatal(err)
			}
		}},
		{"other version", func(t *testing.T, path string) {
			// The header of a cache written by a future ctxls.
			var b bytes.Buffer
			hdr := struct {
				Magic    string
				Version  int
				Embedder string
				Dim      int
			}{"ctxls-index", 999, "hash-384", 384}
			if err := gob.NewEncoder(&b).Encode(hdr); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			selWriteTree(t, root, selApp)
			dir := t.TempDir()
			_, cold, _ := cacheIndex(t, root, dir)
			c.write(t, cold.Cache)
			_, st, log := cacheIndex(t, root, dir)
			if st.Parsed != selAppFiles || st.Reused != 0 || st.MerkleRoot != cold.MerkleRoot {
				t.Errorf("parsed %d, reused %d, root %s; want a full rebuild to root %s", st.Parsed, st.Reused, st.MerkleRoot, cold.MerkleRoot)
			}
			n := 0
			for _, l := range log.lines("") {
				if strings.Contains(l, "rebuild") {
					n++
				}
			}
			if n != 1 {
				t.Errorf("want the rebuild logged once, got log %q", log.lines(""))
			}
			_, next, _ := cacheIndex(t, root, dir)
			if next.Reused != selAppFiles {
				t.Errorf("after the rebuild: reused %d, want %d", next.Reused, selAppFiles)
			}
		})
	}
}

func TestCacheOffWritesNothing(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CACHE_HOME", filepath.Join(home, ".cache"))
	root := t.TempDir()
	selWriteTree(t, root, selApp)

	ws, st, _ := cacheIndex(t, root, CacheDirOff)
	if st.Cache != CacheDirOff {
		t.Errorf("stats.cache %q, want off", st.Cache)
	}
	uri := selPath(root, "lsp/server.go")
	if err := ws.DidOpen(uri, 1, "package lsp\n\nfunc Edited() {}\n"); err != nil {
		t.Fatal(err)
	}
	if err := ws.DidClose(uri); err != nil {
		t.Fatal(err)
	}
	if _, err := ws.Index(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	if names := cacheDirFiles(t, home); len(names) != 0 {
		t.Errorf("cacheDir off wrote %q under $HOME", names)
	}
	if names := cacheDirFiles(t, root); len(names) != 9 {
		t.Errorf("cacheDir off wrote into the workspace: %q", names)
	}

	// The default, "", is the user cache dir: the check above can fail.
	_, st, _ = cacheIndex(t, root, "")
	if want := filepath.Join(home, ".cache", "ctxls"); filepath.Dir(st.Cache) != want {
		t.Errorf("default cache %s, want it under %s", st.Cache, want)
	}
	if names := cacheDirFiles(t, filepath.Join(home, ".cache", "ctxls")); len(names) != 1 {
		t.Errorf("default cache dir holds %q, want one index", names)
	}
}

func TestCacheWriteIsAtomic(t *testing.T) {
	root := t.TempDir()
	selWriteTree(t, root, selApp)
	dir := t.TempDir()
	_, st, _ := cacheIndex(t, root, dir)
	path := filepath.Join(root, "billing", "format.go")
	for i := range 3 {
		if err := os.WriteFile(path, []byte("package billing\n\nfunc formatAmount() string { return \""+strings.Repeat("x", i)+"\" }\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		cacheIndex(t, root, dir)
	}
	if names := cacheDirFiles(t, dir); !slices.Equal(names, []string{filepath.Base(st.Cache)}) {
		t.Errorf("cache dir holds %q, want only %s", names, filepath.Base(st.Cache))
	}

	// A cache that cannot be written (the cache file's name is taken by a
	// directory) leaves no temporary file and does not fail the index: the
	// folder runs without a cache, with a warning that says why.
	if err := os.Remove(st.Cache); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(st.Cache, "blocker"), 0o755); err != nil {
		t.Fatal(err)
	}
	ws, again, log := cacheIndex(t, root, dir)
	if again.Files != selAppFiles {
		t.Errorf("index with an unwritable cache: %d files", again.Files)
	}
	if w := log.lines("WARN"); len(w) != 1 || !strings.Contains(w[0], "is a directory; running without a cache") {
		t.Errorf("want one warning that the cache path is a directory, got %q", w)
	}
	if again.Cache != "off" {
		t.Errorf("stats name the cache %q, want off", again.Cache)
	}
	if names := cacheDirFiles(t, dir); !slices.Equal(names, []string{filepath.Base(st.Cache)}) {
		t.Errorf("a failed write left %q", names)
	}
	selFirst(t, selDo(t, ws, &SelectRequest{Query: "parseConfig"}), "sym:internal/config/config.go::parseConfig")
}

// Once enough files changed after a restart from the cache, the overlay is
// merged in the background: the index is saved and the saved segments are
// served in its place, with the same content and answers.
func TestCacheOverlayMergesInBackground(t *testing.T) {
	defer func(n int) { mergeOverlayAt = n }(mergeOverlayAt)
	mergeOverlayAt = 3
	root := t.TempDir()
	selWriteTree(t, root, selApp)
	dir := t.TempDir()
	cacheIndex(t, root, dir)
	ws, _, log := cacheIndex(t, root, dir)
	f := ws.folders[0]
	f.mu.RLock()
	loaded := f.idx
	f.mu.RUnlock()

	// The same edits in a workspace without a cache, which never merges.
	plain, _, _ := cacheIndex(t, root, CacheDirOff)
	files := []string{"billing/format.go", "lsp/server.go", "internal/config/config.go"}
	open := func(ws *Workspace, i int) {
		text := fmt.Sprintf("package x\n\n// MergedFunc%d settles the ledger of the overlay.\nfunc MergedFunc%d() int { return %d }\n", i, i, i)
		if err := ws.DidOpen(selPath(root, files[i]), 1, text); err != nil {
			t.Fatal(err)
		}
	}
	for i := range files {
		open(plain, i)
	}
	for i := range 2 {
		open(ws, i)
	}
	// Many edits of one file count as one changed file.
	for v := range 5 {
		if err := ws.DidChange(selPath(root, files[0]), int32(2+v), func(text []byte) ([]byte, error) {
			return append(text, fmt.Sprintf("\n// edit %d\n", v)...), nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	f.mu.RLock()
	if f.idx != loaded || f.merging.Load() {
		t.Fatal("a merge started below the threshold (two files changed, one of them six times)")
	}
	f.mu.RUnlock()
	open(ws, 2)
	deadline := time.Now().Add(30 * time.Second)
	for {
		f.mu.RLock()
		done := f.idx != loaded && f.idx.Overlay() == 0 && !f.merging.Load()
		f.mu.RUnlock()
		if done {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the overlay was not merged (log: %q)", log.lines(""))
		}
		time.Sleep(10 * time.Millisecond)
	}
	for _, q := range []string{"settles the ledger of the overlay", "parseConfig rejects unknown keys", "retry delay doubles after a failed attempt"} {
		got := selIDs(selDo(t, ws, &SelectRequest{Query: q}))
		want := selIDs(selDo(t, plain, &SelectRequest{Query: q}))
		if !slices.Equal(got, want) {
			t.Errorf("%q after the merge:\n got %q\nwant %q", q, got, want)
		}
	}
	if w := log.lines("WARN"); len(w) > 0 {
		t.Errorf("warnings: %q", w)
	}
	// A restart reads the merged segments: they hold the open documents'
	// texts, so the three files on disk (unchanged) are parsed again and
	// the rest reused. Without the merge all would be reused.
	_, st, _ := cacheIndex(t, root, dir)
	if st.Parsed != len(files) || st.Reused != selAppFiles-len(files) {
		t.Errorf("restart after the merge: reused %d, parsed %d of %d", st.Reused, st.Parsed, selAppFiles)
	}
}

// A restart takes a file whose size, modification time and inode number
// match its record in the cache as it is, without reading it; a file
// replaced by another (an editor's save by rename) with the same size and
// time has another inode, and is read again.
func TestCacheStatCheckHasInode(t *testing.T) {
	root := t.TempDir()
	selWriteTree(t, root, selApp)
	dir := t.TempDir()
	_, cold, _ := cacheIndex(t, root, dir)
	path := filepath.Join(root, "internal", "config", "config.go")
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// The same bytes count, one identifier renamed, written beside it and
	// renamed over it with the old time: only the inode tells.
	renamed := bytes.Replace(src, []byte("func parseConfig("), []byte("func parseConfiX("), 1)
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, renamed, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(tmp, st.ModTime(), st.ModTime()); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
	ws, re, _ := cacheIndex(t, root, dir)
	if re.Parsed != 1 || re.Reused != selAppFiles-1 || re.MerkleRoot == cold.MerkleRoot {
		t.Errorf("after a same-size, same-time replacement: parsed %d, reused %d (root changed: %v); want 1, %d, changed",
			re.Parsed, re.Reused, re.MerkleRoot != cold.MerkleRoot, selAppFiles-1)
	}
	selFirst(t, selDo(t, ws, &SelectRequest{Query: "parseConfiX"}), "sym:internal/config/config.go::parseConfiX")
	// Saved with its inode: the next restart reads nothing again.
	_, again, _ := cacheIndex(t, root, dir)
	if again.Parsed != 0 || again.Reused != selAppFiles {
		t.Errorf("next restart: parsed %d, reused %d; want 0, %d", again.Parsed, again.Reused, selAppFiles)
	}
}
