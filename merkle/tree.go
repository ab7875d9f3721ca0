package merkle

import (
	"fmt"
	"slices"
	"strings"
	"sync"
)

// Leaf is one symbol of a file as the tree sees it: a key that is unique
// within its file (e.g. "function Foo", "method T.M#2") and the hash of the
// symbol's content.
type Leaf struct {
	Key  string
	Hash uint64
}

// Tree is an immutable snapshot of one workspace folder's content hashes and
// aggregate vectors. Updates return a new *Tree and leave the receiver
// untouched, so any number of goroutines may read a *Tree while another
// derives new versions from it; no locking is needed.
//
// The zero value and a nil *Tree behave as an empty tree without vectors;
// use New to choose the vector dimension.
type Tree struct {
	root *folder
	dim  int
	// scratch pools Descend's buffers. It is shared by every version derived
	// from the same New call and is safe for concurrent use.
	scratch *sync.Pool
}

// folder is an interior node. Its entries are sorted by name; rows[i]
// (dim floats) is the aggregate vector of entries[i] and norms[i] its
// Euclidean length. A file's row is its sum as the update gave it (copied,
// or kept when the update says it is shared); a folder's row is computed.
// Rows are never written once built. A folder other than the root is never
// empty.
type folder struct {
	entries []entry
	rows    [][]float32
	norms   []float32
	hash    uint64
	files   int
}

// entry is one child of a folder: exactly one of dir and file is set.
type entry struct {
	name string
	hash uint64
	dir  *folder
	file *file
}

// file is a leaf node: the file's leaves sorted by key, and its full path.
type file struct {
	path   string
	leaves []Leaf
	hash   uint64
	id     uint32 // Update.ID
}

// New returns an empty tree whose files carry aggregate vectors of dim
// floats. dim 0 (or less) means no vectors: sums passed to updates must be
// nil and Descend is unavailable.
func New(dim int) *Tree {
	if dim < 0 {
		dim = 0
	}
	return &Tree{root: &folder{hash: emptyHash}, dim: dim, scratch: new(sync.Pool)}
}

// top is the root folder, also for a zero or nil Tree.
func (t *Tree) top() *folder {
	if t == nil || t.root == nil {
		return &folder{hash: emptyHash}
	}
	return t.root
}

// Dim is the dimension of the aggregate vectors (0 when the tree has none).
func (t *Tree) Dim() int {
	if t == nil {
		return 0
	}
	return t.dim
}

// Root is the hash of the whole tree. It depends only on the current files
// and their leaves (not on vectors, nor on the order of updates); the empty
// tree always has the same root.
func (t *Tree) Root() uint64 { return t.top().hash }

// RootHex is Root as 16 lowercase hex digits, the form shown in
// stats.merkleRoot.
func (t *Tree) RootHex() string { return fmt.Sprintf("%016x", t.Root()) }

// Files is the number of files in the tree.
func (t *Tree) Files() int { return t.top().files }

// FileHash is the hash of the file at path (computed from its leaves) and
// whether the tree holds that file.
func (t *Tree) FileHash(path string) (uint64, bool) {
	f := t.lookup(path)
	if f == nil {
		return 0, false
	}
	return f.hash, true
}

// FileID is the ID (Update.ID) the file at path was last written with and
// whether the tree holds that file.
func (t *Tree) FileID(path string) (uint32, bool) {
	f := t.lookup(path)
	if f == nil {
		return 0, false
	}
	return f.id, true
}

// Leaves returns a copy of the leaves of the file at path, sorted by key, or
// nil when the tree holds no such file.
func (t *Tree) Leaves(path string) []Leaf {
	f := t.lookup(path)
	if f == nil {
		return nil
	}
	return slices.Clone(f.leaves)
}

// Walk calls fn for every file in path order (segment by segment, byte-wise:
// "a.go" before "a/b.go" before "b.go") with its leaves sorted by key, until
// fn returns false. The leaves slice belongs to the tree: fn must not modify
// it, and should copy it to keep it.
func (t *Tree) Walk(fn func(path string, leaves []Leaf) bool) {
	walkFolder(t.top(), fn)
}

func walkFolder(d *folder, fn func(string, []Leaf) bool) bool {
	for i := range d.entries {
		e := &d.entries[i]
		if e.file != nil {
			if !fn(e.file.path, e.file.leaves[:len(e.file.leaves):len(e.file.leaves)]) {
				return false
			}
		} else if !walkFolder(e.dir, fn) {
			return false
		}
	}
	return true
}

// lookup finds the file at path without allocating, or returns nil.
func (t *Tree) lookup(path string) *file {
	d := t.top()
	rest := path
	for {
		name, tail, more := strings.Cut(rest, "/")
		i, ok := d.find(name)
		if !ok {
			return nil
		}
		e := &d.entries[i]
		if !more {
			return e.file
		}
		if e.dir == nil {
			return nil
		}
		d, rest = e.dir, tail
	}
}

// find is the index of the entry called name, or where it would be inserted.
func (d *folder) find(name string) (int, bool) {
	return slices.BinarySearchFunc(d.entries, name, func(e entry, n string) int {
		return strings.Compare(e.name, n)
	})
}

// row is the aggregate vector of entries[i] (nil when dim is 0).
func (d *folder) row(i, dim int) []float32 {
	if dim == 0 {
		return nil
	}
	return d.rows[i]
}
