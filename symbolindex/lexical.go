package symbolindex

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/ctxls/ctxls/symbolindex/tokenize"
)

// Field is a part of a lexical document that is weighted and
// length-normalized on its own (BM25F).
type Field uint8

// The fields of a symbol document.
const (
	FieldName Field = iota // short and qualified name
	FieldPath              // workspace-relative path of the file
	FieldDoc               // signature and doc comment
	FieldBody              // the text of the definition
	NumFields              // number of fields
)

// lexMaxBodyTerms caps the terms indexed from a body: long bodies add little
// but postings.
const lexMaxBodyTerms = 4000

// lexMaxDocs bounds document ids, which index dense per-document arrays.
const lexMaxDocs = 1 << 26

// LexicalParams are the BM25F parameters: K1 saturates term frequency, and
// per field B is the strength of length normalization (0 none, 1 full) and
// Weight the importance of a match in that field.
type LexicalParams struct {
	K1     float32
	B      [NumFields]float32
	Weight [NumFields]float32
}

// DefaultSymbolParams returns the parameters for symbol documents.
//
// K1 = 1.2 is the usual BM25 value (zoekt uses it too). Weights: a match in
// the name is the strongest evidence that a symbol is what the query is
// about (3); the path and the signature + doc comment describe it almost as
// directly (1.5); a body mention is the weakest (1). Length normalization
// grows with how much a field's length says about topicality: names are a
// few terms whatever the symbol, so a longer name is barely diluted (B 0.3);
// paths vary a little (0.5); doc comments vary more and long ones wander
// (0.6); bodies range from one line to hundreds and get the standard 0.75.
func DefaultSymbolParams() LexicalParams {
	return LexicalParams{
		K1:     1.2,
		B:      [NumFields]float32{FieldName: 0.3, FieldPath: 0.5, FieldDoc: 0.6, FieldBody: 0.75},
		Weight: [NumFields]float32{FieldName: 3, FieldPath: 1.5, FieldDoc: 1.5, FieldBody: 1},
	}
}

// Validate reports the first parameter out of range: K1 must be positive and
// finite, each B in [0,1], each Weight finite and not negative.
func (p LexicalParams) Validate() error {
	if !lexValidK1(p.K1) {
		return fmt.Errorf("lexical params: K1 = %v, want a positive finite number", p.K1)
	}
	for f := range NumFields {
		if !lexValidB(p.B[f]) {
			return fmt.Errorf("lexical params: B[%d] = %v, want a value in [0,1]", f, p.B[f])
		}
		if !lexValidWeight(p.Weight[f]) {
			return fmt.Errorf("lexical params: Weight[%d] = %v, want a finite number >= 0", f, p.Weight[f])
		}
	}
	return nil
}

func lexValidK1(k1 float32) bool { return k1 > 0 && !math.IsInf(float64(k1), 1) }
func lexValidB(b float32) bool   { return b >= 0 && b <= 1 }
func lexValidWeight(w float32) bool {
	return w >= 0 && !math.IsInf(float64(w), 1)
}

// lexHeap holds the postings of one term: the documents holding it,
// sorted by doc id, with the term's frequency per field packed as four
// saturating 8-bit counters (field f in bits 8f..8f+7): 8 bytes per
// posting.
// They are kept in Lexical.heap, apart from the per-term record below, so
// that a loaded index, whose postings are mostly in its mapped segments,
// spends 16 bytes a term on them.
type lexHeap struct {
	docs  []uint32
	tfs   []uint32
	stamp uint64 // the writer's epoch docs and tfs were copied in (cow.go)
}

// lexPostings is where a term's postings are: heap[h-1] (documents added
// since the load; h 0: none) and parts[first:first+nparts] (runs in mapped
// segments), nbase of whose documents are still live.
type lexPostings struct {
	h, first, nparts, nbase uint32
}

// lexAcc is one distinct term of the document being added.
type lexAcc struct {
	term uint32
	tfs  uint32
}

// Lexical is a BM25F index over documents with NumFields fields, identified
// by caller-chosen uint32 ids (slots) that may be reused after Remove.
//
// Lexical is not safe for concurrent use: writes (Add, AddTerms, Remove)
// must be serialized by the caller and exclude every other call, except on
// a frozen copy (freeze, cow.go), which writes leave unchanged. Reads
// (Search, IDF, Export, Len, Has) may run concurrently with each other when
// each Search has its own SearchBuffer.
type Lexical struct {
	p LexicalParams

	dict cowMap[uint32] // term → term id, but for baseTerms
	// baseTerms are the terms of the mapped segments, sorted: term id i
	// is baseTerms[i] while strs[i] still is (termID). Never changed.
	baseTerms []string
	post      cowArr[lexPostings] // by term id
	strs      cowArr[string]      // by term id; "" marks a free id
	free      []uint32            // term ids whose postings emptied, for reuse

	docTerms [][]uint32          // by doc added in memory: its distinct term ids
	lens     [][NumFields]uint16 // by doc: terms per field, saturating
	live     []bool              // by doc
	n        int                 // live documents
	sum      [NumFields]uint64   // total field lengths of live documents

	mode tokenize.Mode // tokenize.ModeDoc; tokenize.ModeDocAll only to measure the stop list

	// Scratch for adding one document.
	tok      tokenize.Scratch
	mark     []uint32 // by term id: 1 + index into acc, 0 when not seen
	acc      []lexAcc
	addField Field
	addCount int
	addEmit  func(term []byte) bool

	// For AddTerms' check of repeated terms: seenAt[id] == epoch marks a
	// term id seen in the document being checked.
	seenAt []uint32
	epoch  uint32

	heap     cowArr[lexHeap] // postings added in memory, by lexPostings.h-1
	freeHeap []uint32        // heap entries free for reuse

	// Mapped segments (see lexbase.go). inBase[doc] says doc's current
	// content is the one its segment holds; ndead counts the documents of
	// segments removed since, whose postings Search must skip.
	segs   []lexSeg
	parts  []lexPart // by term: lexPostings.first, nparts
	inBase []bool
	ndead  int

	cow uint64 // the writer's epoch for copy-on-write (cow.go)
	st  lexStamps
}

// lexStamps are the epochs of the slices a write changes in place.
type lexStamps struct {
	docTerms, lens, live, inBase uint64
}

// ownDocs makes the per-document arrays writable in place.
func (l *Lexical) ownDocs() {
	l.docTerms = cowOwn(l.docTerms, &l.st.docTerms, l.cow)
	l.lens = cowOwn(l.lens, &l.st.lens, l.cow)
	l.live = cowOwn(l.live, &l.st.live, l.cow)
}

// ownPostings makes the postings p (an entry of l.heap made writable by
// heapOwn or heapFor) writable in place.
func (l *Lexical) ownPostings(p *lexHeap) {
	if p.stamp != l.cow {
		p.docs, p.tfs, p.stamp = slices.Clone(p.docs), slices.Clone(p.tfs), l.cow
	}
}

// heapOf returns the in-memory postings of term id (nil if none), to be
// read only.
func (l *Lexical) heapOf(id uint32) *lexHeap {
	if h := l.post.at(id).h; h != 0 {
		return l.heap.ref(h - 1)
	}
	return nil
}

// heapOwn is heapOf for writing: the entry (not its postings, see
// ownPostings) is writable in place.
func (l *Lexical) heapOwn(id uint32) *lexHeap {
	if h := l.post.at(id).h; h != 0 {
		return l.heap.own(h-1, l.cow)
	}
	return nil
}

// heapFor returns the in-memory postings of term id, making them if need
// be; the entry is writable in place, as for heapOwn.
func (l *Lexical) heapFor(id uint32) *lexHeap {
	if h := l.post.at(id).h; h != 0 {
		return l.heap.own(h-1, l.cow)
	}
	p := l.post.own(id, l.cow)
	if n := len(l.freeHeap); n > 0 {
		p.h = l.freeHeap[n-1] + 1
		l.freeHeap = l.freeHeap[:n-1]
	} else {
		l.heap.push(lexHeap{}, l.cow)
		p.h = uint32(l.heap.len())
	}
	return l.heap.own(p.h-1, l.cow)
}

// df is the number of live documents holding term id.
func (l *Lexical) df(id uint32) int {
	p := l.post.ref(id)
	n := int(p.nbase)
	if p.h != 0 {
		n += len(l.heap.ref(p.h - 1).docs)
	}
	return n
}

// NewLexical returns an empty index scoring with p. Parameters that fail
// Validate are replaced by those of DefaultSymbolParams one by one; callers
// taking parameters from configuration should Validate them first.
func NewLexical(p LexicalParams) *Lexical {
	def := DefaultSymbolParams()
	if !lexValidK1(p.K1) {
		p.K1 = def.K1
	}
	for f := range NumFields {
		if !lexValidB(p.B[f]) {
			p.B[f] = def.B[f]
		}
		if !lexValidWeight(p.Weight[f]) {
			p.Weight[f] = def.Weight[f]
		}
	}
	l := &Lexical{p: p}
	l.addEmit = l.addTerm
	return l
}

// Len returns the number of documents in the index.
func (l *Lexical) Len() int { return l.n }

// Has reports whether doc is in the index.
func (l *Lexical) Has(doc uint32) bool {
	return int64(doc) < int64(len(l.live)) && l.live[doc]
}

// Add tokenizes the fields of a document with tokenize.Terms (the body up to its
// first 4,000 terms) and indexes it under doc, replacing any document
// already there. It fails only for a doc id of 2^26 or more.
func (l *Lexical) Add(doc uint32, fields [NumFields]string) error {
	if err := l.prepare(doc); err != nil {
		return err
	}
	var lens [NumFields]uint16
	for f := range NumFields {
		l.addField, l.addCount = f, 0
		l.tok.Run(fields[f], l.mode, l.addEmit)
		lens[f] = lexSat16(l.addCount)
	}
	l.commit(doc, lens)
	return nil
}

// addTerm counts one term of the field being added.
func (l *Lexical) addTerm(b []byte) bool {
	if l.addField == FieldBody && l.addCount >= lexMaxBodyTerms {
		return false
	}
	l.addCount++
	id, ok := l.dict.get(string(b))
	if !ok && l.baseTerms != nil {
		id, ok = l.baseID(string(b))
	}
	if !ok {
		id = l.newTerm(string(b))
	}
	l.count(id, 1<<(8*l.addField))
	return true
}

// count adds inc (packed per-field counts) to the term's frequencies in the
// document being added, saturating each field at 255.
func (l *Lexical) count(id uint32, inc uint32) {
	m := l.mark[id]
	if m == 0 {
		l.acc = append(l.acc, lexAcc{term: id})
		m = uint32(len(l.acc))
		l.mark[id] = m
	}
	a := &l.acc[m-1]
	for f := uint32(0); f < uint32(NumFields); f++ {
		add := inc >> (8 * f) & 0xff
		have := a.tfs >> (8 * f) & 0xff
		a.tfs += min(add, 255-have) << (8 * f)
	}
}

// termID is the id of term t, if the index holds it.
func (l *Lexical) termID(t string) (uint32, bool) {
	if id, ok := l.dict.get(t); ok || l.baseTerms == nil {
		return id, ok
	}
	return l.baseID(t)
}

// baseID finds t among the segments' terms.
func (l *Lexical) baseID(t string) (uint32, bool) {
	if i, ok := slices.BinarySearch(l.baseTerms, t); ok && l.strs.at(uint32(i)) == t {
		return uint32(i), true
	}
	return 0, false
}

func (l *Lexical) newTerm(s string) uint32 {
	var id uint32
	if n := len(l.free); n > 0 {
		id = l.free[n-1]
		l.free = l.free[:n-1]
		l.strs.set(id, s, l.cow)
	} else {
		id = uint32(l.post.len())
		l.post.push(lexPostings{}, l.cow)
		l.strs.push(s, l.cow)
		l.mark = append(l.mark, 0)
	}
	l.dict.set(s, id, l.cow)
	return id
}

// prepare checks doc, removes what it held and resets the add scratch.
func (l *Lexical) prepare(doc uint32) error {
	if doc >= lexMaxDocs {
		return fmt.Errorf("lexical: document id %d out of range (max %d)", doc, lexMaxDocs-1)
	}
	l.Remove(doc)
	l.growDocs(int(doc) + 1)
	l.acc = l.acc[:0]
	return nil
}

// growDocs makes room for documents below n.
func (l *Lexical) growDocs(n int) {
	if n > len(l.live) {
		l.live = slices.Grow(l.live, n-len(l.live))[:n]
		l.lens = slices.Grow(l.lens, n-len(l.lens))[:n]
	}
}

// commit inserts the accumulated terms of doc into the postings.
func (l *Lexical) commit(doc uint32, lens [NumFields]uint16) {
	// docTerms covers the documents added in memory only: a loaded index's
	// documents list their terms in their segments.
	if n := int(doc) + 1; n > len(l.docTerms) {
		l.docTerms = slices.Grow(l.docTerms, n-len(l.docTerms))[:n]
	}
	l.ownDocs()
	terms := l.docTerms[doc][:0]
	if l.cow != 0 {
		terms = nil // the old list may be a frozen copy's
	}
	for _, a := range l.acc {
		l.mark[a.term] = 0
		terms = append(terms, a.term)
		p := l.heapFor(a.term)
		if n := len(p.docs); n == 0 || p.docs[n-1] < doc {
			// Past the end: no frozen copy reads there.
			p.docs = append(p.docs, doc)
			p.tfs = append(p.tfs, a.tfs)
			continue
		}
		l.ownPostings(p)
		i, _ := slices.BinarySearch(p.docs, doc)
		p.docs = slices.Insert(p.docs, i, doc)
		p.tfs = slices.Insert(p.tfs, i, a.tfs)
	}
	l.acc = l.acc[:0]
	l.docTerms[doc] = terms
	l.lens[doc] = lens
	l.live[doc] = true
	l.n++
	for f := range NumFields {
		l.sum[f] += uint64(lens[f])
	}
}

// Remove deletes doc from the index; it does nothing if doc is absent. It
// costs a binary search and a move per distinct term of the document.
func (l *Lexical) Remove(doc uint32) {
	if !l.Has(doc) {
		return
	}
	l.ownDocs()
	if l.isBase(doc) {
		l.removeBase(doc)
	} else {
		for _, id := range l.docTerms[doc] {
			if p := l.heapOwn(id); p != nil {
				if i, ok := slices.BinarySearch(p.docs, doc); ok {
					l.ownPostings(p)
					p.docs = slices.Delete(p.docs, i, i+1)
					p.tfs = slices.Delete(p.tfs, i, i+1)
				}
			}
			l.freeIfEmpty(id)
		}
		if l.cow == 0 {
			l.docTerms[doc] = l.docTerms[doc][:0]
		} else {
			l.docTerms[doc] = nil // the list may be a frozen copy's
		}
	}
	for f := range NumFields {
		l.sum[f] -= uint64(l.lens[doc][f])
	}
	l.lens[doc] = [NumFields]uint16{}
	l.live[doc] = false
	l.n--
}

// freeIfEmpty releases term id once no live document holds it.
func (l *Lexical) freeIfEmpty(id uint32) {
	if l.df(id) > 0 {
		return
	}
	if h := l.post.at(id).h; h != 0 {
		l.heap.set(h-1, lexHeap{}, l.cow)
		l.freeHeap = append(l.freeHeap, h-1)
	}
	l.post.set(id, lexPostings{}, l.cow)
	l.dict.del(l.strs.at(id), l.cow)
	l.strs.set(id, "", l.cow)
	l.free = append(l.free, id)
}

// DocTerms is the indexed form of one document, for persisting an index and
// restoring it without tokenizing again: its distinct terms, each term's
// frequency per field packed as in TFs (field f in bits 8f..8f+7, each
// count saturating at 255), and its length in terms per field.
type DocTerms struct {
	Terms []string
	TFs   []uint32
	Lens  [NumFields]uint16
}

// Export returns the indexed form of doc, or a zero DocTerms if doc is not
// in the index.
func (l *Lexical) Export(doc uint32) DocTerms {
	if !l.Has(doc) {
		return DocTerms{}
	}
	dt := DocTerms{Lens: l.lens[doc]}
	l.eachTerm(doc, func(id, tf uint32) {
		dt.Terms = append(dt.Terms, l.strs.at(id))
		dt.TFs = append(dt.TFs, tf)
	})
	return dt
}

// AddTerms indexes a document from its exported form under doc, replacing
// any document already there. It rejects a malformed DocTerms (mismatched
// lengths, empty or repeated terms, a term with no occurrence) without
// changing the index.
func (l *Lexical) AddTerms(doc uint32, dt DocTerms) error {
	if len(dt.Terms) != len(dt.TFs) {
		return fmt.Errorf("lexical: document %d: %d terms but %d frequencies", doc, len(dt.Terms), len(dt.TFs))
	}
	for i, t := range dt.Terms {
		if t == "" {
			return fmt.Errorf("lexical: document %d: term %d is empty", doc, i)
		}
		if dt.TFs[i] == 0 {
			return fmt.Errorf("lexical: document %d: term %q has no occurrence", doc, t)
		}
	}
	if t, dup := l.repeatedTerm(dt.Terms); dup {
		return fmt.Errorf("lexical: document %d: term %q appears twice", doc, t)
	}
	return l.addTokenized(doc, dt)
}

// addTokenized is AddTerms for a document TokenizeDoc produced, whose terms
// are distinct and not empty by construction: the index's own writes skip
// the checks, which cost a map lookup per term on the serial path of a
// build. A new term is copied: TokenizeDoc's terms share the document's
// one backing string, which the dictionary should not keep alive.
func (l *Lexical) addTokenized(doc uint32, dt DocTerms) error {
	if err := l.prepare(doc); err != nil {
		return err
	}
	for i, t := range dt.Terms {
		id, ok := l.termID(t)
		if !ok {
			id = l.newTerm(strings.Clone(t))
		}
		l.count(id, dt.TFs[i])
	}
	l.commit(doc, dt.Lens)
	return nil
}

// repeatedTerm finds a term that appears twice in terms. Known terms are
// checked against an epoch mark per term id, new ones in a small map, so
// that restoring an index does not sort every document's terms.
func (l *Lexical) repeatedTerm(terms []string) (string, bool) {
	l.epoch++
	if l.epoch == 0 { // wrapped: old marks could collide
		clear(l.seenAt)
		l.epoch = 1
	}
	if n := l.strs.len(); len(l.seenAt) < n {
		l.seenAt = append(l.seenAt, make([]uint32, n-len(l.seenAt))...)
	}
	var fresh map[string]struct{}
	for _, t := range terms {
		if id, ok := l.termID(t); ok {
			if l.seenAt[id] == l.epoch {
				return t, true
			}
			l.seenAt[id] = l.epoch
			continue
		}
		if fresh == nil {
			fresh = make(map[string]struct{})
		}
		if _, dup := fresh[t]; dup {
			return t, true
		}
		fresh[t] = struct{}{}
	}
	return "", false
}

// QueryTerm is one term of a lexical query. Weight scales its contribution,
// so that terms from conversation history can count less than the query's
// own; terms with a weight that is not a positive finite number are ignored.
type QueryTerm struct {
	Term   string
	Weight float32
}

// Hit is one document found by Search.
type Hit struct {
	Doc     uint32
	Score   float32
	Matched uint16 // how many distinct query terms the document contains
}

// SearchBuffer is the reusable working memory of Search. The zero value is
// ready to use; a buffer serves one Search at a time and may be shared by
// several indexes.
type SearchBuffer struct {
	score   []float32 // by doc
	matched []uint16  // by doc
	touched []uint32  // docs with matched > 0
	q       []lexQuery
	hits    []Hit
}

type lexQuery struct {
	id uint32
	w  float32
}

// lexIDF is the BM25 inverse document frequency of a term held by df of n
// documents.
func lexIDF(n, df int) float32 {
	return float32(math.Log(1 + (float64(n)-float64(df)+0.5)/(float64(df)+0.5)))
}

// IDF returns the inverse document frequency Search uses for a normalized
// term (as produced by tokenize.Terms or tokenize.QueryTerms): ln(1 + (N − df + 0.5)/(df +
// 0.5)). It is 0 for a term no document holds, which cannot score.
func (l *Lexical) IDF(term string) float32 {
	id, ok := l.termID(term)
	if !ok {
		return 0
	}
	return lexIDF(l.n, l.df(id))
}

// Search returns the k documents with the highest BM25F score for q, best
// first, ties broken by lower doc id, considering only documents for which
// filter returns true (nil accepts all). Query terms must be normalized (see
// tokenize.QueryTerms); repeated terms count once with their weights summed. For
// each term t with document frequency df among N documents,
//
//	tf~   = Σ_f Weight_f · tf_f / (1 − B_f + B_f · len_f / avglen_f)
//	score += weight_t · idf(t) · tf~ · (K1 + 1) / (tf~ + K1)
//
// The result aliases buf (a nil buf allocates one) and is valid until buf is
// used again.
func (l *Lexical) Search(q []QueryTerm, k int, filter func(doc uint32) bool, buf *SearchBuffer) []Hit {
	return l.search(q, k, filter, buf, nil)
}

// search is Search with equal scores in the order order gives (a strict
// total order on documents; nil: by lower doc id), decided as the k are
// kept, so that the k kept of many equal scores are the first k in order.
func (l *Lexical) search(q []QueryTerm, k int, filter func(doc uint32) bool, buf *SearchBuffer, order func(a, b uint32) int) []Hit {
	if buf == nil {
		buf = new(SearchBuffer)
	}
	buf.hits = buf.hits[:0]
	if k <= 0 || l.n == 0 {
		return buf.hits
	}
	buf.q = buf.q[:0]
	for _, t := range q {
		if !(t.Weight > 0) || math.IsInf(float64(t.Weight), 0) || len(buf.q) == math.MaxUint16 {
			continue
		}
		id, ok := l.termID(t.Term)
		if !ok {
			continue
		}
		if i := slices.IndexFunc(buf.q, func(x lexQuery) bool { return x.id == id }); i >= 0 {
			buf.q[i].w += t.Weight
			continue
		}
		buf.q = append(buf.q, lexQuery{id: id, w: t.Weight})
	}
	if len(buf.q) == 0 {
		return buf.hits
	}
	if n := len(l.lens); len(buf.score) < n {
		buf.score = make([]float32, n)
		buf.matched = make([]uint16, n)
	}
	var norm lexNorm
	for f := range NumFields {
		norm.w[f] = l.p.Weight[f]
		norm.a[f] = 1 - l.p.B[f]
		if l.sum[f] > 0 {
			norm.b[f] = l.p.B[f] * float32(l.n) / float32(l.sum[f])
		} else {
			norm.a[f] = 1 // no document has this field: no normalization
		}
	}
	for _, qt := range buf.q {
		p := l.post.ref(qt.id)
		wq := qt.w * lexIDF(l.n, l.df(qt.id))
		if hp := l.heapOf(qt.id); hp != nil {
			l.accumulate(hp.docs, hp.tfs, wq, &norm, buf, nil)
		}
		var skip []bool // documents no longer as their segment holds them
		if l.ndead > 0 {
			skip = l.inBase
		}
		for _, pt := range l.parts[p.first : p.first+p.nparts] {
			sg := &l.segs[pt.seg]
			if !sg.gate.open() {
				continue // a damaged segment (lazy.go): none of its postings
			}
			if sg.tfTab != nil {
				l.accumulate16(sg, pt, wq, &norm, buf, skip)
			} else {
				l.accumulate(sg.docs[pt.off:pt.off+pt.n], sg.tfs[pt.off:pt.off+pt.n], wq, &norm, buf, skip)
			}
		}
	}
	l.selectTop(k, filter, buf, order)
	return buf.hits
}

// lexNorm holds, per field, the weight and the length normalization
// a + b·len of one search.
type lexNorm struct {
	w, a, b [NumFields]float32
}

// mix is tf~, the weighted and length-normalized frequency of a term in a
// document whose packed per-field frequencies are t and lengths ln.
func (nm *lexNorm) mix(t uint32, ln *[NumFields]uint16) float32 {
	var x float32
	if c := t & 0xff; c != 0 {
		x += nm.w[0] * float32(c) / (nm.a[0] + nm.b[0]*float32(ln[0]))
	}
	if c := t >> 8 & 0xff; c != 0 {
		x += nm.w[1] * float32(c) / (nm.a[1] + nm.b[1]*float32(ln[1]))
	}
	if c := t >> 16 & 0xff; c != 0 {
		x += nm.w[2] * float32(c) / (nm.a[2] + nm.b[2]*float32(ln[2]))
	}
	if c := t >> 24; c != 0 {
		x += nm.w[3] * float32(c) / (nm.a[3] + nm.b[3]*float32(ln[3]))
	}
	return x
}

// accumulate adds the contribution of one term (already multiplied into wq =
// weight · idf) to every document of one run of its postings, skipping the
// documents d with inBase[d] false when inBase is not nil.
func (l *Lexical) accumulate(docs, tfs []uint32, wq float32, nm *lexNorm, buf *SearchBuffer, inBase []bool) {
	k1 := l.p.K1
	k1p1 := wq * (k1 + 1)
	tfs = tfs[:len(docs)]
	lens := l.lens
	score := buf.score[:len(lens)]
	matched := buf.matched[:len(lens)]
	for j, d := range docs {
		if inBase != nil && !inBase[d] {
			continue
		}
		x := nm.mix(tfs[j], &lens[d])
		if matched[d] == 0 {
			buf.touched = append(buf.touched, d)
		}
		matched[d]++
		score[d] += x * k1p1 / (x + k1)
	}
}

// selectTop keeps the k best touched documents that pass filter in
// buf.hits, best first, equal scores in order (nil: by doc id), and clears
// the accumulators.
func (l *Lexical) selectTop(k int, filter func(doc uint32) bool, buf *SearchBuffer, order func(a, b uint32) int) {
	worse := lexWorse
	if order != nil {
		worse = func(a, b Hit) bool {
			return a.Score < b.Score || a.Score == b.Score && order(a.Doc, b.Doc) > 0
		}
	} else {
		order = cmp.Compare[uint32]
	}
	h := buf.hits[:0]
	for _, d := range buf.touched {
		hit := Hit{Doc: d, Score: buf.score[d], Matched: buf.matched[d]}
		buf.score[d], buf.matched[d] = 0, 0
		// A full heap keeps a lower score out without the tie order:
		// worse(h[0], hit) is false (most touched documents end here).
		if len(h) == k && hit.Score < h[0].Score || filter != nil && !filter(d) {
			continue
		}
		h = topKPush(h, k, hit, worse)
	}
	buf.touched = buf.touched[:0]
	slices.SortFunc(h, func(a, b Hit) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		return order(a.Doc, b.Doc)
	})
	buf.hits = h
}

// lexWorse reports whether a ranks below b: lower score, or equal score and
// higher doc id.
func lexWorse(a, b Hit) bool {
	return a.Score < b.Score || a.Score == b.Score && a.Doc > b.Doc
}

func lexSat16(n int) uint16 {
	return uint16(min(n, math.MaxUint16))
}

// Compact trims the spare capacity that building by appends leaves in the
// postings (up to half of each list), to be called once a bulk build is
// done. Later adds grow the lists again as needed.
func (l *Lexical) Compact() {
	for i := range uint32(l.heap.len()) {
		p := l.heap.own(i, l.cow)
		if cap(p.docs) > len(p.docs) {
			p.docs = slices.Clip(slices.Clone(p.docs))
			p.tfs = slices.Clip(slices.Clone(p.tfs))
		}
	}
}
