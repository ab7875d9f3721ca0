package embed

import (
	"fmt"
	"math"
	"slices"
	"sync"
	"testing"

	"github.com/ctxls/ctxls/symbolindex/internal/synth"
)

func hashEmbCosine(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

func hashEmbOne(t testing.TB, e Embedder, text string) []float32 {
	t.Helper()
	v, err := e.Embed([]string{text})
	if err != nil {
		t.Fatal(err)
	}
	return v[0]
}

func TestHashEmbedderIdentity(t *testing.T) {
	e := NewHashEmbedder(DefaultHashDim)
	if e.ID() != "hash-384" || e.Dim() != 384 {
		t.Errorf("ID %q Dim %d, want hash-384 and 384", e.ID(), e.Dim())
	}
	if e := NewHashEmbedder(64); e.ID() != "hash-64" || len(hashEmbOne(t, e, "parse")) != 64 {
		t.Errorf("dim 64: ID %q", e.ID())
	}
	if e := NewHashEmbedder(0); e.Dim() != DefaultHashDim {
		t.Errorf("dim 0 gives %d, want the default %d", e.Dim(), DefaultHashDim)
	}
	var _ Embedder = e
}

func TestHashEmbedderNormalizedAndDeterministic(t *testing.T) {
	texts := []string{"parseConfig", "func (s *Server) Start(ctx context.Context) error { return s.listen() }", "größeBerechnen", "a b parse parse parse"}
	e1, e2 := NewHashEmbedder(DefaultHashDim), NewHashEmbedder(DefaultHashDim)
	v1, err := e1.Embed(texts)
	if err != nil {
		t.Fatal(err)
	}
	v2, _ := e2.Embed(slices.Clone(texts))
	for i, text := range texts {
		if !slices.Equal(v1[i], v2[i]) {
			t.Errorf("%q: two embedders disagree", text)
		}
		if !slices.Equal(v1[i], hashEmbOne(t, e1, text)) {
			t.Errorf("%q: embedding alone differs from embedding in a batch", text)
		}
		if n := math.Sqrt(hashEmbCosine(v1[i], v1[i])); math.Abs(n-1) > 1e-5 {
			t.Errorf("%q: norm %v, want 1", text, n)
		}
	}
	for _, text := range []string{"", "  !!! ", "a b c", "if err != nil { return nil }"} {
		for i, x := range hashEmbOne(t, e1, text) {
			if x != 0 {
				t.Errorf("%q: component %d = %v, want the zero vector", text, i, x)
				break
			}
		}
	}
}

func TestHashEmbedderSimilarity(t *testing.T) {
	e := NewHashEmbedder(DefaultHashDim)
	for _, tc := range []struct{ a, near, far string }{
		{"parseConfig", "ParseConfiguration", "renderWidget"},
		{"parseConfig", "parse_config", "httpServer"},
		{"HTTPServer", "http server handler", "tokenizeQuery"},
		{"validateUniqueArgs", "UniqueArgsValidator", "loadMerkleTree"},
		{"embedding vectors", "embedder vector", "git commit history"},
	} {
		a := hashEmbOne(t, e, tc.a)
		near, far := hashEmbCosine(a, hashEmbOne(t, e, tc.near)), hashEmbCosine(a, hashEmbOne(t, e, tc.far))
		if !(near > far+0.2) {
			t.Errorf("cos(%q, %q) = %.3f, cos(%q, %q) = %.3f: want the first clearly higher", tc.a, tc.near, near, tc.a, tc.far, far)
		}
	}
}

func TestHashEmbedderSublinearTF(t *testing.T) {
	e := NewHashEmbedder(DefaultHashDim)
	once := hashEmbOne(t, e, "cache lookup")
	many := hashEmbOne(t, e, "cache cache cache cache cache cache cache cache lookup")
	// With linear tf the repeated word would swamp "lookup"; 1 + ln 8 ≈ 3.1
	// keeps the two texts close.
	if c := hashEmbCosine(once, many); c < 0.8 {
		t.Errorf("cos = %.3f, want ≥ 0.8 with sublinear tf", c)
	}
}

func TestHashEmbedderConcurrent(t *testing.T) {
	e := NewHashEmbedder(DefaultHashDim)
	texts := make([]string, 50)
	for i := range texts {
		texts[i] = fmt.Sprintf("func handler%d(w http.ResponseWriter, r *http.Request) { serveFile%d(w, r) }", i, i*7)
	}
	want, _ := e.Embed(texts)
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			got, _ := e.Embed(texts)
			for i := range got {
				if !slices.Equal(got[i], want[i]) {
					t.Errorf("concurrent Embed differs for text %d", i)
					return
				}
			}
		})
	}
	wg.Wait()
}

func BenchmarkHashEmbed(b *testing.B) {
	c := synth.New(3)
	texts := make([]string, 10_000)
	for i := range texts {
		texts[i] = c.Ident() + " " + c.Ident() + " " + c.Word()
	}
	e := NewHashEmbedder(DefaultHashDim)
	for b.Loop() {
		if _, err := e.Embed(texts); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(texts)), "ns/text")
}
