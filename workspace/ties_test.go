package workspace

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/heuristics"
)

// generatedBeside is a folder of n generated handlers, each described in
// the same words, beside the file the user is in: a lexical search cannot
// tell the handlers apart, so all of them tie at its first rank.
func generatedBeside(n int) string {
	var b strings.Builder
	b.WriteString("-- go.mod --\nmodule example.com/ws\n\ngo 1.22\n")
	b.WriteString("-- target.go --\npackage ws\n\n// Bag keeps values for the request handlers.\ntype Bag struct {\n\tvals map[string]interface{}\n}\n\n// Get returns v.\nfunc (b *Bag) Get(k string) interface{} { return b.vals[k] }\n")
	for i := range n {
		fmt.Fprintf(&b, "-- handler%03d.go --\npackage ws\n\n// HandleRequestInterface%d handles the request interface of handlers.\nfunc HandleRequestInterface%d(err error) int {\n\treturn 0\n}\n", i, i, i)
	}
	return b.String()
}

// Generated files that a query's words match alike share one first place
// of the lexical source instead of each taking it whole, so that the symbol
// under the cursor is not buried beneath them.
func TestSelectCursorAboveManyTiedGeneratedFiles(t *testing.T) {
	ws, dir := selOpen(t, generatedBeside(60), Options{})
	res := selDo(t, ws, &SelectRequest{Query: "handle request errors", Active: filepath.Join(dir, "target.go"), Cursor: &Cursor{Line: 4}, Limit: 20, IncludeItems: CodeOnly()})
	if !slices.Contains(selIDs(res)[:min(3, len(res.Items))], "sym:target.go::Bag") {
		t.Errorf("the symbol under the cursor, Bag, is not among the first 3 items: %q", selIDs(res))
	}
	// The handlers' signals show the rank the lexical search gave them (a
	// place among its 61 symbols), not the rank whose credit they share,
	// and how many files share it: those of equal score, one rank.
	byScore := map[float64]Signal{}
	for _, it := range res.Items {
		s, ok := it.Signals["lexical"]
		if !ok || !strings.HasPrefix(it.Symbol, "HandleRequestInterface") {
			continue
		}
		if s.Rank < 1 || s.Rank > 61 || s.TieFiles <= heuristics.TieKeep {
			t.Errorf("%s shows lexical #%d tied across %d files, want a place of the search's 61 symbols in a tie of more than %d", it.Symbol, s.Rank, s.TieFiles, heuristics.TieKeep)
		}
		if prev, seen := byScore[s.Score]; seen && prev != s {
			t.Errorf("%s shows %+v, another of its score %+v", it.Symbol, s, prev)
		}
		byScore[s.Score] = s
	}
	if len(byScore) == 0 {
		t.Errorf("no handler came back with a lexical signal to check: %q", selIDs(res))
	}
}

// Beside 320 generated handlers the file ranking ties too: the embedder's
// small differences order the handlers' files, but nothing else tells
// them apart, so they share the credit of their best rank instead of the
// first few each taking a first place's (Bag was 23rd).
func TestSelectCursorAboveHundredsOfTiedGeneratedFiles(t *testing.T) {
	ws, dir := selOpen(t, generatedBeside(320), Options{})
	res := selDo(t, ws, &SelectRequest{Query: "handle request errors", Active: filepath.Join(dir, "target.go"), Cursor: &Cursor{Line: 4}, Limit: 40, IncludeItems: CodeOnly()})
	if ids := selIDs(res); !slices.Contains(ids[:min(3, len(ids))], "sym:target.go::Bag") {
		t.Errorf("the symbol under the cursor, Bag, is not among the first 3 items beside 320 handlers: %q", ids)
	}
	// The handlers' file signals say the tie they share.
	shared := 0
	for _, it := range res.Items {
		if s, ok := it.Signals["file"]; ok && strings.HasPrefix(it.Symbol, "HandleRequestInterface") && s.TieFiles > heuristics.TieKeep {
			shared++
		}
	}
	if shared == 0 {
		t.Errorf("no handler's file signal shows a shared tie: %q", selIDs(res))
	}
}
