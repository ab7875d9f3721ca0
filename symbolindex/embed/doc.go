// Package embed owns everything that turns text into vectors: the Embedder
// interface and Normalize, the built-in hash embedder (HashEmbedder, no
// model, features from the tokenize package's terms), and the ONNX
// embedder (ONNXEmbedder) with its WordPiece tokenizer and the lookup of
// the ONNX Runtime library (FindONNXRuntime). Storing and searching the
// vectors is symbolindex's job; onnxtest writes a tiny model for tests.
package embed
