package symbolindex

import "sync"

// Versions hands out generations of one folder's index to readers that
// must not wait for its writer, and that the writer does not wait for.
//
// A View is a frozen copy of the index (Freeze) shared by every reader
// that acquires it until the next change: taking one costs a mutex round
// and, after a change, one Freeze (a few struct copies). Release functions
// (Replace) run in their own goroutine. The writer,
// holding its own lock, only retires the newest View when it starts a
// change, so later readers get the next one; a View nobody holds is
// dropped on the spot and the index goes on writing in place, as if it
// had never been frozen. While a reader holds a View, the index copies
// what it writes (cow.go).
//
// An index replaced by another (a merge, a rebuild) may have its mapped
// pages dropped (Index.Release) only once the last View of it is
// released: Replace arranges that.
type Versions struct {
	mu   sync.Mutex
	src  *Index // the writer's index; nil before the first
	life *viewLife
	cur  *View // the newest generation; nil when src changed since
}

// View is one generation of the index, immutable.
type View struct {
	ix   *Index
	refs int
	vs   *Versions
	life *viewLife
}

// viewLife counts the Views of one writer's index still held, so that the
// index is released after the last.
type viewLife struct {
	src     *Index
	held    int
	retired bool
	release func()
}

// Index is the view's frozen index (nil if the folder had none): read
// only.
func (v *View) Index() *Index { return v.ix }

// Replace makes ix the writer's index; the caller holds the lock that
// serialises the writer and excludes lock-taking readers. release, if not
// nil, is called once no View of the old index is held any more (at once
// if none is).
func (vs *Versions) Replace(ix *Index, release func()) {
	vs.mu.Lock()
	defer vs.mu.Unlock()
	if old := vs.life; old != nil {
		if old.src != nil {
			old.src.vers = nil
		}
		old.retired, old.release = true, release
		if old.held == 0 && release != nil {
			go release()
		}
	} else if release != nil {
		go release()
	}
	vs.cur = nil
	vs.src = ix
	vs.life = &viewLife{src: ix}
	if ix != nil {
		ix.vers = vs
	}
}

// Acquire returns the newest generation of the index, to be released.
// The caller holds the writer's lock for reading (a change in progress is
// waited for, never a reader): when the index changed since the last View
// was made, a new one is frozen.
func (vs *Versions) Acquire() *View {
	vs.mu.Lock()
	defer vs.mu.Unlock()
	if vs.cur == nil {
		v := &View{vs: vs, life: vs.life}
		if vs.src != nil {
			v.ix = vs.src.Freeze()
		}
		vs.cur = v
	}
	v := vs.cur
	v.refs++
	if v.life != nil {
		v.life.held++
	}
	return v
}

// Release ends the reader's hold of v.
func (v *View) Release() {
	vs := v.vs
	vs.mu.Lock()
	defer vs.mu.Unlock()
	v.refs--
	if l := v.life; l != nil {
		l.held--
		if l.held == 0 && l.retired && l.release != nil {
			go l.release() // it may drop pages and return memory: not on the reader's time
			l.release = nil
		}
	}
}

// writing is called by the index before every change: the newest View
// stops being handed out, and if no reader holds it, it is forgotten and
// the index writes in place what it owned before the Freeze.
func (ix *Index) writing() {
	vs := ix.vers
	if vs == nil {
		return
	}
	vs.mu.Lock()
	defer vs.mu.Unlock()
	if v := vs.cur; v != nil {
		vs.cur = nil
		if v.refs == 0 && v.ix != nil {
			ix.unfreeze()
		}
	}
}

// Freeze returns a frozen copy of the index for readers: it shares the
// index's memory, and the index copies what it writes from now on, so
// that the copy never changes. The copy must only be read.
func (ix *Index) Freeze() *Index {
	v := *ix
	v.lex, v.flex, v.vecs = ix.lex.freeze(), ix.flex.freeze(), ix.vecs.freeze()
	v.vers = nil
	ix.epoch++
	return &v
}

// unfreeze undoes the last Freeze, whose copy nobody can reach any more:
// the index writes in place again what it owned before.
func (ix *Index) unfreeze() {
	ix.epoch--
	ix.lex.cow--
	ix.flex.cow--
	ix.vecs.epoch--
}

func (l *Lexical) freeze() *Lexical {
	v := *l
	l.cow++
	return &v
}

func (s *VectorStore) freeze() *VectorStore {
	v := *s
	s.epoch++
	return &v
}
