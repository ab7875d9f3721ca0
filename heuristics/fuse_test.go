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
