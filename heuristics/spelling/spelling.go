// Package spelling finds the words of a workspace that look misspelled,
// judged by the workspace's own words (no dictionary): a request to fix
// typos names no word any index holds, but the words it means are rare
// ones a letter from a word written many times (`recieve` once, `receive`
// 42 times), an apostrophe left out (`doesnt`, `doesn't`), "an" before a
// consonant ("an sync request") or a word written twice ("the the").
// When the request names the right spelling ("fix macOS spelling"), the
// workspace's variants of that word (`MacOS`) are what it means most.
package spelling

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ctxls/ctxls/heuristics"
)

// markers are the words that make a request one about spelling.
var markers = map[string]bool{
	"typo": true, "typos": true, "typo(s)": true, "typographical": true,
	"spelling": true, "spellings": true, "misspelled": true, "misspelt": true,
	"misspelling": true, "misspellings": true, "codespell": true, "misspell": true,
}

// fixVerbs are the words a request to fix a misspelling uses; without one
// "misspelling" names a feature ("Warn about common option misspellings").
var fixVerbs = map[string]bool{
	"fix": true, "fixes": true, "fixed": true, "fixing": true,
	"correct": true, "corrects": true, "corrected": true, "correcting": true,
	"typo": true, "typos": true,
}

// Ask is what a request asks about spelling (Request).
type Ask struct {
	// Spelling: it asks to fix typos or spelling, naming Named, the words
	// that may be the right spelling of what is misspelled (the words of
	// four letters or more that are no marker and no common word of such
	// requests: "macOS" in "docs: fix macOS spelling in BSD ls comment").
	Spelling bool
	Named    []string
	// NonASCII: it asks to clean up non-ASCII characters.
	NonASCII bool
}

// Request is what text asks about spelling.
func Request(text string) Ask {
	if nonASCII.MatchString(text) {
		return Ask{NonASCII: true}
	}
	asks, named := request(text)
	return Ask{Spelling: asks, Named: named}
}

// nonASCII matches a request to clean up non-ASCII characters: a line
// that begins (after a scope: "docs:") with a verb of cleaning and names
// non-ASCII characters ("slugs drop non-ASCII letters" and "Prefilter
// input for non-ASCII patterns" describe what code does).
var nonASCII = regexp.MustCompile(`(?im)^\s*([\w./-]+(\([^)]*\))?:\s*)?(clean|cleanup|remove|replace|strip|drop|fix)\b[^.\n]*\bnon[- ]?ascii\s+(characters?|chars?|punctuation|quotes|dashes|symbols)\b`)

func request(text string) (asks bool, named []string) {
	words := strings.FieldsFunc(text, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r == '\'' || r == '(' || r == ')')
	})
	fix, spell, weak := false, false, false
	for _, w := range words {
		l := strings.ToLower(strings.Trim(w, "'()"))
		if strings.ToLower(strings.Trim(w, "'")) == "typo(s)" {
			l = "typo(s)"
		}
		fix = fix || fixVerbs[l]
		switch {
		case l == "misspelling" || l == "misspellings":
			weak = true
		case markers[l]:
			spell = true
		}
	}
	if !spell && !(weak && fix) || quotesCode(text) {
		return false, nil
	}
	for _, w := range words {
		w = strings.Trim(w, "'()")
		l := strings.ToLower(w)
		if len(w) < 4 || markers[l] || fixVerbs[l] || commonWords[l] || strings.ContainsAny(w, "'()") {
			continue
		}
		named = append(named, w)
	}
	return true, named
}

// quotesCode reports whether text quotes a span without a letter (Fix
// typo "+"): the typo it means is code's, which no word finds.
func quotesCode(text string) bool {
	for _, q := range []string{"\"", "'", "`"} {
		parts := strings.Split(text, q)
		for i := 1; i+1 < len(parts); i += 2 {
			if p := strings.TrimSpace(parts[i]); p != "" && len(p) <= 8 && !strings.ContainsFunc(p, unicode.IsLetter) {
				return true
			}
		}
	}
	return false
}

// commonWords are the words requests about spelling use around what they
// fix, which name no word of the code.
var commonWords = map[string]bool{
	"some": true, "comment": true, "comments": true, "docs": true, "doc": true, "documentation": true,
	"chore": true, "found": true, "with": true, "from": true, "this": true, "that": true,
	"mistake": true, "mistakes": true, "error": true, "errors": true, "minor": true, "small": true,
	"various": true, "several": true, "multiple": true, "few": true, "across": true, "codebase": true,
	"code": true, "file": true, "files": true, "message": true, "messages": true, "string": true,
	"strings": true, "word": true, "words": true, "name": true, "names": true, "field": true,
	"help": true, "text": true, "in": true, "the": true, "and": true, "change": true, "changes": true,
	"godoc": true, "readme": true, "changelog": true, "test": true, "tests": true, "update": true,
}

// Words calls fn with each word of text: a run of ASCII letters (an
// apostrophe between two letters belongs to it: "doesn't") that no letter
// outside ASCII continues (foreign), cut at
// camelCase humps ("parseHTTPHeader": parse, HTTP, Header), lowercased,
// with where it starts in text and the whole run it is a part of and
// where that starts. word is valid only during the call.
func Words(text []byte, fn func(word []byte, at int, run []byte, runAt int)) {
	var buf [64]byte
	for i := 0; i < len(text); {
		if !heuristics.IsASCIILetter(text[i]) {
			i++
			continue
		}
		j := i + 1
		for j < len(text) && (heuristics.IsASCIILetter(text[j]) ||
			text[j] == '\'' && j+1 < len(text) && heuristics.IsASCIILetter(text[j+1]) && heuristics.IsASCIILetter(text[j-1])) {
			j++
		}
		if foreign(text, i, j) {
			i = j
			continue
		}
		run := text[i:j]
		start := 0
		for k := 1; k <= len(run); k++ {
			if k < len(run) && !hump(run, k) {
				continue
			}
			if part := run[start:k]; len(part) <= len(buf) {
				fn(lower(buf[:0], part), i+start, run, i)
			}
			start = k
		}
		i = j
	}
}

// foreign reports whether the run text[i:j] of ASCII letters is part of a
// word that a letter (or mark) outside ASCII continues, a word of another
// language or a name: the "retourn" of "retourné" is no word.
func foreign(text []byte, i, j int) bool {
	if i > 0 && text[i-1] >= utf8.RuneSelf {
		if r, _ := utf8.DecodeLastRune(text[:i]); unicode.IsLetter(r) || unicode.IsMark(r) {
			return true
		}
	}
	if j < len(text) && text[j] >= utf8.RuneSelf {
		if r, _ := utf8.DecodeRune(text[j:]); unicode.IsLetter(r) || unicode.IsMark(r) {
			return true
		}
	}
	return false
}

// hump reports whether a camelCase part starts at k of run: a capital
// after a small letter, or a capital before a small letter after a
// capital (the Header of HTTPHeader).
func hump(run []byte, k int) bool {
	up := func(c byte) bool { return c >= 'A' && c <= 'Z' }
	low := func(c byte) bool { return c >= 'a' && c <= 'z' }
	return up(run[k]) && (low(run[k-1]) || up(run[k-1]) && k+1 < len(run) && low(run[k+1]))
}

func lower(dst, b []byte) []byte {
	for _, c := range b {
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		dst = append(dst, c)
	}
	return dst
}
