package symbolindex

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"unsafe"
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

// Corrupt returns the first damaged segment body the index has come
// across (wrapping ErrCorruptSegment), or nil. The index goes on serving
// without that segment's postings, vectors and text; it should be built
// again from the files.
func (ix *Index) Corrupt() error {
	ix.lazy.mu.Lock()
	defer ix.lazy.mu.Unlock()
	if ix.lazy.err == nil {
		return nil
	}
	return fmt.Errorf("%w: %w", ErrCorruptSegment, ix.lazy.err)
}

// OnCorrupt sets fn to be called, once and on the goroutine that came
// across it, with the first damaged segment body: at once if one was
// found already. fn must not call into the index (its caller may hold
// the index's lock).
func (ix *Index) OnCorrupt(fn func(error)) {
	ix.lazy.mu.Lock()
	ix.lazy.onCorrupt = fn
	err := ix.lazy.err
	ix.lazy.mu.Unlock()
	if err != nil && fn != nil {
		fn(fmt.Errorf("%w: %w", ErrCorruptSegment, err))
	}
}

// VerifyAll checks every part of a segment body not checked yet, as
// requests would (a background pass, or a test), and returns Corrupt.
func (ix *Index) VerifyAll() error {
	for _, g := range ix.lazy.gates {
		g.open()
	}
	return ix.Corrupt()
}

// checkBody checksums part of the body of the segment and checks its
// structure (postings, documents' term lists; vectors and text need only
// their bounds, checked with the head).
func (v *segView) checkBody(part int) error {
	sum := bodySum(&v.secs, part)
	if part != bodyVectors {
		// The check read the whole part; requests read a little of it.
		// (Never the vectors: an edit may have written into their pages.)
		defer func() {
			for i, sec := range v.secs {
				if segPart[i] == part && len(sec) > 0 {
					// dropPages wants a page-aligned start.
					skip := int((pageSize - uintptr(unsafe.Pointer(unsafe.SliceData(sec)))%pageSize) % pageSize)
					if skip < len(sec) {
						dropPages(sec[skip:])
					}
				}
			}
		}()
	}
	if sum != v.e.Body[part] {
		return fmt.Errorf("segment %d: %s: checksum mismatch", v.i, bodyNames[part])
	}
	var err error
	switch part {
	case bodyPostings:
		err = errors.Join(v.symLex.checkPostings(), v.fileLex.checkPostings())
	case bodyDocTerms:
		err = errors.Join(v.symLex.checkDocTerms(), v.fileLex.checkDocTerms())
	}
	if err != nil {
		return fmt.Errorf("segment %d: %w", v.i, err)
	}
	return nil
}

var bodyNames = [numBodies]string{"postings", "document terms", "vectors", "text"}

// headOnly returns secs with the body's sections left out.
func headOnly(secs *[numSecs][]byte) *[numSecs][]byte {
	h := *secs
	for i := range h {
		if segPart[i] >= 0 {
			h[i] = nil
		}
	}
	return &h
}

// BodyRanges returns where the sections of each segment's body lie in the
// cache file at path, as [offset, end) byte ranges: what a restart does
// not read until a request needs it. For tools and tests that inspect or
// damage a cache.
func BodyRanges(path string) ([][2]int64, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	le := binary.LittleEndian
	if len(data) < 32 || string(data[:8]) != segMagic {
		return nil, errors.New("not a ctxls index")
	}
	nseg, embLen := le.Uint32(data[16:]), le.Uint32(data[20:])
	entSize := int(unsafe.Sizeof(segEntry{}))
	if embLen > 1<<10 || nseg > 1<<20 || len(data) < 32+int(embLen)+int(nseg)*entSize {
		return nil, errors.New("corrupt cache header")
	}
	table := make([]segEntry, nseg)
	copy(asBytes(table), data[32+embLen:])
	var out [][2]int64
	for _, e := range table {
		secs, err := segSections(data, e)
		if err != nil {
			return nil, err
		}
		for i, s := range secs {
			if segPart[i] >= 0 && len(s) > 0 {
				off := int64(e.Off) + int64(le.Uint64(data[e.Off+uint64(16*i):]))
				out = append(out, [2]int64{off, off + int64(len(s))})
			}
		}
	}
	return out, nil
}
