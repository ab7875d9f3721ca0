package symbolindex

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"unsafe"

	"github.com/cespare/xxhash/v2"
	"github.com/ctxls/ctxls/symbolindex/parse"
)

// The cache file's layout: segments, their sections and parts, and the
// views a loaded segment is read through (persist.go writes and loads it,
// lazy.go checks bodies on first read).

// segMagic starts every cache file.
const segMagic = "ctxlsidx"

// segEntry is one row of the header's segment table.
type segEntry struct {
	Off, Len         uint64
	Sum              uint64            // xxhash64 of the head
	Body             [numBodies]uint64 // xxhash64 of each part of the body (segPart)
	FileBase, NFiles uint32
	SymBase, NSyms   uint32
}

// strRef is a string in the segment's string section.
type strRef struct{ Off, Len uint32 }

// segRef is one referenced identifier, as written (in the text section)
// and lowercased.
type segRef struct{ Ref, Lower strRef }

// segSym is one symbol's record; LName and LQual are the lowercased name
// and qualified name, the keys of the name table. Sig and Doc are in the
// text section, the others in the strings section. NameSig is the name's
// signature (NameSig, index.go), little-endian, from cache version 11 on (the
// bytes were padding before, zero: no signature).
type segSym struct {
	Name, Qual, LName, LQual, Sig, Doc, Key strRef
	Hash                                    uint64
	Range                                   parse.Range
	StartByte, EndByte                      uint32
	Kind                                    parse.Kind
	NameSig                                 [NameSigBits / 8]byte
}

// The record's size is the cache layout's: NameSig fills what was padding
// before version 11 (a compile error here means the layout changed and
// the cache version must too).
var _ [unsafe.Sizeof(segSym{}) - 96]struct{}
var _ [96 - unsafe.Sizeof(segSym{})]struct{}

// The sections of a segment, by id (written the hot ones first: segCold).
// The two lexical indexes (symbols, whole files) have lexSections sections
// each.
const (
	secStrs = iota
	secFiles
	secRefs
	secSlots // global symbol slot of each symbol: the backing of FileSymbols
	secSyms
	secVecs
	secScales
	secSums
	secText // signatures, doc comments and references as written: strings requests do not read
	// Lookup tables (lookupTable), read in place: lowercased symbol names and
	// qualified names → symbol slots, lowercased references → the files
	// that make them, base names → file slots.
	secNames
	secRefsBy
	secBases
	secSymLex
	secFileLex = secSymLex + lexSections
	numSecs    = secFileLex + lexSections
)

// Lexical sections, from secSymLex or secFileLex.
const (
	lexTerms = iota
	lexTermOff
	lexDocs
	lexTFs
	lexLens
	lexLive
	lexDTOff
	lexDTTerms
	lexTFTab // narrow form only: the distinct packed frequencies
	lexForm  // uint32: 1 narrow, 0 wide
	lexSections
)

const pageSize = 4096

// segCold are the sections a request never reads (the files' records,
// references and each document's term list serve loading, edits and
// saving): they go at the end of a segment, away from the ones it reads,
// so that the pages the kernel maps around a read hold data of use. (The
// sums are read: they are the Merkle tree's file rows.)
var segCold = map[int]bool{
	secFiles: true, secRefs: true, secText: true,
	secSymLex + lexDTOff: true, secSymLex + lexDTTerms: true,
	secFileLex + lexDTOff: true, secFileLex + lexDTTerms: true,
}

// The parts of a segment's body, which the load does not read: each is
// checked by the first read that needs it (lazy.go). The other sections
// are the segment's head.
const (
	bodyPostings = iota // both lexical indexes' postings: searches
	bodyDocTerms        // each document's terms: edits, removals, saves
	bodyVectors         // vectors and scales: semantic searches
	bodyText            // signatures, doc comments, references as written
	bodyNameTab         // the lookup tables (tableSecs) of names,
	bodyRefTab          // and of references (the base names' is in the head)
	numBodies
)

// segPart is each section's part of the body, -1 for the head.
var segPart = func() (p [numSecs]int) {
	for i := range p {
		p[i] = -1
	}
	for _, lex := range []int{secSymLex, secFileLex} {
		p[lex+lexDocs], p[lex+lexTFs] = bodyPostings, bodyPostings
		p[lex+lexDTOff], p[lex+lexDTTerms] = bodyDocTerms, bodyDocTerms
	}
	p[secVecs], p[secScales] = bodyVectors, bodyVectors
	p[secText] = bodyText
	p[secNames], p[secRefsBy] = bodyNameTab, bodyRefTab
	return p
}()

// segSums returns the checksums of a segment's head (its section table
// tab and the head sections) and of each part of its body.
func segSums(tab []byte, secs *[numSecs][]byte) (head uint64, body [numBodies]uint64) {
	h := xxhash.New()
	h.Write(tab)
	for i, s := range secs {
		if segPart[i] < 0 {
			h.Write(s)
		}
	}
	for part := range body {
		body[part] = bodySum(secs, part)
	}
	return h.Sum64(), body
}

// bodySum is the checksum of part of the body of a segment of sections
// secs.
func bodySum(secs *[numSecs][]byte, part int) uint64 {
	d := xxhash.New()
	for i, s := range secs {
		if segPart[i] == part {
			d.Write(s)
		}
	}
	return d.Sum64()
}

// hostLittleEndian: the arrays are written and read in the host's byte
// order, which must be little-endian for the format to be portable.
var hostLittleEndian = func() bool { x := uint16(1); return *(*byte)(unsafe.Pointer(&x)) == 1 }()

// asBytes is the memory of s.
func asBytes[T any](s []T) []byte {
	if len(s) == 0 {
		return nil
	}
	var zero T
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), len(s)*int(unsafe.Sizeof(zero)))
}

// viewAs reads b in place as a []T; b's length must be a multiple of T's
// size and its address aligned for T.
func viewAs[T any](b []byte) ([]T, error) {
	var zero T
	size, align := int(unsafe.Sizeof(zero)), uintptr(unsafe.Alignof(zero))
	if len(b)%size != 0 {
		return nil, fmt.Errorf("section of %d bytes is not a whole number of %d-byte records", len(b), size)
	}
	if len(b) == 0 {
		return nil, nil
	}
	if uintptr(unsafe.Pointer(unsafe.SliceData(b)))%align != 0 {
		return nil, errors.New("misaligned section")
	}
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(b))), len(b)/size), nil
}

func alignUp(n, a int) int { return (n + a - 1) / a * a }

// segView is one checked segment of a mapped cache.
type segView struct {
	e        segEntry
	i        int                 // its position in the file
	secs     [numSecs][]byte     // its sections
	gates    [numBodies]*segGate // guard the parts of its body
	strs     []byte
	text     []byte
	files    []segFile
	refs     []segRef
	slots    []uint32
	syms     []segSym
	vecs     []int8
	scales   []float32
	sums     []float32
	symLex   lexSegData
	fileLex  lexSegData
	termRefs [2][]strRef            // the lexical indexes' terms (symLex, fileLex)
	tabs     [numTables]lookupTable // each set by the check of its part (tableBody)
}

func (v *segView) str(r strRef) string { return mappedStr(v.strs, r) }

// mappedStr is the string r of a segment's strings, in place.
func mappedStr(strs []byte, r strRef) string {
	if r.Len == 0 {
		return ""
	}
	return unsafe.String(&strs[r.Off], int(r.Len))
}

// The lookup tables of a segment, by index in segView.tabs.
const (
	tabNames = iota
	tabRefsBy
	tabBases
	numTables
)

var tableSecs = [numTables]int{secNames, secRefsBy, secBases}

// tableBody is each table's part of the body, checked on its first
// lookup; -1 for the base names' table, which is in the head: a start
// looks up the workspace's rule files by base name, and reads no body.
var tableBody = [numTables]int{bodyNameTab, bodyRefTab, -1}

// lookupTable maps strings of the segment's strings section to slots, sorted
// by key, read in place: key i's slots are vals[off[i]:off[i+1]], in
// increasing order (a slot may repeat: a file that references "Foo" and
// "foo"). On disk: the key count (uint32, then 4 bytes of padding), the
// keys (strRef), the offsets (uint32, one more than the keys) and the
// values (uint32).
type lookupTable struct {
	keys []strRef
	off  []uint32
	vals []uint32
}

// tableEntry is a key and a slot, as a segment's table is written.
type tableEntry struct {
	key strRef
	val uint32
}

// encodeTable sorts entries by key (stably: the slots of a key stay in
// the order given) and encodes them; strs holds the keys.
func encodeTable(strs []byte, entries []tableEntry) []byte {
	slices.SortStableFunc(entries, func(a, b tableEntry) int {
		return bytes.Compare(strs[a.key.Off:a.key.Off+a.key.Len], strs[b.key.Off:b.key.Off+b.key.Len])
	})
	var keys []strRef
	var off []uint32
	vals := make([]uint32, len(entries))
	for i, e := range entries {
		if i == 0 || !bytes.Equal(strs[e.key.Off:e.key.Off+e.key.Len], strs[entries[i-1].key.Off:entries[i-1].key.Off+entries[i-1].key.Len]) {
			keys = append(keys, e.key)
			off = append(off, uint32(i))
		}
		vals[i] = e.val
	}
	off = append(off, uint32(len(entries)))
	out := binary.LittleEndian.AppendUint32(nil, uint32(len(keys)))
	out = append(out, 0, 0, 0, 0)
	out = append(out, asBytes(keys)...)
	out = append(out, asBytes(off)...)
	return append(out, asBytes(vals)...)
}

// readTable reads a table section in place and checks it: keys in the
// strings strs and strictly increasing, offsets in order, values in
// [lo, hi).
func readTable(b, strs []byte, lo, hi uint32) (lookupTable, error) {
	var t lookupTable
	if len(b) < 8 {
		return t, errors.New("lookup table: short")
	}
	n := uint64(binary.LittleEndian.Uint32(b))
	keyEnd := 8 + 8*n
	offEnd := keyEnd + 4*(n+1)
	if offEnd > uint64(len(b)) {
		return t, errors.New("lookup table: keys beyond its end")
	}
	var err1, err2, err3 error
	t.keys, err1 = viewAs[strRef](b[8:keyEnd])
	t.off, err2 = viewAs[uint32](b[keyEnd:offEnd])
	t.vals, err3 = viewAs[uint32](b[offEnd:])
	if err := errors.Join(err1, err2, err3); err != nil {
		return t, fmt.Errorf("lookup table: %w", err)
	}
	if t.off[0] != 0 || uint64(t.off[n]) != uint64(len(t.vals)) {
		return t, errors.New("lookup table: offsets do not cover the values")
	}
	prev := ""
	for i, k := range t.keys {
		if uint64(k.Off)+uint64(k.Len) > uint64(len(strs)) || t.off[i] >= t.off[i+1] {
			return t, fmt.Errorf("lookup table: key %d: bad record", i)
		}
		s := mappedStr(strs, k)
		if i > 0 && s <= prev {
			return t, fmt.Errorf("lookup table: key %d: out of order", i)
		}
		prev = s
	}
	for _, v := range t.vals {
		if v < lo || v >= hi {
			return t, errors.New("lookup table: slot out of range")
		}
	}
	return t, nil
}

// lookup returns the slots of key k, in place (nil if none).
func (t *lookupTable) lookup(strs []byte, k string) []uint32 {
	i, ok := sort.Find(len(t.keys), func(i int) int { return strings.Compare(k, mappedStr(strs, t.keys[i])) })
	if !ok {
		return nil
	}
	return t.vals[t.off[i]:t.off[i+1]:t.off[i+1]]
}

// The dictionary (cache version 10 on) follows the segments, at a page
// boundary: each lexical index's terms, sorted and distinct, and each
// segment's local term ids mapped to their positions among them, so that
// a load takes the index's terms as they are instead of merging the
// segments' sorted term lists. It starts with a table of its sections
// (offset and length from its start; sections 8-byte aligned), and the
// header holds its place and an xxhash64 of all of it. A damaged
// dictionary costs only the merge: the segments keep their own terms (a
// file cut inside the dictionary is a damaged cache, as one cut anywhere).
const (
	dictStrs = iota // the terms' bytes, each distinct string once
	// Then for each lexical index (symbols, then files) three sections:
	// its terms (strRef into dictStrs, sorted), where each segment's ids
	// start in the next section (one more than the segments), and each
	// segment's local term i's position among the terms.
	dictLexSecs
	numDictSecs = dictLexSecs + 2*3
)

// dictEntry is the header's record of the dictionary.
type dictEntry struct{ Off, Len, Sum uint64 }

// dictBuilder gathers each lexical index's terms as the segments are
// written (segWriter.lexical), for the dictionary written after them.
type dictBuilder struct{ lex [2]dictLex }

// dictLex is one lexical index's part of a dictionary being built.
type dictLex struct {
	ids   map[string]uint32 // term → id, in order of first appearance
	terms []string          // by id
	gids  []uint32          // each segment's local terms' ids, segment after segment
	off   []uint32          // where each segment starts in gids, and the end
}

// add records the next segment's n sorted terms, term(i) the i-th.
func (d *dictLex) add(n int, term func(i int) string) {
	if d.ids == nil {
		d.ids, d.off = map[string]uint32{}, []uint32{0}
	}
	for i := range n {
		t := term(i)
		id, ok := d.ids[t]
		if !ok {
			id = uint32(len(d.terms))
			d.ids[t] = id
			d.terms = append(d.terms, t)
		}
		d.gids = append(d.gids, id)
	}
	d.off = append(d.off, uint32(len(d.gids)))
}

// write writes the dictionary at the first page boundary from end in f
// and returns its header record.
func (b *dictBuilder) write(f interface {
	WriteAt([]byte, int64) (int, error)
}, end uint64) (dictEntry, error) {
	var strs []byte
	seen := map[string]strRef{}
	var secs [numDictSecs][]byte
	for k := range b.lex {
		d := &b.lex[k]
		order := make([]uint32, len(d.terms))
		for i := range order {
			order[i] = uint32(i)
		}
		slices.SortFunc(order, func(x, y uint32) int { return strings.Compare(d.terms[x], d.terms[y]) })
		rank := make([]uint32, len(order))
		refs := make([]strRef, len(order))
		for r, id := range order {
			rank[id] = uint32(r)
			t := d.terms[id]
			if _, ok := seen[t]; !ok {
				seen[t] = strRef{Off: uint32(len(strs)), Len: uint32(len(t))}
				strs = append(strs, t...)
			}
			refs[r] = seen[t]
		}
		gids := make([]uint32, len(d.gids))
		for i, id := range d.gids {
			gids[i] = rank[id]
		}
		off := d.off
		if off == nil {
			off = []uint32{0} // no segments
		}
		secs[dictLexSecs+3*k], secs[dictLexSecs+3*k+1], secs[dictLexSecs+3*k+2] = asBytes(refs), asBytes(off), asBytes(gids)
	}
	secs[dictStrs] = strs
	out := make([]byte, 16*numDictSecs)
	for i, s := range secs {
		out = append(out, make([]byte, alignUp(len(out), 8)-len(out))...)
		binary.LittleEndian.PutUint64(out[16*i:], uint64(len(out)))
		binary.LittleEndian.PutUint64(out[16*i+8:], uint64(len(s)))
		out = append(out, s...)
	}
	e := dictEntry{Off: uint64(alignUp(int(end), pageSize)), Len: uint64(len(out)), Sum: xxhash.Sum64(out)}
	_, err := f.WriteAt(out, int64(e.Off))
	return e, err
}

// baseDict is a cache's dictionary as read, in place: each lexical
// index's sorted terms and, by segment (its position in the file), its
// local term ids' positions among them.
type baseDict struct {
	terms [2][]string
	gids  [2][][]uint32
}

// readDict checks the dictionary e of a cache of nseg segments (checksum,
// bounds, terms sorted and distinct, each segment's ids increasing and in
// range) and reads it in place.
func readDict(data []byte, e dictEntry, nseg int) (*baseDict, error) {
	if e.Off > uint64(len(data)) || e.Len > uint64(len(data))-e.Off || e.Len < 16*numDictSecs {
		return nil, errors.New("dictionary out of bounds")
	}
	region := data[e.Off : e.Off+e.Len]
	if xxhash.Sum64(region) != e.Sum {
		return nil, errors.New("dictionary checksum mismatch")
	}
	var secs [numDictSecs][]byte
	for i := range secs {
		off, n := binary.LittleEndian.Uint64(region[16*i:]), binary.LittleEndian.Uint64(region[16*i+8:])
		if off%8 != 0 || off > uint64(len(region)) || n > uint64(len(region))-off {
			return nil, fmt.Errorf("dictionary section %d out of bounds", i)
		}
		secs[i] = region[off : off+n : off+n]
	}
	d := new(baseDict)
	for k := range d.terms {
		var err error
		if d.terms[k], d.gids[k], err = readDictLex(secs[dictStrs], secs[dictLexSecs+3*k:dictLexSecs+3*k+3], nseg); err != nil {
			return nil, fmt.Errorf("dictionary %d: %w", k, err)
		}
	}
	return d, nil
}

// readDictLex reads and checks one lexical index's part of a dictionary:
// its terms (in strs), offsets and ids.
func readDictLex(strs []byte, secs [][]byte, nseg int) ([]string, [][]uint32, error) {
	refs, err1 := viewAs[strRef](secs[0])
	off, err2 := viewAs[uint32](secs[1])
	ids, err3 := viewAs[uint32](secs[2])
	if err := errors.Join(err1, err2, err3); err != nil {
		return nil, nil, err
	}
	if len(off) != nseg+1 || off[0] != 0 || uint64(off[nseg]) != uint64(len(ids)) {
		return nil, nil, errors.New("offsets disagree with the segments")
	}
	terms := make([]string, len(refs))
	for i, r := range refs {
		if r.Len == 0 || uint64(r.Off)+uint64(r.Len) > uint64(len(strs)) {
			return nil, nil, fmt.Errorf("term %d: bad string", i)
		}
		terms[i] = mappedStr(strs, r)
		if i > 0 && terms[i-1] >= terms[i] {
			return nil, nil, fmt.Errorf("terms not sorted and distinct at %d", i)
		}
	}
	gids := make([][]uint32, nseg)
	for s := range gids {
		a, b := off[s], off[s+1]
		if a > b {
			return nil, nil, fmt.Errorf("segment %d: offsets out of order", s)
		}
		g := ids[a:b:b]
		for j, id := range g {
			if int(id) >= len(terms) || j > 0 && g[j-1] >= id {
				return nil, nil, fmt.Errorf("segment %d: term ids out of order", s)
			}
		}
		gids[s] = g
	}
	return terms, gids, nil
}

// NameSigBits is how many bits a signature has: it fills the 7 spare
// bytes of a symbol's cache record (segSym).
const NameSigBits = 56

// nameSigMark is set in every signature, so that 0 can mean "none" (a
// candidate with no symbol's signature, whose name is read instead).
const nameSigMark = 1 << (NameSigBits - 1)
