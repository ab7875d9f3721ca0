// Package parse owns turning a file into symbols: language detection,
// tree-sitter parsing with one query file per language (queries/), the
// sectioning of docs and config files (markdown, YAML, TOML, JSON,
// Makefiles, plain text), and incremental re-parsing of an open document
// after an edit (ParseEdit, DocTree). Its output types — Symbol, Kind,
// Range, ParsedFile — are what symbolindex stores.
package parse
