package workspace

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/tools/txtar"

	"github.com/ctxls/ctxls/symbolindex"
	"github.com/ctxls/ctxls/symbolindex/tokenize"
	"github.com/ctxls/ctxls/workspace/synth"
)

// Benchmarks run on synthetic workspaces (workspace/synth) of 1k, 10k and
// 100k symbols (10 symbols per file: 100, 1,000 and 10,000 files), and 1M
// (100,000 files) with CTXLS_BENCH_1M=1,
// generated once per size and generator version under the temp dir and
// reused. scripts/bench.sh runs the set that BENCHMARKS.md reports:
//
//	go test -run '^$' -bench 'ColdIndex|Restart' -benchtime 1x ./workspace/
//	go test -run '^$' -bench 'Select|Baseline' -benchtime 200x ./workspace/
//
// Each benchmark builds what it needs once (b.Loop runs the function body
// once), and checks that it measures what it claims: a cold index parses
// every file, a restart parses none, every query returns items.
//
// Beside wall time each reports the CPU time the process spent (user +
// system, all threads), which says more than wall time when other work
// shares the cores. The timed part runs under the pprof label bench=NAME,
// so a -cpuprofile can be cut to it: go tool pprof -tagfocus bench=select.
// With CTXLS_BENCH_HEAPPROFILE=FILE set, BenchmarkColdIndex writes the heap
// profile of each finished index to FILE.<symbols>.

var benchSizes = func() []int {
	s := []int{1_000, 10_000, 100_000}
	if os.Getenv("CTXLS_BENCH_1M") != "" {
		s = append(s, 1_000_000) // about 640 MB of source, generated under the temp dir
	}
	return s
}()

// synthWorkspace returns the synthetic workspace of about symbols symbols,
// generating it if no earlier run left it in the temp dir. It is written
// to a scratch directory and renamed into place, so a directory that
// exists is complete.
func synthWorkspace(tb testing.TB, symbols int) string {
	tb.Helper()
	dir := filepath.Join(os.TempDir(), fmt.Sprintf("ctxls-synth-v%d-%d", synth.Version, symbols))
	if _, err := os.Stat(dir); err == nil {
		return dir
	}
	tmp, err := os.MkdirTemp(os.TempDir(), "ctxls-synth-partial-")
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := synth.Generate(tmp, synth.Options{Symbols: symbols}); err != nil {
		os.RemoveAll(tmp)
		tb.Fatal(err)
	}
	if err := os.Rename(tmp, dir); err != nil {
		os.RemoveAll(tmp)
		if _, serr := os.Stat(dir); serr != nil { // not a concurrent run's finished copy
			tb.Fatal(err)
		}
	}
	return dir
}

// openBench indexes dir in a new workspace and returns it with the
// folder's index statistics.
func openBench(tb testing.TB, dir, cacheDir string) (*Workspace, IndexStats) {
	tb.Helper()
	cfg := DefaultConfig()
	cfg.CacheDir = cacheDir
	ws, err := New(cfg, Options{HoldGC: HoldCollector}) // as ctxls index does
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := ws.AddFolder(dir); err != nil {
		tb.Fatal(err)
	}
	stats, err := ws.Index(context.Background(), nil)
	if err != nil {
		tb.Fatal(err)
	}
	if len(stats) != 1 {
		tb.Fatalf("index of one folder returned %d statistics", len(stats))
	}
	return ws, stats[0]
}

// liveHeap is the Go heap held by reachable objects, after a full
// collection.
func liveHeap() int64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapAlloc)
}

// cpuTime is the CPU time the process has used so far, user and system,
// over all its threads.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// labelled runs fn under the pprof label bench=name.
func labelled(name string, fn func()) {
	pprof.Do(context.Background(), pprof.Labels("bench", name), func(context.Context) { fn() })
}

// BenchmarkColdIndex builds an index from nothing (no cache): discovery,
// parsing, the lexical index, embeddings and the Merkle tree. It reports
// the live Go heap the finished index holds, in total and per symbol. The
// resident set of a process holding only the index is measured by
// scripts/bench.sh on the ctxls binary, since this process also holds the
// test harness and the smaller sizes' garbage.
func BenchmarkColdIndex(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("symbols=%d", n), func(b *testing.B) {
			dir := synthWorkspace(b, n)
			before := liveHeap()
			var ws *Workspace
			var st IndexStats
			iters := 0
			cpu0 := cpuTime()
			labelled("cold", func() {
				for b.Loop() {
					ws = nil // let the previous iteration's index go first
					ws, st = openBench(b, dir, CacheDirOff)
					iters++
				}
			})
			cpu := cpuTime() - cpu0
			if st.Parsed != st.Files || st.Reused != 0 || st.Files == 0 {
				b.Fatalf("a cold index parsed %d and reused %d of %d files", st.Parsed, st.Reused, st.Files)
			}
			heap := liveHeap() - before
			if path := os.Getenv("CTXLS_BENCH_HEAPPROFILE"); path != "" {
				writeHeapProfile(b, fmt.Sprintf("%s.%d", path, n))
			}
			runtime.KeepAlive(ws)
			b.ReportMetric(cpu.Seconds()/float64(iters), "cpu-s/op")
			b.ReportMetric(float64(st.Files), "files")
			b.ReportMetric(float64(st.Symbols), "symbols")
			b.ReportMetric(float64(heap)/1e6, "heap-MB")
			b.ReportMetric(float64(heap)/float64(max(1, st.Symbols)), "heap-B/symbol")
		})
	}
}

// writeHeapProfile writes a heap profile to path, for a look at what the
// live index is made of: go tool pprof -sample_index=inuse_space.
func writeHeapProfile(b *testing.B, path string) {
	runtime.GC()
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	if err := pprof.Lookup("heap").WriteTo(f, 0); err != nil {
		b.Fatalf("heap profile %s: %v", path, err)
	}
}

// BenchmarkRestartFromCache starts a workspace whose index is in the cache
// and whose files did not change: discovery reads and hashes every file,
// the cache is loaded, and nothing is parsed.
func BenchmarkRestartFromCache(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("symbols=%d", n), func(b *testing.B) {
			dir := synthWorkspace(b, n)
			cache := b.TempDir()
			openBench(b, dir, cache)
			runtime.GC()
			var st IndexStats
			iters := 0
			cpu0 := cpuTime()
			labelled("restart", func() {
				for b.Loop() {
					_, st = openBench(b, dir, cache)
					iters++
				}
			})
			cpu := cpuTime() - cpu0
			if st.Parsed != 0 || st.Reused != st.Files || st.Files == 0 {
				b.Fatalf("a restart parsed %d and reused %d of %d files: the cache was not used", st.Parsed, st.Reused, st.Files)
			}
			b.ReportMetric(cpu.Seconds()/float64(iters), "cpu-s/op")
			b.ReportMetric(float64(st.Symbols), "symbols")
		})
	}
}

// benchQueries are commit-message-like queries over the synthetic
// vocabulary.
var benchQueries = synth.Queries

// BenchmarkSelect measures contextSelect latency (default limit and
// budget, no active file) at each size and reports p50 and p95 over the
// run; give it enough iterations for a p95 (-benchtime 200x).
func BenchmarkSelect(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("symbols=%d", n), func(b *testing.B) {
			ws, st := openBench(b, synthWorkspace(b, n), CacheDirOff)
			ctx := context.Background()
			for _, q := range benchQueries {
				res, err := ws.Select(ctx, &SelectRequest{Query: q})
				if err != nil {
					b.Fatal(err)
				}
				if len(res.Items) == 0 {
					b.Fatalf("select over %d symbols returned nothing for %q", st.Symbols, q)
				}
			}
			b.ReportAllocs()
			lat := make([]time.Duration, 0, 1024)
			cpu0 := cpuTime()
			labelled("select", func() {
				for b.Loop() {
					start := time.Now()
					if _, err := ws.Select(ctx, &SelectRequest{Query: benchQueries[len(lat)%len(benchQueries)]}); err != nil {
						b.Fatal(err)
					}
					lat = append(lat, time.Since(start))
				}
			})
			reportPercentiles(b, lat, cpuTime()-cpu0)
			b.ReportMetric(float64(st.Symbols), "symbols")
		})
	}
}

// BenchmarkSelectFollowUp is BenchmarkSelect for a follow-up with a limit
// of 20: the history makes ownBestMatch search, and the room the limit
// leaves makes focus search within the best files (withinFile).
func BenchmarkSelectFollowUp(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("symbols=%d", n), func(b *testing.B) {
			ws, _ := openBench(b, synthWorkspace(b, n), CacheDirOff)
			ctx := context.Background()
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				req := &SelectRequest{
					Query:   benchQueries[i%len(benchQueries)],
					History: []string{benchQueries[(i+1)%len(benchQueries)]},
					Limit:   20,
				}
				if _, err := ws.Select(ctx, req); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
	}
}

// BenchmarkBaselineBM25Files is the plain baseline beside which the figures
// are read: BM25 over whole files (file contents only: no symbols, no
// paths, no fusion), returning the first 3,000 characters of the 8 best
// files, read from disk as Select reads its items' text. It reports the
// build time (discovery, then indexing on one goroutine), the live heap of
// the index, and query p50 and p95.
func BenchmarkBaselineBM25Files(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("symbols=%d", n), func(b *testing.B) {
			dir := synthWorkspace(b, n)
			before := liveHeap()
			start := time.Now()
			base, err := newFileBM25(dir)
			if err != nil {
				b.Fatal(err)
			}
			build := time.Since(start)
			heap := liveHeap() - before
			for _, q := range benchQueries {
				heads, err := base.top(q, 8)
				if err != nil {
					b.Fatal(err)
				}
				if len(heads) == 0 {
					b.Fatalf("baseline over %d files returned nothing for %q", len(base.paths), q)
				}
			}
			b.ReportAllocs()
			lat := make([]time.Duration, 0, 1024)
			cpu0 := cpuTime()
			labelled("baseline", func() {
				for b.Loop() {
					t := time.Now()
					if _, err := base.top(benchQueries[len(lat)%len(benchQueries)], 8); err != nil {
						b.Fatal(err)
					}
					lat = append(lat, time.Since(t))
				}
			})
			reportPercentiles(b, lat, cpuTime()-cpu0)
			b.ReportMetric(build.Seconds(), "build-s")
			b.ReportMetric(float64(heap)/1e6, "heap-MB")
			b.ReportMetric(float64(len(base.paths)), "files")
			runtime.KeepAlive(base)
		})
	}
}

// baselineHeadChars is how much of each file the baseline returns.
const baselineHeadChars = 3000

// fileBM25 is the baseline: one BM25 document per file. It is used from
// one goroutine at a time.
type fileBM25 struct {
	lex   *symbolindex.Lexical
	paths []string // doc → workspace-relative path
	abs   []string // doc → absolute path
	buf   symbolindex.SearchBuffer
	head  []byte
}

func newFileBM25(dir string) (*fileBM25, error) {
	files, _, err := Discover(context.Background(), dir, DiscoverOptions{MaxFileBytes: DefaultMaxFileBytes})
	if err != nil {
		return nil, fmt.Errorf("baseline: %w", err)
	}
	fb := &fileBM25{lex: symbolindex.NewLexical(symbolindex.DefaultFileParams()), head: make([]byte, baselineHeadChars)}
	for i, f := range files {
		src, err := os.ReadFile(f.Abs)
		if err != nil {
			return nil, fmt.Errorf("baseline: %w", err)
		}
		var fields [symbolindex.NumFields]string
		fields[symbolindex.FieldBody] = string(src)
		if err := fb.lex.Add(uint32(i), fields); err != nil {
			return nil, fmt.Errorf("baseline: add %s: %w", f.Path, err)
		}
		fb.paths = append(fb.paths, f.Path)
		fb.abs = append(fb.abs, f.Abs)
	}
	return fb, nil
}

// top returns the first baselineHeadChars bytes of the k best files for q.
func (fb *fileBM25) top(q string, k int) ([]string, error) {
	var terms []symbolindex.QueryTerm
	for _, t := range tokenize.QueryTerms(q) {
		terms = append(terms, symbolindex.QueryTerm{Term: t, Weight: 1})
	}
	hits := fb.lex.Search(terms, k, nil, &fb.buf)
	out := make([]string, 0, len(hits))
	for _, h := range hits {
		head, err := fb.readHead(fb.abs[h.Doc])
		if err != nil {
			return nil, fmt.Errorf("baseline: %w", err)
		}
		out = append(out, head)
	}
	return out, nil
}

func (fb *fileBM25) readHead(abs string) (string, error) {
	f, err := os.Open(abs)
	if err != nil {
		return "", err
	}
	defer f.Close()
	n, err := io.ReadFull(f, fb.head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return "", err
	}
	return string(fb.head[:n]), nil
}

// reportPercentiles reports the 50th and 95th percentile of lat (nearest
// rank) and the mean CPU time per query, in milliseconds.
func reportPercentiles(b *testing.B, lat []time.Duration, cpu time.Duration) {
	if len(lat) == 0 {
		return
	}
	slices.Sort(lat)
	pct := func(p float64) float64 {
		i := int(math.Ceil(p*float64(len(lat)))) - 1
		return float64(lat[max(0, i)]) / float64(time.Millisecond)
	}
	b.ReportMetric(pct(0.50), "p50-ms")
	b.ReportMetric(pct(0.95), "p95-ms")
	b.ReportMetric(float64(len(lat)), "queries")
	b.ReportMetric(float64(cpu)/float64(time.Millisecond)/float64(len(lat)), "cpu-ms/query")
}

// TestSynthWorkspaceIndexesAsGenerated checks the premise of the
// benchmarks: the index of a synthetic workspace holds the files and
// symbols the generator says it wrote, in its three languages, and a query
// in its vocabulary finds them.
func TestSynthWorkspaceIndexesAsGenerated(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "synth")
	gen, err := synth.Generate(dir, synth.Options{Symbols: 300})
	if err != nil {
		t.Fatal(err)
	}
	ws, st := openBench(t, dir, CacheDirOff)
	if st.Files != gen.Files || st.Symbols != gen.Symbols || st.Skipped != 0 {
		t.Errorf("indexed %d files and %d symbols (%d skipped: %v); the generator wrote %d files and %d symbols",
			st.Files, st.Symbols, st.Skipped, st.SkipReasons, gen.Files, gen.Symbols)
	}
	for _, lang := range []string{"go", "typescript", "python"} {
		if st.Languages[lang] == 0 {
			t.Errorf("no %s files indexed; languages: %v", lang, st.Languages)
		}
	}
	res, err := ws.Select(context.Background(), &SelectRequest{Query: benchQueries[0]})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Items) == 0 {
		t.Errorf("select %q over the synthetic workspace returned nothing", benchQueries[0])
	}
}

// BenchmarkSelectWithRules is BenchmarkSelect at 10k symbols with the
// rules of itemsApp written into the workspace (two always rules, an agent
// rule, a manual one): what discovering, reading and scoring the rules
// adds to a request.
func BenchmarkSelectWithRules(b *testing.B) {
	dir := synthWorkspace(b, 10_000)
	for _, f := range txtar.Parse([]byte(itemsApp)).Files {
		if strings.HasPrefix(f.Name, ".") || strings.HasSuffix(f.Name, "AGENTS.md") || strings.HasSuffix(f.Name, "CLAUDE.md") {
			p := filepath.Join(dir, filepath.FromSlash(f.Name))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				b.Fatal(err)
			}
			if err := os.WriteFile(p, f.Data, 0o644); err != nil {
				b.Fatal(err)
			}
		}
	}
	ws, _ := openBench(b, dir, CacheDirOff)
	ctx := context.Background()
	b.ReportAllocs()
	lat := make([]time.Duration, 0, 1024)
	cpu0 := cpuTime()
	for b.Loop() {
		start := time.Now()
		res, err := ws.Select(ctx, &SelectRequest{Query: benchQueries[len(lat)%len(benchQueries)]})
		if err != nil || len(res.Items) == 0 || res.Items[0].ID != "rule:AGENTS" {
			b.Fatalf("select: %v", err)
		}
		lat = append(lat, time.Since(start))
	}
	reportPercentiles(b, lat, cpuTime()-cpu0)
}
