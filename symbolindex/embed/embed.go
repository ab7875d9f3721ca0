package embed

import "math"

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

// Normalize scales v to unit length in place; the zero vector stays zero.
// Embedders return normalized vectors, and so does anything that mixes
// them (a query blended with its history).
func Normalize(v []float32) {
	var sum float64
	for _, x := range v {
		sum += float64(x) * float64(x)
	}
	if sum == 0 {
		return
	}
	inv := float32(1 / math.Sqrt(sum))
	for i := range v {
		v[i] *= inv
	}
}
