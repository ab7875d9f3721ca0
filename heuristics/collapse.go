package heuristics

// Span is a ranked item's extent in a file, for Collapse.
type Span struct {
	// File identifies the file; spans in different files never collapse.
	File uint32
	// StartLine and EndLine are the first and last line of the span, both
	// inclusive. A span whose EndLine is before its StartLine is read with
	// the two swapped.
	StartLine, EndLine uint32
	// BodyHash is a hash of the span's text; 0 means unknown and never
	// matches another span.
	BodyHash uint64
}

// lines returns the span's first and last line in order.
func (s Span) lines() (lo, hi uint32) {
	if s.EndLine < s.StartLine {
		return s.EndLine, s.StartLine
	}
	return s.StartLine, s.EndLine
}

// Overlaps reports whether two spans share a file and at least one line.
func (s Span) Overlaps(t Span) bool {
	slo, shi := s.lines()
	tlo, thi := t.lines()
	return s.File == t.File && slo <= thi && tlo <= shi
}

// height is the number of lines of the span minus one.
func (s Span) height() uint32 {
	lo, hi := s.lines()
	return hi - lo
}

// Collapse removes redundant evidence from a best-first list of spans and
// returns the indices of the spans to keep, in rank order.
//
//   - Identical bodies: of the spans with the same non-zero BodyHash only the
//     first in the input is considered; later ones are dropped.
//   - Overlap: when a span overlaps (contains, is contained in, or
//     intersects) kept spans of the same file, the tighter unit wins. If any
//     of those kept spans is no longer than the new span, the new span is
//     dropped (equal length: the better-ranked one stays). Otherwise the new
//     span replaces them all and takes the position of the best-ranked of
//     them, so a class ranked first whose method ranks fifth yields the
//     method at the first position.
//
// Kept spans of one file therefore never overlap, and a nesting chain
// class ⊃ method collapses to the method whatever order they come in. The
// cost is O(n·k) for n spans and k kept ones.
func Collapse(spans []Span) []int {
	if len(spans) == 0 {
		return nil
	}
	keep := make([]int, 0, len(spans)) // slots in rank order; -1 = removed
	seen := make(map[uint64]struct{}, len(spans))
	for i, s := range spans {
		if s.BodyHash != 0 {
			if _, dup := seen[s.BodyHash]; dup {
				continue
			}
			seen[s.BodyHash] = struct{}{}
		}
		first, tighter := -1, false
		for k, j := range keep {
			if j < 0 || !spans[j].Overlaps(s) {
				continue
			}
			if spans[j].height() <= s.height() {
				tighter = true
				break
			}
			if first < 0 {
				first = k
			}
		}
		switch {
		case tighter:
			// A kept span at least as tight already covers this evidence.
		case first < 0:
			keep = append(keep, i)
		default:
			for k := first; k < len(keep); k++ {
				if j := keep[k]; j >= 0 && spans[j].Overlaps(s) {
					keep[k] = -1
				}
			}
			keep[first] = i
		}
	}
	out := keep[:0]
	for _, j := range keep {
		if j >= 0 {
			out = append(out, j)
		}
	}
	return out
}
