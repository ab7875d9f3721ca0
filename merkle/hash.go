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
// It lives on the caller's stack; nothing is allocated.
type hasher struct {
	d   xxhash.Digest
	buf [binary.MaxVarintLen64]byte
}

func (h *hasher) reset() { h.d.Reset() }

func (h *hasher) str(s string) {
	n := binary.PutUvarint(h.buf[:], uint64(len(s)))
	h.d.Write(h.buf[:n])
	h.d.WriteString(s)
}

func (h *hasher) u64(v uint64) {
	binary.LittleEndian.PutUint64(h.buf[:8], v)
	h.d.Write(h.buf[:8])
}

func (h *hasher) byte(b byte) {
	h.buf[0] = b
	h.d.Write(h.buf[:1])
}

func (h *hasher) sum() uint64 { return h.d.Sum64() }

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
