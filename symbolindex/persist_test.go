package symbolindex

import (
	"bytes"
	"encoding/binary"
	"encoding/gob"
	"errors"
	"fmt"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/symbolindex/embed"
	"github.com/ctxls/ctxls/symbolindex/parse"
)

// persistFiles is a small multi-language workspace.
var persistFiles = map[string]string{
	"bank/account.go": ixAccounts,
	"web/cart.ts": `export class CartStore {
  private items: string[] = [];

  add(sku: string): void {
    this.items.push(sku);
  }

  count(): number {
    return this.items.length;
  }
}

export function emptyCart(): CartStore {
  return new CartStore();
}
`,
	"tools/report.py": `class ReportWriter:
    """Writes monthly sales rows to a CSV report."""

    def write(self, rows):
        for row in rows:
            print(row)


def monthly_totals(rows):
    """Sum the sales per month."""
    return sum(rows)
`,
	"docs/guide.md": "# Guide\n\n## Installation\n\nUnpack the archive.\n\n## Configuration\n\nSet the listen address.\n",
}

func persistBuild(t testing.TB) *Index {
	t.Helper()
	p := parse.NewParser()
	defer p.Close()
	emb := embed.NewHashEmbedder(embed.DefaultHashDim)
	ix := NewIndex(emb)
	for _, path := range []string{"bank/account.go", "docs/guide.md", "tools/report.py", "web/cart.ts"} {
		ix.Put(ixPrepare(t, p, emb, path, persistFiles[path]))
	}
	return ix
}

var persistQueries = []string{"withdraw money overdraw", "cart items count", "monthly sales report", "installation guide", "interest rate"}

// persistSame asserts that two indexes hold the same files and symbols and
// answer every query the same way.
func persistSame(t *testing.T, got, want *Index) {
	t.Helper()
	if got.Tree().RootHex() != want.Tree().RootHex() {
		t.Errorf("Merkle root %s, want %s", got.Tree().RootHex(), want.Tree().RootHex())
	}
	if !slices.Equal(got.Paths(), want.Paths()) || got.Symbols() != want.Symbols() {
		t.Errorf("paths %q with %d symbols, want %q with %d", got.Paths(), got.Symbols(), want.Paths(), want.Symbols())
	}
	if g, w := ixSymbols(got), ixSymbols(want); !slices.Equal(g, w) {
		t.Errorf("symbols differ:\n got %q\nwant %q", g, w)
	}
	for _, p := range want.Paths() {
		gs, _ := got.State(p)
		ws, _ := want.State(p)
		gf, _ := got.FileSlot(p)
		wf, _ := want.FileSlot(p)
		if gs != ws || got.FileLanguage(gf) != want.FileLanguage(wf) || !slices.Equal(got.FileRefs(gf), want.FileRefs(wf)) ||
			got.FileCategory(gf) != want.FileCategory(wf) {
			t.Errorf("%s: state %+v %s refs %q, want %+v %s refs %q", p, gs, got.FileLanguage(gf), got.FileRefs(gf), ws, want.FileLanguage(wf), want.FileRefs(wf))
		}
	}
	// The lookups by name, reference and base name (read from the
	// segments' tables in a loaded index) find the same symbols and files.
	for _, k := range ixLookupKeys(want) {
		if g, w := ixLookups(got, k), ixLookups(want, k); g != w {
			t.Errorf("lookups of %q:\n got %s\nwant %s", k, g, w)
		}
	}
	for _, q := range persistQueries {
		if g, w := ixLexical(got, q), ixLexical(want, q); !slices.Equal(g, w) {
			t.Errorf("%q: lexical results\n got %q\nwant %q", q, g, w)
		}
		if g, w := ixSemantic(t, got, q), ixSemantic(t, want, q); !slices.Equal(g, w) {
			t.Errorf("%q: semantic results\n got %q\nwant %q", q, g, w)
		}
	}
}

func TestSaveLoadRoundTrip(t *testing.T) {
	ix := persistBuild(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "sub", "index.idx")
	if err := ix.Save(path); err != nil {
		t.Fatal(err)
	}
	loaded, err := LoadIndex(path, embed.NewHashEmbedder(embed.DefaultHashDim))
	if err != nil {
		t.Fatal(err)
	}
	persistSame(t, loaded, ix)
	if loaded.Reembedded != 0 {
		t.Errorf("a loaded index reports %d symbols re-embedded", loaded.Reembedded)
	}
	// The loaded index keeps the content hashes: putting an unchanged file
	// re-embeds nothing, and an edit re-embeds only what changed.
	p := parse.NewParser()
	defer p.Close()
	emb := loaded.Embedder()
	if changed := loaded.Put(ixPrepare(t, p, emb, "web/cart.ts", persistFiles["web/cart.ts"])); len(changed) != 0 {
		t.Errorf("unchanged file after load: %d symbols re-embedded", len(changed))
	}
	edited := bytes.Replace([]byte(ixAccounts), []byte("/ 12"), []byte("/ 365"), 1)
	if changed := loaded.Put(ixPrepare(t, p, emb, "bank/account.go", string(edited))); len(changed) != 1 {
		t.Errorf("one function edited after load: %d symbols re-embedded", len(changed))
	}
	// Saving the loaded index again gives the same index.
	if err := loaded.Save(path); err != nil {
		t.Fatal(err)
	}
	again, err := LoadIndex(path, embed.NewHashEmbedder(embed.DefaultHashDim))
	if err != nil {
		t.Fatal(err)
	}
	persistSame(t, again, loaded)
	if names, _ := os.ReadDir(filepath.Dir(path)); len(names) != 1 {
		t.Errorf("the cache dir holds %d entries after two saves, want 1", len(names))
	}
}

func TestLoadIndexRejectsBadCaches(t *testing.T) {
	ix := persistBuild(t)
	dir := t.TempDir()
	good := filepath.Join(dir, "good.idx")
	if err := ix.Save(good); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	emb := embed.NewHashEmbedder(embed.DefaultHashDim)
	load := func(b []byte) (*Index, error) {
		p := filepath.Join(t.TempDir(), "x.idx")
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return LoadIndex(p, emb)
	}

	if _, err := LoadIndex(filepath.Join(dir, "missing.idx"), emb); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing cache: err %v, want os.ErrNotExist", err)
	}
	for name, b := range map[string][]byte{
		"empty":   nil,
		"garbage": bytes.Repeat([]byte("\xff\x00not a cache\x7f"), 100),
		"text":    []byte("ctxls-index\n"),
	} {
		if got, err := load(b); err == nil || got != nil || errors.Is(err, ErrCacheMismatch) {
			t.Errorf("%s: index %v, err %v; want a corruption error", name, got, err)
		}
	}
	// Every truncation fails: the cache never loads a part of a segment.
	for n := 0; n < len(data); n += 1 + n/16 {
		if got, err := load(data[:n]); err == nil || got != nil {
			t.Fatalf("truncated to %d of %d bytes: loaded without error", n, len(data))
		}
	}
	// A cache of a future version in today's layout fails the header
	// checksum (it covers the version): corruption, not a mismatch.
	future := slices.Clone(data)
	future[8]++
	if _, err := load(future); err == nil || errors.Is(err, ErrCacheMismatch) {
		t.Errorf("future version with the old header checksum: err %v, want corruption", err)
	}

	// Another embedder or cache version is a mismatch, not corruption.
	if _, err := LoadIndex(good, embed.NewHashEmbedder(128)); !errors.Is(err, ErrCacheMismatch) {
		t.Errorf("other embedder: err %v, want ErrCacheMismatch", err)
	}
	var b bytes.Buffer
	if err := gob.NewEncoder(&b).Encode(cacheHeader{Magic: cacheMagic, Version: cacheVersion + 1, Embedder: emb.ID(), Dim: emb.Dim()}); err != nil {
		t.Fatal(err)
	}
	if _, err := load(b.Bytes()); !errors.Is(err, ErrCacheMismatch) {
		t.Errorf("other version: err %v, want ErrCacheMismatch", err)
	}
}

func TestLoadIndexNeverTrustsFlippedBytes(t *testing.T) {
	ix := persistBuild(t)
	path := filepath.Join(t.TempDir(), "index.idx")
	if err := ix.Save(path); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	emb := embed.NewHashEmbedder(embed.DefaultHashDim)
	bad := filepath.Join(t.TempDir(), "bad.idx")
	// A damaged byte anywhere either fails the load, or is in a segment's
	// body (read on first use, not at load) and the first read of it
	// reports the index corrupt and reads nothing of that segment, or
	// leaves an index that answers exactly like the original; a damaged
	// index is never trusted.
	lazy := 0
	for i := 0; i < len(data); i += 1 + i/15 {
		b := slices.Clone(data)
		b[i] ^= 0x10
		if err := os.WriteFile(bad, b, 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := LoadIndex(bad, emb)
		if err != nil {
			continue
		}
		if got.Tree().RootHex() != ix.Tree().RootHex() || !slices.Equal(ixSymbols(got), ixSymbols(ix)) {
			t.Fatalf("byte %d of %d flipped: the damaged cache loaded without error into a different index", i, len(data))
		}
		sem, lex := ixSemantic(t, got, persistQueries[0]), ixLexical(got, persistQueries[1])
		semOK, lexOK := slices.Equal(sem, ixSemantic(t, ix, persistQueries[0])), slices.Equal(lex, ixLexical(ix, persistQueries[1]))
		if semOK && lexOK {
			continue
		}
		// One segment: a damaged part of its body reads as absent.
		if got.Corrupt() == nil || !semOK && len(sem) > 0 || !lexOK && len(lex) > 0 {
			t.Fatalf("byte %d of %d flipped: answers %q %q from a damaged segment (corrupt: %v)", i, len(data), sem, lex, got.Corrupt())
		}
		if err := got.Save(filepath.Join(t.TempDir(), "again.idx")); !errors.Is(err, ErrCorruptSegment) {
			t.Fatalf("byte %d flipped: saving the damaged index: err %v, want ErrCorruptSegment", i, err)
		}
		lazy++
	}
	if lazy == 0 {
		t.Error("no flipped byte was found by a read rather than the load")
	}
}

// persistSegmented saves ix with one file per segment and returns the
// cache's bytes.
func persistSegmented(t *testing.T, ix *Index, path string) []byte {
	t.Helper()
	defer func(f int) { segMaxFiles = f }(segMaxFiles)
	segMaxFiles = 1
	if err := ix.Save(path); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestLoadIndexDropsOnlyDamagedSegments(t *testing.T) {
	ix := persistBuild(t)
	path := filepath.Join(t.TempDir(), "index.idx")
	data := persistSegmented(t, ix, path)
	emb := embed.NewHashEmbedder(embed.DefaultHashDim)
	whole, err := LoadIndex(path, emb)
	if err != nil {
		t.Fatal(err)
	}
	persistSame(t, whole, ix)

	// Damage the third segment (tools/report.py, in path order): the
	// others load, and the index answers like one without that file.
	table := segTable(t, data)
	if len(table) != 4 {
		t.Fatalf("%d segments, want one per file", len(table))
	}
	bad := slices.Clone(data)
	bad[table[2].Off+table[2].Len/2] ^= 0x40
	if err := os.WriteFile(path, bad, 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := LoadIndex(path, emb)
	var se *SegmentsError
	if !errors.As(err, &se) || got == nil || se.Bad != 1 || se.Total != 4 {
		t.Fatalf("one damaged segment: index %v, err %v; want the others and a SegmentsError", got != nil, err)
	}
	want := persistBuild(t)
	want.Remove("tools/report.py")
	if !slices.Equal(got.Paths(), []string{"bank/account.go", "docs/guide.md", "web/cart.ts"}) {
		t.Errorf("paths %q", got.Paths())
	}
	if g, w := ixSymbols(got), ixSymbols(want); !slices.Equal(g, w) {
		t.Errorf("symbols differ:\n got %q\nwant %q", g, w)
	}
	// Putting the missing file back gives the whole index again.
	p := parse.NewParser()
	defer p.Close()
	got.Put(ixPrepare(t, p, emb, "tools/report.py", persistFiles["tools/report.py"]))
	persistSame(t, got, ix)
}

// segTable reads the segment table of a cache.
func segTable(t *testing.T, data []byte) []segEntry {
	t.Helper()
	nseg := int(binary.LittleEndian.Uint32(data[16:]))
	embLen := int(binary.LittleEndian.Uint32(data[20:]))
	table := make([]segEntry, nseg)
	copy(asBytes(table), data[32+embLen:])
	return table
}

// After a load, edits change the mapped index exactly as they change the
// index that was saved: same symbols, same scores (document frequencies
// and lengths included), same vectors, same Merkle root.
func TestLoadedIndexEditsLikeTheOriginal(t *testing.T) {
	for _, narrow := range []bool{true, false} {
		t.Run(fmt.Sprintf("narrow=%v", narrow), func(t *testing.T) {
			defer func(n bool) { segNarrow = n }(segNarrow)
			segNarrow = narrow
			testLoadedIndexEdits(t)
		})
	}
}

func testLoadedIndexEdits(t *testing.T) {
	ix := persistBuild(t)
	path := filepath.Join(t.TempDir(), "index.idx")
	persistSegmented(t, ix, path)
	emb := embed.NewHashEmbedder(embed.DefaultHashDim)
	loaded, err := LoadIndex(path, emb)
	if err != nil {
		t.Fatal(err)
	}
	p := parse.NewParser()
	defer p.Close()
	edited := bytes.Replace([]byte(ixAccounts), []byte("/ 12"), []byte("/ 365"), 1)
	newFile := "package report\n\n// Totals sums the monthly sales of a cart.\nfunc Totals(cart []int) int { return len(cart) }\n"
	for _, x := range []*Index{ix, loaded} {
		x.Put(ixPrepare(t, p, emb, "bank/account.go", string(edited)))
		x.Remove("docs/guide.md")
		x.Put(ixPrepare(t, p, emb, "report/totals.go", newFile))
		x.Remove("web/cart.ts")
		x.Put(ixPrepare(t, p, emb, "web/cart.ts", persistFiles["web/cart.ts"]))
	}
	persistSame(t, loaded, ix)
	// And saving the edited index and loading it again changes nothing.
	if err := loaded.Save(path); err != nil {
		t.Fatal(err)
	}
	again, err := LoadIndex(path, emb)
	if err != nil {
		t.Fatal(err)
	}
	persistSame(t, again, ix)
}

func TestSaveIsAtomic(t *testing.T) {
	ix := persistBuild(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "index.idx")
	if err := ix.Save(path); err != nil {
		t.Fatal(err)
	}
	// A save that cannot complete (the name is taken by a directory)
	// returns an error and leaves no temporary file behind.
	blocked := filepath.Join(dir, "blocked.idx")
	if err := os.MkdirAll(filepath.Join(blocked, "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := ix.Save(blocked); err == nil {
		t.Error("Save over a directory succeeded")
	}
	names, _ := os.ReadDir(dir)
	var got []string
	for _, n := range names {
		got = append(got, n.Name())
	}
	if !slices.Equal(got, []string{"blocked.idx", "index.idx"}) {
		t.Errorf("cache dir after a failed save: %q", got)
	}
	if _, err := LoadIndex(path, embed.NewHashEmbedder(embed.DefaultHashDim)); err != nil {
		t.Errorf("the earlier cache was damaged by a failed save: %v", err)
	}
}

// persistLoaded saves persistBuild's index and loads it.
func persistLoaded(t *testing.T) *Index {
	t.Helper()
	path := filepath.Join(t.TempDir(), "index.idx")
	if err := persistBuild(t).Save(path); err != nil {
		t.Fatal(err)
	}
	ix, err := LoadIndex(path, embed.NewHashEmbedder(embed.DefaultHashDim))
	if err != nil {
		t.Fatal(err)
	}
	return ix
}

// A loaded index's vector search reads the rows of its mapped chunks with
// pread; a vector set or cleared since the load must be what it scores,
// not the file's row, and both ways of reading must agree.
func TestLoadedVectorsFollowWrites(t *testing.T) {
	ix := persistLoaded(t)
	if ix.vecs.file == nil {
		t.Fatal("the loaded index does not read its vectors from the file")
	}
	vs := ix.Vectors()
	qv, err := ix.Embedder().Embed([]string{"withdraw money overdraw"})
	if err != nil {
		t.Fatal(err)
	}
	q := qv[0]
	before := vs.TopK(q, nil, 3, nil)
	if len(before) < 3 {
		t.Fatalf("TopK over the loaded index: %v", before)
	}
	// The last of the three takes the query itself as its vector: it must
	// come first; the first is cleared: it must be gone.
	top, third := before[0].Slot, before[2].Slot
	if err := vs.Set(third, q); err != nil {
		t.Fatal(err)
	}
	vs.Clear(top)
	for _, slots := range [][]uint32{nil, {top, before[1].Slot, third}} {
		got := vs.TopK(q, slots, 3, nil)
		if len(got) == 0 || got[0].Slot != third || got[0].Score < 0.99 {
			t.Errorf("TopK(slots %v) after Set: %v, want slot %d first with score 1", slots, got, third)
		}
		for _, h := range got {
			if h.Slot == top {
				t.Errorf("TopK(slots %v) after Clear still returns slot %d: %v", slots, top, got)
			}
		}
	}
	// Reading through the mapping gives the same answers as pread.
	viaFile := vs.TopK(q, nil, 10, nil)
	vs.closeFile()
	if inPlace := vs.TopK(q, nil, 10, nil); !slices.Equal(viaFile, inPlace) {
		t.Errorf("TopK with pread %v, in place %v", viaFile, inPlace)
	}
}

// A loaded index reads its symbols from the cache's records until an edit
// changes them: after edits (a symbol moved by a line above it, one
// changed, a file removed and its slots reused by a new file) it must hold
// what an index built from the edited files holds, and name lookups must
// follow.
func TestLoadedSymbolsFollowEdits(t *testing.T) {
	loaded := persistLoaded(t)
	p := parse.NewParser()
	defer p.Close()
	emb := loaded.Embedder()
	files := maps.Clone(persistFiles)
	files["bank/account.go"] = strings.Replace(strings.Replace(ixAccounts, "package bank\n", "package bank\n\n// Moved down a line.\n", 1), "/ 12", "/ 365", 1)
	delete(files, "web/cart.ts")
	files["web/ledger.go"] = "package web\n\n// Ledger lists entries.\ntype Ledger struct{}\n\n// Post records one entry.\nfunc (l *Ledger) Post(amount int64) {}\n"
	loaded.Put(ixPrepare(t, p, emb, "bank/account.go", files["bank/account.go"]))
	loaded.Remove("web/cart.ts")
	loaded.Put(ixPrepare(t, p, emb, "web/ledger.go", files["web/ledger.go"]))
	fresh := NewIndex(emb)
	for _, f := range slices.Sorted(maps.Keys(files)) {
		fresh.Put(ixPrepare(t, p, emb, f, files[f]))
	}
	if g, w := ixSymbols(loaded), ixSymbols(fresh); !slices.Equal(g, w) {
		t.Errorf("symbols after edits:\n got %q\nwant %q", g, w)
	}
	if loaded.Tree().RootHex() != fresh.Tree().RootHex() {
		t.Errorf("Merkle root after edits %s, want %s", loaded.Tree().RootHex(), fresh.Tree().RootHex())
	}
	for _, name := range []string{"Deposit", "Account.Withdraw", "Post", "CartStore"} {
		var got, want []string
		for _, s := range loaded.Named(name) {
			ref, _ := loaded.Symbol(s)
			got = append(got, ref.Path+"::"+ref.Qualified+" "+loaded.LeafKey(s))
		}
		for _, s := range fresh.Named(name) {
			ref, _ := fresh.Symbol(s)
			want = append(want, ref.Path+"::"+ref.Qualified+" "+fresh.LeafKey(s))
		}
		if !slices.Equal(got, want) {
			t.Errorf("Named(%q) = %q, want %q", name, got, want)
		}
	}
}

// ixLookupKeys are the names, qualified names, references and base names
// of ix's files and symbols, and a few it does not hold.
func ixLookupKeys(ix *Index) []string {
	keys := []string{"nosuchname", "", "CART.TS"}
	for _, p := range ix.Paths() {
		f, _ := ix.FileSlot(p)
		keys = append(keys, path.Base(p))
		keys = append(keys, ix.FileRefs(f)...)
		for _, s := range ix.FileSymbols(f) {
			ref, _ := ix.Symbol(s)
			keys = append(keys, ref.Name, strings.ToUpper(ref.Qualified))
		}
	}
	return keys
}

// ixLookups says what Named, Referencing and FilesNamed find for k, by
// path and qualified name (slots may differ between equal indexes).
func ixLookups(ix *Index, k string) string {
	var named, refs, bases []string
	for _, s := range ix.Named(k) {
		ref, _ := ix.Symbol(s)
		named = append(named, ref.Path+"::"+ref.Qualified)
	}
	for _, f := range ix.Referencing(k) {
		refs = append(refs, ix.FilePath(f))
	}
	for _, f := range ix.FilesNamed(k) {
		bases = append(bases, ix.FilePath(f))
	}
	slices.Sort(named)
	slices.Sort(refs)
	slices.Sort(bases)
	return fmt.Sprintf("named %q referencing %q files %q", named, refs, bases)
}
