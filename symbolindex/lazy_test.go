package symbolindex

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/ctxls/ctxls/symbolindex/embed"
)

// A restart checks only the segments' heads; a segment's body is checked
// by the first read that needs it, and a damaged one is reported once and
// never read, while the other segments answer as before.
func TestLoadIndexChecksBodiesOnFirstRead(t *testing.T) {
	ix := persistBuild(t)
	path := filepath.Join(t.TempDir(), "index.idx")
	data := persistSegmented(t, ix, path) // bank, docs, tools, web: one file each
	emb := embed.NewHashEmbedder(embed.DefaultHashDim)
	h, err := decodeSegHeader(data, emb)
	if err != nil {
		t.Fatal(err)
	}
	bodies, err := BodyRanges(path)
	if err != nil {
		t.Fatal(err)
	}
	web := h.table[len(h.table)-1] // web/cart.ts
	for _, r := range bodies {
		if r[0] >= int64(web.Off) {
			data[(r[0]+r[1])/2] ^= 0x10
		}
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}

	got, err := LoadIndex(path, emb)
	if err != nil {
		t.Fatalf("a damaged body failed the load: %v", err)
	}
	if got.Tree().RootHex() != ix.Tree().RootHex() || !slices.Equal(got.Paths(), ix.Paths()) || got.Symbols() != ix.Symbols() {
		t.Error("the heads do not hold the index saved")
	}
	for c, r := range got.symSeg {
		if r != nil && r.gate.ok.Load() {
			t.Errorf("chunk %d: its segment's body was checked at load", c)
		}
	}
	var mu sync.Mutex
	var reports []error
	got.OnCorrupt(func(err error) {
		mu.Lock()
		reports = append(reports, err)
		mu.Unlock()
	})

	// Reads of the sound segments answer as before and find nothing.
	if a, b := ixLexical(got, "withdraw money overdraw"), ixLexical(ix, "withdraw money overdraw"); !slices.Equal(a, b) {
		t.Errorf("sound segments: lexical %q, want %q", a, b)
	}
	if err := got.Corrupt(); err != nil {
		t.Errorf("reading sound segments reported %v", err)
	}
	for c, g := range got.vecs.gates {
		if g.ok.Load() {
			t.Errorf("chunk %d: a lexical search checked vectors", c)
		}
	}
	// A read of the damaged one finds it: nothing of it is served.
	for _, q := range []string{"cart items count", "cart items count", "interest rate"} {
		want := ixLexical(ix, q)
		for _, hit := range ixLexical(got, q) {
			if strings.Contains(hit, "cart.ts") || !slices.Contains(want, hit) {
				t.Errorf("%q: %s served from the damaged segment (want among %q)", q, hit, want)
			}
		}
		for _, hit := range ixSemantic(t, got, q) {
			if strings.Contains(hit, "cart.ts") {
				t.Errorf("%q: vector hit %s served from the damaged segment", q, hit)
			}
		}
	}
	// Its lookup tables of the body too: its names and references are not
	// found, the other segments' are; its base names are in its sound head.
	if len(ix.Named("CartStore")) != 1 || len(ix.Referencing("push")) != 1 {
		t.Fatalf("fixture: web/cart.ts should define CartStore and call push")
	}
	if n, r := got.Named("CartStore"), got.Referencing("push"); len(n) != 0 || len(r) != 0 {
		t.Errorf("damaged segment's tables served: Named(CartStore) %v, Referencing(push) %v", n, r)
	}
	if f := got.FilesNamed("cart.ts"); len(f) != 1 {
		t.Errorf("FilesNamed(cart.ts) = %v from the sound head, want one file", f)
	}
	if n, f := got.Named("Account.Withdraw"), got.FilesNamed("account.go"); len(n) != 1 || len(f) != 1 {
		t.Errorf("sound segment's tables: Named(Account.Withdraw) %v, FilesNamed(account.go) %v, want one each", n, f)
	}
	fs, _ := got.FileSlot("web/cart.ts")
	if refs := got.FileRefs(fs); refs != nil {
		t.Errorf("references %q read from the damaged segment", refs)
	}
	err = got.Corrupt()
	if !errors.Is(err, ErrCorruptSegment) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "segment 3") {
		t.Errorf("Corrupt() = %v, want ErrCorruptSegment naming %s and segment 3", err, path)
	}
	mu.Lock()
	if len(reports) != 1 {
		t.Errorf("%d reports of the damaged segment, want 1: %v", len(reports), reports)
	}
	mu.Unlock()
	if err := got.Save(filepath.Join(t.TempDir(), "again.idx")); !errors.Is(err, ErrCorruptSegment) {
		t.Errorf("saving an index with a damaged segment: %v, want ErrCorruptSegment", err)
	}
	// Removing a file of the damaged segment is safe too.
	got.Remove("web/cart.ts")
	if got.Files() != 3 {
		t.Errorf("%d files after removing one of 4", got.Files())
	}
}

// The inode number of a file is kept in the cache, for the restart's
// stat check.
func TestSaveKeepsInode(t *testing.T) {
	ix := persistBuild(t)
	ix.Touch("bank/account.go", 10, 20, 12345)
	path := filepath.Join(t.TempDir(), "index.idx")
	if err := ix.Save(path); err != nil {
		t.Fatal(err)
	}
	got, err := LoadIndex(path, ix.Embedder())
	if err != nil {
		t.Fatal(err)
	}
	if st, _ := got.State("bank/account.go"); st.Size != 10 || st.ModTime != 20 || st.Ino != 12345 {
		t.Errorf("state after a save and load: %+v, want size 10, mtime 20, inode 12345", st)
	}
}
