package history

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// shopRepo: five files; the cart and the price rules change together
// three times, the stock count and the mail template alone. Newest first:
// mail, cart+price (discount), stock, cart+price (rounding), cart+price
// (rules), the initial import of all five.
func shopRepo(t *testing.T) *gitRepo {
	r := newGitRepo(t)
	for _, f := range []string{"cart", "price", "stock", "mail", "login"} {
		r.write(f+".go", lines(f, 8))
	}
	r.commit("initial import")
	for i, msg := range []string{"cart: apply the price rules", "cart: round prices to cents"} {
		r.write("cart.go", lines("cart", 8)+lines("rule", i+1))
		r.write("price.go", lines("price", 8)+lines("rule", i+1))
		r.commit(msg)
	}
	r.write("stock.go", lines("stock", 9))
	r.commit("stock: count reserved items")
	r.write("cart.go", lines("cart", 8)+lines("rule", 2)+lines("discount", 1))
	r.write("price.go", lines("price", 8)+lines("rule", 2)+lines("discount", 1))
	r.commit("cart: show the discounted price")
	r.write("mail.go", lines("mail", 9))
	r.commit("mail: say the order number")
	return r
}

// shallowClone clones r with git clone --depth depth.
func shallowClone(t *testing.T, r *gitRepo, depth string) *gitRepo {
	t.Helper()
	c := &gitRepo{tb: t, dir: filepath.Join(t.TempDir(), "clone"), n: 1000}
	r.git("clone", "-q", "--depth", depth, "file://"+r.dir, c.dir)
	if c.git("rev-parse", "--is-shallow-repository") != "true" {
		t.Fatal("the clone is not shallow")
	}
	return c
}

// TestShallowCloneGivesItsCommits: a clone of the last three commits
// gives the co-change its two real changes hold (the cart's partner is
// the price rules), and the boundary commit, which git log shows adding
// all five files, adds no co-change, no past message and no lines. The
// history says it is a shallow clone's 3 commits.
func TestShallowCloneGivesItsCommits(t *testing.T) {
	c := shallowClone(t, shopRepo(t), "3")
	h, err := loadDir(context.Background(), c.dir, "", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := paths(h.CoChanged([]string{"cart.go"}, 5)); !slices.Equal(got, []string{"price.go"}) {
		t.Errorf("co-changed with cart.go: %v, want only price.go (the boundary commit is no change)", got)
	}
	if got := paths(h.CoChanged([]string{"stock.go"}, 5)); len(got) != 0 {
		t.Errorf("co-changed with stock.go, which only the boundary commit shows: %v", got)
	}
	if got := paths(pastOf(h, "count reserved items")); len(got) != 0 {
		t.Errorf("the boundary commit's message votes for %v", got)
	}
	if got := touchesOf(h, "count reserved items"); len(got) != 0 {
		t.Errorf("the boundary commit has lines: %+v", got)
	}
	if got := touchesOf(h, "show the discounted price"); len(got) != 2 || got[0].Start != 11 {
		t.Errorf("the discount's lines: %+v, want cart.go and price.go at line 11", got)
	}
	if h.Len() != 2 || h.Read != 3 {
		t.Errorf("%d commits in the tables of %d read, want 2 of 3", h.Len(), h.Read)
	}
	for _, want := range []string{"a shallow clone", "its 3 commits read, 2 kept", "git fetch --unshallow"} {
		if !strings.Contains(h.Partial(), want) {
			t.Errorf("the history says %q, not %q", h.Partial(), want)
		}
	}
	if h.Lost() != "" {
		t.Errorf("a shallow clone read whole says it lost something: %q", h.Lost())
	}
}

// TestDepthOneCloneHasNoCoChange: a depth-1 clone's only commit is its
// boundary: in a repository this small every file would co-change with
// every other; none does.
func TestDepthOneCloneHasNoCoChange(t *testing.T) {
	c := shallowClone(t, shopRepo(t), "1")
	h, err := loadDir(context.Background(), c.dir, "", Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"cart.go", "price.go", "stock.go", "mail.go", "login.go"} {
		if got := paths(h.CoChanged([]string{f}, 5)); len(got) != 0 {
			t.Errorf("co-changed with %s: %v, want none", f, got)
		}
	}
	if h.Len() != 0 || !strings.Contains(h.Partial(), "its 1 commit ") {
		t.Errorf("%d commits in the tables, says %q; want none and a shallow clone's 1 commit", h.Len(), h.Partial())
	}
}

// TestDeepenedCloneIsReadAgain: a history (and its cache) read on a
// depth-2 clone is not current once the clone is deepened, though HEAD
// did not move: extending it, or its cache, reads the older commits, and
// the old boundary commit counts as the real change it now is.
func TestDeepenedCloneIsReadAgain(t *testing.T) {
	ctx := context.Background()
	c := shallowClone(t, shopRepo(t), "2")
	h, err := loadDir(ctx, c.dir, "", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := h.CoChanged([]string{"cart.go"}, 5); len(got) != 0 || h.Len() != 1 {
		t.Fatalf("depth 2: %d commits, cart.go co-changes with %v; want 1 and none (the discount is the boundary)", h.Len(), paths(got))
	}
	file := filepath.Join(t.TempDir(), "0123456789abcdef.hist")
	if err := h.Save(file, c.dir); err != nil {
		t.Fatal(err)
	}

	c.git("fetch", "-q", "--deepen", "3")
	head := c.git("rev-parse", "HEAD")
	repo, err := Open(ctx, c.dir)
	if err != nil {
		t.Fatal(err)
	}
	if head != h.Head || h.Current(ctx, repo, Options{}) {
		t.Fatalf("after deepening, HEAD moved (%v) or the old history is still current", head != h.Head)
	}
	cached, err := LoadCache(file, c.dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for name, from := range map[string]*History{"history": h, "cache": cached} {
		d, err := from.extendDir(ctx, c.dir, "", Options{})
		if err != nil {
			t.Fatal(err)
		}
		if d == from || d.Read != 5 || d.Len() != 4 {
			t.Errorf("%s extended after deepening: read %d, %d in the tables; want a new read of 5 commits, 4 kept", name, d.Read, d.Len())
		}
		got := d.CoChanged([]string{"cart.go"}, 5)
		if len(got) != 1 || got[0].Path != "price.go" || !strings.Contains(got[0].Why, "2 of its last 2") {
			t.Errorf("%s: cart.go co-changes with %+v, want price.go in 2 of 2 (the discount and the rounding)", name, got)
		}
		if !strings.Contains(d.Partial(), "its 5 commits") || !d.Current(ctx, repo, Options{}) {
			t.Errorf("%s: says %q, current %v", name, d.Partial(), d.Current(ctx, repo, Options{}))
		}
	}

	c.git("fetch", "-q", "--unshallow")
	whole, err := LoadCache(file, c.dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if whole, err = whole.extendDir(ctx, c.dir, "", Options{}); err != nil {
		t.Fatal(err)
	}
	if whole.Partial() != "" || whole.Read != 6 || whole.Len() != 6 {
		t.Errorf("unshallowed: read %d, %d kept, says %q; want all 6, nothing said", whole.Read, whole.Len(), whole.Partial())
	}
}

// TestShallowCloneExtends: a pull into a shallow clone keeps its boundary;
// the history is extended with the new commit only, and is what a full
// read gives.
func TestShallowCloneExtends(t *testing.T) {
	ctx := context.Background()
	r := shopRepo(t)
	c := shallowClone(t, r, "3")
	old, err := loadDir(ctx, c.dir, "", Options{})
	if err != nil {
		t.Fatal(err)
	}
	r.write("cart.go", lines("cart", 8)+lines("rule", 2)+lines("discount", 2))
	r.write("price.go", lines("price", 8)+lines("rule", 2)+lines("discount", 2))
	r.commit("cart: a second discount")
	c.git("pull", "-q", "--ff-only")
	ext, err := old.extendDir(ctx, c.dir, "", Options{})
	if err != nil {
		t.Fatal(err)
	}
	full, err := loadDir(ctx, c.dir, "", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if ext.Read != 1 || !reflect.DeepEqual(ext.raw(), full.raw()) {
		t.Errorf("extension read %d commits (want 1) and equals a full read: %v", ext.Read, reflect.DeepEqual(ext.raw(), full.raw()))
	}
	if !strings.Contains(ext.Partial(), "its 4 commits") {
		t.Errorf("the extended history says %q", ext.Partial())
	}
}

// TestCurrentCostsOneGitRun: telling that a history is current at an
// unchanged HEAD (what every file-change batch asks of every folder) runs
// git once, for a whole repository and for a shallow clone whose shallow
// file did not change (no walk of its commits), its cache too; after a
// deepening the shallow clone's history is no longer current.
func TestCurrentCostsOneGitRun(t *testing.T) {
	ctx := context.Background()
	r := shopRepo(t)
	c := shallowClone(t, r, "2")
	for _, dir := range []string{r.dir, c.dir} {
		h, err := loadDir(ctx, dir, "", Options{})
		if err != nil {
			t.Fatal(err)
		}
		file := filepath.Join(t.TempDir(), "h.hist")
		if err := h.Save(file, dir); err != nil {
			t.Fatal(err)
		}
		cached, err := LoadCache(file, dir, Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, from := range []*History{h, cached} {
			runs := 0
			repo, err := counted(dir, &runs).Open(ctx)
			if err != nil || !from.Current(ctx, repo, Options{}) {
				t.Errorf("%s: not current at its own HEAD (%v)", dir, err)
			}
			if runs != 1 {
				t.Errorf("%s: telling the history is current ran git %d times, want 1", dir, runs)
			}
		}
	}
	h, err := loadDir(ctx, c.dir, "", Options{})
	if err != nil {
		t.Fatal(err)
	}
	c.git("fetch", "-q", "--deepen", "1")
	if repo, err := Open(ctx, c.dir); err != nil || h.Current(ctx, repo, Options{}) {
		t.Errorf("after deepening the clone its history is still current (%v)", err)
	}
}

// TestCurrentWhenTheBoundaryCannotBeRead: a shallow clone whose shallow
// file changed but whose commits git can no longer walk (a commit object
// lost) keeps its history as current at the same HEAD: reading it again
// would fail the same way at every refresh.
func TestCurrentWhenTheBoundaryCannotBeRead(t *testing.T) {
	ctx := context.Background()
	c := shallowClone(t, shopRepo(t), "3")
	h, err := loadDir(ctx, c.dir, "", Options{})
	if err != nil {
		t.Fatal(err)
	}
	c.git("fetch", "-q", "--deepen", "1") // the shallow file changes
	// Every object loose, then HEAD~1's commit removed.
	packs, _ := filepath.Glob(filepath.Join(c.dir, ".git", "objects", "pack", "*.pack"))
	for _, p := range packs {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		os.Rename(p, p+".old")
		os.Rename(strings.TrimSuffix(p, ".pack")+".idx", p+".idx.old")
		cmd := exec.Command("git", "-C", c.dir, "unpack-objects", "-q")
		cmd.Stdin = bytes.NewReader(data)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("unpack-objects: %v: %s", err, out)
		}
	}
	sha := c.git("rev-parse", "HEAD~1")
	if err := os.Remove(filepath.Join(c.dir, ".git", "objects", sha[:2], sha[2:])); err != nil {
		t.Fatal(err)
	}
	if _, err := loadDir(ctx, c.dir, "", Options{}); err == nil {
		t.Fatal("the history can still be read: the test proves nothing")
	}
	repo, err := Open(ctx, c.dir)
	if err != nil {
		t.Fatal(err)
	}
	if !h.Current(ctx, repo, Options{}) {
		t.Error("a boundary git cannot read makes the history not current: every refresh would read it again and fail")
	}
}

// TestShallowFileChangeIsReadOnce: a fetch of another branch rewrites a
// shallow clone's shallow file but not its boundary below HEAD: the
// history is read again not at all, and once extended (with the file's
// new stamp) it is current at one git run again.
func TestShallowFileChangeIsReadOnce(t *testing.T) {
	ctx := context.Background()
	r := shopRepo(t)
	c := shallowClone(t, r, "3")
	h, err := loadDir(ctx, c.dir, "", Options{})
	if err != nil {
		t.Fatal(err)
	}
	r.git("checkout", "-q", "-b", "side", "HEAD~4")
	r.write("login.go", lines("login", 9))
	r.commit("login: remember the user")
	before, _ := os.ReadFile(filepath.Join(c.dir, ".git", "shallow"))
	c.git("fetch", "-q", "--depth", "1", "origin", "side")
	after, _ := os.ReadFile(filepath.Join(c.dir, ".git", "shallow"))
	if string(before) == string(after) {
		t.Fatal("the fetch left the shallow file as it was: the test proves nothing")
	}
	runs := 0
	repo, err := counted(c.dir, &runs).Open(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ext, err := h.Extend(ctx, repo, repo.Head, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if ext.Read != h.Read || ext.Len() != h.Len() || ext.Partial() != h.Partial() {
		t.Errorf("the same boundary was read again: read %d, %d kept, says %q", ext.Read, ext.Len(), ext.Partial())
	}
	runs = 0
	if !ext.Current(ctx, repo, Options{}) || runs != 0 {
		t.Errorf("after the extension the history is not current without git (%d runs)", runs)
	}
}

// TestRefreshGitRuns: a refresh after HEAD moved by one commit (what a
// commit or a pull looks like to the workspace: Open, Current, Extend)
// runs git at most want times: Open's one rev-parse says what the
// extension needs of the repository (its prefix, whether it is
// shallow), and a read that lost objects asks whether it is a partial
// clone with one git config.
func TestRefreshGitRuns(t *testing.T) {
	ctx := context.Background()
	whole := shopRepo(t)
	shallow := shallowClone(t, shopRepo(t), "3")
	partial := partialCloneOf(t, invoiceRepo(t))
	for _, c := range []struct {
		name string
		r    *gitRepo
		want int
	}{{"whole", whole, 5}, {"shallow", shallow, 7}, {"partial", partial, 6}} {
		h, err := loadDir(ctx, c.r.dir, "", Options{})
		if err != nil {
			t.Fatal(err)
		}
		c.r.write("cart.go", lines("cart", 12))
		c.r.commit("cart: keep the cart a week")
		runs := 0
		repo, err := counted(c.r.dir, &runs).Open(ctx)
		if err != nil || h.Current(ctx, repo, Options{}) {
			t.Fatalf("%s: current after a commit (%v)", c.name, err)
		}
		ext, err := h.Extend(ctx, repo, "", Options{})
		if err != nil || ext.Read != 1 {
			t.Fatalf("%s: the extension read %v commits (%v), want 1", c.name, ext, err)
		}
		t.Logf("%s: a refresh after a commit ran git %d times", c.name, runs)
		if runs > c.want {
			t.Errorf("%s: a refresh after a commit ran git %d times, want at most %d", c.name, runs, c.want)
		}
	}
}
