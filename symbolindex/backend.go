package symbolindex

// The two questions a request asks of a folder's index beyond its symbol
// records are these: the k best documents for a lexical query, and the k
// vectors nearest a query vector. Lexical and VectorStore answer them from
// the mapped segments and the in-memory overlay; a deployment that keeps
// the lexical side in a shared code-search engine, or the vectors in a
// vector database, implements these interfaces over the same slot numbers
// (docs/architecture.md, "Scaling out"). Nothing else in a request depends
// on how postings or vectors are stored.

// LexicalSearcher ranks documents (symbol or file slots) by BM25F.
type LexicalSearcher interface {
	// Search returns the k best documents for q that pass filter (nil
	// accepts all), best first; the result aliases buf.
	Search(q []QueryTerm, k int, filter func(doc uint32) bool, buf *SearchBuffer) []Hit
}

// VectorSearcher ranks symbol slots by the dot product of their vectors
// with a query vector.
type VectorSearcher interface {
	// TopK returns the k best of slots (nil: every slot), best first,
	// appended to dst[:0].
	TopK(q []float32, slots []uint32, k int, dst []ScoredSlot) []ScoredSlot
}

var (
	_ LexicalSearcher = (*Lexical)(nil)
	_ VectorSearcher  = (*VectorStore)(nil)
)
