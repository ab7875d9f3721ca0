package lsp

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"

	"github.com/ctxls/ctxls/workspace/synth"
)

// reportLatency reports the p50 and p95 of samples as custom metrics.
func reportLatency(b *testing.B, samples []time.Duration) {
	if len(samples) == 0 {
		return
	}
	slices.Sort(samples)
	at := func(q float64) float64 {
		return float64(samples[min(len(samples)-1, int(q*float64(len(samples))))].Microseconds()) / 1000
	}
	b.ReportMetric(at(0.50), "p50-ms")
	b.ReportMetric(at(0.95), "p95-ms")
}

// bigGoFile is a Go file of about lines lines: functions of ten lines.
func bigGoFile(lines int) string {
	var b strings.Builder
	b.WriteString("package big\n\n")
	for i := 0; strings.Count(b.String(), "\n") < lines; i++ {
		fmt.Fprintf(&b, "// Step%d advances the state machine by one step.\nfunc Step%d(state, input int) int {\n", i, i)
		fmt.Fprintf(&b, "\tnext := state*%d + input\n\tif next > 1000 {\n\t\tnext -= 1000\n\t}\n\tfor j := 0; j < input; j++ {\n\t\tnext += j\n\t}\n\treturn next\n}\n\n", i+3)
	}
	return b.String()
}

// BenchmarkEditToFreshIndex measures a one-function edit in a 2,000-line
// Go file, from sending didChange until the index reflects it: the server
// applies notifications in order, so the answer to a request sent right
// after the edit (an unknown method: the cheapest request there is) marks
// the moment a select would see the edit.
func BenchmarkEditToFreshIndex(b *testing.B) {
	root := b.TempDir()
	text := bigGoFile(2000)
	if n := strings.Count(text, "\n"); n < 1990 {
		b.Fatalf("generated %d lines", n)
	}
	writeFile(b, filepath.Join(root, "big.go"), text)
	c := pipeClient(b, nil)
	c.start(root, caps{})
	didOpen(c, root, "big.go", text)
	e := newBigEdits(b, c, root, text)
	samples := e.run(b)
	e.check(b)
	reportLatency(b, samples)
}

// bigEdits edits Step100 of big.go (bigGoFile), open in c, and times
// each edit from didChange until the index reflects it.
type bigEdits struct {
	c          *client
	root, text string
	off        int // the constant's digits in text
	version    int
}

func newBigEdits(b *testing.B, c *client, root, text string) *bigEdits {
	target := "\tnext := state*103 + input\n" // the body of Step100
	off := strings.Index(text, target) + len("\tnext := state*")
	if off < len("\tnext := state*") {
		b.Fatal("no Step100 in the generated file")
	}
	return &bigEdits{c: c, root: root, text: text, off: off, version: 1}
}

// run edits in b's loop and returns the times of edit → fresh.
func (e *bigEdits) run(b *testing.B) []time.Duration {
	var samples []time.Duration
	for b.Loop() {
		e.version++
		digits := fmt.Sprintf("%d", 100+e.version%900) // 100–999: never a leading zero, which Go reads as an octal literal
		start := time.Now()
		didChange(e.c, e.root, "big.go", e.version, change(e.text, e.off, e.off+3, digits, false))
		if err := e.c.call("ctxls/barrier", nil, nil); rpcCode(err) != jsonrpc2.MethodNotFound {
			b.Fatalf("barrier: %v", err)
		}
		samples = append(samples, time.Since(start))
		e.text = e.text[:e.off] + digits + e.text[e.off+3:]
	}
	b.StopTimer()
	return samples
}

// check asks about the edit: the edited function comes first.
func (e *bigEdits) check(b *testing.B) {
	res := e.c.mustSelect(map[string]any{"query": "fix that"})
	if len(res.Items) == 0 || res.Items[0].Symbol != "Step100" {
		b.Errorf("the edited function is not first:%s", res)
	}
}

// BenchmarkEditToFresh is BenchmarkEditToFreshIndex in the 10k-symbol
// generated workspace of BenchmarkContextSelect (plus the same 2,000-line
// big.go), twice on one server: idle, then with selects in flight, where
// 8 goroutines each loop workspace/contextSelect over the same connection
// until the timed loop ends. The two sub-benchmarks share the workspace,
// so that their ratio is the cost of the selects alone. An edit that
// waited for the selects in flight (a snapshot holding the folder's read
// lock) would show here as the length of a select.
func BenchmarkEditToFresh(b *testing.B) {
	root := b.TempDir()
	if _, err := synth.Generate(root, synth.Options{Symbols: 10_000}); err != nil {
		b.Fatal(err)
	}
	text := bigGoFile(2000)
	writeFile(b, filepath.Join(root, "big.go"), text)
	c := pipeClient(b, nil)
	c.readyTimeout = 20 * time.Minute
	c.start(root, caps{})
	c.mustSelect(map[string]any{"query": "warm up"})
	didOpen(c, root, "big.go", text)
	e := newBigEdits(b, c, root, text)

	b.Run("idle", func(b *testing.B) {
		samples := e.run(b)
		e.check(b)
		reportLatency(b, samples)
	})
	b.Run("under-selects", func(b *testing.B) {
		queries := []string{
			"validate the pending payment before the transfer",
			"where do we retry failed webhook deliveries",
			"parse the manifest schema and resolve its version",
			"how are shard replicas rebalanced across regions",
		}
		stop := make(chan struct{})
		var wg sync.WaitGroup
		var selects atomic.Int64
		errs := make(chan error, 8)
		for g := range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := g; ; i++ {
					select {
					case <-stop:
						return
					default:
					}
					var res result
					if err := c.call(methodContextSelect, map[string]any{"query": queries[i%len(queries)]}, &res); err != nil {
						errs <- err
						return
					}
					selects.Add(1)
				}
			}()
		}
		for selects.Load() < 8 { // every goroutine is in its loop
			time.Sleep(time.Millisecond)
		}
		base := selects.Load()
		samples := e.run(b)
		n := selects.Load() - base
		close(stop)
		wg.Wait()
		close(errs)
		for err := range errs {
			b.Fatalf("contextSelect: %v", err)
		}
		b.ReportMetric(float64(n)/float64(len(samples)), "selects/edit")
		e.check(b)
		reportLatency(b, samples)
	})
}

// BenchmarkContextSelect measures workspace/contextSelect over the pipe on
// generated workspaces.
func BenchmarkContextSelect(b *testing.B) {
	queries := []string{
		"validate the pending payment before the transfer",
		"where do we retry failed webhook deliveries",
		"fix that",
		"parse the manifest schema and resolve its version",
		"flush the cached session tokens",
		"how are shard replicas rebalanced across regions",
	}
	for _, n := range []int{10_000, 100_000} {
		b.Run(fmt.Sprintf("%dk-symbols", n/1000), func(b *testing.B) {
			root := b.TempDir()
			st, err := synth.Generate(root, synth.Options{Symbols: n})
			if err != nil {
				b.Fatal(err)
			}
			c := pipeClient(b, nil)
			c.readyTimeout = 20 * time.Minute
			start := time.Now()
			c.start(root, caps{})
			b.Logf("indexed in %v", time.Since(start).Round(time.Millisecond))
			res := c.mustSelect(map[string]any{"query": "warm up"})
			b.Logf("%d files, %d symbols generated; indexed %d files, %d symbols", st.Files, st.Symbols, res.Stats.Files, res.Stats.Symbols)
			var samples []time.Duration
			for i := 0; b.Loop(); i++ {
				start := time.Now()
				c.mustSelect(map[string]any{"query": queries[i%len(queries)]})
				samples = append(samples, time.Since(start))
			}
			b.StopTimer()
			reportLatency(b, samples)
		})
	}
}

// BenchmarkServeMapped runs the ctxls binary as an editor does (a
// subprocess speaking LSP over its stdin and stdout) on a synthetic
// workspace with a cache dir, twice: the first start builds the index,
// saves it and serves it mapped from the cache; the second (a restart)
// maps the cache. Each reports how long the start took, select p50 and p95
// over the pipe, and the server's resident set from /proc after the
// selects: VmRSS (now) and VmHWM (peak, the build included). 100k symbols;
// also 1M with CTXLS_BENCH_1M=1 (about 10 minutes on 2 shared cores);
// CTXLS_BENCH_SYMBOLS=N runs N instead of 100k. CTXLS_BENCH_ROOT=DIR and
// CTXLS_BENCH_CACHE=DIR serve a workspace generated beforehand (synthgen,
// of the last size) from a cache dir that already holds its index: only
// the restart runs,
// so that a change can be measured at 1M without a 3–7 minute build each
// time.
func BenchmarkServeMapped(b *testing.B) {
	queries := synth.Queries
	sizes := []int{100_000}
	if v, err := strconv.Atoi(os.Getenv("CTXLS_BENCH_SYMBOLS")); err == nil && v > 0 {
		sizes = []int{v} // a quick look at another size
	}
	if os.Getenv("CTXLS_BENCH_1M") != "" {
		sizes = append(sizes, 1_000_000)
	}
	phases := []string{"build", "restart"}
	root, cache := os.Getenv("CTXLS_BENCH_ROOT"), os.Getenv("CTXLS_BENCH_CACHE")
	if root != "" && cache != "" {
		phases, sizes = phases[1:], sizes[len(sizes)-1:]
	} else {
		root, cache = "", ""
	}
	for _, n := range sizes {
		if len(phases) == 2 {
			root = b.TempDir()
			if _, err := synth.Generate(root, synth.Options{Symbols: n}); err != nil {
				b.Fatal(err)
			}
			cache = b.TempDir()
		}
		for _, phase := range phases {
			b.Run(fmt.Sprintf("symbols=%d/%s", n, phase), func(b *testing.B) {
				c := processClient(b, io.Discard, "serve")
				c.readyTimeout = 60 * time.Minute
				start := time.Now()
				c.start(root, caps{cacheDir: cache})
				ready := time.Since(start)
				res := c.mustSelect(map[string]any{"query": "warm up"})
				if res.Stats.Symbols < n {
					b.Fatalf("served %d symbols, want %d", res.Stats.Symbols, n)
				}
				var samples []time.Duration
				cpu0 := procCPU(b, c.pid)
				for i := 0; b.Loop(); i++ {
					t0 := time.Now()
					c.mustSelect(map[string]any{"query": queries[i%len(queries)]})
					samples = append(samples, time.Since(t0))
				}
				b.StopTimer()
				reportLatency(b, samples)
				// The server's own CPU a select (user and system): what it
				// costs, less moved than wall time by other processes.
				b.ReportMetric((procCPU(b, c.pid)-cpu0).Seconds()*1000/float64(len(samples)), "server-cpu-ms")
				b.ReportMetric(ready.Seconds(), "start-s")
				rss, hwm := procMemory(b, c.pid)
				b.ReportMetric(rss, "rss-MB")
				b.ReportMetric(hwm, "peak-rss-MB")
				c.shutdownExit()
			})
		}
	}
}

// procCPU is the user and system CPU time a process has used, from
// /proc (in clock ticks of 1/100 s, the kernel's USER_HZ on Linux).
func procCPU(b *testing.B, pid int) time.Duration {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		b.Skipf("no /proc: %v", err)
	}
	// The fields after the command (which may hold spaces) in parentheses.
	f := strings.Fields(string(data[bytes.LastIndexByte(data, ')')+1:]))
	if len(f) < 13 {
		b.Fatalf("/proc/%d/stat: %d fields after the command", pid, len(f))
	}
	utime, _ := strconv.ParseInt(f[11], 10, 64)
	stime, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(utime+stime) * 10 * time.Millisecond
}

// procMemory reads a process's resident set now and at its peak, in MB.
func procMemory(b *testing.B, pid int) (rss, hwm float64) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		b.Skipf("no /proc: %v", err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		kb, _ := strconv.ParseFloat(f[1], 64)
		switch f[0] {
		case "VmRSS:":
			rss = kb / 1000
		case "VmHWM:":
			hwm = kb / 1000
		}
	}
	return rss, hwm
}
