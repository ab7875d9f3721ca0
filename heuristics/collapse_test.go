package heuristics

import (
	"slices"
	"testing"
)

func TestCollapse(t *testing.T) {
	// A file with class C (lines 10–60) holding method m1 (20–30), which
	// holds a closure (24–26), and method m2 (40–50).
	class := Span{File: 1, StartLine: 10, EndLine: 60, BodyHash: 0xc}
	m1 := Span{File: 1, StartLine: 20, EndLine: 30, BodyHash: 0x1}
	closure := Span{File: 1, StartLine: 24, EndLine: 26, BodyHash: 0x2}
	m2 := Span{File: 1, StartLine: 40, EndLine: 50, BodyHash: 0x3}
	other := Span{File: 2, StartLine: 20, EndLine: 30, BodyHash: 0x4}
	tests := []struct {
		name  string
		spans []Span
		want  []int
	}{
		{"empty", nil, nil},
		{"disjoint spans all stay", []Span{m1, m2, other}, []int{0, 1, 2}},
		{"class then method: method takes the class's rank", []Span{class, other, m1}, []int{2, 1}},
		{"method then class: class dropped", []Span{m1, other, class}, []int{0, 1}},
		{"nesting chain collapses to the innermost", []Span{class, m1, closure}, []int{2}},
		{"chain in reverse order", []Span{closure, m1, class}, []int{0}},
		{"class holding two kept methods is dropped", []Span{m1, m2, class}, []int{0, 1}},
		{"class ranked first, its two methods later", []Span{class, other, m2, m1}, []int{2, 1, 3}},
		{"different files never collapse", []Span{m1, {File: 2, StartLine: 20, EndLine: 30}, {File: 3, StartLine: 10, EndLine: 60}}, []int{0, 1, 2}},
		{
			"partial overlap keeps the shorter at the better rank",
			[]Span{{File: 1, StartLine: 10, EndLine: 30}, {File: 1, StartLine: 25, EndLine: 35}},
			[]int{1},
		},
		{
			"partial overlap, shorter first",
			[]Span{{File: 1, StartLine: 25, EndLine: 35}, {File: 1, StartLine: 10, EndLine: 30}},
			[]int{0},
		},
		{
			"equal length overlap keeps the better ranked",
			[]Span{{File: 1, StartLine: 10, EndLine: 20}, {File: 1, StartLine: 15, EndLine: 25}},
			[]int{0},
		},
		{
			"touching on a shared line overlaps, adjacent lines do not",
			[]Span{{File: 1, StartLine: 10, EndLine: 20}, {File: 1, StartLine: 20, EndLine: 22}, {File: 1, StartLine: 23, EndLine: 40}},
			[]int{1, 2},
		},
		{
			"a tighter span bridging two kept ones replaces both at the first's rank",
			[]Span{{File: 1, StartLine: 0, EndLine: 20}, other, {File: 1, StartLine: 22, EndLine: 45}, {File: 1, StartLine: 18, EndLine: 24}},
			[]int{3, 1},
		},
		{
			"identical bodies keep the first",
			[]Span{{File: 1, StartLine: 1, EndLine: 5, BodyHash: 42}, other, {File: 7, StartLine: 100, EndLine: 104, BodyHash: 42}},
			[]int{0, 1},
		},
		{
			"zero hash never matches",
			[]Span{{File: 1, StartLine: 1, EndLine: 5}, {File: 2, StartLine: 1, EndLine: 5}},
			[]int{0, 1},
		},
		{
			"a duplicate of a replaced span is still a duplicate",
			[]Span{class, m1, {File: 9, StartLine: 10, EndLine: 60, BodyHash: 0xc}},
			[]int{1},
		},
		{
			"reversed lines are read in order",
			[]Span{{File: 1, StartLine: 30, EndLine: 10}, {File: 1, StartLine: 12, EndLine: 14}},
			[]int{1},
		},
		{
			"the same span twice keeps one",
			[]Span{m1, m1},
			[]int{0},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Collapse(tt.spans)
			if !(len(got) == 0 && len(tt.want) == 0) && !slices.Equal(got, tt.want) {
				t.Errorf("Collapse = %v, want %v", got, tt.want)
			}
			// Kept spans of one file never overlap.
			for i, a := range got {
				for _, b := range got[:i] {
					if tt.spans[a].Overlaps(tt.spans[b]) {
						t.Errorf("kept spans %d and %d overlap", a, b)
					}
				}
			}
		})
	}
}
