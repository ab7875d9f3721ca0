package workspace

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestHistorySurvivesAMissingObject: a blob deleted from the repository
// (as a damaged pack or a half-copied .git leaves it) makes git log -p
// stop; the workspace still has the history's co-change, stats.history
// says what was lost in one line, the log says it once, and a restart
// takes the history from the cache (no git read) and says it again.
func TestHistorySurvivesAMissingObject(t *testing.T) {
	r := billing(t)
	sha := r.git("rev-parse", "HEAD~4:tax/table.go") // the "21" table: two commits' diffs need it
	if err := os.Remove(filepath.Join(r.dir, ".git", "objects", sha[:2], sha[2:])); err != nil {
		t.Fatalf("the blob is not a loose object: %v", err)
	}
	cache := t.TempDir()
	var log bytes.Buffer
	ws := cachedHistWorkspace(t, r.dir, cache, &log)
	req := regulation(r.dir, 4)
	sel := selDo(t, ws, req)
	st := sel.Stats.History
	if st.Commits != 6 || st.Reason != "" {
		t.Fatalf("stats.history %+v: want all 6 commits", st)
	}
	taxTableNear(t, "", sel)
	for _, want := range []string{"history read in part", "2 of 6 commits", "unable to read " + sha} {
		if !strings.Contains(st.Partial, want) {
			t.Errorf("stats.history.partial %q does not say %q", st.Partial, want)
		}
	}
	if n := strings.Count(log.String(), "history read in part"); n != 1 {
		t.Errorf("the loss is logged %d times, want once:\n%s", n, log.String())
	}

	log.Reset()
	ws = cachedHistWorkspace(t, r.dir, cache, &log)
	if read, n := readOf(t, ws); read != 0 || n != 6 {
		t.Errorf("a restart at the same HEAD read %d commits from git (%d in the tables), want 0 (the cache)", read, n)
	}
	if st := selDo(t, ws, req).Stats.History; st.Partial == "" {
		t.Errorf("after a restart stats.history does not say what was lost: %+v", st)
	}
	if !strings.Contains(log.String(), "history read in part") {
		t.Errorf("after a restart the log does not say what was lost:\n%s", log.String())
	}
}

// TestHistoryOfAPartialClone: a partial clone whose source is gone is
// read for what it holds: co-change answers, and stats.history says a
// partial clone lacks objects ctxls never fetches.
func TestHistoryOfAPartialClone(t *testing.T) {
	clone := partialCloneOf(t, billing(t), "blob:none")
	ws := histWorkspace(t, clone)
	sel := selDo(t, ws, regulation(clone, 4))
	st := sel.Stats.History
	if st.Commits != 6 || !strings.Contains(st.Partial, "a partial clone") || !strings.Contains(st.Partial, "never fetches") {
		t.Fatalf("stats.history %+v: want 6 commits and the partial clone said", st)
	}
	taxTableNear(t, "", sel)
}

// TestFailedHistoryIsNotReadAgain: a treeless partial clone has no
// history, and stats.history says why in one line; the next refresh at
// the same HEAD (every file-change batch makes one) runs git once, to
// find HEAD unchanged, rather than failing the whole read again.
func TestFailedHistoryIsNotReadAgain(t *testing.T) {
	clone := partialCloneOf(t, billing(t), "tree:0")
	ws := histWorkspace(t, clone)
	req := regulation(clone, 4)
	if st := selDo(t, ws, req).Stats.History; st.Commits != 0 || !strings.Contains(st.Reason, "a treeless partial clone") || !strings.Contains(st.Reason, "never fetches") {
		t.Fatalf("stats.history %+v: want no commits and the treeless clone said", st)
	}

	// Every git command from here is logged by a wrapper first on PATH.
	real, err := exec.LookPath("git")
	if err != nil {
		t.Fatal(err)
	}
	bin, calls := t.TempDir(), filepath.Join(t.TempDir(), "calls")
	script := "#!/bin/sh\necho \"$*\" >> '" + calls + "'\nexec '" + real + "' \"$@\"\n"
	if err := os.WriteFile(filepath.Join(bin, "git"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	ws.loadHistory(context.Background())
	log, _ := os.ReadFile(calls)
	if n := strings.Count(string(log), "\n"); n != 1 {
		t.Errorf("a refresh at the same HEAD ran git %d times, want 1:\n%s", n, log)
	}
	if st := selDo(t, ws, req).Stats.History; !strings.Contains(st.Reason, "a treeless partial clone") {
		t.Errorf("after the refresh stats.history %+v lost the reason", st)
	}
}

// partialCloneOf clones r with git clone --filter=filter and moves r
// away, so that any fetch the clone tried would fail.
func partialCloneOf(t *testing.T, r *histRepo, filter string) string {
	t.Helper()
	r.git("config", "uploadpack.allowFilter", "true")
	clone := filepath.Join(t.TempDir(), "clone")
	r.git("clone", "-q", "--filter="+filter, "--no-local", "file://"+r.dir, clone)
	if err := os.Rename(r.dir, r.dir+".gone"); err != nil {
		t.Fatal(err)
	}
	return clone
}
