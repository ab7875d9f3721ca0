package pipeline

import (
	"maps"
	"math"
	"slices"
	"testing"

	"github.com/ctxls/ctxls/heuristics"
	"github.com/ctxls/ctxls/workspace/snapshot"
)

// The names a query writes as code does: capitals or underscores, as
// written; plain words are not names however many symbols they match.
func TestWrittenNames(t *testing.T) {
	got := slices.Sorted(maps.Keys(writtenNames("middleware: Heartbeat middleware to respond to HEAD methods; see fetch_orders and x.parseConfig()")))
	want := []string{"HEAD", "Heartbeat", "fetch_orders", "parseConfig"}
	if !slices.Equal(got, want) {
		t.Errorf("writtenNames = %q, want %q", got, want)
	}
	if n := writtenNames("the uptime history is shifted by one day"); len(n) != 0 {
		t.Errorf("plain words taken for names: %q", slices.Collect(maps.Keys(n)))
	}
}

// Which names are one piece of code's parts or variants: a stem joined
// to more by "_" or "-", at either end, of at least three letters.
func TestSiblingNames(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want bool
	}{
		{"static.go", "static_windows.go", true},
		{"static_other.go", "static.go", true},
		{"logger.go", "request_logger.go", true},
		{"command.go", "command_run.go", true},
		{"flag_bool.go", "flag_bool_with_inverse.go", true},
		{"date-fns.ts", "date.ts", true},
		{"statistics.go", "static.go", false},
		{"commander.go", "command.go", false},
		{"db.go", "db_pool.go", false}, // too short a stem to name a family
		{"utils.py", "utils.py", false},
		{"Migrator.js", "migrator-configuration-merger.js", false},
	} {
		a, b := siblingStem(c.a), siblingStem(c.b)
		if got := extends(a, b) || extends(b, a); got != c.want {
			t.Errorf("%s and %s siblings: %v, want %v", c.a, c.b, got, c.want)
		}
	}
}

// TestFileEvidenceDropsTheLead: an item made from a symbol (its file's
// head, a window of lines) keeps the file's evidence only; the symbol's
// lexical lead is its own and must not show on the copy.
func TestFileEvidenceDropsTheLead(t *testing.T) {
	c := cand{lead: 0.004}
	c.ranks[heuristics.SrcLexical], c.scores[heuristics.SrcLexical] = 1, 6.5
	c.ranks[heuristics.SrcFile], c.scores[heuristics.SrcFile] = 2, 0.05
	fileEvidence(&c)
	if c.lead != 0 || c.ranks[heuristics.SrcLexical] != 0 {
		t.Errorf("after fileEvidence: lead %v, lexical rank %d; want both 0", c.lead, c.ranks[heuristics.SrcLexical])
	}
	if c.ranks[heuristics.SrcFile] != 2 {
		t.Errorf("after fileEvidence the file's rank is %d, want 2 (kept)", c.ranks[heuristics.SrcFile])
	}
}

// A tie over more than TieKeep files shares its lead as it shares its
// rank: four generated handlers tied at the top of the lexical list, far
// ahead of the fifth, each take a quarter of a lead, not a whole one
// (a tie of five or more has no lead, the fifth being its own); a tie
// over three files keeps it whole.
func TestSharedTieSharesItsLead(t *testing.T) {
	s := &scope{p: &plan{}, fv: &snapshot.Folder{Weights: heuristics.DefaultWeightSet()}}
	shared := heuristics.Tie{First: 1, Files: 4}
	syms := []symRank{
		{slot: 1, rank: int32(shared.Rank()), score: 10, tie: shared},
		{slot: 2, rank: int32(shared.Rank()), score: 10, tie: shared},
		{slot: 3, rank: int32(shared.Rank()), score: 10, tie: shared},
		{slot: 4, rank: int32(shared.Rank()), score: 10, tie: shared},
		{slot: 5, rank: 5, score: 2},
	}
	cands := map[uint32]*cand{}
	for _, h := range syms {
		cands[h.slot] = &cand{slot: h.slot}
	}
	s.addSyms(cands, heuristics.SrcLexical, syms)
	whole := heuristics.LeadBonus(s.fv.Weights.Source[heuristics.SrcLexical], 10, 10, 2)
	for slot := uint32(1); slot <= 4; slot++ {
		if got, want := cands[slot].lead, whole/4; math.Abs(got-want) > 1e-12 {
			t.Errorf("a member of a tie over four files takes a lead of %v, want a quarter of %v", got, whole)
		}
	}
	kept := []symRank{{slot: 1, rank: 1, score: 10}, {slot: 2, rank: 1, score: 10}, {slot: 3, rank: 1, score: 10}, {slot: 4, rank: 4, score: 3}, {slot: 5, rank: 5, score: 2}}
	for _, h := range kept {
		cands[h.slot] = &cand{slot: h.slot}
	}
	s.addSyms(cands, heuristics.SrcLexical, kept)
	if got := cands[1].lead; math.Abs(got-whole) > 1e-12 {
		t.Errorf("a member of a tie over three files takes a lead of %v, want %v", got, whole)
	}
}
