package heuristics

import "strings"

// Deixis is what a query that points at the code under the cursor asks
// for: "explain this", "who calls this", "what does it do".
type Deixis int

const (
	// NotDeictic: the query describes what it wants in its own words.
	NotDeictic Deixis = iota
	// DeicticSelf: the code under the cursor itself ("this", "fix it",
	// "this function", "here").
	DeicticSelf
	// DeicticCallers: the code that calls or uses it ("who calls this",
	// "callers", "where is this used").
	DeicticCallers
	// DeicticCallees: what it calls and the types it uses, to explain it
	// ("what does this do", "explain this code").
	DeicticCallees
)

// DeicticBoost multiplies what the callers or callees of the symbol under
// the cursor weigh (their graph rank) when the query points at it; the
// symbol itself comes first.
const DeicticBoost = 4

// DeicticMaxFiles bounds how many referencing files are read for the
// callers of a symbol (the first in the reference index's order), so that
// "who calls this" on a utility used everywhere costs no more than on a
// name used in 200 files.
const DeicticMaxFiles = 200

// MaxDeicticWords: a longer query describes its subject in its own words,
// whatever pronouns it uses.
const MaxDeicticWords = 8

// DeixisOf tells whether a query points at the code under the cursor, and
// at which part of its neighbourhood. A query naming an identifier or a
// path, or of more than MaxDeicticWords words, does not.
func DeixisOf(q Query) Deixis {
	if len(q.Identifiers) > 0 || len(q.Paths) > 0 {
		return NotDeictic
	}
	words := strings.FieldsFunc(strings.ToLower(q.Text), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r == '\'')
	})
	if len(words) == 0 || len(words) > MaxDeicticWords {
		return NotDeictic
	}
	text := " " + strings.Join(words, " ") + " "
	has := func(phrases ...string) bool {
		for _, p := range phrases {
			if strings.Contains(text, " "+p+" ") {
				return true
			}
		}
		return false
	}
	pointing := has("this", "it", "here", "these", "the function", "the method", "the class", "the code", "this code", "the type")
	switch {
	case has("callers", "caller", "who calls", "what calls", "called from", "calls to", "call sites", "call site", "usages", "usage", "who uses", "what uses", "used", "uses of", "references", "referenced"):
		return DeicticCallers
	case has("what does", "explain", "how does", "what is", "describe", "understand"):
		if pointing || len(words) <= 2 {
			return DeicticCallees
		}
	case pointing:
		return DeicticSelf
	}
	return NotDeictic
}
