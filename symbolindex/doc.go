// Package symbolindex owns the symbol-level index of a workspace: the
// records of each file's symbols, the lexical (BM25F) index over them, the
// flat vector store, and the persistence of all of it under the cache
// directory (memory-mapped segments, streamed writes). Its parts live in
// packages of their own: parse turns files into symbols, tokenize turns
// text into terms, embed turns text into vectors, cachefile writes the
// cache files safely.
package symbolindex
