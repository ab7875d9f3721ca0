package symbolindex

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/symbolindex/embed"
	"github.com/ctxls/ctxls/symbolindex/parse"
	"github.com/ctxls/ctxls/symbolindex/tokenize"
)

// TestPutSlotsRepeatable replays the same edits on fresh indexes and
// requires every symbol to take the same slot each time: the slots an
// edit frees are taken again by the next symbols, and a replay of a
// repository's history must build the same index on every run.
func TestPutSlotsRepeatable(t *testing.T) {
	p := parse.NewParser()
	defer p.Close()
	emb := embed.NewHashEmbedder(embed.DefaultHashDim)
	funcs := func(prefix string, n int) string {
		var b strings.Builder
		b.WriteString("package pay\n")
		for i := range n {
			fmt.Fprintf(&b, "\nfunc %s%d() int { return %d }\n", prefix, i, i)
		}
		return b.String()
	}
	build := func() []string {
		ix := NewIndex(emb)
		ix.Put(ixPrepare(t, p, emb, "pay/a.go", funcs("old", 24)))
		ix.Put(ixPrepare(t, p, emb, "pay/a.go", funcs("kept", 2))) // frees 24 slots
		ix.Put(ixPrepare(t, p, emb, "pay/b.go", funcs("fresh", 24)))
		var out []string
		for _, path := range []string{"pay/a.go", "pay/b.go"} {
			fs, _ := ix.FileSlot(path)
			for _, s := range ix.FileSymbols(fs) {
				ref, _ := ix.Symbol(s)
				out = append(out, fmt.Sprintf("%s=%d", ref.Qualified, s))
			}
		}
		return out
	}
	first := build()
	for range 4 {
		if again := build(); !slices.Equal(again, first) {
			t.Fatalf("the same edits gave other slots:\n  %v\n  %v", first, again)
		}
	}
}

// TestSearchTiesByPath indexes files of equal scores in two orders and
// requires the searches to keep the first ones by path, in path order,
// when there are more of them than asked for.
func TestSearchTiesByPath(t *testing.T) {
	p := parse.NewParser()
	defer p.Close()
	emb := embed.NewHashEmbedder(embed.DefaultHashDim)
	const n = 12
	src := "package pay\n\n// settleInvoice settles the invoice.\nfunc settleInvoice() {}\n"
	build := func(reverse bool) *Index {
		ix := NewIndex(emb)
		for i := range n {
			if reverse {
				i = n - 1 - i
			}
			ix.Put(ixPrepare(t, p, emb, fmt.Sprintf("pay/p%02d.go", i), src))
		}
		return ix
	}
	var q []QueryTerm
	for _, term := range tokenize.QueryTerms("settle the invoice") {
		q = append(q, QueryTerm{Term: term, Weight: 1})
	}
	vecs, err := emb.Embed([]string{"settle the invoice"})
	if err != nil {
		t.Fatal(err)
	}
	qv := vecs[0]
	// The third reads its symbols from a cache file's records rather than
	// from memory.
	path := filepath.Join(t.TempDir(), "index")
	if err := build(true).Save(path); err != nil {
		t.Fatal(err)
	}
	loaded, err := LoadIndex(path, emb)
	if err != nil {
		t.Fatal(err)
	}
	var got [3][3][]string
	for o, ix := range []*Index{build(false), build(true), loaded} {
		for _, h := range ix.SearchSymbols(q, 5, nil, nil) {
			ref, _ := ix.Symbol(h.Doc)
			got[o][0] = append(got[o][0], ref.Path)
		}
		for _, h := range ix.SearchFiles(q, 5, nil, nil) {
			got[o][1] = append(got[o][1], ix.FilePath(h.Doc))
		}
		hits := ix.SearchVectors(qv, 5, nil, nil)
		for i, h := range hits {
			ref, _ := ix.Symbol(h.Slot)
			got[o][2] = append(got[o][2], ref.Path)
			if i > 0 && h.Score == hits[i-1].Score && ref.Path < got[o][2][i-1] {
				t.Errorf("SearchVectors: equal scores out of path order: %v", got[o][2])
			}
		}
	}
	// The words tie exactly; the vectors hold the path's words too, so
	// they tie among the rest (checked above) and must agree.
	want := []string{"pay/p00.go", "pay/p01.go", "pay/p02.go", "pay/p03.go", "pay/p04.go"}
	for k, name := range []string{"SearchSymbols", "SearchFiles", "SearchVectors"} {
		if k == 2 {
			want = got[0][2]
		}
		for o, order := range []string{"indexed in path order", "in reverse", "loaded"} {
			if !slices.Equal(got[o][k], want) || len(got[o][k]) != 5 {
				t.Errorf("%s, %s: %v; want the first five by path %v", name, order, got[o][k], want)
			}
		}
	}
}
