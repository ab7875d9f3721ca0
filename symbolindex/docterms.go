package symbolindex

import (
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
	s := docScratchPool.Get().(*docScratch)
	defer docScratchPool.Put(s)
	return s.run(&fields)
}

var docScratchPool = sync.Pool{New: func() any {
	s := &docScratch{}
	s.emit = s.add
	return s
}}

// docScratch is the reusable working memory of TokenizeDoc: the tokenizer's
// scratch and an open-addressing table from a term to its index in the
// document, whose slots are cleared by bumping gen rather than by writing.
type docScratch struct {
	tok   tokenize.Scratch
	slots []docSlot // len a power of two, at least twice the terms
	gen   uint32

	arena []byte   // the distinct terms, concatenated
	ends  []uint32 // where each term ends in arena
	tfs   []uint32 // packed per-field counts of each term

	field Field
	count int
	emit  func(term []byte) bool
}

type docSlot struct {
	gen  uint32
	hash uint32
	term uint32 // index into ends and tfs
}

func (s *docScratch) run(fields *[NumFields]string) DocTerms {
	s.gen++
	if s.gen == 0 { // wrapped: old slots could look current
		clear(s.slots)
		s.gen = 1
	}
	if len(s.slots) == 0 {
		s.slots = make([]docSlot, 64)
	}
	s.arena, s.ends, s.tfs = s.arena[:0], s.ends[:0], s.tfs[:0]
	var dt DocTerms
	for f := range NumFields {
		s.field, s.count = f, 0
		s.tok.Run(fields[f], tokenize.ModeDoc, s.emit)
		dt.Lens[f] = lexSat16(s.count)
	}
	if len(s.ends) == 0 {
		return dt
	}
	all := string(s.arena)
	dt.Terms = make([]string, len(s.ends))
	start := uint32(0)
	for i, end := range s.ends {
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
	i := s.lookup(b)
	shift := 8 * uint32(s.field)
	if s.tfs[i]>>shift&0xff < 255 {
		s.tfs[i] += 1 << shift
	}
	return true
}

// lookup returns the index of term b, adding it if it is new.
func (s *docScratch) lookup(b []byte) uint32 {
	h := uint32(xxhash.Sum64(b))
	mask := uint32(len(s.slots) - 1)
	for j := h & mask; ; j = (j + 1) & mask {
		sl := &s.slots[j]
		if sl.gen != s.gen {
			i := uint32(len(s.ends))
			*sl = docSlot{gen: s.gen, hash: h, term: i}
			s.arena = append(s.arena, b...)
			s.ends = append(s.ends, uint32(len(s.arena)))
			s.tfs = append(s.tfs, 0)
			if 2*len(s.ends) > len(s.slots) {
				s.grow()
			}
			return i
		}
		if sl.hash == h && string(s.term(sl.term)) == string(b) {
			return sl.term
		}
	}
}

// term is the bytes of term i in the arena.
func (s *docScratch) term(i uint32) []byte {
	start := uint32(0)
	if i > 0 {
		start = s.ends[i-1]
	}
	return s.arena[start:s.ends[i]]
}

// grow doubles the table and reinserts the current document's terms.
func (s *docScratch) grow() {
	old := s.slots
	s.slots = make([]docSlot, 2*len(old))
	mask := uint32(len(s.slots) - 1)
	for _, sl := range old {
		if sl.gen != s.gen {
			continue
		}
		j := sl.hash & mask
		for s.slots[j].gen == s.gen {
			j = (j + 1) & mask
		}
		s.slots[j] = sl
	}
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
