package workspace

import (
	"runtime/debug"
	"runtime/metrics"
	"sync/atomic"
	"testing"
)

// gogc is the collector's GOGC setting, read without changing it.
func gogc() int64 {
	s := []metrics.Sample{{Name: "/gc/gogc:percent"}}
	metrics.Read(s)
	return int64(s[0].Value.Uint64())
}

// A workspace without Options.HoldGC (a server, serving other folders
// while one loads) never turns the collector off while its cache loads:
// watched throughout restarts from a cache, GOGC never reads off. (The
// collector was held off inside symbolindex.LoadIndex, for the whole
// process, whoever loaded.)
func TestCacheLoadLeavesCollectorAlone(t *testing.T) {
	root, dir, files := cachedTree(t)
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	var off atomic.Bool
	stop, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		for {
			select {
			case <-stop:
				return
			default:
			}
			if gogc() < 0 { // off
				off.Store(true)
			}
		}
	}()
	for i := 0; i < 20 && !off.Load(); i++ {
		if _, st, _ := cacheIndex(t, root, dir); st.Reused != files {
			t.Fatalf("restart %d reused %d of %d files: the cache was not loaded", i, st.Reused, files)
		}
	}
	close(stop)
	<-stopped
	if off.Load() {
		t.Fatal("the collector was turned off while a cache loaded in a workspace that did not ask for it")
	}
}

// With HoldGC, the hook is called once around the folder's cache load,
// and HoldCollector turns the collector off until the last of overlapping
// holds is released, then gives back the setting it found; one changed
// meanwhile is kept.
func TestHoldGCAroundCacheLoad(t *testing.T) {
	root, dir, files := cachedTree(t)
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	cfg := DefaultConfig()
	cfg.CacheDir = dir
	var calls, during int64
	ws, err := New(cfg, Options{HoldGC: func() func() {
		calls++
		release := HoldCollector()
		during = gogc()
		return release
	}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ws.AddFolder(root); err != nil {
		t.Fatal(err)
	}
	stats, err := ws.Index(t.Context(), nil)
	if err != nil || stats[0].Reused != files {
		t.Fatalf("restart: %v, reused %d of %d files", err, stats[0].Reused, files)
	}
	if calls != 1 || during != -1 {
		t.Errorf("HoldGC called %d times, GOGC %d while held; want once, off", calls, during)
	}
	if got := gogc(); got != 100 {
		t.Errorf("after the load GOGC is %d, want 100 back", got)
	}
	a, b := HoldCollector(), HoldCollector()
	a()
	if got := gogc(); got != -1 {
		t.Errorf("one of two holds released: GOGC %d, want off", got)
	}
	b()
	if got := gogc(); got != 100 {
		t.Errorf("both holds released: GOGC %d, want 100", got)
	}
	c := HoldCollector()
	debug.SetGCPercent(55)
	c()
	if got := gogc(); got != 55 {
		t.Errorf("GOGC set to 55 during a hold: %d after it, want 55 kept", got)
	}
}
