package symbolindex

import (
	"github.com/cespare/xxhash/v2"

	"github.com/ctxls/ctxls/symbolindex/tokenize"
)

// Name signatures. Every request weighs how strongly it names each of a
// few hundred candidates (workspace/pipeline, the strong match), and most
// candidates' names hold none of its words: tokenizing each name to find
// that out was most of the match's cost. A symbol's name signature, made
// when the symbol is indexed and kept in its cache record, is a Bloom
// filter of its name's index terms (tokenize.ModeDoc): a name whose
// signature lacks the bits of every word of the request holds none of
// them, without being read. A signature never says no to a term the name
// holds; a yes may be wrong, and the name is then tokenized as before.

// NameSigBits is how many bits a signature has: it fills the 7 spare
// bytes of a symbol's cache record (segSym).
const NameSigBits = 56

// nameSigMark is set in every signature: 0 is "none" (a symbol of a
// version-10 cache, which is tokenized instead).
const nameSigMark = 1 << (NameSigBits - 1)

// TermBits are the bits term sets in a name signature: two of the 55
// below the mark.
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

// NameSig is the name signature of the symbol in slot s, or 0 when the
// index has none for it (a symbol loaded from a cache written before
// signatures): the caller then reads the name itself.
func (ix *Index) NameSig(s uint32) uint64 {
	if a := ix.symAt[s]; a != 0 {
		return ix.syms.ref(a - 1).NameSig
	}
	_, r := ix.record(s)
	return r.nameSig()
}

// nameSig is the record's signature (0: none).
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
