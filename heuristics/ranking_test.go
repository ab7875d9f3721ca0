package heuristics

import (
	"math"
	"slices"
	"testing"
)

func TestCompetitionRanks(t *testing.T) {
	scores := []float64{9, 7, 7, 5, 5, 5, 1}
	var got []int
	for i, r := range CompetitionRanks(scores, func(x float64) float64 { return x }) {
		if len(got) != i {
			t.Fatalf("index %d out of order", i)
		}
		got = append(got, r)
	}
	if want := []int{1, 2, 2, 4, 4, 4, 7}; !slices.Equal(got, want) {
		t.Errorf("ranks %v, want %v (equal scores share the first one's rank)", got, want)
	}
	for range CompetitionRanks(scores, func(x float64) float64 { return x }) {
		break // stopping early must not panic
	}
}

// A tie spread over more than TieKeep files shares its first rank's
// credit among them; a smaller one, or one within fewer files, keeps it.
func TestSharedRanks(t *testing.T) {
	type hit struct {
		score float64
		file  uint32
	}
	hits := []hit{{9, 1}, {7, 1}, {7, 2}, {5, 3}, {5, 4}, {5, 5}, {5, 6}, {5, 7}, {4, 8}, {4, 8}, {4, 8}, {4, 8}, {1, 9}}
	var got []int
	for _, r := range SharedRanks(hits, func(h hit) float64 { return h.score }, func(h hit) uint32 { return h.file }) {
		got = append(got, r.Rank())
	}
	five := TieRank(4, 5)
	if want := []int{1, 2, 2, five, five, five, five, five, 9, 9, 9, 9, 13}; !slices.Equal(got, want) {
		t.Errorf("ranks %v, want %v", got, want)
	}
	if d := 5*RRF(1, five) - RRF(1, 4); d > 1e-12 || d < -1e-12 {
		t.Errorf("the tie over five files takes %v in all, want the credit of rank 4, %v", 5*RRF(1, five), RRF(1, 4))
	}
	for range SharedRanks(hits, func(h hit) float64 { return h.score }, func(h hit) uint32 { return h.file }) {
		break // stopping early must not panic
	}

	// TieKeep is the edge: a tie over three files keeps its rank, one over
	// four shares it.
	edge := []hit{{5, 1}, {5, 2}, {5, 3}, {4, 4}, {4, 5}, {4, 6}, {4, 7}}
	got = got[:0]
	var ties []Tie
	for _, r := range SharedRanks(edge, func(h hit) float64 { return h.score }, func(h hit) uint32 { return h.file }) {
		got, ties = append(got, r.Rank()), append(ties, r)
	}
	four := TieRank(4, 4)
	if want := []int{1, 1, 1, four, four, four, four}; !slices.Equal(got, want) || four == 4 {
		t.Errorf("ties over three and four files: ranks %v, want %v", got, want)
	}
	// Each entry says where its tie begins and, when shared, over how many
	// files (which --explain prints beside the search's own rank).
	if want := []Tie{{1, 0}, {1, 0}, {1, 0}, {4, 4}, {4, 4}, {4, 4}, {4, 4}}; !slices.Equal(ties, want) {
		t.Errorf("ties %v, want %v", ties, want)
	}
}

// A tie too large for an int32 rank is held at the largest.
func TestTieRankHeld(t *testing.T) {
	if r := TieRank(50_000, 50_000); r != math.MaxInt32 {
		t.Errorf("a tie of 50,000 from rank 50,000 takes rank %d, want it held at %d", r, math.MaxInt32)
	}
}

func TestFuseRanks(t *testing.T) {
	var ranks [NumSources]int32
	ranks[SrcLexical], ranks[SrcMention] = 1, 3
	ranks[SrcLocality] = 1 // locality counts as a prior, not by its rank
	ranks[SrcHistory] = 2  // a file-only source counts at its symbol share
	want := RRF(Weights[SrcLexical], 1) + RRF(Weights[SrcMention], 3) +
		RRF(Weights[SrcHistory]*FileOnlySymbolShare, 2) + LocalityPrior(0.5)
	if got := FuseRanks(&ranks, 0.5); got != want {
		t.Errorf("FuseRanks = %v, want %v", got, want)
	}
	if got := FuseRanks(&[NumSources]int32{}, 0); got != 0 {
		t.Errorf("no ranks, no nearness: %v, want 0", got)
	}
}

// The default limit leaves the best files' shares no room; a larger one
// gives them what half the limit leaves after the opening.
func TestFocusRoom(t *testing.T) {
	if r := FocusRoom(8, FocusAfter); r > 0 {
		t.Errorf("FocusRoom(8, %d) = %d, want no room", FocusAfter, r)
	}
	if r := FocusRoom(20, FocusAfter); r != 4 {
		t.Errorf("FocusRoom(20, %d) = %d, want 4", FocusAfter, r)
	}
}

// A window may end at a blank line only in its last third.
func TestWindowTail(t *testing.T) {
	for _, tc := range []struct {
		size, limit int
		want        bool
	}{{0, 900, false}, {599, 900, false}, {600, 900, true}, {900, 900, true}} {
		if got := WindowTail(tc.size, tc.limit); got != tc.want {
			t.Errorf("WindowTail(%d, %d) = %v, want %v", tc.size, tc.limit, got, tc.want)
		}
	}
}

// Files that only the embedder tells apart (equal words, positive
// search) share the credit of their best rank when more than TieKeep;
// files tied by the history alone, or by fewer, keep their own.
func TestEvidenceTies(t *testing.T) {
	gen, hist := Evidence{Words: 0.05, Search: 0.04}, Evidence{Words: 0.05}
	evs := []Evidence{
		{Words: 0.1, Search: 0.1}, // 1: alone
		gen, hist, gen, hist, gen, // 2-6: four generated (from 2), two of one past commit
		{Words: 0.02, Search: 0.01}, {Words: 0.02, Search: 0.01}, {Words: 0.02, Search: 0.01}, // 7-9: three keep theirs
		gen, hist, hist, // 10-12: the fourth generated; four of history alone keep theirs
	}
	var got []Tie
	for i, tie := range EvidenceTies(len(evs), func(i int) Evidence { return evs[i] }) {
		if i != len(got) {
			t.Fatalf("index %d out of order", i)
		}
		got = append(got, tie)
	}
	g := Tie{First: 2, Files: 4}
	want := []Tie{{1, 0}, g, {3, 0}, g, {5, 0}, g, {7, 0}, {8, 0}, {9, 0}, g, {11, 0}, {12, 0}}
	if !slices.Equal(got, want) {
		t.Errorf("ties %v, want %v", got, want)
	}
	for range EvidenceTies(len(evs), func(i int) Evidence { return evs[i] }) {
		break // stopping early must not panic
	}
}

// LongTie finds a run of more than TieKeep equal scores, wherever it is.
func TestLongTie(t *testing.T) {
	id := func(x float64) float64 { return x }
	for _, c := range []struct {
		list []float64
		want bool
	}{
		{nil, false},
		{[]float64{5, 5, 5}, false},
		{[]float64{9, 5, 5, 5, 4, 4, 4, 1}, false},
		{[]float64{9, 5, 5, 5, 5}, true},
		{[]float64{5, 5, 5, 5, 1}, true},
	} {
		if got := LongTie(c.list, id); got != c.want {
			t.Errorf("LongTie(%v) = %v, want %v", c.list, got, c.want)
		}
	}
}
