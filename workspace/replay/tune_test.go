package replay

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/heuristics"
	"github.com/ctxls/ctxls/workspace"
)

// TestSetsSeeOnlyOlderCases: the weight sets a case is answered under are
// chosen from cases of older commits only, and each case is scored under
// every set it was given (a set that leaves only the locality source on,
// a poor guide alone, answers differently from the defaults; the
// semantic source alone no longer does in this small repository, where
// the commit scopes' strong match decides the defaults' answers).
func TestSetsSeeOnlyOlderCases(t *testing.T) {
	g := scripted(t)
	order := strings.Fields(g.run("rev-list", "--reverse", "--no-merges", "HEAD"))
	off := heuristics.DefaultWeightSet()
	off.Source = [heuristics.NumSources]float64{heuristics.SrcLocality: 1}
	calls := 0
	opts := Options{Root: g.dir, Scenarios: []string{Cold}, Config: workspace.DefaultConfig()}
	opts.Sets = func(i, n int, done []Case) []heuristics.WeightSet {
		calls++
		for _, c := range done {
			if at := slices.Index(order, c.Commit); at < 0 || at >= len(order)-n+i {
				t.Errorf("the sets of commit %d of %d were chosen seeing commit %.8s (position %d)", i, n, c.Commit, at)
			}
		}
		return []heuristics.WeightSet{heuristics.DefaultWeightSet(), off}
	}
	rep, err := Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if calls != len(rep.Cases) || len(rep.Cases) == 0 {
		t.Fatalf("Sets called %d times for %d cases", calls, len(rep.Cases))
	}
	differ := false
	for _, c := range rep.Cases {
		if len(c.SetScores) != 2 || !slices.Equal(c.Scores[Cold].Files, c.SetScores[0][Cold].Files) {
			t.Fatalf("case %.8s: scores under the sets %+v, own %+v", c.Commit, c.SetScores, c.Scores)
		}
		differ = differ || !slices.Equal(c.SetScores[0][Cold].Files, c.SetScores[1][Cold].Files)
	}
	if !differ {
		t.Error("leaving only the locality source on changed no answer: the sets are not used")
	}
}

// TestTuneCandidates: the defaults first, every set usable and distinct,
// the same seed the same sets, and only the numbers a replay exercises
// moved.
func TestTuneCandidates(t *testing.T) {
	a, b := TuneCandidates(40, 7, false), TuneCandidates(40, 7, false)
	if len(a) != 40 || !slices.Equal(a, b) {
		t.Fatalf("TuneCandidates(40, 7) gave %d sets, or differs between calls", len(a))
	}
	if def := heuristics.DefaultWeightSet(); a[0] != def {
		t.Errorf("the first set is not the defaults: %+v", a[0])
	}
	seen := map[heuristics.WeightSet]bool{}
	for _, w := range a {
		if err := w.Check(); err != nil || seen[w] {
			t.Errorf("set %+v: %v (or a duplicate)", w, err)
		}
		seen[w] = true
		for _, src := range []heuristics.Source{heuristics.SrcActive, heuristics.SrcLocality, heuristics.SrcEdit, heuristics.SrcItem, heuristics.SrcCoChange} {
			if w.Source[src] != heuristics.Weights[src] {
				t.Errorf("the cold fit moved %s", heuristics.SourceNames[src])
			}
		}
		if w.AskedPrior != heuristics.AskedPrior {
			t.Errorf("the fit moved the asked prior, which a replay cannot judge: %+v", w)
		}
		for _, p := range w.Priors() {
			if *p < MinPriorFit {
				t.Errorf("a prior below %v: %+v", MinPriorFit, w)
			}
		}
	}
	if c := TuneCandidates(40, 8, false); slices.Equal(a, c) {
		t.Error("another seed gave the same sets")
	}
}
