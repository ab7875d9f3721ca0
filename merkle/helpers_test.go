package merkle

import (
	"math"
	"slices"
	"strings"
	"testing"
)

// mustWith is WithFile that fails the test on error.
func mustWith(t testing.TB, tr *Tree, path string, leaves []Leaf, sum []float32) *Tree {
	t.Helper()
	nt, err := tr.WithFile(path, leaves, sum)
	if err != nil {
		t.Fatalf("WithFile(%q): %v", path, err)
	}
	return nt
}

// leafKey names one leaf of one file in a leaf set.
type leafKey struct{ path, key string }

// leafSet is every (path, key) → hash of a tree.
func leafSet(tr *Tree) map[leafKey]uint64 {
	m := map[leafKey]uint64{}
	tr.Walk(func(path string, leaves []Leaf) bool {
		for _, l := range leaves {
			m[leafKey{path, l.Key}] = l.Hash
		}
		return true
	})
	return m
}

// applyChanges applies a Diff to a leaf set, failing on a change that does
// not fit the set (adding a present leaf, removing a missing one, wrong old
// hash).
func applyChanges(t *testing.T, set map[leafKey]uint64, changes []Change) map[leafKey]uint64 {
	t.Helper()
	out := make(map[leafKey]uint64, len(set))
	for k, v := range set {
		out[k] = v
	}
	for _, c := range changes {
		k := leafKey{c.Path, c.Key}
		old, present := out[k]
		switch c.Op {
		case Added:
			if present {
				t.Fatalf("%v: leaf already present", c)
			}
			out[k] = c.NewHash
		case Removed:
			if !present || old != c.OldHash {
				t.Fatalf("%v: leaf missing or old hash %x differs (present %v)", c, old, present)
			}
			delete(out, k)
		case Changed:
			if !present || old != c.OldHash || c.OldHash == c.NewHash {
				t.Fatalf("%v: bad change of leaf with hash %x (present %v)", c, old, present)
			}
			out[k] = c.NewHash
		default:
			t.Fatalf("%v: invalid op", c)
		}
	}
	return out
}

// checkInvariants verifies a tree's internal structure from scratch: sorted
// entries, no empty folders below the root, hashes, file counts, file paths,
// norms, and folder aggregates equal (bit for bit) to the sums of their
// children.
func checkInvariants(t *testing.T, tr *Tree) {
	t.Helper()
	b := builder{dim: tr.Dim(), acc: make([]float64, tr.Dim())}
	var check func(d *folder, prefix string, isRoot bool)
	check = func(d *folder, prefix string, isRoot bool) {
		if !isRoot && len(d.entries) == 0 {
			t.Fatalf("empty folder %q kept", prefix)
		}
		if d.hash != hashEntries(d.entries) {
			t.Fatalf("folder %q: stale hash", prefix)
		}
		if tr.dim > 0 && (len(d.rows) != len(d.entries) || len(d.norms) != len(d.entries)) {
			t.Fatalf("folder %q: %d rows, %d norms for %d entries", prefix, len(d.rows), len(d.norms), len(d.entries))
		}
		for i, row := range d.rows {
			if len(row) != tr.dim {
				t.Fatalf("folder %q: row %d has %d floats, want %d", prefix, i, len(row), tr.dim)
			}
		}
		files := 0
		for i := range d.entries {
			e := &d.entries[i]
			if i > 0 && d.entries[i-1].name >= e.name {
				t.Fatalf("folder %q: entries out of order: %q, %q", prefix, d.entries[i-1].name, e.name)
			}
			if (e.dir == nil) == (e.file == nil) {
				t.Fatalf("folder %q: entry %q must be exactly one of file and folder", prefix, e.name)
			}
			if e.file != nil {
				files++
				if e.file.path != prefix+e.name {
					t.Fatalf("file %q stored at %q", e.file.path, prefix+e.name)
				}
				if e.hash != e.file.hash || e.file.hash != hashLeaves(e.file.leaves) {
					t.Fatalf("file %q: stale hash", e.file.path)
				}
				if !slices.IsSortedFunc(e.file.leaves, func(a, b Leaf) int { return strings.Compare(a.Key, b.Key) }) {
					t.Fatalf("file %q: leaves not sorted", e.file.path)
				}
			} else {
				check(e.dir, prefix+e.name+"/", false)
				files += e.dir.files
				if e.hash != e.dir.hash {
					t.Fatalf("folder %q: entry hash differs from the node's", prefix+e.name)
				}
				if tr.dim > 0 {
					want := b.aggregate(e.dir)
					if !slices.Equal(want, d.row(i, tr.dim)) {
						t.Fatalf("folder %q: aggregate %v, sum of children %v", prefix+e.name, d.row(i, tr.dim), want)
					}
				}
			}
			if tr.dim > 0 && d.norms[i] != norm(d.row(i, tr.dim)) {
				t.Fatalf("entry %q: stale norm", prefix+e.name)
			}
		}
		if files != d.files {
			t.Fatalf("folder %q counts %d files, holds %d", prefix, d.files, files)
		}
	}
	check(tr.top(), "", true)
}

// sameTree fails unless a and b are structurally identical, vectors
// included (bit for bit).
func sameTree(t *testing.T, a, b *Tree) {
	t.Helper()
	var cmp func(x, y *folder, prefix string)
	cmp = func(x, y *folder, prefix string) {
		if x.hash != y.hash || x.files != y.files || len(x.entries) != len(y.entries) {
			t.Fatalf("folder %q differs: hash %x/%x files %d/%d entries %d/%d", prefix, x.hash, y.hash, x.files, y.files, len(x.entries), len(y.entries))
		}
		if !slices.EqualFunc(x.rows, y.rows, slices.Equal) || !slices.Equal(x.norms, y.norms) {
			t.Fatalf("folder %q: vectors differ", prefix)
		}
		for i := range x.entries {
			ex, ey := &x.entries[i], &y.entries[i]
			if ex.name != ey.name || ex.hash != ey.hash || (ex.file == nil) != (ey.file == nil) {
				t.Fatalf("folder %q: entry %d differs: %q/%q", prefix, i, ex.name, ey.name)
			}
			if ex.file != nil {
				if ex.file.path != ey.file.path || !slices.Equal(ex.file.leaves, ey.file.leaves) {
					t.Fatalf("file %q differs", ex.file.path)
				}
			} else {
				cmp(ex.dir, ey.dir, prefix+ex.name+"/")
			}
		}
	}
	cmp(a.top(), b.top(), "")
}

// fileVec returns the stored aggregate row of the file at path.
func fileVec(tr *Tree, path string) []float32 {
	d := tr.top()
	segs := strings.Split(path, "/")
	for n, s := range segs {
		i, ok := d.find(s)
		if !ok {
			return nil
		}
		if n == len(segs)-1 {
			return d.row(i, tr.dim)
		}
		d = d.entries[i].dir
	}
	return nil
}

// bruteForce scores every file's vector against q and returns the best n
// (score descending, path ascending) with their scores: the oracle Descend
// approximates, and the baseline its benchmark is compared with.
func bruteForce(tr *Tree, q []float32, n int) ([]string, []float32) {
	qn := norm(q)
	var hits []hit
	var walk func(d *folder)
	walk = func(d *folder) {
		for i := range d.entries {
			e := &d.entries[i]
			if e.dir != nil {
				walk(e.dir)
				continue
			}
			s := noVector
			if d.norms[i] > 0 {
				s = dot(q, d.row(i, tr.dim)) / (qn * d.norms[i])
			}
			hits = append(hits, hit{score: s, path: e.file.path})
		}
	}
	walk(tr.top())
	slices.SortFunc(hits, hitOrder)
	hits = hits[:min(n, len(hits))]
	paths := make([]string, len(hits))
	scores := make([]float32, len(hits))
	for i, h := range hits {
		paths[i], scores[i] = h.path, h.score
	}
	return paths, scores
}

// cosine is the similarity of the query and the file at path.
func cosine(tr *Tree, q []float32, path string) float32 {
	v := fileVec(tr, path)
	if norm(v) == 0 {
		return noVector
	}
	return dot(q, v) / (norm(q) * norm(v))
}

func nan() float64 { return math.NaN() }
