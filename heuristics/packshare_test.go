package heuristics

import (
	"slices"
	"testing"
)

func TestPackShare(t *testing.T) {
	items := []PackItem{
		{Len: 500, Shared: true, Required: true, Extra: true}, // an always rule
		{Len: 400},                            // code
		{Len: 600, Shared: true, Extra: true}, // an agent rule: cut to what is left of the share
		{Len: 300, Shared: true},              // a doc section: the share is used up
		{Len: 350},                            // code
		{Len: 200},                            // code, past the limit of 2
		{Len: 100, Shared: true, Extra: true}, // an item past the limit, but the share is spent
	}
	out, used := PackShare(items, 2, 5000, 2000, 1000)
	var idx, lens []int
	for _, p := range out {
		idx, lens = append(idx, p.Index), append(lens, p.Len)
	}
	if !slices.Equal(idx, []int{0, 1, 2, 4}) || !slices.Equal(lens, []int{500, 400, 500, 350}) || used != 1750 {
		t.Errorf("packed %v with lengths %v (%d used)", idx, lens, used)
	}
	if !out[2].Truncated || out[0].Truncated {
		t.Errorf("the agent rule is cut to the share, the always rule is not: %+v", out)
	}
	// A required item is not held to the share.
	out, _ = PackShare([]PackItem{{Len: 900, Shared: true, Required: true}}, 5, 5000, 2000, 100)
	if len(out) != 1 || out[0].Len != 900 {
		t.Errorf("required item: %+v", out)
	}
	// No share: Pack.
	a, ua := PackShare(items, 3, 1200, 2000, -1)
	b, ub := Pack(items, 3, 1200, 2000)
	if !slices.Equal(a, b) || ua != ub {
		t.Errorf("share -1 is Pack: %+v vs %+v", a, b)
	}
}
