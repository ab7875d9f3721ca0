package symbolindex

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/gob"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"unsafe"

	"github.com/cespare/xxhash/v2"

	"github.com/ctxls/ctxls/heuristics"
	"github.com/ctxls/ctxls/merkle"
	"github.com/ctxls/ctxls/symbolindex/cachefile"
	"github.com/ctxls/ctxls/symbolindex/embed"
)

// The cache is one file of immutable segments, in the spirit of zoekt's
// shards: each segment holds a run of files (in path order) with
// everything the index keeps of them — file records, symbol records and
// their strings, int8 vectors, the files' aggregate vectors and Merkle
// leaves, and the lexical postings of their symbols and of the files
// themselves — as flat little-endian arrays. LoadIndex maps the file and
// reads the arrays in place: no decoding, no re-quantizing, no postings
// rebuilt; only the hash tables (paths, names, terms) and the Merkle tree
// are built, from the mapped strings. Each segment carries two xxhash64s:
// one of its head (the section table and the sections the load reads: the
// records, strings, sums and term tables) and one of its body (vectors,
// postings, each document's terms, signatures and doc comments). The load
// checks the heads; a damaged head leaves the segment out, and its files
// are indexed again as if new, while the other segments are used. A body
// is checked (checksum and structure) the first time anything reads it
// (segGate, lazy.go), so that a restart reads only the heads and what its
// requests use; a damaged body is never read: the reads of that segment
// come back empty and the index reports itself corrupt (Index.Corrupt),
// for its owner to rebuild it.
//
// Layout: a header (magic, version, dimension, embedder, the segment
// table, then an xxhash64 of the header), then the segments, each at a
// page boundary. A segment starts with a table of its sections (offset
// and length from the segment's start); sections are 8-byte aligned.

// cacheVersion changes whenever the on-disk layout or anything that feeds it
// (parsing, tokenizing, hashing) changes, so that an old cache is rebuilt
// instead of trusted.
const cacheVersion = 13

// dictCacheVersion is the first layout with the dictionary, whose header
// holds where it is. Versions 9 (no dictionary) and 10 (no name
// signatures) loaded until cache version 12, when parsing changed (and
// again at 13): their symbols are those of the parsing before, so they are
// a mismatch like any other version, and the folder indexes again.
const dictCacheVersion = 10

// cacheMagic is the magic of the gob caches of cache versions 1 and 2,
// recognised so that an old cache is reported as a mismatch.
const cacheMagic = "ctxls-index"

// Segments are cut after segMaxFiles files or segMaxSyms symbols, so that
// a damaged one costs a few thousand files' parsing. Variables for tests.
var (
	segMaxFiles = 2048
	segMaxSyms  = 16384
	// segNarrow allows the narrow postings form; tests turn it off to
	// exercise the wide one.
	segNarrow = true
)

// ErrCacheMismatch says a cache file was written by another version of
// ctxls or with another embedder. It is not corruption: the index is simply
// rebuilt.
var ErrCacheMismatch = errors.New("cache written by another version or embedder")

// SegmentsError is returned (wrapped) with a usable index when some
// segments of a cache are damaged: the index holds the files of the
// others, and the caller indexes the missing files again.
type SegmentsError struct {
	Bad, Total int
	Err        error // the first segment's problem
}

func (e *SegmentsError) Error() string {
	return fmt.Sprintf("%d of %d cache segments damaged (first: %v)", e.Bad, e.Total, e.Err)
}

func (e *SegmentsError) Unwrap() error { return e.Err }

// cacheHeader is the header of the old gob caches.
type cacheHeader struct {
	Magic    string
	Version  int
	Embedder string
	Dim      int
}

// segFile is one file's record.
type segFile struct {
	Path, Lang      strRef
	Hash            uint64
	Size, ModTime   int64
	FirstSym, NSyms uint32 // the file's symbols: syms[FirstSym:FirstSym+NSyms]
	FirstRef, NRefs uint32 // its references: refs[FirstRef:FirstRef+NRefs]
	Ino             uint64 // the inode number it had when read (0: unknown)
}

// Save writes the index to path atomically: it writes a temporary file in the
// same directory (cachefile.CreateIndexTemp) and renames it over path, so a crash
// mid-write leaves the previous cache intact. The rename replaces whatever
// entry is at path (a symlink or a FIFO is replaced, not written through);
// a directory there is an error.
func (ix *Index) Save(path string) error {
	if !hostLittleEndian {
		return errors.New("save index: the cache format needs a little-endian machine")
	}
	tmp, err := cachefile.CreateIndexTemp(path)
	if err != nil {
		return fmt.Errorf("save index: %w", err)
	}
	defer os.Remove(tmp.Name()) // no-op after a successful rename
	if err := ix.writeSegments(tmp); err != nil {
		tmp.Close()
		return fmt.Errorf("save index %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("save index %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("save index: %w", err)
	}
	ix.rewrite = "" // the file is in the current layout now
	return nil
}

// segGroup is the run of files one segment holds: their slots, in path
// order.
type segGroup struct {
	files []uint32
	nsyms int
}

// writeSegments writes the header and the segments to f.
func (ix *Index) writeSegments(f *os.File) error {
	var groups []segGroup
	for _, fslot := range ix.filesByPath() {
		n := len(ix.fileTab[fslot].Slots)
		if len(groups) == 0 || segFull(len(groups[len(groups)-1].files), groups[len(groups)-1].nsyms, n) {
			groups = append(groups, segGroup{})
		}
		g := &groups[len(groups)-1]
		g.files = append(g.files, fslot)
		g.nsyms += n
	}
	off := uint64(alignUp(headerLen(ix.emb, len(groups)), pageSize))
	table := make([]segEntry, len(groups))
	var fileBase, symBase uint32
	end := off
	w := &segWriter{ix: ix, dict: new(dictBuilder)}
	for i, g := range groups {
		n, sum, body, err := writeSegment(f, int64(off), w.segment(g, fileBase, symBase))
		if err != nil {
			return err
		}
		table[i] = segEntry{Off: off, Len: n, Sum: sum, Body: body,
			FileBase: fileBase, NFiles: uint32(len(g.files)), SymBase: symBase, NSyms: uint32(g.nsyms)}
		end = off + n
		off += uint64(alignUp(int(n), pageSize))
		fileBase += uint32(len(g.files))
		symBase = uint32(alignUp(int(symBase)+g.nsyms, vecChunk))
	}
	if err := ix.Corrupt(); err != nil {
		// A damaged body was read as empty: writing it would keep the loss.
		return err
	}
	dict, err := w.dict.write(f, end)
	if err != nil {
		return err
	}
	return writeHeader(f, ix.emb, table, dict, fileBase, symBase)
}

// segFull says whether a segment of files files and nsyms symbols is
// closed before a file of n symbols: at segMaxFiles files, or when the file
// would take it past segMaxSyms symbols (a segment has at least one file).
func segFull(files, nsyms, n int) bool {
	return files >= segMaxFiles || nsyms+n > segMaxSyms && files > 0
}

// headerLen is the length of the header of a file of nseg segments.
func headerLen(emb embed.Embedder, nseg int) int {
	return 32 + len(emb.ID()) + nseg*int(unsafe.Sizeof(segEntry{})) + int(unsafe.Sizeof(dictEntry{})) + 8
}

// writeHeader writes the header (segment table, dictionary, slot counts,
// checksum) at the start of f, whose dictionary ends the file, and
// truncates f there.
func writeHeader(f *os.File, emb embed.Embedder, table []segEntry, dict dictEntry, fileSlots, symSlots uint32) error {
	id := emb.ID()
	hdr := make([]byte, 0, headerLen(emb, len(table)))
	hdr = append(hdr, segMagic...)
	hdr = binary.LittleEndian.AppendUint32(hdr, cacheVersion)
	hdr = binary.LittleEndian.AppendUint32(hdr, uint32(emb.Dim()))
	hdr = binary.LittleEndian.AppendUint32(hdr, uint32(len(table)))
	hdr = binary.LittleEndian.AppendUint32(hdr, uint32(len(id)))
	hdr = binary.LittleEndian.AppendUint32(hdr, fileSlots)
	hdr = binary.LittleEndian.AppendUint32(hdr, symSlots)
	hdr = append(hdr, id...)
	hdr = append(hdr, asBytes(table)...)
	hdr = append(hdr, asBytes([]dictEntry{dict})...)
	hdr = binary.LittleEndian.AppendUint64(hdr, xxhash.Sum64(hdr))
	if _, err := f.WriteAt(hdr, 0); err != nil {
		return err
	}
	return f.Truncate(int64(dict.Off + dict.Len))
}

// segWriter builds segments; its buffers are reused from one to the next.
type segWriter struct {
	ix *Index
	strBlob
	text  strBlob
	local []uint32     // term id → 1 + local id in the segment being written
	dict  *dictBuilder // gathers the segments' terms
}

// strBlob is a string section being written: each distinct string once.
type strBlob struct {
	strs []byte
	seen map[string]strRef
}

func (b *strBlob) reset() {
	b.strs = b.strs[:0]
	b.seen = make(map[string]strRef)
}

func (b *strBlob) str(s string) strRef {
	if s == "" {
		return strRef{}
	}
	if r, ok := b.seen[s]; ok {
		return r
	}
	r := strRef{Off: uint32(len(b.strs)), Len: uint32(len(s))}
	b.strs = append(b.strs, s...)
	b.seen[s] = r
	return r
}

// segment returns the sections of the segment of group g, whose files take the
// slots from fileBase and symbols those from symBase on.
func (w *segWriter) segment(g segGroup, fileBase, symBase uint32) *[numSecs][]byte {
	ix := w.ix
	dim := ix.emb.Dim()
	w.reset()
	w.text.reset()
	files := make([]segFile, len(g.files))
	syms := make([]segSym, 0, g.nsyms)
	slots := make([]uint32, 0, g.nsyms)
	oldSyms := make([]uint32, 0, g.nsyms)
	var refs []segRef
	var names, refsBy []tableEntry
	bases := make([]tableEntry, 0, len(g.files))
	vecs := make([]int8, 0, g.nsyms*dim)
	scales := make([]float32, 0, g.nsyms)
	sums := make([]float32, 0, len(g.files)*dim)
	for i, fslot := range g.files {
		fe := &ix.fileTab[fslot]
		files[i] = segFile{Path: w.str(fe.Path), Lang: w.str(fe.Language), Hash: fe.Hash, Size: fe.Size, ModTime: fe.ModTime, Ino: fe.Ino,
			FirstSym: uint32(len(syms)), NSyms: uint32(len(fe.Slots)), FirstRef: uint32(len(refs))}
		frefs := ix.FileRefs(fslot)
		files[i].NRefs = uint32(len(frefs))
		pref := files[i].Path
		b := uint32(len(baseName(fe.Path)))
		bases = append(bases, tableEntry{strRef{Off: pref.Off + pref.Len - b, Len: b}, fileBase + uint32(i)})
		for _, r := range frefs {
			refs = append(refs, segRef{Ref: w.text.str(r), Lower: w.str(strings.ToLower(r))})
			refsBy = append(refsBy, tableEntry{refs[len(refs)-1].Lower, fileBase + uint32(i)})
		}
		for _, s := range fe.Slots {
			sym := ix.sym(s)
			syms = append(syms, segSym{Name: w.str(sym.Name), Qual: w.str(sym.Qualified),
				LName: w.str(strings.ToLower(sym.Name)), LQual: w.str(strings.ToLower(sym.Qualified)),
				Sig: w.text.str(sym.Signature), Doc: w.text.str(sym.Doc), Key: w.str(ix.LeafKey(s)), Hash: ix.LeafHash(s),
				Range: sym.Range, StartByte: sym.StartByte, EndByte: sym.EndByte, Kind: sym.Kind})
			rec := &syms[len(syms)-1]
			rec.putNameSig(ix.NameSig(s))
			names = append(names, tableEntry{rec.LName, symBase + uint32(len(oldSyms))})
			if rec.LQual != rec.LName {
				names = append(names, tableEntry{rec.LQual, symBase + uint32(len(oldSyms))})
			}
			slots = append(slots, symBase+uint32(len(oldSyms)))
			oldSyms = append(oldSyms, s)
			if ix.vecs.Has(s) {
				vecs = append(vecs, ix.vecs.row(s)...)
				scales = append(scales, ix.vecs.scale(s))
			} else {
				vecs = append(vecs, make([]int8, dim)...)
				scales = append(scales, 0)
			}
		}
		if len(fe.Sum) == dim {
			sums = append(sums, fe.Sum...)
		} else {
			sums = append(sums, make([]float32, dim)...)
		}
	}
	secs := new([numSecs][]byte)
	secs[secFiles] = asBytes(files)
	secs[secRefs] = asBytes(refs)
	secs[secSlots] = asBytes(slots)
	secs[secSyms] = asBytes(syms)
	secs[secVecs] = asBytes(vecs)
	secs[secScales] = asBytes(scales)
	secs[secSums] = asBytes(sums)
	w.lexical(ix.lex, oldSyms, symBase, secs[secSymLex:secSymLex+lexSections], &w.dict.lex[0])
	w.lexical(ix.flex, g.files, fileBase, secs[secFileLex:secFileLex+lexSections], &w.dict.lex[1])
	secs[secStrs] = w.strs
	secs[secText] = w.text.strs
	secs[secNames] = encodeTable(w.strs, names)
	secs[secRefsBy] = encodeTable(w.strs, refsBy)
	secs[secBases] = encodeTable(w.strs, bases)

	return secs
}

// writeSegment writes a segment's section table and sections at off in f,
// hot sections first, and returns its length and the checksums of its head
// and body.
func writeSegment(f *os.File, off int64, secs *[numSecs][]byte) (n, head uint64, body [numBodies]uint64, err error) {
	tab := make([]byte, 16*numSecs)
	pos := uint64(len(tab))
	for _, cold := range []bool{false, true} {
		for i, s := range secs {
			if segCold[i] == cold {
				pos = uint64(alignUp(int(pos), 8))
				binary.LittleEndian.PutUint64(tab[16*i:], pos)
				binary.LittleEndian.PutUint64(tab[16*i+8:], uint64(len(s)))
				pos += uint64(len(s))
			}
		}
	}
	head, body = segSums(tab, secs)
	bw := bufio.NewWriterSize(io.NewOffsetWriter(f, off), 1<<20)
	bw.Write(tab)
	n = uint64(len(tab))
	var pad [8]byte
	for _, cold := range []bool{false, true} {
		for i, s := range secs {
			if segCold[i] == cold {
				p := uint64(alignUp(int(n), 8))
				bw.Write(pad[:p-n])
				bw.Write(s)
				n = p + uint64(len(s))
			}
		}
	}
	if err := bw.Flush(); err != nil {
		return 0, 0, body, err
	}
	return n, head, body, nil
}

// lexical writes the postings of the documents olds (the index's doc ids;
// olds[i] becomes document lo+i) into the lexical sections of out, and
// adds the segment's terms to dict.
func (w *segWriter) lexical(l *Lexical, olds []uint32, lo uint32, out [][]byte, dict *dictLex) {
	if len(w.local) < l.strs.len() {
		w.local = make([]uint32, l.strs.len())
	}
	n := len(olds)
	live := make([]byte, n)
	lens := make([][NumFields]uint16, n)
	dtOff := make([]uint32, n+1)
	var all []segPosting // every document's terms, in document order
	var ids []uint32     // the distinct term ids
	for i, old := range olds {
		if l.Has(old) {
			live[i] = 1
			lens[i] = l.lens[old]
			l.eachTerm(old, func(id, tf uint32) {
				if w.local[id] == 0 {
					w.local[id] = 1
					ids = append(ids, id)
				}
				all = append(all, segPosting{id, tf})
			})
		}
		dtOff[i+1] = uint32(len(all))
	}
	slices.SortFunc(ids, func(a, b uint32) int { return strings.Compare(l.strs.at(a), l.strs.at(b)) })
	terms := make([]strRef, len(ids))
	count := make([]uint32, len(ids)+1)
	for i, id := range ids {
		w.local[id] = uint32(i) + 1
		terms[i] = w.str(l.strs.at(id))
	}
	dict.add(len(ids), func(i int) string { return l.strs.at(ids[i]) })
	dtTerms := make([]uint32, len(all))
	for j, p := range all {
		lt := w.local[p.id] - 1
		dtTerms[j] = lt
		count[lt+1]++
	}
	for i := range ids {
		count[i+1] += count[i]
	}
	termOff := slices.Clone(count)
	for _, id := range ids {
		w.local[id] = 0
	}
	if tabIdx, tab, narrow := narrowTFs(all, n); narrow {
		docs, tfs := invert(dtOff, dtTerms, count,
			func(i int) uint16 { return uint16(i) }, func(j uint32) uint16 { return tabIdx[all[j].tf] })
		out[lexDocs] = asBytes(docs)
		out[lexTFs] = asBytes(tfs)
		out[lexTFTab] = asBytes(tab)
		out[lexForm] = binary.LittleEndian.AppendUint32(nil, 1)
	} else {
		docs, tfs := invert(dtOff, dtTerms, count,
			func(i int) uint32 { return lo + uint32(i) }, func(j uint32) uint32 { return all[j].tf })
		out[lexDocs] = asBytes(docs)
		out[lexTFs] = asBytes(tfs)
		out[lexForm] = binary.LittleEndian.AppendUint32(nil, 0)
	}
	out[lexTerms] = asBytes(terms)
	out[lexTermOff] = asBytes(termOff)
	out[lexLens] = asBytes(lens)
	out[lexLive] = live
	out[lexDTOff] = asBytes(dtOff)
	out[lexDTTerms] = asBytes(dtTerms)
}

// segPosting is a term of a document as a segment is written: the term's
// id in the index and its frequencies.
type segPosting struct{ id, tf uint32 }

// narrowTFs returns the table of the distinct frequencies of all, and each
// one's index in it, when the n documents and the table fit in 16 bits,
// which is the rule: the postings are written narrow then.
func narrowTFs(all []segPosting, n int) (tabIdx map[uint32]uint16, tab []uint32, narrow bool) {
	tabIdx = map[uint32]uint16{}
	if !segNarrow || n > 1<<16 {
		return nil, nil, false
	}
	for _, p := range all {
		if _, ok := tabIdx[p.tf]; !ok {
			if len(tab) == 1<<16 {
				return nil, nil, false
			}
			tabIdx[p.tf] = uint16(len(tab))
			tab = append(tab, p.tf)
		}
	}
	return tabIdx, tab, true
}

// invert turns per-document term lists (document i's terms are
// dtTerms[dtOff[i]:dtOff[i+1]]) into postings grouped by term, count[t]
// being where term t's postings start (advanced as they are filled): each
// posting is doc(i) and tf(j) for the term list entry j.
func invert[D, T uint16 | uint32](dtOff, dtTerms, count []uint32, doc func(i int) D, tf func(j uint32) T) ([]D, []T) {
	docs := make([]D, len(dtTerms))
	tfs := make([]T, len(dtTerms))
	for i := 0; i+1 < len(dtOff); i++ {
		for j := dtOff[i]; j < dtOff[i+1]; j++ {
			lt := dtTerms[j]
			k := count[lt]
			count[lt]++
			docs[k] = doc(i)
			tfs[k] = tf(j)
		}
	}
	return docs, tfs
}

// LoadIndex maps an index saved by Save. It returns ErrCacheMismatch
// (wrapped) when the file was written by another cache version or embedder,
// and another error when it is unreadable or corrupt; either way the caller
// rebuilds. When only some segments are damaged it returns the index of the
// others with a *SegmentsError (wrapped): the caller uses the index and
// indexes the missing files again.
func LoadIndex(path string, emb embed.Embedder) (*Index, error) {
	data, f, err := mapFile(path)
	if err != nil {
		return nil, err
	}
	// The load reads the segments' heads (asked for up front,
	// checkSegments) and requests read the rest here and there: no
	// readahead around a read.
	adviseRandom(data)
	ix, err := decodeIndex(data, emb, dropPages)
	if ix == nil {
		unmapFile(data)
		if f != nil {
			f.Close()
		}
		return nil, fmt.Errorf("load index %s: %w", path, err)
	}
	ix.mapped = data
	ix.lazy.path = path
	if f != nil {
		ix.vecs.readRowsFrom(f, data)
	}
	if err != nil {
		return ix, fmt.Errorf("load index %s: %w", path, err)
	}
	return ix, nil
}

// decodeIndex reads a mapped cache. On error it returns no index, except
// for a *SegmentsError, which comes with the index of the sound segments.
// drop, if not nil, is called with each segment once its head has been
// checked, and with the whole file once the index is built: only what
// requests touch from then on should stay resident.
func decodeIndex(data []byte, emb embed.Embedder, drop func([]byte)) (ix *Index, err error) {
	// A cache must never take the process down, whatever its bytes.
	defer func() {
		if p := recover(); p != nil {
			ix, err = nil, fmt.Errorf("corrupt cache: %v", p)
		}
	}()
	h, err := decodeSegHeader(data, emb)
	if err != nil {
		return nil, err
	}
	adviseWillNeed(data, int(h.dict.Off), int(h.dict.Len))
	views, bad := checkSegments(data, h.table, h.dim, drop)
	if len(views) == 0 && len(bad) > 0 {
		return nil, fmt.Errorf("corrupt cache: %w", &SegmentsError{Bad: len(bad), Total: len(h.table), Err: bad[0]})
	}
	dict, rewrite := h.usableDict(data, views, len(bad))
	if dict == nil {
		// The segments' own terms, merged.
		for _, v := range views {
			if err := v.buildTerms(); err != nil {
				return nil, fmt.Errorf("corrupt cache: segment %d: %w", v.i, err)
			}
		}
	}
	ix, err = assembleIndex(emb, views, h.fileSlots, h.symSlots, dict)
	if err != nil {
		return nil, err
	}
	ix.rewrite = rewrite
	if drop != nil {
		// Nothing has written into the mapping: what the build read can
		// go too, and comes back from the page cache when needed.
		drop(data)
	}
	ix.Reembedded, ix.gen, ix.overlay = 0, 0, 0
	for _, v := range views {
		for _, g := range v.gates {
			g.lazy = ix.lazy
			ix.lazy.gates = append(ix.lazy.gates, g)
		}
	}
	if len(bad) > 0 {
		return ix, &SegmentsError{Bad: len(bad), Total: len(h.table), Err: bad[0]}
	}
	return ix, nil
}

// usableDict returns the dictionary of the cache data of header h for its
// sound segments views, or nil when the load is to merge the segments'
// terms instead, and then why the cache should be written again: a
// damaged dictionary (nothing when segments are
// damaged: their files are indexed again, and the cache written then).
func (h *segHeader) usableDict(data []byte, views []*segView, bad int) (*baseDict, string) {
	if bad > 0 {
		return nil, ""
	}
	d, err := readDict(data, h.dict, len(h.table))
	for _, v := range views {
		if err == nil && (len(d.gids[0][v.i]) != v.symLex.NTerms || len(d.gids[1][v.i]) != v.fileLex.NTerms) {
			err = fmt.Errorf("dictionary: segment %d: term counts disagree", v.i)
		}
	}
	if err != nil {
		return nil, "damaged " + err.Error()
	}
	for _, v := range views {
		v.symLex.Gid, v.fileLex.Gid = d.gids[0][v.i], d.gids[1][v.i]
	}
	return d, ""
}

// segHeader is what the header of a cache file says: the vectors'
// dimension, the slot counts and the table of segments.
type segHeader struct {
	dim                 int
	fileSlots, symSlots uint32
	table               []segEntry
	dict                dictEntry
}

// decodeSegHeader reads and checks the header of a cache file: its magic,
// checksum, version and embedder, and that the segments' slots are in
// order and in range. A cache of an older format or another embedder is
// ErrCacheMismatch.
func decodeSegHeader(data []byte, emb embed.Embedder) (segHeader, error) {
	if !bytes.HasPrefix(data, []byte(segMagic)) {
		var h cacheHeader
		if gob.NewDecoder(bytes.NewReader(data)).Decode(&h) == nil && h.Magic == cacheMagic {
			return segHeader{}, fmt.Errorf("%w (version %d, embedder %s; want version %d, embedder %s)",
				ErrCacheMismatch, h.Version, h.Embedder, cacheVersion, emb.ID())
		}
		return segHeader{}, errors.New("not a ctxls index")
	}
	if !hostLittleEndian {
		return segHeader{}, fmt.Errorf("%w (this machine is big-endian)", ErrCacheMismatch)
	}
	if len(data) < 32 {
		return segHeader{}, errors.New("corrupt cache: short header")
	}
	le := binary.LittleEndian
	version, dim, nseg, embLen := le.Uint32(data[8:]), le.Uint32(data[12:]), le.Uint32(data[16:]), le.Uint32(data[20:])
	fileSlots, symSlots := le.Uint32(data[24:]), le.Uint32(data[28:])
	if embLen > 1<<10 || nseg > 1<<20 {
		return segHeader{}, errors.New("corrupt cache header")
	}
	entSize := int(unsafe.Sizeof(segEntry{}))
	tableEnd := 32 + int(embLen) + int(nseg)*entSize
	hdrLen := tableEnd
	if version >= dictCacheVersion { // older headers, a mismatch below, had no dictionary entry
		hdrLen += int(unsafe.Sizeof(dictEntry{}))
	}
	if len(data) < hdrLen+8 {
		return segHeader{}, errors.New("corrupt cache: short header")
	}
	if le.Uint64(data[hdrLen:]) != xxhash.Sum64(data[:hdrLen]) {
		return segHeader{}, errors.New("corrupt cache: header checksum mismatch")
	}
	embID := string(data[32 : 32+embLen])
	if version != cacheVersion || embID != emb.ID() || int(dim) != emb.Dim() {
		return segHeader{}, fmt.Errorf("%w (version %d, embedder %s; want version %d, embedder %s)",
			ErrCacheMismatch, version, embID, cacheVersion, emb.ID())
	}
	if fileSlots > lexMaxDocs || symSlots > lexMaxDocs {
		return segHeader{}, errors.New("corrupt cache: slot counts out of range")
	}
	table := make([]segEntry, nseg)
	copy(asBytes(table), data[32+embLen:tableEnd])
	h := segHeader{dim: int(dim), fileSlots: fileSlots, symSlots: symSlots, table: table}
	copy(asBytes(unsafe.Slice(&h.dict, 1)), data[tableEnd:hdrLen])
	// The dictionary ends the file: a shorter file was cut.
	if h.dict.Off > uint64(len(data)) || h.dict.Len > uint64(len(data))-h.dict.Off {
		return segHeader{}, errors.New("corrupt cache: dictionary beyond the end of the file")
	}

	var nextFile, nextSym uint32
	for i, e := range table {
		if e.FileBase < nextFile || e.SymBase < nextSym || e.SymBase%vecChunk != 0 ||
			uint64(e.FileBase)+uint64(e.NFiles) > uint64(fileSlots) || uint64(e.SymBase)+uint64(e.NSyms) > uint64(symSlots) {
			return segHeader{}, fmt.Errorf("corrupt cache: segment %d: slots out of order", i)
		}
		nextFile, nextSym = e.FileBase+e.NFiles, e.SymBase+e.NSyms
	}
	return h, nil
}

// checkSegments checks the heads of the segments of table, one segment per
// worker at a time, and returns the views of the sound ones, in order, and
// what is wrong with each of the others. Their bodies are checked on first
// use (segGate).
func checkSegments(data []byte, table []segEntry, dim int, drop func([]byte)) (views []*segView, bad []error) {
	// Ask for every head at once: the kernel reads them in large runs,
	// and nothing of the bodies.
	for _, e := range table {
		if secs, err := segSections(data, e); err == nil {
			base := uintptr(unsafe.Pointer(unsafe.SliceData(data)))
			for i, sec := range secs {
				if segPart[i] < 0 && len(sec) > 0 {
					adviseWillNeed(data, int(uintptr(unsafe.Pointer(unsafe.SliceData(sec)))-base), len(sec))
				}
			}
		}
	}
	checked := make([]*segView, len(table))
	errs := make([]error, len(table))
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(table)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				checked[i], errs[i] = checkSegmentSafe(data, table[i], dim, drop)
				if checked[i] != nil {
					checked[i].i = i
				}
			}
		}()
	}
	for i := range table {
		next <- i
	}
	close(next)
	wg.Wait()
	lastPath := ""
	for i, v := range checked {
		err := errs[i]
		if err == nil && v.str(v.files[0].Path) <= lastPath {
			err = errors.New("paths out of order")
		}
		if err != nil {
			bad = append(bad, fmt.Errorf("segment %d: %w", i, err))
			continue
		}
		lastPath = v.str(v.files[len(v.files)-1].Path)
		views = append(views, v)
	}
	return views, bad
}

// assembleIndex builds the index over the checked segments views, with
// fileSlots file slots and symSlots symbol slots; the slots no segment
// fills are free. The lexical indexes' terms are dict's, or when it is
// nil the segments' own, merged.
func assembleIndex(emb embed.Embedder, views []*segView, fileSlots, symSlots uint32, dict *baseDict) (*Index, error) {
	ix := NewIndex(emb)
	ix.fileTab = make([]fileEntry, fileSlots)
	ix.symFile = make([]uint32, symSlots)
	for s := range ix.symFile {
		ix.symFile[s] = noFile
	}
	ix.symAt = make([]uint32, symSlots)
	ix.symSeg = make([]*segRecords, (int(symSlots)+vecChunk-1)/vecChunk)
	ix.symNamed = make([]bool, symSlots)
	ix.base = views
	symLex := make([]*lexSegData, len(views))
	fileLex := make([]*lexSegData, len(views))
	for i, v := range views {
		v.symLex.gate, v.symLex.dtGate = v.gates[bodyPostings], v.gates[bodyDocTerms]
		v.fileLex.gate, v.fileLex.dtGate = v.gates[bodyPostings], v.gates[bodyDocTerms]
		symLex[i], fileLex[i] = &v.symLex, &v.fileLex
	}
	// The lexical indexes (their terms merged when there is no
	// dictionary) are built beside the records and the Merkle tree, each
	// on its own goroutine: they share nothing.
	var terms [2][]string // never nil when read (readDictLex)
	if dict != nil {
		terms = dict.terms
	}
	lexDone := make(chan any, 2)
	for k, l := range [2]*Lexical{ix.lex, ix.flex} {
		go func() {
			defer func() { lexDone <- recover() }()
			l.addSegments([2][]*lexSegData{symLex, fileLex}[k], terms[k])
			l.trim()
		}()
	}
	var err error
	func() {
		// The lexical goroutines end before this one reports, even on a
		// panic.
		defer func() {
			for _, p := range [2]any{<-lexDone, <-lexDone} {
				if p != nil {
					panic(p) // decodeIndex's recover reports it
				}
			}
		}()
		// The segments' files come in path order, and the tree is empty:
		// one batch, with no staging map.
		ups := make([]merkle.Update, 0, fileSlots)
		for _, v := range views {
			ix.mapSegment(v, &ups)
		}
		ix.tree, err = ix.tree.Apply(ups)
	}()
	for s := len(ix.symFile) - 1; s >= 0; s-- {
		if ix.symFile[s] == noFile {
			ix.freeSym = append(ix.freeSym, uint32(s))
		}
	}
	for f := len(ix.fileTab) - 1; f >= 0; f-- {
		if ix.fileTab[f].Path == "" {
			ix.freeFile = append(ix.freeFile, uint32(f))
		}
	}
	if err != nil {
		return nil, fmt.Errorf("corrupt cache: %w", err)
	}
	return ix, nil
}

// checkSegmentSafe is checkSegment on a worker goroutine: a panic on
// absurd data is an error, as on the loading goroutine.
func checkSegmentSafe(data []byte, e segEntry, dim int, drop func([]byte)) (v *segView, err error) {
	defer func() {
		if p := recover(); p != nil {
			v, err = nil, fmt.Errorf("corrupt segment: %v", p)
		}
	}()
	return checkSegment(data, e, dim, drop)
}

// segSections returns the sections of segment e, in place, once their
// offsets are in bounds.
func segSections(data []byte, e segEntry) (secs [numSecs][]byte, err error) {
	if e.Off%pageSize != 0 || e.Off > uint64(len(data)) || e.Len > uint64(len(data))-e.Off {
		return secs, errors.New("beyond the end of the file")
	}
	seg := data[e.Off : e.Off+e.Len]
	if len(seg) < 16*numSecs {
		return secs, errors.New("short section table")
	}
	for i := range secs {
		off, n := binary.LittleEndian.Uint64(seg[16*i:]), binary.LittleEndian.Uint64(seg[16*i+8:])
		if off%8 != 0 || off > uint64(len(seg)) || n > uint64(len(seg))-off {
			return secs, fmt.Errorf("section %d out of bounds", i)
		}
		secs[i] = seg[off : off+n : off+n]
	}
	return secs, nil
}

// checkSegment verifies the checksum and structure of segment e's head and
// returns its sections, read in place; its body is checked by its gate,
// on first use.
func checkSegment(data []byte, e segEntry, dim int, drop func([]byte)) (*segView, error) {
	secs, err := segSections(data, e)
	if err != nil {
		return nil, err
	}
	if drop != nil {
		defer drop(data[e.Off : e.Off+e.Len])
	}
	if head, _ := segSums(data[e.Off:e.Off+16*numSecs], headOnly(&secs)); head != e.Sum {
		return nil, errors.New("checksum mismatch")
	}
	v := &segView{e: e, secs: secs, strs: secs[secStrs], text: secs[secText], vecs: viewInt8(secs[secVecs])}
	for part := range v.gates {
		v.gates[part] = &segGate{check: func() error { return v.checkBody(part) }}
	}
	var errs []error
	collect := func(err error) {
		if err != nil {
			errs = append(errs, err)
		}
	}
	v.files, err = viewAs[segFile](secs[secFiles])
	collect(err)
	v.refs, err = viewAs[segRef](secs[secRefs])
	collect(err)
	v.slots, err = viewAs[uint32](secs[secSlots])
	collect(err)
	v.syms, err = viewAs[segSym](secs[secSyms])
	collect(err)
	v.scales, err = viewAs[float32](secs[secScales])
	collect(err)
	v.sums, err = viewAs[float32](secs[secSums])
	collect(err)
	v.tabs[tabBases], err = readTable(secs[secBases], v.strs, e.FileBase, e.FileBase+e.NFiles)
	collect(err)
	v.termRefs[0], err = v.readLex(secs[secSymLex:secSymLex+lexSections], e.SymBase, &v.symLex)
	collect(err)
	v.termRefs[1], err = v.readLex(secs[secFileLex:secFileLex+lexSections], e.FileBase, &v.fileLex)
	collect(err)
	if len(errs) > 0 {
		return nil, errs[0]
	}
	nf, ns := int(e.NFiles), int(e.NSyms)
	if nf == 0 || len(v.files) != nf || len(v.syms) != ns || len(v.slots) != ns || len(v.vecs) != ns*dim ||
		len(v.scales) != ns || len(v.sums) != nf*dim || len(v.symLex.Live) != ns || len(v.fileLex.Live) != nf {
		return nil, errors.New("section sizes disagree with the segment table")
	}
	if err := v.checkRecords(); err != nil {
		return nil, err
	}
	return v, nil
}

// checkRecords checks that the records of a segment whose sections agree
// in size with its table entry point inside its sections, that its files
// cover its symbols and references in order, and that its paths are
// sorted.
func (v *segView) checkRecords() error {
	e, ns := v.e, int(v.e.NSyms)
	okStr := func(r strRef) bool { return uint64(r.Off)+uint64(r.Len) <= uint64(len(v.strs)) }
	okText := func(r strRef) bool { return uint64(r.Off)+uint64(r.Len) <= uint64(len(v.text)) }
	next, nextRef := uint32(0), uint32(0)
	for i := range v.files {
		f := &v.files[i]
		if f.FirstSym != next || uint64(f.FirstSym)+uint64(f.NSyms) > uint64(ns) || f.FirstRef != nextRef ||
			uint64(f.FirstRef)+uint64(f.NRefs) > uint64(len(v.refs)) || !okStr(f.Path) || !okStr(f.Lang) || f.Path.Len == 0 {
			return fmt.Errorf("file %d: bad record", i)
		}
		if i > 0 && v.str(v.files[i-1].Path) >= v.str(f.Path) {
			return fmt.Errorf("file %d: paths out of order", i)
		}
		next, nextRef = f.FirstSym+f.NSyms, f.FirstRef+f.NRefs
	}
	if next != uint32(ns) || nextRef != uint32(len(v.refs)) {
		return errors.New("files do not cover the symbols")
	}
	for i := range v.refs {
		if !okText(v.refs[i].Ref) || !okStr(v.refs[i].Lower) {
			return fmt.Errorf("reference %d: bad string", i)
		}
	}
	for i := range v.syms {
		s := &v.syms[i]
		for _, r := range [...]strRef{s.Name, s.Qual, s.LName, s.LQual, s.Key} {
			if !okStr(r) {
				return fmt.Errorf("symbol %d: bad string", i)
			}
		}
		if !okText(s.Sig) || !okText(s.Doc) {
			return fmt.Errorf("symbol %d: bad text", i)
		}
		if v.slots[i] != e.SymBase+uint32(i) {
			return fmt.Errorf("symbol %d: bad slot", i)
		}
	}
	return nil
}

func viewInt8(b []byte) []int8 {
	if len(b) == 0 {
		return nil
	}
	return unsafe.Slice((*int8)(unsafe.Pointer(unsafe.SliceData(b))), len(b))
}

// readLex reads the lexical sections of a segment whose documents
// start at lo, and checks them; it returns the segment's terms, in place.
func (v *segView) readLex(secs [][]byte, lo uint32, d *lexSegData) ([]strRef, error) {
	terms, err := viewAs[strRef](secs[lexTerms])
	if err != nil {
		return nil, err
	}
	for i, r := range terms {
		if uint64(r.Off)+uint64(r.Len) > uint64(len(v.strs)) {
			return nil, fmt.Errorf("term %d: bad string", i)
		}
	}
	d.Lo, d.NTerms = lo, len(terms)
	return terms, v.readLexArrays(secs, d)
}

// readLexArrays reads and checks the lexical sections of a segment but its
// terms.
func (v *segView) readLexArrays(secs [][]byte, d *lexSegData) error {
	var errs []error
	var e error
	d.TermOff, e = viewAs[uint32](secs[lexTermOff])
	errs = append(errs, e)
	if len(secs[lexForm]) != 4 {
		return errors.New("lexical form missing")
	}
	switch binary.LittleEndian.Uint32(secs[lexForm]) {
	case 0:
		d.Docs, e = viewAs[uint32](secs[lexDocs])
		errs = append(errs, e)
		d.TFs, e = viewAs[uint32](secs[lexTFs])
		errs = append(errs, e)
	case 1:
		d.Docs16, e = viewAs[uint16](secs[lexDocs])
		errs = append(errs, e)
		d.TF16, e = viewAs[uint16](secs[lexTFs])
		errs = append(errs, e)
		d.TFTab, e = viewAs[uint32](secs[lexTFTab])
		errs = append(errs, e)
		if d.TFTab == nil {
			d.TFTab = []uint32{}
		}
	default:
		return errors.New("unknown lexical form")
	}
	d.Lens, e = viewAs[[NumFields]uint16](secs[lexLens])
	errs = append(errs, e)
	d.Live = secs[lexLive]
	d.DTOff, e = viewAs[uint32](secs[lexDTOff])
	errs = append(errs, e)
	d.DTTerms, e = viewAs[uint32](secs[lexDTTerms])
	errs = append(errs, e)
	if err := errors.Join(errs...); err != nil {
		return err
	}
	return d.checkHead()
}

// buildTerms reads the segment's own terms into its lexical data (a
// cache without a usable dictionary); they must be sorted and distinct.
func (v *segView) buildTerms() error {
	for k, d := range [2]*lexSegData{&v.symLex, &v.fileLex} {
		d.Terms = make([]string, len(v.termRefs[k]))
		for i, r := range v.termRefs[k] {
			t := v.str(r)
			if t == "" || i > 0 && d.Terms[i-1] >= t {
				return fmt.Errorf("lexical segment: terms not sorted and distinct at %d", i)
			}
			d.Terms[i] = t
		}
	}
	return nil
}

// mapSegment adds the files and symbols of a checked segment to the
// index, reading their records, vectors and postings in place, and
// appends their updates of the Merkle tree to ups.
func (ix *Index) mapSegment(v *segView, ups *[]merkle.Update) {
	dim := ix.emb.Dim()
	e := v.e
	for i := range v.files {
		f := &v.files[i]
		fslot := e.FileBase + uint32(i)
		p := v.str(f.Path)
		slots := v.slots[f.FirstSym : f.FirstSym+f.NSyms : f.FirstSym+f.NSyms]
		lang := v.str(f.Lang)
		fe := fileEntry{Path: p, Language: lang, Category: heuristics.CategoryOf(p, lang), Hash: f.Hash, Size: f.Size, ModTime: f.ModTime, Ino: f.Ino,
			Slots: slots, Sum: v.sums[i*dim : (i+1)*dim : (i+1)*dim], loaded: true, fromBase: true}
		if len(fe.Slots) == 0 {
			fe.Slots = nil
		}
		if f.NRefs > 0 {
			fe.mapped, fe.strs, fe.gate = v.refs[f.FirstRef:f.FirstRef+f.NRefs:f.FirstRef+f.NRefs], v.text, v.gates[bodyText]
		}
		ix.fileTab[fslot] = fe
		leaves := make([]merkle.Leaf, f.NSyms)
		for j := range leaves {
			s := &v.syms[f.FirstSym+uint32(j)]
			slot := e.SymBase + f.FirstSym + uint32(j)
			leaves[j] = merkle.Leaf{Key: v.str(s.Key), Hash: s.Hash}
			ix.symFile[slot] = fslot
			ix.symNamed[slot] = true
		}
		// The tree reads the sum in place and keeps the leaves.
		*ups = append(*ups, merkle.Update{Path: p, Leaves: leaves, Sum: fe.Sum, SharedSum: true, OwnLeaves: true, ID: fslot})
	}
	ix.nsyms += int(e.NSyms)
	ix.nfiles += int(e.NFiles)
	ix.vecs.mapChunks(e.SymBase, v.vecs, v.scales)
	ix.vecs.gateChunks(e.SymBase, int(e.NSyms), v.gates[bodyVectors])
	recs := &segRecords{base: e.SymBase, syms: v.syms, strs: v.strs, text: v.text, gate: v.gates[bodyText]}
	for c := e.SymBase / vecChunk; c*vecChunk < e.SymBase+e.NSyms; c++ {
		ix.symSeg[c] = recs
	}
}

// baseName is path.Base for the clean slash paths of the index.
func baseName(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[i+1:]
	}
	return p
}

// checkBody checksums part of the body of the segment and checks its
// structure (postings, documents' term lists; vectors and text need only
// their bounds, checked with the head).
func (v *segView) checkBody(part int) error {
	sum := bodySum(&v.secs, part)
	if part != bodyVectors {
		// The check read the whole part; requests read a little of it.
		// (Never the vectors: an edit may have written into their pages.)
		defer func() {
			for i, sec := range v.secs {
				if segPart[i] == part && len(sec) > 0 {
					// dropPages wants a page-aligned start.
					skip := int((pageSize - uintptr(unsafe.Pointer(unsafe.SliceData(sec)))%pageSize) % pageSize)
					if skip < len(sec) {
						dropPages(sec[skip:])
					}
				}
			}
		}()
	}
	if sum != v.e.Body[part] {
		return fmt.Errorf("segment %d: %s: checksum mismatch", v.i, bodyNames[part])
	}
	var err error
	switch part {
	case bodyPostings:
		err = errors.Join(v.symLex.checkPostings(), v.fileLex.checkPostings())
	case bodyDocTerms:
		err = errors.Join(v.symLex.checkDocTerms(), v.fileLex.checkDocTerms())
	case bodyNameTab:
		v.tabs[tabNames], err = readTable(v.secs[secNames], v.strs, v.e.SymBase, v.e.SymBase+v.e.NSyms)
	case bodyRefTab:
		v.tabs[tabRefsBy], err = readTable(v.secs[secRefsBy], v.strs, v.e.FileBase, v.e.FileBase+v.e.NFiles)
	}
	if err != nil {
		return fmt.Errorf("segment %d: %w", v.i, err)
	}
	return nil
}

// headOnly returns secs with the body's sections left out.
func headOnly(secs *[numSecs][]byte) *[numSecs][]byte {
	h := *secs
	for i := range h {
		if segPart[i] >= 0 {
			h[i] = nil
		}
	}
	return &h
}

// BodyRanges returns where the sections of each segment's body lie in the
// cache file at path, as [offset, end) byte ranges: what a restart does
// not read until a request needs it. For tools and tests that inspect or
// damage a cache.
func BodyRanges(path string) ([][2]int64, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	le := binary.LittleEndian
	if len(data) < 32 || string(data[:8]) != segMagic {
		return nil, errors.New("not a ctxls index")
	}
	nseg, embLen := le.Uint32(data[16:]), le.Uint32(data[20:])
	entSize := int(unsafe.Sizeof(segEntry{}))
	if embLen > 1<<10 || nseg > 1<<20 || len(data) < 32+int(embLen)+int(nseg)*entSize {
		return nil, errors.New("corrupt cache header")
	}
	table := make([]segEntry, nseg)
	copy(asBytes(table), data[32+embLen:])
	var out [][2]int64
	for _, e := range table {
		secs, err := segSections(data, e)
		if err != nil {
			return nil, err
		}
		for i, s := range secs {
			if segPart[i] >= 0 && len(s) > 0 {
				off := int64(e.Off) + int64(le.Uint64(data[e.Off+uint64(16*i):]))
				out = append(out, [2]int64{off, off + int64(len(s))})
			}
		}
	}
	return out, nil
}
