// Package merkle owns the content-addressed tree of one workspace folder:
// folders → files → symbol leaves.
//
// The tree answers three questions for the index:
//
//   - identity: Root is a 64-bit hash of everything in the tree (shown on the
//     wire as stats.merkleRoot, RootHex), which depends only on the current
//     content, never on the order or history of updates;
//   - change: Diff walks two trees, skips every subtree whose hash is equal,
//     and reports exactly which symbol leaves were added, removed or changed;
//   - pruning: every node carries the sum of its files' symbol vectors, so
//     Descend can find the files nearest to a query by a beam search from the
//     root instead of scoring every file.
//
// A *Tree is immutable and persistent. Every update (WithFile, WithoutFile,
// Apply) returns a new *Tree that shares all untouched subtrees with the old
// one (path copying), so readers keep a consistent snapshot while the writer
// moves on, and an update costs O(depth × fan-out × dim) plus the file's
// leaves, not O(files).
package merkle
