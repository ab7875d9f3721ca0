package synth

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// readTree returns every file under dir by slash path.
func readTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		out[filepath.ToSlash(rel)] = string(b)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestGenerateWritesWhatItReports(t *testing.T) {
	dir := t.TempDir()
	st, err := Generate(dir, Options{Symbols: 1000})
	if err != nil {
		t.Fatal(err)
	}
	files := readTree(t, dir)
	if st.Files != 100 || len(files) != 100 || st.Symbols != 1000 {
		t.Fatalf("1000 symbols at 10 per file: stats %+v, %d files on disk; want 100 files, 1000 symbols", st, len(files))
	}
	var bytes int64
	exts := map[string]int{}
	dirs := map[string]int{}
	for p, text := range files {
		bytes += int64(len(text))
		exts[filepath.Ext(p)]++
		dirs[filepath.Dir(p)]++
	}
	if bytes != st.Bytes {
		t.Errorf("stats say %d bytes, the files hold %d", st.Bytes, bytes)
	}
	// Three of every five files are Go, one TypeScript, one Python.
	if exts[".go"] != 60 || exts[".ts"] != 20 || exts[".py"] != 20 {
		t.Errorf("file types %v, want 60 .go, 20 .ts, 20 .py", exts)
	}
	for d, n := range dirs {
		if n > 12 {
			t.Errorf("%s holds %d files, more than the default 12 per directory", d, n)
		}
		if strings.Count(d, "/") != 2 {
			t.Errorf("%s is not three levels deep", d)
		}
	}
}

func TestGenerateIsDeterministic(t *testing.T) {
	a, b, c := t.TempDir(), t.TempDir(), t.TempDir()
	for _, g := range []struct {
		dir  string
		seed int64
	}{{a, 7}, {b, 7}, {c, 8}} {
		if _, err := Generate(g.dir, Options{Symbols: 200, Seed: g.seed}); err != nil {
			t.Fatal(err)
		}
	}
	ta, tb, tc := readTree(t, a), readTree(t, b), readTree(t, c)
	if len(ta) != len(tb) {
		t.Fatalf("same seed, %d vs %d files", len(ta), len(tb))
	}
	for p, text := range ta {
		if tb[p] != text {
			t.Fatalf("same seed, %s differs", p)
		}
	}
	same := 0
	for p, text := range ta {
		if tc[p] == text {
			same++
		}
	}
	if same == len(ta) {
		t.Error("seeds 7 and 8 wrote identical workspaces")
	}
}

func TestGenerateHonoursShape(t *testing.T) {
	dir := t.TempDir()
	st, err := Generate(dir, Options{Symbols: 95, SymbolsPerFile: 4, FilesPerDir: 3})
	if err != nil {
		t.Fatal(err)
	}
	// 95 symbols round up to 24 whole files of 4.
	if st.Files != 24 || st.Symbols != 96 {
		t.Errorf("stats %+v, want 24 files and 96 symbols", st)
	}
	dirs := map[string]int{}
	for p := range readTree(t, dir) {
		dirs[filepath.Dir(p)]++
	}
	if len(dirs) != 8 {
		t.Errorf("24 files at 3 per directory landed in %d directories, want 8", len(dirs))
	}
}

func TestGenerateRejectsBadInput(t *testing.T) {
	full := t.TempDir()
	if err := os.WriteFile(filepath.Join(full, "keep.txt"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		dir  string
		o    Options
		want string
	}{
		{"no symbols", t.TempDir(), Options{}, "Symbols must be between"},
		{"negative symbols", t.TempDir(), Options{Symbols: -5}, "got -5"},
		{"too many symbols", t.TempDir(), Options{Symbols: MaxSymbols + 1}, "Symbols must be between"},
		{"non-empty dir", full, Options{Symbols: 10}, "not empty"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Generate(tc.dir, tc.o)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Generate(%+v) = %v, want an error containing %q", tc.o, err, tc.want)
			}
		})
	}
	if b, err := os.ReadFile(filepath.Join(full, "keep.txt")); err != nil || string(b) != "mine" {
		t.Errorf("a refused Generate touched the existing file: %q, %v", b, err)
	}
	if entries, _ := os.ReadDir(full); len(entries) != 1 {
		t.Errorf("a refused Generate wrote %d entries into a non-empty dir", len(entries)-1)
	}
}
