package merkle

import (
	"slices"
	"testing"
)

// diffBase is a small workspace: a root file, a nested package and a file
// called "lib" (no extension).
func diffBase(t *testing.T) *Tree {
	tr := New(0)
	tr = mustWith(t, tr, "a.go", []Leaf{{"function F", 1}, {"function G", 2}}, nil)
	tr = mustWith(t, tr, "pkg/b.go", []Leaf{{"type T", 3}}, nil)
	tr = mustWith(t, tr, "pkg/sub/c.go", []Leaf{{"var V", 4}}, nil)
	tr = mustWith(t, tr, "lib", []Leaf{{"module lib", 8}}, nil)
	return tr
}

func TestDiffHandcrafted(t *testing.T) {
	base := diffBase(t)
	apply := func(ups ...Update) *Tree {
		tr, err := base.Apply(ups)
		if err != nil {
			t.Fatal(err)
		}
		return tr
	}
	cases := []struct {
		name     string
		from, to *Tree
		want     []Change
	}{
		{"leaf changed", base, apply(Update{Path: "a.go", Leaves: []Leaf{{"function G", 9}, {"function F", 1}}}),
			[]Change{{Path: "a.go", Key: "function G", Op: Changed, OldHash: 2, NewHash: 9}}},
		{"leaf removed and added", base, apply(Update{Path: "a.go", Leaves: []Leaf{{"function F", 1}, {"function H", 5}}}),
			[]Change{
				{Path: "a.go", Key: "function G", Op: Removed, OldHash: 2},
				{Path: "a.go", Key: "function H", Op: Added, NewHash: 5},
			}},
		{"file added in new folders", base, apply(Update{Path: "new/d/e.go", Leaves: []Leaf{{"function E", 7}}}),
			[]Change{{Path: "new/d/e.go", Key: "function E", Op: Added, NewHash: 7}}},
		{"file removed with its folder", base, base.WithoutFile("pkg/sub/c.go"),
			[]Change{{Path: "pkg/sub/c.go", Key: "var V", Op: Removed, OldHash: 4}}},
		{"file becomes folder", base, apply(Update{Path: "lib", Remove: true}, Update{Path: "lib/x.go", Leaves: []Leaf{{"function X", 6}}}),
			[]Change{
				{Path: "lib", Key: "module lib", Op: Removed, OldHash: 8},
				{Path: "lib/x.go", Key: "function X", Op: Added, NewHash: 6},
			}},
		{"folder becomes file", apply(Update{Path: "lib", Remove: true}, Update{Path: "lib/x.go", Leaves: []Leaf{{"function X", 6}}}), base,
			[]Change{
				{Path: "lib", Key: "module lib", Op: Added, NewHash: 8},
				{Path: "lib/x.go", Key: "function X", Op: Removed, OldHash: 6},
			}},
		{"several files, path order", base, apply(
			Update{Path: "pkg/sub/c.go", Leaves: []Leaf{{"var V", 5}}},
			Update{Path: "a.go", Remove: true},
			Update{Path: "pkg/b.go", Leaves: []Leaf{{"type T", 3}, {"method T.M", 10}}},
		),
			[]Change{
				{Path: "a.go", Key: "function F", Op: Removed, OldHash: 1},
				{Path: "a.go", Key: "function G", Op: Removed, OldHash: 2},
				{Path: "pkg/b.go", Key: "method T.M", Op: Added, NewHash: 10},
				{Path: "pkg/sub/c.go", Key: "var V", Op: Changed, OldHash: 4, NewHash: 5},
			}},
		{"from nil", nil, mustWith(t, New(0), "x/y.go", []Leaf{{"b", 2}, {"a", 1}}, nil),
			[]Change{{Path: "x/y.go", Key: "a", Op: Added, NewHash: 1}, {Path: "x/y.go", Key: "b", Op: Added, NewHash: 2}}},
		{"to empty", mustWith(t, New(0), "x/y.go", []Leaf{{"a", 1}}, nil), New(0),
			[]Change{{Path: "x/y.go", Key: "a", Op: Removed, OldHash: 1}}},
		{"file without leaves", base, apply(Update{Path: "empty.go"}), nil},
		{"same tree", base, base, nil},
		{"equal content, different history", base, diffBase(t).WithoutFile("a.go").WithoutFile("missing.go"), []Change{
			{Path: "a.go", Key: "function F", Op: Removed, OldHash: 1},
			{Path: "a.go", Key: "function G", Op: Removed, OldHash: 2},
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := Diff(c.from, c.to)
			if !slices.Equal(got, c.want) {
				t.Fatalf("Diff =\n%v\nwant\n%v", got, c.want)
			}
		})
	}
}

func TestDiffSkipsEqualSubtrees(t *testing.T) {
	tr := New(0)
	for i := 0; i < 50; i++ {
		tr = mustWith(t, tr, "same/"+string(rune('a'+i%26))+string(rune('a'+i/26))+".go", []Leaf{{"k", uint64(i)}}, nil)
	}
	a := mustWith(t, tr, "x.go", []Leaf{{"k", 1}}, nil)
	b := mustWith(t, tr, "x.go", []Leaf{{"k", 2}}, nil)

	// Forge a "same/" folder with the right hash but different leaves below
	// it: Diff must trust the hash and never look inside.
	same := b.top().entries[0].dir
	forged := *same
	forged.entries = slices.Clone(same.entries)
	f := *forged.entries[0].file
	f.leaves = []Leaf{{"k", 999}}
	forged.entries[0].file = &f
	root := *b.top()
	root.entries = slices.Clone(root.entries)
	root.entries[0].dir = &forged
	forgedTree := &Tree{root: &root}

	want := []Change{{Path: "x.go", Key: "k", Op: Changed, OldHash: 1, NewHash: 2}}
	for _, to := range []*Tree{b, forgedTree} {
		if got := Diff(a, to); !slices.Equal(got, want) {
			t.Fatalf("Diff = %v, want %v", got, want)
		}
	}
}
