package symbolindex

import (
	"encoding/binary"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"github.com/cespare/xxhash/v2"

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

// A cache written before parsing last changed (cache version 13: a
// JavaScript test framework's xdescribe, fit, it.skip became suites and
// cases like describe and it) holds the symbols of the
// parsing then, whatever its layout: versions 9, 10, 11 and 12 are all a
// mismatch, and the folder indexes again rather than trust them.
func TestCacheOfOlderParsingIsIndexedAgain(t *testing.T) {
	ix := persistBuild(t)
	data := persistSegmented(t, ix, filepath.Join(t.TempDir(), "index.idx"))
	_, tableEnd := dictOf(t, data)
	hdr := tableEnd + int(unsafe.Sizeof(dictEntry{}))
	// Versions 10 to 12 share this header; their records differ (10 has
	// no name signatures), but the header's version alone turns them away.
	as := func(version uint32) []byte {
		b := slices.Clone(data)
		binary.LittleEndian.PutUint32(b[8:], version)
		binary.LittleEndian.PutUint64(b[hdr:], xxhash.Sum64(b[:hdr]))
		return b
	}
	for name, b := range map[string][]byte{"version 9": asVersion9(t, data), "version 10": as(10), "version 11": as(11), "version 12": as(12)} {
		if got, err := loadBytes(t, b); !errors.Is(err, ErrCacheMismatch) {
			t.Errorf("%s: loaded (index %v), err %v; want ErrCacheMismatch", name, got != nil, err)
		}
	}
}
