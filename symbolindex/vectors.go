package symbolindex

import (
	"cmp"
	"fmt"
	"math"
	"os"
	"slices"
	"unsafe"
)

// vecMaxSlots bounds slot numbers, which index dense arrays.
const vecMaxSlots = 1 << 26

// vecMaxDim bounds the dimension so that an int8 dot product always fits
// in an int32 (127 · 127 · 65536 < 2^31).
const vecMaxDim = 1 << 16

// vecStackDim is the largest dimension whose quantized query lives on the
// stack.
const vecStackDim = 1024

// VectorStore holds one vector per slot in contiguous memory, quantized to
// int8 with a scale per slot (scale = max|v|/127), so that 100k vectors of
// dimension 384 take about 38 MB. A query is quantized the same way, once
// per call, and scores are integer dot products rescaled: for unit vectors
// within about 0.005 of the exact float dot product, and faster to compute
// than float32 dot products (no int-to-float conversion per element, a
// quarter of the memory traffic).
//
// VectorStore is not safe for concurrent use: writes (Set, Clear) must be
// serialized and exclude every other call; reads (Dot, Get, TopK, Has, Len)
// may run concurrently with each other.
//
// Vectors are kept in chunks of vecChunk slots, so that a loaded index's
// chunks can be read in place from its mapped segments while new slots get
// chunks of their own.
//
// TopK, which scores thousands of scattered rows per query, reads the rows
// of mapped chunks with pread (fileOff) rather than through the mapping: a
// read through a file mapping makes the kernel map whole page-cache folios
// around it (up to 2 MB on Linux 6.18), so that a few queries had most of
// a large index's vectors in the resident set while each used 2–5% of
// them. The file's pages stay in the page cache either way.
type VectorStore struct {
	dim    int
	data   [][]int8    // by chunk: (slot%vecChunk)*dim .. +dim
	scales [][]float32 // by chunk: slot%vecChunk
	live   []bool      // by slot
	n      int

	file    *os.File   // the cache file mapped chunks come from, if any
	gates   []*segGate // by chunk: guards a mapped chunk's rows (lazy.go); nil: none
	fileOff []int64    // by chunk: where its rows are in file; -1: not there (a heap chunk, or written since the load)

	// Copy-on-write (cow.go): the writer's epoch, the epochs of the
	// slices it writes in place, and of each chunk (by chunk; missing: 0).
	epoch                   uint64
	stLive, stChunks, stOff uint64
	chunkStamp              []uint64
}

// ownChunk makes chunk ci (which exists) and the arrays a write changes
// writable in place.
func (s *VectorStore) ownChunk(ci int) {
	s.live = cowOwn(s.live, &s.stLive, s.epoch)
	s.fileOff = cowOwn(s.fileOff, &s.stOff, s.epoch)
	var stamp uint64
	if ci < len(s.chunkStamp) {
		stamp = s.chunkStamp[ci]
	}
	if stamp == s.epoch {
		return
	}
	if s.stChunks != s.epoch {
		s.data, s.scales, s.stChunks = slices.Clone(s.data), slices.Clone(s.scales), s.epoch
	}
	s.data[ci], s.scales[ci] = slices.Clone(s.data[ci]), slices.Clone(s.scales[ci])
	if n := ci + 1; n > len(s.chunkStamp) {
		s.chunkStamp = append(s.chunkStamp, make([]uint64, n-len(s.chunkStamp))...)
	}
	s.chunkStamp[ci] = s.epoch
}

// vecChunk is the number of slots per chunk. Segments start at a multiple
// of it.
const vecChunk = 1024

// row is the quantized vector of slot, which must be live.
func (s *VectorStore) row(slot uint32) []int8 {
	o := int(slot%vecChunk) * s.dim
	return s.data[slot/vecChunk][o : o+s.dim : o+s.dim]
}

func (s *VectorStore) scale(slot uint32) float32 { return s.scales[slot/vecChunk][slot%vecChunk] }

// mapChunks makes the slots from first (a multiple of vecChunk) on read
// their vectors and scales from data and scales in place: len(scales)
// slots, all live.
func (s *VectorStore) mapChunks(first uint32, data []int8, scales []float32) {
	n := len(scales)
	end := int(first) + n
	if end > len(s.live) {
		s.live = slices.Grow(s.live, end-len(s.live))[:end]
	}
	for c := 0; c*vecChunk < n; c++ {
		ci := int(first)/vecChunk + c
		for len(s.data) <= ci {
			s.data = append(s.data, nil)
			s.scales = append(s.scales, nil)
		}
		hi := min(n, (c+1)*vecChunk)
		s.data[ci] = data[c*vecChunk*s.dim : hi*s.dim : hi*s.dim]
		s.scales[ci] = scales[c*vecChunk : hi : hi]
	}
	for i := first; i < uint32(end); i++ {
		if !s.live[i] {
			s.live[i] = true
			s.n++
		}
	}
}

// readRowsFrom makes TopK read the rows of the chunks mapped from data (the
// mapping of f) with pread. The store owns f from then on.
func (s *VectorStore) readRowsFrom(f *os.File, data []byte) {
	if len(data) == 0 {
		f.Close()
		return
	}
	lo := uintptr(unsafe.Pointer(unsafe.SliceData(data)))
	hi := lo + uintptr(len(data))
	s.file = f
	s.fileOff = make([]int64, len(s.data))
	for ci, c := range s.data {
		s.fileOff[ci] = -1
		if len(c) == 0 {
			continue
		}
		if p := uintptr(unsafe.Pointer(unsafe.SliceData(c))); p >= lo && p+uintptr(len(c)) <= hi {
			s.fileOff[ci] = int64(p - lo)
		}
	}
}

// closeFile stops reading rows with pread (TopK reads them in place).
func (s *VectorStore) closeFile() {
	if s.file != nil {
		s.file.Close()
		s.file, s.fileOff = nil, nil
	}
}

// written notes that chunk ci no longer matches the file.
func (s *VectorStore) written(ci int) {
	if ci < len(s.fileOff) {
		s.fileOff[ci] = -1
	}
}

// inFile returns where chunk ci's rows are in the file, or -1.
func (s *VectorStore) inFile(ci int) int64 {
	if ci < len(s.fileOff) {
		return s.fileOff[ci]
	}
	return -1
}

// ScoredSlot is a slot with its score against a query.
type ScoredSlot struct {
	Slot  uint32
	Score float32
}

// NewVectorStore returns an empty store of vectors of dimension dim. A dim
// below 1 or above 65536 gives a store that rejects every vector.
func NewVectorStore(dim int) *VectorStore {
	return &VectorStore{dim: dim}
}

// Dim returns the dimension of the stored vectors.
func (s *VectorStore) Dim() int { return s.dim }

// Len returns the number of slots holding a vector.
func (s *VectorStore) Len() int { return s.n }

// Has reports whether slot holds a vector.
func (s *VectorStore) Has(slot uint32) bool {
	return int64(slot) < int64(len(s.live)) && s.live[slot] && s.readable(slot/vecChunk)
}

// readable reports whether chunk ci may be read: it is not a damaged
// segment's (lazy.go).
func (s *VectorStore) readable(ci uint32) bool {
	return int(ci) >= len(s.gates) || s.gates[ci].open()
}

// gateChunks makes the chunks of the n slots from first on readable once
// g opens.
func (s *VectorStore) gateChunks(first uint32, n int, g *segGate) {
	for c := int(first) / vecChunk; c*vecChunk < int(first)+n; c++ {
		for len(s.gates) <= c {
			s.gates = append(s.gates, nil)
		}
		s.gates[c] = g
	}
}

// Set stores v in slot, replacing what it held; the store grows as needed.
// It rejects a vector of the wrong length or with a NaN or infinite
// component, and a slot beyond 2^26.
func (s *VectorStore) Set(slot uint32, v []float32) error {
	if s.dim < 1 || s.dim > vecMaxDim {
		return fmt.Errorf("vector store: dimension %d cannot hold vectors (want 1 to %d)", s.dim, vecMaxDim)
	}
	if len(v) != s.dim {
		return fmt.Errorf("vector store: slot %d: vector of length %d, want %d", slot, len(v), s.dim)
	}
	if slot >= vecMaxSlots {
		return fmt.Errorf("vector store: slot %d out of range (max %d)", slot, vecMaxSlots-1)
	}
	var m float32
	for i, x := range v {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return fmt.Errorf("vector store: slot %d: component %d is %v", slot, i, x)
		}
		m = max(m, vecAbs32(x))
	}
	if n := int(slot) + 1; n > len(s.live) {
		s.live = slices.Grow(s.live, n-len(s.live))[:n]
	}
	ci := int(slot / vecChunk)
	for len(s.data) <= ci {
		s.data = append(s.data, nil)
		s.scales = append(s.scales, nil)
	}
	s.ownChunk(ci)
	if len(s.scales[ci]) <= int(slot%vecChunk) {
		// A new chunk, or a mapped one shorter than the slot: a full
		// chunk of its own.
		s.readable(uint32(ci))
		d := make([]int8, vecChunk*s.dim)
		sc := make([]float32, vecChunk)
		copy(d, s.data[ci])
		copy(sc, s.scales[ci])
		s.data[ci], s.scales[ci] = d, sc
	}
	s.written(ci)
	s.scales[ci][slot%vecChunk] = vecQuantize(v, m, s.row(slot))
	if !s.live[slot] {
		s.live[slot] = true
		s.n++
	}
	return nil
}

func vecAbs32(x float32) float32 {
	return math.Float32frombits(math.Float32bits(x) &^ (1 << 31))
}

// vecQuantize writes v, whose largest magnitude is m, to dst as int8 and
// returns the scale that maps them back (0 for a zero vector).
func vecQuantize(v []float32, m float32, dst []int8) float32 {
	if m == 0 {
		clear(dst)
		return 0
	}
	inv := 127 / m
	dst = dst[:len(v)]
	for i, x := range v {
		dst[i] = int8(max(-127, min(127, math.Round(float64(x*inv)))))
	}
	return m / 127
}

// vecQuery quantizes a query into buf (grown if needed). ok is false when q
// has the wrong length or a NaN or infinite component.
func (s *VectorStore) vecQuery(q []float32, buf []int8) (qq []int8, scale float32, ok bool) {
	if len(q) != s.dim || s.dim == 0 {
		return nil, 0, false
	}
	var m float32
	for _, x := range q {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return nil, 0, false
		}
		m = max(m, vecAbs32(x))
	}
	qq = slices.Grow(buf[:0], len(q))[:len(q)]
	return qq, vecQuantize(q, m, qq), true
}

// Clear removes the vector of slot, if any.
func (s *VectorStore) Clear(slot uint32) {
	if !s.Has(slot) {
		return
	}
	s.ownChunk(int(slot / vecChunk))
	s.written(int(slot / vecChunk))
	clear(s.row(slot))
	s.scales[slot/vecChunk][slot%vecChunk] = 0
	s.live[slot] = false
	s.n--
}

// Get returns the (dequantized) vector of slot in dst, resized to Dim, or
// dst[:0] if the slot holds no vector.
func (s *VectorStore) Get(slot uint32, dst []float32) []float32 {
	if !s.Has(slot) {
		return dst[:0]
	}
	dst = slices.Grow(dst[:0], s.dim)[:s.dim]
	sc := s.scale(slot)
	for i, x := range s.row(slot) {
		dst[i] = float32(x) * sc
	}
	return dst
}

// Dot returns the dot product of q with the vector of slot (the hashEmbCosine, for
// unit vectors), computed as TopK scores it. It is 0 if the slot holds no
// vector, len(q) != Dim or q has a NaN or infinite component.
func (s *VectorStore) Dot(slot uint32, q []float32) float32 {
	if !s.Has(slot) {
		return 0
	}
	var stack [vecStackDim]int8
	qq, qs, ok := s.vecQuery(q, stack[:])
	if !ok {
		return 0
	}
	return float32(vecDot(s.row(slot), qq)) * s.scale(slot) * qs
}

// TopK returns the k slots whose vectors have the highest dot product with
// q, best first, ties broken by lower slot, appended to dst[:0]. It
// considers the given slots (those holding no vector are skipped) or, when
// slots is nil, every slot holding a vector. The result is empty when k <
// 1, len(q) != Dim or q has a NaN or infinite component.
func (s *VectorStore) TopK(q []float32, slots []uint32, k int, dst []ScoredSlot) []ScoredSlot {
	return s.topK(q, slots, k, dst, nil)
}

// topKLive is topK's heap over every live slot of a store held in memory.
func (s *VectorStore) topKLive(h []ScoredSlot, k int, qq []int8, qs float32, worse func(a, b ScoredSlot) bool) []ScoredSlot {
	for slot, ok := range s.live {
		if ok && s.readable(uint32(slot/vecChunk)) {
			sc := float32(vecDot(s.row(uint32(slot)), qq)) * s.scale(uint32(slot)) * qs
			if len(h) == k && sc < h[0].Score {
				continue // out without the tie order (see topK)
			}
			h = topKPush(h, k, ScoredSlot{Slot: uint32(slot), Score: sc}, worse)
		}
	}
	return h
}

// topK is TopK with equal scores in the order order gives (a strict total
// order on slots; nil: by lower slot), decided as the k are kept, so that
// the k kept of many equal scores are the first k in order.
func (s *VectorStore) topK(q []float32, slots []uint32, k int, dst []ScoredSlot, order func(a, b uint32) int) []ScoredSlot {
	worse := vecWorse
	if order != nil {
		worse = func(a, b ScoredSlot) bool {
			return a.Score < b.Score || a.Score == b.Score && order(a.Slot, b.Slot) > 0
		}
	} else {
		order = cmp.Compare[uint32]
	}
	h := dst[:0]
	var stack [vecStackDim]int8
	qq, qs, ok := s.vecQuery(q, stack[:])
	if k < 1 || !ok {
		return h
	}
	if slots == nil && s.file == nil {
		h = s.topKLive(h, k, qq, qs, worse)
	} else {
		if slots == nil {
			slots = make([]uint32, 0, s.n)
			for slot, ok := range s.live {
				if ok {
					slots = append(slots, uint32(slot))
				}
			}
		}
		var buf []int8
		for i := 0; i < len(slots); {
			slot := slots[i]
			ci := int(slot / vecChunk)
			off := s.inFile(ci)
			if off < 0 || !s.Has(slot) {
				if s.Has(slot) {
					sc := float32(vecDot(s.row(slot), qq)) * s.scale(slot) * qs
					if !(len(h) == k && sc < h[0].Score) {
						h = topKPush(h, k, ScoredSlot{Slot: slot, Score: sc}, worse)
					}
				}
				i++
				continue
			}
			// A run of slots of this chunk close together (a file's
			// symbols, files next to each other): one read.
			j, last := i+1, slot
			for j < len(slots) && slots[j] > last && slots[j]/vecChunk == slot/vecChunk && slots[j]-last <= vecRunGap {
				last = slots[j]
				j++
			}
			first := int(slot % vecChunk)
			n := (int(last%vecChunk) - first + 1) * s.dim
			buf = slices.Grow(buf[:0], n)[:n]
			rows := s.data[ci][first*s.dim : first*s.dim+n]
			if _, err := s.file.ReadAt(asBytes(buf), off+int64(first*s.dim)); err == nil {
				rows = buf
			}
			for _, sl := range slots[i:j] {
				if s.Has(sl) {
					o := (int(sl%vecChunk) - first) * s.dim
					sc := float32(vecDot(rows[o:o+s.dim], qq)) * s.scale(sl) * qs
					// A full heap keeps a lower score out without the tie
					// order, as Lexical.selectTop does.
					if len(h) == k && sc < h[0].Score {
						continue
					}
					h = topKPush(h, k, ScoredSlot{Slot: sl, Score: sc}, worse)
				}
			}
			i = j
		}
	}
	slices.SortFunc(h, func(a, b ScoredSlot) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		return order(a.Slot, b.Slot)
	})
	return h
}

// vecRunGap is how far apart (in slots) two slots TopK scores may be and
// still be read in one pread: reading a few rows more costs less than a
// second system call.
const vecRunGap = 16

// vecDot returns Σ a[i]·b[i] over the shorter of the two. The loop takes
// sixteen lanes per step into four independent accumulators, without
// bounds checks (the loop condition proves every index).
func vecDot(a, b []int8) int32 {
	var s0, s1, s2, s3 int32
	for len(a) >= 16 && len(b) >= 16 {
		s0 += int32(a[0])*int32(b[0]) + int32(a[1])*int32(b[1]) + int32(a[2])*int32(b[2]) + int32(a[3])*int32(b[3])
		s1 += int32(a[4])*int32(b[4]) + int32(a[5])*int32(b[5]) + int32(a[6])*int32(b[6]) + int32(a[7])*int32(b[7])
		s2 += int32(a[8])*int32(b[8]) + int32(a[9])*int32(b[9]) + int32(a[10])*int32(b[10]) + int32(a[11])*int32(b[11])
		s3 += int32(a[12])*int32(b[12]) + int32(a[13])*int32(b[13]) + int32(a[14])*int32(b[14]) + int32(a[15])*int32(b[15])
		a, b = a[16:], b[16:]
	}
	for len(a) > 0 && len(b) > 0 {
		s0 += int32(a[0]) * int32(b[0])
		a, b = a[1:], b[1:]
	}
	return (s0 + s1) + (s2 + s3)
}

// vecWorse reports whether a ranks below b.
func vecWorse(a, b ScoredSlot) bool {
	return a.Score < b.Score || a.Score == b.Score && a.Slot > b.Slot
}
