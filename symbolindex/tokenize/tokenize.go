package tokenize

import (
	"unicode"
	"unicode/utf8"
)

// Term normalization shared by the lexical index, the hash embedder and
// queries. The rules, in order:
//
//   - Text is cut into identifiers: runs of letters and digits, where "_"
//     inside a run and "-" between letters join segments (snake_case,
//     kebab-case).
//   - An identifier is cut into parts at camelCase and PascalCase
//     boundaries, keeping acronyms and their plurals whole ("HTTPServer" →
//     http, server; "URLs" → urls), and between letters and digits
//     ("parseJSON2Go" → parse, json, 2, go).
//   - Each part is lowercased and stemmed (see tokStem). Parts shorter than
//     2 or longer than 40 runes are dropped, so single digits and letters
//     never become terms.
//   - An identifier with two or more parts also yields the whole identifier
//     lowercased and joined, unstemmed ("parseConfig" → parseconfig), so
//     that writing an exact name scores higher than mentioning its words.
//   - Syntax words present in nearly every piece of code (tokDocStop) are
//     dropped everywhere; they would only cost postings.

// tokMaxRunes is the length, in runes, of the longest term kept.
const tokMaxRunes = 40

// tokBufBytes holds tokMaxRunes runes of UTF-8 plus room for the stemmer to
// add a letter.
const tokBufBytes = tokMaxRunes*utf8.UTFMax + 8

// Mode selects which stop lists apply.
type Mode uint8

const (
	ModeDoc    Mode = iota // documents: syntax stop words dropped
	modeQuery              // queries: also English stop words and filler
	ModeDocAll             // documents with no stop list (for measurements)
)

// tokClass is the class of a rune for splitting identifiers.
type tokClass uint8

const (
	tokSep      tokClass = iota // not part of an identifier
	tokUpper                    // uppercase letter
	tokLower                    // lowercase letter
	tokCaseless                 // letter without case (CJK, marks, titlecase)
	tokDigit                    // decimal digit
)

// tokASCII is the class of each ASCII byte, so that the common case of
// tokClassOf is one load.
var tokASCII = func() (t [utf8.RuneSelf]tokClass) {
	for c := 'a'; c <= 'z'; c++ {
		t[c] = tokLower
		t[c-'a'+'A'] = tokUpper
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = tokDigit
	}
	return t
}()

func tokClassOf(r rune) tokClass {
	if r < utf8.RuneSelf {
		return tokASCII[r]
	}
	switch {
	case unicode.IsUpper(r):
		return tokUpper
	case unicode.IsLower(r):
		return tokLower
	case unicode.IsLetter(r), unicode.IsMark(r):
		return tokCaseless
	case unicode.IsDigit(r):
		return tokDigit
	}
	return tokSep
}

// Scratch is the reusable working memory of the tokenizer. A zero value
// is ready; one scratch serves one goroutine at a time.
type Scratch struct {
	part   [tokBufBytes]byte // the part being read
	first  [tokBufBytes]byte // the first part of the identifier, held back
	joined [tokBufBytes]byte // all parts of the identifier, concatenated
}

// tokState is the state of one tokenizer run.
type tokState struct {
	s       *Scratch
	mode    Mode
	emit    func(term []byte) bool
	emitAt  func(term []byte, at int) bool // RunAt's emit, instead of emit
	at      int                            // where the identifier being read starts
	stopped bool

	partN, partRunes int
	partOver         bool // the part is longer than tokMaxRunes
	upperRun         int  // uppercase runes at the end of the part
	lastRune         rune // last rune of the part, original case
	lastSize         int  // bytes of the lowercased last rune

	nparts           int
	firstN, firstRun int
	firstOK          bool
	joinN, joinRunes int
	joinOver         bool
}

// Run tokenizes text and calls emit with each term, in order of appearance.
// The slice passed to emit aliases the scratch and is valid only during the
// call. emit returns false to stop the run early.
func (s *Scratch) Run(text string, mode Mode, emit func(term []byte) bool) {
	t := tokState{s: s, mode: mode, emit: emit}
	t.run(text)
}

// RunAt is Run that also passes emit the byte offset in text where the
// term's identifier starts (an identifier such as parse_config_v2 yields
// several terms, all at its start).
func (s *Scratch) RunAt(text string, mode Mode, emit func(term []byte, at int) bool) {
	t := tokState{s: s, mode: mode, emitAt: emit}
	t.run(text)
}

// IdentBoundary reports whether no identifier Run reads spans byte at of
// text (at > 0 inside text): the rune before at is neither part of an
// identifier nor a byte that may join an identifier's parts ("_", "-"),
// so the terms of an identifier starting at at are its own. At 0 it is
// true.
func IdentBoundary(text string, at int) bool {
	if at <= 0 {
		return true
	}
	r, _ := utf8.DecodeLastRuneInString(text[:at])
	return tokClassOf(r) == tokSep && r != '_' && r != '-'
}

func (t *tokState) run(text string) {
	prev := tokSep
	inIdent := false
	for i := 0; i < len(text) && !t.stopped; {
		r, size := rune(text[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(text[i:])
		}
		i += size
		c := tokClassOf(r)
		if c == tokSep {
			if inIdent && (r == '_' || r == '-' && prev != tokDigit && tokLetterAt(text, i)) {
				t.endPart()
				prev = tokSep
				continue
			}
			if inIdent {
				t.endIdent()
				inIdent = false
			}
			prev = tokSep
			continue
		}
		if !inIdent {
			t.at = i - size
			inIdent = true
		}
		switch {
		case prev == tokSep:
		case c == tokDigit:
			if prev != tokDigit {
				t.endPart()
			}
		case prev == tokDigit:
			t.endPart()
		case c == tokUpper:
			if prev == tokLower || prev == tokCaseless {
				t.endPart()
			}
		case c == tokLower:
			if prev == tokUpper && t.upperRun >= 2 && !(r == 's' && !tokLowerAt(text, i)) {
				// "HTTPServer": the last capital starts the next part;
				// but "URLs", "IDsFor" are plural acronyms.
				last := t.lastRune
				if !t.partOver {
					t.partN -= t.lastSize
					t.partRunes--
				}
				t.endPart()
				t.appendRune(last, tokUpper)
			}
		}
		t.appendRune(r, c)
		prev = c
	}
	if inIdent && !t.stopped {
		t.endIdent()
	}
}

// tokLetterAt reports whether text[i:] starts with a letter; "-" joins
// kebab-case words but not numbers (2024-01-02, x-1).
func tokLetterAt(text string, i int) bool {
	if i >= len(text) {
		return false
	}
	r := rune(text[i])
	if r >= utf8.RuneSelf {
		r, _ = utf8.DecodeRuneInString(text[i:])
	}
	c := tokClassOf(r)
	return c == tokUpper || c == tokLower || c == tokCaseless
}

// tokLowerAt reports whether text[i:] starts with a lowercase letter.
func tokLowerAt(text string, i int) bool {
	if i >= len(text) {
		return false
	}
	r := rune(text[i])
	if r >= utf8.RuneSelf {
		r, _ = utf8.DecodeRuneInString(text[i:])
	}
	return tokClassOf(r) == tokLower
}

func (t *tokState) appendRune(r rune, c tokClass) {
	if c == tokUpper {
		t.upperRun++
	} else {
		t.upperRun = 0
	}
	t.lastRune = r
	if t.partRunes >= tokMaxRunes {
		t.partOver = true
		t.partRunes++
		return
	}
	if r < utf8.RuneSelf {
		// Only letters and digits reach here: ASCII lowercases by a bit.
		b := byte(r)
		if c == tokUpper {
			b |= 0x20
		}
		t.s.part[t.partN] = b
		t.partN++
		t.partRunes++
		t.lastSize = 1
		return
	}
	n := utf8.EncodeRune(t.s.part[t.partN:], unicode.ToLower(r))
	t.partN += n
	t.partRunes++
	t.lastSize = n
}

// endPart closes the current part: it joins the identifier and is emitted,
// except the first part, which waits until it is known whether it stands
// alone (queries drop standalone filler words only).
func (t *tokState) endPart() {
	if t.partN == 0 && !t.partOver {
		return
	}
	t.nparts++
	if !t.joinOver {
		if t.partOver || t.joinRunes+t.partRunes > tokMaxRunes {
			t.joinOver = true
		} else {
			t.joinN += copy(t.s.joined[t.joinN:], t.s.part[:t.partN])
			t.joinRunes += t.partRunes
		}
	}
	switch t.nparts {
	case 1:
		t.firstOK = !t.partOver
		t.firstN = copy(t.s.first[:], t.s.part[:t.partN])
		t.firstRun = t.partRunes
	case 2:
		t.flushFirst(false)
		fallthrough
	default:
		if !t.partOver && !t.stopped {
			t.emitPart(t.s.part[:t.partN], t.partRunes, false)
		}
	}
	t.partN, t.partRunes, t.partOver, t.upperRun = 0, 0, false, 0
}

func (t *tokState) flushFirst(standalone bool) {
	if t.firstOK && !t.stopped {
		t.emitPart(t.s.first[:t.firstN], t.firstRun, standalone)
	}
	t.firstOK = false
}

func (t *tokState) endIdent() {
	t.endPart()
	switch {
	case t.nparts == 1:
		t.flushFirst(true)
	case t.nparts >= 2 && !t.joinOver && t.joinRunes >= 2 && !t.stopped:
		t.out(t.s.joined[:t.joinN])
	}
	t.nparts, t.joinN, t.joinRunes, t.joinOver, t.firstOK = 0, 0, 0, false, false
}

// emitPart filters, stems and emits one lowercased part. b must have spare
// capacity for the stemmer.
func (t *tokState) emitPart(b []byte, runes int, standalone bool) {
	if runes < 2 {
		return
	}
	if t.mode != ModeDocAll && tokDocStop(b) {
		return
	}
	if t.mode == modeQuery && standalone && tokQueryStop(b) {
		return
	}
	n := len(b)
	b = tokStem(b)
	if len(b) != n && t.mode != ModeDocAll && tokDocStop(b) {
		return
	}
	t.out(b)
}

// out passes a term to the run's emit.
func (t *tokState) out(b []byte) {
	var ok bool
	if t.emitAt != nil {
		ok = t.emitAt(b, t.at)
	} else {
		ok = t.emit(b)
	}
	if !ok {
		t.stopped = true
	}
}

// Terms splits document text into index terms and calls emit with each, in
// order of appearance and with repetitions (term frequency matters). See the
// rules at the top of this file: identifiers are split at case, digit, "_"
// and "-" boundaries, parts are lowercased and lightly stemmed, and an
// identifier of two or more parts also yields its whole joined form.
func Terms(text string, emit func(term string)) {
	var s Scratch
	s.Run(text, ModeDoc, func(b []byte) bool {
		emit(string(b))
		return true
	})
}

// QueryTerms returns the distinct terms of a query, normalized exactly like
// documents (see Terms), in order of first appearance. Words that stand
// alone (not parts of an identifier such as handleRequest) are dropped when
// they are English stop words, conversational filler, or one of the generic
// change verbs that would match everything: fix, add, update, change, make,
// use, support, improve, handle and allow in any inflection (tokQueryStop
// has the full list).
func QueryTerms(text string) []string {
	var s Scratch
	var out []string
	seen := make(map[string]struct{})
	s.Run(text, modeQuery, func(b []byte) bool {
		if _, ok := seen[string(b)]; !ok {
			term := string(b)
			seen[term] = struct{}{}
			out = append(out, term)
		}
		return true
	})
	return out
}

// tokDocStop reports whether a term is a syntax word that appears in nearly
// every piece of code (keywords, literals, the commonest English function
// words). These are dropped from documents and queries alike: their IDF is
// near zero, so they only cost postings. Keep the list to words nobody
// searches for; "import", "type" or "class" are meaningful and not listed.
func tokDocStop(b []byte) bool {
	switch string(b) {
	case "func", "function", "fn", "def", "return", "if", "else", "elif",
		"elsif", "then", "do", "for", "while", "var", "let", "const", "mut",
		"pub", "self", "this", "nil", "null", "none", "true", "false", "err",
		"public", "private", "static", "void",
		"the", "and", "or", "not", "of", "to", "in", "is", "it", "as", "at",
		"by", "be", "an", "on":
		return true
	}
	return false
}

// tokQueryStop reports whether a standalone query word carries no search
// intent: English stop words, conversational filler, and the generic change
// verbs fix, add, update, change, make, use, support, improve, handle and
// allow with their inflections. They are removed from queries only; as
// parts of an identifier (handleRequest, useState) they are kept.
func tokQueryStop(b []byte) bool {
	switch string(b) {
	// English function words.
	case "an", "the", "to", "of", "in", "for", "on", "at", "by", "from",
		"into", "onto", "with", "without", "about", "as", "is", "are", "was",
		"were", "be", "been", "being", "am", "it", "its", "that", "this",
		"these", "those", "there", "here", "and", "or", "but", "not", "no",
		"so", "if", "then", "than", "when", "where", "what", "which", "who",
		"whom", "why", "how", "should", "would", "could", "can", "cannot",
		"will", "shall", "may", "might", "must", "do", "does", "did", "done",
		"doing", "have", "has", "had", "having", "me", "my", "we", "us", "our",
		"you", "your", "he", "she", "they", "them", "their", "some", "any",
		"all", "each", "every", "also", "just", "only", "very", "same",
		"other", "another",
		// Contraction remnants: don't → don, t; it'll → ll.
		"don", "doesn", "isn", "aren", "wasn", "won", "didn", "shouldn",
		"couldn", "wouldn", "ll", "ve", "re",
		// Conversational filler.
		"please", "thanks", "thank", "hi", "hey", "hello", "ok", "okay",
		"like", "want", "wants", "need", "needs", "let", "lets", "new", "now",
		"currently", "still", "again", "really", "actually", "maybe",
		"something", "somewhere", "stuff", "thing", "things", "way", "seems",
		"seem", "work", "works", "working",
		// Generic change verbs.
		"fix", "fixes", "fixed", "fixing", "add", "adds", "added", "adding",
		"update", "updates", "updated", "updating", "change", "changes",
		"changed", "changing", "make", "makes", "made", "making", "use",
		"uses", "used", "using", "support", "supports", "supported",
		"supporting", "improve", "improves", "improved", "improving",
		"handle", "handles", "handled", "handling", "allow", "allows",
		"allowed", "allowing":
		return true
	}
	return false
}

// tokInvariant lists words the suffix rules would mangle.
func tokInvariant(b []byte) bool {
	switch string(b) {
	case "alias", "atlas", "bias", "canvas", "gas", "has", "was", "its",
		"yes", "his", "this", "does", "lens", "news", "series", "species",
		"always", "perhaps", "whereas", "embed":
		return true
	}
	return false
}

// tokStem reduces a lowercased ASCII word to a stem so that the inflections
// and agent nouns of one word meet: parse, parses, parsed, parsing, parser
// → pars; validate, validates, validation, validator → valid; index,
// indexes, indexing → index. It is deliberately light and only removes
// suffixes, never rewrites roots; a remainder always keeps at least two
// letters. Rules, applied in sequence to the result of the previous one:
//
//  1. plurals: -sses → -ss, -ies → -i, -xes/-ches/-shes/-zzes/-uses lose
//     -es, -s goes except after s or u (class, status stay);
//  2. verb forms: -eed stays, -ied → -i, -ed and -ing go when a vowel
//     remains (string, thing stay); -at/-bl/-iz then regain an e and a
//     doubled final consonant is undoubled (stopped → stop);
//  3. derivations: -ation/-ator → -ate, -ction/-ption lose -ion,
//     -etion/-ution → -ete/-ute, -tor/-ssor lose -or, -er goes (undoubling as
//     in step 2);
//  4. endings: -ate goes, else a final -e goes;
//  5. a final y after a consonant becomes i (query, queries → queri).
//
// Consequences, chosen on purpose: server and serve meet (Go's ServeHTTP is
// what a question about the HTTP server wants), as do user/users but not
// user/use, and order/ordered/ordering. Words with digits or non-ASCII
// letters are left alone.
func tokStem(b []byte) []byte {
	if len(b) < 3 {
		return b
	}
	for _, c := range b {
		if c < 'a' || c > 'z' {
			return b
		}
	}
	if tokInvariant(b) {
		return b
	}
	b = tokStemPlural(b)
	if tokInvariant(b) {
		return b
	}
	b = tokStemVerb(b)
	b = tokStemDerived(b)
	b = tokStemEnding(b)
	if n := len(b); n >= 3 && b[n-1] == 'y' && !tokVowel(b, n-2) {
		b[n-1] = 'i'
	}
	return b
}

func tokHasSuffix(b []byte, suffix string) bool {
	return len(b) >= len(suffix) && string(b[len(b)-len(suffix):]) == suffix
}

// tokVowel reports whether b[i] is a vowel; y counts as one after a
// consonant.
func tokVowel(b []byte, i int) bool {
	switch b[i] {
	case 'a', 'e', 'i', 'o', 'u':
		return true
	case 'y':
		return i > 0 && !tokVowel(b, i-1)
	}
	return false
}

func tokHasVowel(b []byte) bool {
	for i := range b {
		if tokVowel(b, i) {
			return true
		}
	}
	return false
}

func tokStemPlural(b []byte) []byte {
	n := len(b)
	switch {
	case tokHasSuffix(b, "sses"):
		return b[:n-2]
	case tokHasSuffix(b, "ies"):
		if n >= 5 {
			return b[:n-2]
		}
		return b[:n-1]
	case tokHasSuffix(b, "ss"):
		return b
	case tokHasSuffix(b, "us"):
		switch string(b) {
		case "cpus", "gpus", "tpus", "vcpus", "menus", "skus":
			return b[:n-1]
		}
		return b
	case n-2 >= 3 && (tokHasSuffix(b, "xes") || tokHasSuffix(b, "ches") ||
		tokHasSuffix(b, "shes") || tokHasSuffix(b, "zzes") || tokHasSuffix(b, "uses")):
		return b[:n-2]
	case b[n-1] == 's':
		return b[:n-1]
	}
	return b
}

func tokStemVerb(b []byte) []byte {
	n := len(b)
	var stem []byte
	switch {
	case tokHasSuffix(b, "eed"):
		return b
	case tokHasSuffix(b, "ied"):
		if n >= 5 {
			return b[:n-2]
		}
		return b[:n-1]
	case tokHasSuffix(b, "ed"):
		stem = b[:n-2]
	case tokHasSuffix(b, "ing"):
		stem = b[:n-3]
	default:
		return b
	}
	if !tokHasVowel(stem) {
		return b
	}
	switch {
	case len(stem) == 2:
		// used → use, using → use, aged → age.
		return append(stem, 'e')
	case len(stem) < 2:
		return b
	case tokHasSuffix(stem, "at"), tokHasSuffix(stem, "bl"), tokHasSuffix(stem, "iz"):
		return append(stem, 'e')
	}
	return tokUndouble(stem)
}

// tokUndouble removes one of a doubled final consonant other than l, s or z
// (stopp → stop, but call, pass, fuzz stay), keeping at least 3 letters.
func tokUndouble(b []byte) []byte {
	n := len(b)
	switch string(b) {
	case "controll", "cancell", "labell", "modell", "signall", "travell":
		return b[:n-1] // l doubled before a suffix, British style
	}
	if n >= 4 && b[n-1] == b[n-2] && !tokVowel(b, n-1) {
		switch b[n-1] {
		case 'l', 's', 'z':
		default:
			return b[:n-1]
		}
	}
	return b
}

func tokStemDerived(b []byte) []byte {
	n := len(b)
	switch {
	case tokHasSuffix(b, "ation") && n-5 >= 2:
		return append(b[:n-3], 'e') // validation → validate
	case tokHasSuffix(b, "ator") && n-4 >= 2:
		return append(b[:n-2], 'e') // validator → validate
	case (tokHasSuffix(b, "ction") || tokHasSuffix(b, "ption")) && n-3 >= 3:
		return b[:n-3] // selection → select, option → opt
	case (tokHasSuffix(b, "etion") || tokHasSuffix(b, "ution")) && n-5 >= 2:
		return append(b[:n-3], 'e') // deletion → delete, execution → execute
	case (tokHasSuffix(b, "tor") || tokHasSuffix(b, "ssor")) && n-2 >= 3:
		return b[:n-2] // editor → edit, processor → process
	case tokHasSuffix(b, "er") && n-2 >= 3 && tokHasVowel(b[:n-2]):
		return tokUndouble(b[:n-2]) // parser → pars, runner → run
	}
	return b
}

func tokStemEnding(b []byte) []byte {
	n := len(b)
	switch {
	case tokHasSuffix(b, "ate") && n-3 >= 3:
		return b[:n-3]
	case b[n-1] == 'e' && n-1 >= 3:
		return b[:n-1]
	}
	return b
}
