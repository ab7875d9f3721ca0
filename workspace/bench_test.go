package workspace

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ctxls/ctxls/symbolindex"
	"github.com/ctxls/ctxls/workspace/synth"
)

// Benchmarks run on synthetic workspaces (workspace/synth) of 1k, 10k and
// 100k symbols, generated once per size under the temp dir and reused.
//
//	go test -run '^$' -bench . -benchtime 1x ./workspace/   # quick
//	go test -run '^$' -bench 'Select|Baseline' ./workspace/ # latency

var sizes = []int{1_000, 10_000, 100_000}

var synthDirs sync.Map // size → dir

func synthWorkspace(b *testing.B, symbols int) string {
	b.Helper()
	if d, ok := synthDirs.Load(symbols); ok {
		return d.(string)
	}
	dir := filepath.Join(os.TempDir(), fmt.Sprintf("ctxls-synth-%d", symbols))
	if _, err := os.Stat(filepath.Join(dir, ".done")); err != nil {
		os.RemoveAll(dir)
		if _, err := synth.Generate(dir, synth.Options{Symbols: symbols}); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, ".done"), nil, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	synthDirs.Store(symbols, dir)
	return dir
}

func openBench(b *testing.B, dir, cacheDir string) *Workspace {
	b.Helper()
	cfg := DefaultConfig()
	cfg.CacheDir = cacheDir
	cfg.Exclude = []string{".done"}
	ws, err := New(cfg, Options{})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := ws.AddFolder(dir); err != nil {
		b.Fatal(err)
	}
	if _, err := ws.Index(context.Background(), nil); err != nil {
		b.Fatal(err)
	}
	return ws
}

// BenchmarkColdIndex builds an index from nothing (no cache).
func BenchmarkColdIndex(b *testing.B) {
	for _, n := range sizes {
		b.Run(fmt.Sprintf("symbols=%d", n), func(b *testing.B) {
			dir := synthWorkspace(b, n)
			b.ResetTimer()
			var ws *Workspace
			for i := 0; i < b.N; i++ {
				ws = openBench(b, dir, "off")
			}
			b.StopTimer()
			reportMemory(b, ws)
		})
	}
}

// BenchmarkRestartFromCache starts a workspace whose index is in the cache
// and whose files did not change.
func BenchmarkRestartFromCache(b *testing.B) {
	for _, n := range sizes {
		b.Run(fmt.Sprintf("symbols=%d", n), func(b *testing.B) {
			dir := synthWorkspace(b, n)
			cache := b.TempDir()
			openBench(b, dir, cache)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				openBench(b, dir, cache)
			}
		})
	}
}

// benchQueries are commit-message-like queries over the synthetic vocabulary.
var benchQueries = []string{
	"retry the payment webhook when the gateway times out",
	"validate coupon expiry before applying the discount",
	"flush stale cache entries on shutdown",
	"parseToken should reject expired session credentials",
	"add rate limit to the upload endpoint",
	"fix race in snapshot restore when replica is locked",
	"export invoice report as csv",
	"schedule ledger compaction for idle partitions",
}

// BenchmarkSelect measures contextSelect latency at each size and reports
// p50 and p95 over the run.
func BenchmarkSelect(b *testing.B) {
	for _, n := range sizes {
		b.Run(fmt.Sprintf("symbols=%d", n), func(b *testing.B) {
			ws := openBench(b, synthWorkspace(b, n), "off")
			ctx := context.Background()
			lat := make([]time.Duration, 0, b.N)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				start := time.Now()
				if _, err := ws.Select(ctx, &Request{Query: benchQueries[i%len(benchQueries)]}); err != nil {
					b.Fatal(err)
				}
				lat = append(lat, time.Since(start))
			}
			b.StopTimer()
			reportPercentiles(b, lat)
		})
	}
}

// BenchmarkBaselineBM25Files is the plain baseline beside which the figures
// are read: BM25 over whole files (no symbols, no fusion), returning the
// first 3,000 characters of the best files.
func BenchmarkBaselineBM25Files(b *testing.B) {
	for _, n := range sizes {
		b.Run(fmt.Sprintf("symbols=%d", n), func(b *testing.B) {
			dir := synthWorkspace(b, n)
			runtime.GC()
			var before runtime.MemStats
			runtime.ReadMemStats(&before)
			start := time.Now()
			base := newFileBM25(b, dir)
			build := time.Since(start)
			runtime.GC()
			var after runtime.MemStats
			runtime.ReadMemStats(&after)
			b.ReportMetric(build.Seconds(), "build-s")
			b.ReportMetric(float64(after.HeapInuse-min(after.HeapInuse, before.HeapInuse))/1e6, "heap-MB")
			lat := make([]time.Duration, 0, b.N)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				t := time.Now()
				base.top(benchQueries[i%len(benchQueries)], 8)
				lat = append(lat, time.Since(t))
			}
			b.StopTimer()
			reportPercentiles(b, lat)
		})
	}
}

// fileBM25 is the baseline: one BM25 document per file.
type fileBM25 struct {
	lex   *symbolindex.Lexical
	paths []string
}

func newFileBM25(b *testing.B, dir string) *fileBM25 {
	files, _, err := Discover(context.Background(), dir, DiscoverOptions{Exclude: []string{".done"}, MaxFileBytes: DefaultMaxFileBytes})
	if err != nil {
		b.Fatal(err)
	}
	fb := &fileBM25{lex: symbolindex.NewLexical(symbolindex.DefaultFileParams())}
	for i, f := range files {
		src, err := os.ReadFile(f.Abs)
		if err != nil {
			b.Fatal(err)
		}
		var fields [symbolindex.NumFields]string
		fields[symbolindex.FieldBody] = string(src)
		fb.lex.Add(uint32(i), fields)
		fb.paths = append(fb.paths, f.Path)
	}
	return fb
}

func (fb *fileBM25) top(q string, k int) []string {
	var terms []symbolindex.QueryTerm
	for _, t := range symbolindex.QueryTerms(q) {
		terms = append(terms, symbolindex.QueryTerm{Term: t, Weight: 1})
	}
	var buf symbolindex.SearchBuffer
	var out []string
	for _, h := range fb.lex.Search(terms, k, nil, &buf) {
		out = append(out, fb.paths[h.Doc])
	}
	return out
}

func reportPercentiles(b *testing.B, lat []time.Duration) {
	if len(lat) == 0 {
		return
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	pct := func(p float64) float64 {
		i := int(math.Ceil(p*float64(len(lat)))) - 1
		return float64(lat[max(0, i)].Microseconds()) / 1000
	}
	b.ReportMetric(pct(0.50), "p50-ms")
	b.ReportMetric(pct(0.95), "p95-ms")
}

// reportMemory reports the heap the index holds per symbol, and the
// process's resident set.
func reportMemory(b *testing.B, ws *Workspace) {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	syms := 0
	for _, f := range ws.Folders() {
		syms += f.idx.Symbols()
	}
	if syms > 0 {
		b.ReportMetric(float64(ms.HeapInuse)/float64(syms), "heap-B/symbol")
	}
	b.ReportMetric(float64(syms), "symbols")
	if rss := readRSS(); rss > 0 {
		b.ReportMetric(rss/1e6, "rss-MB")
	}
	runtime.KeepAlive(ws)
}

// readRSS reads the resident set size from /proc (Linux); 0 elsewhere.
func readRSS() float64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "VmRSS:") {
			var kb float64
			fmt.Sscanf(strings.TrimSpace(strings.TrimPrefix(line, "VmRSS:")), "%f", &kb)
			return kb * 1000
		}
	}
	return 0
}
