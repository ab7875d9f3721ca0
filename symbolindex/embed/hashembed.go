package embed

import (
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/cespare/xxhash/v2"

	"github.com/ctxls/ctxls/symbolindex/tokenize"
)

// DefaultHashDim is the vector dimension of the built-in hash embedder.
const DefaultHashDim = 384

// HashEmbedder is the built-in Embedder: it needs no model and captures
// shared vocabulary and spelling, not meaning. A text's features are its
// terms (as tokenize.Terms produces them, weight 1) and the byte trigrams of each
// term with boundary markers ("^pa", "par", ..., "er$", weight 0.5 shared
// by the term's trigrams), each scaled by 1 + ln(tf) of its term, hashed
// with a sign into Dim buckets (xxhash64: bucket h mod Dim, sign from the
// top bit) and L2-normalized. So parseConfig and ParseConfiguration land
// near each other through pars, config… and their trigrams.
//
// A text without terms (empty, punctuation only) yields the zero vector,
// whose hashEmbCosine with any vector is 0.
//
// HashEmbedder is safe for concurrent use.
type HashEmbedder struct {
	dim  int
	id   string
	pool sync.Pool // *hashEmbScratch
}

// hashEmbScratch is the working memory of one Embed call.
type hashEmbScratch struct {
	tok   tokenize.Scratch
	arena []byte        // the terms of the current text, concatenated
	items []hashEmbItem // one per term occurrence
	feat  []byte        // a trigram feature being hashed
	emit  func(term []byte) bool
}

type hashEmbItem struct {
	h      uint64 // xxhash64 of the term
	off, n uint32 // the term in arena
}

// hashEmbTrigramTag prefixes trigram features so that they never hash like
// a three-letter term.
const hashEmbTrigramTag = 0x01

// NewHashEmbedder returns a hash embedder producing vectors of dimension
// dim; dim < 1 selects DefaultHashDim.
func NewHashEmbedder(dim int) *HashEmbedder {
	if dim < 1 {
		dim = DefaultHashDim
	}
	e := &HashEmbedder{dim: dim, id: fmt.Sprintf("hash-%d", dim)}
	e.pool.New = func() any {
		s := &hashEmbScratch{}
		s.emit = s.addTerm
		return s
	}
	return e
}

// ID identifies the embedder: "hash-<dim>".
func (e *HashEmbedder) ID() string { return e.id }

// Dim returns the vector dimension.
func (e *HashEmbedder) Dim() int { return e.dim }

// Embed returns one L2-normalized vector per text (the zero vector for a
// text without terms). It never fails.
func (e *HashEmbedder) Embed(texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	backing := make([]float32, len(texts)*e.dim)
	s := e.pool.Get().(*hashEmbScratch)
	defer e.pool.Put(s)
	for i, text := range texts {
		v := backing[i*e.dim : (i+1)*e.dim : (i+1)*e.dim]
		e.embed(text, v, s)
		out[i] = v
	}
	return out, nil
}

func (s *hashEmbScratch) addTerm(b []byte) bool {
	s.items = append(s.items, hashEmbItem{h: xxhash.Sum64(b), off: uint32(len(s.arena)), n: uint32(len(b))})
	s.arena = append(s.arena, b...)
	return true
}

// EmbedTerms writes into v, which must be zeroed and of length Dim, the
// vector Embed gives a text whose terms (tokenize.Scratch.Run in
// tokenize.ModeDoc) are those terms calls add with, in the same order: for
// a caller that has tokenized the text already.
func (e *HashEmbedder) EmbedTerms(v []float32, terms func(add func(term []byte) bool)) {
	s := e.pool.Get().(*hashEmbScratch)
	defer e.pool.Put(s)
	s.arena, s.items = s.arena[:0], s.items[:0]
	terms(s.emit)
	e.vector(v, s)
}

// embed writes the vector of text into v, which must be zeroed.
func (e *HashEmbedder) embed(text string, v []float32, s *hashEmbScratch) {
	s.arena, s.items = s.arena[:0], s.items[:0]
	s.tok.Run(text, tokenize.ModeDoc, s.emit)
	e.vector(v, s)
}

// vector writes into v the vector of the terms in s.
func (e *HashEmbedder) vector(v []float32, s *hashEmbScratch) {
	if len(s.items) == 0 {
		return
	}
	slices.SortFunc(s.items, func(a, b hashEmbItem) int {
		switch {
		case a.h < b.h:
			return -1
		case a.h > b.h:
			return 1
		}
		return 0
	})
	dim := uint64(e.dim)
	for i := 0; i < len(s.items); {
		it := s.items[i]
		j := i + 1
		for j < len(s.items) && s.items[j].h == it.h {
			j++
		}
		w := float32(1 + math.Log(float64(j-i)))
		i = j

		hashEmbAdd(v, it.h, dim, w)
		// The byte trigrams of "^term$", one per byte of the term, each
		// hashed with the tag in front: feat holds tag ^ t e r m $, and the
		// feature of the trigram at k is feat[k-1:k+3] with the byte before
		// the trigram (no longer needed) overwritten by the tag.
		term := s.arena[it.off : it.off+it.n]
		s.feat = append(append(append(s.feat[:0], hashEmbTrigramTag, '^'), term...), '$')
		tw := w * 0.5 / float32(len(term))
		for k := 1; k+3 <= len(s.feat); k++ {
			g := s.feat[k-1 : k+3]
			g[0] = hashEmbTrigramTag
			hashEmbAdd(v, xxhash.Sum64(g), dim, tw)
		}
	}
	Normalize(v)
}

// hashEmbAdd adds ±w to the bucket of feature hash h.
func hashEmbAdd(v []float32, h, dim uint64, w float32) {
	if h>>63 != 0 {
		w = -w
	}
	v[h%dim] += w
}
