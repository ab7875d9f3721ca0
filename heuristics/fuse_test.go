package heuristics

import (
	"math"
	"slices"
	"testing"
)

func TestFuse(t *testing.T) {
	rrf := func(w float64, rank int) float64 { return w / float64(RRFK+rank) }
	tests := []struct {
		name  string
		lists []Ranked
		want  []Fused
	}{
		{
			name:  "empty",
			lists: nil,
			want:  nil,
		},
		{
			name:  "lists without ids",
			lists: []Ranked{{Source: "lexical", Weight: 1}},
			want:  nil,
		},
		{
			name:  "single list keeps its order",
			lists: []Ranked{{Source: "lexical", Weight: 1, IDs: []uint32{7, 3, 9}}},
			want: []Fused{
				{ID: 7, Score: rrf(1, 1), Ranks: []int32{1}},
				{ID: 3, Score: rrf(1, 2), Ranks: []int32{2}},
				{ID: 9, Score: rrf(1, 3), Ranks: []int32{3}},
			},
		},
		{
			name: "agreement beats a single first place",
			lists: []Ranked{
				{Source: "lexical", Weight: 1, IDs: []uint32{1, 2, 3}},
				{Source: "semantic", Weight: 1, IDs: []uint32{4, 2, 3}},
			},
			want: []Fused{
				{ID: 2, Score: 2 * rrf(1, 2), Ranks: []int32{2, 2}},
				{ID: 3, Score: 2 * rrf(1, 3), Ranks: []int32{3, 3}},
				{ID: 1, Score: rrf(1, 1), Ranks: []int32{1, 0}},
				{ID: 4, Score: rrf(1, 1), Ranks: []int32{0, 1}},
			},
		},
		{
			name: "weights scale sources",
			lists: []Ranked{
				{Source: "lexical", Weight: 1, IDs: []uint32{1}},
				{Source: "mentions", Weight: 3, IDs: []uint32{2}},
			},
			want: []Fused{
				{ID: 2, Score: rrf(3, 1), Ranks: []int32{0, 1}},
				{ID: 1, Score: rrf(1, 1), Ranks: []int32{1, 0}},
			},
		},
		{
			name: "equal scores: best single rank, then id",
			lists: []Ranked{
				{Source: "a", Weight: 1, IDs: []uint32{9, 5}},
				{Source: "b", Weight: 1, IDs: []uint32{5, 9}},
				{Source: "c", Weight: 1, IDs: []uint32{8}},
				{Source: "d", Weight: 1, IDs: []uint32{6}},
			},
			want: []Fused{
				{ID: 5, Score: rrf(1, 2) + rrf(1, 1), Ranks: []int32{2, 1, 0, 0}},
				{ID: 9, Score: rrf(1, 1) + rrf(1, 2), Ranks: []int32{1, 2, 0, 0}},
				{ID: 6, Score: rrf(1, 1), Ranks: []int32{0, 0, 0, 1}},
				{ID: 8, Score: rrf(1, 1), Ranks: []int32{0, 0, 1, 0}},
			},
		},
		{
			name: "repeated id counts at its first occurrence",
			lists: []Ranked{
				{Source: "lexical", Weight: 1, IDs: []uint32{4, 4, 2, 4}},
			},
			want: []Fused{
				{ID: 4, Score: rrf(1, 1), Ranks: []int32{1}},
				{ID: 2, Score: rrf(1, 3), Ranks: []int32{3}},
			},
		},
		{
			name: "zero, negative, NaN and infinite weights add nothing but report ranks",
			lists: []Ranked{
				{Source: "zero", Weight: 0, IDs: []uint32{1}},
				{Source: "neg", Weight: -1, IDs: []uint32{1}},
				{Source: "nan", Weight: math.NaN(), IDs: []uint32{1}},
				{Source: "inf", Weight: math.Inf(1), IDs: []uint32{1}},
				{Source: "real", Weight: 0.5, IDs: []uint32{2}},
			},
			want: []Fused{
				{ID: 2, Score: rrf(0.5, 1), Ranks: []int32{0, 0, 0, 0, 1}},
				{ID: 1, Score: 0, Ranks: []int32{1, 1, 1, 1, 0}},
			},
		},
	}
	var buf FuseBuffer
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, b := range []*FuseBuffer{nil, &buf, &buf} { // fresh, then reused twice
				got := Fuse(tt.lists, b)
				if !fusedEqual(got, tt.want) {
					t.Fatalf("Fuse = %+v\nwant %+v", got, tt.want)
				}
			}
		})
	}
}

func fusedEqual(a, b []Fused) bool {
	return slices.EqualFunc(a, b, func(x, y Fused) bool {
		return x.ID == y.ID && near(x.Score, y.Score) && slices.Equal(x.Ranks, y.Ranks)
	})
}

// TestFuseResultsIndependent checks that a result stays valid after the
// buffer is reused and that one item's Ranks cannot overwrite another's.
func TestFuseResultsIndependent(t *testing.T) {
	var buf FuseBuffer
	first := Fuse([]Ranked{{Weight: 1, IDs: []uint32{1, 2}}, {Weight: 1, IDs: []uint32{2}}}, &buf)
	Fuse([]Ranked{{Weight: 1, IDs: []uint32{5, 6, 7}}, {Weight: 1, IDs: []uint32{7, 6, 5}}}, &buf)
	want := []Fused{
		{ID: 2, Score: 1.0/62 + 1.0/61, Ranks: []int32{2, 1}},
		{ID: 1, Score: 1.0 / 61, Ranks: []int32{1, 0}},
	}
	if !fusedEqual(first, want) {
		t.Fatalf("earlier result changed by buffer reuse: %+v", first)
	}
	first[0].Ranks = append(first[0].Ranks, 99)
	if first[1].Ranks[0] != 1 || first[1].Ranks[1] != 0 {
		t.Errorf("appending to one item's Ranks changed another's: %v", first[1].Ranks)
	}
}

func TestFuseAllocations(t *testing.T) {
	lists := benchLists()
	var buf FuseBuffer
	Fuse(lists, &buf) // warm the buffer
	if n := testing.AllocsPerRun(20, func() { Fuse(lists, &buf) }); n > 2 {
		t.Errorf("Fuse with a reused buffer made %v allocations per call, want ≤ 2 (result and its ranks)", n)
	}
}

// benchLists returns 6 lists of 200 ids with partial overlap, like the
// sources of one selection.
func benchLists() []Ranked {
	lists := make([]Ranked, 6)
	for l := range lists {
		ids := make([]uint32, 200)
		for i := range ids {
			ids[i] = uint32((i*7 + l*37) % 500)
		}
		lists[l] = Ranked{Source: "s", Weight: 1 + float64(l)/4, IDs: ids}
	}
	return lists
}

func BenchmarkFuse(b *testing.B) {
	lists := benchLists()
	var buf FuseBuffer
	b.ReportAllocs()
	for b.Loop() {
		Fuse(lists, &buf)
	}
}

// TestFuseManyIDs checks fusion at scale against a direct computation,
// including IDs that differ only in their high bits (a weak hash would
// collide on them) and lists that repeat IDs.
func TestFuseManyIDs(t *testing.T) {
	lists := make([]Ranked, 4)
	for l := range lists {
		ids := make([]uint32, 3000)
		for i := range ids {
			ids[i] = uint32((i*(l+3))%2500) << 20 // multiples of 1<<20, some repeated
		}
		lists[l] = Ranked{Source: "s", Weight: float64(l + 1), IDs: ids}
	}
	want := map[uint32]float64{}
	for _, l := range lists {
		seen := map[uint32]bool{}
		for pos, id := range l.IDs {
			if !seen[id] {
				seen[id] = true
				want[id] += l.Weight / float64(RRFK+pos+1)
			}
		}
	}
	var buf FuseBuffer
	got := Fuse(lists, &buf)
	if len(got) != len(want) {
		t.Fatalf("Fuse returned %d items, want %d", len(got), len(want))
	}
	for i, f := range got {
		if !near(f.Score, want[f.ID]) {
			t.Fatalf("item %d: score %v, want %v", f.ID, f.Score, want[f.ID])
		}
		if i > 0 && compareFused(fuseEntry{id: got[i-1].ID, score: got[i-1].Score, best: bestRank(got[i-1])},
			fuseEntry{id: f.ID, score: f.Score, best: bestRank(f)}) >= 0 {
			t.Fatalf("items %d and %d are out of order", i-1, i)
		}
	}
}

func bestRank(f Fused) int32 {
	best := int32(math.MaxInt32)
	for _, r := range f.Ranks {
		if r > 0 {
			best = min(best, r)
		}
	}
	return best
}
