package merkle

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
)

// noVector is the score of a node whose aggregate vector is zero (files
// given no sum): below every cosine, so such files come last.
const noVector float32 = -2

// Descend returns up to maxFiles file paths whose aggregate vectors are
// nearest to query by cosine similarity, best first, without scoring every
// file: it runs a best-first beam search from the root over the folders'
// aggregates (the sums of their files' vectors).
//
// At each folder it scores all children: its files join the frontier, and
// only its k best subfolders are explored; the other subfolders are set
// aside and explored (best first) only when the frontier runs dry before
// maxFiles files are found. The frontier is popped best first, a file being
// collected and a folder expanded, until maxFiles files are collected. k ≤ 0
// means no beam limit (plain best-first). With maxFiles ≥ Files() every file
// is returned, ordered by cosine. Files without vectors come after all
// others.
//
// The result is approximate for maxFiles < Files(): a good file inside a
// folder whose aggregate points elsewhere can be missed. It is an error to
// call Descend on a tree without vectors, with a query of the wrong
// dimension, or with a zero or non-finite query.
func (t *Tree) Descend(query []float32, maxFiles, k int) ([]string, error) {
	paths, _, err := t.descend(query, maxFiles, k)
	return paths, err
}

// DescendIDs chooses the files Descend does and appends their IDs
// (Update.ID) to dst, in the order the descent reached them: for a caller
// that wants the files, not their paths or order (symbolindex's slots,
// without looking each path up).
func (t *Tree) DescendIDs(query []float32, maxFiles, k int, dst []uint32) ([]uint32, error) {
	s, _, err := t.descendHits(query, maxFiles, k)
	if s == nil {
		return dst, err
	}
	defer t.putScratch(s)
	for i := range s.hits {
		dst = append(dst, s.hits[i].id)
	}
	return dst, nil
}

// hitOrder puts hits best score first, then by path.
func hitOrder(a, b hit) int {
	switch {
	case a.score > b.score:
		return -1
	case a.score < b.score:
		return 1
	}
	return strings.Compare(a.path, b.path)
}

// descend is Descend that also reports how many nodes it scored.
func (t *Tree) descend(query []float32, maxFiles, k int) ([]string, int, error) {
	s, scored, err := t.descendHits(query, maxFiles, k)
	if s == nil {
		return nil, 0, err
	}
	defer t.putScratch(s)
	slices.SortFunc(s.hits, hitOrder)
	out := make([]string, len(s.hits))
	for i := range s.hits {
		out[i] = s.hits[i].path
	}
	return out, scored, nil
}

// descendHits collects the files of a descent in the hits of a scratch
// the caller gives back (putScratch); a nil scratch when there is nothing
// to collect, with the error if any. It also reports how many nodes it
// scored.
func (t *Tree) descendHits(query []float32, maxFiles, k int) (*scratch, int, error) {
	dim := t.Dim()
	if dim == 0 {
		return nil, 0, errors.New("merkle: descend: the tree has no vectors (built with dim 0)")
	}
	if len(query) != dim {
		return nil, 0, fmt.Errorf("merkle: descend: query has %d dimensions, the tree has %d", len(query), dim)
	}
	qn := norm(query)
	if qn == 0 || math.IsNaN(float64(qn)) || math.IsInf(float64(qn), 0) {
		return nil, 0, fmt.Errorf("merkle: descend: query vector is zero or not finite (norm %v)", qn)
	}
	root := t.top()
	if maxFiles <= 0 || root.files == 0 {
		return nil, 0, nil
	}
	maxFiles = min(maxFiles, root.files)

	s := t.getScratch()
	q := query[:dim:dim]
	scored := s.expand(root, q, qn, dim, k)
	for len(s.hits) < maxFiles && len(s.heap) > 0 {
		c := s.pop()
		if c.file != nil {
			s.hits = append(s.hits, hit{score: c.score, path: c.file.path, id: c.file.id})
			continue
		}
		scored += s.expand(c.dir, q, qn, dim, k)
	}
	return s, scored, nil
}

// cand is a node on the search frontier.
type cand struct {
	score    float32
	deferred bool // a folder not among its parent's k best subfolders
	dir      *folder
	file     *file
}

// hit is a collected file.
type hit struct {
	score float32
	path  string
	id    uint32
}

// scratch holds one Descend's buffers; Trees pool them.
type scratch struct {
	heap []cand
	hits []hit
	used int // high-water mark of heap, cleared before pooling
}

func (t *Tree) getScratch() *scratch {
	if t.scratch != nil {
		if s, ok := t.scratch.Get().(*scratch); ok {
			return s
		}
	}
	return &scratch{}
}

// putScratch drops the node pointers (so the pool pins no snapshot) and
// pools s.
func (t *Tree) putScratch(s *scratch) {
	clear(s.heap[:s.used])
	clear(s.hits)
	s.heap, s.hits, s.used = s.heap[:0], s.hits[:0], 0
	if t.scratch != nil {
		t.scratch.Put(s)
	}
}

// better orders the frontier: beam before deferred, then higher score.
func better(a, b *cand) bool {
	if a.deferred != b.deferred {
		return !a.deferred
	}
	return a.score > b.score
}

// expand scores the children of d against q (norm qn), marks all but the k
// best subfolders as deferred and pushes all children (files are never
// deferred: they are scored already). It returns the number scored.
func (s *scratch) expand(d *folder, q []float32, qn float32, dim, k int) int {
	n := len(d.entries)
	base := len(s.heap)
	s.heap = slices.Grow(s.heap, n)
	for i := 0; i < n; i++ {
		score := noVector
		if nr := d.norms[i]; nr > 0 {
			score = dot(q, d.rows[i][:dim]) / (qn * nr)
		}
		e := &d.entries[i]
		s.heap = append(s.heap, cand{score: score, dir: e.dir, file: e.file})
	}
	if k > 0 && k < n {
		// Subfolders first, best first; the ones after the k best wait.
		added := s.heap[base:]
		slices.SortFunc(added, func(a, b cand) int {
			switch {
			case (a.dir == nil) != (b.dir == nil):
				if a.dir != nil {
					return -1
				}
				return 1
			case a.score > b.score:
				return -1
			case a.score < b.score:
				return 1
			}
			return 0
		})
		for i := k; i < n && added[i].dir != nil; i++ {
			added[i].deferred = true
		}
	}
	for i := base; i < len(s.heap); i++ {
		s.up(i)
	}
	s.used = max(s.used, len(s.heap))
	return n
}

func (s *scratch) up(i int) {
	h := s.heap
	for i > 0 {
		p := (i - 1) / 2
		if !better(&h[i], &h[p]) {
			return
		}
		h[i], h[p] = h[p], h[i]
		i = p
	}
}

func (s *scratch) pop() cand {
	h := s.heap
	top := h[0]
	last := len(h) - 1
	h[0] = h[last]
	h = h[:last]
	s.heap = h
	i := 0
	for {
		l := 2*i + 1
		if l >= len(h) {
			break
		}
		c := l
		if r := l + 1; r < len(h) && better(&h[r], &h[l]) {
			c = r
		}
		if !better(&h[c], &h[i]) {
			break
		}
		h[i], h[c] = h[c], h[i]
		i = c
	}
	return top
}

// dot is the inner product of two equally long vectors.
func dot(a, b []float32) float32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += a[i] * b[i]
		s1 += a[i+1] * b[i+1]
		s2 += a[i+2] * b[i+2]
		s3 += a[i+3] * b[i+3]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return s0 + s1 + s2 + s3
}
