package items

import (
	"sync"

	"github.com/cespare/xxhash/v2"

	"github.com/ctxls/ctxls/symbolindex/embed"
)

// VecCache holds the vectors of context items' words (rules, tools,
// notes), shared by every snapshot of a workspace, so that the same words
// are embedded once per embedder, not once per request.
//
// Its mutex guards m alone. It is a leaf: held for one map access, never
// while embedding and never while taking another lock, so a select may use
// the cache whatever it holds. Two selects missing the same words both
// embed them; the second write is the same vector.
type VecCache struct {
	mu sync.Mutex
	m  map[uint64][]float32 // by xxhash of embedder ID and words
}

// maxItemVecs bounds the cache of item vectors: rules, tools and notes are
// few, and an edited rule leaves its old vector behind. Past it the cache
// starts again empty.
const maxItemVecs = 4096

// NewVecCache is an empty cache.
func NewVecCache() *VecCache { return &VecCache{m: map[uint64][]float32{}} }

// Get is the vector of an item's words by emb, from the cache; nil if
// they do not embed.
func (c *VecCache) Get(emb embed.Embedder, text string) []float32 {
	key := xxhash.Sum64String(emb.ID() + "\x00" + text)
	c.mu.Lock()
	v, ok := c.m[key]
	c.mu.Unlock()
	if ok {
		return v
	}
	vecs, err := emb.Embed([]string{text})
	if err != nil || len(vecs) == 0 {
		return nil
	}
	v = vecs[0]
	c.mu.Lock()
	if len(c.m) >= maxItemVecs {
		clear(c.m)
	}
	c.m[key] = v
	c.mu.Unlock()
	return v
}
