package pipeline

import (
	"bytes"
	"math"
	"strings"

	"github.com/ctxls/ctxls/heuristics"
	"github.com/ctxls/ctxls/symbolindex/parse"
	"github.com/ctxls/ctxls/symbolindex/tokenize"
)

// dot is the dot product of two vectors of one embedder (normalized: their
// cosine); 0 when their sizes differ.
func dot(a, b []float32) float64 {
	if len(a) != len(b) {
		return 0
	}
	var d float32
	for i := range a {
		d += a[i] * b[i]
	}
	return float64(d)
}

// excerpt cuts a candidate's text to n bytes, keeping the lines that
// match the query's terms: each line weighs the summed weights of the
// distinct terms it holds, each term's weight times the square root of how
// rare it is among the text's lines (lines / lines holding it). A word on
// every line of a long symbol (a struct of options, each saying "option")
// says little of where in it the change is; a word on one of its lines
// says more (EVAL.md, "cov": the plain ratio did a little worse, its
// logarithm a little better than no weighting). A line that holds lit (the
// literal the request removes, or the declaration of a flag it names, that
// the literal source found in the candidate) weighs as much as every term
// of the query on it together, twice: that is the line the change is at.
func excerpt(text string, n int, q *query, lang, lit string) heuristics.Excerpt {
	var hits []float64
	if len(text) > n && q != nil && (len(q.terms) > 0 || lit != "") {
		weight := make(map[string]float64, len(q.terms))
		all := 0.0
		for _, t := range q.terms {
			weight[t.Term] = float64(t.Weight)
			all += float64(t.Weight)
		}
		var lines [][]string // the query's terms each line holds
		var holds []bool     // whether each line holds lit
		df := map[string]int{}
		seen := map[string]bool{}
		nLit := 0
		field := q.flagField(lit)
		for line := range strings.SplitAfterSeq(text, "\n") {
			var held []string
			clear(seen)
			tokenize.Terms(line, func(term string) {
				if !seen[term] && weight[term] > 0 {
					seen[term] = true
					held = append(held, term)
					df[term]++
				}
			})
			lines = append(lines, held)
			has := lit != "" && strings.Contains(line, lit)
			if has && field {
				has = heuristics.IndexLiteral([]byte(line), 0, []byte(lit), true) >= 0
			}
			holds = append(holds, has)
			if has {
				nLit++
			}
		}
		for i, held := range lines {
			w := 0.0
			for _, t := range held {
				w += weight[t] * math.Sqrt(float64(len(lines))/float64(df[t]))
			}
			if holds[i] {
				w += 2 * max(all, 1) * math.Sqrt(float64(len(lines))/float64(nLit))
			}
			hits = append(hits, w)
		}
	}
	return heuristics.ExcerptOf(text, n, hits, func(k int) string { return heuristics.ElisionMarker(lang, k) })
}

// claimedRange is the part of a symbol's range r that an excerpt of its
// text claims.
func claimedRange(r parse.Range, ex heuristics.Excerpt) parse.Range {
	if !ex.Cut {
		return r
	}
	out := parse.Range{StartLine: r.StartLine + uint32(ex.First), EndLine: r.StartLine + uint32(ex.Last)}
	if ex.First == 0 {
		out.StartCol = r.StartCol
	}
	last := ex.Text[strings.LastIndexByte(ex.Text, '\n')+1:]
	out.EndCol = uint32(len(last))
	if ex.Last == 0 {
		out.EndCol += r.StartCol
	}
	return out
}

// leadingComments finds the comment, attribute and decorator lines right
// above a symbol that starts at byte start (its doc comment, which the
// parser leaves out of the symbol's range): the byte its item's text then
// starts at (the beginning of the first such line) and how many lines it
// adds. A blank line ends them; so does anything that is not a whole
// comment line, so that no item claims another symbol's lines.
func leadingComments(src []byte, start int) (int, int) {
	ls := bytes.LastIndexByte(src[:start], '\n') + 1
	if len(bytes.TrimLeft(src[ls:start], " \t")) != 0 {
		return start, 0 // something precedes the symbol on its line
	}
	n := 0
	for ls > 0 && n < heuristics.MaxLeadingComments {
		prev := bytes.LastIndexByte(src[:ls-1], '\n') + 1
		line := bytes.TrimSpace(src[prev : ls-1])
		if !isCommentLine(line) {
			break
		}
		ls = prev
		n++
	}
	if n == 0 {
		return start, 0
	}
	return ls, n
}

// isCommentLine reports whether a trimmed line is a comment, an attribute
// or a decorator in one of the indexed languages.
func isCommentLine(line []byte) bool {
	for _, p := range []string{"//", "#", "/*", "*", "@", "--", ";"} {
		if bytes.HasPrefix(line, []byte(p)) {
			return !bytes.HasPrefix(line, []byte("#include")) && !bytes.HasPrefix(line, []byte("#define"))
		}
	}
	return false
}

// fileLines indexes the lines of a file's text.
type fileLines struct {
	src    []byte
	starts []int // the byte offset of each line's first byte
}

// newFileLines indexes src; the empty "line" after a final newline is
// none.
func newFileLines(src []byte) *fileLines {
	l := &fileLines{src: src, starts: make([]int, 1, bytes.Count(src, []byte{'\n'})+1)}
	for i, b := range src {
		if b == '\n' && i+1 < len(src) {
			l.starts = append(l.starts, i+1)
		}
	}
	return l
}

func (l *fileLines) n() uint32 { return uint32(len(l.starts)) }

// next is the offset where line i+1 starts (the end of the text after the
// last line).
func (l *fileLines) next(i uint32) int {
	if int(i)+1 < len(l.starts) {
		return l.starts[i+1]
	}
	return len(l.src)
}

// end is the offset just past line i's last character, its newline left out.
func (l *fileLines) end(i uint32) int {
	e := l.next(i)
	if e > l.starts[i] && l.src[e-1] == '\n' {
		e--
	}
	return e
}

// size is the length of line i with its newline.
func (l *fileLines) size(i uint32) int { return l.next(i) - l.starts[i] }

func (l *fileLines) blank(i uint32) bool {
	return len(bytes.TrimSpace(l.src[l.starts[i]:l.end(i)])) == 0
}

// text is lines a..b, whole, and their range.
func (l *fileLines) text(a, b uint32) (string, parse.Range) {
	return string(l.src[l.starts[a]:l.end(b)]), parse.Range{StartLine: a, EndLine: b, EndCol: uint32(l.end(b) - l.starts[b])}
}
