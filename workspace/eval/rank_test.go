package eval

import (
	"context"
	"encoding/json"
	"github.com/ctxls/ctxls/workspace"
	"os"
	"path/filepath"
	"testing"
)

// TestRanking runs the golden cases of testdata/ through Select, fails
// when a case's answer differs from its golden file (golden_test.go), and
// when a macro metric falls below the baseline recorded in
// testdata/eval/baseline.json (a ratchet: raise it with
// `ctxls eval --update` when a change improves the numbers).
func TestRanking(t *testing.T) {
	dir := filepath.Join("..", "..", "testdata")
	rep, err := Evaluate(context.Background(), dir, workspace.DefaultConfig(), workspace.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Cases) < 40 {
		t.Fatalf("only %d golden cases; want at least 40", len(rep.Cases))
	}
	m := rep.Macro
	t.Logf("%d cases: hit@1 %.3f  hit@5 %.3f  MRR %.3f  symbol recall %.3f  coverage %.3f",
		len(rep.Cases), m.Hit1, m.Hit5, m.MRR, m.SymRecall, m.Coverage)
	for _, c := range rep.Cases {
		if c.Metrics.Hit5 == 0 {
			t.Logf("miss: %s/%s (%s): got %v", c.Suite, c.Name, c.Kind, c.Got)
		}
	}
	checkRankingGolden(t, dir, rep)
	b, err := os.ReadFile(filepath.Join(dir, "eval", "baseline.json"))
	if err != nil {
		t.Fatalf("no baseline: %v (run `go run ./cmd/ctxls eval --update`)", err)
	}
	var base Metrics
	if err := json.Unmarshal(b, &base); err != nil {
		t.Fatal(err)
	}
	for _, d := range Ratchet(base, m) {
		t.Errorf("below the baseline: %s", d)
	}
}

// checkRankingGolden compares every case's answer with its golden file.
func checkRankingGolden(t *testing.T, dir string, rep *Report) {
	suites, err := LoadSuites(dir)
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string]Case{}
	for _, s := range suites {
		for _, c := range s.Cases {
			cases[s.Workspace+"/"+c.Name] = c
		}
	}
	golden := rankingDir(dir)
	startGolden(t, golden)
	for _, r := range rep.Cases {
		c := cases[r.Suite+"/"+r.Name]
		checkGolden(t, golden, r.Suite, r.Name, rankingGolden(r.Suite, c, r.Got, r.LowConfidence))
	}
}
