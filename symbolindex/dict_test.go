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
)

// dictOf returns where the dictionary of a version-10 cache lies, from
// its header.
func dictOf(t *testing.T, data []byte) (d dictEntry, tableEnd int) {
	t.Helper()
	if v := binary.LittleEndian.Uint32(data[8:]); v != cacheVersion {
		t.Fatalf("cache version %d, want %d", v, cacheVersion)
	}
	nseg := int(binary.LittleEndian.Uint32(data[16:]))
	embLen := int(binary.LittleEndian.Uint32(data[20:]))
	tableEnd = 32 + embLen + nseg*int(unsafe.Sizeof(segEntry{}))
	copy(asBytes(unsafe.Slice(&d, 1)), data[tableEnd:])
	if d.Off%pageSize != 0 || d.Off+d.Len != uint64(len(data)) {
		t.Fatalf("dictionary at %d+%d in a file of %d bytes", d.Off, d.Len, len(data))
	}
	return d, tableEnd
}

// asVersion9 turns a cache of this version into one of version 9, as
// ctxls wrote before the dictionary: the same segments, no dictionary.
func asVersion9(t *testing.T, data []byte) []byte {
	t.Helper()
	d, tableEnd := dictOf(t, data)
	old := slices.Clone(data[:d.Off])
	binary.LittleEndian.PutUint32(old[8:], 9)
	binary.LittleEndian.PutUint64(old[tableEnd:], xxhash.Sum64(old[:tableEnd]))
	clear(old[tableEnd+8 : tableEnd+8+int(unsafe.Sizeof(dictEntry{}))])
	return old
}

// loadBytes loads a cache written from b.
func loadBytes(t *testing.T, b []byte) (*Index, error) {
	t.Helper()
	p := filepath.Join(t.TempDir(), "x.idx")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return LoadIndex(p, embed.NewHashEmbedder(embed.DefaultHashDim))
}

// merged says whether the load merged the segments' terms (no usable
// dictionary) rather than taking the dictionary's.
func merged(ix *Index) bool {
	for _, v := range ix.base {
		if v.symLex.Terms != nil || v.fileLex.Terms != nil {
			return true
		}
	}
	return false
}

// A cache of several segments loads its terms from the dictionary, and
// the index is the one a merge of the segments' terms gives: the same
// term ids, the same answers.
func TestDictionaryRoundTrip(t *testing.T) {
	ix := persistBuild(t)
	data := persistSegmented(t, ix, filepath.Join(t.TempDir(), "index.idx"))
	got, err := loadBytes(t, data)
	if err != nil {
		t.Fatal(err)
	}
	if merged(got) || got.Rewrite() != "" {
		t.Fatalf("a fresh cache: merged %v, rewrite %q; want its dictionary used", merged(got), got.Rewrite())
	}
	persistSame(t, got, ix)
	// A damaged dictionary makes the load merge the segments' terms.
	d, _ := dictOf(t, data)
	flipped := slices.Clone(data)
	flipped[d.Off+d.Len/2] ^= 0x20
	old, err := loadBytes(t, flipped)
	if err != nil || !merged(old) {
		t.Fatalf("a damaged dictionary: err %v; want a merge", err)
	}
	for k, pair := range [][2]*Lexical{{got.lex, old.lex}, {got.flex, old.flex}} {
		g, o := pair[0], pair[1]
		if !slices.Equal(g.baseTerms, o.baseTerms) || len(g.baseTerms) == 0 {
			t.Errorf("lexicon %d: %d terms from the dictionary, %d merged", k, len(g.baseTerms), len(o.baseTerms))
		}
		for s := range g.segs {
			if !slices.Equal(g.segs[s].gid, o.segs[s].gid) {
				t.Errorf("lexicon %d, segment %d: term ids %v from the dictionary, %v merged", k, s, g.segs[s].gid, o.segs[s].gid)
			}
		}
	}
}

// A damaged dictionary is never read: the load merges the segments'
// terms, answers as the saved index did, and asks for the cache to be
// written again. Damage that keeps the checksum (a crafted file) is found
// by the dictionary's checks.
func TestDamagedDictionaryIsMergedAgain(t *testing.T) {
	ix := persistBuild(t)
	data := persistSegmented(t, ix, filepath.Join(t.TempDir(), "index.idx"))
	d, tableEnd := dictOf(t, data)
	region := func(b []byte) []byte { return b[d.Off : d.Off+d.Len] }
	sec := func(b []byte, i int) []byte {
		r := region(b)
		off, n := binary.LittleEndian.Uint64(r[16*i:]), binary.LittleEndian.Uint64(r[16*i+8:])
		return r[off : off+n]
	}
	// resum gives a crafted dictionary a matching checksum, and the
	// header a matching one of its own.
	resum := func(b []byte) {
		e := d
		e.Sum = xxhash.Sum64(region(b))
		copy(b[tableEnd:], asBytes([]dictEntry{e}))
		hdr := tableEnd + int(unsafe.Sizeof(dictEntry{}))
		binary.LittleEndian.PutUint64(b[hdr:], xxhash.Sum64(b[:hdr]))
	}
	flipped := slices.Clone(data)
	region(flipped)[d.Len/2] ^= 0x20
	unsorted := slices.Clone(data)
	terms, _ := viewAs[strRef](sec(unsorted, dictLexSecs))
	terms[0], terms[1] = terms[1], terms[0]
	resum(unsorted)
	outOfRange := slices.Clone(data)
	ids, _ := viewAs[uint32](sec(outOfRange, dictLexSecs+3+2))
	ids[len(ids)-1] = 1 << 30
	resum(outOfRange)
	for name, b := range map[string][]byte{"flipped byte": flipped, "unsorted terms": unsorted, "id out of range": outOfRange} {
		got, err := loadBytes(t, b)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !merged(got) || !strings.Contains(got.Rewrite(), "dictionary") {
			t.Errorf("%s: merged %v, rewrite %q; want a merge and a reason naming the dictionary", name, merged(got), got.Rewrite())
		}
		persistSame(t, got, ix)
	}
	// Cut inside the dictionary: the file is corrupt, not merged.
	if got, err := loadBytes(t, data[:d.Off+d.Len/2]); err == nil || got != nil {
		t.Errorf("a cache cut in its dictionary loaded (err %v)", err)
	}
}
