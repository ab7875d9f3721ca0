package symbolindex

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
)

// A loaded index checks each segment's head (the records, strings, sums
// and term tables it builds its hash tables from) when it loads, and each
// segment's body (vectors, postings, documents' term lists, signatures and
// doc comments: two thirds of the file) the first time a read needs it,
// so that a restart from a cold page cache reads the heads and what its
// requests use rather than the whole file. A body has four parts, each
// with its checksum (postings, documents' terms, vectors, text), so that
// a lexical search checks the postings alone. Every read of a part goes
// through its gate: the first one checksums the part and checks its
// structure; a sound part is read from then on at the cost of an atomic
// load; a damaged one is never read: its postings, vectors, doc terms,
// signatures or references read as absent, and the index reports
// itself corrupt (Index.Corrupt, Index.OnCorrupt) for its owner to build
// it again. Save refuses to write an index that found a damaged body.

// segGate guards one part of the body of one mapped segment. The nil
// gate (a segment not from a file) is open.
type segGate struct {
	ok    atomic.Bool
	once  sync.Once
	check func() error // checks the body
	lazy  *lazyState   // the index's, to report a damaged body to
}

// open reports whether the body may be read, checking it the first time.
func (g *segGate) open() bool {
	if g == nil || g.ok.Load() {
		return true
	}
	g.once.Do(func() {
		err := g.safeCheck()
		if err == nil {
			g.ok.Store(true)
			return
		}
		if g.lazy != nil {
			g.lazy.fail(err)
		}
	})
	return g.ok.Load()
}

// safeCheck is check, with a panic on absurd data an error.
func (g *segGate) safeCheck() (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("corrupt segment: %v", p)
		}
	}()
	return g.check()
}

// lazyState is what an index knows of the bodies of its segments.
type lazyState struct {
	path      string // the cache file
	mu        sync.Mutex
	err       error // the first damaged body, nil if none
	onCorrupt func(error)
	gates     []*segGate // every gate of the index's segments
}

// fail records a damaged body and tells the owner, the first time.
func (l *lazyState) fail(err error) {
	l.mu.Lock()
	first := l.err == nil
	if first {
		l.err = fmt.Errorf("cache file %s: %w", l.path, err)
	}
	fn, err := l.onCorrupt, l.err
	l.mu.Unlock()
	if first && fn != nil {
		fn(err)
	}
}

// ErrCorruptSegment is wrapped by Index.Corrupt.
var ErrCorruptSegment = errors.New("corrupt cache segment")

var bodyNames = [numBodies]string{"postings", "document terms", "vectors", "text", "name table", "reference table"}
