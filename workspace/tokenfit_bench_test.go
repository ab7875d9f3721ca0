package workspace

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/ctxls/ctxls/workspace/tokens"
)

// BenchmarkSelectTokens is what a token budget costs a select: the same
// queries over the 10k-symbol synthetic workspace as BenchmarkSelect, with
// no token budget (chars), and with maxTokens 3,000 (about the default
// 12,000 characters) and 1,000 in o200k_base, each with the counts of
// lines kept from earlier selects (warm) and with none (cold: every text
// counted from scratch, as for the first select over new code). The
// encoding is loaded before timing (once per process; its load is
// reported as load-ms), so the difference is the counting and fitting.
// Run with -benchtime 200x.
func BenchmarkSelectTokens(b *testing.B) {
	t0 := time.Now()
	enc, err := tokens.Get(tokens.Default)
	if err != nil {
		b.Fatal(err)
	}
	load := time.Since(t0)
	ws, _ := openBench(b, synthWorkspace(b, 10_000), CacheDirOff)
	ctx := context.Background()
	for _, tc := range []struct {
		maxTokens int
		cold      bool
	}{{0, false}, {3000, false}, {3000, true}, {1000, false}, {1000, true}} {
		maxTokens := tc.maxTokens
		name := "chars"
		if maxTokens > 0 {
			name = fmt.Sprintf("maxTokens=%d/warm", maxTokens)
			if tc.cold {
				name = fmt.Sprintf("maxTokens=%d/cold", maxTokens)
			}
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			lat := make([]time.Duration, 0, 1024)
			used, usedTok := 0, 0
			cpu0 := cpuTime()
			for b.Loop() {
				if tc.cold {
					enc.ResetCache()
				}
				start := time.Now()
				res, err := ws.Select(ctx, &SelectRequest{Query: benchQueries[len(lat)%len(benchQueries)], MaxTokens: maxTokens})
				if err != nil || len(res.Items) == 0 {
					b.Fatalf("select: %v (%d items)", err, len(res.Items))
				}
				if maxTokens > 0 && res.UsedTokens > maxTokens {
					b.Fatalf("%d tokens over a budget of %d", res.UsedTokens, maxTokens)
				}
				lat = append(lat, time.Since(start))
				used, usedTok = used+res.UsedChars, usedTok+res.UsedTokens
			}
			reportPercentiles(b, lat, cpuTime()-cpu0)
			b.ReportMetric(float64(used)/float64(len(lat)), "chars/query")
			if maxTokens > 0 {
				b.ReportMetric(float64(usedTok)/float64(len(lat)), "tokens/query")
			}
			b.ReportMetric(float64(load)/float64(time.Millisecond), "load-ms")
		})
	}
}
