package spelling

import (
	"maps"
	"strings"
	"sync"
)

// Cache keeps a folder's words from one request to the next: each text's
// words are counted once, by its path and the hash of its content (an
// open document's unsaved text has its own), and the vocabulary of the
// texts a request reads is the sum of their counts, kept and updated by
// the texts that join or leave it. A request that asks again about
// spelling reads no text it read before but those that hold what looks
// misspelled (Judgement).
//
// It keeps the counts of the texts of the vocabulary and, besides them, of
// at most MaxCachedBytes of texts a request read before: about 0.4 bytes
// for each byte of text, 6.5 MB for FastAPI's 16 MiB (BENCHMARKS.md).
type Cache struct {
	mu    sync.Mutex
	v     *Vocab
	files map[string]*counted // by path
	// tally counts one text's words by id (Count), zero between texts.
	tally   []int32
	touched []uint32
	// slipFiles memoises which summed texts hold a suspect or a slip
	// (Judge), until the vocabulary changes.
	slipFiles map[string]bool
}

// MaxCachedBytes bounds the texts whose counts a Cache keeps beyond the
// vocabulary's own (the bound of what a request reads).
const MaxCachedBytes = 16 << 20

// counted is one text's words.
type counted struct {
	hash  uint64
	size  int64
	words []wordUse
	slip  bool // it writes "an" before a consonant or a short word twice
	docs  bool // a text of docs, whose words make no right word (Vocab.prose)
	in    bool // its uses are in the vocabulary
}

type wordUse struct{ id, n uint32 }

// Key names a text: its path and the hash of its content.
type Key struct {
	Path string
	Hash uint64
}

// NewCache is an empty cache.
func NewCache() *Cache {
	return &Cache{v: NewVocab(), files: map[string]*counted{}}
}

// Locked is a Cache held by one request (Cache.With).
type Locked struct{ c *Cache }

// With calls fn with the cache held: the texts a request counts and the
// vocabulary it judges them by are its own until fn returns.
func (c *Cache) With(fn func(l Locked)) {
	c.mu.Lock()
	defer c.mu.Unlock()
	fn(Locked{c})
}

// Size is the size of the text k if its words are counted.
func (l Locked) Size(k Key) (int64, bool) {
	if f, ok := l.c.files[k.Path]; ok && f.hash == k.Hash {
		return f.size, true
	}
	return 0, false
}

// Count counts the words of text, the text of k (of docs, or not), in
// place of what its path held before.
func (l Locked) Count(k Key, text []byte, docs bool) {
	c := l.c
	c.drop(k.Path)
	f := &counted{hash: k.Hash, size: int64(len(text)), docs: docs}
	r := newRuns()
	var buf [64]byte
	Words(text, func(w []byte, _ int, run []byte, start int) {
		if len(w) >= 2 {
			c.note(w, 1)
		}
		if !r.enter(start) {
			return
		}
		if len(w) < len(run) && len(run) <= len(buf) {
			// A run of camelCase parts is written down whole and
			// unused, for the variants in another case of a word a
			// request names (MacOS: Judge's MayVariant).
			c.note(lower(buf[:0], run), 0)
		}
		_, slip := r.slip(text, run, start)
		f.slip = f.slip || slip
	})
	f.words = make([]wordUse, len(c.touched))
	for i, id := range c.touched {
		f.words[i] = wordUse{id, uint32(c.tally[id] - 1)}
		c.tally[id] = 0
	}
	c.touched = c.touched[:0]
	c.files[k.Path] = f
}

// note counts n uses of w in the text Count counts: tally holds one more
// than the uses of each word the text writes.
func (c *Cache) note(w []byte, n int32) {
	id := c.v.id(w)
	if int(id) >= len(c.tally) {
		c.tally = append(c.tally, make([]int32, int(id)+1-len(c.tally))...)
	}
	if c.tally[id] == 0 {
		c.touched = append(c.touched, id)
		c.v.refs[id]++
		c.tally[id] = 1
	}
	c.tally[id] += n
}

// drop forgets the counts of path's text.
func (c *Cache) drop(path string) {
	f, ok := c.files[path]
	if !ok {
		return
	}
	c.sum(f, false)
	for _, u := range f.words {
		c.v.release(u.id)
	}
	delete(c.files, path)
}

// sum adds f's uses to the vocabulary (in) or takes them out.
func (c *Cache) sum(f *counted, in bool) {
	if f.in == in {
		return
	}
	f.in = in
	d := int32(1)
	if !in {
		d = -1
	}
	for _, u := range f.words {
		c.v.uses[u.id] += d * int32(u.n)
		if f.docs {
			c.v.prose[u.id] += d * int32(u.n)
		}
	}
	c.v.sus, c.slipFiles = nil, nil
}

// Judgement is what a vocabulary makes of the texts it was summed from.
type Judgement struct {
	// Suspects: the vocabulary's words that look misspelled (shared: not
	// to be written to); Variants: those of the words named.
	Suspects, Variants map[string]Suspect
	// MaySuspect[i]: the text sel[i] holds a suspect or a slip of grammar
	// (Find finds nothing in one that does not); MayVariant[i]: a variant,
	// or a word named whose case counts in any case.
	MaySuspect, MayVariant []bool
}

// Judge makes the vocabulary the sum of the texts sel (each counted, by
// Count, or with its Size known) and judges them by it.
func (l Locked) Judge(sel []Key, named []Named) Judgement {
	c := l.c
	want := make(map[string]bool, len(sel))
	for _, k := range sel {
		want[k.Path] = true
	}
	var kept, summed int64 // the size of the texts counted, of those summed
	for path, f := range c.files {
		c.sum(f, want[path])
		kept += f.size
		if f.in {
			summed += f.size
		}
	}
	if kept > MaxCachedBytes+summed {
		for path, f := range c.files {
			if !f.in {
				c.drop(path)
			}
		}
	}
	j := Judgement{Suspects: c.v.Suspects(), Variants: map[string]Suspect{}}
	look := map[string]Suspect{}
	for _, n := range named {
		maps.Copy(j.Variants, c.v.Variants(n.Word))
		if n.Case {
			look[strings.ToLower(n.Word)] = Suspect{}
		}
	}
	if c.slipFiles == nil {
		c.slipFiles = c.holding(j.Suspects, true)
	}
	maps.Copy(look, j.Variants)
	variants := c.holding(look, false)
	j.MaySuspect, j.MayVariant = make([]bool, len(sel)), make([]bool, len(sel))
	for i, k := range sel {
		j.MaySuspect[i], j.MayVariant[i] = c.slipFiles[k.Path], variants[k.Path]
	}
	return j
}

// holding are the paths of the summed texts that write a word of words
// or, with slips, a slip of grammar.
func (c *Cache) holding(words map[string]Suspect, slips bool) map[string]bool {
	out := map[string]bool{}
	if len(words) == 0 && !slips {
		return out
	}
	is := make([]bool, len(c.v.words))
	for w := range words {
		if id, ok := c.v.ids[w]; ok {
			is[id] = true
		}
	}
	for path, f := range c.files {
		if !f.in {
			continue
		}
		hit := slips && f.slip
		for i := 0; i < len(f.words) && !hit; i++ {
			hit = is[f.words[i].id]
		}
		if hit {
			out[path] = true
		}
	}
	return out
}
