package symbolindex

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/ctxls/ctxls/symbolindex/embed"
	"github.com/ctxls/ctxls/symbolindex/parse"
)

// ixReads is everything a reader of ix can see, named: symbols, lexical
// and semantic rankings, names, references and base names.
func ixReads(t testing.TB, ix *Index) string {
	var b strings.Builder
	fmt.Fprintf(&b, "files %d symbols %d root %s\n", ix.Files(), ix.Symbols(), ix.Tree().RootHex())
	for _, s := range ixSymbols(ix) {
		b.WriteString(s + "\n")
	}
	for _, q := range []string{"alpha merge", "retry the cache", "guard index"} {
		fmt.Fprintf(&b, "%q %v %v\n", q, ixLexical(ix, q), ixSemantic(t, ix, q))
	}
	// Slots by name: which slot a symbol gets may differ between equal
	// indexes (Put frees a file's dropped slots in map order).
	syms := func(slots []uint32) []string {
		var out []string
		for _, s := range slots {
			ref, _ := ix.Symbol(s)
			out = append(out, ref.Path+"::"+ref.Qualified)
		}
		slices.Sort(out)
		return out
	}
	files := func(slots []uint32) []string {
		var out []string
		for _, f := range slots {
			out = append(out, ix.FilePath(f))
		}
		slices.Sort(out)
		return out
	}
	for _, w := range ixWords {
		fmt.Fprintf(&b, "%s named %v refs %v idf %.4f\n", w, syms(ix.Named(w)), files(ix.Referencing(w)), ix.TermIDF(w))
	}
	for _, base := range []string{"f0.go", "f1.ts", "f2.py", "f3.md"} {
		fmt.Fprintf(&b, "%s %v\n", base, files(ix.FilesNamed(base)))
	}
	return b.String()
}

// firstDiff names the first line where got and want differ.
func firstDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := range max(len(g), len(w)) {
		var a, b string
		if i < len(g) {
			a = g[i]
		}
		if i < len(w) {
			b = w[i]
		}
		if a != b {
			if len(a) > 300 {
				a = a[:300] + "…"
			}
			if len(b) > 300 {
				b = b[:300] + "…"
			}
			return fmt.Sprintf("line %d:\n got %s\nwant %s", i+1, a, b)
		}
	}
	return ""
}

// ixRandomEdit puts a random new version of one of n files, or removes it.
func ixRandomEdit(t testing.TB, r *rand.Rand, p *parse.Parser, ix *Index, n int) {
	exts := []string{".go", ".ts", ".py", ".md"}
	path := fmt.Sprintf("d%d/f%d%s", r.IntN(3), r.IntN(n), exts[r.IntN(len(exts))])
	if r.IntN(5) == 0 {
		ix.Remove(path)
		return
	}
	ix.Put(ixPrepare(t, p, ix.Embedder(), path, ixRandomFile(r, path)))
}

// TestFrozenIndexNeverChanges freezes an index, then writes to it from
// one goroutine while others read the frozen copy: every read of the copy
// equals what it read before the writes (the race detector checks that no
// write touches memory the copy reads), and the index itself reads the
// same as one built by the same writes without any Freeze.
func TestFrozenIndexNeverChanges(t *testing.T) {
	p := parse.NewParser()
	defer p.Close()
	emb := embed.NewHashEmbedder(embed.DefaultHashDim)
	ix, plain := NewIndex(emb), NewIndex(emb)
	r, r2 := rand.New(rand.NewPCG(7, 21)), rand.New(rand.NewPCG(7, 21))
	for range 60 {
		ixRandomEdit(t, r, p, ix, 12)
		ixRandomEdit(t, r2, p, plain, 12)
	}
	var frozen []*Index
	var want []string
	for round := range 4 {
		fz := ix.Freeze()
		frozen = append(frozen, fz)
		want = append(want, ixReads(t, fz))
		var wg sync.WaitGroup
		for i := range frozen {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range 3 {
					if got := ixReads(t, frozen[i]); got != want[i] {
						t.Errorf("round %d: generation %d changed under its reader: %s", round, i, firstDiff(got, want[i]))
						return
					}
				}
			}()
		}
		for range 40 {
			ixRandomEdit(t, r, p, ix, 12)
			ixRandomEdit(t, r2, p, plain, 12)
		}
		wg.Wait()
	}
	ix.Compact()
	plain.Compact()
	if got, want := ixReads(t, ix), ixReads(t, plain); got != want {
		t.Errorf("the index written while frozen copies were read differs from one never frozen: %s", firstDiff(got, want))
	}
}

// TestVersionsHandOutGenerations: a View acquired before a change keeps
// reading the generation it was taken from while the writer goes on; a
// View nobody holds is dropped, and the index writes in place again
// (no copy: the writer's slices stay the same arrays); the release of a
// replaced index waits for its last View.
func TestVersionsHandOutGenerations(t *testing.T) {
	p := parse.NewParser()
	defer p.Close()
	emb := embed.NewHashEmbedder(embed.DefaultHashDim)
	ix := NewIndex(emb)
	var vs Versions
	vs.Replace(ix, nil)
	r := rand.New(rand.NewPCG(3, 4))
	for range 30 {
		ixRandomEdit(t, r, p, ix, 8)
	}

	v1 := vs.Acquire()
	if v2 := vs.Acquire(); v2 != v1 {
		t.Error("two readers with no change between them got different generations")
	} else {
		v2.Release()
	}
	before := ixReads(t, v1.Index())
	for range 30 {
		ixRandomEdit(t, r, p, ix, 8)
	}
	v3 := vs.Acquire()
	if v3 == v1 {
		t.Fatal("a reader after a change got the generation from before it")
	}
	if got := ixReads(t, v1.Index()); got != before {
		t.Errorf("a held generation changed: %s", firstDiff(got, before))
	}
	if got, want := ixReads(t, v3.Index()), ixReads(t, ix); got != want {
		t.Errorf("the new generation is not the index: %s", firstDiff(got, want))
	}
	v1.Release()
	v3.Release()

	// Nobody holds the newest generation: the next change drops it and
	// writes in place.
	v4 := vs.Acquire()
	v4.Release()
	symFile := ix.symFile
	ixRandomEdit(t, r, p, ix, 8)
	ix.Put(ixPrepare(t, p, emb, "d0/f0.go", ixRandomFile(r, "d0/f0.go")))
	if len(symFile) > 0 && len(ix.symFile) == len(symFile) && &ix.symFile[0] != &symFile[0] {
		t.Error("the index copied its slots after its only generation was released")
	}

	// A replaced index is released after its last reader.
	v5 := vs.Acquire()
	released := make(chan struct{})
	vs.Replace(NewIndex(emb), func() { close(released) })
	select {
	case <-released:
		t.Fatal("the old index was released while a reader held it")
	default:
	}
	v5.Release()
	<-released
	if v6 := vs.Acquire(); v6.Index() == v5.Index() || v6.Index().Files() != 0 {
		t.Error("a reader after Replace got the old index")
	}
}
