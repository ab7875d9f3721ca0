package eval

import (
	"flag"
	"fmt"
	"github.com/ctxls/ctxls/workspace"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The ranking golden files: each eval case's answer written to a file under
// testdata (zoekt's internal/e2e is the model), so that every ranking
// change is reviewed as a diff of what moved, case by case, beside the
// average ratchet. Rewrite them after a deliberate change with
//
//	go test ./workspace/eval/ -run 'TestRanking|TestRealcodeBaseline' -update
var updateGolden = flag.Bool("update", false, "rewrite the ranking golden files under testdata")

// rankingDir is where a case set's golden answers live.
func rankingDir(setDir string) string { return filepath.Join(setDir, "eval", "ranking") }

// startGolden prepares a golden directory: under -update it is emptied, so
// that the files of removed cases go too.
func startGolden(t *testing.T, dir string) {
	t.Helper()
	if !*updateGolden {
		return
	}
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
}

// rankingGolden is the golden text of one case: its query and the ids of
// the items Select returned, in order, each marked "*" when its file is
// one the case expects.
func rankingGolden(suite string, c Case, ids []string, lowConfidence bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s/%s (%s)\n# query: %s\n", suite, c.Name, c.Kind, c.Query)
	if c.Active != "" {
		fmt.Fprintf(&b, "# active: %s\n", c.Active)
	}
	if lowConfidence {
		b.WriteString("# lowConfidence\n")
	}
	for i, id := range ids {
		mark := " "
		if slices.Contains(c.Expect.Files, itemPath(id)) {
			mark = "*"
		}
		fmt.Fprintf(&b, "%2d %s %s\n", i+1, mark, id)
	}
	return b.String()
}

// itemPath is the file an item id names.
func itemPath(id string) string {
	rel, _, _ := workspace.ParseItemID(id)
	return rel
}

// checkGolden compares got with the golden file dir/suite/name.txt, or
// writes it under -update.
func checkGolden(t *testing.T, dir, suite, name, got string) {
	t.Helper()
	file := filepath.Join(dir, suite, path.Clean(name)+".txt")
	if *updateGolden {
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Errorf("%s/%s: no golden answer (%v); write it with -update", suite, name, err)
		return
	}
	if string(want) != got {
		t.Errorf("%s/%s: the ranking changed (review, then rewrite with -update):\n--- %s\n%s+++ now\n%s", suite, name, file, want, got)
	}
}
