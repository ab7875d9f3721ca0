package heuristics

import (
	"math"
	"slices"
	"strings"
	"testing"
)

// idfOf is the IDF of terms held by the given numbers of n symbols.
func idfOf(n int, df map[string]int) func(string) float64 {
	return func(t string) float64 { return bm25IDF(n, df[t]) }
}

func bm25IDF(n, df int) float64 {
	return math.Log(1 + (float64(n)-float64(df)+0.5)/(float64(df)+0.5))
}

func inQuery(q string) func(string) bool {
	set := map[string]bool{}
	for _, t := range strings.Fields(q) {
		set[t] = true
	}
	return func(t string) bool { return set[t] }
}

func TestNameStrength(t *testing.T) {
	const n = 10000
	maxIDF := bm25IDF(n, 0)
	idf := idfOf(n, map[string]int{"heartbeat": 3, "zsh": 40, "complet": 300, "gen": 60, "handler": 900, "middlewar": 1500})
	q := inQuery("middlewar heartbeat respond head method")
	whole, parts := NameStrength([]string{"heartbeat"}, "", q, idf, maxIDF)
	if whole < 0.75 || parts != 1 {
		t.Errorf("a whole, rare name: strength %.2f of %d parts, want at least .75 of 1", whole, parts)
	}
	if s, _ := NameStrength([]string{"handler"}, "", inQuery("fix handler"), idf, maxIDF); s > StrongFloor {
		t.Errorf("a whole but common name: strength %.2f, want at most the floor", s)
	}
	partial, parts := NameStrength([]string{"gen", "zsh", "complet"}, "genzshcompletion", inQuery("zsh complet"), idf, maxIDF)
	if !(partial > 0 && partial < whole) || parts != 2 {
		t.Errorf("GenZshCompletion for \"zsh completion\": strength %.2f of %d parts, want between 0 and %.2f, of 2", partial, parts, whole)
	}
	if s, parts := NameStrength([]string{"gen", "zsh", "complet"}, "genzshcompletion", inQuery("genzshcompletion"), idf, maxIDF); s < 0.99 || parts != 3 {
		t.Errorf("the joined name itself: strength %.2f of %d parts, want 1 of 3", s, parts)
	}
	if s, parts := NameStrength([]string{"heartbeat"}, "", inQuery("profil"), idf, maxIDF); s != 0 || parts != 0 {
		t.Errorf("a name the query does not hold: strength %.2f of %d parts, want 0", s, parts)
	}
	if s, _ := NameStrength(nil, "", q, idf, maxIDF); s != 0 {
		t.Errorf("no name: strength %.2f", s)
	}
	// A stem of two names of one word each ("rollup.config"): its last
	// term is a part like the other, weighing in the share; the joined
	// form is an argument of its own.
	idf = idfOf(n, map[string]int{"rollup": 2, "config": 2000})
	want := idf("rollup") / (idf("rollup") + idf("config")) * min(1, idf("rollup")/maxIDF)
	if s, parts := NameStrength([]string{"rollup", "config"}, "rollupconfig", inQuery("rollup"), idf, maxIDF); parts != 1 || math.Abs(s-want) > 1e-9 {
		t.Errorf("rollup.config for \"rollup\": strength %.3f of %d parts, want %.3f of 1", s, parts, want)
	}
}

// A one-word name counts only as the query writes it; a name of several
// parts counts with its strength however it is written.
func TestStrongName(t *testing.T) {
	cases := []struct {
		strength float64
		parts    int
		written  bool
		want     float64
	}{
		{0.8, 1, true, 1},    // "Heartbeat"
		{0.8, 1, false, 0},   // "history" used as a word
		{0.3, 1, true, 0},    // "Context": written, but common
		{0.6, 2, false, 0.6}, // "zsh completion"
		{0.6, 1, false, 0},
	}
	for _, c := range cases {
		if got := StrongName(c.strength, c.parts, c.written); got != c.want {
			t.Errorf("StrongName(%v, %d, %v) = %v, want %v", c.strength, c.parts, c.written, got, c.want)
		}
	}
}

// A symbol the query names outright, found first by one source, stays
// ahead of one that several sources rank in the middle, which reciprocal
// ranks alone would put first (issue 22, Heartbeat).
func TestStrongMatchBeatsMiddlingConsensus(t *testing.T) {
	var single, consensus [NumSources]int32
	single[SrcLexical], single[SrcFile], single[SrcSemantic] = 1, 7, 9
	consensus[SrcLexical], consensus[SrcFile], consensus[SrcSemantic], consensus[SrcHistory] = 4, 1, 2, 1
	if FuseRanks(&single, 0) >= FuseRanks(&consensus, 0) {
		t.Fatal("the ranks alone already put the single match first: the case no longer tests anything")
	}
	const n = 5000
	maxIDF := bm25IDF(n, 0)
	idf := idfOf(n, map[string]int{"heartbeat": 2, "get": 400, "head": 60})
	q := inQuery("middlewar heartbeat respond head method")
	hs, hp := NameStrength([]string{"heartbeat"}, "", q, idf, maxIDF)
	gs, gp := NameStrength([]string{"get", "head"}, "gethead", q, idf, maxIDF)
	strong := FuseRanks(&single, 0) + StrongBonus(StrongName(hs, hp, true), Weights[SrcLexical])
	middling := FuseRanks(&consensus, 0) + StrongBonus(StrongName(gs, gp, false), Weights[SrcLexical])
	if strong <= middling {
		t.Errorf("Heartbeat fused %.4f, GetHead %.4f: the strong single match is outvoted", strong, middling)
	}
}

func TestStrongBonus(t *testing.T) {
	if b := StrongBonus(StrongFloor, Weights[SrcLexical]); b != 0 {
		t.Errorf("a strength at the floor adds %v", b)
	}
	if StrongBonus(0.75, Weights[SrcLexical]) >= StrongBonus(1, Weights[SrcLexical]) || StrongBonus(2, Weights[SrcLexical]) != StrongBonus(1, Weights[SrcLexical]) {
		t.Error("the bonus does not rise with strength up to 1")
	}
	if got, want := StrongBonus(1, Weights[SrcLexical]), RRF(StrongWeight*Weights[SrcLexical], 1); got != want {
		t.Errorf("full strength adds %v, want %v", got, want)
	}
	if b := StrongBonus(1, 0); b != 0 {
		t.Errorf("a weight set without the lexical source adds %v for a name, want 0", b)
	}
}

// A release names its version; the version a declaration holds is the
// one the release replaces when it is the same or at most a minor
// version before, or the last of the major version before a new one.
func TestReleaseVersions(t *testing.T) {
	for _, c := range []struct {
		text string
		want []Version
	}{
		{"Changelog for v5.3.1", []Version{{5, 3, 1}}},
		{"0.71.0", []Version{{0, 71, 0}}},
		{"chore(release): v1.7.0-beta.2", []Version{{1, 7, 0}}},
		{"listen on 192.168.0.1", nil},
		{"fix the handler", nil},
	} {
		if got := NamedVersions(c.text); !slices.Equal(got, c.want) {
			t.Errorf("NamedVersions(%q) = %v, want %v", c.text, got, c.want)
		}
	}
	if got := DeclaredVersions(`Version = "5.0.0-alpha"; var version = 'v0.70'; n := 3.14`); !slices.Equal(got, []Version{{5, 0, 0}, {0, 70, 0}}) {
		t.Errorf("DeclaredVersions = %v", got)
	}
	for _, c := range []struct {
		decl, next Version
		want       bool
	}{
		{Version{5, 3, 0}, Version{5, 3, 1}, true},
		{Version{0, 70, 0}, Version{0, 71, 0}, true},
		{Version{0, 140, 13}, Version{0, 141, 0}, true},
		{Version{4, 15, 0}, Version{5, 0, 0}, true},
		{Version{5, 0, 0}, Version{5, 0, 0}, true},
		{Version{0, 0, 1}, Version{0, 140, 2}, false}, // an example's literal
		{Version{1, 3, 0}, Version{3, 0, 0}, false},
		{Version{5, 4, 0}, Version{5, 3, 1}, false}, // after the release
		{Version{4, 15, 0}, Version{5, 1, 0}, false},
	} {
		if got := c.decl.Precedes(c.next); got != c.want {
			t.Errorf("%v.Precedes(%v) = %v, want %v", c.decl, c.next, got, c.want)
		}
	}
}

// TestNamesRelease: a first line names the project's release when its
// version stands with release words only; a language's, a runtime's, a
// tool's or a dependency's version, or one a change refers to, is no
// release (name matching stays on for it).
func TestNamesRelease(t *testing.T) {
	for line, want := range map[string]bool{
		"0.71.0":                                                  true,
		"v5.0.0-beta.3":                                           true,
		"chore(release): v1.7.8":                                  true,
		"[Release] v1.7.0 (#6408)":                                true,
		"Release: 5.2.0 (#6920)":                                  true,
		"release: 10.3":                                           true,
		"🔖 Release version 0.140.2":                               true,
		"Version 0.28.0. (#3419)":                                 true,
		"Changelog for v5.0.0 release":                            true,
		"Add changelog for v5.0.4 release":                        true,
		"v4.15.0 changelog":                                       true,
		"Prepare 10.4.1 release":                                  true,
		"Prepare version 2.11.0":                                  true,
		"chore: Bump to 10.4.2":                                   true,
		"chore: v1.2.0 pre-release":                               true,
		"start version 3.1.3":                                     true,
		"Update CHANGELOG (0.72.0)":                               true,
		"Update CHANGELOG for 0.27.1 release date.":               true,
		"Graceful upgrade path for 0.28. (#3394)":                 false,
		"drop support for Python 3.8":                             false,
		"Add support for Python 3.13 (#3460)":                     false,
		"Requires Go 1.22":                                        false,
		"CI: Use Go 1.22":                                         false,
		"build: Node.js 23.0 (#6075)":                             false,
		"build(msrv): Update msrv to 1.90.0":                      false,
		"Use floating pane instead of popup on tmux 3.7 or above": false,
		"fish: Key bindings now requires fish v3.4.0+":            false,
		"Bump cryptography from 44.0.0 to 44.0.1 (#3499)":         false,
		"chore(deps): bump json5 from 1.0.1 to 1.0.2 (#5438)":     false,
		"Update dependency gradle to v8.10.2":                     false,
		"Update kotlin to v1.9.21 (#3999)":                        false,
		"deps: qs@^6.14.1":                                        false,
		"Increase required flit_core version to 3.11":             false,
		"Fix CI: Pin nushell version to 0.114 (#4898)":            false,
		"Fix typo in 0.71 changelog entry (#4721)":                false,
		"Merge tag '4.20.0' into 5.0":                             false,
		"parse 192.168.0.1 addresses":                             false,
		"Update httpcore requirement from <0.17.0,>=0.15.0 to >=0.15.0,<0.18.0 (#2642)":                     false,
		"docs: update required Rust version in README (1.77.2 -> 1.90.0, matching Cargo.toml rust-version)": false,
		"fix the v5 router": false,
	} {
		if got := NamesRelease(line); got != want {
			t.Errorf("NamesRelease(%q) = %v, want %v", line, got, want)
		}
	}
}
