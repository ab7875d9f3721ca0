package symbolindex

// topKPush offers x to h, a min-heap of at most k items with the worst at
// its root, and returns the heap. worse(a, b) reports whether a ranks below
// b; it must be a strict total order (ties broken, say, by id) so that the
// k kept are the same whatever order the items are offered in.
//
// Its two users, Lexical.selectTop (lexical.go) and VectorStore.topK
// (vectors.go), each write their worse (with or without an order on ids)
// and their final sort best first for their own item type, Hit and
// ScoredSlot, on purpose: one generic helper (topKWorse and topKSort over
// a method giving an item's score and id) made BenchmarkIndexSearch
// 15-20% slower and BenchmarkTopK100k no faster; a profile puts the time
// in the generic (go.shape) worse and sort closures, called for every
// document a search touches.
func topKPush[T any](h []T, k int, x T, worse func(a, b T) bool) []T {
	if len(h) < k {
		h = append(h, x)
		for i := len(h) - 1; i > 0; {
			parent := (i - 1) / 2
			if !worse(h[i], h[parent]) {
				break
			}
			h[i], h[parent] = h[parent], h[i]
			i = parent
		}
		return h
	}
	if !worse(h[0], x) {
		return h
	}
	h[0] = x
	for i := 0; ; {
		c := 2*i + 1
		if c >= len(h) {
			break
		}
		if c+1 < len(h) && worse(h[c+1], h[c]) {
			c++
		}
		if !worse(h[c], h[i]) {
			break
		}
		h[i], h[c] = h[c], h[i]
		i = c
	}
	return h
}
