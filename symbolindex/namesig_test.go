package symbolindex

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"github.com/cespare/xxhash/v2"

	"github.com/ctxls/ctxls/symbolindex/embed"
	"github.com/ctxls/ctxls/symbolindex/parse"
	"github.com/ctxls/ctxls/symbolindex/tokenize"
)

// sigsOf returns each symbol's name and signature, by path and leaf key.
func sigsOf(ix *Index) map[string]uint64 {
	out := map[string]uint64{}
	for _, p := range ix.Paths() {
		f, _ := ix.FileSlot(p)
		for _, s := range ix.FileSymbols(f) {
			out[p+"::"+ix.LeafKey(s)+"::"+ix.sym(s).Name] = ix.NameSig(s)
		}
	}
	return out
}

// checkSigs fails unless every symbol has a signature holding the bits
// of every term of its name: a signature that lacked one would hide the
// name from a request naming it.
func checkSigs(t *testing.T, what string, sigs map[string]uint64) {
	t.Helper()
	if len(sigs) == 0 {
		t.Fatalf("%s: no symbols", what)
	}
	for k, sig := range sigs {
		name := k[strings.LastIndex(k, "::")+2:]
		if sig == 0 {
			t.Errorf("%s: %s has no signature", what, k)
			continue
		}
		tokenize.Terms(name, func(term string) {
			if b := TermBits([]byte(term)); sig&b != b {
				t.Errorf("%s: %s: signature %x lacks term %q", what, k, sig, term)
			}
		})
	}
}

// Every indexed symbol's name signature holds its name's terms, and a
// saved and loaded index has the same signatures.
func TestNameSigsHoldTheirTerms(t *testing.T) {
	ix := persistBuild(t)
	built := sigsOf(ix)
	checkSigs(t, "built", built)
	data := persistSegmented(t, ix, filepath.Join(t.TempDir(), "index.idx"))
	got, err := loadBytes(t, data)
	if err != nil {
		t.Fatal(err)
	}
	loaded := sigsOf(got)
	for k, sig := range built {
		if loaded[k] != sig {
			t.Errorf("%s: signature %x loaded, %x built", k, loaded[k], sig)
		}
	}
	// A word in no name is told apart from most names without reading them.
	miss := 0
	b := TermBits([]byte("zzyzxwebhookqqq"))
	for _, sig := range built {
		if sig&b != b {
			miss++
		}
	}
	if miss < len(built)/2 {
		t.Errorf("a word in no name passes %d of %d signatures", len(built)-miss, len(built))
	}
}

// loadVersion10 writes the persist tests' index as a version-10 cache and
// loads it, returning the index written, the file, the embedder and the
// index loaded.
func loadVersion10(t *testing.T) (ix *Index, path string, emb embed.Embedder, old *Index) {
	t.Helper()
	ix = persistBuild(t)
	path = filepath.Join(t.TempDir(), "index.idx")
	writeVersion10(t, ix, path)
	emb = embed.NewHashEmbedder(embed.DefaultHashDim)
	old, err := LoadIndex(path, emb)
	if err != nil {
		t.Fatal(err)
	}
	return ix, path, emb, old
}

// A cache of version 10 (the same layout, no name signatures) loads with
// its dictionary, answers as before, reads names instead of signatures,
// and asks to be written again; written again, it has them.
func TestVersion10CacheLoadsAndIsRewritten(t *testing.T) {
	ix, path, emb, old := loadVersion10(t)
	if merged(old) || !strings.Contains(old.Rewrite(), "version 10") {
		t.Errorf("version 10: merged %v, rewrite %q; want its dictionary and a reason naming the version", merged(old), old.Rewrite())
	}
	persistSame(t, old, ix)
	for k, sig := range sigsOf(old) {
		if sig != 0 {
			t.Errorf("version 10: %s has signature %x, want none", k, sig)
		}
	}
	if err := old.Save(path); err != nil {
		t.Fatal(err)
	}
	if old.Rewrite() != "" {
		// A folder that keeps serving the loaded index (an edit came
		// during the save) would log the rewrite and save again at
		// every re-scan.
		t.Errorf("saved, the loaded index still asks to be written again: %q", old.Rewrite())
	}
	again, err := LoadIndex(path, emb)
	if err != nil {
		t.Fatal(err)
	}
	if again.Rewrite() != "" {
		t.Errorf("written again: rewrite %q", again.Rewrite())
	}
	persistSame(t, again, ix)
	checkSigs(t, "written again", sigsOf(again))
}

// writeVersion10 saves ix to path as version 10 wrote it: the same
// layout, no name signatures.
func writeVersion10(t *testing.T, ix *Index, path string) {
	t.Helper()
	segNameSigs = false
	defer func() { segNameSigs = true }()
	data := persistSegmented(t, ix, path)
	segNameSigs = true
	_, tableEnd := dictOf(t, data)
	binary.LittleEndian.PutUint32(data[8:], dictCacheVersion)
	hdr := tableEnd + int(unsafe.Sizeof(dictEntry{}))
	binary.LittleEndian.PutUint64(data[hdr:], xxhash.Sum64(data[:hdr]))
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// An index loaded from a version-10 cache and then edited (a file
// re-indexed, as an editor's change is) finds the edit, with signatures
// on the edited file's symbols beside the loaded ones' none; it still asks to be
// written again (the file is the old one), and once written it is
// version 11, asks no more, and keeps the edit with every name signed.
func TestVersion10CacheEditedThenRewritten(t *testing.T) {
	_, path, emb, old := loadVersion10(t)
	p := parse.NewParser()
	defer p.Close()
	const rel, added = "bank/account.go", "RefundQuokkaFee"
	src := ixAccounts + "\n// " + added + " gives back a fee charged twice.\nfunc " + added + "(a *Account, cents int64) {\n\ta.Deposit(cents)\n}\n"
	known := Known(func(key string, hash uint64) bool { return old.Has(rel, key, hash) })
	d, err := Prepare(p, emb, rel, []byte(src), int64(len(src)), 1, known)
	if err != nil {
		t.Fatal(err)
	}
	old.Put(d)
	found := func(what string, got *Index) {
		t.Helper()
		if !slices.ContainsFunc(ixLexical(got, "refund quokka fee"), func(h string) bool {
			return strings.HasPrefix(h, rel+"::"+added+" ")
		}) {
			t.Errorf("%s: a search for the edit does not find %s: %q", what, added, ixLexical(got, "refund quokka fee"))
		}
	}
	found("edited", old)
	for k, sig := range sigsOf(old) {
		if edited := strings.HasPrefix(k, rel+"::"); edited != (sig != 0) {
			t.Errorf("edited: %s has signature %x; want one on the edited file's symbols, none on the others (loaded)", k, sig)
		}
	}
	if !strings.Contains(old.Rewrite(), "version 10") {
		t.Errorf("edited, the index loaded from version 10 no longer asks to be written again: %q", old.Rewrite())
	}
	if err := old.Save(path); err != nil {
		t.Fatal(err)
	}
	if old.Rewrite() != "" {
		t.Errorf("saved, the edited index asks to be written again: %q", old.Rewrite())
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if v := binary.LittleEndian.Uint32(data[8:]); v != cacheVersion {
		t.Errorf("written again as version %d, want %d", v, cacheVersion)
	}
	again, err := LoadIndex(path, emb)
	if err != nil {
		t.Fatal(err)
	}
	if again.Rewrite() != "" {
		t.Errorf("loaded again, it asks to be written again: %q", again.Rewrite())
	}
	found("written again", again)
	checkSigs(t, "written again", sigsOf(again))
}
