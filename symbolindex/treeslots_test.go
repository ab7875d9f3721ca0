package symbolindex

import (
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/ctxls/ctxls/symbolindex/embed"
	"github.com/ctxls/ctxls/symbolindex/parse"
)

// treeSlotsAgree asserts that each file of the index is in its Merkle tree
// with its slot as the tree's ID (what SearchVectors' descent returns in
// place of paths), and that the tree holds no other file.
func treeSlotsAgree(t *testing.T, ix *Index, when string) {
	t.Helper()
	paths := ix.Paths()
	if n := ix.tree.Files(); n != len(paths) {
		t.Errorf("%s: the tree holds %d files, the index %d", when, n, len(paths))
	}
	for _, p := range paths {
		f, _ := ix.FileSlot(p)
		if id, ok := ix.tree.FileID(p); !ok || id != f {
			t.Errorf("%s: %s has slot %d, the tree's ID %d (held %v)", when, p, f, id, ok)
		}
	}
}

// The tree's IDs follow the slots through every way a file gets one: put,
// put again, removed and put back in a batch under another slot with the
// same content (the tree keeps a file written unchanged, unless its ID
// moved), a new file in a freed slot, a load from the cache, and edits of
// the loaded index.
func TestTreeIDsFollowSlots(t *testing.T) {
	p := parse.NewParser()
	defer p.Close()
	emb := embed.NewHashEmbedder(embed.DefaultHashDim)
	ix := persistBuild(t)
	treeSlotsAgree(t, ix, "built")

	a, b := "bank/account.go", "web/cart.ts"
	sa, _ := ix.FileSlot(a)
	sb, _ := ix.FileSlot(b)
	ix.Remove(b)
	ix.BeginBatch()
	ix.Remove(a)
	ix.Put(ixPrepare(t, p, emb, b, persistFiles[b]))
	ix.Put(ixPrepare(t, p, emb, a, persistFiles[a]))
	if err := ix.EndBatch(); err != nil {
		t.Fatal(err)
	}
	if na, _ := ix.FileSlot(a); na == sa {
		t.Fatalf("the batch left %s in slot %d: the test needs it moved (slot of %s was %d)", a, sa, b, sb)
	}
	treeSlotsAgree(t, ix, "files put back in other slots")

	ix.Remove("docs/guide.md")
	ix.Put(ixPrepare(t, p, emb, "report/totals.go", "package report\n\n// Totals sums a cart.\nfunc Totals(cart []int) int { return len(cart) }\n"))
	treeSlotsAgree(t, ix, "a new file in a freed slot")

	loaded := ixSaveLoad(t, ix, emb)
	treeSlotsAgree(t, loaded, "loaded")
	loaded.Remove(a)
	loaded.Put(ixPrepare(t, p, emb, "web/more.ts", "export function more(n: number): number { return n + 1 }\n"))
	loaded.Put(ixPrepare(t, p, emb, a, persistFiles[a]))
	treeSlotsAgree(t, loaded, "the loaded index edited")
}

// Above semanticPruneFiles files the semantic search scores only the files
// the tree's descent chooses, by the slots the tree holds. Two files that
// swap slots (removed and put back in one batch, content unchanged) are
// still found by what they say, as in an index built fresh with the same
// files; so are they in that index saved and loaded, after an edit.
func TestPrunedSemanticSearchFollowsSlots(t *testing.T) {
	p := parse.NewParser()
	defer p.Close()
	emb := embed.NewHashEmbedder(embed.DefaultHashDim)
	words := []string{"ledger", "invoice", "coupon", "replica", "webhook", "shard", "token", "gateway", "upload", "partition", "snapshot", "session", "discount", "region", "payment"}
	src := func(i int) string {
		w1, w2, w3 := words[i%len(words)], words[i/len(words)%len(words)], words[i/(len(words)*len(words))%len(words)]
		return fmt.Sprintf("package p%d\n\n// F%d handles the %s of the %s %s.\nfunc F%d() {}\n", i, i, w1, w2, w3, i)
	}
	pathOf := func(i int) string { return fmt.Sprintf("d%02d/f%04d.go", i%40, i) }
	const n = semanticPruneFiles + 100
	build := func(order []int) *Index {
		ix := NewIndex(emb)
		ix.BeginBatch()
		for _, i := range order {
			ix.Put(ixPrepare(t, p, emb, pathOf(i), src(i)))
		}
		if err := ix.EndBatch(); err != nil {
			t.Fatal(err)
		}
		return ix
	}
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	ix := build(order)
	a, b := 17, 1500
	sa, _ := ix.FileSlot(pathOf(a))
	ix.Remove(pathOf(b))
	ix.BeginBatch()
	ix.Remove(pathOf(a))
	ix.Put(ixPrepare(t, p, emb, pathOf(b), src(b)))
	ix.Put(ixPrepare(t, p, emb, pathOf(a), src(a)))
	if err := ix.EndBatch(); err != nil {
		t.Fatal(err)
	}
	if na, _ := ix.FileSlot(pathOf(a)); na == sa {
		t.Fatalf("%s kept slot %d: the test needs it moved", pathOf(a), sa)
	}
	slices.Reverse(order)
	fresh := build(order)
	queries := []string{"the " + words[a%len(words)] + " of the " + words[a/len(words)%len(words)], "F17 handles", "F1500 handles the payment"}
	same := func(got, want *Index, when string) {
		t.Helper()
		for _, q := range queries {
			g, w := ixSemantic(t, got, q), ixSemantic(t, want, q)
			if !slices.Equal(g, w) {
				t.Errorf("%s: semantic search for %q:\n got %q\nwant %q", when, q, g, w)
			}
		}
	}
	same(ix, fresh, "slots swapped")
	found := false
	for _, h := range ixSemantic(t, ix, src(a)) {
		found = found || h[:len(pathOf(a))] == pathOf(a)
	}
	if !found {
		t.Errorf("searching %s's own words does not find it", pathOf(a))
	}

	loaded := ixSaveLoad(t, ix, emb)
	for _, x := range []*Index{loaded, fresh} {
		x.Remove(pathOf(b))
		x.Put(ixPrepare(t, p, emb, pathOf(n), src(b)))
	}
	same(loaded, fresh, "loaded and edited")
}

// TestFrozenSearchBesideWrites: a request searches its frozen copy while
// the live index takes edits; the pruned semantic search must read nothing
// the live index writes (run with -race: the staged updates' map is shared
// by the copy), and the copy's answers must not change under the writes.
func TestFrozenSearchBesideWrites(t *testing.T) {
	p := parse.NewParser()
	defer p.Close()
	emb := embed.NewHashEmbedder(embed.DefaultHashDim)
	src := func(i int) string {
		return fmt.Sprintf("package p\n\n// F%d handles upload number %d.\nfunc F%d() {}\n", i, i, i)
	}
	ix := NewIndex(emb)
	ix.BeginBatch()
	for i := 0; i < semanticPruneFiles+50; i++ {
		ix.Put(ixPrepare(t, p, emb, fmt.Sprintf("d%02d/f%04d.go", i%40, i), src(i)))
	}
	if err := ix.EndBatch(); err != nil {
		t.Fatal(err)
	}
	frozen := ix.Freeze()
	before := ixSemantic(t, frozen, "F17 handles upload")
	edits := make([]*FileDoc, 200)
	for i := range edits {
		edits[i] = ixPrepare(t, p, emb, fmt.Sprintf("new/g%04d.go", i), src(10000+i))
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for _, e := range edits {
			ix.Put(e)
		}
	}()
	for i := 0; i < 20; i++ {
		if got := ixSemantic(t, frozen, "F17 handles upload"); !slices.Equal(got, before) {
			t.Fatalf("the frozen copy's answer changed under live writes:\n got %q\nwant %q", got, before)
		}
	}
	<-done
}

// ixSaveLoad saves ix to a temporary file and loads it back.
func ixSaveLoad(t *testing.T, ix *Index, emb embed.Embedder) *Index {
	t.Helper()
	path := filepath.Join(t.TempDir(), "index.idx")
	if err := ix.Save(path); err != nil {
		t.Fatal(err)
	}
	loaded, err := LoadIndex(path, emb)
	if err != nil {
		t.Fatal(err)
	}
	return loaded
}
