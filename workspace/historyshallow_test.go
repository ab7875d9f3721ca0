package workspace

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// shallowOf clones r with git clone --depth depth.
func shallowOf(t *testing.T, r *histRepo, depth string) *histRepo {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	c := &histRepo{t: t, dir: filepath.Join(dir, "clone")}
	r.git("clone", "-q", "--depth", depth, "file://"+r.dir, c.dir)
	return c
}

// TestHistoryOfAShallowClone: a clone of billing's last five commits
// (the oldest of them, its boundary, shows every file added) selects the
// tax table for the open invoice renderer from the two co-changes it
// holds; stats.history counts the 4 real changes and says, as the log
// does once, that this is a shallow clone's 5 commits and how to have
// all. A restart takes it from the cache and says it again.
func TestHistoryOfAShallowClone(t *testing.T) {
	c := shallowOf(t, billing(t), "5")
	cache := t.TempDir()
	var log bytes.Buffer
	ws := cachedHistWorkspace(t, c.dir, cache, &log)
	req := regulation(c.dir, 4)
	sel := selDo(t, ws, req)
	st := sel.Stats.History
	if st.Commits != 4 || st.Reason != "" {
		t.Fatalf("stats.history %+v: want the 4 commits after the boundary", st)
	}
	taxTableNear(t, "", sel)
	for _, want := range []string{"a shallow clone", "its 5 commits", "git fetch --unshallow"} {
		if !strings.Contains(st.Partial, want) {
			t.Errorf("stats.history.partial %q does not say %q", st.Partial, want)
		}
	}
	ws.loadHistory(context.Background())
	if n := strings.Count(log.String(), "a shallow clone"); n != 1 {
		t.Errorf("the shallow clone is logged %d times, want once:\n%s", n, log.String())
	}

	log.Reset()
	ws = cachedHistWorkspace(t, c.dir, cache, &log)
	if read, n := readOf(t, ws); read != 0 || n != 4 {
		t.Errorf("a restart at the same HEAD read %d commits from git (%d in the tables), want 0 (the cache)", read, n)
	}
	if st := selDo(t, ws, req).Stats.History; !strings.Contains(st.Partial, "a shallow clone") {
		t.Errorf("after a restart stats.history does not say it is a shallow clone: %+v", st)
	}
}

// TestHistoryOfADepthOneClone: a depth-1 clone's only commit is its
// boundary, which shows all four files added: no file co-changes with the
// open one, and stats.history says why there is nothing to count.
func TestHistoryOfADepthOneClone(t *testing.T) {
	c := shallowOf(t, billing(t), "1")
	ws := histWorkspace(t, c.dir)
	sel := selDo(t, ws, regulation(c.dir, 8))
	for _, it := range sel.Items {
		for src := range it.Signals {
			if strings.HasPrefix(src, "cochange") {
				t.Errorf("%s %s has a %s signal from the boundary commit", it.Path, it.Symbol, src)
			}
		}
	}
	st := sel.Stats.History
	if !st.Ready || st.Commits != 0 || st.Reason != "" || !strings.Contains(st.Partial, "a shallow clone: the history is its 1 commit ") {
		t.Errorf("stats.history %+v: want ready, no commit counted, a shallow clone's 1 commit said", st)
	}
}

// TestHistoryOfADeepenedClone: a depth-2 clone holds no co-change of the
// renderer; once deepened (HEAD unchanged) the next read, in the running
// workspace and at a restart from its cache, has the older commits and
// selects the tax table.
func TestHistoryOfADeepenedClone(t *testing.T) {
	c := shallowOf(t, billing(t), "2")
	cache := t.TempDir()
	var log bytes.Buffer
	ws := cachedHistWorkspace(t, c.dir, cache, &log)
	req := regulation(c.dir, 4)
	if st := selDo(t, ws, req).Stats.History; st.Commits != 1 || !strings.Contains(st.Partial, "its 2 commits") {
		t.Fatalf("depth 2: stats.history %+v", st)
	}
	c.git("fetch", "-q", "--deepen", "3")
	ws2 := cachedHistWorkspace(t, c.dir, cache, &log) // a restart: the cache is on the old boundary
	ws.loadHistory(context.Background())              // the running workspace's next read
	for name, w := range map[string]*Workspace{"running": ws, "restarted": ws2} {
		sel := selDo(t, w, req)
		if st := sel.Stats.History; st.Commits != 4 || !strings.Contains(st.Partial, "its 5 commits") {
			t.Errorf("%s, deepened: stats.history %+v, want 4 commits counted of 5", name, st)
		}
		taxTableNear(t, name+", deepened: ", sel)
	}
}
