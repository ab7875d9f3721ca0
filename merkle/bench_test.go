package merkle

import (
	"fmt"
	"math/rand"
	"testing"
)

// The benchmark workspace: 20 folders × 20 subfolders × 25 files = 10,000
// files with 3 leaves each and dim-384 vectors clustered by folder (a
// folder direction + a subfolder direction + noise), like embeddings of a
// code base organised by topic.
const (
	benchTop, benchSub, benchFiles = 20, 20, 25
	benchDim                       = 384
)

func benchPath(i, j, k int) string { return fmt.Sprintf("pkg%02d/sub%02d/file%02d.go", i, j, k) }

func randUnit(r *rand.Rand, dim int) []float32 {
	v := make([]float32, dim)
	for i := range v {
		v[i] = float32(r.NormFloat64())
	}
	n := norm(v)
	for i := range v {
		v[i] /= n
	}
	return v
}

// benchVec mixes directions with weights into a new vector.
func benchVec(r *rand.Rand, dirs ...[]float32) []float32 {
	v := make([]float32, benchDim)
	for _, d := range dirs {
		for i := range v {
			v[i] += d[i]
		}
	}
	noise := randUnit(r, benchDim)
	for i := range v {
		v[i] += 0.7 * noise[i]
	}
	return v
}

// benchTree builds the 10k-file workspace in one batch; it returns the tree
// and a query near one file of pkg07/sub11.
func benchTree(b *testing.B) (*Tree, []float32) {
	b.Helper()
	r := rand.New(rand.NewSource(1))
	ups := make([]Update, 0, benchTop*benchSub*benchFiles)
	var query []float32
	for i := 0; i < benchTop; i++ {
		top := randUnit(r, benchDim)
		for j := 0; j < benchSub; j++ {
			sub := randUnit(r, benchDim)
			for k := 0; k < benchFiles; k++ {
				p := benchPath(i, j, k)
				v := benchVec(r, top, sub)
				if i == 7 && j == 11 && k == 3 {
					query = benchVec(r, v)
				}
				ups = append(ups, Update{Path: p, Sum: v, Leaves: []Leaf{
					{"function F" + p, r.Uint64()}, {"type T", r.Uint64()}, {"method T.M", r.Uint64()},
				}})
			}
		}
	}
	tr, err := New(benchDim).Apply(ups)
	if err != nil {
		b.Fatal(err)
	}
	return tr, query
}

// BenchmarkWithFile replaces one file (3 leaves, dim-384 vector) of the
// 10k-file tree.
func BenchmarkWithFile(b *testing.B) {
	tr, _ := benchTree(b)
	r := rand.New(rand.NewSource(2))
	path := benchPath(7, 11, 3)
	versions := [2][]Leaf{
		{{"function F", 1}, {"type T", 2}, {"method T.M", 3}},
		{{"function F", 4}, {"type T", 2}, {"method T.M", 3}},
	}
	sums := [2][]float32{randUnit(r, benchDim), randUnit(r, benchDim)}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		next, err := tr.WithFile(path, versions[i%2], sums[i%2])
		if err != nil {
			b.Fatal(err)
		}
		tr = next
	}
}

// BenchmarkBuild builds the 10k-file tree from nothing in one Apply.
func BenchmarkBuild(b *testing.B) {
	tr, _ := benchTree(b)
	var ups []Update
	tr.Walk(func(p string, l []Leaf) bool {
		ups = append(ups, Update{Path: p, Leaves: l, Sum: fileVec(tr, p)})
		return true
	})
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := New(benchDim).Apply(ups); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDiffOneFile diffs the 10k-file tree against itself with one
// leaf of one file changed.
func BenchmarkDiffOneFile(b *testing.B) {
	old, _ := benchTree(b)
	path := benchPath(13, 2, 20)
	leaves := old.Leaves(path)
	leaves[1].Hash++
	cur, err := old.WithFile(path, leaves, fileVec(old, path))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if d := Diff(old, cur); len(d) != 1 {
			b.Fatalf("Diff = %v", d)
		}
	}
}

// BenchmarkDescend finds the 200 files nearest a query in the 10k-file
// tree (beam width 3); scored/op counts the vectors compared.
func BenchmarkDescend(b *testing.B) {
	tr, q := benchTree(b)
	_, scored, err := tr.descend(q, 200, 3)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if got, err := tr.Descend(q, 200, 3); err != nil || len(got) != 200 {
			b.Fatalf("Descend = %d paths, %v", len(got), err)
		}
	}
	b.ReportMetric(float64(scored), "scored/op")
}

// BenchmarkScanAll is the baseline Descend must beat: score every file's
// vector and keep the 200 best.
func BenchmarkScanAll(b *testing.B) {
	tr, q := benchTree(b)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if got, _ := bruteForce(tr, q, 200); len(got) != 200 {
			b.Fatal("short scan")
		}
	}
	b.ReportMetric(float64(tr.Files()), "scored/op")
}
