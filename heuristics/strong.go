package heuristics

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// Strong, specific evidence (workspace/pipeline/fuse.go). Reciprocal-rank
// fusion counts only places: a symbol the query names outright, found
// first by one source, can fall behind symbols that several sources
// rank in the middle (issue 22: "middleware: Heartbeat middleware to
// respond to HEAD methods" did not return func Heartbeat in its first 40
// items). The strength of a name match (how much of a symbol's name, or
// its file's stem, the query spells, and how rare the words are) is
// added to the fused score on its own scale, so that it cannot be
// outvoted by a consensus of middling ranks.

// NameStrength is how specifically a query names an identifier, in [0,1],
// and how many of its parts the query holds: the share of the
// identifier's parts (weighed by their IDF) the query holds, times how
// rare the rarest part it holds is (its IDF over maxIDF, the IDF of a
// term nothing holds). terms are the identifier's parts as the tokenizer
// gives them, without the joined form; joined is its parts joined
// ("genzshcompletion"),
// for an identifier of two or more parts, or "" for one of one part: a
// query that holds it names the whole identifier. inQuery reports
// whether the query holds a term; idf gives a term's IDF.
//
// "GenZshCompletion" for "zsh completion" lacks only "gen": fairly
// strong, two parts. "Handler" for "fix the handler" is whole but common:
// weak, one part.
//
// The select path weighs names with NameStrengthOf (its words weighed
// once a request); NameStrength is the plain form its tests check that
// path against.
func NameStrength(terms []string, joined string, inQuery func(string) bool, idf func(string) float64, maxIDF float64) (strength float64, parts int) {
	if len(terms) == 0 || !(maxIDF > 0) {
		return 0, 0
	}
	var j *NamePart
	if joined != "" {
		j = &NamePart{Term: joined, InQuery: inQuery(joined)}
		if j.InQuery {
			j.IDF = idf(joined)
		}
	}
	ps := make([]NamePart, len(terms))
	for i, t := range terms {
		ps[i] = NamePart{Term: t, IDF: idf(t), InQuery: inQuery(t)}
	}
	return NameStrengthOf(ps, j, maxIDF)
}

// NamePart is one index term of an identifier, with its IDF and whether
// the query holds it.
type NamePart struct {
	Term    string
	IDF     float64
	InQuery bool
}

// NameStrengthOf is NameStrength for terms already weighed: parts, and
// joined (nil for none; its IDF is read only when the query holds it).
func NameStrengthOf(parts []NamePart, joined *NamePart, maxIDF float64) (strength float64, nparts int) {
	if len(parts) == 0 || !(maxIDF > 0) {
		return 0, 0
	}
	if joined != nil && joined.InQuery {
		return min(1, joined.IDF/maxIDF), CountedParts(len(parts), true, 0)
	}
	var total, matched, rarest float64
	held := 0
	for i, p := range parts {
		if dupPart(parts[:i], p.Term) {
			continue
		}
		total += p.IDF
		if p.InQuery {
			matched += p.IDF
			rarest = max(rarest, p.IDF)
			held++
		}
	}
	if matched == 0 || total == 0 {
		return 0, 0
	}
	return matched / total * min(1, rarest/maxIDF), CountedParts(len(parts), false, held)
}

// CountedParts is how many of a name's n parts NameStrengthOf counts as
// named: all of them when the query holds the name's joined form (whole),
// else held, the distinct parts the query holds. The select path's
// shortcut (workspace/pipeline, namer.bonus) counts with it too.
func CountedParts(n int, whole bool, held int) int {
	if whole {
		return n
	}
	return held
}

// NamedEnough reports whether a name of which the query holds parts
// (CountedParts) counts although the query does not write it as the code
// does (StrongName): two parts or more.
func NamedEnough(parts int) bool { return parts >= 2 }

// StrongName is the strength a name match counts with: a name the query
// writes as the code does (written: "Heartbeat", "fetch_orders", with its
// capitals or underscores, not merely a word that is also a name)
// counts in full when it is not common; a name of which the query holds
// two parts or more ("zsh completion" for GenZshCompletion) counts with
// its strength; a one-word name the query merely uses as a word
// ("history", "delete") counts nothing: on the golden sets such words
// picked the wrong symbol more often than the right one.
func StrongName(strength float64, parts int, written bool) float64 {
	switch {
	case written && strength > StrongFloor:
		return 1
	case NamedEnough(parts):
		return strength
	}
	return 0
}

func dupPart(list []NamePart, s string) bool {
	for _, x := range list {
		if x.Term == s {
			return true
		}
	}
	return false
}

const (
	// StrongFloor is the name strength below which a match adds nothing:
	// a common word that happens to be a whole name ("handler", "error")
	// is no more specific than any other lexical hit.
	StrongFloor = 0.5
	// StrongWeight scales what a name match at full strength adds, in
	// first ranks of the lexical source: enough to stay ahead of a
	// symbol several sources rank in the middle.
	StrongWeight = 3.0
	// StemShare is the share of its file's stem strength a symbol takes
	// ("heartbeat" names heartbeat.go, and so its symbols): the file is
	// named, not the symbol.
	StemShare = 0.5
	// ScopeFolderShare is the share of a full name's bonus the best
	// lexical match under a folder the request's scope names takes
	// ("fix(middleware): …" for middleware/decompress.go): the scope
	// narrows the request to the folder without naming the file.
	ScopeFolderShare = 0.5
)

// Content agreement. The two sources that read a symbol's own text, the
// lexical one and the embedder, ranking the same code at the top is
// specific evidence of its own: echo's "security (static middleware):
// fix browser=true listing…" had StaticConfig first in both, and
// "Panic MW: … PanicStackError" RecoverConfig, yet each came 12th or
// later, under files history and the file ranking put in the middle.
// Reciprocal ranks give first places only 1/61 each; with no active
// file, code (not documentation: the pipeline asks) the embedder ranks
// first and the lexical source in its first AgreeLexicalRanks gets
// AgreeWeight first lexical ranks more. On 572 real commits, merged, cold
// hit@5 went .874 → .881 (EVAL.md, "The session's merges together",
// 15:50; .878 → .883 measured beside spelled names, since dropped);
// taking the embedder's first three as well lost one at 60 commits.
const (
	AgreeLexicalRanks = 3
	AgreeWeight       = 1.0
)

// ContentAgrees reports whether the lexical source and the embedder
// agree on a candidate at the top: the embedder's first, and lexical's
// first AgreeLexicalRanks. It reads the ranks as fused: a tie over more
// than TieKeep files (SharedRanks) is no agreement at the top, since the
// search cannot tell its members apart (measured so; EVAL.md "## ties").
func ContentAgrees(lexical, semantic int32) bool {
	return semantic == 1 && lexical > 0 && lexical <= AgreeLexicalRanks
}

// StrongBonus is what a name strength in [0,1] adds to a fused score:
// nothing below StrongFloor, rising linearly to StrongWeight first
// lexical ranks at full strength, lexical ranks weighing lexWeight (the
// weight set's: a set fitted without the lexical source gives no bonus).
func StrongBonus(strength, lexWeight float64) float64 {
	if !(strength > StrongFloor) {
		return 0
	}
	return RRF(StrongWeight*lexWeight, 1) * min(1, (strength-StrongFloor)/(1-StrongFloor))
}

// Releases. A request that names a version ("Changelog for v5.3.1",
// "0.71.0") asks for a release, whose code change is the line that
// declares the version (`Version = "5.3.0"` becomes "5.3.1"): a few
// lines no word of the request matches, which history's changelogs and
// the files releases touch outvoted (labstack/echo's version.go, fzf's
// main.go; EVAL.md).

// Version is a version number: major, minor and patch (0 when absent).
type Version struct{ Major, Minor, Patch int }

var (
	// NamedVersionRE matches a version as release messages write it
	// (v1.2, 0.71.0, 5.3.1-rc.1), not an address (192.168.0.1).
	NamedVersionRE = regexp.MustCompile(`(?:^|[^\w.])v?(\d+)\.(\d+)(?:\.(\d+))?(?:[-+][\w.]*\w)?(?:$|[^\w.]|\.(?:$|\s))`)
	// declaredVersionRE: a string literal that is a version ("5.3.0",
	// 'v0.70', "5.0.0-alpha").
	declaredVersionRE = regexp.MustCompile("[\"'`]v?(\\d+)\\.(\\d+)(?:\\.(\\d+))?(?:[-+][\\w.]*)?[\"'`]")
)

// VersionDeclLines is the most lines a version declaration spans
// (`const (`, its comment, `Version = "5.3.0"`, `)`).
const VersionDeclLines = 5

// NamedVersions are the version numbers text names.
func NamedVersions(text string) []Version {
	return versions(NamedVersionRE.FindAllStringSubmatch(text, -1))
}

// DeclaredVersions are the version numbers src holds as string literals.
func DeclaredVersions(src string) []Version {
	return versions(declaredVersionRE.FindAllStringSubmatch(src, -1))
}

func versions(ms [][]string) []Version {
	var out []Version
	for _, m := range ms {
		var v Version
		v.Major, _ = strconv.Atoi(m[1])
		v.Minor, _ = strconv.Atoi(m[2])
		v.Patch, _ = strconv.Atoi(m[3]) // "" for none: 0
		out = append(out, v)
	}
	return out
}

// NamesRelease reports whether a past commit's subject names a release
// of the project (history's version marker; a request's first line
// naming any version is still read as a release, EVAL.md release2): a
// part of it (between colons, brackets, parentheses and dashes) names a
// version with no other word than releaseWords ("0.71.0",
// "chore(release): v1.7.8", "Changelog for v5.3.1", "Prepare version
// 2.11.0", "🔖 Release version 0.140.2", "start version 3.1.3"). A
// version that follows the name of a language, a runtime, a tool or a
// dependency is theirs, not the project's: "drop support for Python
// 3.8", "Requires Go 1.22", "Bump cryptography from 44.0.0 to 44.0.1",
// "Update msrv to 1.90.0", "tmux 3.7 or above", and so is one a change
// merely refers to ("Graceful upgrade path for 0.28.", "Fix typo in
// 0.71 changelog entry"), as is a range or a constraint ("from
// <0.17.0,>=0.15.0", "1.77.2 -> 1.90.0", "qs@^6.14.1").
func NamesRelease(line string) bool {
	parts := strings.FieldsFunc(line, func(r rune) bool {
		return strings.ContainsRune(":()[]{}—–", r)
	})
	for _, part := range parts {
		if !NamedVersionRE.MatchString(part) || strings.ContainsAny(part, "<>=~^@") {
			continue
		}
		words := strings.FieldsFunc(NamedVersionRE.ReplaceAllString(part, " "), func(r rune) bool { return !unicode.IsLetter(r) })
		if !slices.ContainsFunc(words, func(w string) bool { return !releaseWords[strings.ToLower(w)] }) {
			return true
		}
	}
	return false
}

// releaseWords are the words a subject naming the project's release
// holds beside the version (NamesRelease); any other word names what
// the version belongs to or what the change does.
var releaseWords = map[string]bool{
	"release": true, "released": true, "releases": true, "releasing": true, "pre": true,
	"changelog": true, "changes": true, "history": true, "news": true, "notes": true, "entry": true, "md": true, "date": true,
	"version": true, "bump": true, "bumped": true, "prepare": true, "prepared": true, "start": true,
	"tag": true, "tagged": true, "publish": true, "published": true, "cut": true, "new": true, "final": true,
	"add": true, "added": true, "update": true, "updated": true, "chore": true,
	"for": true, "to": true, "the": true, "of": true, "a": true,
	"rc": true, "beta": true, "alpha": true, "v": true,
}

// Precedes reports whether v can be the version a release of next
// replaces: not after it, in the same major version and at most one
// minor version before (5.3.0 for 5.3.1, 0.70 for 0.71.0, 0.140.13 for
// 0.141.0), or in the major version before a new one (4.15.0 for
// 5.0.0). A literal further off ("0.0.1" in an example, a dependency's
// "v1.3.0") is some other version.
func (v Version) Precedes(next Version) bool {
	switch {
	case v.Major == next.Major:
		return v.Minor == next.Minor && v.Patch <= next.Patch || v.Minor+1 == next.Minor
	case v.Major+1 == next.Major:
		return next.Minor == 0
	}
	return false
}
