package workspace

import (
	"fmt"

	"github.com/ctxls/ctxls/symbolindex/embed"
)

// newONNXEmbedder loads the ONNX model and runtime the configuration points
// at. Its errors name what is missing and how to fix it.
func newONNXEmbedder(cfg Config) (embed.Embedder, error) {
	if cfg.ModelPath == "" {
		return nil, fmt.Errorf("embedder onnx needs a model: set modelPath (--model DIR) to a directory with model.onnx and vocab.txt")
	}
	lib, err := embed.FindONNXRuntime(cfg.ONNXRuntimeLibrary)
	if err != nil {
		return nil, err
	}
	return embed.NewONNXEmbedder(embed.ONNXOptions{ModelDir: cfg.ModelPath, LibraryPath: lib})
}
