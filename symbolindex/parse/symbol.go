package parse

import (
	"bytes"
	"fmt"
)

// Kind is the kind of a symbol, as the wire protocol names it.
type Kind uint8

// Symbol kinds. Docs and config sections use KindModule; a file with no
// definitions is represented by one KindFile symbol.
const (
	KindUnknown Kind = iota
	KindFunction
	KindMethod
	KindClass
	KindStruct
	KindInterface
	KindType
	KindEnum
	KindConst
	KindVar
	KindModule
	KindFile
)

var kindNames = [...]string{
	KindUnknown:   "unknown",
	KindFunction:  "function",
	KindMethod:    "method",
	KindClass:     "class",
	KindStruct:    "struct",
	KindInterface: "interface",
	KindType:      "type",
	KindEnum:      "enum",
	KindConst:     "const",
	KindVar:       "var",
	KindModule:    "module",
	KindFile:      "file",
}

// String returns the protocol name of the kind ("function", "method", ...).
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", k)
}

// ParseKind maps a protocol kind name to a Kind.
func ParseKind(s string) (Kind, bool) {
	for k, name := range kindNames {
		if name == s && Kind(k) != KindUnknown {
			return Kind(k), true
		}
	}
	return KindUnknown, false
}

// Range is a span of a document: 0-based lines, columns in bytes from the
// start of the line. End is exclusive, as in LSP.
type Range struct {
	StartLine, StartCol uint32
	EndLine, EndCol     uint32
}

// Contains reports whether r contains o.
func (r Range) Contains(o Range) bool {
	return !o.startsBefore(r) && !r.endsBefore(o)
}

// Overlaps reports whether r and o share at least one line.
func (r Range) Overlaps(o Range) bool {
	return r.StartLine <= o.EndLine && o.StartLine <= r.EndLine
}

// Intersect is the part of r that o covers too; ok is false when they
// share nothing.
func (r Range) Intersect(o Range) (x Range, ok bool) {
	x = r
	if r.startsBefore(o) {
		x.StartLine, x.StartCol = o.StartLine, o.StartCol
	}
	if o.endsBefore(r) {
		x.EndLine, x.EndCol = o.EndLine, o.EndCol
	}
	return x, !x.endsBeforeStart()
}

func (r Range) endsBeforeStart() bool {
	return r.EndLine < r.StartLine || r.EndLine == r.StartLine && r.EndCol < r.StartCol
}

func (r Range) startsBefore(o Range) bool {
	return r.StartLine < o.StartLine || (r.StartLine == o.StartLine && r.StartCol < o.StartCol)
}

func (r Range) endsBefore(o Range) bool {
	return r.EndLine < o.EndLine || (r.EndLine == o.EndLine && r.EndCol < o.EndCol)
}

// Symbol is one definition (or one section of a doc or config file).
type Symbol struct {
	Name      string // short name: "Start"
	Qualified string // qualified name: "Server.Start", "Outer.Inner.method"
	Kind      Kind
	Range     Range
	StartByte uint32 // byte offsets of Range in the file, end exclusive
	EndByte   uint32
	Signature string // the declaration line(s) up to the body, whitespace folded
	Doc       string // the doc comment, comment markers stripped
}

// ParsedFile is the result of parsing one file.
type ParsedFile struct {
	Language string   // "go", "python", ..., "markdown", "yaml", "text"
	Symbols  []Symbol // in source order, outer before inner
	// Refs are the distinct identifiers the file uses (calls, type names,
	// selectors), excluding the names it defines itself. They feed the
	// reference graph.
	Refs []string
	// SyntaxErrors reports whether the parser had to recover from errors;
	// the symbols found are still returned.
	SyntaxErrors bool
}

// EndRange is the range of a whole text.
func EndRange(src []byte) Range {
	lines := uint32(bytes.Count(src, []byte{'\n'}))
	last := src[bytes.LastIndexByte(src, '\n')+1:]
	return Range{EndLine: lines, EndCol: uint32(len(last))}
}

// LineAt returns line n of src, without its newline.
func LineAt(src []byte, n uint32) []byte {
	for i := uint32(0); i < n; i++ {
		j := bytes.IndexByte(src, '\n')
		if j < 0 {
			return nil
		}
		src = src[j+1:]
	}
	if j := bytes.IndexByte(src, '\n'); j >= 0 {
		return src[:j]
	}
	return src
}
