package workspace

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestCacheServedWhileRechecked: a folder whose cache loads whole is
// answered from it while the build re-checks the files changed since the
// save; the changed file is in the index once the build ends.
func TestCacheServedWhileRechecked(t *testing.T) {
	root, files := cacheTree(t)
	dir := t.TempDir()
	cacheIndex(t, root, dir)
	changed := filepath.Join(root, "internal", "config", "config.go")
	src, err := os.ReadFile(changed)
	if err != nil {
		t.Fatal(err)
	}
	src = append(src, "\n// ReloadZorbSettings reads the configuration again.\nfunc ReloadZorbSettings() {}\n"...)
	if err := os.WriteFile(changed, src, 0o644); err != nil {
		t.Fatal(err)
	}

	cfg := DefaultConfig()
	cfg.CacheDir = dir
	ws, err := New(cfg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ws.AddFolder(root); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	symbols := func(sel *Selection) []string {
		var names []string
		for _, it := range sel.Items {
			names = append(names, it.Symbol)
		}
		return names
	}
	var during *Selection
	_, err = ws.Index(ctx, func(p Progress) {
		if during != nil || p.Done == p.Total {
			return
		}
		// The build is re-checking the changed file.
		if during, err = ws.Select(ctx, &SelectRequest{Query: "CartStore totalCents"}); err != nil {
			t.Fatal(err)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if during == nil {
		t.Fatal("the build reported no progress while re-checking the changed file")
	}
	if during.Stats.Files != files || !slices.Contains(symbols(during), "CartStore.totalCents") {
		t.Errorf("while the changed file was re-checked: %d files (want the cache's %d), symbols %v (want CartStore.totalCents)", during.Stats.Files, files, symbols(during))
	}
	after, err := ws.Select(ctx, &SelectRequest{Query: "ReloadZorbSettings"})
	if err != nil {
		t.Fatal(err)
	}
	if !after.Stats.Ready || !slices.Contains(symbols(after), "ReloadZorbSettings") {
		t.Errorf("after the build: ready %v, symbols %v, want the changed file's ReloadZorbSettings", after.Stats.Ready, symbols(after))
	}
}
