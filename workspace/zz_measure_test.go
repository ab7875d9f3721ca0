package workspace

import (
	"context"
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/ctxls/ctxls/heuristics/spelling"
)

func TestZZMeasureSpelling(t *testing.T) {
	root := os.Getenv("SPELL_ROOT")
	if root == "" {
		t.Skip()
	}
	cfg := DefaultConfig()
	cfg.CacheDir = CacheDirOff
	ws, err := New(cfg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ws.AddFolder(root); err != nil {
		t.Fatal(err)
	}
	if _, err := ws.Index(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	heap := func() uint64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	for _, q := range []string{"fix the comments in the handlers", "fix typos in comments", "fix typos in comments", "fix typos in comments", "fix macOS spelling in comments"} {
		if os.Getenv("SPELL_FRESH") != "" {
			ws.folders[0].words = spelling.NewCache()
		}
		h0 := heap()
		var m0, m1 runtime.MemStats
		runtime.ReadMemStats(&m0)
		t0 := time.Now()
		selDo(t, ws, &SelectRequest{Query: q, Limit: 10})
		d := time.Since(t0)
		runtime.ReadMemStats(&m1)
		t.Logf("%-35q %7.1f ms  alloc %6.1f MB  retained %+6.1f MB", q, float64(d.Microseconds())/1000, float64(m1.TotalAlloc-m0.TotalAlloc)/1e6, (float64(heap())-float64(h0))/1e6)
	}
}
