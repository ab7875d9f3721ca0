package heuristics

import (
	"bytes"
	"slices"
	"strings"
	"unicode"
)

// Literals of code in a request: "Replace interface{} with any", "Remove
// unused type: ignore", "replace deprecated trimRight() with trimEnd()".
// The tokenizer splits punctuation away, so no index holds `interface{}`;
// and a literal the request removes or replaces is, by what the request
// says, in the files the change touches, while one it introduces ("Use
// slices.Contains") is not there yet (EVAL.md, "## literal").

// MaxLiterals is the most removed literals a request keeps: each is a
// substring search over the scanned files' texts.
const MaxLiterals = 8

// MaxLiteralBytes is the longest literal: a longer word is a pasted blob,
// not a literal anyone writes.
const MaxLiteralBytes = 256

// removalWords (and changeVerbs) begin a stretch of a clause whose
// literals go away; introductionWords (and replaceTargets, after a verb of
// replacing or changing) begin one whose literals come in. The last of
// either before a literal, in its clause, decides.
var (
	removalWords = map[string]bool{
		"replace": true, "replaces": true, "replaced": true, "replacing": true,
		"remove": true, "removes": true, "removed": true, "removing": true,
		"drop": true, "drops": true, "dropped": true, "dropping": true,
		"delete": true, "deletes": true, "deleted": true, "deleting": true,
		"deprecate": true, "deprecates": true, "deprecated": true, "deprecating": true,
		"unused": true, "obsolete": true, "avoid": true, "avoids": true,
		"instead": true, // "use Y instead of X": of is no marker
		"rid":     true, // "get rid of X"
	}
	introductionWords = map[string]bool{
		"via": true,
		"use": true, "uses": true, "used": true, "using": true,
		"add": true, "adds": true, "added": true, "adding": true,
		"introduce": true, "introduces": true, "introduced": true,
		"favor": true, "favour": true, "new": true,
	}
)

// replaceTargets are the words that name what a replacement or a change
// brings ("Replace X with Y", "change X to Y", "Rename A -> B"): they end
// a removal only after a verb of replacing or changing, not after remove,
// drop or delete ("Remove deprecated calls to os.Exit()"). What a change,
// a conversion, a move or a rename starts from is in the files it touches
// ("Change interface{} to any", "Move tunnel_start_tls() to
// HTTPConnection", "Convert DataEvent.data from bytearray to bytes",
// "Switch from std::sync::mpsc to crossbeam-channel"); what it goes to is
// not ("Change the default to os.Stdout", "Switch to typing.Optional").
var (
	replaceTargets = map[string]bool{"with": true, "by": true, "to": true, "for": true, "into": true,
		"->": true, "=>": true, "→": true, "arrow_right": true} // "Rename A -> B", ":arrow_right:" (its colons trimmed)
	replaceVerbs = map[string]bool{
		"replace": true, "replaces": true, "replaced": true, "replacing": true,
	}
	changeVerbs = map[string]bool{
		"change": true, "changes": true, "changed": true, "changing": true,
		"convert": true, "converts": true, "converted": true, "converting": true,
		"migrate": true, "migrates": true, "migrated": true, "migrating": true,
		"switch": true, "switches": true, "switched": true, "switching": true,
		"move": true, "moves": true, "moved": true, "moving": true,
		"rename": true, "renames": true, "renamed": true, "renaming": true,
	}
)

// RemovedLiterals are the literals of code the request text says are
// removed or replaced: words holding punctuation the tokenizer drops
// (`interface{}`, `trimRight()`, `sort.Sort(`, `a.b`), backticked spans
// with such punctuation, and a `word: word` pair ending its clause or
// before a word naming pragmas (pragmaEnd: "type: ignore comments"), each
// whose clause puts a removal word after the last introduction word
// before it. Paths and file names are the mention
// source's, and a placeholder "..." ends a literal. Each once, at most
// MaxLiterals.
func RemovedLiterals(text string) []string {
	var out []string
	for _, clause := range clauses(text) {
		removing, replacing := false, false
		fields := literalFields(clause)
		for i, f := range fields {
			word := ""
			if !f.quoted { // "Remove the `with` keyword": code, not a marker
				word = strings.ToLower(strings.Trim(f.text, "`\"'()[]{},.;:!?"+proseQuotes))
			}
			if replaceVerbs[word] || changeVerbs[word] {
				replacing = true
			}
			switch {
			case removalWords[word] || changeVerbs[word]:
				removing = true
				continue
			case replaceTargets[word]:
				if replacing {
					removing = false
				}
				continue
			case introductionWords[word]:
				removing = false
				continue
			}
			if !removing {
				continue
			}
			lit := f.literal()
			if lit == "" && i > 0 && i+1 < len(fields) && pragmaEnd(fields[i+2:]) && strings.HasSuffix(f.text, ":") && !f.quoted {
				// "type: ignore": a pragma's name and value, the last two
				// words of the clause or before a word naming pragmas
				// ("unused imports: this breaks lint" is prose; backticked,
				// `type: ignore` is a literal).
				if name, val := strings.TrimSuffix(f.text, ":"), fields[i+1].text; isIdent(name) && isIdent(strings.TrimRight(val, ".,;")) {
					lit = name + ": " + strings.TrimRight(val, ".,;")
				}
			}
			if lit != "" && !slices.Contains(out, lit) {
				out = append(out, lit)
				if len(out) == MaxLiterals {
					return out
				}
			}
		}
	}
	return out
}

// pragmaEnd reports whether the words after a `name: value` pair leave
// it a pragma: none but a pull request's number ("(#3038)"), or a word
// naming pragmas ("Remove unneeded type: ignore comments").
func pragmaEnd(rest []litField) bool {
	if len(rest) > 0 && !rest[0].quoted && pragmaNouns[strings.ToLower(strings.TrimRight(rest[0].text, ".,;:!?"))] {
		return true
	}
	for _, f := range rest {
		if n := strings.Trim(f.text, "()#.,;"); f.quoted || n == "" || strings.Trim(n, "0123456789") != "" || !strings.Contains(f.text, "#") {
			return false
		}
	}
	return true
}

var pragmaNouns = map[string]bool{
	"comment": true, "comments": true, "pragma": true, "pragmas": true,
	"directive": true, "directives": true, "annotation": true, "annotations": true,
	"marker": true, "markers": true,
}

// clauses cuts text at line ends, semicolons and a period a space follows
// (a sentence's end; "os.Exit()." keeps its word whole).
func clauses(text string) []string {
	return strings.FieldsFunc(strings.ReplaceAll(text, ". ", "\n"), func(r rune) bool { return r == '\n' || r == ';' })
}

// litField is one word of a clause, between spaces (any Unicode space), or one backticked
// span (which may hold spaces).
type litField struct {
	text   string
	quoted bool
}

func literalFields(clause string) []litField {
	var out []litField
	for len(clause) > 0 {
		clause = strings.TrimLeftFunc(clause, fieldEnd)
		if clause == "" {
			break
		}
		if clause[0] == '`' {
			if end := strings.IndexByte(clause[1:], '`'); end >= 0 {
				out = append(out, litField{clause[1 : 1+end], true})
				clause = clause[2+end:]
				continue
			}
		}
		end := strings.IndexFunc(clause, fieldEnd)
		if end < 0 {
			end = len(clause)
		}
		out = append(out, litField{clause[:end], false})
		clause = clause[end:]
	}
	return out
}

// fieldEnd ends a field: a space of any kind, or a dash no code writes
// ("foo()—it leaks").
func fieldEnd(r rune) bool { return unicode.IsSpace(r) || r == '—' || r == '–' }

// proseQuotes are the quotes and dashes prose puts around a word
// (“interface{}”, ‘foo()’, «x», foo()—bar) that are no code's.
const proseQuotes = "“”‘’«»„—–"

// literal is the field as a literal of code, or "": it holds two letters
// and punctuation of code the tokenizer drops (not only a hyphen or an
// apostrophe), it is not a path or a file's
// name, and what a "..." placeholder follows is cut.
func (f litField) literal() string {
	s := f.text
	for _, dots := range []string{"...", "…"} {
		if i := strings.Index(s, dots); i >= 0 {
			s = s[:i]
		}
	}
	if len(s) > MaxLiteralBytes {
		return ""
	}
	if !f.quoted {
		s = strings.TrimLeft(s, "\"'(["+proseQuotes)
		// Trailing prose punctuation, and each ")" that closes no "(".
		extra := strings.Count(s, ")") - strings.Count(s, "(")
		for s != "" {
			t := strings.TrimRight(s, "\"',;:!?."+proseQuotes)
			if extra > 0 && t != "" && t[len(t)-1] == ')' {
				t, extra = t[:len(t)-1], extra-1
			}
			if t == s {
				break
			}
			s = t
		}
	}
	if len(s) < 4 || strings.ContainsAny(s, "/\\") {
		return ""
	}
	letters, punct := 0, false
	for _, r := range s {
		switch {
		case unicode.IsLetter(r):
			letters++
		case r == '_' || r == '-' || r == '\'' || unicode.IsDigit(r):
			// a hyphen or an apostrophe is prose's ("per-entry", "proxy's")
		default:
			punct = true
		}
	}
	if letters < 2 || !punct || fileName(s) {
		return ""
	}
	return s
}

// fileName reports whether s reads as a file's name (foo.go, setup.py)
// or a site's (google.com): a dotted word whose last part is a known
// extension (isExtension) or a lowercase word's web domain, with no other
// punctuation; self.data, req.body, x.get and req.app are code.
func fileName(s string) bool {
	i := strings.LastIndexByte(s, '.')
	if i <= 0 || !isExtension(s[i+1:]) && !(webDomain(s[i+1:]) && strings.ToLower(s) == s) {
		return false
	}
	for _, r := range s {
		if !(r == '.' || r == '_' || r == '-' || unicode.IsLetter(r) || unicode.IsDigit(r)) {
			return false
		}
	}
	return true
}

// webDomain reports whether w is a web domain no code's member is named
// (isDomain's "app", "io" and "dev" are).
func webDomain(w string) bool {
	return w == "com" || w == "org" || w == "net" || w == "edu" || w == "gov"
}

// FlagLiterals are the literals that declare the long command-line flags
// the request's first line names ("clarify --exec positional argument
// handling"): the flag quoted as a parser matches it (`"--exec"`) and its
// name quoted as a declaration gives it (`Arg::new("exec")`, `long =
// "exec"`, `Name: "exec"`, a hyphen also as an underscore, clap's id),
// and the field that may declare it where a struct's fields are the flags
// (clap's derive: `pub full_path: bool` for --full-path; a Python class's
// annotated field or a JavaScript option's key alike), written
// ` full_path: `: a space before it, and one after the colon that a path
// (`exec::run`) has not; it counts only where it starts a line's code
// (FlagField, IndexLiteral). A flag named only in a message's body is most often named in passing,
// and the flags every parser provides (builtinFlags) are declared by the
// parser's help machinery, not where the change is. Each once, at most
// MaxLiterals.
func FlagLiterals(text string) []string {
	if i := strings.IndexByte(text, '\n'); i >= 0 {
		text = text[:i]
	}
	var out []string
	add := func(lit string) {
		if len(out) < MaxLiterals && !slices.Contains(out, lit) {
			out = append(out, lit)
		}
	}
	for i := 0; i+2 < len(text); i++ {
		if text[i] != '-' || text[i+1] != '-' || i > 0 && (isFlagByte(text[i-1]) || text[i-1] == '-') {
			continue
		}
		j := i + 2
		for j < len(text) && isFlagByte(text[j]) {
			j++
		}
		name := strings.TrimRight(text[i+2:j], "-")
		if len(name) < 2 || !unicode.IsLetter(rune(name[0])) || builtinFlags[strings.ToLower(name)] {
			continue
		}
		add(`"--` + name + `"`)
		add(`"` + name + `"`)
		field := strings.ReplaceAll(name, "-", "_")
		if field != name {
			add(`"` + field + `"`)
		}
		add(" " + field + ": ")
		i = j
	}
	return out
}

// FlagField reports whether lit is the field form FlagLiterals gives a
// flag (" full_path: ").
func FlagField(lit string) bool {
	return len(lit) > 3 && lit[0] == ' ' && strings.HasSuffix(lit, ": ") && isIdent(lit[1:len(lit)-2])
}

// IndexLiteral is where lit is first written in text from the offset from
// on, or -1. A flag's field form (field: FlagField) counts only where it
// declares a field or an option: first in its line's code, after
// indentation and visibility words at most (`pub full_path: bool,` in a
// Rust struct, `full_path: bool = False` in a Python class, an object's
// key `full_path: true,`, `private full_path: boolean;`), not a local's
// type (`let full_path: bool`), a parameter's on the signature's line
// (`fn f(full_path: bool)`, `def f(self, full_path: bool)`), a label or
// a case, or an inline object's key. A parameter on a line of its own in
// a signature cut over lines reads as a field still.
func IndexLiteral(text []byte, from int, lit []byte, field bool) int {
	for at := from; at <= len(text); {
		i := bytes.Index(text[at:], lit)
		if i < 0 {
			return -1
		}
		at += i
		if !field || startsLineCode(text, at) {
			return at
		}
		at++
	}
	return -1
}

// startsLineCode reports whether what precedes text[at] on its line is
// indentation and visibility words at most.
func startsLineCode(text []byte, at int) bool {
	line := text[bytes.LastIndexByte(text[:at], '\n')+1 : at]
	for len(line) > 0 {
		line = bytes.TrimLeft(line, " \t")
		end := bytes.IndexAny(line, " \t")
		if end < 0 {
			end = len(line)
		}
		if end > 0 && !visibilityWords[string(line[:end])] {
			return false
		}
		line = line[end:]
	}
	return true
}

// visibilityWords are the words a field's declaration may start with:
// Rust's and TypeScript's visibility and modifiers.
var visibilityWords = map[string]bool{
	"pub": true, "pub(crate)": true, "pub(super)": true,
	"public": true, "private": true, "protected": true, "readonly": true,
	"static": true, "declare": true, "override": true,
}

func isFlagByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_'
}

// builtinFlags are the flags command-line parsers declare themselves
// (clap, click, argparse, cobra, urfave/cli): a request about --help is
// about how help is handled, whose code holds no declaration of it.
var builtinFlags = map[string]bool{"help": true, "version": true}
