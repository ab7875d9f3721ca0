package wire

import (
	"bytes"
	"fmt"
	"unicode/utf8"
)

// TextChange is one content change of didChange: Range nil replaces the
// whole text.
type TextChange struct {
	Range *Range `json:"range"`
	Text  string `json:"text"`
}

// ApplyChanges applies didChange's content changes, in order, to text,
// with positions in UTF-8 bytes or UTF-16 code units. The result is a new
// slice; text is not modified.
func ApplyChanges(text []byte, changes []TextChange, utf8Pos bool) ([]byte, error) {
	for i, c := range changes {
		var err error
		if text, err = applyChange(text, c, utf8Pos); err != nil {
			return nil, fmt.Errorf("contentChanges[%d]: %w", i, err)
		}
	}
	return text, nil
}

// applyChange applies one content change to text.
func applyChange(text []byte, c TextChange, utf8Pos bool) ([]byte, error) {
	if c.Range == nil {
		return []byte(c.Text), nil
	}
	start, err := Offset(text, c.Range.Start, utf8Pos)
	if err != nil {
		return nil, fmt.Errorf("range.start: %w", err)
	}
	end, err := Offset(text, c.Range.End, utf8Pos)
	if err != nil {
		return nil, fmt.Errorf("range.end: %w", err)
	}
	if end < start {
		return nil, fmt.Errorf("range end %d:%d is before its start %d:%d", c.Range.End.Line, c.Range.End.Character, c.Range.Start.Line, c.Range.Start.Character)
	}
	out := make([]byte, 0, len(text)-(end-start)+len(c.Text))
	out = append(out, text[:start]...)
	out = append(out, c.Text...)
	return append(out, text[end:]...), nil
}

// Offset converts an LSP position to a byte offset in text. A character
// past the end of its line clamps to the line's end, as LSP requires; a line
// past the end of the text is an error, except the line just after the last
// one, which means the end of the text.
func Offset(text []byte, p Position, utf8Pos bool) (int, error) {
	off := 0
	for line := uint32(0); line < p.Line; line++ {
		i := bytes.IndexByte(text[off:], '\n')
		if i < 0 {
			if line+1 == p.Line {
				return len(text), nil
			}
			return 0, fmt.Errorf("line %d is past the end of the document (%d lines)", p.Line, line+1)
		}
		off += i + 1
	}
	lineEnd := len(text)
	if i := bytes.IndexByte(text[off:], '\n'); i >= 0 {
		lineEnd = off + i
	}
	if utf8Pos {
		return min(off+int(p.Character), lineEnd), nil
	}
	units := uint32(0)
	for off < lineEnd && units < p.Character {
		r, size := utf8.DecodeRune(text[off:lineEnd])
		if r >= 0x10000 {
			units += 2
		} else {
			units++
		}
		off += size
	}
	return off, nil
}

// Column converts a byte column within line to the negotiated encoding.
func Column(line []byte, byteCol uint32, utf8Pos bool) uint32 {
	if utf8Pos {
		return byteCol
	}
	if int(byteCol) > len(line) {
		byteCol = uint32(len(line))
	}
	units := uint32(0)
	for off := 0; off < int(byteCol); {
		r, size := utf8.DecodeRune(line[off:])
		if r >= 0x10000 {
			units += 2
		} else {
			units++
		}
		off += size
	}
	return units
}
