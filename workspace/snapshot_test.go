package workspace

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"testing"
)

// ledgerText is version v of an open document: every function returns v,
// one function's name carries v, and a version-dependent number of
// comment lines moves every symbol, so that a slice cut from one version's
// text with another version's offsets reads differently.
func ledgerText(v int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "package ledger\n\n// Ledger version %d.\n", v)
	for i := 0; i < v%7; i++ {
		fmt.Fprintf(&b, "// padding line %d of version %d keeps offsets moving\n", i, v)
	}
	fmt.Fprintf(&b, "\n// LedgerAlpha balances the ledger.\nfunc LedgerAlpha() int { return %d }\n", v)
	fmt.Fprintf(&b, "\n// LedgerBeta totals the ledger.\nfunc LedgerBeta() int {\n\ttotal := %d\n\treturn total\n}\n", v)
	fmt.Fprintf(&b, "\n// LedgerStamp%d stamps the ledger.\nfunc LedgerStamp%d() int { return %d }\n", v, v, v)
	return b.String()
}

var ledgerNumber = regexp.MustCompile(`(?:return|total :=) (\d+)`)

// TestSelectSeesOneIndexState hammers a document with edits while selects
// run, and checks that every answer is consistent with one version of
// the document: each item's text is the slice of that version's text at
// the item's range, and all items of the document come from the same
// version.
func TestSelectSeesOneIndexState(t *testing.T) {
	ws, root := selOpen(t, selApp+"-- ledger/ledger.go --\n"+ledgerText(1), Options{})
	uri := selPath(root, "ledger/ledger.go")
	if err := ws.DidOpen(uri, 1, ledgerText(1)); err != nil {
		t.Fatal(err)
	}
	const versions = 150
	var wg sync.WaitGroup
	done := make(chan struct{})
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(done)
		for v := 2; v <= versions; v++ {
			if err := ws.DidChange(uri, int32(v), docReplace(ledgerText(v))); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	answers := make([]int, 2)
	for r := range answers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-done:
					return
				default:
				}
				res, err := ws.Select(context.Background(), &SelectRequest{Query: "ledger alpha beta stamp total balances", Limit: 10})
				if err != nil {
					t.Error(err)
					return
				}
				if msg := ledgerConsistent(res); msg != "" {
					t.Error(msg)
					return
				}
				answers[r]++
			}
		}()
	}
	wg.Wait()
	if answers[0]+answers[1] < 10 {
		t.Fatalf("only %v answers during %d edits; the test checked too little", answers, versions)
	}
	t.Logf("%v answers checked during %d edits", answers, versions)
	res := selDo(t, ws, &SelectRequest{Query: "ledger stamp", Limit: 10})
	if selFind(res, fmt.Sprintf("sym:ledger/ledger.go::LedgerStamp%d", versions)) == nil {
		t.Fatalf("after the last edit: no LedgerStamp%d in %v", versions, selIDs(res))
	}
}

// ledgerConsistent explains how an answer mixes versions of the ledger
// document, or returns "" when it does not.
func ledgerConsistent(res *Selection) string {
	version := -1
	for _, it := range res.Items {
		if it.Path != "ledger/ledger.go" {
			continue
		}
		m := ledgerNumber.FindStringSubmatch(it.Text)
		if m == nil {
			continue // the package clause or a comment section
		}
		var v int
		fmt.Sscan(m[1], &v)
		if version >= 0 && v != version {
			return fmt.Sprintf("one answer mixes versions %d and %d of the document: %q", version, v, selIDs(res))
		}
		version = v
		if want := ledgerSlice(ledgerText(v), it.Span); it.Text != want {
			return fmt.Sprintf("item %s says version %d but its range there reads %q, not %q", it.ID, v, want, it.Text)
		}
		if strings.HasPrefix(it.Symbol, "LedgerStamp") && it.Symbol != fmt.Sprintf("LedgerStamp%d", v) {
			return fmt.Sprintf("item %s holds the text of version %d", it.ID, v)
		}
	}
	return ""
}

// ledgerSlice is the text of a document in a span.
func ledgerSlice(text string, sp Span) string {
	lines := strings.SplitAfter(text, "\n")
	if int(sp.EndLine) >= len(lines) {
		return "<range past the end>"
	}
	start := len(strings.Join(lines[:sp.StartLine], "")) + int(sp.StartCol)
	end := len(strings.Join(lines[:sp.EndLine], "")) + int(sp.EndCol)
	if start > end || end > len(text) {
		return "<bad range>"
	}
	return text[start:end]
}
