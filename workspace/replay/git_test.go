package replay

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/workspace/testutil"
)

// partialClone is a blob:none clone of a repository whose last commit
// renames a file with an edit (finding the rename needs the blobs the
// clone lacks), with the source taken away: nothing can be fetched.
func partialClone(t *testing.T) (clone, head string) {
	t.Helper()
	g := newGitRepo(t)
	body := strings.Repeat("// a line of the money helpers\n", 20)
	g.commit("add the money helpers", map[string]string{"money.go": goFile("money", body)})
	g.commit("move the money helpers", map[string]string{"money.go": "", "amount.go": goFile("money", body+"// amounts\n")})
	g.run("config", "uploadpack.allowFilter", "true")
	clone = filepath.Join(t.TempDir(), "clone")
	g.run("clone", "-q", "--bare", "--filter=blob:none", "--no-local", "file://"+g.dir, clone)
	if err := os.Rename(g.dir, g.dir+".gone"); err != nil {
		t.Fatal(err)
	}
	r, err := openRepo(context.Background(), clone)
	if err != nil {
		t.Fatal(err)
	}
	out, err := r.git(context.Background(), "rev-parse", "HEAD")
	if err != nil {
		t.Fatal(err)
	}
	return clone, strings.TrimSpace(string(out))
}

// TestCommitInfoInAPartialClone: a case's parent and message need only
// the commit; a partial clone that lacks the blobs of its renamed files
// still gives them (git show -s finds the commit's renames, and fails).
func TestCommitInfoInAPartialClone(t *testing.T) {
	clone, head := partialClone(t)
	ctx := context.Background()
	r, err := openRepo(ctx, clone)
	if err != nil {
		t.Fatal(err)
	}
	defer r.close()
	parent, msg, err := r.commitInfo(ctx, head)
	if err != nil {
		t.Fatalf("a partial clone's commit has no message: %v", err)
	}
	if parent == "" || strings.TrimSpace(msg) != "move the money helpers" {
		t.Errorf("parent %q, message %q; want the first commit and the move's message", parent, msg)
	}
	// What does need the missing blobs fails in one line naming git's
	// last line on its standard error, not its warnings before it.
	_, err = r.hunks(ctx, parent, head, nil)
	if err == nil {
		t.Fatal("the partial clone's diff was read: the test proves nothing")
	}
	if strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), "fatal:") {
		t.Errorf("the error is not git's last line: %q", err)
	}
}

// TestNoGitSaysSo: without git on the PATH every way replay runs git,
// the long-lived cat-file included, says that git is not installed.
func TestNoGitSaysSo(t *testing.T) {
	g := newGitRepo(t)
	g.commit("one", map[string]string{"a.go": goFile("a")})
	ctx := context.Background()
	r, err := openRepo(ctx, g.dir)
	if err != nil {
		t.Fatal(err)
	}
	sha := g.run("rev-parse", "HEAD:a.go")
	t.Setenv("PATH", t.TempDir())
	if _, err := openRepo(ctx, g.dir); err == nil || !strings.Contains(err.Error(), "git is not installed") {
		t.Errorf("openRepo without git: %v", err)
	}
	if _, err := r.size(sha); err == nil || !strings.Contains(err.Error(), "git is not installed") {
		t.Errorf("cat-file without git: %v", err)
	}
	if _, err := r.blob(sha, 1<<20); err == nil || !strings.Contains(err.Error(), "git is not installed") {
		t.Errorf("cat-file --batch without git: %v", err)
	}
}

// signedRepo is a repository of two commits signed with a stand-in gpg,
// configured as one whose owner signs (log.showSignature): git log then
// runs gpg for every signed commit it shows and writes what gpg says among
// its output. Each check gpg is asked for is counted in the file checks.
func signedRepo(t *testing.T) (g *gitRepo, checks string) {
	t.Helper()
	g = newGitRepo(t)
	var gpg string
	gpg, checks = testutil.StandInGPG(t)
	g.run("config", "gpg.program", gpg)
	g.run("config", "commit.gpgSign", "true")
	g.commit("add the money helpers", map[string]string{"money.go": goFile("money", "// money\n")})
	g.commit("round the money", map[string]string{"money.go": goFile("money", "// money, rounded\n")})
	g.run("config", "log.showSignature", "true")
	if out := g.run("log", "-1", "--format=%H"); !strings.Contains(out, "stand-in") {
		t.Fatalf("git log shows no signature check: %q", out)
	}
	os.Remove(checks)
	return g, checks
}

// TestCommitInfoOfASignedCommit: a signed commit's parent and message are
// read as any commit's, though its owner asks git log to check signatures
// (which it would write before them), and gpg is not run.
func TestCommitInfoOfASignedCommit(t *testing.T) {
	g, checks := signedRepo(t)
	ctx := context.Background()
	r, err := openRepo(ctx, g.dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.close()
	head := g.run("rev-parse", "HEAD")
	parent, msg, err := r.commitInfo(ctx, head)
	if err != nil {
		t.Fatal(err)
	}
	if want := g.run("rev-parse", "HEAD~1"); parent != want || strings.TrimSpace(msg) != "round the money" {
		t.Errorf("parent %q, message %q; want %s and the commit's message", parent, msg, want)
	}
	if _, err := os.Stat(checks); err == nil {
		t.Errorf("gpg was run to check a signature")
	}
}
