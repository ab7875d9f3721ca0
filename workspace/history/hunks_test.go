package history

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/symbolindex"
	"github.com/ctxls/ctxls/symbolindex/tokenize"
)

// gitRepo is a repository made with the git command, one commit at a time.
type gitRepo struct {
	tb  testing.TB
	dir string
	n   int
}

func newGitRepo(tb testing.TB) *gitRepo {
	r := &gitRepo{tb: tb, dir: tb.TempDir()}
	r.git("init", "-q", "-b", "main")
	return r
}

func (r *gitRepo) git(args ...string) string {
	r.tb.Helper()
	cmd := exec.Command("git", append([]string{"-C", r.dir, "-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...)
	r.n++
	date := fmt.Sprintf("%d +0000", 1_700_000_000+r.n*3600)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+r.dir, "GIT_AUTHOR_DATE="+date, "GIT_COMMITTER_DATE="+date)
	out, err := cmd.CombinedOutput()
	if err != nil {
		r.tb.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

func (r *gitRepo) write(path, text string) {
	r.tb.Helper()
	abs := filepath.Join(r.dir, path)
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		r.tb.Fatal(err)
	}
	if err := os.WriteFile(abs, []byte(text), 0o644); err != nil {
		r.tb.Fatal(err)
	}
}

func (r *gitRepo) commit(msg string) string {
	r.tb.Helper()
	r.git("add", "-A")
	r.git("commit", "-q", "-m", msg)
	return r.git("rev-parse", "HEAD")
}

// lines is n numbered filler lines.
func lines(tag string, n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "// %s %d\n", tag, i)
	}
	return b.String()
}

const (
	alphaBeta = "func Alpha() int {\n\treturn 1\n}\n\nfunc Beta(x float64) float64 {\n\treturn x\n}\n"
	betaFixed = "func Beta(x float64) float64 {\n\treturn math.Round(x*100) / 100\n}\n"
	gamma     = "func Gamma() string {\n\treturn \"g\"\n}\n"
)

// billingRepo: a rounding fix touches Beta (line 6 of a.go) and Gamma;
// later ten lines are put above Beta and a.go is moved to core/a.go. At
// the head, Beta's changed line is line 16 of core/a.go.
func billingRepo(t *testing.T) *gitRepo {
	r := newGitRepo(t)
	r.write("a.go", alphaBeta)
	r.write("b.go", gamma)
	r.commit("initial import")
	r.write("a.go", strings.Replace(alphaBeta, "\treturn x\n", "\treturn math.Round(x*100) / 100\n", 1))
	r.write("b.go", strings.Replace(gamma, `"g"`, `"gamma"`, 1))
	r.commit("fix the rounding of half cents in totals")
	r.write("a.go", lines("header", 10)+strings.Replace(alphaBeta, "\treturn x\n", "\treturn math.Round(x*100) / 100\n", 1))
	r.commit("document the package")
	r.git("mv", "a.go", "core_a.go")
	r.commit("move the money code")
	return r
}

func touchesOf(h *History, query string) []Touch {
	var terms []symbolindex.QueryTerm
	for _, t := range tokenize.QueryTerms(query) {
		terms = append(terms, symbolindex.QueryTerm{Term: t, Weight: 1})
	}
	return h.PastTouches(terms, false)
}

// TestPastTouchesFollowLinesAndRenames: a request worded like an old
// commit gets the lines that commit changed, where they are at the head:
// moved down by a later insertion and into the file's new name.
func TestPastTouchesFollowLinesAndRenames(t *testing.T) {
	r := billingRepo(t)
	h, err := loadDir(context.Background(), r.dir, "", Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][2]int{}
	for _, tc := range touchesOf(h, "rounding of half cents") {
		if h.commits[tc.Commit].subject == "fix the rounding of half cents in totals" {
			got[tc.Path] = [2]int{tc.Start, tc.End}
		}
	}
	want := map[string][2]int{"core_a.go": {16, 16}, "b.go": {2, 2}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("lines the rounding fix touched, at the head: %v, want %v", got, want)
	}
	// Co-change at the level of lines: Beta's lines pull in Gamma's.
	// (The initial import, which added both, counts too, after it.)
	co := h.CoTouches("core_a.go", 15, 17)
	if len(co) != 2 || co[0].Path != "b.go" || co[0].Start != 2 || co[0].End != 2 || co[1].Start != 1 {
		t.Errorf("what changed with Beta: %+v, want b.go line 2, then the import's 1-3", co)
	}
	if co := h.CoTouches("core_a.go", 1, 3); len(co) != 0 {
		t.Errorf("the header lines never changed with another file, got %+v", co)
	}
}

// TestExtendReadsOnlyNewCommits: a history extended to a later head reads
// only the commits since its own head, and holds what a full read holds.
func TestExtendReadsOnlyNewCommits(t *testing.T) {
	r := billingRepo(t)
	ctx := context.Background()
	old, err := loadDir(ctx, r.dir, "", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if old.Read != 4 {
		t.Fatalf("full read: %d commits read, want 4", old.Read)
	}
	r.write("core_a.go", lines("license", 2)+lines("header", 10)+strings.Replace(alphaBeta, "\treturn x\n", "\treturn math.Round(x*100) / 100\n", 1))
	r.commit("add the license header")
	r.write("b.go", "package b\n\n"+strings.Replace(gamma, `"g"`, `"gamma"`, 1))
	r.git("mv", "b.go", "names.go")
	r.commit("name the package")
	ext, err := old.extendDir(ctx, r.dir, "", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if ext.Read != 2 {
		t.Errorf("extension read %d commits, want the 2 new ones", ext.Read)
	}
	full, err := loadDir(ctx, r.dir, "", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(ext.raw(), full.raw()) {
		t.Errorf("extended history differs from a full read:\n%+v\n%+v", ext.raw(), full.raw())
	}
	got := map[string]int{}
	for _, tc := range touchesOf(ext, "rounding of half cents") {
		got[tc.Path] = tc.Start
	}
	if got["core_a.go"] != 18 || got["names.go"] != 4 {
		t.Errorf("the rounding fix's lines after the extension: %v, want core_a.go:18 names.go:4", got)
	}
	if old.Head == ext.Head || len(old.raw()) != 4 {
		t.Error("the extended history changed the one it came from")
	}
	if same, err := ext.extendDir(ctx, r.dir, "", Options{}); err != nil || same != ext {
		t.Errorf("extending to the same head: %v, %v", same == ext, err)
	}
}

// TestCacheRoundTrip: a saved history loads back whole; a damaged or
// foreign file is refused with a reason, never half-read.
func TestCacheRoundTrip(t *testing.T) {
	r := billingRepo(t)
	h, err := loadDir(context.Background(), r.dir, "", Options{})
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "0123456789abcdef.hist")
	if err := h.Save(file, r.dir); err != nil {
		t.Fatal(err)
	}
	back, err := LoadCache(file, r.dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if back.Head != h.Head || !reflect.DeepEqual(back.raw(), h.raw()) || back.Len() != h.Len() {
		t.Fatalf("the cache did not give the history back")
	}
	if !reflect.DeepEqual(touchesOf(back, "rounding"), touchesOf(h, "rounding")) {
		t.Error("the cached history answers differently")
	}
	if _, err := LoadCache(file, r.dir, Options{MaxCommits: 10}); !errors.Is(err, ErrCacheForeign) {
		t.Errorf("other bounds: %v, want ErrCacheForeign", err)
	}
	if _, err := LoadCache(file, t.TempDir(), Options{}); !errors.Is(err, ErrCacheForeign) {
		t.Errorf("another folder's: %v, want ErrCacheForeign", err)
	}
	data, _ := os.ReadFile(file)
	data[len(data)/2] ^= 0xff
	os.WriteFile(file, data, 0o600)
	if _, err := LoadCache(file, r.dir, Options{}); err == nil || !strings.Contains(err.Error(), "damaged") {
		t.Errorf("a damaged cache: %v", err)
	}
	os.WriteFile(file, []byte("something else entirely"), 0o600)
	if _, err := LoadCache(file, r.dir, Options{}); !errors.Is(err, ErrCacheForeign) {
		t.Errorf("a foreign file: %v", err)
	}
}

// loadDir is Load of the repository holding dir.
func loadDir(ctx context.Context, dir, head string, opts Options) (*History, error) {
	r, err := Open(ctx, dir)
	if err != nil {
		return nil, err
	}
	return Load(ctx, r, head, opts)
}

// extendDir is Extend in the repository holding dir.
func (h *History) extendDir(ctx context.Context, dir, head string, opts Options) (*History, error) {
	r, err := Open(ctx, dir)
	if err != nil {
		return nil, err
	}
	return h.Extend(ctx, r, head, opts)
}

// counted is a Git on dir that counts the commands it starts in n.
func counted(dir string, n *int) Git {
	return Git{Dir: dir, Hook: func([]string) { *n++ }}
}
