package spelling

import (
	"bytes"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Kinds of what Find finds besides a suspect word.
const (
	KindCase      = "a variant of"  // of a word the request names: MacOS for macOS
	KindArticle   = "an before"     // "an sync request"
	KindTwice     = "written twice" // "the the"
	NamedWeight   = 3               // a variant of a word the request names counts most
	GrammarWeight = 1
)

// twiceWords are the short words a slip writes twice ("the the"): a
// doubled longer word is as often code's (`foo foo` in a test).
var twiceWords = map[string]bool{
	"the": true, "an": true, "to": true, "of": true, "is": true, "in": true, "and": true, "be": true,
	"for": true, "that": true, "it": true, "on": true, "with": true, "as": true, "are": true,
	"can": true, "will": true, "this": true, "if": true, "or": true, "by": true, "we": true,
}

// Hit is one place Find found: text[At:End] is what looks wrong.
type Hit struct {
	At, End int
	Word    string // as written
	Suspect
}

// Named is a word a request names, and whether its own case is its
// spelling (macOS), and so a variant in another case a misspelling (no
// symbol is named so: SetParamValues is code, not prose).
type Named struct {
	Word string
	Case bool
}

// Find calls fn with each place of text that holds a suspect word (sus),
// a named word in another case (when its case counts: MacOS for macOS),
// and, with grammar, "an" before a word that begins with a consonant or a
// short word written twice.
func Find(text []byte, sus map[string]Suspect, named []Named, grammar bool, fn func(Hit)) {
	r := newRuns()
	Words(text, func(w []byte, at int, run []byte, start int) {
		if len(w) >= MinLen-1 { // a shorter word is no suspect (Suspects, Variants)
			if s, ok := sus[string(w)]; ok {
				fn(Hit{at, at + len(w), string(text[at : at+len(w)]), s})
			}
		}
		if !r.enter(start) {
			return
		}
		for _, n := range named {
			if n.Case && string(run) != n.Word && bytes.EqualFold(run, []byte(n.Word)) {
				fn(Hit{start, start + len(run), string(run), Suspect{Right: n.Word, Kind: KindCase, Weight: NamedWeight}})
			}
		}
		if h, ok := r.slip(text, run, start); ok && grammar {
			fn(h)
		}
	})
}

// runs follows the runs of letters Words finds in a text, for what is
// said of a run and the one before it.
type runs struct{ prevAt, prevEnd, last int }

func newRuns() runs { return runs{-1, -1, -1} }

// enter reports whether the run at start is one not seen before (Words
// calls once for each of its camelCase parts).
func (r *runs) enter(start int) bool {
	if start == r.last {
		return false
	}
	r.last = start
	return true
}

// slip is the grammar slip that run (at start, entered) makes with the
// run before it, a single space apart: "an" before a consonant, or a
// short word written twice.
func (r *runs) slip(text, run []byte, start int) (Hit, bool) {
	prevAt, prevEnd, end := r.prevAt, r.prevEnd, start+len(run)
	r.prevAt, r.prevEnd = start, end
	if prevAt < 0 || prevEnd+1 != start || text[prevEnd] != ' ' {
		return Hit{}, false
	}
	prev := text[prevAt:prevEnd]
	if prevAt > 0 && identByte(text[prevAt-1]) { // "x_an", "is_the": part of a name
		return Hit{}, false
	}
	switch {
	case string(prev) == "an" && consonantWord(run):
		return Hit{prevAt, end, string(text[prevAt:end]), Suspect{Right: "a " + string(run), Kind: KindArticle, Weight: GrammarWeight}}, true
	case bytes.Equal(prev, run) && twiceWords[string(run)] && (end == len(text) || !identByte(text[end])): // "in in_flight" names in_flight
		return Hit{prevAt, end, string(text[prevAt:end]), Suspect{Right: string(run), Kind: KindTwice, Weight: GrammarWeight}}, true
	}
	return Hit{}, false
}

// identByte reports whether c is a byte of a name, but for a letter:
// a digit or an underscore.
func identByte(c byte) bool { return c >= '0' && c <= '9' || c == '_' }

// consonantWord reports whether run is a lowercase word that begins with
// a consonant sound: a letter other than a vowel or h, three letters or
// more with a vowel among them (an rpc, an fd, an xml are read as
// letters).
func consonantWord(run []byte) bool {
	if len(run) < 3 || !(run[0] >= 'a' && run[0] <= 'z') || strings.IndexByte("aeiouh", run[0]) >= 0 {
		return false
	}
	for _, c := range run {
		if c < 'a' || c > 'z' {
			return false
		}
	}
	return bytes.ContainsAny(run[1:], "aeiouy")
}

// Why says what a hit holds and why it looks wrong, in backticks, for an
// item's reason: "`recieve`, one letter from `receive` (42 uses): your
// request asks about spelling".
func (h Hit) Why() string {
	const asks = ": your request asks about spelling"
	w := "`" + short(h.Word) + "`"
	switch h.Kind {
	case KindCase:
		return w + ", a variant of `" + h.Right + "`, which your request names"
	case KindArticle:
		return w + ": an before a consonant (`" + short(h.Right) + "`)" + asks
	case KindTwice:
		return w + ", a word written twice" + asks
	case KindNonASCII:
		return w + ", " + KindNonASCII + ": your request asks about non-ASCII characters"
	}
	if h.Weight >= NamedWeight {
		return w + ", " + h.Kind + " `" + h.Right + "`, which your request names"
	}
	uses := ""
	if h.Uses > 0 {
		uses = " (" + strconv.Itoa(h.Uses) + " uses)"
	}
	return w + ", " + h.Kind + " `" + h.Right + "`" + uses + asks
}

// short is s cut to about 40 bytes.
func short(s string) string {
	if len(s) <= 40 {
		return s
	}
	return s[:40] + "…"
}

// KindNonASCII: a typographic character outside ASCII.
const KindNonASCII = "a character outside ASCII"

// FindNonASCII calls fn with each place of text that holds a typographic
// character outside ASCII, the kind a clean-up of non-ASCII characters
// replaces: a no-break space, or one of Unicode's general punctuation
// (dashes, curly quotes, an ellipsis, odd spaces). The letters, symbols
// and box drawing of a program's own strings are not.
func FindNonASCII(text []byte, fn func(Hit)) {
	for i := 0; i < len(text); {
		if text[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, n := utf8.DecodeRune(text[i:])
		if r == '\u00a0' || r >= '\u2000' && r <= '\u206f' {
			fn(Hit{i, i + n, string(text[i : i+n]), Suspect{Kind: KindNonASCII, Weight: 1}})
		}
		i += n
	}
}
