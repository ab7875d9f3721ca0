package symbolindex

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/symbolindex/embed"
)

func vecRandomUnit(r *rand.Rand, dim int) []float32 {
	v := make([]float32, dim)
	var s float64
	for i := range v {
		x := r.NormFloat64()
		v[i] = float32(x)
		s += x * x
	}
	inv := float32(1 / math.Sqrt(s))
	for i := range v {
		v[i] *= inv
	}
	return v
}

func vecDot32(a, b []float32) float32 {
	var s float32
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

func vecMustSet(t testing.TB, s *VectorStore, slot uint32, v []float32) {
	t.Helper()
	if err := s.Set(slot, v); err != nil {
		t.Fatal(err)
	}
}

func TestVectorStoreQuantizedDotIsClose(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	const dim = 384
	s := NewVectorStore(dim)
	worst, worstRel := 0.0, 0.0
	for slot := range uint32(500) {
		v := vecRandomUnit(r, dim)
		vecMustSet(t, s, slot, v)
		// An unrelated query (dot near 0) and a related one (dot ≈ 0.7).
		q := vecRandomUnit(r, dim)
		related := make([]float32, dim)
		for i := range related {
			related[i] = 0.7*v[i] + 0.3*q[i]
		}
		got, want := float64(s.Dot(slot, q)), float64(vecDot32(v, q))
		worst = math.Max(worst, math.Abs(got-want))
		got, want = float64(s.Dot(slot, related)), float64(vecDot32(v, related))
		worstRel = math.Max(worstRel, math.Abs(got-want)/math.Abs(want))
	}
	if worst > 0.01 {
		t.Errorf("unit vectors: quantized dot off by up to %.4f, want ≤ 0.01", worst)
	}
	if worstRel > 0.01 {
		t.Errorf("related vectors: quantized dot off by up to %.2f%%, want ≤ 1%%", 100*worstRel)
	}
	t.Logf("worst absolute error %.5f, worst relative error %.4f%%", worst, 100*worstRel)
}

func TestVectorStoreGetSetClear(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	s := NewVectorStore(16)
	v := vecRandomUnit(r, 16)
	vecMustSet(t, s, 5, v)
	if s.Len() != 1 || !s.Has(5) || s.Has(4) || s.Has(1<<30) {
		t.Fatalf("Len %d Has(5) %v Has(4) %v", s.Len(), s.Has(5), s.Has(4))
	}
	got := s.Get(5, nil)
	maxAbs := slices.MaxFunc(v, func(a, b float32) int { return cmp.Compare(vecAbs32(a), vecAbs32(b)) })
	for i := range v {
		if d := math.Abs(float64(got[i] - v[i])); d > float64(vecAbs32(maxAbs))/254+1e-7 {
			t.Errorf("component %d: got %v, stored %v (error beyond half a step)", i, got[i], v[i])
		}
	}
	// Storing what Get returns stores the same vector again (persistence).
	vecMustSet(t, s, 6, got)
	if again := s.Get(6, nil); !slices.Equal(again, got) {
		t.Errorf("Set(Get(v)) changed the vector:\n%v\n%v", got, again)
	}
	s.Clear(6)
	if got := s.Get(4, make([]float32, 3)); len(got) != 0 {
		t.Errorf("Get of an empty slot returned %v", got)
	}
	// Replacing keeps the count; clearing removes from results.
	vecMustSet(t, s, 5, vecRandomUnit(r, 16))
	vecMustSet(t, s, 2, v)
	if s.Len() != 2 {
		t.Errorf("Len %d after replacing, want 2", s.Len())
	}
	s.Clear(5)
	s.Clear(5)
	s.Clear(99)
	if s.Len() != 1 || s.Has(5) || s.Dot(5, v) != 0 {
		t.Errorf("after Clear: Len %d Has(5) %v Dot %v", s.Len(), s.Has(5), s.Dot(5, v))
	}
	if got := s.TopK(v, nil, 10, nil); len(got) != 1 || got[0].Slot != 2 {
		t.Errorf("TopK after Clear = %v, want only slot 2", got)
	}
	// A zero vector is stored and scores 0.
	vecMustSet(t, s, 7, make([]float32, 16))
	if !s.Has(7) || s.Dot(7, v) != 0 {
		t.Errorf("zero vector: Has %v Dot %v", s.Has(7), s.Dot(7, v))
	}
}

func TestVectorStoreRejectsBadInput(t *testing.T) {
	s := NewVectorStore(4)
	for _, tc := range []struct {
		slot uint32
		v    []float32
		want string
	}{
		{0, []float32{1, 2, 3}, "length 3, want 4"},
		{0, []float32{1, float32(math.NaN()), 0, 0}, "component 1"},
		{0, []float32{1, 0, float32(math.Inf(-1)), 0}, "component 2"},
		{vecMaxSlots, []float32{1, 0, 0, 0}, "out of range"},
	} {
		if err := s.Set(tc.slot, tc.v); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Set(%d, %v) = %v, want an error with %q", tc.slot, tc.v, err, tc.want)
		}
	}
	if s.Len() != 0 {
		t.Errorf("rejected vectors were stored")
	}
	if err := NewVectorStore(0).Set(0, nil); err == nil {
		t.Errorf("a store of dimension 0 accepted a vector")
	}
	vecMustSet(t, s, 1, []float32{1, 0, 0, 0})
	if got := s.TopK([]float32{1, 0}, nil, 5, nil); len(got) != 0 {
		t.Errorf("TopK with a short query = %v, want nothing", got)
	}
	if got := s.Dot(1, []float32{1}); got != 0 {
		t.Errorf("Dot with a short query = %v, want 0", got)
	}
}

func TestVectorStoreTopKMatchesBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	const dim = 100 // not a multiple of 8: exercises the tail loop
	s := NewVectorStore(dim)
	vecs := map[uint32][]float32{}
	for range 3000 {
		slot := uint32(r.IntN(2000))
		if r.IntN(5) == 0 {
			s.Clear(slot)
			delete(vecs, slot)
			continue
		}
		v := vecRandomUnit(r, dim)
		if r.IntN(10) == 0 && len(vecs) > 0 {
			// Duplicates make ties, broken by slot.
			for _, w := range vecs {
				v = slices.Clone(w)
				break
			}
		}
		vecMustSet(t, s, slot, v)
		vecs[slot] = v
	}
	var dst []ScoredSlot
	for range 20 {
		q := vecRandomUnit(r, dim)
		var all []ScoredSlot
		for slot := range vecs {
			all = append(all, ScoredSlot{slot, s.Dot(slot, q)})
		}
		slices.SortFunc(all, func(a, b ScoredSlot) int {
			if c := cmp.Compare(b.Score, a.Score); c != 0 {
				return c
			}
			return cmp.Compare(a.Slot, b.Slot)
		})
		for _, k := range []int{1, 10, 100, len(all) + 5} {
			dst = s.TopK(q, nil, k, dst)
			if want := all[:min(k, len(all))]; !slices.Equal(dst, want) {
				t.Fatalf("k=%d: TopK differs from brute force", k)
			}
		}
		// Restricted to candidate slots, including absent ones.
		cands := []uint32{5000, 3, 17, 1999, 0, 42, 256}
		var want []ScoredSlot
		for _, sl := range all {
			if slices.Contains(cands, sl.Slot) {
				want = append(want, sl)
			}
		}
		if got := s.TopK(q, cands, 3, nil); !slices.Equal(got, want[:min(3, len(want))]) {
			t.Fatalf("candidates: TopK %v, want %v", got, want[:min(3, len(want))])
		}
		// The best stored vector is the best by exact float dot product too,
		// up to quantization error.
		best := dst[0]
		if exact := vecDot32(vecs[best.Slot], q); math.Abs(float64(exact-best.Score)) > 0.01 {
			t.Fatalf("best slot %d: quantized %v, exact %v", best.Slot, best.Score, exact)
		}
	}
	if got := s.TopK(vecRandomUnit(r, dim), nil, 0, nil); len(got) != 0 {
		t.Errorf("k=0: %v", got)
	}
}

// vecBenchStore fills a store of n random unit vectors.
func vecBenchStore(b *testing.B, n, dim int) (*VectorStore, [][]float32) {
	r := rand.New(rand.NewPCG(13, 14))
	s := NewVectorStore(dim)
	raw := make([][]float32, n)
	for i := range raw {
		raw[i] = vecRandomUnit(r, dim)
		if err := s.Set(uint32(i), raw[i]); err != nil {
			b.Fatal(err)
		}
	}
	return s, raw
}

func BenchmarkTopK100k(b *testing.B) {
	s, _ := vecBenchStore(b, 100_000, embed.DefaultHashDim)
	q := vecRandomUnit(rand.New(rand.NewPCG(15, 16)), embed.DefaultHashDim)
	dst := make([]ScoredSlot, 0, 50)
	for b.Loop() {
		dst = s.TopK(q, nil, 50, dst)
	}
}

// BenchmarkTopK100kFloat32 is the same search over unquantized float32
// vectors in one flat slice (153 MB instead of 38 MB), for comparison.
func BenchmarkTopK100kFloat32(b *testing.B) {
	const dim = embed.DefaultHashDim
	_, raw := vecBenchStore(b, 100_000, dim)
	flat := make([]float32, 0, len(raw)*dim)
	for _, v := range raw {
		flat = append(flat, v...)
	}
	q := vecRandomUnit(rand.New(rand.NewPCG(15, 16)), dim)
	dst := make([]ScoredSlot, 0, 50)
	for b.Loop() {
		h := dst[:0]
		for i := range len(raw) {
			h = topKPush(h, 50, ScoredSlot{uint32(i), vecDotF32(flat[i*dim:(i+1)*dim], q)}, vecWorse)
		}
		dst = h
	}
}

func vecDotF32(a, q []float32) float32 {
	var s0, s1, s2, s3 float32
	for len(a) >= 8 && len(q) >= 8 {
		s0 += a[0]*q[0] + a[4]*q[4]
		s1 += a[1]*q[1] + a[5]*q[5]
		s2 += a[2]*q[2] + a[6]*q[6]
		s3 += a[3]*q[3] + a[7]*q[7]
		a, q = a[8:], q[8:]
	}
	for len(a) > 0 && len(q) > 0 {
		s0 += a[0] * q[0]
		a, q = a[1:], q[1:]
	}
	return (s0 + s1) + (s2 + s3)
}
