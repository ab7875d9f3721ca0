package symbolindex

import (
	"sort"
	"sync"
	"unsafe"

	"github.com/cespare/xxhash/v2"

	"github.com/ctxls/ctxls/symbolindex/tokenize"
)

// TokenizeDoc tokenizes a document's fields into the form AddTerms takes,
// exactly as Add would. It does not touch any index, so indexing workers can
// tokenize in parallel and leave only the cheap insertion to the writer.
//
// The terms returned share one backing string (a document's distinct terms
// cost one allocation, not one each): the index copies a term it keeps.
func TokenizeDoc(fields [NumFields]string) DocTerms {
	s := docScratchPool.Get()
	defer docScratchPool.Put(s)
	s.begin()
	s.fields(&fields, NumFields)
	return s.finish()
}

var docScratchPool = newPool(func() *docScratch {
	s := &docScratch{sigFrom: -1}
	s.emit = s.add
	return s
})

// pool is a sync.Pool of *T.
type pool[T any] struct{ p sync.Pool }

func newPool[T any](mk func() *T) *pool[T] {
	return &pool[T]{p: sync.Pool{New: func() any { return mk() }}}
}

func (p *pool[T]) Get() *T  { return p.p.Get().(*T) }
func (p *pool[T]) Put(x *T) { p.p.Put(x) }

// termTable numbers distinct terms: an open-addressing table over the terms
// concatenated in one arena, whose slots are emptied by bumping gen rather
// than by writing.
type termTable struct {
	slots []termSlot // len a power of two, at least twice the terms
	gen   uint32
	arena []byte   // the terms, concatenated
	ends  []uint32 // where each term ends in arena
}

type termSlot struct {
	gen  uint32
	hash uint32
	term uint32 // index into ends
}

// reset empties the table.
func (t *termTable) reset() {
	t.gen++
	if t.gen == 0 { // wrapped: old slots could look current
		clear(t.slots)
		t.gen = 1
	}
	if len(t.slots) == 0 {
		t.slots = make([]termSlot, 64)
	}
	t.arena, t.ends = t.arena[:0], t.ends[:0]
}

// lookup returns the number of term b, adding it if it is new.
func (t *termTable) lookup(b []byte) (i uint32, added bool) {
	h := uint32(xxhash.Sum64(b))
	mask := uint32(len(t.slots) - 1)
	for j := h & mask; ; j = (j + 1) & mask {
		sl := &t.slots[j]
		if sl.gen != t.gen {
			i = uint32(len(t.ends))
			*sl = termSlot{gen: t.gen, hash: h, term: i}
			t.arena = append(t.arena, b...)
			t.ends = append(t.ends, uint32(len(t.arena)))
			if 2*len(t.ends) > len(t.slots) {
				t.grow()
			}
			return i, true
		}
		if sl.hash == h && string(t.term(sl.term)) == string(b) {
			return sl.term, false
		}
	}
}

// term is the bytes of term i.
func (t *termTable) term(i uint32) []byte {
	start := uint32(0)
	if i > 0 {
		start = t.ends[i-1]
	}
	return t.arena[start:t.ends[i]]
}

// grow doubles the slots and reinserts the current terms.
func (t *termTable) grow() {
	old := t.slots
	t.slots = make([]termSlot, 2*len(old))
	mask := uint32(len(t.slots) - 1)
	for _, sl := range old {
		if sl.gen != t.gen {
			continue
		}
		j := sl.hash & mask
		for t.slots[j].gen == t.gen {
			j = (j + 1) & mask
		}
		t.slots[j] = sl
	}
}

// docScratch is the reusable working memory of tokenizing one document.
type docScratch struct {
	tok  tokenize.Scratch
	tab  termTable // the document's distinct terms
	tfs  []uint32  // packed per-field counts of each term
	lens [NumFields]uint16
	mark []docMark // by term of a fileStream: its number in tab
	gen  uint32    // marks of another generation are unset

	field Field
	count int
	emit  func(term []byte) bool
	// sigFrom, when not negative, is where the symbol's name starts in
	// its name field: the terms of identifiers from there on are the
	// name's, and their bits make sig (NameSig) as the field is
	// tokenized, instead of tokenizing the name again.
	sigFrom int
	sig     uint64
	emitAt  func(term []byte, at int) bool
}

type docMark struct{ gen, term uint32 }

func (s *docScratch) begin() {
	s.tab.reset()
	s.tfs = s.tfs[:0]
}

// fields tokenizes the fields before end.
func (s *docScratch) fields(fields *[NumFields]string, end Field) {
	for f := range end {
		s.field, s.count = f, 0
		if f == FieldName && s.sigFrom >= 0 {
			s.tok.RunAt(fields[f], tokenize.ModeDoc, s.emitAt)
		} else {
			s.tok.Run(fields[f], tokenize.ModeDoc, s.emit)
		}
		s.lens[f] = lexSat16(s.count)
	}
}

// finish returns the document: its terms on one new backing string.
func (s *docScratch) finish() DocTerms {
	dt := DocTerms{Lens: s.lens}
	s.lens = [NumFields]uint16{}
	if len(s.tab.ends) == 0 {
		return dt
	}
	all := string(s.tab.arena)
	dt.Terms = make([]string, len(s.tab.ends))
	start := uint32(0)
	for i, end := range s.tab.ends {
		dt.Terms[i] = all[start:end]
		start = end
	}
	dt.TFs = append([]uint32(nil), s.tfs...)
	return dt
}

// add counts one term of the field being tokenized.
func (s *docScratch) add(b []byte) bool {
	if s.field == FieldBody && s.count >= lexMaxBodyTerms {
		return false
	}
	s.count++
	i, added := s.tab.lookup(b)
	if added {
		s.tfs = append(s.tfs, 0)
	}
	s.countAt(i)
	return true
}

func (s *docScratch) countAt(i uint32) {
	shift := 8 * uint32(s.field)
	if s.tfs[i]>>shift&0xff < 255 {
		s.tfs[i] += 1 << shift
	}
}

// streamBody counts as the body the terms of fs whose identifiers start in
// src[start:end], which must be a clean cut (see cleanCut): the terms the
// tokenizer finds in that text alone.
func (s *docScratch) streamBody(fs *fileStream, start, end int) {
	s.gen++
	if s.gen == 0 {
		clear(s.mark)
		s.gen = 1
	}
	if n := len(fs.tab.ends); len(s.mark) < n {
		s.mark = append(s.mark, make([]docMark, n-len(s.mark))...)
	}
	s.field, s.count = FieldBody, 0
	k := sort.Search(len(fs.at), func(k int) bool { return fs.at[k] >= uint32(start) })
	for ; k < len(fs.at) && fs.at[k] < uint32(end) && s.count < lexMaxBodyTerms; k++ {
		s.count++
		m := &s.mark[fs.ids[k]]
		if m.gen != s.gen {
			i, added := s.tab.lookup(fs.tab.term(fs.ids[k]))
			if added {
				s.tfs = append(s.tfs, 0)
			}
			*m = docMark{gen: s.gen, term: i}
		}
		s.countAt(m.term)
	}
	s.lens[FieldBody] = lexSat16(s.count)
}

// fileStream is one tokenization of a whole file, without the body's term
// limit: each term occurrence as the number of a distinct term and the
// offset where its identifier starts. The bodies of a file's symbols are
// ranges of it, so a file's text is tokenized once, not once for the file
// and again for each symbol (and each enclosing one).
type fileStream struct {
	tok  tokenize.Scratch
	tab  termTable
	ids  []uint32 // the term of each occurrence
	at   []uint32 // where its identifier starts
	emit func(term []byte, at int) bool
}

var fileStreamPool = newPool(func() *fileStream {
	fs := &fileStream{}
	fs.emit = fs.add
	return fs
})

func (fs *fileStream) build(src []byte) {
	fs.tab.reset()
	fs.ids, fs.at = fs.ids[:0], fs.at[:0]
	fs.tok.RunAt(bytesString(src), tokenize.ModeDoc, fs.emit)
}

func (fs *fileStream) add(b []byte, at int) bool {
	i, _ := fs.tab.lookup(b)
	fs.ids = append(fs.ids, i)
	fs.at = append(fs.at, uint32(at))
	return true
}

// cleanCut reports whether the tokenizer reads src[start:end] alone exactly
// as it reads that part of src: no identifier crosses either end (the byte
// before start and the byte at end are ASCII separators that do not join
// identifiers, as "_" and "-" can), so nothing outside is looked at.
func cleanCut(src []byte, start, end int) bool {
	return start <= end && (start == 0 || plainSep(src[start-1])) && (end == len(src) || plainSep(src[end]))
}

func plainSep(c byte) bool {
	switch {
	case c >= 0x80, c == '_', c == '-',
		'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return false
	}
	return true
}

// bytesString views b as a string without copying, for text that is only
// read while b does not change (tokenizing a file's own bytes).
func bytesString(b []byte) string {
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// DefaultFileParams are the BM25 parameters of the whole-file index: a file
// is its path and its content, and the path counts double, as the seeds'
// path boost does.
func DefaultFileParams() LexicalParams {
	p := DefaultSymbolParams()
	p.Weight[FieldPath], p.B[FieldPath] = 2, 0.5
	p.Weight[FieldBody], p.B[FieldBody] = 1, 0.75
	return p
}
