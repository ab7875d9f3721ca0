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

// heapAllocs is the bytes allocated on the heap so far.
func heapAllocs() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// heldLoadBytes is less than loading the test tree's index allocates, and
// more than a hold and release with nothing between.
const heldLoadBytes = 16 << 10

// A cold build with a cache (ctxls index the first time) maps the file it
// has just saved under HoldGC too, not only a restart's load: some hold
// covers a load (the hook was called only around the start-up load, which
// finds no file).
func TestHoldGCAroundColdBuildLoad(t *testing.T) {
	root, files := cacheTree(t)
	var loads int
	_, st, _ := cacheIndexHeld(t, root, t.TempDir(), func() func() {
		from := heapAllocs()
		return func() {
			if heapAllocs()-from >= heldLoadBytes {
				loads++
			}
		}
	})
	if st.Files != files {
		t.Fatalf("cold index: %d of %d files", st.Files, files)
	}
	if loads == 0 {
		t.Error("no cache load of the cold build ran under HoldGC")
	}
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
	var calls, during int64
	var loaded uint64
	_, st, _ := cacheIndexHeld(t, root, dir, func() func() {
		calls++
		release := HoldCollector()
		during = gogc()
		from := heapAllocs()
		return func() {
			loaded = heapAllocs() - from // the load happened under the hold
			release()
		}
	})
	if st.Reused != files {
		t.Fatalf("restart reused %d of %d files", st.Reused, files)
	}
	if calls != 1 || during != -1 {
		t.Errorf("HoldGC called %d times, GOGC %d while held; want once, off", calls, during)
	}
	if loaded < heldLoadBytes {
		t.Errorf("%d bytes allocated while held: released before the cache loaded", loaded)
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
