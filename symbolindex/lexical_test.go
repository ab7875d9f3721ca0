package symbolindex

import (
	"fmt"
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/symbolindex/internal/synth"
	"github.com/ctxls/ctxls/symbolindex/tokenize"
)

func lexMustAdd(t testing.TB, l *Lexical, doc uint32, fields [NumFields]string) {
	t.Helper()
	if err := l.Add(doc, fields); err != nil {
		t.Fatal(err)
	}
}

func lexQueryOf(text string) []QueryTerm {
	var q []QueryTerm
	for _, term := range tokenize.QueryTerms(text) {
		q = append(q, QueryTerm{Term: term, Weight: 1})
	}
	return q
}

func lexDocsOf(hits []Hit) []uint32 {
	out := make([]uint32, len(hits))
	for i, h := range hits {
		out[i] = h.Doc
	}
	return out
}

func TestLexicalNameMatchOutranksBodyMention(t *testing.T) {
	l := NewLexical(DefaultSymbolParams())
	lexMustAdd(t, l, 0, [NumFields]string{"run", "cmd/main.go", "func run() error", "cfg := parseConfig(path); start(cfg); wait(); cleanup()"})
	lexMustAdd(t, l, 1, [NumFields]string{"parseConfig", "internal/config.go", "func parseConfig(path string) (*Config, error)", "data, err := os.ReadFile(path); return decode(data)"})
	lexMustAdd(t, l, 2, [NumFields]string{"render", "ui/render.go", "func render(w io.Writer)", "w.Write(page)"})
	hits := l.Search(lexQueryOf("parse config"), 10, nil, nil)
	if got := lexDocsOf(hits); !slices.Equal(got, []uint32{1, 0}) {
		t.Fatalf("hits %v, want the parseConfig definition (1) before its caller (0)", got)
	}
	if hits[0].Matched != 2 || hits[1].Matched != 2 {
		t.Errorf("Matched = %d, %d; want 2 (pars, config) for both", hits[0].Matched, hits[1].Matched)
	}
	// Writing the identifier also matches its joined form.
	if hits := l.Search(lexQueryOf("parseConfig"), 1, nil, nil); len(hits) != 1 || hits[0].Doc != 1 || hits[0].Matched != 3 {
		t.Errorf("query parseConfig: hits %v, want doc 1 with 3 matched terms", hits)
	}
}

func TestLexicalNormalizesLength(t *testing.T) {
	l := NewLexical(DefaultSymbolParams())
	filler := strings.Repeat("alpha beta gamma delta epsilon zeta eta theta ", 30)
	lexMustAdd(t, l, 0, [NumFields]string{"first", "a.go", "", "tokenizer " + filler})
	lexMustAdd(t, l, 1, [NumFields]string{"second", "b.go", "", "tokenizer kappa"})
	lexMustAdd(t, l, 2, [NumFields]string{"third", "c.go", "", "lambda"})
	hits := l.Search(lexQueryOf("tokenizer"), 10, nil, nil)
	if got := lexDocsOf(hits); !slices.Equal(got, []uint32{1, 0}) {
		t.Fatalf("hits %v, want the short body (1) before the long one (0)", got)
	}
	if !(hits[0].Score > hits[1].Score) {
		t.Errorf("scores %v, %v: want the short body strictly higher", hits[0].Score, hits[1].Score)
	}
}

func TestLexicalQueryWeightsMatter(t *testing.T) {
	l := NewLexical(DefaultSymbolParams())
	lexMustAdd(t, l, 0, [NumFields]string{"", "", "", "embedding vectors"})
	lexMustAdd(t, l, 1, [NumFields]string{"", "", "", "tokenizer rules"})
	lexMustAdd(t, l, 2, [NumFields]string{"", "", "", "something else"})
	emb, tok := tokenize.QueryTerms("embedding")[0], tokenize.QueryTerms("tokenizer")[0]
	for _, tc := range []struct {
		wEmb, wTok float32
		want       []uint32
	}{
		{1, 0.2, []uint32{0, 1}},
		{0.2, 1, []uint32{1, 0}},
		{1, 0, []uint32{0}}, // a zero weight ignores the term
		{1, float32(math.NaN()), []uint32{0}},
	} {
		q := []QueryTerm{{emb, tc.wEmb}, {tok, tc.wTok}}
		if got := lexDocsOf(l.Search(q, 10, nil, nil)); !slices.Equal(got, tc.want) {
			t.Errorf("weights %v/%v: hits %v, want %v", tc.wEmb, tc.wTok, got, tc.want)
		}
	}
	// A repeated term counts once as matched, with its weights summed.
	once := l.Search([]QueryTerm{{emb, 2}}, 1, nil, nil)[0]
	twice := l.Search([]QueryTerm{{emb, 1}, {emb, 1}}, 1, nil, nil)[0]
	if once != twice || twice.Matched != 1 {
		t.Errorf("repeated term: %+v, want %+v with Matched 1", twice, once)
	}
}

func TestLexicalFilterLimitAndTies(t *testing.T) {
	l := NewLexical(DefaultSymbolParams())
	for d := uint32(0); d < 6; d++ {
		lexMustAdd(t, l, 5-d, [NumFields]string{"cacheEntry", "cache.go", "", ""})
	}
	q := lexQueryOf("cache entry")
	if got := lexDocsOf(l.Search(q, 3, nil, nil)); !slices.Equal(got, []uint32{0, 1, 2}) {
		t.Errorf("equal scores: hits %v, want lowest ids first [0 1 2]", got)
	}
	odd := func(d uint32) bool { return d%2 == 1 }
	if got := lexDocsOf(l.Search(q, 10, odd, nil)); !slices.Equal(got, []uint32{1, 3, 5}) {
		t.Errorf("filtered: hits %v, want [1 3 5]", got)
	}
	if got := l.Search(q, 0, nil, nil); len(got) != 0 {
		t.Errorf("k = 0: got %v", got)
	}
	if got := l.Search(lexQueryOf("nothing matches"), 5, nil, nil); len(got) != 0 {
		t.Errorf("unknown terms: got %v", got)
	}
}

func TestLexicalSearchBufferReuse(t *testing.T) {
	small, big := NewLexical(DefaultSymbolParams()), NewLexical(DefaultSymbolParams())
	lexMustAdd(t, small, 0, [NumFields]string{"loadIndex"})
	lexMustAdd(t, small, 1, [NumFields]string{"saveIndex"})
	for d := uint32(0); d < 500; d++ {
		lexMustAdd(t, big, d, [NumFields]string{fmt.Sprintf("loadIndex%d", d)})
	}
	var buf SearchBuffer
	q := lexQueryOf("load index")
	wantSmall := slices.Clone(small.Search(q, 5, nil, nil))
	wantBig := slices.Clone(big.Search(q, 5, nil, nil))
	for range 3 {
		if got := small.Search(q, 5, nil, &buf); !slices.Equal(got, wantSmall) {
			t.Fatalf("small index with shared buffer: %v, want %v", got, wantSmall)
		}
		if got := big.Search(q, 5, nil, &buf); !slices.Equal(got, wantBig) {
			t.Fatalf("big index with shared buffer: %v, want %v", got, wantBig)
		}
	}
}

func TestLexicalIDF(t *testing.T) {
	l := NewLexical(DefaultSymbolParams())
	lexMustAdd(t, l, 0, [NumFields]string{"walker", "", "", "common"})
	lexMustAdd(t, l, 1, [NumFields]string{"", "", "", "common"})
	lexMustAdd(t, l, 2, [NumFields]string{"", "", "", "common"})
	rare, common := l.IDF("walk"), l.IDF("common")
	if !(rare > common && common > 0) {
		t.Errorf("IDF(walk) = %v, IDF(common) = %v: want rare > common > 0", rare, common)
	}
	if want := float32(math.Log(1 + 2.5/1.5)); math.Abs(float64(rare-want)) > 1e-6 {
		t.Errorf("IDF(walk) = %v, want ln(1 + (3-1+0.5)/(1+0.5)) = %v", rare, want)
	}
	if got := l.IDF("absent"); got != 0 {
		t.Errorf("IDF of an absent term = %v, want 0", got)
	}
}

func TestLexicalBodyCap(t *testing.T) {
	l := NewLexical(DefaultSymbolParams())
	body := strings.Repeat("filler ", lexMaxBodyTerms-1) + "lastword lateword"
	lexMustAdd(t, l, 0, [NumFields]string{"", "", "", body})
	if got := l.Export(0).Lens[FieldBody]; got != lexMaxBodyTerms {
		t.Errorf("body length %d, want the cap %d", got, lexMaxBodyTerms)
	}
	if hits := l.Search(lexQueryOf("lateword"), 1, nil, nil); len(hits) != 0 {
		t.Errorf("a term after the body cap was indexed: %v", hits)
	}
	if hits := l.Search(lexQueryOf("lastword"), 1, nil, nil); len(hits) != 1 {
		t.Errorf("the last term before the cap was not indexed")
	}
}

func TestLexicalRejectsBadInput(t *testing.T) {
	l := NewLexical(DefaultSymbolParams())
	lexMustAdd(t, l, 3, [NumFields]string{"keepMe"})
	l.Remove(7) // absent: no-op
	l.Remove(1 << 31)
	if err := l.Add(lexMaxDocs, [NumFields]string{"x"}); err == nil || !strings.Contains(err.Error(), "out of range") {
		t.Errorf("Add with a huge id: err = %v, want out of range", err)
	}
	for name, dt := range map[string]DocTerms{
		"frequencies": {Terms: []string{"a", "b"}, TFs: []uint32{1}},
		"empty":       {Terms: []string{""}, TFs: []uint32{1}},
		"twice":       {Terms: []string{"dup", "other", "dup"}, TFs: []uint32{1, 1, 1}},
		"occurrence":  {Terms: []string{"zero"}, TFs: []uint32{0}},
	} {
		err := l.AddTerms(3, dt)
		if err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("AddTerms(%v): err = %v, want one mentioning %q", dt, err, name)
		}
	}
	if l.Len() != 1 || !l.Has(3) || len(l.Search(lexQueryOf("keep me"), 5, nil, nil)) != 1 {
		t.Errorf("rejected input changed the index")
	}
	if err := (LexicalParams{K1: 1, B: [NumFields]float32{2}}).Validate(); err == nil || !strings.Contains(err.Error(), "B[0]") {
		t.Errorf("Validate(B[0]=2) = %v, want an error naming B[0]", err)
	}
	if err := DefaultSymbolParams().Validate(); err != nil {
		t.Errorf("default params invalid: %v", err)
	}
	// Invalid parameters fall back to the defaults instead of poisoning scores.
	bad := NewLexical(LexicalParams{K1: float32(math.NaN()), B: [NumFields]float32{-1, 2, 0.5, 0.5}, Weight: [NumFields]float32{float32(math.Inf(1)), 1, 1, 1}})
	lexMustAdd(t, bad, 0, [NumFields]string{"parseConfig"})
	if h := bad.Search(lexQueryOf("parse config"), 1, nil, nil); len(h) != 1 || math.IsNaN(float64(h[0].Score)) || math.IsInf(float64(h[0].Score), 0) {
		t.Errorf("invalid params: hits %v, want one finite score", h)
	}
}

// lexRefScores is a from-scratch BM25F over docs (nil = absent), following the
// formula in Search in float64.
func lexRefScores(p LexicalParams, docs [][NumFields]string, q []QueryTerm) (map[uint32]float64, map[uint32]int) {
	type docInfo struct {
		tf  map[string]*[NumFields]int
		len [NumFields]int
	}
	infos := map[uint32]*docInfo{}
	var sum [NumFields]float64
	df := map[string]int{}
	for d, fields := range docs {
		if fields == ([NumFields]string{}) {
			continue
		}
		info := &docInfo{tf: map[string]*[NumFields]int{}}
		for f := range NumFields {
			tokenize.Terms(fields[f], func(term string) {
				if Field(f) == FieldBody && info.len[f] >= lexMaxBodyTerms {
					return
				}
				info.len[f]++
				c := info.tf[term]
				if c == nil {
					c = new([NumFields]int)
					info.tf[term] = c
					df[term]++
				}
				c[f] = min(c[f]+1, 255)
			})
			sum[f] += float64(info.len[f])
		}
		infos[uint32(d)] = info
	}
	n := float64(len(infos))
	weights := map[string]float64{}
	var order []string
	for _, t := range q {
		if t.Weight > 0 && df[t.Term] > 0 {
			if _, ok := weights[t.Term]; !ok {
				order = append(order, t.Term)
			}
			weights[t.Term] += float64(t.Weight)
		}
	}
	scores, matched := map[uint32]float64{}, map[uint32]int{}
	for d, info := range infos {
		for _, term := range order {
			c := info.tf[term]
			if c == nil {
				continue
			}
			var x float64
			for f := range NumFields {
				if c[f] == 0 {
					continue
				}
				norm := 1.0
				if sum[f] > 0 {
					avg := sum[f] / n
					norm = 1 - float64(p.B[f]) + float64(p.B[f])*float64(info.len[f])/avg
				}
				x += float64(p.Weight[f]) * float64(c[f]) / norm
			}
			dfv := float64(df[term])
			idf := math.Log(1 + (n-dfv+0.5)/(dfv+0.5))
			k1 := float64(p.K1)
			scores[d] += weights[term] * idf * x * (k1 + 1) / (x + k1)
			matched[d]++
		}
	}
	return scores, matched
}

// lexRandomDoc draws a document from a small vocabulary so that terms collide
// across documents and fields.
func lexRandomDoc(r *rand.Rand) [NumFields]string {
	words := []string{"parse", "config", "server", "handler", "index", "token", "cache", "query", "vector", "merkle", "walk", "file", "path", "load", "save", "error"}
	pick := func(n int) string {
		var b strings.Builder
		for i := range n {
			w := words[r.IntN(len(words))]
			if i > 0 {
				switch r.IntN(4) {
				case 0:
					b.WriteString(" ")
				case 1:
					w = strings.ToUpper(w[:1]) + w[1:] // camelCase join
				case 2:
					b.WriteString("_")
				default:
					b.WriteString(". ")
				}
			}
			b.WriteString(w)
		}
		return b.String()
	}
	var fields [NumFields]string
	fields[FieldName] = pick(1 + r.IntN(3))
	fields[FieldPath] = pick(1+r.IntN(3)) + ".go"
	if r.IntN(3) > 0 {
		fields[FieldDoc] = pick(r.IntN(12))
	}
	fields[FieldBody] = pick(r.IntN(60))
	if r.IntN(20) == 0 {
		fields[FieldBody] += strings.Repeat(" cache", 300) // saturates tf
	}
	return fields
}

func lexRandomQuery(r *rand.Rand) []QueryTerm {
	words := []string{"parse", "config", "server", "handler", "index", "token", "cache", "query", "vector", "merkle", "walk", "file", "parseconfig", "absent"}
	var q []QueryTerm
	for range 1 + r.IntN(5) {
		q = append(q, QueryTerm{Term: tokenize.QueryTerms(words[r.IntN(len(words))])[0], Weight: []float32{1, 0.5, 0.25, 2}[r.IntN(4)]})
	}
	return q
}

// lexCheckReference asserts that Search returns the top k of the
// reference scores.
func lexCheckReference(t *testing.T, l *Lexical, docs [][NumFields]string, q []QueryTerm, k int) {
	t.Helper()
	ref, refMatched := lexRefScores(DefaultSymbolParams(), docs, q)
	hits := l.Search(q, k, nil, nil)
	if want := min(k, len(ref)); len(hits) != want {
		t.Fatalf("query %v: %d hits, want %d", q, len(hits), want)
	}
	const eps = 1e-4
	inTop := map[uint32]bool{}
	for i, h := range hits {
		inTop[h.Doc] = true
		want, ok := ref[h.Doc]
		if !ok || math.Abs(float64(h.Score)-want) > eps*math.Max(1, want) {
			t.Fatalf("query %v: doc %d scored %v, reference %v (present %v)", q, h.Doc, h.Score, want, ok)
		}
		if int(h.Matched) != refMatched[h.Doc] {
			t.Fatalf("query %v: doc %d matched %d, reference %d", q, h.Doc, h.Matched, refMatched[h.Doc])
		}
		if i > 0 && lexWorse(hits[i-1], h) {
			t.Fatalf("query %v: hits out of order at %d: %v", q, i, hits)
		}
	}
	if len(hits) == 0 {
		return
	}
	last := float64(hits[len(hits)-1].Score)
	for d, s := range ref {
		if !inTop[d] && s > last+eps*math.Max(1, s) {
			t.Fatalf("query %v: doc %d (reference %v) beats the last hit %v but was left out", q, d, s, last)
		}
	}
}

// TestLexicalMatchesReferenceUnderChurn adds, replaces and removes documents
// in random order, reusing slots, and checks every search against BM25F
// computed from scratch.
func TestLexicalMatchesReferenceUnderChurn(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	l := NewLexical(DefaultSymbolParams())
	docs := make([][NumFields]string, 40)
	for step := range 1500 {
		d := uint32(r.IntN(len(docs)))
		switch r.IntN(3) {
		case 0, 1:
			docs[d] = lexRandomDoc(r)
			lexMustAdd(t, l, d, docs[d])
		case 2:
			docs[d] = [NumFields]string{}
			l.Remove(d)
		}
		live := 0
		for _, fields := range docs {
			if fields != ([NumFields]string{}) {
				live++
			}
		}
		if l.Len() != live {
			t.Fatalf("step %d: Len %d, want %d", step, l.Len(), live)
		}
		if step%10 == 0 {
			lexCheckReference(t, l, docs, lexRandomQuery(r), 1+r.IntN(10))
		}
	}
}

// TestLexicalSlotReuseEqualsFreshIndex checks that an index that went through
// removals and slot reuse answers exactly like one built from the final
// documents.
func TestLexicalSlotReuseEqualsFreshIndex(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	churned := NewLexical(DefaultSymbolParams())
	docs := make([][NumFields]string, 60)
	for range 2000 {
		d := uint32(r.IntN(len(docs)))
		if r.IntN(3) == 0 {
			docs[d] = [NumFields]string{}
			churned.Remove(d)
		} else {
			docs[d] = lexRandomDoc(r)
			lexMustAdd(t, churned, d, docs[d])
		}
	}
	fresh := NewLexical(DefaultSymbolParams())
	for d, fields := range docs {
		if fields != ([NumFields]string{}) {
			lexMustAdd(t, fresh, uint32(d), fields)
		}
	}
	lexAssertSame(t, churned, fresh, len(docs), r)
}

func TestLexicalExportRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	src := NewLexical(DefaultSymbolParams())
	for d := range uint32(80) {
		if d%7 != 3 {
			lexMustAdd(t, src, d, lexRandomDoc(r))
		}
	}
	src.Remove(10)
	restored := NewLexical(DefaultSymbolParams())
	for d := range uint32(80) {
		if src.Has(d) {
			if err := restored.AddTerms(d, src.Export(d)); err != nil {
				t.Fatal(err)
			}
		}
	}
	lexAssertSame(t, src, restored, 80, r)
	if got := src.Export(10); got.Terms != nil || got.Lens != ([NumFields]uint16{}) {
		t.Errorf("Export of a removed doc = %+v, want zero", got)
	}
}

func lexAssertSame(t *testing.T, a, b *Lexical, ndocs int, r *rand.Rand) {
	t.Helper()
	if a.Len() != b.Len() {
		t.Fatalf("Len %d vs %d", a.Len(), b.Len())
	}
	for d := range uint32(ndocs) {
		ea, eb := a.Export(d), b.Export(d)
		if !slices.Equal(ea.Terms, eb.Terms) || !slices.Equal(ea.TFs, eb.TFs) || ea.Lens != eb.Lens {
			t.Fatalf("doc %d exports differ:\n%+v\n%+v", d, ea, eb)
		}
	}
	for range 200 {
		q := lexRandomQuery(r)
		k := 1 + r.IntN(20)
		ha := slices.Clone(a.Search(q, k, nil, nil))
		hb := b.Search(q, k, nil, nil)
		if !slices.Equal(ha, hb) {
			t.Fatalf("query %v: %v vs %v", q, ha, hb)
		}
		for _, qt := range q {
			if a.IDF(qt.Term) != b.IDF(qt.Term) {
				t.Fatalf("IDF(%q) %v vs %v", qt.Term, a.IDF(qt.Term), b.IDF(qt.Term))
			}
		}
	}
}

// TestLexicalRemoveFreesTerms checks that terms whose last document is gone
// leave the dictionary, so that churn does not grow it.
func TestLexicalRemoveFreesTerms(t *testing.T) {
	l := NewLexical(DefaultSymbolParams())
	for i := range 1000 {
		lexMustAdd(t, l, 0, [NumFields]string{fmt.Sprintf("uniqueName%d", i)})
	}
	if l.dict.len() > 10 || l.post.len() > 10 {
		t.Errorf("after 1000 replacements of one doc: %d terms in the dictionary, %d term ids", l.dict.len(), l.post.len())
	}
	l.Remove(0)
	if l.dict.len() != 0 || l.Len() != 0 {
		t.Errorf("empty index keeps %d terms, Len %d", l.dict.len(), l.Len())
	}
}

// lexSynthCorpus generates symbol documents with a realistic identifier
// vocabulary (see synth): Go-like bodies and doc comments around
// camelCase and snake_case names.
type lexSynthCorpus struct{ *synth.Corpus }

func newLexSynthCorpus(seed uint64) *lexSynthCorpus { return &lexSynthCorpus{synth.New(seed)} }

func (c *lexSynthCorpus) doc() [NumFields]string {
	name := c.Ident()
	if c.R.IntN(3) == 0 {
		name = strings.ToUpper(name[:1]) + name[1:] + "." + c.Ident()
	}
	path := c.Word() + "/" + c.Word() + "_" + c.Word() + ".go"
	var sig, doc, body strings.Builder
	fmt.Fprintf(&sig, "func %s(%s %s, %s string) (*%s, error)", name, c.Ident(), c.Ident(), c.Word(), c.Ident())
	fmt.Fprintf(&doc, "%s %s the %s of a %s and returns its %s.", name, c.Word(), c.Word(), c.Ident(), c.Word())
	for range 3 + c.R.IntN(25) {
		switch c.R.IntN(4) {
		case 0:
			fmt.Fprintf(&body, "if err := %s(%s); err != nil {\n\treturn nil, fmt.Errorf(\"%s: %%w\", err)\n}\n", c.Ident(), c.Ident(), c.Word())
		case 1:
			fmt.Fprintf(&body, "%s := %s.%s(%s, %d)\n", c.Ident(), c.Ident(), c.Ident(), c.Ident(), c.R.IntN(1000))
		case 2:
			fmt.Fprintf(&body, "for _, %s := range %s.%s {\n\t%s = append(%s, %s)\n}\n", c.Word(), c.Ident(), c.Ident(), c.Word(), c.Word(), c.Ident())
		default:
			fmt.Fprintf(&body, "// %s the %s %s\n", c.Word(), c.Word(), c.Ident())
		}
	}
	return [NumFields]string{name, path, sig.String() + " " + doc.String(), body.String()}
}

func (c *lexSynthCorpus) query(n int) []QueryTerm {
	var q []QueryTerm
	for len(q) < n {
		for _, t := range tokenize.QueryTerms(c.Word()) {
			q = append(q, QueryTerm{Term: t, Weight: 1})
		}
	}
	return q[:n]
}

// BenchmarkLexicalAdd measures building an index: each op adds one
// synthetic symbol document under a new id.
func BenchmarkLexicalAdd(b *testing.B) {
	c := newLexSynthCorpus(1)
	docs := make([][NumFields]string, 4096)
	for i := range docs {
		docs[i] = c.doc()
	}
	l := NewLexical(DefaultSymbolParams())
	i := 0
	for b.Loop() {
		if err := l.Add(uint32(i), docs[i%len(docs)]); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// BenchmarkLexicalReplace measures re-indexing an edited symbol in an index
// of 20k documents: Remove plus Add in the middle of the postings.
func BenchmarkLexicalReplace(b *testing.B) {
	c := newLexSynthCorpus(1)
	l := NewLexical(DefaultSymbolParams())
	const n = 20_000
	for d := range uint32(n) {
		if err := l.Add(d, c.doc()); err != nil {
			b.Fatal(err)
		}
	}
	docs := make([][NumFields]string, 256)
	for i := range docs {
		docs[i] = c.doc()
	}
	i := 0
	for b.Loop() {
		if err := l.Add(uint32(i*7919%n), docs[i%len(docs)]); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

func BenchmarkLexicalSearch100k(b *testing.B) {
	c := newLexSynthCorpus(2)
	l := NewLexical(DefaultSymbolParams())
	for d := range uint32(100_000) {
		if err := l.Add(d, c.doc()); err != nil {
			b.Fatal(err)
		}
	}
	queries := make([][]QueryTerm, 64)
	for i := range queries {
		queries[i] = c.query(5)
	}
	var buf SearchBuffer
	i := 0
	for b.Loop() {
		l.Search(queries[i%len(queries)], 50, nil, &buf)
		i++
	}
}

// lexGoSourceDocs indexes the functions of some standard library packages as
// symbol documents (the doc comment left out) and returns, per function
// with a doc comment, the comment's first sentence without the function's
// name as a query whose answer is that function.
func lexGoSourceDocs(t *testing.T, l *Lexical) (queries []string, answers []uint32) {
	t.Helper()
	root := filepath.Join(build.Default.GOROOT, "src")
	doc := uint32(0)
	for _, dir := range []string{"strings", "bytes", "bufio", "net/url", "encoding/json", "path/filepath", "text/template", "go/scanner"} {
		files, err := filepath.Glob(filepath.Join(root, dir, "*.go"))
		if err != nil || len(files) == 0 {
			t.Fatalf("no Go sources in %s: %v", dir, err)
		}
		for _, path := range files {
			if strings.HasSuffix(path, "_test.go") {
				continue
			}
			src, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			fset := token.NewFileSet()
			f, err := parser.ParseFile(fset, path, src, parser.ParseComments)
			if err != nil {
				t.Fatal(err)
			}
			for _, decl := range f.Decls {
				fn, ok := decl.(*ast.FuncDecl)
				if !ok || fn.Body == nil {
					continue
				}
				name := fn.Name.Name
				if fn.Recv != nil && len(fn.Recv.List) > 0 {
					recv := string(src[fset.Position(fn.Recv.List[0].Type.Pos()).Offset:fset.Position(fn.Recv.List[0].Type.End()).Offset])
					name = strings.TrimLeft(recv, "*") + "." + name
				}
				sig := string(src[fset.Position(fn.Pos()).Offset:fset.Position(fn.Body.Lbrace).Offset])
				body := string(src[fset.Position(fn.Body.Lbrace).Offset:fset.Position(fn.Body.End()).Offset])
				rel, _ := filepath.Rel(root, path)
				lexMustAdd(t, l, doc, [NumFields]string{name, filepath.ToSlash(rel), sig, body})
				if fn.Doc != nil {
					text := fn.Doc.Text()
					if i := strings.Index(text, ". "); i > 0 {
						text = text[:i]
					}
					text = strings.TrimPrefix(text, fn.Name.Name+" ")
					if len(tokenize.QueryTerms(text)) >= 2 {
						queries = append(queries, text)
						answers = append(answers, doc)
					}
				}
				doc++
			}
		}
	}
	return queries, answers
}

// TestDocStopWordsKeepRanking measures the document stop list on real code:
// it must save postings without making retrieval worse.
func TestDocStopWordsKeepRanking(t *testing.T) {
	mrr := func(l *Lexical, queries []string, answers []uint32) float64 {
		var sum float64
		var buf SearchBuffer
		for i, q := range queries {
			for rank, h := range l.Search(lexQueryOf(q), 10, nil, &buf) {
				if h.Doc == answers[i] {
					sum += 1 / float64(rank+1)
				}
			}
		}
		return sum / float64(len(queries))
	}
	postings := func(l *Lexical) (n int) {
		for id := range l.post.len() {
			n += l.df(uint32(id))
		}
		return n
	}
	stop := NewLexical(DefaultSymbolParams())
	queries, answers := lexGoSourceDocs(t, stop)
	all := NewLexical(DefaultSymbolParams())
	all.mode = tokenize.ModeDocAll
	lexGoSourceDocs(t, all)
	if len(queries) < 500 {
		t.Fatalf("only %d queries", len(queries))
	}
	mStop, mAll := mrr(stop, queries, answers), mrr(all, queries, answers)
	pStop, pAll := postings(stop), postings(all)
	t.Logf("%d functions, %d queries: MRR@10 %.4f with the stop list, %.4f without; postings %d vs %d (%.1f%% saved)",
		stop.Len(), len(queries), mStop, mAll, pStop, pAll, 100*(1-float64(pStop)/float64(pAll)))
	if mStop < mAll-0.005 {
		t.Errorf("the stop list lowers MRR@10 from %.4f to %.4f", mAll, mStop)
	}
	if pStop > pAll*95/100 {
		t.Errorf("the stop list saves only %d of %d postings", pAll-pStop, pAll)
	}
}

// The terms of a loaded index's segments are merged into one sorted
// dictionary, each segment's terms mapped to their place in it.
func TestMergeSortedTerms(t *testing.T) {
	lists := [][]string{{"b", "d", "f"}, {"a", "b", "c"}, {}, {"d", "z"}, {"a", "f", "y"}}
	terms, ids := mergeSortedTerms(lists)
	if want := []string{"a", "b", "c", "d", "f", "y", "z"}; !slices.Equal(terms, want) {
		t.Fatalf("merged %q, want %q", terms, want)
	}
	for k, list := range lists {
		for i, term := range list {
			if terms[ids[k][i]] != term {
				t.Errorf("list %d term %d (%q) mapped to %q", k, i, term, terms[ids[k][i]])
			}
		}
	}
}
