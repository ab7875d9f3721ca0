package merkle

import (
	"fmt"
	"strings"
)

// Op is the kind of a Change.
type Op uint8

// The kinds of change Diff reports.
const (
	// Added: the leaf exists only in the new tree.
	Added Op = iota + 1
	// Removed: the leaf exists only in the old tree.
	Removed
	// Changed: the leaf's key exists in both trees with different hashes.
	Changed
)

// String is the lowercase name of the op ("added", "removed", "changed").
func (o Op) String() string {
	switch o {
	case Added:
		return "added"
	case Removed:
		return "removed"
	case Changed:
		return "changed"
	}
	return "op(invalid)"
}

// Change is one leaf that differs between two trees: the file's path, the
// leaf's key, what happened, and the leaf hash before and after (OldHash is
// meaningful for Removed and Changed, NewHash for Added and Changed).
type Change struct {
	Path    string
	Key     string
	Op      Op
	OldHash uint64
	NewHash uint64
}

// Diff lists the leaves that differ between from and to, grouped by file in
// path order (as Walk) and by key within a file; applying the changes to
// from's leaves yields to's. Subtrees with equal hashes are skipped, so the
// cost follows the size of the change, not of the trees. A file without
// leaves contributes no changes. A nil tree counts as empty; Diff of equal
// trees is empty (nil).
func Diff(from, to *Tree) []Change {
	var out []Change
	return diffFolder(from.top(), to.top(), out)
}

func diffFolder(a, b *folder, out []Change) []Change {
	if a == b || a.hash == b.hash {
		return out
	}
	i, j := 0, 0
	for i < len(a.entries) || j < len(b.entries) {
		var c int
		switch {
		case i == len(a.entries):
			c = 1
		case j == len(b.entries):
			c = -1
		default:
			c = strings.Compare(a.entries[i].name, b.entries[j].name)
		}
		switch {
		case c < 0:
			out = emitAll(&a.entries[i], Removed, out)
			i++
		case c > 0:
			out = emitAll(&b.entries[j], Added, out)
			j++
		default:
			out = diffEntry(&a.entries[i], &b.entries[j], out)
			i++
			j++
		}
	}
	return out
}

// diffEntry compares two entries of the same name.
func diffEntry(ea, eb *entry, out []Change) []Change {
	switch {
	case ea.file != nil && eb.file != nil:
		if ea.hash == eb.hash {
			return out
		}
		return diffLeaves(eb.file.path, ea.file.leaves, eb.file.leaves, out)
	case ea.dir != nil && eb.dir != nil:
		return diffFolder(ea.dir, eb.dir, out)
	case ea.file != nil: // file became a folder: the file sorts first
		out = emitAll(ea, Removed, out)
		return emitAll(eb, Added, out)
	default: // folder became a file
		out = emitAll(eb, Added, out)
		return emitAll(ea, Removed, out)
	}
}

// diffLeaves merges two key-sorted leaf lists of the file at path.
func diffLeaves(path string, a, b []Leaf, out []Change) []Change {
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		var c int
		switch {
		case i == len(a):
			c = 1
		case j == len(b):
			c = -1
		default:
			c = strings.Compare(a[i].Key, b[j].Key)
		}
		switch {
		case c < 0:
			out = append(out, Change{Path: path, Key: a[i].Key, Op: Removed, OldHash: a[i].Hash})
			i++
		case c > 0:
			out = append(out, Change{Path: path, Key: b[j].Key, Op: Added, NewHash: b[j].Hash})
			j++
		default:
			if a[i].Hash != b[j].Hash {
				out = append(out, Change{Path: path, Key: a[i].Key, Op: Changed, OldHash: a[i].Hash, NewHash: b[j].Hash})
			}
			i++
			j++
		}
	}
	return out
}

// emitAll reports every leaf below e as added or removed.
func emitAll(e *entry, op Op, out []Change) []Change {
	if e.file != nil {
		for _, l := range e.file.leaves {
			c := Change{Path: e.file.path, Key: l.Key, Op: op}
			if op == Added {
				c.NewHash = l.Hash
			} else {
				c.OldHash = l.Hash
			}
			out = append(out, c)
		}
		return out
	}
	for i := range e.dir.entries {
		out = emitAll(&e.dir.entries[i], op, out)
	}
	return out
}

// String renders the change for logs and test failures, e.g.
// `changed a/b.go "function F" 1f→2a`.
func (c Change) String() string {
	return fmt.Sprintf("%s %s %q %x→%x", c.Op, c.Path, c.Key, c.OldHash, c.NewHash)
}
