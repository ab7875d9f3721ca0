package heuristics

import (
	"cmp"
	"math"
	"slices"
)

// RRFK is the rank offset k of reciprocal-rank fusion: an item at rank r of
// a list contributes weight/(RRFK + r).
const RRFK = 60

// Ranked is one source's ranked list for fusion.
type Ranked struct {
	// Source names the list (lexical, semantic, mentions, ...).
	Source string
	// Weight scales the list's contributions. A negative, NaN or infinite
	// weight counts as 0: the list still reports ranks but adds no score.
	Weight float64
	// IDs are the items, best first. An ID that repeats counts at its first
	// occurrence only.
	IDs []uint32
}

// Fused is one item of a fused ranking.
type Fused struct {
	// ID is the item.
	ID uint32
	// Score is Σ weight/(RRFK + rank) over the lists that hold the item.
	Score float64
	// Ranks[i] is the item's 1-based rank in lists[i] (its position at the
	// first occurrence), 0 if absent.
	Ranks []int32
}

// FuseBuffer holds the scratch space of Fuse so that repeated calls do not
// allocate beyond their result. The zero value is ready to use. A
// FuseBuffer must not be used by two goroutines at once.
type FuseBuffer struct {
	// table is an open-addressing hash set of the call's IDs: each slot
	// holds 1 + the index of its entry, 0 when empty. Its length is a power
	// of two at least twice the number of IDs, so probes stay short.
	table   []int32
	shift   uint32 // 32 − log2(len(table)): the hash uses the product's top bits
	entries []fuseEntry
	ranks   []int32 // len(entries) × len(lists), one row per entry
}

// reset prepares the buffer for a call with at most n distinct IDs.
func (b *FuseBuffer) reset(n int) {
	size, shift := 16, uint32(28)
	for size < 2*n {
		size, shift = size<<1, shift-1
	}
	b.shift = shift
	if cap(b.table) < size {
		b.table = make([]int32, size)
	} else {
		b.table = b.table[:size]
		clear(b.table)
	}
	b.entries, b.ranks = b.entries[:0], b.ranks[:0]
}

// lookup returns the table slot of id: the slot that holds it, or the empty
// slot where it belongs.
func (b *FuseBuffer) lookup(id uint32) *int32 {
	mask := uint32(len(b.table) - 1)
	for h := (id * 0x9E3779B1) >> b.shift; ; h = (h + 1) & mask {
		s := &b.table[h]
		if *s == 0 || b.entries[*s-1].id == id {
			return s
		}
	}
}

// fuseEntry accumulates one item during Fuse.
type fuseEntry struct {
	id    uint32
	best  int32 // best (lowest) rank over all lists
	row   int32 // index of the item's row in ranks
	score float64
}

// Fuse combines ranked lists by weighted reciprocal-rank fusion. The result
// is sorted by Score descending, ties broken by the best single rank and
// then by ID ascending, so it is deterministic. buf may be nil (a temporary
// buffer is used); with a reused buffer the only allocations are the result
// slice and one shared backing array for all Ranks.
func Fuse(lists []Ranked, buf *FuseBuffer) []Fused {
	if buf == nil {
		buf = &FuseBuffer{}
	}
	total := 0
	for li := range lists {
		total += len(lists[li].IDs)
	}
	buf.reset(total)
	nl := len(lists)
	for li := range lists {
		w := lists[li].Weight
		if !(w > 0) || math.IsInf(w, 1) {
			w = 0
		}
		for pos, id := range lists[li].IDs {
			rank := int32(pos + 1)
			s := buf.lookup(id)
			if *s == 0 {
				e := int32(len(buf.entries))
				*s = e + 1
				buf.entries = append(buf.entries, fuseEntry{id: id, best: rank, row: e})
				buf.ranks = slices.Grow(buf.ranks, nl)[:len(buf.ranks)+nl]
				clear(buf.ranks[len(buf.ranks)-nl:])
			}
			e := int(*s - 1)
			r := &buf.ranks[e*nl+li]
			if *r != 0 {
				continue // repeated ID: the first occurrence counts
			}
			*r = rank
			en := &buf.entries[e]
			en.score += w / float64(RRFK+rank)
			en.best = min(en.best, rank)
		}
	}
	entries, ranks := buf.entries, buf.ranks
	if len(entries) == 0 {
		return nil
	}
	slices.SortFunc(entries, compareFused)
	out := make([]Fused, len(entries))
	all := make([]int32, len(entries)*nl)
	for i, e := range entries {
		row := all[i*nl : (i+1)*nl : (i+1)*nl]
		copy(row, ranks[int(e.row)*nl:])
		out[i] = Fused{ID: e.id, Score: e.score, Ranks: row}
	}
	return out
}

// compareFused orders by score descending, best rank ascending, ID
// ascending. Scores are finite (weights are sanitized) and IDs unique, so
// this is a strict total order and the result is deterministic.
func compareFused(a, b fuseEntry) int {
	switch {
	case a.score > b.score:
		return -1
	case a.score < b.score:
		return 1
	case a.best != b.best:
		return cmp.Compare(a.best, b.best)
	default:
		return cmp.Compare(a.id, b.id)
	}
}
