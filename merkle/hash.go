package merkle

import (
	"encoding/binary"

	"github.com/cespare/xxhash/v2"
)

// emptyHash is the hash of a folder without entries (and of a file without
// leaves): xxhash64 of no bytes. The empty tree's Root is this value.
const emptyHash uint64 = 0xef46db3751d8e999

// Entry kinds as written into a folder's hash.
const (
	kindFile byte = 'f'
	kindDir  byte = 'd'
)

// hasher feeds length-prefixed strings and fixed-width integers into one
// xxhash64 digest, so that no two different sequences share an encoding.
// It gathers them in a buffer and hands the digest a block at a time (the
// digest of the bytes does not depend on how they are cut; a Write per
// piece costs more than the hashing). It lives on the caller's stack;
// nothing is allocated.
type hasher struct {
	d   xxhash.Digest
	n   int // bytes in buf
	buf [1024]byte
}

func (h *hasher) reset() { h.d.Reset(); h.n = 0 }

func (h *hasher) flush() {
	h.d.Write(h.buf[:h.n])
	h.n = 0
}

// room makes room for k more bytes in buf (k ≤ len(buf)).
func (h *hasher) room(k int) {
	if h.n+k > len(h.buf) {
		h.flush()
	}
}

func (h *hasher) str(s string) {
	h.room(binary.MaxVarintLen64)
	h.n += binary.PutUvarint(h.buf[h.n:], uint64(len(s)))
	if len(s) > len(h.buf)-h.n {
		h.flush()
		if len(s) > len(h.buf) {
			h.d.WriteString(s)
			return
		}
	}
	h.n += copy(h.buf[h.n:], s)
}

func (h *hasher) u64(v uint64) {
	h.room(8)
	binary.LittleEndian.PutUint64(h.buf[h.n:], v)
	h.n += 8
}

func (h *hasher) byte(b byte) {
	h.room(1)
	h.buf[h.n] = b
	h.n++
}

func (h *hasher) sum() uint64 {
	h.flush()
	return h.d.Sum64()
}

// hashLeaves is a file's hash: xxhash64 over its (key, leaf hash) pairs,
// which must already be sorted by key.
func hashLeaves(leaves []Leaf) uint64 {
	var h hasher
	h.reset()
	for i := range leaves {
		h.str(leaves[i].Key)
		h.u64(leaves[i].Hash)
	}
	return h.sum()
}

// hashEntries is a folder's hash: xxhash64 over its (child name, child hash,
// child kind) entries, which must already be sorted by name.
func hashEntries(entries []entry) uint64 {
	var h hasher
	h.reset()
	for i := range entries {
		e := &entries[i]
		h.str(e.name)
		h.u64(e.hash)
		if e.file != nil {
			h.byte(kindFile)
		} else {
			h.byte(kindDir)
		}
	}
	return h.sum()
}
