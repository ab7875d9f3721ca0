package merkle

import (
	"errors"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/cespare/xxhash/v2"
)

func TestEmptyTree(t *testing.T) {
	if emptyHash != xxhash.Sum64(nil) {
		t.Fatalf("emptyHash %x is not xxhash64 of nothing (%x)", emptyHash, xxhash.Sum64(nil))
	}
	var zero Tree
	var nilTree *Tree
	for _, tr := range []*Tree{New(0), New(384), New(-1), &zero, nilTree} {
		if tr.Root() != emptyHash || tr.Files() != 0 {
			t.Fatalf("empty tree: root %x files %d", tr.Root(), tr.Files())
		}
		if got := tr.RootHex(); got != "ef46db3751d8e999" {
			t.Fatalf("empty RootHex = %q", got)
		}
		if _, ok := tr.FileHash("a.go"); ok {
			t.Fatal("empty tree has a file")
		}
		tr.Walk(func(string, []Leaf) bool { t.Fatal("Walk on an empty tree called fn"); return false })
	}
	// The zero value is usable as an empty tree without vectors.
	one, err := zero.WithFile("a.go", []Leaf{{"function F", 1}}, nil)
	if err != nil || one.Files() != 1 {
		t.Fatalf("zero Tree WithFile: files %d, err %v", one.Files(), err)
	}
}

func TestRootHexFormat(t *testing.T) {
	tr := New(0)
	hex := regexp.MustCompile(`^[0-9a-f]{16}$`)
	for i := 0; i < 50; i++ {
		tr = mustWith(t, tr, "p/f"+strings.Repeat("x", i)+".go", []Leaf{{"k", uint64(i)}}, nil)
		if h := tr.RootHex(); !hex.MatchString(h) {
			t.Fatalf("RootHex %q is not 16 lowercase hex digits", h)
		}
	}
}

func TestRootDependsOnContentOnly(t *testing.T) {
	leaves := []Leaf{{"function F", 1}, {"type T", 2}, {"var V", 3}}
	a := mustWith(t, New(0), "src/a.go", leaves, nil)
	reversed := slices.Clone(leaves)
	slices.Reverse(reversed)
	b := mustWith(t, New(3), "src/a.go", reversed, []float32{1, 2, 3})
	if a.Root() != b.Root() {
		t.Fatal("leaf order or vectors changed the root")
	}
	ha, _ := a.FileHash("src/a.go")
	moved := mustWith(t, New(0), "lib/b.go", leaves, nil)
	hb, _ := moved.FileHash("lib/b.go")
	if ha != hb {
		t.Fatal("the same leaves at another path hash differently")
	}
	if moved.Root() == a.Root() {
		t.Fatal("moving a file did not change the root")
	}
	distinct := map[uint64]string{a.Root(): "base"}
	variants := map[string]*Tree{
		"leaf hash": mustWith(t, New(0), "src/a.go", []Leaf{{"function F", 9}, {"type T", 2}, {"var V", 3}}, nil),
		"leaf key":  mustWith(t, New(0), "src/a.go", []Leaf{{"function G", 1}, {"type T", 2}, {"var V", 3}}, nil),
		"one fewer": mustWith(t, New(0), "src/a.go", leaves[:2], nil),
		"file name": mustWith(t, New(0), "src/b.go", leaves, nil),
		"split":     mustWith(t, mustWith(t, New(0), "src/a.go", leaves[:1], nil), "src/b.go", leaves[1:], nil),
		"no leaves": mustWith(t, New(0), "src/a.go", nil, nil),
	}
	for name, tr := range variants {
		if prev, dup := distinct[tr.Root()]; dup {
			t.Fatalf("%s has the same root as %s", name, prev)
		}
		distinct[tr.Root()] = name
	}
}

func TestWithFileErrors(t *testing.T) {
	base := mustWith(t, mustWith(t, New(2), "pkg/a.go", []Leaf{{"function F", 1}}, nil), "main.go", nil, nil)
	cases := []struct {
		name   string
		update func(*Tree) (*Tree, error)
		want   error
		inMsg  string
	}{
		{"empty path", func(tr *Tree) (*Tree, error) { return tr.WithFile("", nil, nil) }, ErrBadPath, "empty"},
		{"absolute", func(tr *Tree) (*Tree, error) { return tr.WithFile("/etc/a.go", nil, nil) }, ErrBadPath, "/etc/a.go"},
		{"double slash", func(tr *Tree) (*Tree, error) { return tr.WithFile("a//b.go", nil, nil) }, ErrBadPath, "a//b.go"},
		{"trailing slash", func(tr *Tree) (*Tree, error) { return tr.WithFile("a/", nil, nil) }, ErrBadPath, "empty segment"},
		{"dot", func(tr *Tree) (*Tree, error) { return tr.WithFile("./a.go", nil, nil) }, ErrBadPath, `"."`},
		{"dotdot", func(tr *Tree) (*Tree, error) { return tr.WithFile("a/../b.go", nil, nil) }, ErrBadPath, `".."`},
		{"duplicate key", func(tr *Tree) (*Tree, error) {
			return tr.WithFile("x.go", []Leaf{{"function F", 1}, {"type T", 2}, {"function F", 3}}, nil)
		}, ErrDuplicateKey, `"function F"`},
		{"short sum", func(tr *Tree) (*Tree, error) { return tr.WithFile("x.go", nil, []float32{1}) }, ErrBadVector, "1 dimensions, the tree has 2"},
		{"NaN sum", func(tr *Tree) (*Tree, error) {
			return tr.WithFile("x.go", nil, []float32{1, float32(nan())})
		}, ErrBadVector, "sum[1]"},
		{"sum on dim 0", func(*Tree) (*Tree, error) { return New(0).WithFile("x.go", nil, []float32{1}) }, ErrBadVector, "no vectors"},
		{"below a file", func(tr *Tree) (*Tree, error) { return tr.WithFile("main.go/x.go", nil, nil) }, ErrPathConflict, `"main.go" is a file`},
		{"over a folder", func(tr *Tree) (*Tree, error) { return tr.WithFile("pkg", nil, nil) }, ErrPathConflict, "is a folder"},
		{"batch twice", func(tr *Tree) (*Tree, error) {
			return tr.Apply([]Update{{Path: "x.go"}, {Path: "y.go"}, {Path: "x.go", Remove: true}})
		}, ErrDuplicatePath, `"x.go"`},
		{"batch file and folder", func(tr *Tree) (*Tree, error) {
			return tr.Apply([]Update{{Path: "z/y.go"}, {Path: "z"}})
		}, ErrPathConflict, "also written as a file"},
		{"batch bad path", func(tr *Tree) (*Tree, error) {
			return tr.Apply([]Update{{Path: "ok.go"}, {Path: "bad/", Remove: true}})
		}, ErrBadPath, `"bad/"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root, files := base.Root(), base.Files()
			got, err := c.update(base)
			if !errors.Is(err, c.want) {
				t.Fatalf("err = %v, want %v", err, c.want)
			}
			if !strings.Contains(err.Error(), c.inMsg) || !strings.HasPrefix(err.Error(), "merkle: ") {
				t.Fatalf("error %q should start with \"merkle: \" and mention %q", err, c.inMsg)
			}
			if got != nil {
				t.Fatal("a tree was returned with the error")
			}
			if base.Root() != root || base.Files() != files {
				t.Fatal("a failed update changed the receiver")
			}
		})
	}
}

func TestWithoutFile(t *testing.T) {
	tr := New(2)
	tr = mustWith(t, tr, "a/b/c/deep.go", []Leaf{{"function D", 1}}, []float32{1, 0})
	tr = mustWith(t, tr, "a/top.go", []Leaf{{"function T", 2}}, []float32{0, 1})
	withOnlyTop := mustWith(t, New(2), "a/top.go", []Leaf{{"function T", 2}}, []float32{0, 1})

	for _, p := range []string{"a/b/c/missing.go", "a/b", "a", "", "a//b", "nope/x.go"} {
		if got := tr.WithoutFile(p); got != tr {
			t.Fatalf("WithoutFile(%q) of no file returned a new tree", p)
		}
	}
	removed := tr.WithoutFile("a/b/c/deep.go")
	checkInvariants(t, removed)
	sameTree(t, removed, withOnlyTop) // a/b and a/b/c are gone
	if _, ok := removed.FileHash("a/b/c/deep.go"); ok || removed.Files() != 1 {
		t.Fatalf("deep.go still there: files %d", removed.Files())
	}
	if _, ok := tr.FileHash("a/b/c/deep.go"); !ok || tr.Files() != 2 {
		t.Fatal("removal changed the old snapshot")
	}
	empty := removed.WithoutFile("a/top.go")
	if empty.Root() != emptyHash || len(empty.top().entries) != 0 {
		t.Fatal("removing every file does not give the empty tree")
	}
}

func TestRewriteSameContentIsFree(t *testing.T) {
	tr := mustWith(t, New(2), "a/x.go", []Leaf{{"k", 1}, {"j", 2}}, []float32{1, 2})
	if got := mustWith(t, tr, "a/x.go", []Leaf{{"j", 2}, {"k", 1}}, []float32{1, 2}); got != tr {
		t.Fatal("rewriting identical content made a new tree")
	}
	vec := mustWith(t, tr, "a/x.go", []Leaf{{"j", 2}, {"k", 1}}, []float32{1, 3})
	if vec == tr || vec.Root() != tr.Root() {
		t.Fatal("a new vector must make a new tree with the same root")
	}
	if got := fileVec(vec, "a/x.go"); !slices.Equal(got, []float32{1, 3}) {
		t.Fatalf("vector not updated: %v", got)
	}
	noVec := mustWith(t, tr, "a/x.go", []Leaf{{"j", 2}, {"k", 1}}, nil)
	if noVec == tr || !slices.Equal(fileVec(noVec, "a/x.go"), []float32{0, 0}) {
		t.Fatal("dropping the vector did not zero it")
	}
}

func TestLeavesAreCopies(t *testing.T) {
	in := []Leaf{{"type T", 2}, {"function F", 1}}
	sum := []float32{1, 2}
	tr := mustWith(t, New(2), "a.go", in, sum)
	in[0].Hash, sum[0] = 99, 99 // the caller reuses its buffers
	got := tr.Leaves("a.go")
	want := []Leaf{{"function F", 1}, {"type T", 2}}
	if !slices.Equal(got, want) {
		t.Fatalf("Leaves = %v, want %v", got, want)
	}
	if !slices.Equal(fileVec(tr, "a.go"), []float32{1, 2}) {
		t.Fatal("the tree kept the caller's sum slice")
	}
	got[0].Hash = 42
	if tr.Leaves("a.go")[0].Hash != 1 {
		t.Fatal("modifying Leaves' result changed the tree")
	}
	if tr.Leaves("b.go") != nil || tr.Leaves("a.go/x") != nil {
		t.Fatal("Leaves of a missing file is not nil")
	}
	h, ok := tr.FileHash("a.go")
	if !ok || h != hashLeaves(want) {
		t.Fatalf("FileHash = %x, %v", h, ok)
	}
}

func TestWalkOrderAndStop(t *testing.T) {
	tr := New(0)
	for _, p := range []string{"b.go", "a/z.go", "a.go", "a/b/c.go", "a-b.go", "c/d.go"} {
		tr = mustWith(t, tr, p, []Leaf{{"k", 1}}, nil)
	}
	var got []string
	tr.Walk(func(p string, _ []Leaf) bool { got = append(got, p); return true })
	want := []string{"a/b/c.go", "a/z.go", "a-b.go", "a.go", "b.go", "c/d.go"}
	if !slices.Equal(got, want) {
		t.Fatalf("Walk order %v, want %v", got, want)
	}
	got = got[:0]
	tr.Walk(func(p string, _ []Leaf) bool { got = append(got, p); return len(got) < 3 })
	if !slices.Equal(got, want[:3]) {
		t.Fatalf("Walk did not stop after fn returned false: %v", got)
	}
}

func TestAggregates(t *testing.T) {
	tr := New(2)
	tr = mustWith(t, tr, "a/x.go", nil, []float32{1, 0})
	tr = mustWith(t, tr, "a/y.go", nil, []float32{0, 2})
	tr = mustWith(t, tr, "b/z.go", nil, []float32{3, 3})
	tr = mustWith(t, tr, "b/c/w.go", nil, []float32{-1, 1})
	root := tr.top()
	if got := root.row(0, 2); !slices.Equal(got, []float32{1, 2}) {
		t.Fatalf("aggregate of a = %v, want [1 2]", got)
	}
	if got := root.row(1, 2); !slices.Equal(got, []float32{2, 4}) {
		t.Fatalf("aggregate of b = %v, want [2 4]", got)
	}
	tr2 := tr.WithoutFile("a/y.go")
	if got := tr2.top().row(0, 2); !slices.Equal(got, []float32{1, 0}) {
		t.Fatalf("aggregate of a after removal = %v, want [1 0]", got)
	}
	if got := tr.top().row(0, 2); !slices.Equal(got, []float32{1, 2}) {
		t.Fatalf("old snapshot's aggregate changed to %v", got)
	}
	checkInvariants(t, tr)
	checkInvariants(t, tr2)
}

func TestReplaceFileByFolderInBatch(t *testing.T) {
	tr := mustWith(t, New(0), "lib", []Leaf{{"module lib", 1}}, nil)
	tr2, err := tr.Apply([]Update{{Path: "lib/x.go", Leaves: []Leaf{{"function X", 2}}}, {Path: "lib", Remove: true}})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := tr2.FileHash("lib/x.go"); !ok || tr2.Files() != 1 {
		t.Fatal("batch did not replace the file by a folder")
	}
	back, err := tr2.Apply([]Update{{Path: "lib/x.go", Remove: true}, {Path: "lib", Leaves: []Leaf{{"module lib", 1}}}})
	if err != nil {
		t.Fatal(err)
	}
	sameTree(t, back, tr)
}

func TestSharedSumIsKeptOthersCopied(t *testing.T) {
	copied, shared := []float32{1, 2}, []float32{3, 4}
	tr, err := New(2).Apply([]Update{{Path: "a.go", Sum: copied}, {Path: "b.go", Sum: shared, SharedSum: true}})
	if err != nil {
		t.Fatal(err)
	}
	root := tr.top()
	if &root.row(0, 2)[0] == &copied[0] {
		t.Error("a sum not marked shared is kept, not copied")
	}
	if &root.row(1, 2)[0] != &shared[0] {
		t.Error("a shared sum is copied")
	}
	copied[0] = 9
	if got := root.row(0, 2); !slices.Equal(got, []float32{1, 2}) {
		t.Errorf("the caller's change of its sum reached the tree: %v", got)
	}
}

// A batch that gives its leaves to the tree (OwnLeaves, as a load from
// the cache does) builds the same tree as one that has them copied, and
// duplicate keys are still refused.
func TestApplyOwnLeaves(t *testing.T) {
	leaves := func() []Leaf {
		return []Leaf{{Key: "function b", Hash: 2}, {Key: "function a", Hash: 1}, {Key: "type c", Hash: 3}}
	}
	sum := []float32{1, 2}
	copied, err := New(2).Apply([]Update{{Path: "x/y.go", Leaves: leaves(), Sum: sum}, {Path: "z.go", Leaves: leaves()[:1]}})
	if err != nil {
		t.Fatal(err)
	}
	owned, err := New(2).Apply([]Update{{Path: "x/y.go", Leaves: leaves(), Sum: sum, OwnLeaves: true}, {Path: "z.go", Leaves: leaves()[:1], OwnLeaves: true}})
	if err != nil {
		t.Fatal(err)
	}
	if owned.Root() != copied.Root() || !slices.Equal(owned.Leaves("x/y.go"), copied.Leaves("x/y.go")) || owned.Files() != 2 {
		t.Errorf("owned leaves: root %s leaves %v, want root %s leaves %v", owned.RootHex(), owned.Leaves("x/y.go"), copied.RootHex(), copied.Leaves("x/y.go"))
	}
	dup := append(leaves(), Leaf{Key: "function a", Hash: 9})
	if _, err := New(2).Apply([]Update{{Path: "d.go", Leaves: dup, OwnLeaves: true}}); !errors.Is(err, ErrDuplicateKey) {
		t.Errorf("duplicate key with owned leaves: %v, want ErrDuplicateKey", err)
	}
}
