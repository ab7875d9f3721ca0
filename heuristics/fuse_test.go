package heuristics

import (
	"math"
	"testing"
)

func TestRRF(t *testing.T) {
	cases := []struct {
		w    float64
		rank int
		want float64
	}{
		{1, 1, 1.0 / 61},
		{1.5, 2, 1.5 / 62},
		{1, 0, 0},
		{1, -3, 0},
		{0, 1, 0},
		{-1, 1, 0},
		{math.NaN(), 1, 0},
		{math.Inf(1), 1, 0},
	}
	for _, c := range cases {
		if got := RRF(c.w, c.rank); got != c.want {
			t.Errorf("RRF(%v, %d) = %v, want %v", c.w, c.rank, got, c.want)
		}
	}
	// A better rank always contributes more, and two lists that agree on
	// an item beat one list that ranks another item first.
	if RRF(1, 1) <= RRF(1, 2) {
		t.Error("rank 1 does not beat rank 2")
	}
	if RRF(1, 2)+RRF(1, 2) <= RRF(1, 1) {
		t.Error("agreement at rank 2 in two lists does not beat rank 1 in one")
	}
}

// A lead is measured against the list's fifth, as a share of its first:
// a first far ahead adds most, a list whose top five are level adds
// nothing, and no item at or below the fifth adds anything.
func TestLeadBonus(t *testing.T) {
	if got, want := LeadOf(20, 20, 10), 0.5; got != want {
		t.Errorf("LeadOf(20, 20, 10) = %v, want %v", got, want)
	}
	for _, c := range [][3]float64{{10, 20, 10}, {9, 20, 10}, {15, 15, 15}, {1, 0, 0}, {math.NaN(), 20, 10}} {
		if got := LeadOf(c[0], c[1], c[2]); got != 0 {
			t.Errorf("LeadOf(%v, %v, %v) = %v, want 0", c[0], c[1], c[2], got)
		}
	}
	if got, want := LeadBonus(1.5, 20, 20, 10), 0.75/61; math.Abs(got-want) > 1e-15 {
		t.Errorf("LeadBonus(1.5, 20, 20, 10) = %v, want %v", got, want)
	}
	if LeadBonus(1, 20, 20, 10) <= LeadBonus(1, 12, 20, 10) {
		t.Error("a bigger lead does not add more")
	}
	if LeadBonus(0, 20, 20, 10) != 0 {
		t.Error("a source weighing nothing adds a lead")
	}
	for _, src := range []Source{SrcLexical, SrcFile, SrcHistory} {
		if !LeadSource(src) {
			t.Errorf("%s's scores measure a word match, yet its lead does not count", SourceNames[src])
		}
	}
	for _, src := range []Source{SrcSemantic, SrcMention, SrcGraph, SrcActive} {
		if LeadSource(src) {
			t.Errorf("%s's scores are no match measure, yet its lead counts", SourceNames[src])
		}
	}
}
