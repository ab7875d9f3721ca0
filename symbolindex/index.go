// Package symbolindex owns the symbol-level index of a workspace: the
// records of each file's symbols, the lexical (BM25F) index over them, the
// flat vector store, and the persistence of all of it under the cache
// directory (memory-mapped segments, streamed writes). Its parts live in
// packages of their own: parse turns files into symbols, tokenize turns
// text into terms, embed turns text into vectors, cachefile writes the
// cache files safely.
package symbolindex

import (
	"cmp"
	"fmt"
	"maps"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/cespare/xxhash/v2"

	"github.com/ctxls/ctxls/heuristics"
	"github.com/ctxls/ctxls/merkle"
	"github.com/ctxls/ctxls/symbolindex/embed"
	"github.com/ctxls/ctxls/symbolindex/parse"
	"github.com/ctxls/ctxls/symbolindex/tokenize"
)

// Index is the symbol index of one workspace folder: every file's symbols,
// the lexical indexes over symbols and over whole files, one vector per
// symbol, a name table for mentions and references, and the Merkle tree.
//
// An Index is not safe for concurrent writes. Readers (the Search and lookup
// methods) may run concurrently with each other, but not with a writer.
// A reader that must not wait for the writer reads a frozen copy instead
// (Freeze, or a View of Versions): the writer copies on write what a
// frozen copy shares (cow.go), so the two never meet.
type Index struct {
	emb embed.Embedder

	// files maps a path to its file slot: the files of the cache segments
	// the index was loaded from are found in them (base, fileSlot), the
	// others in files.
	files    cowMap[uint32]
	fileTab  []fileEntry // file slot → entry; Path "" marks a free slot
	freeFile []uint32
	nfiles   int
	// base are the sound segments of the cache the index was loaded from,
	// in path order (nil: not loaded). Their lookup tables (lookupTable) hold
	// the names, references and base names of the files and symbols they
	// gave, which are looked up there rather than copied into maps at load;
	// names, refsBy and byBase hold the changes since. A table's entry
	// counts while its slot still holds what the segment put there:
	// symNamed for a symbol, fromBase (base names, paths) or loaded
	// (references) for a file.
	base     []*segView
	symNamed []bool

	// Symbols by slot. symFile is each slot's file (noFile: a free slot).
	// A symbol loaded from a cache segment is read in place from its
	// record there (symSeg, by vector chunk: segments start at a chunk);
	// one put since is in syms, at symAt[slot]-1 (0: none yet). A slot
	// keeps its heap entry once it has one.
	symFile []uint32
	symAt   []uint32
	syms    cowArr[symEntry]
	symSeg  []*segRecords
	freeSym []uint32

	lex  *Lexical     // symbol documents, keyed by symbol slot
	flex *Lexical     // whole-file documents, keyed by file slot
	vecs *VectorStore // symbol vectors, keyed by symbol slot
	// names, refsBy and byBase hold lists that are never changed in place
	// (a removal copies; an append writes past every frozen copy's length).
	names cowMap[[]uint32] // lowercased name and qualified name → symbol slots
	// refsBy maps a lowercased identifier to the files that reference it:
	// the reverse of each file's Refs, for the reference graph.
	refsBy cowMap[[]uint32]
	byBase cowMap[[]uint32] // base name → file slots

	tree    *merkle.Tree
	batch   bool
	pending map[string]merkle.Update // tree updates staged during a batch

	nsyms   int
	treeErr error // the last tree update error, if any (see flush)

	// Reembedded counts symbols tokenized and embedded since the index was
	// created: the work an edit really caused.
	Reembedded int

	gen     uint64     // bumped by every change
	overlay int        // distinct files put or removed since the index was created or loaded
	mapped  []byte     // the cache file the index reads in place, if loaded
	rewrite string     // why its cache should be written again (Rewrite)
	lazy    *lazyState // shared by the frozen copies (cow.go)

	// Copy-on-write (cow.go): the writer's epoch, the epochs of the slices
	// it writes in place, and the Versions whose readers it must not
	// disturb (nil: no reader holds a frozen copy).
	epoch uint64
	st    ixStamps
	vers  *Versions
}

// Generation changes whenever the index does: a caller that saved the
// index can tell whether it changed since.
func (ix *Index) Generation() uint64 { return ix.gen }

// Overlay is the number of distinct files put or removed since the index
// was created or loaded (a file edited a hundred times counts once): what
// the next save merges into new segments.
func (ix *Index) Overlay() int { return ix.overlay }

// Mapped reports whether the index reads a cache file in place.
func (ix *Index) Mapped() bool { return ix.mapped != nil }

// Rewrite says why the cache file the index was loaded from should be
// written again although none of its files changed, or "" when it should
// not: the file has an older layout or a damaged dictionary, which the
// load made up for (merging the segments' terms) at a cost every load
// would pay again. A successful Save clears it. Read it only where the
// index is saved (a folder's build).
func (ix *Index) Rewrite() string { return ix.rewrite }

// Discard unmaps the cache file of an index that was loaded but never
// used: nothing may point into it.
func (ix *Index) Discard() {
	ix.vecs.closeFile()
	if ix.mapped != nil {
		unmapFile(ix.mapped)
		ix.mapped = nil
	}
}

// Release drops the resident pages of the cache file a replaced index was
// loaded from. Strings read from the index stay valid (their pages are
// read again from the file when touched); the index itself must not be
// used any more.
func (ix *Index) Release() {
	ix.vecs.closeFile()
	if ix.mapped != nil {
		dropPages(ix.mapped)
	}
}

const noFile = ^uint32(0)

// fileEntry is what the index keeps of one file. The text itself is not
// kept: item texts are read from disk or the open-document overlay.
type fileEntry struct {
	Path     string
	Language string
	// Category is the file's kind for ranking (test, docs, config),
	// computed from Path and Language when the entry is made, so that a
	// request reads it rather than classifying every candidate's path.
	Category heuristics.Category
	Hash     uint64 // xxhash64 of the content
	Size     int64
	ModTime  int64  // unix nanoseconds, for the cache's fast path
	Ino      uint64 // inode number, for the same (0: unknown)
	Slots    []uint32
	Refs     []string
	Sum      []float32 // sum of the symbol vectors, for the Merkle aggregate
	// mapped holds the references of a file loaded from a cache segment
	// (Refs is then nil): they are read from the mapping when asked for.
	mapped []segRef
	strs   []byte   // the segment's text section
	gate   *segGate // guards strs (lazy.go)
	// loaded: the entry is the one a cache segment gave, unchanged since;
	// the first Put or Remove of it counts in the overlay, later ones not.
	loaded bool
	// fromBase: the slot holds the file a cache segment put there (its
	// content may have been put since), never removed.
	fromBase bool
}

// symEntry is a symbol put into the index in memory.
type symEntry struct {
	Sym     parse.Symbol
	Key     string // leaf key, unique within the file
	Hash    uint64 // leaf hash: qualified name, kind and folded body
	NameSig uint64 // Sym.Name's signature (NameSig; never 0)
}

// segRecords are the symbol records of a mapped segment, whose first
// symbol is in slot base.
type segRecords struct {
	base       uint32
	syms       []segSym
	strs, text []byte
	gate       *segGate // guards text (lazy.go)
}

func (v *segRecords) str(r strRef) string { return mappedStr(v.strs, r) }

// record returns the cache record of slot s, which has no heap entry.
func (ix *Index) record(s uint32) (*segRecords, *segSym) {
	v := ix.symSeg[s/vecChunk]
	return v, &v.syms[s-v.base]
}

// sym returns the symbol in slot s, which is not free.
func (ix *Index) sym(s uint32) parse.Symbol {
	if a := ix.symAt[s]; a != 0 {
		return ix.syms.ref(a - 1).Sym
	}
	v, r := ix.record(s)
	sym := parse.Symbol{Name: v.str(r.Name), Qualified: v.str(r.Qual), Kind: r.Kind, Range: r.Range,
		StartByte: r.StartByte, EndByte: r.EndByte}
	if v.gate.open() {
		sym.Signature, sym.Doc = mappedStr(v.text, r.Sig), mappedStr(v.text, r.Doc)
	}
	return sym
}

// own returns the heap entry of slot s, making one (from the slot's cache
// record, if it has one) if need be.
func (ix *Index) own(s uint32) *symEntry {
	ix.symAt = cowOwn(ix.symAt, &ix.st.symAt, ix.epoch)
	if a := ix.symAt[s]; a != 0 {
		return ix.syms.own(a-1, ix.epoch)
	}
	var e symEntry
	if int(s/vecChunk) < len(ix.symSeg) && ix.symSeg[s/vecChunk] != nil && ix.symFile[s] != noFile {
		v, r := ix.record(s)
		e = symEntry{Sym: ix.sym(s), Key: v.str(r.Key), Hash: r.Hash, NameSig: r.nameSig()}
	}
	ix.syms.push(e, ix.epoch)
	ix.symAt[s] = uint32(ix.syms.len())
	return ix.syms.own(ix.symAt[s]-1, ix.epoch)
}

// NewIndex returns an empty index that embeds with emb.
func NewIndex(emb embed.Embedder) *Index {
	return &Index{
		emb:  emb,
		lex:  NewLexical(DefaultSymbolParams()),
		flex: NewLexical(DefaultFileParams()),
		vecs: NewVectorStore(emb.Dim()),
		tree: merkle.New(emb.Dim()),
		lazy: &lazyState{},
	}
}

// Embedder returns the index's embedder.
func (ix *Index) Embedder() embed.Embedder { return ix.emb }

// Files is the number of indexed files.
func (ix *Index) Files() int { return ix.nfiles }

// Symbols is the number of indexed symbols.
func (ix *Index) Symbols() int { return ix.nsyms }

// Tree is the current Merkle tree (an immutable snapshot).
func (ix *Index) Tree() *merkle.Tree { return ix.tree }

// FileDoc is one parsed file, ready to be put into the index: the output of
// Prepare, which is the expensive, parallel part of indexing.
type FileDoc struct {
	Path     string
	Hash     uint64
	Size     int64
	ModTime  int64
	Ino      uint64 // inode number (0: unknown); set by the caller
	Parsed   *parse.ParsedFile
	Keys     []string
	Hashes   []uint64
	Vecs     [][]float32
	SymTerms []DocTerms
	NameSigs []uint64 // each symbol's name signature (Index.NameSig)
	// FileTerms are the terms of the whole file (path and content).
	FileTerms DocTerms

	// For symbols Prepare skipped as already indexed: what Put needs to
	// tokenize and embed them after all, should the index have moved on.
	src []byte
	emb embed.Embedder
}

// Known reports whether the index already holds a leaf with this key and
// content hash, so that Prepare need not tokenize or embed it again.
type Known func(key string, hash uint64) bool

// of asks known once of each leaf, keys[i] and hashes[i]: which are known
// (nil when known is).
func (known Known) of(keys []string, hashes []uint64) []bool {
	if known == nil {
		return nil
	}
	out := make([]bool, len(keys))
	for i := range keys {
		out[i] = known(keys[i], hashes[i])
	}
	return out
}

// Prepare parses, hashes, tokenizes and embeds one file's content. It does
// not touch the index, so many goroutines may Prepare at once, each with its
// own Parser. The embedder is called once with all of the file's new
// symbols. Symbols known says the index already has (an edit leaves most of
// a file alone) are neither tokenized nor embedded; known may be nil.
func Prepare(p *parse.Parser, emb embed.Embedder, relPath string, src []byte, size, modTime int64, known Known) (*FileDoc, error) {
	pf, err := p.Parse(relPath, src)
	if err != nil {
		return nil, fmt.Errorf("parse %s: %w", relPath, err)
	}
	return PrepareParsed(pf, emb, relPath, src, size, modTime, known)
}

// PrepareParsed is Prepare for content already parsed: an open document's,
// which Parser.ParseEdit parses incrementally.
func PrepareParsed(pf *parse.ParsedFile, emb embed.Embedder, relPath string, src []byte, size, modTime int64, known Known) (*FileDoc, error) {
	d := &FileDoc{
		Path:    relPath,
		Hash:    xxhash.Sum64(src),
		Size:    size,
		ModTime: modTime,
		Parsed:  pf,
		src:     src,
		emb:     emb,
	}
	d.Keys, d.Hashes = leafKeys(pf.Symbols, src)
	d.SymTerms = make([]DocTerms, len(pf.Symbols))
	d.NameSigs = make([]uint64, len(pf.Symbols))
	d.Vecs = make([][]float32, len(pf.Symbols))
	var texts []string
	var which []int
	pt := pathText(relPath)
	ds := docScratchPool.Get()
	defer docScratchPool.Put(ds)
	var fs *fileStream
	skip := known.of(d.Keys, d.Hashes)
	if useStream(pf.Symbols, src, skip) {
		fs = fileStreamPool.Get()
		defer fileStreamPool.Put(fs)
		fs.build(src)
	}
	for i := range pf.Symbols {
		if skip != nil && skip[i] {
			continue
		}
		sym := &pf.Symbols[i]
		f := symbolFields(pt, sym, src)
		ds.begin()
		signed := ds.nameFrom(f[FieldName], sym.Name)
		if start, end := bodyRange(src, sym); fs != nil && cleanCut(src, start, end) {
			ds.fields(&f, FieldBody)
			ds.streamBody(fs, start, end)
		} else {
			ds.fields(&f, NumFields)
		}
		d.SymTerms[i] = ds.finish()
		if d.NameSigs[i] = ds.nameSig(); !signed {
			d.NameSigs[i] = NameSig(sym.Name)
		}
		if v := embedFromStream(emb, fs, ds, pt, sym, src); v != nil {
			d.Vecs[i] = v
			continue
		}
		texts = append(texts, embedText(pt, sym, src))
		which = append(which, i)
	}
	if len(texts) > 0 {
		vecs, err := emb.Embed(texts)
		if err != nil {
			return nil, fmt.Errorf("embed %s: %w", relPath, err)
		}
		for j, i := range which {
			d.Vecs[i] = vecs[j]
		}
	}
	var ff [NumFields]string
	ff[FieldPath] = pt
	ff[FieldBody] = bytesString(src)
	ds.begin()
	if fs != nil {
		ds.fields(&ff, FieldBody)
		ds.streamBody(fs, 0, len(src))
	} else {
		ds.fields(&ff, NumFields)
	}
	d.FileTerms = ds.finish()
	return d, nil
}

// embedFromStream is the hash embedder's vector of embedText(pathText,
// sym, src) from the terms of the text's parts: the head of the body cut
// from the file's terms fs, the rest tokenized here (the parts are joined
// by newlines, which no identifier crosses). It returns nil when the
// embedder is another, there is no stream, or the head's cut is not clean.
func embedFromStream(emb embed.Embedder, fs *fileStream, ds *docScratch, pathText string, sym *parse.Symbol, src []byte) []float32 {
	he, ok := emb.(*embed.HashEmbedder)
	if !ok || fs == nil {
		return nil
	}
	start, end := bodyRange(src, sym)
	end = min(end, start+maxEmbedBody)
	if !cleanCut(src, start, end) {
		return nil
	}
	v := make([]float32, he.Dim())
	he.EmbedTerms(v, func(add func(term []byte) bool) {
		for _, part := range [...]string{pathText, sym.Qualified, sym.Signature, sym.Doc} {
			ds.tok.Run(part, tokenize.ModeDoc, add)
		}
		k := sort.Search(len(fs.at), func(k int) bool { return fs.at[k] >= uint32(start) })
		for ; k < len(fs.at) && fs.at[k] < uint32(end); k++ {
			add(fs.tab.term(fs.ids[k]))
		}
	})
	return v
}

// streamCutBytes is about the text the body term limit lets the tokenizer
// read (lexMaxBodyTerms terms of a few bytes each).
const streamCutBytes = 32 << 10

// useStream reports whether tokenizing src once (a fileStream) costs less
// than tokenizing the file's and its symbols' bodies each, every one up to
// the body term limit: so in code, where symbols cover the file and nest,
// and not in a large file with few symbols, where the limit stops the
// tokenizer early. The symbols skip marks (it may be nil) are left out.
func useStream(syms []parse.Symbol, src []byte, skip []bool) bool {
	work := min(len(src), streamCutBytes)
	for i := range syms {
		if skip != nil && skip[i] {
			continue
		}
		if start, end := bodyRange(src, &syms[i]); cleanCut(src, start, end) {
			work += min(end-start, streamCutBytes)
		}
		if work >= len(src) {
			return true
		}
	}
	return false
}

// leafKeys names each symbol uniquely within its file and hashes its
// content: the qualified name, the kind and the body with whitespace runs
// folded, so that re-indenting or moving a symbol does not change it.
func leafKeys(syms []parse.Symbol, src []byte) ([]string, []uint64) {
	keys := make([]string, len(syms))
	hashes := make([]uint64, len(syms))
	seen := make(map[string]int, len(syms))
	var h xxhash.Digest
	for i := range syms {
		s := &syms[i]
		key := s.Kind.String() + " " + s.Qualified
		if n := seen[key]; n > 0 {
			seen[key] = n + 1
			key = fmt.Sprintf("%s#%d", key, n+1)
		} else {
			seen[key] = 1
		}
		keys[i] = key
		h.Reset()
		h.WriteString(key)
		h.Write([]byte{0})
		writeFolded(&h, body(src, s))
		hashes[i] = h.Sum64()
	}
	return keys, hashes
}

// writeFolded writes b with every run of white space folded to one space.
func writeFolded(h *xxhash.Digest, b []byte) {
	start, space := 0, false
	for i, c := range b {
		isSpace := c == ' ' || c == '\t' || c == '\n' || c == '\r'
		if isSpace && !space {
			h.Write(b[start:i])
			h.Write([]byte{' '})
		}
		if !isSpace && space {
			start = i
		}
		space = isSpace
	}
	if !space {
		h.Write(b[start:])
	}
}

func body(src []byte, s *parse.Symbol) []byte {
	start, end := bodyRange(src, s)
	return src[start:end]
}

// bodyRange is where body(src, s) is in src.
func bodyRange(src []byte, s *parse.Symbol) (start, end int) {
	start, end = int(s.StartByte), int(s.EndByte)
	if end > len(src) {
		end = len(src)
	}
	if start > end {
		start = end
	}
	return start, end
}

// maxEmbedBody bounds how much of a symbol's body goes into its vector.
const maxEmbedBody = 600

// symbolFields are the texts of a symbol's lexical fields.
func symbolFields(pathText string, s *parse.Symbol, src []byte) [NumFields]string {
	var f [NumFields]string
	f[FieldName] = s.Qualified
	if s.Name != "" && !strings.HasSuffix(s.Qualified, s.Name) {
		f[FieldName] += " " + s.Name
	}
	f[FieldPath] = pathText
	f[FieldDoc] = s.Signature + "\n" + s.Doc
	f[FieldBody] = bytesString(body(src, s)) // read only while TokenizeDoc runs
	return f
}

// embedText is what a symbol's vector is computed from: where it is, what it
// is called, how it is declared and documented, and the head of its body.
func embedText(pathText string, s *parse.Symbol, src []byte) string {
	b := body(src, s)
	if len(b) > maxEmbedBody {
		b = b[:maxEmbedBody]
	}
	var sb strings.Builder
	sb.Grow(len(pathText) + len(s.Qualified) + len(s.Signature) + len(s.Doc) + len(b) + 4)
	sb.WriteString(pathText)
	sb.WriteByte('\n')
	sb.WriteString(s.Qualified)
	sb.WriteByte('\n')
	sb.WriteString(s.Signature)
	sb.WriteByte('\n')
	sb.WriteString(s.Doc)
	sb.WriteByte('\n')
	sb.Write(b)
	return sb.String()
}

// pathText is the searchable text of a path: its directories and its base
// name without the extension.
func pathText(relPath string) string {
	dir, base := path.Split(relPath)
	if ext := path.Ext(base); ext != "" && ext != base {
		base = strings.TrimSuffix(base, ext)
	}
	return strings.ReplaceAll(dir, "/", " ") + base
}

// Put replaces the file d.Path with d. Symbols whose leaf hash did not change
// keep their slot, terms and vector (their range is updated: an edit above
// moves them); only new and changed symbols are tokenized into the lexical
// index and take the vectors Prepare computed. It returns the slots of the
// symbols that were added or changed.
func (ix *Index) Put(d *FileDoc) []uint32 {
	ix.writing()
	ix.gen++
	fslot, exists, old := ix.putFile(d.Path)
	fromBase := exists && ix.fileTab[fslot].fromBase

	dim := ix.emb.Dim()
	sum := make([]float32, dim)
	slots := make([]uint32, len(d.Parsed.Symbols))
	leaves := make([]merkle.Leaf, len(d.Parsed.Symbols))
	var fresh []uint32
	var vbuf []float32
	for i := range d.Parsed.Symbols {
		sym := d.Parsed.Symbols[i]
		key, h := d.Keys[i], d.Hashes[i]
		leaves[i] = merkle.Leaf{Key: key, Hash: h}
		if s, ok := old[key]; ok && ix.LeafHash(s) == h {
			delete(old, key)
			e := ix.own(s)
			e.Sym = sym
			slots[i] = s
			vbuf = ix.vecs.Get(s, vbuf[:0])
			addTo(sum, vbuf)
			continue
		}
		d.complete(i)
		if s, ok := old[key]; ok {
			// Same symbol, new content: reuse the slot, refresh everything.
			delete(old, key)
			ix.dropSymbol(s)
			ix.fillSymbol(s, fslot, sym, key, h, d.NameSigs[i], d.SymTerms[i], d.Vecs[i])
			slots[i] = s
		} else {
			s := ix.allocSym()
			ix.fillSymbol(s, fslot, sym, key, h, d.NameSigs[i], d.SymTerms[i], d.Vecs[i])
			slots[i] = s
		}
		addTo(sum, d.Vecs[i])
		fresh = append(fresh, slots[i])
	}
	ix.symFile = cowOwn(ix.symFile, &ix.st.symFile, ix.epoch)
	// Freed in slot order, not the map's: the free list decides the slots
	// the next symbols take, and a replay of the same edits must give
	// them the same ones.
	for _, s := range slices.Sorted(maps.Values(old)) {
		ix.dropSymbol(s)
		ix.symFile[s] = noFile
		ix.freeSym = append(ix.freeSym, s)
		ix.nsyms--
	}
	if exists && !ix.fileTab[fslot].loaded {
		// (A loaded file's references are in its segment's table, where
		// they stop counting once the file is put.)
		ix.unref(fslot, ix.FileRefs(fslot))
	}
	ix.addRefs(fslot, d.Parsed.Refs)
	ix.fileTab = cowOwn(ix.fileTab, &ix.st.fileTab, ix.epoch)
	ix.fileTab[fslot] = fileEntry{
		Path:     d.Path,
		Language: d.Parsed.Language,
		Category: heuristics.CategoryOf(d.Path, d.Parsed.Language),
		Hash:     d.Hash,
		Size:     d.Size,
		ModTime:  d.ModTime,
		Ino:      d.Ino,
		Slots:    slots,
		Refs:     d.Parsed.Refs,
		Sum:      sum,
		fromBase: fromBase,
	}
	ix.flex.addTokenized(fslot, d.FileTerms)
	ix.stage(merkle.Update{Path: d.Path, Leaves: leaves, Sum: sum, SharedSum: true, ID: fslot}) // sum is never modified
	ix.Reembedded += len(fresh)
	return fresh
}

// putFile is the file slot of rel for Put, allocated if the file is new,
// and the slots its symbols held by leaf key (for reuse; nil for a new
// file).
func (ix *Index) putFile(rel string) (fslot uint32, exists bool, old map[string]uint32) {
	fslot, exists = ix.FileSlot(rel)
	if !exists || ix.fileTab[fslot].loaded {
		ix.overlay++
	}
	if exists {
		fe := &ix.fileTab[fslot]
		old = make(map[string]uint32, len(fe.Slots))
		for _, s := range fe.Slots {
			old[ix.LeafKey(s)] = s
		}
		ix.flex.Remove(fslot)
		return fslot, true, old
	}
	fslot = ix.allocFile()
	ix.nfiles++
	ix.files.set(rel, fslot, ix.epoch)
	b := path.Base(rel)
	ix.byBase.set(b, append(ix.byBase.at(b), fslot), ix.epoch)
	return fslot, false, nil
}

// complete tokenizes and embeds symbol i if Prepare skipped it as known
// but the index no longer holds it unchanged.
func (d *FileDoc) complete(i int) {
	if d.Vecs[i] != nil {
		return
	}
	sym := &d.Parsed.Symbols[i]
	pt := pathText(d.Path)
	d.SymTerms[i] = TokenizeDoc(symbolFields(pt, sym, d.src))
	d.NameSigs[i] = NameSig(sym.Name)
	if d.emb != nil {
		if vecs, err := d.emb.Embed([]string{embedText(pt, sym, d.src)}); err == nil && len(vecs) == 1 {
			d.Vecs[i] = vecs[0]
		}
	}
	if d.Vecs[i] == nil {
		d.Vecs[i] = make([]float32, d.dim())
	}
}

func (d *FileDoc) dim() int {
	if d.emb == nil {
		return 0
	}
	return d.emb.Dim()
}

// Has reports whether the index holds a leaf with this key and hash in the
// file relPath: the Known of an edit to that file.
func (ix *Index) Has(relPath, key string, hash uint64) bool {
	f, ok := ix.FileSlot(relPath)
	if !ok {
		return false
	}
	for _, s := range ix.fileTab[f].Slots {
		if ix.LeafKey(s) == key {
			return ix.LeafHash(s) == hash
		}
	}
	return false
}

func addTo(sum, v []float32) {
	if len(v) != len(sum) {
		return
	}
	for i, x := range v {
		sum[i] += x
	}
}

func (ix *Index) fillSymbol(s, fslot uint32, sym parse.Symbol, key string, h, nameSig uint64, terms DocTerms, vec []float32) {
	*ix.own(s) = symEntry{Sym: sym, Key: key, Hash: h, NameSig: nameSig}
	ix.symFile = cowOwn(ix.symFile, &ix.st.symFile, ix.epoch)
	ix.symFile[s] = fslot
	ix.lex.addTokenized(s, terms)
	ix.vecs.Set(s, vec)
	name := strings.ToLower(sym.Name)
	ix.names.set(name, append(ix.names.at(name), s), ix.epoch)
	if q := strings.ToLower(sym.Qualified); q != name {
		ix.names.set(q, append(ix.names.at(q), s), ix.epoch)
	}
}

// dropSymbol removes slot s from the lexical index, the vectors and the name
// table. The slot itself stays allocated.
func (ix *Index) dropSymbol(s uint32) {
	sym := ix.sym(s)
	ix.lex.Remove(s)
	ix.vecs.Clear(s)
	if int(s) < len(ix.symNamed) && ix.symNamed[s] {
		// Named by its segment's table: it no longer counts there.
		ix.symNamed = cowOwn(ix.symNamed, &ix.st.symNamed, ix.epoch)
		ix.symNamed[s] = false
		return
	}
	ix.unname(strings.ToLower(sym.Name), s)
	ix.unname(strings.ToLower(sym.Qualified), s)
}

func (ix *Index) unname(name string, s uint32) {
	list := ix.names.at(name)
	if i := slices.Index(list, s); i >= 0 {
		list = slices.Concat(list[:i], list[i+1:]) // a copy: list may be shared
	}
	if len(list) == 0 {
		ix.names.del(name, ix.epoch)
	} else {
		ix.names.set(name, list, ix.epoch)
	}
}

func (ix *Index) allocSym() uint32 {
	ix.nsyms++
	if n := len(ix.freeSym); n > 0 {
		s := ix.freeSym[n-1]
		ix.freeSym = ix.freeSym[:n-1]
		return s
	}
	ix.symFile = append(ix.symFile, noFile)
	ix.symAt = append(ix.symAt, 0)
	return uint32(len(ix.symFile) - 1)
}

func (ix *Index) allocFile() uint32 {
	if n := len(ix.freeFile); n > 0 {
		s := ix.freeFile[n-1]
		ix.freeFile = ix.freeFile[:n-1]
		return s
	}
	ix.fileTab = append(ix.fileTab, fileEntry{})
	return uint32(len(ix.fileTab) - 1)
}

// Remove deletes a file and its symbols from the index. It reports whether
// the file was there.
func (ix *Index) Remove(relPath string) bool {
	fslot, ok := ix.FileSlot(relPath)
	if !ok {
		return false
	}
	ix.writing()
	ix.gen++
	ix.fileTab = cowOwn(ix.fileTab, &ix.st.fileTab, ix.epoch)
	ix.symFile = cowOwn(ix.symFile, &ix.st.symFile, ix.epoch)
	fe := &ix.fileTab[fslot]
	if fe.loaded {
		ix.overlay++
	}
	for _, s := range fe.Slots {
		ix.dropSymbol(s)
		ix.symFile[s] = noFile
		ix.freeSym = append(ix.freeSym, s)
		ix.nsyms--
	}
	ix.flex.Remove(fslot)
	if !fe.loaded {
		ix.unref(fslot, ix.FileRefs(fslot))
	}
	if !fe.fromBase {
		b := path.Base(relPath)
		if list := removeSlotCopy(ix.byBase.at(b), fslot); len(list) == 0 {
			ix.byBase.del(b, ix.epoch)
		} else {
			ix.byBase.set(b, list, ix.epoch)
		}
		ix.files.del(relPath, ix.epoch)
	}
	*fe = fileEntry{}
	ix.freeFile = append(ix.freeFile, fslot)
	ix.nfiles--
	ix.stage(merkle.Update{Path: relPath, Remove: true})
	return true
}

// FileState is what the index knows of a file, for deciding whether it must
// be re-read.
type FileState struct {
	Hash    uint64
	Size    int64
	ModTime int64
	Ino     uint64 // 0: unknown
}

// State returns the indexed state of a file.
func (ix *Index) State(relPath string) (FileState, bool) {
	fslot, ok := ix.FileSlot(relPath)
	if !ok {
		return FileState{}, false
	}
	fe := &ix.fileTab[fslot]
	return FileState{Hash: fe.Hash, Size: fe.Size, ModTime: fe.ModTime, Ino: fe.Ino}, true
}

// EachPath calls fn with every indexed file path and its slot, in no
// particular order, until fn returns false.
func (ix *Index) EachPath(fn func(relPath string, slot uint32) bool) {
	for f := range ix.fileTab {
		if p := ix.fileTab[f].Path; p != "" && !fn(p, uint32(f)) {
			return
		}
	}
}

// Paths returns the indexed file paths, sorted.
func (ix *Index) Paths() []string {
	out := make([]string, 0, ix.nfiles)
	ix.EachPath(func(p string, _ uint32) bool {
		out = append(out, p)
		return true
	})
	sort.Strings(out)
	return out
}

// filesByPath returns the slots of the indexed files, in path order.
func (ix *Index) filesByPath() []uint32 {
	out := make([]uint32, 0, ix.nfiles)
	ix.EachPath(func(_ string, f uint32) bool {
		out = append(out, f)
		return true
	})
	slices.SortFunc(out, ix.fileOrder)
	return out
}

// SymbolRef is a read-only view of one indexed symbol.
type SymbolRef struct {
	Slot     uint32
	File     uint32
	Path     string
	Language string
	Category heuristics.Category // the file's
	parse.Symbol
}

// Symbol returns the symbol in slot s. ok is false for a free slot.
func (ix *Index) Symbol(s uint32) (SymbolRef, bool) {
	if int(s) >= len(ix.symFile) || ix.symFile[s] == noFile {
		return SymbolRef{}, false
	}
	f := ix.symFile[s]
	fe := &ix.fileTab[f]
	return SymbolRef{Slot: s, File: f, Path: fe.Path, Language: fe.Language, Category: fe.Category, Symbol: ix.sym(s)}, true
}

// SymbolFile returns the file slot of the symbol in slot s without
// reading its record. ok is false for a free slot.
func (ix *Index) SymbolFile(s uint32) (uint32, bool) {
	if int(s) >= len(ix.symFile) || ix.symFile[s] == noFile {
		return 0, false
	}
	return ix.symFile[s], true
}

// LeafKey returns the key of the symbol in slot s, unique within its file
// and stable across edits that do not rename it.
func (ix *Index) LeafKey(s uint32) string {
	if a := ix.symAt[s]; a != 0 {
		return ix.syms.ref(a - 1).Key
	}
	v, r := ix.record(s)
	return v.str(r.Key)
}

// LeafHash returns the content hash of the symbol in slot s.
func (ix *Index) LeafHash(s uint32) uint64 {
	if a := ix.symAt[s]; a != 0 {
		return ix.syms.ref(a - 1).Hash
	}
	_, r := ix.record(s)
	return r.Hash
}

// FileSlot returns the slot of an indexed file: among the files put since
// the load, then in the segments it was loaded from.
func (ix *Index) FileSlot(relPath string) (uint32, bool) {
	if f, ok := ix.files.get(relPath); ok || ix.base == nil {
		return f, ok
	}
	// The segments hold runs of paths in order: the last one whose first
	// path is not after relPath.
	i := sort.Search(len(ix.base), func(i int) bool { v := ix.base[i]; return v.str(v.files[0].Path) > relPath }) - 1
	if i < 0 {
		return 0, false
	}
	v := ix.base[i]
	j, ok := sort.Find(len(v.files), func(j int) int { return strings.Compare(relPath, v.str(v.files[j].Path)) })
	if !ok {
		return 0, false
	}
	f := v.e.FileBase + uint32(j)
	if !ix.fileTab[f].fromBase {
		return 0, false
	}
	return f, true
}

// fromTables returns the slots of key k in table t of the segments the
// index was loaded from that keep, in that order, followed by extra (the
// changes since, from the index's maps). It allocates once when a
// segment holds k (for up to 16 segments that do; more grow the answer).
func (ix *Index) fromTables(t int, k string, keep func(slot uint32) bool, extra []uint32) []uint32 {
	var buf [16][]uint32
	lists, n := buf[:0], len(extra)
	for _, v := range ix.base {
		if b := tableBody[t]; b >= 0 && !v.gates[b].open() {
			continue
		}
		if l := v.tabs[t].lookup(v.strs, k); len(l) > 0 {
			lists = append(lists, l)
			n += len(l)
		}
	}
	if len(lists) == 0 {
		return extra
	}
	out := make([]uint32, 0, n)
	for _, l := range lists {
		for _, s := range l {
			if keep(s) {
				out = append(out, s)
			}
		}
	}
	if len(out) == 0 {
		return extra
	}
	return append(out, extra...)
}

// FilePath returns the path of the file in slot f.
func (ix *Index) FilePath(f uint32) string { return ix.fileTab[f].Path }

// FileSymbols returns the symbol slots of the file in slot f, in source order.
func (ix *Index) FileSymbols(f uint32) []uint32 { return ix.fileTab[f].Slots }

// FileRefs returns the identifiers the file in slot f references.
func (ix *Index) FileRefs(f uint32) []string {
	fe := &ix.fileTab[f]
	if fe.mapped == nil {
		return fe.Refs
	}
	if !fe.gate.open() {
		return nil
	}
	refs := make([]string, len(fe.mapped))
	for i, r := range fe.mapped {
		refs[i] = mappedStr(fe.strs, r.Ref)
	}
	return refs
}

// FileLanguage returns the language of the file in slot f.
func (ix *Index) FileLanguage(f uint32) string { return ix.fileTab[f].Language }

// FileSize returns the size in bytes of the file in slot f, as indexed.
func (ix *Index) FileSize(f uint32) int64 { return ix.fileTab[f].Size }

// FileCategory returns the category of the file in slot f (test, docs,
// config), computed when the file was indexed or loaded.
func (ix *Index) FileCategory(f uint32) heuristics.Category { return ix.fileTab[f].Category }

// Named returns the slots of symbols whose name or qualified name equals
// name, case-insensitively.
func (ix *Index) Named(name string) []uint32 {
	k := strings.ToLower(name)
	return ix.fromTables(tabNames, k, func(s uint32) bool { return ix.symNamed[s] }, ix.names.at(k))
}

// SearchSymbols ranks symbols by BM25F; equal scores by path and position
// (SymbolOrder), decided as the search keeps its k (a slot depends on the
// order files were indexed and updated in, and the k kept of many equal
// scores must not).
func (ix *Index) SearchSymbols(q []QueryTerm, k int, filter func(uint32) bool, buf *SearchBuffer) []Hit {
	return ix.lex.search(q, k, filter, buf, ix.SymbolOrder)
}

// SearchFiles ranks whole files by BM25 over their path and content; equal
// scores by path (fileOrder). Hit.Doc is a file slot.
func (ix *Index) SearchFiles(q []QueryTerm, k int, filter func(uint32) bool, buf *SearchBuffer) []Hit {
	return ix.flex.search(q, k, filter, buf, ix.fileOrder)
}

// SymbolOrder orders the symbols in slots a and b as searches give equal
// scores, and as the pipeline ranks its ties: by place (PlaceOrder), then
// qualified name, then slot. It reads a symbol's place and qualified name
// only, not its whole record.
func (ix *Index) SymbolOrder(a, b uint32) int {
	// Symbols of two files: their paths decide, without reading where
	// the symbols are (most ties a search meets).
	if fa, ok := ix.SymbolFile(a); ok {
		if fb, ok := ix.SymbolFile(b); ok && fa != fb {
			if c := strings.Compare(ix.fileTab[fa].Path, ix.fileTab[fb].Path); c != 0 {
				return c
			}
		}
	}
	ka, kb := ix.orderKey(a), ix.orderKey(b)
	if c := PlaceOrder(ka.path, ka.start, ka.end, kb.path, kb.start, kb.end); c != 0 {
		return c
	}
	if c := strings.Compare(ix.qualified(a), ix.qualified(b)); c != 0 {
		return c
	}
	return cmp.Compare(a, b)
}

// PlaceOrder is the order of symbols' places that ties between equal
// scores are broken by, here and in the pipeline: by path, then by start,
// the container (the one ending later) before what it holds. 0 means the
// same place, left to a key of the caller's (SymbolOrder: the qualified
// name). A slot depends on the order files were indexed and updated in,
// so ties broken by it would give one workspace different answers.
func PlaceOrder(pathA string, startA, endA uint32, pathB string, startB, endB uint32) int {
	if c := strings.Compare(pathA, pathB); c != 0 {
		return c
	}
	if c := cmp.Compare(startA, startB); c != 0 {
		return c
	}
	return cmp.Compare(endB, endA)
}

// symKey is what SymbolOrder reads of a symbol before its qualified name:
// its file's path and its bytes (all zero for a free slot).
type symKey struct {
	path       string
	start, end uint32
}

// orderKey returns the path and bytes of the symbol in slot s without
// building its parse.Symbol.
func (ix *Index) orderKey(s uint32) symKey {
	f, ok := ix.SymbolFile(s)
	if !ok {
		return symKey{}
	}
	path := ix.fileTab[f].Path
	if a := ix.symAt[s]; a != 0 {
		sym := &ix.syms.ref(a - 1).Sym
		return symKey{path, sym.StartByte, sym.EndByte}
	}
	_, r := ix.record(s)
	return symKey{path, r.StartByte, r.EndByte}
}

// qualified returns the qualified name of the symbol in slot s ("" for a
// free slot).
func (ix *Index) qualified(s uint32) string {
	if _, ok := ix.SymbolFile(s); !ok {
		return ""
	}
	if a := ix.symAt[s]; a != 0 {
		return ix.syms.ref(a - 1).Sym.Qualified
	}
	v, r := ix.record(s)
	return v.str(r.Qual)
}

// fileOrder orders files by path.
func (ix *Index) fileOrder(a, b uint32) int {
	if c := strings.Compare(ix.FilePath(a), ix.FilePath(b)); c != 0 {
		return c
	}
	return cmp.Compare(a, b)
}

// Vectors returns the symbol vector store.
func (ix *Index) Vectors() *VectorStore { return ix.vecs }

// semanticPruneFiles is the workspace size above which a semantic search
// scores only the symbols of the files the Merkle tree's aggregate vectors
// point at.
const semanticPruneFiles = 2000

// semanticMinFiles is the least number of files a pruned semantic search
// scores; above it, one file in twenty.
const semanticMinFiles = 300

// SearchVectors ranks symbols by cosine similarity with qv. On large
// workspaces it first descends the Merkle tree to the most promising files.
// Equal scores by path and position (SymbolOrder), as SearchSymbols.
func (ix *Index) SearchVectors(qv []float32, k int, filter func(uint32) bool, dst []ScoredSlot) []ScoredSlot {
	var slots []uint32
	if ix.nfiles > semanticPruneFiles {
		maxFiles := max(semanticMinFiles, ix.nfiles/20)
		fslots, err := ix.descendSlots(qv, maxFiles)
		if err != nil {
			return dst[:0]
		}
		// In slot order (files of a folder the descent chose are then
		// next to each other, and so are their vectors in a loaded
		// index): the store reads runs of rows at once, and the result
		// does not depend on the order.
		slices.Sort(fslots)
		for _, f := range fslots {
			slots = append(slots, ix.fileTab[f].Slots...)
		}
		if len(slots) == 0 {
			return dst[:0]
		}
	} else {
		slots = make([]uint32, 0, ix.nsyms)
		for s, f := range ix.symFile {
			if f != noFile {
				slots = append(slots, uint32(s))
			}
		}
	}
	if filter != nil {
		n := 0
		for _, s := range slots {
			if filter(s) {
				slots[n] = s
				n++
			}
		}
		slots = slots[:n]
	}
	return ix.vecs.topK(qv, slots, k, dst, ix.SymbolOrder)
}

// descendSlots are the slots of the files the Merkle tree's descent
// chooses for qv. Each file of the tree carries its slot (merkle.Update.ID,
// set wherever the index stages or loads a file), so no path is looked up;
// while updates wait for a batch's end, or after the tree refused one, the
// tree may name files the index has dropped or moved, and the paths are
// looked up instead.
func (ix *Index) descendSlots(qv []float32, maxFiles int) ([]uint32, error) {
	// Only fields a frozen copy holds by value are read here: pending is
	// shared with the live index, which writes it while readers search.
	if !ix.batch && ix.treeErr == nil {
		return ix.tree.DescendIDs(qv, maxFiles, 8, make([]uint32, 0, maxFiles))
	}
	paths, err := ix.tree.Descend(qv, maxFiles, 8)
	if err != nil {
		return nil, err
	}
	fslots := make([]uint32, 0, len(paths))
	for _, p := range paths {
		if f, ok := ix.FileSlot(p); ok {
			fslots = append(fslots, f)
		}
	}
	return fslots, nil
}

// Touch records new stat data for a file whose content did not change, so
// the next start can skip reading it.
func (ix *Index) Touch(relPath string, size, modTime int64, ino uint64) {
	if f, ok := ix.FileSlot(relPath); ok {
		ix.writing()
		ix.gen++
		ix.fileTab = cowOwn(ix.fileTab, &ix.st.fileTab, ix.epoch)
		ix.fileTab[f].Size = size
		ix.fileTab[f].ModTime = modTime
		ix.fileTab[f].Ino = ino
	}
}

// BeginBatch defers Merkle tree updates until EndBatch, so that indexing
// many files updates each folder of the tree once instead of once per file.
func (ix *Index) BeginBatch() { ix.batch = true }

// EndBatch applies the tree updates staged since BeginBatch.
func (ix *Index) EndBatch() error {
	ix.batch = false
	return ix.flush()
}

// Compact releases the spare capacity a bulk build leaves behind; call it
// once after indexing many files.
func (ix *Index) Compact() {
	ix.writing()
	ix.lex.Compact()
	ix.flex.Compact()
}

func (ix *Index) stage(u merkle.Update) {
	if ix.pending == nil {
		ix.pending = make(map[string]merkle.Update)
	}
	ix.pending[u.Path] = u
	if !ix.batch {
		// The tree rejects only malformed paths and vectors, which the
		// index never produces; flush records the error in treeErr and
		// the index stays usable.
		_ = ix.flush()
	}
}

func (ix *Index) flush() error {
	if len(ix.pending) == 0 {
		return nil
	}
	ups := make([]merkle.Update, 0, len(ix.pending))
	for _, u := range ix.pending {
		ups = append(ups, u)
	}
	sort.Slice(ups, func(i, j int) bool { return ups[i].Path < ups[j].Path })
	clear(ix.pending)
	t, err := ix.tree.Apply(ups)
	if err != nil {
		ix.treeErr = err // the tree misses these updates (descendSlots)
		return fmt.Errorf("merkle: %w", err)
	}
	ix.tree = t
	return nil
}

func (ix *Index) addRefs(fslot uint32, refs []string) {
	for _, r := range refs {
		k := strings.ToLower(r)
		ix.refsBy.set(k, append(ix.refsBy.at(k), fslot), ix.epoch)
	}
}

func (ix *Index) unref(fslot uint32, refs []string) {
	for _, r := range refs {
		k := strings.ToLower(r)
		list := removeSlotCopy(ix.refsBy.at(k), fslot)
		if len(list) == 0 {
			ix.refsBy.del(k, ix.epoch)
		} else {
			ix.refsBy.set(k, list, ix.epoch)
		}
	}
}

// Referencing returns the slots of the files that reference name
// (case-insensitively).
func (ix *Index) Referencing(name string) []uint32 {
	k := strings.ToLower(name)
	return ix.fromTables(tabRefsBy, k, func(f uint32) bool { return ix.fileTab[f].loaded }, ix.refsBy.at(k))
}

// TermIDF is the inverse document frequency of a normalized term among
// the symbols, as Search weighs it; a term no symbol holds counts as the
// rarest term can.
func (ix *Index) TermIDF(term string) float32 {
	if idf := ix.lex.IDF(term); idf > 0 {
		return idf
	}
	return lexIDF(ix.lex.Len(), 0)
}

// FilesNamed returns the slots of the files whose base name is base.
func (ix *Index) FilesNamed(base string) []uint32 {
	return ix.fromTables(tabBases, base, func(f uint32) bool { return ix.fileTab[f].fromBase }, ix.byBase.at(base))
}

// Corrupt returns the first damaged segment body the index has come
// across (wrapping ErrCorruptSegment), or nil. The index goes on serving
// without that segment's postings, vectors and text; it should be built
// again from the files.
func (ix *Index) Corrupt() error {
	ix.lazy.mu.Lock()
	defer ix.lazy.mu.Unlock()
	if ix.lazy.err == nil {
		return nil
	}
	return fmt.Errorf("%w: %w", ErrCorruptSegment, ix.lazy.err)
}

// OnCorrupt sets fn to be called, once and on the goroutine that came
// across it, with the first damaged segment body: at once if one was
// found already. fn must not call into the index (its caller may hold
// the index's lock).
func (ix *Index) OnCorrupt(fn func(error)) {
	ix.lazy.mu.Lock()
	ix.lazy.onCorrupt = fn
	err := ix.lazy.err
	ix.lazy.mu.Unlock()
	if err != nil && fn != nil {
		fn(fmt.Errorf("%w: %w", ErrCorruptSegment, err))
	}
}

// VerifyAll checks every part of a segment body not checked yet, as
// requests would (a background pass, or a test), and returns Corrupt.
func (ix *Index) VerifyAll() error {
	for _, g := range ix.lazy.gates {
		g.open()
	}
	return ix.Corrupt()
}

// NameSig is the name signature of the symbol in slot s: never 0, which
// callers keep for a candidate with no symbol's name (its name is read).
func (ix *Index) NameSig(s uint32) uint64 {
	if a := ix.symAt[s]; a != 0 {
		return ix.syms.ref(a - 1).NameSig
	}
	_, r := ix.record(s)
	return r.nameSig()
}

// Name signatures. Every request weighs how strongly it names each of a
// few hundred candidates (workspace/pipeline, the strong match), and most
// candidates' names hold none of its words: tokenizing each name to find
// that out was most of the match's cost. A symbol's name signature, made
// when the symbol is indexed and kept in its cache record, is a Bloom
// filter of its name's index terms (tokenize.ModeDoc): a name whose
// signature lacks the bits of every word of the request holds none of
// them, without being read. A signature never says no to a term the name
// holds; a yes may be wrong, and the name is then tokenized as before.

// TermBits are the bits term sets in a name signature: two of the 55
// below the mark (one when the two fall together).
func TermBits(term []byte) uint64 {
	h := xxhash.Sum64(term)
	const n = NameSigBits - 1
	return 1<<(h%n) | 1<<((h>>32)%n)
}

// NameSig is the signature of name: the bits of each of its index terms
// and the mark.
func NameSig(name string) uint64 {
	var sc tokenize.Scratch
	sig := uint64(nameSigMark)
	sc.Run(name, tokenize.ModeDoc, func(t []byte) bool {
		sig |= TermBits(t)
		return true
	})
	return sig
}

// nameFrom makes the next fields call sign the name held at the end of
// field, the name field's text, if the name can be told apart there: its
// signature is then nameSig's after that call. It returns false when the
// name's terms are not its own there (a suffix of a longer identifier):
// the caller signs it alone.
func (s *docScratch) nameFrom(field, name string) bool {
	s.sigFrom = -1
	at := len(field) - len(name)
	if name == "" || at < 0 || field[at:] != name {
		return false
	}
	if !tokenize.IdentBoundary(field, at) {
		return false
	}
	if s.emitAt == nil {
		s.emitAt = s.addName
	}
	s.sigFrom, s.sig = at, nameSigMark
	return true
}

// nameSig is the signature nameFrom asked for, and stops asking.
func (s *docScratch) nameSig() uint64 {
	s.sigFrom = -1
	return s.sig
}

// addName is add for the name field, signing the name's terms.
func (s *docScratch) addName(b []byte, at int) bool {
	if at >= s.sigFrom {
		s.sig |= TermBits(b)
	}
	return s.add(b)
}

// nameSig is the record's signature.
func (r *segSym) nameSig() uint64 {
	var v uint64
	for i, b := range r.NameSig {
		v |= uint64(b) << (8 * i)
	}
	return v
}

// putNameSig writes sig into the record.
func (r *segSym) putNameSig(sig uint64) {
	for i := range r.NameSig {
		r.NameSig[i] = byte(sig >> (8 * i))
	}
}
