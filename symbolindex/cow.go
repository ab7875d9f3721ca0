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

// each calls fn with every entry until it returns false.
func (m *cowMap[V]) each(fn func(k string, v V) bool) {
	if m.sh == nil {
		return
	}
	for i := range m.sh {
		for k, v := range m.sh[i].m {
			if !fn(k, v) {
				return
			}
		}
	}
}

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
	fileTab, symFile, symAt, syms, symNamed uint64
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
