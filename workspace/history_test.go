package workspace

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// histRepo is a scripted git repository for the history tests.
type histRepo struct {
	t   *testing.T
	dir string
}

func newHistRepo(t *testing.T) *histRepo {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	r := &histRepo{t: t, dir: dir}
	r.git("init", "-q", "-b", "main")
	return r
}

func (r *histRepo) git(args ...string) string {
	r.t.Helper()
	cmd := exec.Command("git", append([]string{"-C", r.dir}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t",
		"GIT_COMMITTER_EMAIL=t@example.com", "GIT_CONFIG_NOSYSTEM=1", "HOME="+r.dir)
	out, err := cmd.CombinedOutput()
	if err != nil {
		r.t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

func (r *histRepo) commit(msg string, files map[string]string) {
	r.t.Helper()
	for p, text := range files {
		writeFile(r.t, filepath.Join(r.dir, filepath.FromSlash(p)), []byte(text))
	}
	r.git("add", "-A")
	r.git("commit", "-q", "-m", msg)
}

// billing is a repository whose files say nothing of each other: only
// its history says that the invoice renderer and the tax table change
// together, and that "rounding" was fixed in the currency helpers.
func billing(t *testing.T) *histRepo {
	r := newHistRepo(t)
	r.commit("initial import", map[string]string{
		"invoice/render.go": "package invoice\n\n// Render lays out an invoice page.\nfunc Render(lines []string) string { return \"\" }\n",
		"tax/table.go":      "package tax\n\n// Rates maps regions to percentages.\nvar Rates = map[string]int{\"eu\": 20}\n",
		"money/format.go":   "package money\n\n// Format prints cents as a decimal amount.\nfunc Format(cents int) string { return \"\" }\n",
		"users/login.go":    "package users\n\n// Login checks a password.\nfunc Login(name, password string) bool { return false }\n",
	})
	for _, v := range []string{"21", "19", "22"} {
		r.commit("invoice: show the VAT line for the new rate", map[string]string{
			"invoice/render.go": "package invoice\n\n// Render lays out an invoice page.\nfunc Render(lines []string) string { return \"" + v + "\" }\n",
			"tax/table.go":      "package tax\n\n// Rates maps regions to percentages.\nvar Rates = map[string]int{\"eu\": " + v + "}\n",
		})
	}
	r.commit("fix rounding of half cents in amounts", map[string]string{
		"money/format.go": "package money\n\n// Format prints cents as a decimal amount.\nfunc Format(cents int) string { return \"x\" }\n",
	})
	r.commit("users: lock accounts after five failed attempts", map[string]string{
		"users/login.go": "package users\n\n// Login checks a password.\nfunc Login(name, password string) bool { return true }\n",
	})
	return r
}

func histWorkspace(t *testing.T, root string) *Workspace {
	t.Helper()
	cfg := DefaultConfig()
	cfg.CacheDir = CacheDirOff
	ws, err := New(cfg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ws.AddFolder(root); err != nil {
		t.Fatal(err)
	}
	if _, err := ws.Index(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	return ws
}

func rankOf(sel *Selection, path string) int {
	for i, it := range sel.Items {
		if it.Path == path {
			return i + 1
		}
	}
	return 0
}

// regulation is billing's request with the invoice renderer under dir
// open: nothing in it names the tax table, which history says changes
// with the renderer.
func regulation(dir string, limit int) *SelectRequest {
	return &SelectRequest{Query: "update this for the new regulation", Active: filepath.Join(dir, "invoice/render.go"), Limit: limit}
}

// taxTableNear fails the test (prefixing what) unless the co-changed tax
// table is among sel's first two items.
func taxTableNear(t *testing.T, what string, sel *Selection) {
	t.Helper()
	if rank := rankOf(sel, "tax/table.go"); rank == 0 || rank > 2 {
		t.Errorf("%sthe co-changed tax table is at %d:%s", what, rank, selString(sel))
	}
}

// TestHistoryCoChange: with the invoice renderer open, the tax table it
// always changes with is selected, though nothing in either file names
// the other; without history it is not.
func TestHistoryCoChange(t *testing.T) {
	r := billing(t)
	ws := histWorkspace(t, r.dir)
	req := regulation(r.dir, 4)
	sel := selDo(t, ws, req)
	if st := sel.Stats.History; !st.Ready || st.Commits != 6 || st.Head != r.git("rev-parse", "HEAD") {
		t.Errorf("stats.history %+v, want ready with 6 commits at HEAD", st)
	}
	rank := rankOf(sel, "tax/table.go")
	if rank == 0 || rank > 2 {
		t.Fatalf("the co-changed tax table is at %d:%s", rank, selString(sel))
	}
	if s, ok := sel.Items[rank-1].Signals["cochange"]; !ok || s.Rank != 1 {
		t.Errorf("its cochange signal: %+v", sel.Items[rank-1].Signals)
	}
	if err := ws.SetHistory(r.dir, nil); err != nil {
		t.Fatal(err)
	}
	if rankOf(selDo(t, ws, req), "tax/table.go") == 1 {
		t.Error("without history the tax table still comes first: the test proves nothing")
	}
}

// TestHistoryPastChanges: a request worded like an old commit finds the
// files that commit touched, though the file's text shares no word with it.
func TestHistoryPastChanges(t *testing.T) {
	r := billing(t)
	ws := histWorkspace(t, r.dir)
	sel := selDo(t, ws, &SelectRequest{Query: "the rounding of half cents is wrong again", Limit: 3})
	if rankOf(sel, "money/format.go") != 1 {
		t.Fatalf("the file the rounding fix touched is not first:%s", selString(sel))
	}
	if _, ok := sel.Items[0].Signals["history"]; !ok {
		t.Errorf("no history signal: %+v", sel.Items[0].Signals)
	}
}

// TestHistoryUnavailable: no repository and history turned off both
// answer without history, and stats.history says why.
func TestHistoryUnavailable(t *testing.T) {
	plain := t.TempDir()
	writeFile(t, filepath.Join(plain, "a.go"), []byte("package a\n\nfunc A() {}\n"))
	r := billing(t)
	for _, c := range []struct {
		root, why string
		off       bool
	}{
		{plain, "not in a git repository", false},
		{r.dir, "historyCommits is 0", true},
	} {
		ws := histWorkspace(t, c.root)
		if c.off {
			cfg := ws.Config()
			cfg.HistoryCommits = 0
			if _, err := ws.SetConfig(cfg); err != nil {
				t.Fatal(err)
			}
			ws.loadHistory(context.Background())
		}
		sel := selDo(t, ws, &SelectRequest{Query: "rounding"})
		if st := sel.Stats.History; !st.Ready || st.Commits != 0 || !strings.Contains(st.Reason, c.why) {
			t.Errorf("%s: stats.history %+v, want ready, no commits, a reason with %q", filepath.Base(c.root), st, c.why)
		}
	}
}

func selString(sel *Selection) string {
	var b strings.Builder
	for i, it := range sel.Items {
		b.WriteString("\n  " + strconv.Itoa(i+1) + ". " + it.Path + " " + it.Symbol)
	}
	return b.String()
}

// TestHistoryNamesAFileWithoutWords: past release commits touched only
// version.go, a file of one constant that shares no word with "release";
// a new release request finds it first, above a function whose name
// matches the request's words.
func TestHistoryNamesAFileWithoutWords(t *testing.T) {
	r := newHistRepo(t)
	pool := "package conn\n\n// Release returns a connection to the pool for the next request.\nfunc Release(c *Conn) { c.pool.put(c) }\n\ntype Conn struct{ pool *Pool }\n"
	r.commit("initial import", map[string]string{
		"version.go":   "package conn\n\nconst Version = \"1.0.0\"\n",
		"conn/pool.go": pool,
		"conn/dial.go": "package conn\n\n// Dial opens a connection.\nfunc Dial(addr string) (*Conn, error) { return nil, nil }\n",
	})
	for _, v := range []string{"1.1.0", "1.2.0", "1.3.0"} {
		r.commit("Release v"+v, map[string]string{"version.go": "package conn\n\nconst Version = \"" + v + "\"\n"})
		r.commit("conn: retry a refused dial once before "+v, map[string]string{
			"conn/dial.go": "package conn\n\n// Dial opens a connection.\nfunc Dial(addr string) (*Conn, error) { return nil, nil } // " + v + "\n",
		})
	}
	ws := histWorkspace(t, r.dir)
	sel := selDo(t, ws, &SelectRequest{Query: "Release v1.4.0", Limit: 3})
	if rankOf(sel, "version.go") != 1 {
		t.Fatalf("version.go, which every release commit touched, is not first:%s", selString(sel))
	}
	// A bare version has no words at all; past subjects that named one
	// still say which file a release changes.
	sel = selDo(t, ws, &SelectRequest{Query: "2.0.0", Limit: 3})
	if rankOf(sel, "version.go") != 1 {
		t.Errorf("a bare version: version.go is not first:%s", selString(sel))
	}
}

// TestReadyWaitsForHistory: an answer says ready only once the history
// was looked for, so that a client that waits for ready gets every source.
func TestReadyWaitsForHistory(t *testing.T) {
	r := billing(t)
	ws := histWorkspace(t, r.dir)
	req := &SelectRequest{Query: "the rounding of half cents is wrong again", Limit: 3}
	if sel := selDo(t, ws, req); !sel.Stats.Ready || !sel.Stats.History.Ready {
		t.Fatalf("after Index: ready %v, history %+v", sel.Stats.Ready, sel.Stats.History)
	}
	f := ws.Folders()[0]
	f.mu.Lock()
	f.histDone = false // as between the first index and the history read
	f.mu.Unlock()
	if sel := selDo(t, ws, req); sel.Stats.Ready {
		t.Errorf("ready before the history was read: %+v", sel.Stats)
	}
}

// TestHistorySettingsAtTheSameHead: the history bounds (historyCommits,
// historyDays) shape the read, so changing them at the same HEAD reads
// it again: a history read with the old bounds is not current, and a
// read that failed (an old tree is gone, which only the longer read
// needs) is tried again, not answered with its old failure.
func TestHistorySettingsAtTheSameHead(t *testing.T) {
	r := newHistRepo(t)
	r.git("config", "gc.auto", "0") // every object stays loose, one file each
	for i := range 4 {
		r.commit("rates: add rate "+strconv.Itoa(i), map[string]string{
			"rates.go": "package rates\n\n// Rate " + strconv.Itoa(i) + "\nconst Rate = " + strconv.Itoa(i) + "\n",
		})
	}
	ws := histWorkspace(t, r.dir)
	f := ws.folders[0]
	if st := historyOf(f); st.Commits != 4 {
		t.Fatalf("stats.history %+v, want 4 commits", st)
	}
	set := func(commits int) {
		cfg := ws.Config()
		cfg.HistoryCommits = commits
		if _, err := ws.SetConfig(cfg); err != nil {
			t.Fatal(err)
		}
		ws.loadHistory(context.Background())
	}
	set(2)
	if st := historyOf(f); st.Commits != 2 {
		t.Errorf("historyCommits 2 at the same HEAD: stats.history %+v, want 2 commits", st)
	}
	// The first commit's tree goes missing: the whole read fails, the
	// last two commits' does not.
	tree := r.git("rev-parse", "HEAD~3^{tree}")
	if err := os.Remove(filepath.Join(r.dir, ".git", "objects", tree[:2], tree[2:])); err != nil {
		t.Fatal(err)
	}
	set(50)
	if st := historyOf(f); st.Commits != 0 || st.Reason == "" {
		t.Fatalf("the whole read with a tree gone: stats.history %+v, want a failure", st)
	}
	set(2)
	if st := historyOf(f); st.Commits != 2 || st.Reason != "" {
		t.Errorf("historyCommits 2 after a failed read at the same HEAD: stats.history %+v, want 2 commits read", st)
	}
}
