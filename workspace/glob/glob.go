package glob

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// maxGlobAlternatives bounds how many plain patterns one pattern's {a,b}
// alternations may expand to, so that a pattern like {a,b}{c,d}{e,f}...
// cannot blow up memory.
const maxGlobAlternatives = 1024

// Glob is a compiled workspace glob, used for the exclude setting and the
// paths/excludePaths filters of a request. Patterns are workspace-relative
// slash paths:
//
//   - "**" matches any number of path segments, including zero;
//   - "*" matches any run of characters within one segment, "?" one
//     character, "[abc]", "[a-z]" and "[!a-z]" (or "[^a-z]") one character
//     of a class; "\" escapes the next character;
//   - "{a,b}" matches either alternative (alternatives may contain "/" and
//     nest);
//   - a pattern with no "/" (but for a trailing one) matches the base name
//     at any depth ("*.go" matches "a/b/c.go", "gen/" matches "x/gen");
//     any other pattern is anchored at the workspace root;
//   - like gitignore, a pattern that matches a directory matches everything
//     under it, so "gen", "gen/" and "gen/**" all match "gen/x/y.go" (and
//     the directory "gen" itself).
//
// A Glob is immutable and safe for concurrent use; Match does not allocate.
type Glob struct {
	pattern string
	alts    []globAlt
}

// globAlt is one alternative of a pattern after {a,b} expansion: a sequence
// of segments, each matching one path segment, except globstars.
type globAlt struct {
	segs []globSeg
}

type segKind uint8

const (
	segLiteral  segKind = iota // the segment equals lit
	segGlobstar                // "**": zero or more whole segments
	segWild                    // toks match the segment
	segSuffix                  // toks are "*", a literal: a fast path
	segPrefix                  // toks are a literal, "*": a fast path
)

type globSeg struct {
	kind segKind
	lit  string
	toks []globTok
}

type tokKind uint8

const (
	tokLit   tokKind = iota // lit, byte for byte
	tokAny                  // "?": one rune
	tokStar                 // "*": any run of runes
	tokClass                // [...]: one rune in (or, negated, not in) ranges
)

type globTok struct {
	kind   tokKind
	neg    bool
	lit    string
	ranges []runeRange
}

type runeRange struct{ lo, hi rune }

// Compile compiles one pattern. A malformed pattern (an unclosed "[" or
// "{", an unmatched "}", a trailing "\", an empty pattern) is an error that
// quotes the pattern.
func Compile(pattern string) (*Glob, error) {
	if strings.TrimSpace(pattern) == "" {
		return nil, fmt.Errorf("pattern %q: empty pattern", pattern)
	}
	expanded, err := expandBraces(pattern)
	if err != nil {
		return nil, fmt.Errorf("pattern %q: %w", pattern, err)
	}
	g := &Glob{pattern: pattern, alts: make([]globAlt, 0, len(expanded))}
	for _, p := range expanded {
		alt, err := compileAlt(p)
		if err != nil {
			return nil, fmt.Errorf("pattern %q: %w", pattern, err)
		}
		g.alts = append(g.alts, alt)
	}
	return g, nil
}

// Alternatives is the number of plain patterns the pattern's {a,b}
// alternations expand to: what matching it costs.
func (g *Glob) Alternatives() int { return len(g.alts) }

// String returns the pattern the Glob was compiled from.
func (g *Glob) String() string { return g.pattern }

// Match reports whether the workspace-relative slash path matches the
// pattern, or lies under a directory that does. A leading "./" or "/" on
// path is ignored; the empty path matches nothing.
func (g *Glob) Match(path string) bool {
	path = trimPathPrefix(path)
	if path == "" {
		return false
	}
	for i := range g.alts {
		if g.alts[i].match(path) {
			return true
		}
	}
	return false
}

// Set is a list of compiled patterns matched as one; the nil or zero
// Set matches nothing. It is immutable and safe for concurrent use.
type Set struct {
	globs []*Glob
}

// CompileSet compiles every pattern; the error names the first malformed
// one.
func CompileSet(patterns []string) (*Set, error) {
	s := &Set{globs: make([]*Glob, 0, len(patterns))}
	for _, p := range patterns {
		g, err := Compile(p)
		if err != nil {
			return nil, err
		}
		s.globs = append(s.globs, g)
	}
	return s, nil
}

// SetOf is the set of globs already compiled.
func SetOf(globs ...*Glob) *Set { return &Set{globs: globs} }

// Len is the number of patterns in the set.
func (s *Set) Len() int {
	if s == nil {
		return 0
	}
	return len(s.globs)
}

// MatchAny reports whether any pattern of the set matches path (see
// Glob.Match). It does not allocate.
func (s *Set) MatchAny(path string) bool {
	if s == nil {
		return false
	}
	for _, g := range s.globs {
		if g.Match(path) {
			return true
		}
	}
	return false
}

func trimPathPrefix(path string) string {
	for {
		switch {
		case strings.HasPrefix(path, "./"):
			path = path[2:]
		case strings.HasPrefix(path, "/"):
			path = path[1:]
		default:
			return path
		}
	}
}

// match runs the greedy wildcard algorithm over path segments, with "**"
// as the star: every other segment consumes exactly one path segment, so
// backtracking to the last globstar alone is enough.
func (a *globAlt) match(path string) bool {
	segs := a.segs
	si, pos := 0, 0
	starSi, starPos := -1, 0
	for {
		if pos > len(path) { // every path segment consumed
			for si < len(segs) && segs[si].kind == segGlobstar {
				si++
			}
			return si == len(segs)
		}
		end := segEnd(path, pos)
		if si < len(segs) {
			s := &segs[si]
			if s.kind == segGlobstar {
				starSi, starPos = si, pos
				si++
				continue
			}
			if s.matchSegment(path[pos:end]) {
				si++
				pos = end + 1
				continue
			}
		}
		if starSi < 0 {
			return false
		}
		// Let the last globstar swallow one more segment and retry.
		starPos = segEnd(path, starPos) + 1
		pos, si = starPos, starSi+1
	}
}

func segEnd(path string, pos int) int {
	if i := strings.IndexByte(path[pos:], '/'); i >= 0 {
		return pos + i
	}
	return len(path)
}

// matchSegment is the same greedy algorithm within one segment, with "*"
// as the star; every other token consumes a fixed run of the text.
func (s *globSeg) matchSegment(text string) bool {
	toks := s.toks
	switch s.kind {
	case segLiteral:
		return s.lit == text
	case segSuffix: // "*.go"
		return strings.HasSuffix(text, toks[1].lit)
	case segPrefix: // "test_*"
		return strings.HasPrefix(text, toks[0].lit)
	}
	ti, i := 0, 0
	starTi, starI := -1, 0
	for {
		if ti < len(toks) {
			t := &toks[ti]
			switch t.kind {
			case tokStar:
				if ti == len(toks)-1 {
					return true
				}
				starTi, starI = ti, i
				ti++
				continue
			case tokLit:
				if strings.HasPrefix(text[i:], t.lit) {
					i += len(t.lit)
					ti++
					continue
				}
			case tokAny:
				if i < len(text) {
					_, n := utf8.DecodeRuneInString(text[i:])
					i += n
					ti++
					continue
				}
			case tokClass:
				if i < len(text) {
					r, n := utf8.DecodeRuneInString(text[i:])
					if t.classMatch(r) {
						i += n
						ti++
						continue
					}
				}
			}
		} else if i == len(text) {
			return true
		}
		if starTi < 0 || starI >= len(text) {
			return false
		}
		_, n := utf8.DecodeRuneInString(text[starI:])
		starI += n
		i, ti = starI, starTi+1
	}
}

func (t *globTok) classMatch(r rune) bool {
	in := false
	for _, rg := range t.ranges {
		if rg.lo <= r && r <= rg.hi {
			in = true
			break
		}
	}
	return in != t.neg
}

// compileAlt compiles one brace-free pattern.
func compileAlt(p string) (globAlt, error) {
	anchored := strings.HasPrefix(p, "/")
	p = strings.TrimLeft(p, "/")
	for strings.HasPrefix(p, "./") {
		p = strings.TrimLeft(p[2:], "/")
	}
	// As in gitignore, a "/" before the end anchors the pattern ("gen/"
	// matches at any depth, "gen/**" only at the root).
	if strings.Contains(strings.TrimRight(p, "/"), "/") {
		anchored = true
	}
	// A trailing "/" or "/**" means "everything under": the implicit
	// trailing globstar below already says that.
	for {
		if t, ok := strings.CutSuffix(p, "/**"); ok {
			p = t
		} else if t, ok := strings.CutSuffix(p, "/"); ok {
			p = t
		} else {
			break
		}
	}
	if p == "" {
		if anchored {
			return globAlt{}, fmt.Errorf("matches nothing")
		}
		p = "**"
	}
	var alt globAlt
	if !anchored && p != "**" {
		alt.segs = append(alt.segs, globSeg{kind: segGlobstar})
	}
	for _, part := range strings.Split(p, "/") {
		if part == "" {
			continue // "a//b" is "a/b"
		}
		seg, err := compileSegment(part)
		if err != nil {
			return globAlt{}, err
		}
		if seg.kind == segGlobstar && len(alt.segs) > 0 && alt.segs[len(alt.segs)-1].kind == segGlobstar {
			continue
		}
		alt.segs = append(alt.segs, seg)
	}
	if alt.segs[len(alt.segs)-1].kind != segGlobstar {
		alt.segs = append(alt.segs, globSeg{kind: segGlobstar})
	}
	return alt, nil
}

func compileSegment(part string) (globSeg, error) {
	if part == "**" {
		return globSeg{kind: segGlobstar}, nil
	}
	var toks []globTok
	var lit strings.Builder
	flush := func() {
		if lit.Len() > 0 {
			toks = append(toks, globTok{kind: tokLit, lit: lit.String()})
			lit.Reset()
		}
	}
	for i := 0; i < len(part); {
		switch c := part[i]; c {
		case '\\':
			if i+1 >= len(part) {
				return globSeg{}, fmt.Errorf(`trailing "\"`)
			}
			_, n := utf8.DecodeRuneInString(part[i+1:])
			lit.WriteString(part[i+1 : i+1+n])
			i += 1 + n
		case '*':
			flush()
			for i < len(part) && part[i] == '*' {
				i++ // "**" inside a segment ("a**b") is a plain star
			}
			toks = append(toks, globTok{kind: tokStar})
		case '?':
			flush()
			toks = append(toks, globTok{kind: tokAny})
			i++
		case '[':
			flush()
			tok, n, err := compileClass(part[i:])
			if err != nil {
				return globSeg{}, err
			}
			toks = append(toks, tok)
			i += n
		default:
			lit.WriteByte(c)
			i++
		}
	}
	flush()
	switch {
	case len(toks) == 1 && toks[0].kind == tokLit:
		return globSeg{kind: segLiteral, lit: toks[0].lit}, nil
	case len(toks) == 2 && toks[0].kind == tokStar && toks[1].kind == tokLit:
		return globSeg{kind: segSuffix, toks: toks}, nil
	case len(toks) == 2 && toks[0].kind == tokLit && toks[1].kind == tokStar:
		return globSeg{kind: segPrefix, toks: toks}, nil
	}
	return globSeg{kind: segWild, toks: toks}, nil
}

// compileClass compiles the class at the start of s ("[...]") and returns
// the number of bytes it spans.
func compileClass(s string) (globTok, int, error) {
	tok := globTok{kind: tokClass}
	i := 1
	if i < len(s) && (s[i] == '!' || s[i] == '^') {
		tok.neg = true
		i++
	}
	first := true
	for {
		if i >= len(s) {
			return globTok{}, 0, fmt.Errorf(`unclosed "["`)
		}
		if s[i] == ']' && !first {
			i++
			break
		}
		first = false
		lo, n, err := classRune(s[i:])
		if err != nil {
			return globTok{}, 0, err
		}
		i += n
		hi := lo
		if i+1 < len(s) && s[i] == '-' && s[i+1] != ']' {
			hi, n, err = classRune(s[i+1:])
			if err != nil {
				return globTok{}, 0, err
			}
			i += 1 + n
			if hi < lo {
				return globTok{}, 0, fmt.Errorf("bad range %q-%q in class", lo, hi)
			}
		}
		tok.ranges = append(tok.ranges, runeRange{lo, hi})
	}
	return tok, i, nil
}

func classRune(s string) (rune, int, error) {
	if s[0] == '\\' {
		if len(s) < 2 {
			return 0, 0, fmt.Errorf(`unclosed "["`)
		}
		r, n := utf8.DecodeRuneInString(s[1:])
		return r, 1 + n, nil
	}
	if s[0] == '/' {
		return 0, 0, fmt.Errorf(`"/" inside "[...]"`)
	}
	r, n := utf8.DecodeRuneInString(s)
	return r, n, nil
}

// expandBraces expands {a,b} alternations (nested, and spanning "/") into
// plain patterns, honouring "\" escapes and leaving "[...]" classes alone.
func expandBraces(p string) ([]string, error) {
	open := -1
	depth := 0
	var commas []int
	for i := 0; i < len(p); i++ {
		switch p[i] {
		case '\\':
			i++
		case '[':
			if j := classEnd(p, i); j > 0 {
				i = j
			}
		case '{':
			if depth == 0 {
				open = i
				commas = commas[:0]
			}
			depth++
		case ',':
			if depth == 1 {
				commas = append(commas, i)
			}
		case '}':
			if depth == 0 {
				return nil, fmt.Errorf(`unmatched "}"`)
			}
			depth--
			if depth > 0 {
				continue
			}
			prefix, suffix := p[:open], p[i+1:]
			var choices []string
			start := open + 1
			for _, c := range commas {
				choices = append(choices, p[start:c])
				start = c + 1
			}
			choices = append(choices, p[start:i])
			rest, err := expandBraces(suffix)
			if err != nil {
				return nil, err
			}
			var out []string
			for _, c := range choices {
				inner, err := expandBraces(c)
				if err != nil {
					return nil, err
				}
				for _, in := range inner {
					for _, r := range rest {
						if len(out) == maxGlobAlternatives {
							return nil, fmt.Errorf("more than %d alternatives", maxGlobAlternatives)
						}
						out = append(out, prefix+in+r)
					}
				}
			}
			return out, nil
		}
	}
	if depth > 0 {
		return nil, fmt.Errorf(`unclosed "{"`)
	}
	return []string{p}, nil
}

// classEnd returns the index of the "]" closing the class that starts at
// p[i], or -1 when it is unclosed (compileSegment reports that).
func classEnd(p string, i int) int {
	j := i + 1
	if j < len(p) && (p[j] == '!' || p[j] == '^') {
		j++
	}
	if j < len(p) && p[j] == ']' {
		j++
	}
	for ; j < len(p); j++ {
		switch p[j] {
		case '\\':
			j++
		case ']':
			return j
		}
	}
	return -1
}
