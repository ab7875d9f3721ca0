package pipeline

import (
	"maps"
	"slices"
	"testing"

	"github.com/ctxls/ctxls/heuristics"
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
