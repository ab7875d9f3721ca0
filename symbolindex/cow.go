package symbolindex

import (
	"hash/maphash"
	"maps"
	"slices"
)

// Copy-on-write. A reader works on a frozen copy of the index (Freeze): a
// shallow copy of the Index, Lexical and VectorStore structs, whose slices
// and maps share their backing memory with the writer's. The writer keeps
// an epoch, bumped by every Freeze; each piece of shared memory it may
// write in place carries the epoch it was made (copied) in, and a write to
// a piece of an older epoch copies it first. Appending beyond a slice's
// length needs no copy: a frozen copy never reads past its own length, and
// nothing is ever shortened in place (a removal copies). So the writer
// never waits for a reader, and a frozen copy never changes.

// cowOwn returns s, copied first if its stamp is not epoch.
func cowOwn[T any](s []T, stamp *uint64, epoch uint64) []T {
	if *stamp == epoch {
		return s
	}
	*stamp = epoch
	return slices.Clone(s)
}

// cowShards is the number of shards of a cowMap: a write copies one shard
// (and the array of shard pointers once per epoch), not the whole map.
const cowShards = 256

var cowSeed = maphash.MakeSeed()

type cowShard[V any] struct {
	m     map[string]V
	stamp uint64
}

// cowMap is a map from strings that copies on write, shard by shard.
// Iteration order is unspecified, as a Go map's is.
type cowMap[V any] struct {
	sh    *[cowShards]cowShard[V]
	stamp uint64
	n     int
}

func cowShardOf(k string) int { return int(maphash.String(cowSeed, k) % cowShards) }

func (m *cowMap[V]) get(k string) (V, bool) {
	if m.sh == nil {
		var zero V
		return zero, false
	}
	v, ok := m.sh[cowShardOf(k)].m[k]
	return v, ok
}

// at is get without the ok.
func (m *cowMap[V]) at(k string) V {
	v, _ := m.get(k)
	return v
}

func (m *cowMap[V]) len() int { return m.n }

// shard returns the writable shard of k in epoch.
func (m *cowMap[V]) shard(k string, epoch uint64) map[string]V {
	if m.sh == nil {
		m.sh = new([cowShards]cowShard[V])
		m.stamp = epoch
	} else if m.stamp != epoch {
		cp := *m.sh
		m.sh, m.stamp = &cp, epoch
	}
	s := &m.sh[cowShardOf(k)]
	if s.m == nil {
		s.m, s.stamp = make(map[string]V), epoch
	} else if s.stamp != epoch {
		s.m, s.stamp = maps.Clone(s.m), epoch
	}
	return s.m
}

func (m *cowMap[V]) set(k string, v V, epoch uint64) {
	s := m.shard(k, epoch)
	if _, ok := s[k]; !ok {
		m.n++
	}
	s[k] = v
}

func (m *cowMap[V]) del(k string, epoch uint64) {
	if _, ok := m.get(k); !ok {
		return
	}
	delete(m.shard(k, epoch), k)
	m.n--
}

// cowStamps are the epochs of the Index's slices written in place.
type ixStamps struct {
	fileTab, symFile, symAt, symNamed uint64
}

// removeSlotCopy returns list without its first x (the last element takes
// its place), in a new slice: list itself may be shared.
func removeSlotCopy(list []uint32, x uint32) []uint32 {
	i := slices.Index(list, x)
	if i < 0 {
		return list
	}
	out := make([]uint32, len(list)-1, len(list))
	copy(out, list[:len(list)-1])
	if i < len(out) {
		out[i] = list[len(list)-1]
	}
	return out
}

// cowChunkBits sets the size of a cowArr's chunks: 1,024 elements, the
// vector store's chunk (vecChunk).
const (
	cowChunkBits = 10
	cowChunk     = 1 << cowChunkBits
)

// cowArr is a slice that copies on write chunk by chunk: a write to an
// element copies the table of chunks (one slice header a chunk) once per
// epoch and the element's chunk, not the whole array, so that an edit
// after a Freeze costs a few kilobytes at any size. Appending needs no
// copy of a chunk: a frozen copy never reads past its own length, and
// the chunk's slice header it holds keeps its own length.
type cowArr[T any] struct {
	ch     [][]T    // chunks of cowChunk elements; the last may be shorter
	stamps []uint64 // by chunk: the epoch it was made (copied) in
	stamp  uint64   // the epoch ch and stamps were made (copied) in
	n      int
}

// cowArrMake returns a cowArr of n zero values, made in epoch.
func cowArrMake[T any](n int, epoch uint64) cowArr[T] {
	a := cowArr[T]{stamp: epoch, n: n}
	for n > 0 {
		k := min(n, cowChunk)
		a.ch = append(a.ch, make([]T, k))
		a.stamps = append(a.stamps, epoch)
		n -= k
	}
	return a
}

// cowArrOf returns a cowArr holding s's elements, made in epoch.
func cowArrOf[T any](s []T, epoch uint64) cowArr[T] {
	var a cowArr[T]
	a.stamp = epoch
	for len(s) > 0 {
		k := min(len(s), cowChunk)
		a.ch = append(a.ch, slices.Clone(s[:k]))
		a.stamps = append(a.stamps, epoch)
		s = s[k:]
		a.n += k
	}
	return a
}

func (a *cowArr[T]) len() int { return a.n }

// at returns element i.
func (a *cowArr[T]) at(i uint32) T { return a.ch[i>>cowChunkBits][i&(cowChunk-1)] }

// ref returns a pointer to element i, to be read only.
func (a *cowArr[T]) ref(i uint32) *T { return &a.ch[i>>cowChunkBits][i&(cowChunk-1)] }

// ownTable makes the table of chunks writable in epoch.
func (a *cowArr[T]) ownTable(epoch uint64) {
	if a.stamp != epoch {
		a.ch, a.stamps, a.stamp = slices.Clone(a.ch), slices.Clone(a.stamps), epoch
	}
}

// own returns a writable pointer to element i in epoch, copying its chunk
// first if it was made in an older one.
func (a *cowArr[T]) own(i uint32, epoch uint64) *T {
	c := i >> cowChunkBits
	if a.stamps[c] != epoch {
		a.ownTable(epoch)
		a.ch[c], a.stamps[c] = slices.Clone(a.ch[c]), epoch
	}
	return &a.ch[c][i&(cowChunk-1)]
}

// set writes element i in epoch.
func (a *cowArr[T]) set(i uint32, v T, epoch uint64) { *a.own(i, epoch) = v }

// push appends v in epoch.
func (a *cowArr[T]) push(v T, epoch uint64) {
	a.ownTable(epoch)
	if a.n&(cowChunk-1) == 0 {
		a.ch = append(a.ch, make([]T, 0, min(cowChunk, max(8, a.n))))
		a.stamps = append(a.stamps, epoch)
	}
	c := len(a.ch) - 1
	a.ch[c] = append(a.ch[c], v)
	a.n++
}
