package history

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ctxls/ctxls/symbolindex"
	"github.com/ctxls/ctxls/symbolindex/tokenize"
	"github.com/ctxls/ctxls/workspace/testutil"
)

// fastImport builds a repository of n commits in dir with git fast-import:
// each commit changes one to four of files files (files of the same
// "module" of ten tend to change together) and says so in a message made
// of the module's words.
func fastImport(tb testing.TB, dir string, n, files int) {
	tb.Helper()
	run := func(stdin []byte, args ...string) {
		cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir)
		cmd.Stdin = bytes.NewReader(stdin)
		if out, err := cmd.CombinedOutput(); err != nil {
			tb.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	run(nil, "init", "-q", "-b", "main")
	words := strings.Fields("parse render cache index query token lease vote shard merge retry timeout buffer stream codec schema route proxy auth quota")
	r := rand.New(rand.NewPCG(1, 2))
	var b bytes.Buffer
	for i := 1; i <= n; i++ {
		mod := r.IntN(files / 10)
		fmt.Fprintf(&b, "commit refs/heads/main\nmark :%d\ncommitter t <t@example.com> %d +0000\n", i, 1_600_000_000+i*3600)
		msg := fmt.Sprintf("%s: fix %s in the %s path", words[mod%len(words)], words[r.IntN(len(words))], words[(mod+3)%len(words)])
		fmt.Fprintf(&b, "data %d\n%s\n", len(msg), msg)
		if i > 1 {
			fmt.Fprintf(&b, "from :%d\n", i-1)
		}
		for k := 0; k < 1+r.IntN(4); k++ {
			f := mod*10 + r.IntN(10)
			body := fmt.Sprintf("package m%d\n// version %d\n", mod, i)
			fmt.Fprintf(&b, "M 100644 inline mod%d/file%d.go\ndata %d\n%s\n", mod, f, len(body), body)
		}
	}
	run(b.Bytes(), "fast-import", "--quiet")
}

// TestLoadFromASubdirectory: a folder below the repository's top sees the
// commits that touched it, with paths relative to itself.
func TestLoadFromASubdirectory(t *testing.T) {
	dir := t.TempDir()
	fastImport(t, dir, 200, 100)
	cmd := exec.Command("git", "-C", dir, "checkout", "-q", "main")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	h, err := loadDir(context.Background(), filepath.Join(dir, "mod3"), "", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if h.Len() == 0 || h.Len() >= 200 {
		t.Fatalf("%d commits seen from mod3, want some of the 200", h.Len())
	}
	for _, f := range h.CoChanged([]string{"file30.go"}, 5) {
		if strings.Contains(f.Path, "/") || !strings.HasPrefix(f.Path, "file3") {
			t.Errorf("co-changed %q: want a mod3 path relative to mod3", f.Path)
		}
	}
	if _, err := loadDir(context.Background(), t.TempDir(), "", Options{}); err == nil || !strings.Contains(err.Error(), "not in a git repository") {
		t.Errorf("a plain directory: %v", err)
	}
}

// TestLoadWindowBeforeEpoch: historyDays large enough to reach before
// 1970 ("read everything") reads every commit, not none (git's --since
// matches nothing for such a date).
func TestLoadWindowBeforeEpoch(t *testing.T) {
	dir := t.TempDir()
	fastImport(t, dir, 30, 20) // committed in September 2020
	for _, days := range []int{365, 60 * 365, 36500} {
		h, err := loadDir(context.Background(), dir, "main", Options{MaxAge: time.Duration(days) * 24 * time.Hour})
		if err != nil {
			t.Fatal(err)
		}
		if h.Len() != 30 {
			t.Errorf("historyDays %d: %d commits read, want all 30", days, h.Len())
		}
	}
}

func BenchmarkLoad5000(b *testing.B) {
	dir := b.TempDir()
	fastImport(b, dir, 5000, 500)
	b.ResetTimer()
	for b.Loop() {
		h, err := loadDir(context.Background(), dir, "main", Options{MaxAge: 50 * 365 * 24 * time.Hour})
		if err != nil || h.Len() != 5000 {
			b.Fatalf("%v, %d commits", err, h.Len())
		}
	}
}

// BenchmarkSources is what the two history sources add to one select.
func BenchmarkSources(b *testing.B) {
	dir := b.TempDir()
	fastImport(b, dir, 5000, 500)
	h, err := loadDir(context.Background(), dir, "main", Options{MaxAge: 50 * 365 * 24 * time.Hour})
	if err != nil {
		b.Fatal(err)
	}
	if h.Len() != 5000 {
		b.Fatalf("%d commits", h.Len())
	}
	var terms []symbolindex.QueryTerm
	for _, t := range tokenize.QueryTerms("fix the lease timeout in the retry path") {
		terms = append(terms, symbolindex.QueryTerm{Term: t, Weight: 1})
	}
	b.ReportAllocs()
	for b.Loop() {
		h.CoChanged([]string{"mod7/file71.go", "mod7/file75.go"}, 20)
		h.PastChanges(terms, false, 20)
	}
}

func TestNamesRelease(t *testing.T) {
	for text, want := range map[string]bool{
		"0.71.0":                      true,
		"Changelog for v5.3.0":        true,
		"chore(release): v1.7.9":      true,
		"Version 0.28.0.":             true,
		"Release 2.0.0-rc.1":          true,
		"bump to 1.2":                 true,
		"fix the v5 router":           false,
		"handle 404 in static":        false,
		"use os.ReadFile":             false,
		"parse 192.168.0.1 addresses": false,
		"Bump cryptography from 44.0.0 to 44.0.1 (#3499)": false,
		"drop support for Python 3.8":                     false,
	} {
		if got := NamesRelease(text); got != want {
			t.Errorf("NamesRelease(%q) = %v, want %v", text, got, want)
		}
	}
}

// TestRunsAreCountedPerReader: the git commands a read starts, Load's as
// well as Open's, are counted by the Git it was opened with, not by a
// count shared by every read in the process, nor by a Git of its own
// that Load would make from the directory: two reads of one repository
// at once each count their own, as many as each alone, and more than
// Open's.
func TestRunsAreCountedPerReader(t *testing.T) {
	ctx := context.Background()
	dir := invoiceRepo(t).dir
	read := func(runs *[2]int) error { // runs: after Open, after Load
		n := 0
		repo, err := counted(dir, &n).Open(ctx)
		if err != nil {
			return err
		}
		runs[0] = n
		_, err = Load(ctx, repo, "", Options{})
		runs[1] = n
		return err
	}
	var alone, together [2][2]int
	for i := range alone {
		if err := read(&alone[i]); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	for i := range together {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := read(&together[i]); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if alone != together || alone[0][0] == 0 || alone[0][1] <= alone[0][0] {
		t.Errorf("git runs (after Open, after Load) counted alone %v, together %v", alone, together)
	}
}

// TestSignedCommitsReadWithoutGpg: the history of signed commits, in a
// repository whose owner asks git log to check signatures
// (log.showSignature), is read as any other, without running gpg for
// every commit (a stand-in gpg counts its checks).
func TestSignedCommitsReadWithoutGpg(t *testing.T) {
	r := newGitRepo(t)
	gpg, checks := testutil.StandInGPG(t)
	r.git("config", "gpg.program", gpg)
	r.git("config", "commit.gpgSign", "true")
	r.write("billing/invoice.go", lines("invoice", 20))
	r.write("billing/tax.go", lines("tax", 20))
	r.commit("add invoices and taxes")
	r.write("billing/invoice.go", lines("invoice", 21))
	r.write("billing/tax.go", lines("tax", 21))
	r.commit("round invoice totals with the tax")
	r.git("config", "log.showSignature", "true")
	h, err := loadDir(context.Background(), r.dir, "", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if h.Len() != 2 || h.Lost() != "" {
		t.Errorf("%d commits read, lost %q; want both, nothing lost", h.Len(), h.Lost())
	}
	if co := paths(h.CoChanged([]string{"billing/invoice.go"}, 3)); !slices.Equal(co, []string{"billing/tax.go"}) {
		t.Errorf("co-changed with invoice.go: %v, want tax.go", co)
	}
	if data, err := os.ReadFile(checks); err == nil {
		t.Errorf("gpg was run %d times to check signatures", bytes.Count(data, []byte("\n")))
	}
}

// TestLoadFromASubdirectoryDiffRelative: a user's diff.relative (git diff
// and log show paths relative to the directory they run in) does not
// change what a subdirectory's history holds: its commits, with their
// files and lines.
func TestLoadFromASubdirectoryDiffRelative(t *testing.T) {
	r := newGitRepo(t)
	r.write("billing/invoice.go", lines("invoice", 20))
	r.write("billing/tax.go", lines("tax", 20))
	r.write("README.md", "billing\n")
	r.commit("add invoices and taxes")
	r.write("billing/invoice.go", lines("invoice", 21))
	r.write("billing/tax.go", lines("tax", 21))
	r.commit("round invoice totals with the tax")
	r.git("config", "diff.relative", "true")
	h, err := loadDir(context.Background(), filepath.Join(r.dir, "billing"), "", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if co := paths(h.CoChanged([]string{"invoice.go"}, 3)); !slices.Equal(co, []string{"tax.go"}) {
		t.Errorf("co-changed with invoice.go seen from billing: %v, want tax.go", co)
	}
	if got := touchesOf(h, "round invoice totals"); len(got) == 0 {
		t.Errorf("no lines of the commit that rounded the totals")
	}
}

// TestSubmoduleChangeKeepsTheOtherFilesLines: a commit that moves a
// submodule and changes files after it in path order keeps those files'
// lines, whatever a user's diff.submodule says (log writes a submodule's
// commits, not a diff, and the diffs after it were taken for the ones
// before).
func TestSubmoduleChangeKeepsTheOtherFilesLines(t *testing.T) {
	r := newGitRepo(t)
	r.write("a.go", lines("alpha", 10))
	r.write("z.go", lines("zeta", 10))
	// A gitlink with no submodule checked out: added to the index, not
	// by add -A, which would take it out again.
	gitlink := func(sha string) { r.git("update-index", "--add", "--cacheinfo", "160000,"+sha+",lib") }
	gitlink("1111111111111111111111111111111111111111")
	r.git("add", "a.go", "z.go")
	r.git("commit", "-q", "-m", "initial")
	r.write("z.go", lines("zeta", 11))
	gitlink("2222222222222222222222222222222222222222")
	r.git("add", "z.go")
	r.git("commit", "-q", "-m", "bump the library and round the zeta totals")
	r.git("config", "diff.submodule", "log")
	h, err := loadDir(context.Background(), r.dir, "", Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := touchesOf(h, "round the zeta totals")
	if !slices.ContainsFunc(got, func(tc Touch) bool { return tc.Path == "z.go" && tc.Start <= 11 && tc.End >= 11 }) ||
		slices.ContainsFunc(got, func(tc Touch) bool { return tc.Path == "lib" && tc.End > 1 }) {
		t.Errorf("the lines of the commit that rounded the totals: %+v, want z.go's line 11 (and the submodule's one line)", got)
	}
}

// TestRootCommitKeepsItsFiles: the first commit's files count, whatever a
// user's log.showRoot says (false: git log shows the root commit with no
// diff).
func TestRootCommitKeepsItsFiles(t *testing.T) {
	r := newGitRepo(t)
	r.write("billing/invoice.go", lines("invoice", 20))
	r.write("billing/tax.go", lines("tax", 20))
	r.commit("add invoices and taxes")
	r.write("README.md", "billing\n")
	r.commit("readme")
	r.git("config", "log.showRoot", "false")
	h, err := loadDir(context.Background(), r.dir, "", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if co := paths(h.CoChanged([]string{"billing/invoice.go"}, 3)); !slices.Equal(co, []string{"billing/tax.go"}) {
		t.Errorf("co-changed with invoice.go: %v, want tax.go (the root commit added both)", co)
	}
}

// TestReleaseMarksOnlyReleases: a release request ("2.0.0") matches the
// past commits whose subjects named a release of the project; dependency
// bumps, however many, name another project's version and do not outvote
// the file the releases changed.
func TestReleaseMarksOnlyReleases(t *testing.T) {
	r := newGitRepo(t)
	r.write("version.go", "package tool\n\nconst Version = \"1.0.0\"\n")
	r.write("requirements.txt", "cryptography==1.2.0\n")
	r.commit("Release 1.0.0")
	for i, v := range []string{"1.3.0", "1.4.0", "1.5.0"} {
		r.write("requirements.txt", "cryptography=="+v+"\n")
		r.commit(fmt.Sprintf("Bump cryptography from 1.%d.0 to %s", i+2, v))
	}
	r.write("version.go", "package tool\n\nconst Version = \"1.1.0\"\n")
	r.commit("Release 1.1.0")
	h, err := loadDir(context.Background(), r.dir, "", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := paths(h.PastChanges(nil, true, 5)); len(got) == 0 || got[0] != "version.go" {
		t.Errorf("a release request's past changes: %v, want version.go first", got)
	}
}
