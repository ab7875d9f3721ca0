package symbolindex

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/ctxls/ctxls/symbolindex/embed"
	"github.com/ctxls/ctxls/symbolindex/parse"
)

// editBenchGo is the file of lsp's BenchmarkEditToFreshIndex: a Go file of
// about lines lines, in functions of ten lines.
func editBenchGo(lines int) []byte {
	var b bytes.Buffer
	b.WriteString("package big\n\n")
	for i := 0; bytes.Count(b.Bytes(), []byte("\n")) < lines; i++ {
		fmt.Fprintf(&b, "// Step%d advances the state machine by one step.\nfunc Step%d(state, input int) int {\n", i, i)
		fmt.Fprintf(&b, "\tnext := state*%d + input\n\tif next > 1000 {\n\t\tnext -= 1000\n\t}\n\tfor j := 0; j < input; j++ {\n\t\tnext += j\n\t}\n\treturn next\n}\n\n", i+3)
	}
	return b.Bytes()
}

// BenchmarkEditToIndex is lsp's BenchmarkEditToFreshIndex in process, the
// same edits of the same file: ParseEdit, then PrepareParsed (which
// tokenizes and embeds only the changed symbol) and Put. Like it, it
// reports the p50 and p95 of the edits; 36 in every 1,000 of them write an
// invalid octal literal (state*008), a syntax error, which costs a parse
// from scratch.
func BenchmarkEditToIndex(b *testing.B) {
	ctx := context.Background()
	text := editBenchGo(2000)
	off := bytes.Index(text, []byte("\tnext := state*103 + input\n")) + len("\tnext := state*")
	ix := NewIndex(embed.NewHashEmbedder(embed.DefaultHashDim))
	p := parse.NewParser()
	defer p.Close()
	var dt *parse.DocTree
	put := func(text []byte, known Known) {
		pf, next, err := p.ParseEdit(ctx, "big.go", dt, text)
		if err != nil {
			b.Fatal(err)
		}
		dt = next
		d, err := PrepareParsed(pf, ix.Embedder(), "big.go", text, int64(len(text)), 0, known)
		if err != nil {
			b.Fatal(err)
		}
		ix.Put(d)
	}
	put(text, nil)
	known := func(key string, hash uint64) bool { return ix.Has("big.go", key, hash) }
	var samples []time.Duration
	for i := 0; b.Loop(); i++ {
		text = append(append(append([]byte(nil), text[:off]...), fmt.Sprintf("%03d", i%1000)...), text[off+3:]...)
		start := time.Now()
		put(text, known)
		samples = append(samples, time.Since(start))
	}
	b.StopTimer()
	dt.Close()
	slices.Sort(samples)
	at := func(q float64) float64 {
		return float64(samples[min(len(samples)-1, int(q*float64(len(samples))))].Microseconds()) / 1000
	}
	b.ReportMetric(at(0.50), "p50-ms")
	b.ReportMetric(at(0.95), "p95-ms")
}
