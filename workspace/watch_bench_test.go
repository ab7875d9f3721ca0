package workspace

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkFilesChanged is one watched-file event for a changed Go file
// four directories deep, with a .gitignore at the root and on the way:
// what ctxls mcp's watcher (and didChangeWatchedFiles) pays per file saved.
// The gitignore sub-benchmark is the .gitignore check alone.
func BenchmarkFilesChanged(b *testing.B) {
	root := b.TempDir()
	write := func(rel, text string) string {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			b.Fatal(err)
		}
		return p
	}
	write(".gitignore", "/dist/\n*.log\nnode_modules/\n")
	write("internal/.gitignore", "*.tmp\n")
	src := "package cart\n\n// Total is the price of the cart.\nfunc Total(items []int) int {\n\tsum := 0\n\tfor _, it := range items {\n\t\tsum += it\n\t}\n\treturn sum\n}\n"
	path := write("internal/shop/cart/total.go", src)
	cfg := DefaultConfig()
	cfg.CacheDir = "off"
	ws, err := New(cfg, Options{})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := ws.AddFolder(root); err != nil {
		b.Fatal(err)
	}
	if _, err := ws.Index(context.Background(), nil); err != nil {
		b.Fatal(err)
	}
	real := ws.Folders()[0].Root
	b.Run("event", func(b *testing.B) {
		i := 0
		for b.Loop() {
			i++
			write("internal/shop/cart/total.go", src+"\n// edit "+string(rune('a'+i%26))+"\n")
			if err := ws.FilesChanged([]FileEvent{{Path: path}}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("gitignore", func(b *testing.B) {
		for b.Loop() {
			if newIgnoreFiles(real, cfg.MaxFileBytes).ignored("internal/shop/cart/total.go", false) {
				b.Fatal("not ignored")
			}
		}
	})
}
