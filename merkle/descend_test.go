package merkle

import (
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"testing"
)

// Clustered workspace: 8 topic folders × 8 subfolders × 16 files, dim 32.
// A file's vector is 4·e(topic) + 2·e(8+sub) + e(16+file), so folders'
// aggregates point where their files do, and a file's own vector as a query
// has exactly one perfect match.
const (
	cTopics, cSubs, cFiles = 8, 8, 16
	cDim                   = cTopics + cSubs + cFiles
)

func clusterPath(ti, sj, fk int) string { return fmt.Sprintf("t%d/s%d/f%02d.go", ti, sj, fk) }

func clusterVec(ti, sj, fk int) []float32 {
	v := make([]float32, cDim)
	v[ti], v[cTopics+sj], v[cTopics+cSubs+fk] = 4, 2, 1
	return v
}

func clusteredTree(t testing.TB) *Tree {
	var ups []Update
	for ti := 0; ti < cTopics; ti++ {
		for sj := 0; sj < cSubs; sj++ {
			for fk := 0; fk < cFiles; fk++ {
				p := clusterPath(ti, sj, fk)
				ups = append(ups, Update{Path: p, Leaves: []Leaf{{"file " + p, uint64(fk)}}, Sum: clusterVec(ti, sj, fk)})
			}
		}
	}
	tr, err := New(cDim).Apply(ups)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// scoresOf is the cosine of each path against q.
func scoresOf(tr *Tree, q []float32, paths []string) []float32 {
	s := make([]float32, len(paths))
	for i, p := range paths {
		s[i] = cosine(tr, q, p)
	}
	return s
}

func TestDescendFindsNearestAndPrunes(t *testing.T) {
	tr := clusteredTree(t)
	q := clusterVec(3, 5, 9)
	for _, k := range []int{1, 2, 3, 0} {
		got, scored, err := tr.descend(q, 10, k)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 10 || got[0] != "t3/s5/f09.go" {
			t.Fatalf("k=%d: Descend = %v, want t3/s5/f09.go first of 10", k, got)
		}
		for _, p := range got {
			if !strings.HasPrefix(p, "t3/s5/") {
				t.Fatalf("k=%d: %q is outside the nearest folder t3/s5/", k, p)
			}
		}
		// Same quality as scoring every file: rank by rank, the same cosine
		// (ties among the folder's other files may pick other paths).
		_, want := bruteForce(tr, q, 10)
		if gs := scoresOf(tr, q, got); !slices.Equal(gs, want) {
			t.Fatalf("k=%d: scores %v, brute force %v", k, gs, want)
		}
		// Root's 8 topics + t3's 8 subfolders + t3/s5's 16 files, plus at
		// most a few beam folders: far from the 1024 files.
		if k > 0 && scored > 8+8+16+2*16 {
			t.Fatalf("k=%d: scored %d nodes for 10 files", k, scored)
		}
		t.Logf("k=%d: scored %d of %d files", k, scored, tr.Files())
	}
}

func TestDescendBacktracksPastTheBeam(t *testing.T) {
	tr := New(2)
	tr = mustWith(t, tr, "near/a.go", nil, []float32{1, 0})
	tr = mustWith(t, tr, "near/b.go", nil, []float32{1, 0.2})
	tr = mustWith(t, tr, "far/c.go", nil, []float32{0.1, 1})
	tr = mustWith(t, tr, "far/d.go", nil, []float32{0, 1})
	tr = mustWith(t, tr, "far/deeper/e.go", nil, []float32{0.5, 1})
	got, err := tr.Descend([]float32{1, 0}, 4, 1)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"near/a.go", "near/b.go", "far/deeper/e.go", "far/c.go"}
	if !slices.Equal(got, want) {
		t.Fatalf("Descend = %v, want %v", got, want)
	}
}

func TestDescendAllFilesMatchesBruteForce(t *testing.T) {
	for seed := int64(1); seed <= 60; seed++ {
		r := rand.New(rand.NewSource(seed))
		tr := New(propDim)
		for n := 1 + r.Intn(40); n > 0; n-- {
			f := randFile(r) // a fifth have no vector
			tr = mustWith(t, tr, randPath(r), f.leaves, f.sum)
		}
		q := []float32{r.Float32() - 0.5, r.Float32() - 0.5, r.Float32() - 0.5, 1}
		k := r.Intn(4)
		got, err := tr.Descend(q, tr.Files()+r.Intn(3), k)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := bruteForce(tr, q, tr.Files())
		if !slices.Equal(got, want) {
			t.Fatalf("seed %d k=%d: Descend(all) =\n%v\nbrute force\n%v", seed, k, got, want)
		}
		for i := 1; i < len(got); i++ {
			if norm(fileVec(tr, got[i-1])) == 0 && norm(fileVec(tr, got[i])) > 0 {
				t.Fatalf("seed %d: file without vector %q ranked before %q", seed, got[i-1], got[i])
			}
		}
		// Fewer files: every result is a real file, best first, no repeats.
		m := 1 + r.Intn(tr.Files())
		some, err := tr.Descend(q, m, k)
		if err != nil || len(some) != m {
			t.Fatalf("seed %d: Descend(%d) = %d paths, err %v", seed, m, len(some), err)
		}
		s := scoresOf(tr, q, some)
		if !slices.IsSortedFunc(s, func(a, b float32) int { return -cmpF(a, b) }) {
			t.Fatalf("seed %d: not best first: %v", seed, s)
		}
		seen := map[string]bool{}
		for _, p := range some {
			if _, ok := tr.FileHash(p); !ok || seen[p] {
				t.Fatalf("seed %d: bad or repeated path %q in %v", seed, p, some)
			}
			seen[p] = true
		}
	}
}

func cmpF(a, b float32) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func TestDescendBadInput(t *testing.T) {
	tr := clusteredTree(t)
	cases := []struct {
		name  string
		tree  *Tree
		q     []float32
		inMsg string
	}{
		{"no vectors", mustWith(t, New(0), "a.go", nil, nil), []float32{1}, "no vectors"},
		{"short query", tr, []float32{1, 2}, "query has 2 dimensions, the tree has 32"},
		{"zero query", tr, make([]float32, cDim), "zero"},
		{"NaN query", tr, append([]float32{float32(nan())}, make([]float32, cDim-1)...), "not finite"},
	}
	for _, c := range cases {
		got, err := c.tree.Descend(c.q, 5, 2)
		if err == nil || !strings.Contains(err.Error(), c.inMsg) || got != nil {
			t.Fatalf("%s: Descend = %v, %v; want an error mentioning %q", c.name, got, err, c.inMsg)
		}
	}
	q := clusterVec(0, 0, 0)
	for _, m := range []int{0, -3} {
		if got, err := tr.Descend(q, m, 2); err != nil || got != nil {
			t.Fatalf("maxFiles %d: %v, %v", m, got, err)
		}
	}
	if got, err := New(cDim).Descend(q, 5, 2); err != nil || got != nil {
		t.Fatalf("empty tree: %v, %v", got, err)
	}
}

// DescendIDs returns the IDs of the files Descend chooses, as they were
// last written: a write that changes only a file's ID replaces it (a
// caller that renumbers its files, as symbolindex's slots, must not be
// handed the old number), and a removal drops it.
func TestDescendIDsFollowWrites(t *testing.T) {
	id := func(ti, sj, fk int) uint32 { return uint32((ti*cSubs+sj)*cFiles + fk) }
	var ups []Update
	for ti := 0; ti < cTopics; ti++ {
		for sj := 0; sj < cSubs; sj++ {
			for fk := 0; fk < cFiles; fk++ {
				p := clusterPath(ti, sj, fk)
				ups = append(ups, Update{Path: p, Leaves: []Leaf{{"file " + p, uint64(fk)}}, Sum: clusterVec(ti, sj, fk), ID: id(ti, sj, fk)})
			}
		}
	}
	tr, err := New(cDim).Apply(ups)
	if err != nil {
		t.Fatal(err)
	}
	// The IDs of a descent are those of the paths Descend returns.
	want := func(tr *Tree, q []float32, n int, rename map[string]uint32) []uint32 {
		t.Helper()
		paths, err := tr.Descend(q, n, 2)
		if err != nil {
			t.Fatal(err)
		}
		var ids []uint32
		for _, p := range paths {
			var ti, sj, fk int
			if _, err := fmt.Sscanf(p, "t%d/s%d/f%02d.go", &ti, &sj, &fk); err != nil {
				t.Fatal(err)
			}
			v, ok := rename[p]
			if !ok {
				v = id(ti, sj, fk)
			}
			ids = append(ids, v)
		}
		slices.Sort(ids)
		return ids
	}
	q := clusterVec(3, 5, 9)
	got, err := tr.DescendIDs(q, 20, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(got)
	if w := want(tr, q, 20, nil); !slices.Equal(got, w) || len(got) != 20 {
		t.Fatalf("DescendIDs = %v, want %v", got, w)
	}
	// The same content under a new ID, and a removal.
	p := clusterPath(3, 5, 9)
	gone := clusterPath(3, 5, 8)
	nt, err := tr.Apply([]Update{
		{Path: p, Leaves: []Leaf{{"file " + p, 9}}, Sum: clusterVec(3, 5, 9), ID: 5000},
		{Path: gone, Remove: true},
	})
	if err != nil {
		t.Fatal(err)
	}
	if v, ok := nt.FileID(p); !ok || v != 5000 {
		t.Errorf("FileID(%s) = %d, %v after a write with ID 5000", p, v, ok)
	}
	if v, ok := tr.FileID(p); !ok || v != id(3, 5, 9) {
		t.Errorf("the earlier tree's FileID(%s) = %d, %v: it changed", p, v, ok)
	}
	if _, ok := nt.FileID(gone); ok {
		t.Errorf("FileID(%s) found after its removal", gone)
	}
	if nt.Root() != tr.WithoutFile(gone).Root() {
		t.Error("an ID changed the tree's hash")
	}
	got, err = nt.DescendIDs(q, 20, 2, got[:0])
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(got)
	w := want(nt, q, 20, map[string]uint32{p: 5000})
	if !slices.Equal(got, w) || !slices.Contains(got, 5000) || slices.Contains(got, id(3, 5, 9)) || slices.Contains(got, id(3, 5, 8)) {
		t.Fatalf("after the writes DescendIDs = %v, want %v", got, w)
	}
	// Errors are Descend's.
	if _, err := New(0).DescendIDs(q, 5, 2, nil); err == nil {
		t.Error("DescendIDs on a tree without vectors: no error")
	}
}
