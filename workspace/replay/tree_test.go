package replay

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/workspace"
)

// TestReplaySurvivesTreeChanges: a history whose trees change in every
// way git allows between two commits (a directory becomes a file and back,
// a file becomes a directory, a file becomes a symlink leading out of the
// repository and back, a blob past maxFileBytes appears and changes, a
// directory becomes a submodule, odd names, a name the file system
// refuses) replays to the end: every commit is a case but the one whose
// tree cannot be written, which is skipped with its reason; no symlink is
// written or followed, no large blob reaches the tree, and the index
// follows each change.
func TestReplaySurvivesTreeChanges(t *testing.T) {
	g := newGitRepo(t)
	outside := filepath.Join(t.TempDir(), "secret.go")
	secret := goFile("secret", "// OutsideSecret must never be indexed.\nfunc OutsideSecret() {}")
	if err := os.WriteFile(outside, []byte(secret), 0o644); err != nil {
		t.Fatal(err)
	}
	abs := func(p string) string { return filepath.Join(g.dir, filepath.FromSlash(p)) }
	write := func(p, text string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(abs(p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(abs(p), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	rm := func(p string) {
		t.Helper()
		if err := os.RemoveAll(abs(p)); err != nil {
			t.Fatal(err)
		}
	}
	step := 0
	commit := func(msg string) {
		t.Helper()
		step++
		// Every commit changes main.go, so that every one is a case.
		write("main.go", goFile("main", "// Step counts the commits.\nfunc Step() int { return "+strings.Repeat("1+", step)+"0 }"))
		g.run("add", "-A")
		g.run("commit", "-q", "-m", msg)
	}
	big := "package big\n\n// Huge is past maxFileBytes.\nvar Huge = `" + strings.Repeat("huge blob line\n", 2000) + "`\n"

	write("d/inner.go", goFile("d", "func Inner() {}"))
	write("f", "plain notes\n")
	write("s.go", goFile("s", "// Plain is a regular file for now.\nfunc Plain() {}"))
	write("e/e.go", goFile("e", "func E() {}"))
	commit("initial import")
	rm("d")
	write("d", "d is a file now\n")
	commit("step one turns the d directory into a file")
	rm("f")
	write("f/g.go", goFile("f", "// GeeFunc lives where a file was.\nfunc GeeFunc() {}"))
	commit("step two makes f a directory")
	rm("s.go")
	if err := os.Symlink(outside, abs("s.go")); err != nil {
		t.Fatal(err)
	}
	commit("GeeFunc: step three after f became a directory")
	commit("OutsideSecret is asked while s.go leads outside")
	rm("s.go")
	write("s.go", goFile("s", "// Plain is a regular file again.\nfunc Plain() {}"))
	write("big.go", big)
	commit("step six adds a huge blob")
	write("big.go", strings.Replace(big, "Huge", "Huger", 1))
	commit("Huge blob changes with step seven")
	rm("d")
	write("d/again.go", goFile("d", "// AgainFunc is in d, a directory again.\nfunc AgainFunc() {}"))
	write("odd name\nwith newline.go", goFile("odd", "func Odd() {}"))
	write("-dash.go", goFile("dash", "func Dash() {}"))
	write("sp ace/ü.go", goFile("u", "func U() {}"))
	commit("step eight makes d a directory again, with odd names")
	commit("AgainFunc: step nine")

	// A submodule where the e directory was, and a name no file system
	// takes: both only in git's index, as a clone from elsewhere has them.
	rm("e")
	g.run("rm", "-q", "-r", "--cached", "e")
	head := g.run("rev-parse", "HEAD")
	g.run("update-index", "--add", "--cacheinfo", "160000,"+head+",e")
	long := strings.Repeat("l", 300) + ".go"
	blob := g.run("hash-object", "-w", abs("main.go"))
	g.run("update-index", "--add", "--cacheinfo", "100644,"+blob+","+long)
	commitIndex := func(msg string) {
		step++
		write("main.go", goFile("main", "// Step counts the commits.\nfunc Step() int { return "+strings.Repeat("1+", step)+"0 }"))
		g.run("update-index", "main.go")
		g.run("commit", "-q", "-m", msg)
	}
	commitIndex("step ten adds a submodule and a long name")
	commitIndex("step eleven sees the long name in its tree")
	commitIndex("step twelve goes on")

	cfg := workspace.DefaultConfig()
	cfg.MaxFileBytes = 16 << 10
	rep, err := Run(context.Background(), Options{Root: g.dir, Config: cfg, NoHistory: true, Scenarios: []string{Cold}, Baseline: true})
	if err != nil {
		t.Fatalf("replay ended: %v", err)
	}
	if rep.Commits != 12 || len(rep.Cases) != 10 || rep.Skipped[SkipUnwritten] != 1 || rep.Skipped["no parent in the repository"] != 1 {
		t.Fatalf("%d commits, %d cases, skipped %v; want 12 commits, 10 cases, the root and the unwritable tree skipped", rep.Commits, len(rep.Cases), rep.Skipped)
	}
	if len(rep.Unwritten) != 1 || !strings.Contains(rep.Unwritten[0], long) || !strings.Contains(rep.Unwritten[0], "file name too long") {
		t.Errorf("unwritten %q, want the long name and why", rep.Unwritten)
	}
	// The replay went on past it.
	if slices.ContainsFunc(rep.Cases, func(c Case) bool { return strings.HasPrefix(c.Query, "step eleven") }) {
		t.Error("the commit whose parent tree could not be written is a case")
	}
	twelve := caseFor(t, rep, "step twelve")
	for _, c := range rep.Cases {
		for _, s := range []Score{c.Scores[Cold], c.Baseline[Cold]} {
			for _, f := range s.Files {
				if f == "big.go" || c.Commit == twelve.Commit && strings.HasPrefix(f, "e/") {
					t.Errorf("case %q answered %s", c.Query, f)
				}
			}
		}
		for _, gd := range c.Gold {
			if gd.Path != "main.go" {
				t.Errorf("case %q: gold %s; a blob past maxFileBytes is never gold", c.Query, gd.Path)
			}
		}
	}
	// The index followed each change: a file where a file was made a
	// directory, and in d once it is a directory again.
	if s := caseFor(t, rep, "GeeFunc").Scores[Cold]; !slices.Contains(s.Files, "f/g.go") {
		t.Errorf("GeeFunc answered %v, want f/g.go", s.Files)
	}
	if s := caseFor(t, rep, "AgainFunc").Scores[Cold]; !slices.Contains(s.Files, "d/again.go") {
		t.Errorf("AgainFunc answered %v, want d/again.go", s.Files)
	}
	// The symlink was never followed, nor written through.
	if s := caseFor(t, rep, "OutsideSecret").Scores[Cold]; slices.Contains(s.Files, "s.go") {
		t.Errorf("the symlink s.go leading outside was answered: %v", s.Files)
	}
	if b, err := os.ReadFile(outside); err != nil || string(b) != secret {
		t.Errorf("the file outside the repository changed: %q, %v", b, err)
	}
}
