package heuristics

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// SpecificWords is the number of content words at which a query without any
// identifier or path stops being vague (Vagueness 0).
const SpecificWords = 4

// Query is what a prompt or commit message asks for, as seen by the sources
// of a selection: its sentences (for sentence-level embedding), its content
// words (for lexical search), the identifiers and paths it names (for the
// mentions source) and how vague it is (for weighting conversation history).
type Query struct {
	// Text is the query exactly as given.
	Text string
	// Sentences are the trimmed, non-empty sentences of Text, without their
	// terminating punctuation. Text is split at . ! ? ; followed by a space
	// or the end of a line, at line breaks and at bullet markers, but never
	// inside identifiers, paths, versions, dotted names, `code spans` or the
	// abbreviations e.g., i.e., vs., cf. A colon does not split ("lsp: fix
	// X" is one sentence); the lines of fenced code blocks are not sentences.
	Sentences []string
	// Words are the content words in order of first appearance, lowercased
	// and deduplicated: natural-language words and the parts of identifiers
	// and paths (parseConfig → parse, config; lsp/server.go → lsp, server),
	// without English stop words, conversational filler ("please", "that",
	// "same", "fix", ...), single letters, bare numbers and versions.
	Words []string
	// Identifiers are the code-like tokens as written, deduplicated:
	// camelCase, PascalCase, snake_case, SCREAMING_CASE, dotted names
	// (Server.Start, os.ReadFile), Type::method and Type#method (both
	// normalized to Type.method), command-line flags (--dry-run), calls
	// (foo() → foo, println!(x) → println, List[int] → List) and any single
	// `backticked` token. Plain English words are not identifiers.
	Identifiers []string
	// Paths are the file and directory mentions, deduplicated: tokens with a
	// "/" (not URLs, dates or and/or), names with a known source or document
	// extension, well-known file names (Dockerfile, Makefile, README) and
	// dotfiles (.gitignore), with quotes, trailing punctuation, a leading
	// "./", a trailing "/" and a ":line" or "#L12" suffix removed, plus the
	// package prefixes of commit subjects ("net/http: ...", "lsp: ...",
	// "feat(lsp): ...") without their colon.
	Paths []string
	// Vagueness is in [0,1]: 0 when the query names an identifier or a path
	// or has at least SpecificWords content words, otherwise
	// 1 − len(Words)/SpecificWords, so "fix that" and "why?" are 1.
	Vagueness float64
}

// Analyze splits a query into sentences, content words, identifiers and path
// mentions and measures how vague it is. It never fails: text that holds
// nothing recognizable gives a Query with empty lists and Vagueness 1.
func Analyze(text string) Query {
	a := analyzer{
		q:         Query{Text: text},
		seenWord:  make(map[string]struct{}),
		seenIdent: make(map[string]struct{}),
		seenPath:  make(map[string]struct{}),
	}
	inFence, subject := false, true
	for rest := text; rest != ""; {
		line := rest
		if i := strings.IndexAny(rest, "\r\n"); i >= 0 {
			line, rest = rest[:i], rest[i+1:]
		} else {
			rest = ""
		}
		line = stripBullet(line)
		if strings.HasPrefix(line, "```") || strings.HasPrefix(line, "~~~") {
			inFence = !inFence
			continue
		}
		if inFence {
			a.scan(line)
			continue
		}
		a.sentences(line)
		a.scan(a.commitPrefix(line, subject))
		subject = subject && strings.TrimSpace(line) == ""
	}
	q := a.q
	switch {
	case len(q.Identifiers) > 0 || len(q.Paths) > 0 || len(q.Words) >= SpecificWords:
		q.Vagueness = 0
	default:
		q.Vagueness = 1 - float64(len(q.Words))/SpecificWords
	}
	// A short prompt that points back ("also document it", "now make the
	// Go handler honour it") leans on the conversation however many words
	// it has of its own.
	if len(q.Identifiers) == 0 && len(q.Paths) == 0 && len(q.Words) < 2*SpecificWords && refersBack(text) {
		q.Vagueness = max(q.Vagueness, AnaphoraVagueness)
	}
	return q
}

// AnaphoraVagueness is the least vagueness of a short prompt that refers
// back to the conversation.
const AnaphoraVagueness = 0.75

// refersBack reports whether text uses a word that points at something said
// before: it, that, this, them, same, too, also, other, again, those, these.
func refersBack(text string) bool {
	return usesWord(text, "it", "that", "this", "them", "same", "too", "also", "other", "again", "those", "these", "there")
}

// usesWord reports whether text holds one of words (lowercase) as a word
// of its own: a run of ASCII letters and apostrophes, lowercased.
func usesWord(text string, words ...string) bool {
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r == '\'')
	}) {
		if slices.Contains(words, w) {
			return true
		}
	}
	return false
}

// analyzer accumulates one Analyze call's results.
type analyzer struct {
	q         Query
	seenWord  map[string]struct{}
	seenIdent map[string]struct{}
	seenPath  map[string]struct{}
}

// stripBullet removes indentation, block-quote markers, one list marker
// ("- ", "* ", "+ ", "• ", "1. ", "2) ") and a task checkbox from a line.
func stripBullet(line string) string {
	line = strings.TrimLeftFunc(line, unicode.IsSpace)
	for strings.HasPrefix(line, ">") {
		line = strings.TrimLeftFunc(line[1:], unicode.IsSpace)
	}
	marker := 0
	for _, m := range []string{"- ", "* ", "+ ", "• ", "· ", "-\t", "*\t"} {
		if strings.HasPrefix(line, m) {
			marker = len(m)
			break
		}
	}
	if marker == 0 {
		d := 0
		for d < len(line) && d < 4 && line[d] >= '0' && line[d] <= '9' {
			d++
		}
		if d > 0 && d+1 < len(line) && (line[d] == '.' || line[d] == ')') && (line[d+1] == ' ' || line[d+1] == '\t') {
			marker = d + 2
		}
	}
	line = strings.TrimLeftFunc(line[marker:], unicode.IsSpace)
	if marker > 0 {
		for _, box := range []string{"[ ] ", "[x] ", "[X] "} {
			if strings.HasPrefix(line, box) {
				line = strings.TrimLeftFunc(line[len(box):], unicode.IsSpace)
				break
			}
		}
	}
	return line
}

// closingTicks returns the index of the next run of exactly n backticks in s
// at or after from, or -1 when the code span is never closed.
func closingTicks(s string, from, n int) int {
	for i := from; i < len(s); {
		if s[i] != '`' {
			i++
			continue
		}
		j := i
		for j < len(s) && s[j] == '`' {
			j++
		}
		if j-i == n {
			return i
		}
		i = j
	}
	return -1
}

// tickRun returns the length of the run of backticks starting at s[i].
func tickRun(s string, i int) int {
	j := i
	for j < len(s) && s[j] == '`' {
		j++
	}
	return j - i
}

// sentences splits one line into sentences and appends them.
func (a *analyzer) sentences(line string) {
	start := 0
	for i := 0; i < len(line); {
		c := line[i]
		switch {
		case c == '`':
			n := tickRun(line, i)
			if end := closingTicks(line, i+n, n); end >= 0 {
				i = end + n
			} else {
				i += n
			}
		case c == '.' || c == '!' || c == '?' || c == ';':
			j := i
			for j < len(line) && strings.IndexByte(".!?;", line[j]) >= 0 {
				j++
			}
			k := j
			for k < len(line) && strings.IndexByte(`)]"'`, line[k]) >= 0 {
				k++
			}
			if k < len(line) && line[k] != ' ' && line[k] != '\t' {
				i = j
				continue
			}
			if c == '.' && j-i == 1 && abbreviation(line[:i+1], line[k:]) {
				i = j
				continue
			}
			a.sentence(line[start:i])
			start, i = k, k
		case strings.HasPrefix(line[i:], "•"):
			a.sentence(line[start:i])
			i += len("•")
			start = i
		default:
			i++
		}
	}
	a.sentence(line[start:])
}

// abbreviation reports whether the "." ending before is part of an
// abbreviation that does not end a sentence; after is the rest of the line.
func abbreviation(before, after string) bool {
	w := len(before)
	for w > 0 && (IsASCIILetter(before[w-1]) || before[w-1] == '.') {
		w--
	}
	switch strings.ToLower(before[w:]) {
	case "e.g.", "i.e.", "vs.", "cf.", "viz.", "approx.", "incl.", "w.r.t.", "a.k.a.":
		return true
	case "etc.":
		// "etc." ends a sentence unless the text goes on in lower case.
		after = strings.TrimLeft(after, " \t")
		r, _ := utf8.DecodeRuneInString(after)
		return after != "" && unicode.IsLower(r)
	}
	return false
}

// sentence appends s trimmed, unless it holds no letter or digit.
func (a *analyzer) sentence(s string) {
	s = strings.TrimFunc(s, unicode.IsSpace)
	if strings.IndexFunc(s, isAlnum) >= 0 {
		a.q.Sentences = append(a.q.Sentences, s)
	}
}

// commitPrefix records the package prefix of a commit-subject line
// ("net/http: ...", "lsp, workspace: ...", "feat(lsp): ...") as paths and
// returns the rest of the line to tokenize. A line without such a prefix is
// returned unchanged. Prefixes without a "/" ("lsp: ...") count only on the
// subject (first non-blank) line, where a lowercase word before a colon is a
// package by convention; further down they are more often prose ("third:").
func (a *analyzer) commitPrefix(line string, subject bool) string {
	colon := strings.Index(line, ": ")
	if colon < 0 && strings.HasSuffix(line, ":") {
		colon = len(line) - 1
	}
	if colon < 2 || colon > 120 {
		return line
	}
	head, rest := line[:colon], line[colon+1:]
	// Conventional commits: type(scope)!: subject.
	if open := strings.IndexByte(head, '('); open > 0 {
		typ := strings.ToLower(head[:open])
		scope, ok := strings.CutSuffix(strings.TrimSuffix(head[open+1:], "!"), ")")
		if !isConventionalType(typ) || !ok {
			return line
		}
		var parts []string
		for _, p := range strings.Split(scope, ",") {
			p = strings.TrimSpace(p)
			if p == "" || !pathChars(p) || !hasLetter(p) {
				return line
			}
			parts = append(parts, p)
		}
		for _, p := range parts {
			a.path(strings.TrimSuffix(strings.TrimPrefix(p, "./"), "/"))
		}
		return rest
	}
	if isConventionalType(strings.ToLower(strings.TrimSuffix(head, "!"))) {
		return rest
	}
	parts := strings.Split(head, ",")
	for i, p := range parts {
		if i > 0 {
			p = strings.TrimLeft(p, " ")
		}
		if !prefixPart(p) || (!subject && !strings.Contains(p, "/")) {
			return line
		}
		parts[i] = p
	}
	for _, p := range parts {
		a.path(strings.TrimSuffix(strings.TrimPrefix(p, "./"), "/"))
	}
	return rest
}

// prefixPart reports whether p can be one package or directory named before
// the colon of a commit subject.
func prefixPart(p string) bool {
	if p == "" || !pathChars(p) || !hasLetter(p) {
		return false
	}
	if strings.Contains(p, "/") {
		_, ok := slashPath(p)
		return ok
	}
	if knownFile(p) {
		return true
	}
	for i := 0; i < len(p); i++ {
		c := p[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.') {
			return false
		}
	}
	return IsASCIILetter(p[0]) && !isStopWord(p) && !isPrefixLabel(p)
}

// scan tokenizes s at white space and code spans and classifies each token.
func (a *analyzer) scan(s string) {
	for i := 0; i < len(s); {
		c := s[i]
		if c == '`' {
			n := tickRun(s, i)
			end := closingTicks(s, i+n, n)
			if end < 0 {
				i += n
				continue
			}
			inner := strings.TrimSpace(s[i+n : end])
			if strings.ContainsAny(inner, " \t") {
				for _, f := range strings.Fields(inner) {
					a.token(f, false)
				}
			} else if inner != "" {
				a.token(inner, true)
			}
			i = end + n
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if unicode.IsSpace(r) {
			i += size
			continue
		}
		j := i
		for j < len(s) {
			r, size := utf8.DecodeRuneInString(s[j:])
			if unicode.IsSpace(r) || r == '`' {
				break
			}
			j += size
		}
		a.token(s[i:j], false)
		i = j
	}
}

// token classifies one white-space-delimited token; code is true for the
// whole content of a code span.
func (a *analyzer) token(raw string, code bool) {
	t := trimToken(raw)
	if t == "" || strings.Contains(t, "://") || strings.HasPrefix(strings.ToLower(t), "www.") || isVersion(t) {
		return
	}
	if eq := strings.IndexByte(t, '='); eq > 0 && eq < len(t)-1 && t[eq+1] != '=' && !strings.ContainsAny(t[:eq], "=!<>") {
		// An assignment or option: CGO_ENABLED=0, --root=DIR, key=value.
		a.token(t[:eq], code)
		a.token(t[eq+1:], code)
		return
	}
	for _, s := range []string{"'s", "’s"} {
		if base, ok := strings.CutSuffix(t, s); ok && base != "" && !isPlainWord(base) {
			t = base
			break
		}
	}
	if name, ok := callName(t); ok {
		a.ident(name)
		return
	}
	if p, ok := pathToken(t); ok {
		a.path(p)
		return
	}
	if id, ok := identToken(t, code); ok {
		a.ident(id)
		return
	}
	a.plain(t)
}

// Punctuation trimmed from the two ends of a token.
const (
	leadPunct  = "([{<\"'`*“‘«"
	trailPunct = ",.;:!?\"'`*”’»>"
)

// trimToken removes quotes, brackets and sentence punctuation around a token,
// keeping closing brackets that match an opening one inside it (foo()).
func trimToken(t string) string {
	for {
		before := t
		t = strings.TrimLeft(t, leadPunct)
		t = strings.TrimRight(t, trailPunct)
		for _, p := range [...][2]byte{{'(', ')'}, {'[', ']'}, {'{', '}'}} {
			if strings.HasSuffix(t, string(p[1])) && strings.Count(t, string(p[0])) < strings.Count(t, string(p[1])) {
				t = t[:len(t)-1]
			}
		}
		if t == before {
			return t
		}
	}
}

// isVersion reports whether t is a version or a dotted number: 1.2, v1.2.3,
// 2.0.0-rc.1.
func isVersion(t string) bool {
	if t != "" && (t[0] == 'v' || t[0] == 'V') {
		t = t[1:]
	}
	dots, i := 0, 0
	for {
		d := i
		for i < len(t) && t[i] >= '0' && t[i] <= '9' {
			i++
		}
		if i == d {
			return false
		}
		if i == len(t) || t[i] == '-' || t[i] == '+' {
			return dots > 0
		}
		if t[i] != '.' {
			return false
		}
		dots++
		i++
	}
}

// callName returns the callee of call or index syntax: foo(), foo(x,
// Type::new(), println!(, List[int], Map<K. A trailing "(s)" is a plural,
// not a call.
func callName(t string) (string, bool) {
	i := strings.IndexAny(t, "([<")
	if i <= 0 {
		return "", false
	}
	switch t[i:] {
	case "(s)", "(es)", "(ies)":
		return "", false
	}
	name := normalizeIdent(strings.TrimSuffix(t[:i], "!"))
	if isIdent(name) || isDottedIdent(name) {
		return name, true
	}
	return "", false
}

// normalizeIdent rewrites Type::method and Type#method as Type.method.
func normalizeIdent(t string) string {
	t = strings.ReplaceAll(t, "::", ".")
	if h := strings.IndexByte(t, '#'); h > 0 && h < len(t)-1 {
		if l, r := t[:h], t[h+1:]; isIdent(l) && isIdent(r) {
			t = l + "." + r
		}
	}
	return t
}

// pathToken reports whether t names a file or directory and returns it
// cleaned: no leading "./", no trailing "/", no ":line[:col]" or "#Lnn"
// suffix.
func pathToken(t string) (string, bool) {
	t = strings.TrimPrefix(t, "./")
	if h := strings.Index(t, "#L"); h > 0 && strings.IndexFunc(t[h+2:], notLineRef) < 0 {
		t = t[:h]
	}
	for {
		c := strings.LastIndexByte(t, ':')
		if c <= 0 || c == len(t)-1 || strings.IndexFunc(t[c+1:], notDigit) >= 0 {
			break
		}
		t = t[:c]
	}
	if strings.Contains(t, "/") {
		return slashPath(t)
	}
	if pathChars(t) && (knownFile(t) || knownExt(t) || dotfile(t)) {
		return t, true
	}
	return "", false
}

// slashPath reports whether t, which contains a "/", is a path rather than
// prose like "and/or", "true/false" (every part a stop word), "I/O" (no part
// longer than a letter) or a date (no letters), and returns it without a
// trailing "/".
func slashPath(t string) (string, bool) {
	if !pathChars(t) {
		return "", false
	}
	long, prose := false, true
	for _, seg := range strings.Split(t, "/") {
		lower := strings.ToLower(seg)
		if seg != "" && !isStopWord(lower) && !isSlashWord(lower) {
			prose = false
		}
		if utf8.RuneCountInString(seg) >= 2 && hasLetter(seg) {
			long = true
		}
	}
	if !long || prose {
		return "", false
	}
	if len(t) > 1 {
		t = strings.TrimRight(t, "/")
	}
	return t, true
}

// pathChars reports whether every rune of t may appear in a path mention.
func pathChars(t string) bool {
	for _, r := range t {
		if !isAlnum(r) && !strings.ContainsRune("/._-@+~*{}[]$=,", r) {
			return false
		}
	}
	return t != ""
}

// knownExt reports whether t ends in a known source, config or document
// extension after a non-empty base name.
func knownExt(t string) bool {
	d := strings.LastIndexByte(t, '.')
	if d <= 0 || d == len(t)-1 {
		return false
	}
	base := t[:d]
	if !hasAlnum(base) || (t[d+1:] == "js" && isJSFramework(strings.ToLower(base))) {
		return false
	}
	switch ext := t[d+1:]; ext {
	case "mod", "sum", "work":
		return base == "go" || strings.HasSuffix(base, "/go") // go.mod, not math.sum
	default:
		return isExtension(ext)
	}
}

// knownFile reports whether t is a well-known file name without extension.
func knownFile(t string) bool {
	switch t {
	case "README", "LICENSE", "CHANGELOG", "CONTRIBUTING", "AUTHORS", "CODEOWNERS":
		return true
	}
	return isFileName(strings.ToLower(t))
}

// dotfile reports whether t is a configuration dotfile like .gitignore,
// .npmrc or .env.
func dotfile(t string) bool {
	if len(t) < 3 || t[0] != '.' || !IsASCIILetter(t[1]) {
		return false
	}
	return strings.HasSuffix(t, "rc") || strings.HasSuffix(t, "ignore") || isDotfileName(t)
}

// identToken reports whether t is code-like and returns it normalized.
func identToken(t string, code bool) (string, bool) {
	t = normalizeIdent(t)
	if !hasLetter(t) {
		return "", false
	}
	if code {
		return t, true
	}
	if strings.HasPrefix(t, "-") {
		flag := strings.TrimPrefix(strings.TrimPrefix(t, "-"), "-")
		if flag != "" && IsASCIILetter(flag[0]) && strings.IndexFunc(flag, notFlagRune) < 0 {
			return t, true
		}
		return "", false
	}
	if strings.Contains(t, ".") {
		return t, isDottedIdent(t)
	}
	if !isIdent(t) {
		return "", false
	}
	if strings.Contains(t, "_") {
		return t, true
	}
	if isCamel(t) {
		return t, !isBrand(strings.ToLower(t))
	}
	letters, upper := 0, true
	for _, r := range t {
		if unicode.IsLetter(r) {
			letters++
			upper = upper && unicode.IsUpper(r)
		}
	}
	if upper && letters >= 5 {
		l := strings.ToLower(t)
		return t, !isStopWord(l) && !isShouting(l) && !isPrefixLabel(l)
	}
	return "", false
}

// isIdent reports whether t is one identifier: a letter, "_" or "$" followed
// by letters, digits, "_" or "$".
func isIdent(t string) bool {
	for i, r := range t {
		if !(unicode.IsLetter(r) || r == '_' || r == '$' || (i > 0 && unicode.IsDigit(r))) {
			return false
		}
	}
	return t != ""
}

// isDottedIdent reports whether t is a qualified name (Server.Start,
// os.ReadFile) and not an abbreviation (e.g) or a domain (example.com).
func isDottedIdent(t string) bool {
	segs := strings.Split(t, ".")
	if len(segs) < 2 {
		return false
	}
	short := true
	for _, s := range segs {
		if !isIdent(s) {
			return false
		}
		if utf8.RuneCountInString(s) > 1 {
			short = false
		}
	}
	if short {
		return false
	}
	return !(isDomain(segs[len(segs)-1]) && strings.ToLower(t) == t)
}

// isCamel reports whether t changes case inside a word: camelCase,
// PascalCase, HTTPServer, utf8Decode; not plural acronyms like URLs.
func isCamel(t string) bool {
	rs := []rune(t)
	hasLower := false
	for _, r := range rs {
		hasLower = hasLower || unicode.IsLower(r)
	}
	if !hasLower {
		return false
	}
	for i := 1; i < len(rs); i++ {
		prev, cur := rs[i-1], rs[i]
		if (unicode.IsLower(prev) || unicode.IsDigit(prev)) && unicode.IsUpper(cur) {
			return true
		}
		if i >= 2 && unicode.IsUpper(rs[i-2]) && unicode.IsUpper(prev) && unicode.IsLower(cur) &&
			!(cur == 's' && i == len(rs)-1) {
			return true
		}
	}
	return false
}

// isPlainWord reports whether t is a plain word: letters only, no case
// change. Its "'s" is left to plain, which knows "it's" from "user's".
func isPlainWord(t string) bool {
	for _, r := range t {
		if !unicode.IsLetter(r) {
			return false
		}
	}
	return !isCamel(t)
}

// ident records an identifier and its parts as words.
func (a *analyzer) ident(id string) {
	if _, ok := a.seenIdent[id]; !ok {
		a.seenIdent[id] = struct{}{}
		a.q.Identifiers = append(a.q.Identifiers, id)
	}
	splitIdent(id, a.word)
}

// path records a path mention and its directory and base-name parts as
// words (without the extension).
func (a *analyzer) path(p string) {
	if p == "" {
		return
	}
	if _, ok := a.seenPath[p]; !ok {
		a.seenPath[p] = struct{}{}
		a.q.Paths = append(a.q.Paths, p)
	}
	base := p
	if s := strings.LastIndexByte(p, '/'); s >= 0 {
		splitIdent(p[:s], a.word)
		base = p[s+1:]
	}
	if d := strings.LastIndexByte(base, '.'); d > 0 {
		base = base[:d]
	}
	splitIdent(base, a.word)
}

// plain records the words of a natural-language token, keeping apostrophes
// inside words so contractions ("don't", "let's") are recognized as stop
// words.
func (a *analyzer) plain(t string) {
	start := -1
	for i, r := range t {
		inWord := isAlnum(r) || ((r == '\'' || r == '’') && start >= 0 && i+utf8.RuneLen(r) < len(t) && startsAlnum(t[i+utf8.RuneLen(r):]))
		if inWord && start < 0 {
			start = i
		}
		if !inWord && start >= 0 {
			a.word(t[start:i])
			start = -1
		}
	}
	if start >= 0 {
		a.word(t[start:])
	}
}

// word records one candidate content word.
func (a *analyzer) word(w string) {
	w = strings.ToLower(strings.ReplaceAll(w, "’", "'"))
	if isStopWord(w) {
		return
	}
	if q := strings.IndexByte(w, '\''); q >= 0 {
		w = w[:q]
	}
	if utf8.RuneCountInString(w) < 2 || isStopWord(w) || strings.IndexFunc(w, notDigit) < 0 || isHexNumber(w) {
		return
	}
	if _, ok := a.seenWord[w]; ok {
		return
	}
	a.seenWord[w] = struct{}{}
	a.q.Words = append(a.q.Words, w)
}

// splitIdent calls emit for each part of an identifier or path: parts are
// separated by non-alphanumeric runes and case changes (parseConfig,
// HTTPServer, utf8Decode), but plural acronyms (URLs) stay whole.
func splitIdent(s string, emit func(string)) {
	start, prevR := -1, rune(0)
	for i, r := range s {
		if !isAlnum(r) {
			if start >= 0 {
				emit(s[start:i])
			}
			start = -1
			prevR = r
			continue
		}
		if start < 0 {
			start, prevR = i, r
			continue
		}
		boundary := (unicode.IsLower(prevR) || unicode.IsDigit(prevR)) && unicode.IsUpper(r)
		if !boundary && unicode.IsUpper(prevR) && unicode.IsUpper(r) {
			next, size := utf8.DecodeRuneInString(s[i+utf8.RuneLen(r):])
			after := i + utf8.RuneLen(r) + size
			plural := next == 's' && (after >= len(s) || !startsAlnum(s[after:]))
			boundary = size > 0 && unicode.IsLower(next) && !plural
		}
		if boundary {
			emit(s[start:i])
			start = i
		}
		prevR = r
	}
	if start >= 0 {
		emit(s[start:])
	}
}

// isHexNumber reports whether a lowercased word is a number rather than a
// word: 0x1f, or a run of at least 6 hex digits with a digit among them,
// which takes in every commit hash (IsCommitHash) and also a colour
// (ff0000) or a digest longer than a hash.
func isHexNumber(w string) bool {
	if strings.HasPrefix(w, "0x") && len(w) > 2 {
		return isLowerHex(w[2:])
	}
	return len(w) >= 6 && isLowerHex(w) && strings.ContainsAny(w, "0123456789")
}

// IsCommitHash reports whether a word may be a commit hash, whole or
// abbreviated as git writes it ("reverts commit 2f64f68c", "follow up
// 1490e6b"): 7 to 40 lower-case hex digits with a digit and a letter among
// them, so that a number (1234567) and a word (deadbeef, cafe) are not
// hashes. Upper case is not (git never writes it).
func IsCommitHash(w string) bool {
	return len(w) >= 7 && len(w) <= 40 && isLowerHex(w) &&
		strings.ContainsAny(w, "0123456789") && strings.ContainsAny(w, "abcdef")
}

// isLowerHex reports whether s is lower-case hex digits only.
func isLowerHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

func isAlnum(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

func notDigit(r rune) bool { return r < '0' || r > '9' }

func notLineRef(r rune) bool { return notDigit(r) && r != 'L' && r != '-' }

func notFlagRune(r rune) bool { return !isAlnum(r) && r != '-' && r != '_' && r != '=' && r != '.' }

// IsASCIILetter and IsASCIIDigit test one byte of UTF-8 text: a byte of a
// multi-byte rune is neither.
func IsASCIILetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

func IsASCIIDigit(c byte) bool { return c >= '0' && c <= '9' }

func hasLetter(s string) bool { return strings.IndexFunc(s, unicode.IsLetter) >= 0 }

func hasAlnum(s string) bool { return strings.IndexFunc(s, isAlnum) >= 0 }

func startsAlnum(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return s != "" && isAlnum(r)
}
