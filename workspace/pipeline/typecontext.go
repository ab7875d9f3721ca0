package pipeline

import (
	"bytes"

	"github.com/ctxls/ctxls/heuristics"
	"github.com/ctxls/ctxls/symbolindex"
	"github.com/ctxls/ctxls/symbolindex/parse"
)

// A member's type context: the first item of an answer that is a member
// of a class, struct, interface or enum (a method, a nested function)
// carries the type's header (its lines before its first member:
// declaration, docstring, fields, constants) so that the model sees what
// the method belongs to. When the header runs straight into the member,
// the item's text and range simply start at the type; otherwise the text
// starts with the header (cut to heuristics.TypeHeaderChars at a line)
// and an elision marker line, and the range is only the member's lines.

// typeContext is the header of the type enclosing candidate c in src (a
// pinned item is given as asked),
// when c is the first item of that type in the answer (seen records the
// types already given): the prefix to put before c's text, or "" with c
// extended to start at the type when the header runs into c.
func typeContext(c *cand, src []byte, seen map[uint32]bool) (prefix string) {
	if c.slot == noSlot || c.sym.Kind == parse.KindFile || c.head || c.reason == ReasonPinned {
		return ""
	}
	idx := c.folder.Index
	var outer symbolindex.SymbolRef
	outerSlot, found := uint32(0), false
	syms := idx.FileSymbols(c.fileSlot)
	for _, s := range syms {
		ref, ok := idx.Symbol(s)
		if !ok || s == c.slot || !isType(ref.Kind) || !(ref.StartByte <= c.sym.StartByte && c.sym.EndByte <= ref.EndByte) {
			continue
		}
		if !found || ref.EndByte-ref.StartByte < outer.EndByte-outer.StartByte {
			outer, outerSlot, found = ref, s, true
		}
	}
	if !found || seen[outerSlot] || int(outer.EndByte) > len(src) {
		return ""
	}
	seen[outerSlot] = true
	// The header ends before the type's first member (and its doc comment).
	first := outer.EndByte
	for _, s := range syms {
		if ref, ok := idx.Symbol(s); ok && s != outerSlot && outer.StartByte < ref.StartByte && ref.EndByte <= outer.EndByte && ref.StartByte < first {
			first = ref.StartByte
		}
	}
	hs, _ := leadingComments(src, int(first))
	end := len(bytes.TrimRight(src[:hs], " \t\r\n"))
	if end <= int(outer.StartByte) {
		return ""
	}
	from, _ := leadingComments(src, int(outer.StartByte)) // the type's doc comment
	if int(c.sym.StartByte) <= hs {
		// The member follows the header: the item starts at the type.
		c.sym.Range.StartLine -= uint32(bytes.Count(src[from:c.sym.StartByte], []byte{'\n'}))
		c.sym.Range.StartCol = 0
		c.sym.StartByte = uint32(from)
		return ""
	}
	if end-from > heuristics.TypeHeaderChars {
		from = int(outer.StartByte) // a long doc comment gives way to the declaration
	}
	header := src[from:end]
	if len(header) > heuristics.TypeHeaderChars {
		cut := bytes.LastIndexByte(header[:heuristics.TypeHeaderChars], '\n')
		if cut <= 0 {
			return ""
		}
		header = header[:cut]
	}
	headerEnd := outer.Range.StartLine + uint32(bytes.Count(src[outer.StartByte:from+len(header)], []byte{'\n'}))
	elided := int(c.sym.Range.StartLine) - int(headerEnd) - 1
	if elided < 1 {
		return ""
	}
	return string(header) + "\n" + heuristics.ElisionMarker(c.lang, elided) + "\n"
}

func isType(k parse.Kind) bool {
	switch k {
	case parse.KindClass, parse.KindStruct, parse.KindInterface, parse.KindEnum:
		return true
	}
	return false
}
