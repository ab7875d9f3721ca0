package parse

import "testing"

func TestRangeIntersect(t *testing.T) {
	r := func(a, b, c, d uint32) Range { return Range{a, b, c, d} }
	for _, tc := range []struct {
		a, b, want Range
		ok         bool
	}{
		{r(2, 0, 9, 1), r(4, 2, 6, 1), r(4, 2, 6, 1), true},    // b inside a
		{r(4, 2, 6, 1), r(2, 0, 9, 1), r(4, 2, 6, 1), true},    // a inside b
		{r(2, 0, 5, 3), r(4, 0, 9, 1), r(4, 0, 5, 3), true},    // overlapping
		{r(2, 0, 3, 1), r(5, 0, 9, 1), Range{}, false},         // apart
		{r(2, 0, 4, 3), r(4, 3, 9, 1), r(4, 3, 4, 3), true},    // touching at a point
		{r(4, 6, 4, 20), r(4, 0, 4, 10), r(4, 6, 4, 10), true}, // on one line
	} {
		got, ok := tc.a.Intersect(tc.b)
		if ok != tc.ok || ok && got != tc.want {
			t.Errorf("%v ∩ %v = %v %v, want %v %v", tc.a, tc.b, got, ok, tc.want, tc.ok)
		}
	}
}
