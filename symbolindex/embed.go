package symbolindex

// Embedder turns texts into vectors of a fixed dimension. Implementations
// must return L2-normalized vectors, be safe for concurrent use, and be
// deterministic: the same text always yields the same vector.
type Embedder interface {
	// ID identifies the embedder and its model, e.g. "hash-384" or
	// "onnx-384-1f2e3d4c5b6a7988" (model file hash). Stored vectors carry
	// it, so that switching embedders re-embeds.
	ID() string
	// Dim is the vector dimension.
	Dim() int
	// Embed returns one vector per text.
	Embed(texts []string) ([][]float32, error)
}
