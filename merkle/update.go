package merkle

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
)

// Errors returned (wrapped, with the offending path) by updates.
var (
	// ErrBadPath reports a path that is not a clean slash-separated relative
	// path: empty, absolute, with an empty, "." or ".." segment.
	ErrBadPath = errors.New("invalid path")
	// ErrDuplicatePath reports a batch that names the same path twice.
	ErrDuplicatePath = errors.New("path given twice in one batch")
	// ErrDuplicateKey reports two leaves of one file with the same key. Keys
	// must be unique within a file; the caller disambiguates (e.g. "#2").
	ErrDuplicateKey = errors.New("duplicate leaf key")
	// ErrPathConflict reports a file written where a folder is, or below a
	// file.
	ErrPathConflict = errors.New("file and folder at the same path")
	// ErrBadVector reports a sum whose length differs from the tree's
	// dimension or that holds NaN or infinite values.
	ErrBadVector = errors.New("invalid vector")
)

// Update is one change in a batch passed to Apply: either the new content of
// the file at Path, or its removal.
type Update struct {
	// Path is the workspace-relative slash path, e.g. "a/b/c.go".
	Path string
	// Remove deletes the file at Path (a no-op when there is none, or when
	// Path is a folder); Leaves and Sum are then ignored.
	Remove bool
	// Leaves are the file's symbols in any order; keys must be unique.
	Leaves []Leaf
	// Sum is the unnormalized sum of the file's symbol vectors: Dim floats,
	// or nil for a file without vectors (it counts as a zero vector).
	Sum []float32
	// SharedSum says Sum is never modified by the caller: the tree keeps
	// it instead of a copy (a sum read in place from a mapped file).
	SharedSum bool
	// OwnLeaves says Leaves are given to the tree: it sorts and keeps
	// them instead of a copy, and the caller never touches them again.
	OwnLeaves bool
	// ID is the caller's number for the file (symbolindex: its slot),
	// which DescendIDs returns. It is no part of any hash; a write that
	// changes only the ID replaces the file's node all the same.
	ID uint32
}

// WithFile returns a tree in which the file at path has exactly the given
// leaves and aggregate vector, adding it (and its folders) if needed. The
// receiver is unchanged; when the file already has this content the receiver
// itself is returned.
//
// path is a slash-separated relative path ("a/b/c.go"). leaves may come in
// any order (the tree keeps them sorted by key and copies them); a duplicate
// key is an error (ErrDuplicateKey) — callers disambiguate keys themselves,
// e.g. "method T.M#2". sum is the unnormalized sum of the file's symbol
// vectors (Dim floats, copied) or nil. Writing a file where a folder is, or
// below a file, is an error (ErrPathConflict).
func (t *Tree) WithFile(path string, leaves []Leaf, sum []float32) (*Tree, error) {
	return t.Apply([]Update{{Path: path, Leaves: leaves, Sum: sum}})
}

// WithoutFile returns a tree without the file at path; folders left empty
// are removed too. When there is no such file (including when path is a
// folder or not a valid path) the receiver itself is returned.
func (t *Tree) WithoutFile(path string) *Tree {
	nt, err := t.Apply([]Update{{Path: path, Remove: true}})
	if err != nil {
		return t
	}
	return nt
}

// Apply returns a tree with all updates applied, copying each touched
// folder once: use it for the initial build and for changes to many files
// at once. Removals are applied before writes, so a batch may replace a
// file by a folder of the same name or the reverse; a path may appear only
// once per batch. On error the receiver is unchanged and nothing is
// applied.
func (t *Tree) Apply(updates []Update) (*Tree, error) {
	dim := t.Dim()
	ops := make([]op, 0, len(updates))
	nRemove := 0
	for i := range updates {
		u := &updates[i]
		segs, err := splitPath(u.Path)
		if err != nil {
			return nil, err
		}
		o := op{segs: segs, path: u.Path}
		if u.Remove {
			nRemove++
		} else {
			if o.norm, err = checkSum(u.Path, u.Sum, dim); err != nil {
				return nil, err
			}
			if o.file, err = newFile(u.Path, u.Leaves, u.OwnLeaves); err != nil {
				return nil, err
			}
			o.file.id = u.ID
			o.vec, o.shared = u.Sum, u.SharedSum
		}
		ops = append(ops, o)
	}
	slices.SortFunc(ops, func(a, b op) int { return slices.Compare(a.segs, b.segs) })
	for i := 1; i < len(ops); i++ {
		if slices.Equal(ops[i-1].segs, ops[i].segs) {
			return nil, fmt.Errorf("merkle: %q: %w", ops[i].path, ErrDuplicatePath)
		}
	}
	removes := make([]op, 0, nRemove)
	writes := make([]op, 0, len(ops)-nRemove)
	for _, o := range ops {
		if o.file == nil {
			removes = append(removes, o)
		} else {
			writes = append(writes, o)
		}
	}

	b := builder{dim: dim}
	if dim > 0 {
		b.acc = make([]float64, dim)
	}
	orig := t.top()
	root := orig
	if len(removes) > 0 {
		root = b.remove(root, removes, 0)
	}
	if len(writes) > 0 {
		var err error
		if root, err = b.write(root, writes, 0); err != nil {
			return nil, err
		}
	}
	if root == orig && t != nil {
		return t, nil
	}
	return &Tree{root: root, dim: dim, scratch: t.pool()}, nil
}

// pool is the scratch pool shared by the versions of this tree.
func (t *Tree) pool() *sync.Pool {
	if t == nil || t.scratch == nil {
		return new(sync.Pool)
	}
	return t.scratch
}

// splitPath validates a slash-separated relative path and splits it.
func splitPath(path string) ([]string, error) {
	bad := func(why string) error {
		return fmt.Errorf("merkle: %q: %w: %s", path, ErrBadPath, why)
	}
	if path == "" {
		return nil, bad("empty")
	}
	if path[0] == '/' {
		return nil, bad("must be relative to the workspace folder")
	}
	segs := strings.Split(path, "/")
	for _, s := range segs {
		switch s {
		case "":
			return nil, bad("empty segment (trailing or double slash)")
		case ".", "..":
			return nil, bad(fmt.Sprintf("segment %q is not allowed", s))
		}
	}
	return segs, nil
}

// checkSum validates a file's aggregate vector against the tree's dim and
// returns its norm, in one pass over it: the sum of the squares is finite
// exactly when every value is (the square of a finite float32 is far from
// overflowing a float64).
func checkSum(path string, sum []float32, dim int) (float32, error) {
	if len(sum) == 0 {
		return 0, nil
	}
	if dim == 0 {
		return 0, fmt.Errorf("merkle: %q: %w: sum has %d dimensions but the tree has no vectors (dim 0)", path, ErrBadVector, len(sum))
	}
	if len(sum) != dim {
		return 0, fmt.Errorf("merkle: %q: %w: sum has %d dimensions, the tree has %d", path, ErrBadVector, len(sum), dim)
	}
	s := sumSquares(sum)
	if !math.IsNaN(s) && !math.IsInf(s, 0) {
		return float32(math.Sqrt(s)), nil
	}
	for i, v := range sum {
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			return 0, fmt.Errorf("merkle: %q: %w: sum[%d] is %v", path, ErrBadVector, i, v)
		}
	}
	return 0, fmt.Errorf("merkle: %q: %w: its norm is %v", path, ErrBadVector, s) // not reached
}

// newFile copies (unless own) and sorts leaves, rejects duplicate keys and
// hashes them.
func newFile(path string, leaves []Leaf, own bool) (*file, error) {
	ls := leaves
	if !own {
		ls = slices.Clone(leaves)
	}
	slices.SortFunc(ls, func(a, b Leaf) int { return strings.Compare(a.Key, b.Key) })
	for i := 1; i < len(ls); i++ {
		if ls[i].Key == ls[i-1].Key {
			return nil, fmt.Errorf("merkle: %q: %w %q", path, ErrDuplicateKey, ls[i].Key)
		}
	}
	return &file{path: path, leaves: ls, hash: hashLeaves(ls)}, nil
}

// op is one validated update, sorted by path segments.
type op struct {
	segs   []string
	path   string
	file   *file     // nil for a removal
	vec    []float32 // the caller's sum; copied when the folder is built unless shared
	shared bool
	norm   float32 // vec's, as checkSum computed it
}

// edit is the new state of one entry of a folder being copied.
type edit struct {
	name   string
	del    bool
	e      entry
	vec    []float32 // a file's sum (nil = zero); folders are aggregated
	shared bool      // vec may be kept as the row
	norm   float32   // vec's norm, for a file
}

// builder copies the folders on the paths of one batch.
type builder struct {
	dim  int
	acc  []float64 // dim accumulators for folder aggregates
	zero []float32 // the row of every file without a sum
}

// groupEnd is the end of the run of ops sharing ops[j].segs[depth].
func groupEnd(ops []op, j, depth int) int {
	name := ops[j].segs[depth]
	end := j + 1
	for end < len(ops) && ops[end].segs[depth] == name {
		end++
	}
	return end
}

// remove returns d without the files named by ops (all below d, sorted),
// or d itself when none of them exists. The result may be empty; the caller
// drops it unless it is the root.
func (b *builder) remove(d *folder, ops []op, depth int) *folder {
	var edits []edit
	for j := 0; j < len(ops); {
		end := groupEnd(ops, j, depth)
		grp := ops[j:end]
		j = end
		name := grp[0].segs[depth]
		i, ok := d.find(name)
		if !ok {
			continue
		}
		e := &d.entries[i]
		fileLevel := len(grp[0].segs) == depth+1 // sorts first in its group
		if e.file != nil {
			if fileLevel {
				edits = append(edits, edit{name: name, del: true})
			}
			continue
		}
		if fileLevel {
			grp = grp[1:] // removing a folder's name as a file is a no-op
		}
		if len(grp) == 0 {
			continue
		}
		nd := b.remove(e.dir, grp, depth+1)
		switch {
		case nd == e.dir:
		case len(nd.entries) == 0:
			edits = append(edits, edit{name: name, del: true})
		default:
			edits = append(edits, edit{name: name, e: entry{name: name, hash: nd.hash, dir: nd}})
		}
	}
	if len(edits) == 0 {
		return d
	}
	return b.merge(d, edits)
}

// write returns d with the files of ops (all below d, sorted) written, or d
// itself when every one of them already has that content.
func (b *builder) write(d *folder, ops []op, depth int) (*folder, error) {
	var edits []edit
	for j := 0; j < len(ops); {
		end := groupEnd(ops, j, depth)
		grp := ops[j:end]
		j = end
		name := grp[0].segs[depth]
		i, ok := d.find(name)
		if len(grp[0].segs) == depth+1 { // a file called name
			o := &grp[0]
			if len(grp) > 1 {
				return nil, fmt.Errorf("merkle: %q: %w: %q is also written as a file", grp[1].path, ErrPathConflict, o.path)
			}
			if ok && d.entries[i].dir != nil {
				return nil, fmt.Errorf("merkle: %q: %w: it is a folder", o.path, ErrPathConflict)
			}
			if ok && b.sameFile(d, i, o) {
				continue
			}
			edits = append(edits, edit{name: name, e: entry{name: name, hash: o.file.hash, file: o.file}, vec: o.vec, shared: o.shared, norm: o.norm})
			continue
		}
		child := &folder{hash: emptyHash}
		if ok {
			if d.entries[i].file != nil {
				return nil, fmt.Errorf("merkle: %q: %w: %q is a file", grp[0].path, ErrPathConflict, strings.Join(grp[0].segs[:depth+1], "/"))
			}
			child = d.entries[i].dir
		}
		nd, err := b.write(child, grp, depth+1)
		if err != nil {
			return nil, err
		}
		if nd != child {
			edits = append(edits, edit{name: name, e: entry{name: name, hash: nd.hash, dir: nd}})
		}
	}
	if len(edits) == 0 {
		return d, nil
	}
	return b.merge(d, edits), nil
}

// sameFile reports whether entries[i] of d is a file with exactly o's leaves,
// vector and ID, so that writing o changes nothing.
func (b *builder) sameFile(d *folder, i int, o *op) bool {
	f := d.entries[i].file
	if f.hash != o.file.hash || f.id != o.file.id || !slices.Equal(f.leaves, o.file.leaves) {
		return false
	}
	if b.dim == 0 {
		return true
	}
	if len(o.vec) == 0 {
		return d.norms[i] == 0
	}
	return slices.Equal(d.row(i, b.dim), o.vec)
}

// merge builds a copy of d with edits (sorted by name) applied, computing
// the vectors of new entries and the folder's hash and file count.
func (b *builder) merge(d *folder, edits []edit) *folder {
	n := len(d.entries)
	for _, ed := range edits {
		_, exists := d.find(ed.name)
		switch {
		case ed.del && exists:
			n--
		case !ed.del && !exists:
			n++
		}
	}
	dim := b.dim
	g := &folder{entries: make([]entry, 0, n)}
	if dim > 0 {
		g.rows = make([][]float32, 0, n)
		g.norms = make([]float32, 0, n)
	}
	i, j := 0, 0
	for i < len(d.entries) || j < len(edits) {
		if j == len(edits) || (i < len(d.entries) && d.entries[i].name < edits[j].name) {
			g.entries = append(g.entries, d.entries[i])
			if dim > 0 {
				g.rows = append(g.rows, d.rows[i])
				g.norms = append(g.norms, d.norms[i])
			}
			i++
			continue
		}
		ed := &edits[j]
		if i < len(d.entries) && d.entries[i].name == ed.name {
			i++
		}
		j++
		if ed.del {
			continue
		}
		g.entries = append(g.entries, ed.e)
		if dim == 0 {
			continue
		}
		var row []float32
		n := ed.norm // a file's, computed when its sum was checked
		switch {
		case ed.e.dir != nil:
			row = b.aggregate(ed.e.dir)
			n = norm(row)
		case len(ed.vec) > 0 && ed.shared:
			row = ed.vec[:dim:dim]
		case len(ed.vec) > 0:
			row = slices.Clone(ed.vec)
		default:
			if b.zero == nil {
				b.zero = make([]float32, dim)
			}
			row, n = b.zero, 0
		}
		g.rows = append(g.rows, row)
		g.norms = append(g.norms, n)
	}
	g.hash = hashEntries(g.entries)
	for k := range g.entries {
		if g.entries[k].file != nil {
			g.files++
		} else {
			g.files += g.entries[k].dir.files
		}
	}
	return g
}

// aggregate returns the sum of d's rows, accumulated in float64 in entry
// order. It is a pure function of d's content, so a folder's aggregate
// does not depend on the history of updates.
func (b *builder) aggregate(d *folder) []float32 {
	acc := b.acc
	clear(acc)
	for _, row := range d.rows {
		row = row[:len(acc)]
		for k, v := range row {
			acc[k] += float64(v)
		}
	}
	dst := make([]float32, len(acc))
	for k, v := range acc {
		dst[k] = float32(v)
	}
	return dst
}

// norm is the Euclidean length of v.
func norm(v []float32) float32 { return float32(math.Sqrt(sumSquares(v))) }

// sumSquares is the sum of the squares of v, accumulated in float64.
func sumSquares(v []float32) float64 {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	return s
}
