package merkle

import (
	"maps"
	"math/rand"
	"slices"
	"sync"
	"testing"
)

// Paths of the random workspaces: nested folders, a root file that sorts
// between a folder's name and its contents ("a.go" vs "a/..."), names that
// share prefixes ("a/b" vs "a/bb").
var (
	propDirs  = []string{"", "a/", "a/b/", "a/b/c/", "a/bb/", "d/", "d/e/", "x/y/z/w/"}
	propNames = []string{"a.go", "m.go", "n.go", "z.go"}
	propKeys  = []string{"function F", "function G", "method T.M", "method T.M#2", "type T", "var V"}
)

const propDim = 4

type propFile struct {
	leaves []Leaf
	sum    []float32
}

func randPath(r *rand.Rand) string {
	return propDirs[r.Intn(len(propDirs))] + propNames[r.Intn(len(propNames))]
}

func randFile(r *rand.Rand) propFile {
	var f propFile
	for _, k := range propKeys {
		if r.Intn(3) == 0 {
			// Few distinct hashes, so rewrites often keep a leaf unchanged.
			f.leaves = append(f.leaves, Leaf{Key: k, Hash: uint64(r.Intn(3))})
		}
	}
	r.Shuffle(len(f.leaves), func(i, j int) { f.leaves[i], f.leaves[j] = f.leaves[j], f.leaves[i] })
	if r.Intn(5) > 0 {
		f.sum = make([]float32, propDim)
		for i := range f.sum {
			f.sum[i] = r.Float32()*2 - 1
		}
	}
	return f
}

// buildFresh builds a tree from a model, one file at a time in random order.
func buildFresh(t *testing.T, r *rand.Rand, model map[string]propFile) *Tree {
	tr := New(propDim)
	paths := slices.Collect(maps.Keys(model))
	slices.Sort(paths)
	r.Shuffle(len(paths), func(i, j int) { paths[i], paths[j] = paths[j], paths[i] })
	for _, p := range paths {
		tr = mustWith(t, tr, p, model[p].leaves, model[p].sum)
	}
	return tr
}

// checkModel fails unless tr holds exactly the model's files and leaves,
// walked in path order.
func checkModel(t *testing.T, tr *Tree, model map[string]propFile) {
	t.Helper()
	if tr.Files() != len(model) {
		t.Fatalf("Files() = %d, model has %d", tr.Files(), len(model))
	}
	var prev []string
	n := 0
	tr.Walk(func(path string, leaves []Leaf) bool {
		n++
		segs := splitMust(t, path)
		if prev != nil && slices.Compare(prev, segs) >= 0 {
			t.Fatalf("Walk out of path order: %v then %v", prev, segs)
		}
		prev = segs
		m, ok := model[path]
		if !ok {
			t.Fatalf("Walk yields %q, not in the model", path)
		}
		want := slices.Clone(m.leaves)
		slices.SortFunc(want, func(a, b Leaf) int { return cmpKey(a, b) })
		if !slices.Equal(leaves, want) {
			t.Fatalf("%q: leaves %v, want %v", path, leaves, want)
		}
		return true
	})
	if n != len(model) {
		t.Fatalf("Walk yields %d files, model has %d", n, len(model))
	}
}

func cmpKey(a, b Leaf) int {
	switch {
	case a.Key < b.Key:
		return -1
	case a.Key > b.Key:
		return 1
	}
	return 0
}

func splitMust(t *testing.T, path string) []string {
	t.Helper()
	segs, err := splitPath(path)
	if err != nil {
		t.Fatal(err)
	}
	return segs
}

// TestRandomSequences applies 200 random sequences of writes, removals and
// batches, and checks after every step that the tree is the one a fresh
// build would give (hashes and aggregate vectors), that Diff explains the
// step exactly, and at the end that every earlier snapshot still holds its
// own content.
func TestRandomSequences(t *testing.T) {
	for seed := int64(1); seed <= 200; seed++ {
		r := rand.New(rand.NewSource(seed))
		tr := New(propDim)
		model := map[string]propFile{}
		type snap struct {
			tree  *Tree
			model map[string]propFile
		}
		var snaps []snap
		steps := 10 + r.Intn(50)
		for step := 0; step < steps; step++ {
			prev, prevModel := tr, maps.Clone(model)
			switch x := r.Intn(10); {
			case x < 6:
				p, f := randPath(r), randFile(r)
				tr = mustWith(t, tr, p, f.leaves, f.sum)
				model[p] = f
			case x < 8:
				p := randPath(r)
				_, had := model[p]
				tr = tr.WithoutFile(p)
				delete(model, p)
				if !had && tr != prev {
					t.Fatalf("seed %d: removing absent %q made a new tree", seed, p)
				}
			default:
				var ups []Update
				seen := map[string]bool{}
				for n := 1 + r.Intn(6); n > 0; n-- {
					p := randPath(r)
					if seen[p] {
						continue
					}
					seen[p] = true
					if r.Intn(3) == 0 {
						ups = append(ups, Update{Path: p, Remove: true})
						delete(model, p)
					} else {
						f := randFile(r)
						ups = append(ups, Update{Path: p, Leaves: f.leaves, Sum: f.sum})
						model[p] = f
					}
				}
				var err error
				if tr, err = tr.Apply(ups); err != nil {
					t.Fatalf("seed %d: Apply: %v", seed, err)
				}
			}
			checkInvariants(t, tr)
			checkModel(t, tr, model)

			// The same content built from scratch is the same tree.
			fresh := buildFresh(t, r, model)
			if tr.Root() != fresh.Root() {
				t.Fatalf("seed %d step %d: root %s, fresh build %s", seed, step, tr.RootHex(), fresh.RootHex())
			}
			sameTree(t, tr, fresh)
			if d := Diff(tr, fresh); d != nil {
				t.Fatalf("seed %d step %d: Diff of equal trees: %v", seed, step, d)
			}

			// Diff explains the step exactly.
			changes := Diff(prev, tr)
			got := applyChanges(t, leafSet(prev), changes)
			if want := leafSet(tr); !maps.Equal(got, want) {
				t.Fatalf("seed %d step %d: Diff %v applied gives %v, want %v", seed, step, changes, got, want)
			}
			back := applyChanges(t, leafSet(tr), Diff(tr, prev))
			if !maps.Equal(back, leafSet(prev)) {
				t.Fatalf("seed %d step %d: reverse Diff does not restore the old leaves", seed, step)
			}
			snaps = append(snaps, snap{prev, prevModel})
		}
		for i, s := range snaps {
			checkModel(t, s.tree, s.model)
			if s.tree.Root() != buildFresh(t, r, s.model).Root() {
				t.Fatalf("seed %d: snapshot %d changed after later updates", seed, i)
			}
		}
	}
}

// TestBatchEqualsSequence checks that one Apply of many updates gives the
// same tree as applying them one at a time.
func TestBatchEqualsSequence(t *testing.T) {
	for seed := int64(1); seed <= 50; seed++ {
		r := rand.New(rand.NewSource(seed))
		base := New(propDim)
		for n := r.Intn(20); n > 0; n-- {
			f := randFile(r)
			base = mustWith(t, base, randPath(r), f.leaves, f.sum)
		}
		var ups []Update
		seq := base
		seen := map[string]bool{}
		for n := r.Intn(20); n > 0; n-- {
			p := randPath(r)
			if seen[p] {
				continue
			}
			seen[p] = true
			if r.Intn(3) == 0 {
				ups = append(ups, Update{Path: p, Remove: true})
				seq = seq.WithoutFile(p)
			} else {
				f := randFile(r)
				ups = append(ups, Update{Path: p, Leaves: f.leaves, Sum: f.sum})
				seq = mustWith(t, seq, p, f.leaves, f.sum)
			}
		}
		batch, err := base.Apply(ups)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		checkInvariants(t, batch)
		sameTree(t, batch, seq)
	}
}

// TestSnapshotsUnderConcurrentWrites reads one snapshot from several
// goroutines while another goroutine derives new versions from it (run with
// -race).
func TestSnapshotsUnderConcurrentWrites(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	snap := New(propDim)
	for i := 0; i < 30; i++ {
		f := randFile(r)
		snap = mustWith(t, snap, randPath(r), f.leaves, f.sum)
	}
	wantRoot, wantLeaves := snap.Root(), leafSet(snap)
	wantTop, _, err := snap.descend([]float32{1, 0, 0, 0}, 5, 2)
	if err != nil {
		t.Fatal(err)
	}

	var wg sync.WaitGroup
	errs := make(chan string, 4)
	for g := 0; g < 3; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 200; i++ {
				top, err := snap.Descend([]float32{1, 0, 0, 0}, 5, 2)
				if err != nil || !slices.Equal(top, wantTop) || snap.Root() != wantRoot || !maps.Equal(leafSet(snap), wantLeaves) {
					errs <- "snapshot changed while another goroutine wrote"
					return
				}
			}
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		wr := rand.New(rand.NewSource(8))
		cur := snap
		for i := 0; i < 300; i++ {
			if wr.Intn(3) == 0 {
				cur = cur.WithoutFile(randPath(wr))
				continue
			}
			f := randFile(wr)
			next, err := cur.WithFile(randPath(wr), f.leaves, f.sum)
			if err != nil {
				errs <- err.Error()
				return
			}
			cur = next
		}
	}()
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Fatal(e)
	}
}
