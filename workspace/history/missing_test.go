package history

import (
	"bytes"
	"context"
	"encoding/base64"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/symbolindex"
	"github.com/ctxls/ctxls/symbolindex/tokenize"
)

// invoiceRepo: the invoice renderer and the tax table change together
// three times; a rounding fix and a note change other files alone.
func invoiceRepo(t *testing.T) *gitRepo {
	r := newGitRepo(t)
	r.git("config", "gc.auto", "0") // every object stays loose, one file each
	r.write("invoice.go", alphaBeta)
	r.write("tax.go", gamma)
	r.write("money.go", lines("money", 5))
	r.commit("initial import")
	for _, v := range []string{"21", "19", "22"} {
		r.write("invoice.go", strings.Replace(alphaBeta, "return 1", "return "+v, 1))
		r.write("tax.go", strings.Replace(gamma, `"g"`, `"`+v+`"`, 1))
		r.commit("show the VAT line for the new rate " + v)
	}
	r.write("money.go", lines("money", 6))
	r.commit("fix the rounding of half cents in totals")
	return r
}

// looseObject is the file holding object rev in r's loose objects.
func looseObject(t *testing.T, r *gitRepo, rev string) string {
	t.Helper()
	sha := r.git("rev-parse", rev)
	p := filepath.Join(r.dir, ".git", "objects", sha[:2], sha[2:])
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("%s is not a loose object: %v", rev, err)
	}
	return p
}

func pastOf(h *History, query string) []File {
	var terms []symbolindex.QueryTerm
	for _, t := range tokenize.QueryTerms(query) {
		terms = append(terms, symbolindex.QueryTerm{Term: t, Weight: 1})
	}
	return h.PastChanges(terms, false, 5)
}

func paths(fs []File) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Path)
	}
	return out
}

// TestLoadKeepsWhatAMissingObjectLeaves: with one blob deleted from the
// repository, git log -p stops at the two commits whose diffs need it.
// The history keeps every commit's files and message (co-change and past
// messages answer as before), keeps the lines of the commits git can
// read, and says in one line what it lost. Kept in the cache, it says so
// again; once the object is back, the next HEAD reads it whole.
func TestLoadKeepsWhatAMissingObjectLeaves(t *testing.T) {
	r := invoiceRepo(t)
	obj := looseObject(t, r, "HEAD~3:tax.go") // tax.go at "21": the "21" and "19" commits' diffs need it
	saved, err := os.ReadFile(obj)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(obj); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	h, err := loadDir(ctx, r.dir, "", Options{})
	if err != nil {
		t.Fatalf("a missing blob loses the whole history: %v", err)
	}
	if h.Len() != 5 {
		t.Errorf("%d commits in the tables, want all 5", h.Len())
	}
	if co := paths(h.CoChanged([]string{"invoice.go"}, 3)); len(co) == 0 || co[0] != "tax.go" {
		t.Errorf("co-changed with invoice.go: %v, want tax.go first", co)
	}
	if past := paths(pastOf(h, "VAT line for the new rate")); len(past) != 2 || !slices.Contains(past, "tax.go") {
		t.Errorf("past changes like the VAT commits: %v, want invoice.go and tax.go", past)
	}
	if ts := touchesOf(h, "rounding of half cents"); len(ts) == 0 || ts[0].Path != "money.go" {
		t.Errorf("a readable commit lost its lines: %+v", ts)
	}
	// The initial import's lines of invoice.go and tax.go would have to be
	// followed through the unread commits' hunks: they are left out, not
	// misplaced; its lines of money.go, which no unread commit changed,
	// are kept.
	var kept []string
	for _, ts := range touchesOf(h, "initial import") {
		kept = append(kept, ts.Path)
	}
	if slices.Contains(kept, "tax.go") || slices.Contains(kept, "invoice.go") || !slices.Contains(kept, "money.go") {
		t.Errorf("the initial import's lines are in %v, want money.go only (the unread commits changed the others)", kept)
	}
	sha := r.git("rev-parse", "HEAD~3:tax.go")
	for _, want := range []string{"history read in part", "2 of 5 commits", "fatal: unable to read " + sha} {
		if !strings.Contains(h.Lost(), want) {
			t.Errorf("Lost %q does not say %q", h.Lost(), want)
		}
	}
	if strings.Contains(h.Lost(), "\n") {
		t.Errorf("Lost is more than one line: %q", h.Lost())
	}

	// The cache keeps the loss; at the same HEAD it is used as it is.
	cache := filepath.Join(t.TempDir(), "h.hist")
	if err := h.Save(cache, r.dir); err != nil {
		t.Fatal(err)
	}
	c, err := LoadCache(cache, r.dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if c.Lost() != h.Lost() {
		t.Errorf("the cache lost the loss: %q", c.Lost())
	}
	if same, err := c.extendDir(ctx, r.dir, "", Options{}); err != nil || same != c {
		t.Errorf("at the same HEAD the cached history is read again (%v)", err)
	}

	// The object comes back (a fetch, a repaired pack) and HEAD moves: the
	// history is read whole, not extended with the loss kept.
	if err := os.WriteFile(obj, saved, 0o444); err != nil {
		t.Fatal(err)
	}
	r.write("money.go", lines("money", 7))
	r.commit("round to even")
	h2, err := c.extendDir(ctx, r.dir, "", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if h2.Read != 6 || h2.Lost() != "" {
		t.Errorf("after the repair and a new commit: read %d commits, lost %q; want all 6 read, nothing lost", h2.Read, h2.Lost())
	}
}

// missingObjects counts the objects reachable in dir that it lacks,
// asking git not to fetch them.
func missingObjects(t *testing.T, dir string) int {
	t.Helper()
	cmd := exec.Command("git", "-C", dir, "rev-list", "--objects", "--missing=print", "--all")
	cmd.Env = append(os.Environ(), "GIT_NO_LAZY_FETCH=1", "GIT_CONFIG_NOSYSTEM=1")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git rev-list --missing=print: %v", err)
	}
	n := 0
	for _, l := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(l, "?") {
			n++
		}
	}
	return n
}

// TestPartialCloneNeverFetches: a real partial clone (blob:none, over
// file://) lacks the blobs of the past commits. Reading its history never
// fetches them, even with a git that ignores GIT_NO_LAZY_FETCH (one before
// the May 2024 security releases, 2.39.4 and on: simulated by leaving the
// variable out), and with the source gone the history still has every
// commit's files and message, and says what it lost.
func TestPartialCloneNeverFetches(t *testing.T) {
	r := invoiceRepo(t)
	// A rename with an edit: finding it needs the blobs the clone lacks.
	r.git("mv", "money.go", "amount.go")
	r.write("amount.go", lines("money", 6)+"// amounts\n")
	r.commit("move the money helpers")
	r.git("config", "uploadpack.allowFilter", "true")
	base := t.TempDir()
	clone := filepath.Join(base, "clone")
	r.git("clone", "-q", "--filter=blob:none", "--no-local", "file://"+r.dir, clone)
	missing := missingObjects(t, clone)
	if missing == 0 {
		t.Fatal("the partial clone lacks no object: the test proves nothing")
	}

	// A git that ignores GIT_NO_LAZY_FETCH, with the source reachable.
	cmd := Git{Dir: clone}.Command(context.Background(), "log", "-p", "-M", "--format=%H")
	cmd.Env = slices.DeleteFunc(cmd.Env, func(kv string) bool { return strings.HasPrefix(kv, "GIT_NO_LAZY_FETCH=") })
	cmd.Run() // it fails: the objects are missing
	if n := missingObjects(t, clone); n != missing {
		t.Fatalf("git log -p with ctxls's environment fetched %d objects from the promisor remote", missing-n)
	}

	// The source is gone: nothing could be fetched; the history is read
	// for what the clone holds.
	if err := os.Rename(r.dir, r.dir+".gone"); err != nil {
		t.Fatal(err)
	}
	h, err := loadDir(context.Background(), clone, "", Options{})
	if err != nil {
		t.Fatalf("a partial clone gives no history: %v", err)
	}
	if h.Len() != 6 {
		t.Errorf("%d commits in the tables, want all 6", h.Len())
	}
	if co := paths(h.CoChanged([]string{"invoice.go"}, 3)); len(co) == 0 || co[0] != "tax.go" {
		t.Errorf("co-changed with invoice.go: %v, want tax.go first", co)
	}
	if past := paths(pastOf(h, "rounding of half cents")); !slices.Equal(past, []string{"money.go"}) {
		t.Errorf("past changes like the rounding fix: %v, want money.go", past)
	}
	for _, want := range []string{"history read in part", "a partial clone", "never fetches", "renames are not followed"} {
		if !strings.Contains(h.Lost(), want) {
			t.Errorf("Lost %q does not say %q", h.Lost(), want)
		}
	}
	if n := missingObjects(t, clone); n != missing {
		t.Errorf("%d objects appeared", missing-n)
	}
}

// damagedPackRepo is a repository of four commits of a table, packed,
// whose blob of table.dat at HEAD~2 has damaged bytes in the pack; it
// returns the blob's hash and a func that repairs the pack.
func damagedPackRepo(t *testing.T) (r *gitRepo, sha string, repair func()) {
	r = newGitRepo(t)
	rnd := rand.New(rand.NewPCG(1, 2))
	for v := range 4 {
		data := make([]byte, 3000) // random: stored whole, not as a delta
		for i := range data {
			data[i] = byte(rnd.UintN(256))
		}
		r.write("table.dat", base64.StdEncoding.EncodeToString(data))
		r.write("table.go", strings.Replace(gamma, `"g"`, `"`+strconv.Itoa(v)+`"`, 1))
		r.commit("regenerate the table " + strconv.Itoa(v))
	}
	r.git("gc", "-q")
	sha = r.git("rev-parse", "HEAD~2:table.dat")
	idx, _ := filepath.Glob(filepath.Join(r.dir, ".git", "objects", "pack", "*.idx"))
	if len(idx) != 1 {
		t.Fatalf("packs: %v", idx)
	}
	off := -1
	for _, l := range strings.Split(r.git("verify-pack", "-v", idx[0]), "\n") {
		if f := strings.Fields(l); len(f) >= 5 && f[0] == sha && f[1] == "blob" {
			off, _ = strconv.Atoi(f[4])
		}
	}
	if off < 0 {
		t.Fatalf("%s is not in the pack", sha)
	}
	pack := strings.TrimSuffix(idx[0], ".idx") + ".pack"
	os.Chmod(pack, 0o644)
	write := func(b []byte) {
		f, err := os.OpenFile(pack, os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if _, err := f.WriteAt(b, int64(off+8)); err != nil {
			t.Fatal(err)
		}
	}
	saved := make([]byte, 16)
	f, err := os.Open(pack)
	if err != nil {
		t.Fatal(err)
	}
	f.ReadAt(saved, int64(off+8))
	f.Close()
	write(bytes.Repeat([]byte{0xff}, 16))
	return r, sha, func() { write(saved) }
}

// TestLoadThroughADamagedPack: a packed blob whose bytes are damaged
// stops git log -p as a missing one does; the history keeps every
// commit's files and says what it lost.
func TestLoadThroughADamagedPack(t *testing.T) {
	r, sha, _ := damagedPackRepo(t)
	h, err := loadDir(context.Background(), r.dir, "", Options{})
	if err != nil {
		t.Fatalf("a damaged pack loses the whole history: %v", err)
	}
	if h.Len() != 4 || !strings.Contains(h.Lost(), "2 of 4 commits") || !strings.Contains(h.Lost(), sha) {
		t.Errorf("%d commits, lost %q; want all 4, the two commits whose diffs need %s said", h.Len(), h.Lost(), sha)
	}
	if co := paths(h.CoChanged([]string{"table.go"}, 3)); !slices.Equal(co, []string{"table.dat"}) {
		t.Errorf("co-changed with table.go: %v, want table.dat", co)
	}
}

// TestDamagedPackIsExtended: a damaged pack's object is there (git
// cat-file -e finds it) but cannot be read. While it cannot, a HEAD move
// extends the history with the new commit, its loss kept, as a missing
// object's does, not read again whole at every HEAD move; once the pack
// is repaired, the next HEAD move reads it whole.
func TestDamagedPackIsExtended(t *testing.T) {
	r, _, repair := damagedPackRepo(t)
	ctx := context.Background()
	h, err := loadDir(ctx, r.dir, "", Options{})
	if err != nil || h.Lost() == "" {
		t.Fatalf("the damaged pack's history: lost %q (%v)", h.Lost(), err)
	}
	r.write("table.go", gamma+"// sorted\n")
	r.commit("sort the table")
	h2, err := h.extendDir(ctx, r.dir, "", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if h2.Read != 1 || h2.Len() != 5 || !strings.Contains(h2.Lost(), "2 of 5 commits") {
		t.Errorf("after a commit: read %d commits, %d in the tables, lost %q; want the new one read, 5 in all, 2 of 5 unread", h2.Read, h2.Len(), h2.Lost())
	}
	repair()
	r.write("table.go", gamma+"// sorted twice\n")
	r.commit("sort the table again")
	h3, err := h2.extendDir(ctx, r.dir, "", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if h3.Read != 6 || h3.Lost() != "" {
		t.Errorf("after the repair and a commit: read %d commits, lost %q; want all 6 read, nothing lost", h3.Read, h3.Lost())
	}
}

// partialClone clones r with --filter=blob:none and takes r away, so
// that nothing could be fetched.
func partialCloneOf(t *testing.T, r *gitRepo) *gitRepo {
	t.Helper()
	r.git("config", "uploadpack.allowFilter", "true")
	c := &gitRepo{tb: t, dir: filepath.Join(t.TempDir(), "clone"), n: 1000}
	r.git("clone", "-q", "--filter=blob:none", "--no-local", "file://"+r.dir, c.dir)
	if err := os.Rename(r.dir, r.dir+".gone"); err != nil {
		t.Fatal(err)
	}
	return c
}

// TestPartialCloneIsExtended: a partial clone's history lost the lines of
// the commits whose blobs it lacks. When HEAD moves and the first missing
// object is still missing, the history is extended with the new commit
// (one git cat-file -e asks), not read again whole at every HEAD move,
// and it still says its loss, counted over all its commits.
func TestPartialCloneIsExtended(t *testing.T) {
	c := partialCloneOf(t, invoiceRepo(t))
	ctx := context.Background()
	h, err := loadDir(ctx, c.dir, "", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if h.Lost() == "" || h.Read != 5 {
		t.Fatalf("the partial clone's history: read %d, lost %q; want 5 read and a loss", h.Read, h.Lost())
	}
	cache := filepath.Join(t.TempDir(), "h.hist")
	if err := h.Save(cache, c.dir); err != nil {
		t.Fatal(err)
	}
	cached, err := LoadCache(cache, c.dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	c.write("tax.go", gamma+"// rates\n")
	c.commit("note where the rates come from")
	for _, from := range []*History{h, cached} {
		runs := 0
		repo, err := counted(c.dir, &runs).Open(ctx)
		if err != nil {
			t.Fatal(err)
		}
		h2, err := from.Extend(ctx, repo, "", Options{})
		if err != nil {
			t.Fatal(err)
		}
		if h2.Read != 1 || h2.Len() != 6 {
			t.Errorf("after a new commit: read %d commits, %d in the tables; want the new one read, 6 in all", h2.Read, h2.Len())
		}
		for _, want := range []string{"a partial clone", "never fetches", " of 6 commits"} {
			if !strings.Contains(h2.Lost(), want) {
				t.Errorf("the extension's loss %q does not say %q", h2.Lost(), want)
			}
		}
		if runs > 12 {
			t.Errorf("the extension ran git %d times", runs)
		}
		if ts := touchesOf(h2, "where the rates come from"); len(ts) == 0 || ts[0].Path != "tax.go" {
			t.Errorf("the new commit's lines: %+v, want tax.go", ts)
		}
	}
}

// TestTreelessCloneSaysWhy: a treeless partial clone (--filter=tree:0)
// lacks the trees git needs to list any past commit's files; its history
// cannot be read without fetching, and the error says that in one line,
// not git's "could not fetch", which reads as if ctxls tried to.
func TestTreelessCloneSaysWhy(t *testing.T) {
	r := invoiceRepo(t)
	r.git("config", "uploadpack.allowFilter", "true")
	clone := filepath.Join(t.TempDir(), "clone")
	r.git("clone", "-q", "--filter=tree:0", "--no-local", "file://"+r.dir, clone)
	if err := os.Rename(r.dir, r.dir+".gone"); err != nil {
		t.Fatal(err)
	}
	_, err := loadDir(context.Background(), clone, "", Options{})
	if err == nil {
		t.Fatal("a treeless clone's history was read: the test proves nothing")
	}
	for _, want := range []string{"treeless partial clone", "without fetching", "never fetches"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error %q does not say %q", err, want)
		}
	}
	if strings.Contains(err.Error(), "\n") || strings.Contains(err.Error(), "could not fetch") {
		t.Errorf("the error is not one clear line: %q", err)
	}
}

// TestUnreadRenameKeepsTheCommitBefore: an object that goes missing after
// the first pass found a rename with it (a gc between the passes) stops
// the hunk pass while git finds that commit's renames, before it prints
// it: the commit git printed last is whole, read again alone, and keeps
// its lines; only the commits that need the object lose theirs.
func TestUnreadRenameKeepsTheCommitBefore(t *testing.T) {
	r := newGitRepo(t)
	r.git("config", "gc.auto", "0")
	r.write("money.go", lines("money", 20))
	r.write("other.go", lines("other", 3))
	r.commit("add the money helpers")
	r.git("mv", "money.go", "amount.go")
	r.write("amount.go", lines("money", 20)+"// amounts\n")
	r.commit("move the money helpers")
	r.write("other.go", lines("other", 4))
	r.commit("count one more other thing")
	obj := looseObject(t, r, "HEAD~2:money.go")
	// The object goes missing just before the second pass, the first
	// git log -p, starts.
	g := Git{Dir: r.dir, Hook: func(args []string) {
		if slices.Contains(args, "-p") {
			os.Remove(obj)
		}
	}}
	repo, err := g.Open(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	h, err := Load(context.Background(), repo, "", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if ts := touchesOf(h, "count one more other thing"); len(ts) != 1 || ts[0].Path != "other.go" {
		t.Errorf("the commit git printed before it stopped lost its lines: %+v", ts)
	}
	if !strings.Contains(h.Lost(), "2 of 3 commits") || strings.Contains(h.Lost(), "renames are not followed") {
		t.Errorf("Lost %q, want the move and the addition (2 of 3) unread, renames followed", h.Lost())
	}
	if co := paths(h.CoChanged([]string{"amount.go"}, 3)); len(co) != 1 || co[0] != "money.go" {
		t.Errorf("co-changed with amount.go: %v, want money.go (the rename's old name)", co)
	}
}

// TestUnreadCommitsAreBounded: a partial clone lacks the blobs of every
// past commit; past maxUnread commits looked for one at a time, the rest
// keep their files and messages without more git runs, and the loss says
// all of them.
func TestUnreadCommitsAreBounded(t *testing.T) {
	r := newGitRepo(t)
	for i := range 30 {
		r.write("rates.go", lines("rate", i+2))
		r.commit("add rate " + strconv.Itoa(i))
	}
	c := partialCloneOf(t, r)
	runs := 0
	repo, err := counted(c.dir, &runs).Open(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	h, err := Load(context.Background(), repo, "", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if runs > 2*maxUnread+10 {
		t.Errorf("reading 30 commits whose blobs are missing ran git %d times", runs)
	}
	if h.Len() != 30 || !strings.Contains(h.Lost(), "30 of 30 commits") {
		t.Errorf("%d commits in the tables, lost %q; want 30, the lines of 30 of 30 left out", h.Len(), h.Lost())
	}
}

// TestPartialCloneConfig: a repository is a partial clone when a remote
// is a promisor (any way git spells true, or the key alone) or
// extensions.partialClone names a remote; one git config tells.
func TestPartialCloneConfig(t *testing.T) {
	for _, c := range []struct {
		config string
		want   bool
	}{
		{"", false},
		{"[remote \"origin\"]\n\tpromisor = true\n", true},
		{"[remote \"Up\"]\n\tpromisor = Yes\n", true},
		{"[remote \"origin\"]\n\tpromisor\n", true},
		{"[remote \"origin\"]\n\tpromisor = false\n", false},
		{"[extensions]\n\tpartialClone = origin\n", true},
		{"[remote \"origin\"]\n\tpromisor = 0\n[extensions]\n\tpartialclone = origin\n", true},
	} {
		r := newGitRepo(t)
		f, err := os.OpenFile(filepath.Join(r.dir, ".git", "config"), os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString(c.config)
		f.Close()
		runs := 0
		if got := partialClone(context.Background(), counted(r.dir, &runs)); got != c.want || runs != 1 {
			t.Errorf("%q: partial clone %v in %d git runs, want %v in 1", c.config, got, runs, c.want)
		}
	}
}
