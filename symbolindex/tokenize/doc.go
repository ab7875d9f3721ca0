// Package tokenize owns term normalization: how text becomes the terms the
// lexical index stores and queries look up, and the features the hash
// embedder hashes. Identifiers are split at case, digit, "_" and "-"
// boundaries, parts are lowercased and lightly stemmed, and stop lists
// drop syntax words (documents) and filler (queries). The rules are at
// the top of tokenize.go.
package tokenize
