package eval

import (
	"context"
	"sort"
	"testing"

	"github.com/ctxls/ctxls/workspace"
)

// TestItemCases runs the context item cases (testdata/items) through
// Select: each request gets exactly its rules, notes and tools, the always
// rules never miss and the manual items never come unasked.
func TestItemCases(t *testing.T) {
	const dir = "../../testdata/items"
	suite, err := LoadItemSuite(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(suite.Cases) < 12 {
		t.Fatalf("%d cases, want a dozen at least", len(suite.Cases))
	}
	root, cache := t.TempDir(), t.TempDir()
	noteIDs, err := suite.Setup(dir, root, cache)
	if err != nil {
		t.Fatal(err)
	}
	cfg := workspace.DefaultConfig()
	cfg.CacheDir, cfg.Tools = cache, suite.Tools
	ws, err := workspace.New(cfg, workspace.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ws.AddFolder(root); err != nil {
		t.Fatal(err)
	}
	if _, err := ws.Index(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	problems, err := suite.RunItemCases(context.Background(), ws, root, noteIDs)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for name := range problems {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		for _, p := range problems[name] {
			t.Errorf("%s: %s", name, p)
		}
	}
}
