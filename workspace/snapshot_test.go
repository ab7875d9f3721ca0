package workspace

import (
	"context"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ctxls/ctxls/workspace/pipeline"
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
	var total atomic.Int64 // answers checked so far
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(done)
		for v := 2; v <= versions; v++ {
			if err := ws.DidChange(uri, int32(v), docReplace(ledgerText(v))); err != nil {
				t.Error(err)
				return
			}
			// Selects pause while an edit is applied: every tenth edit
			// waits for the selects to answer between edits, so that
			// answers interleave with the edits on a busy machine too.
			for deadline := time.Now().Add(10 * time.Second); v%10 == 0 && total.Load() < int64(v/10) && time.Now().Before(deadline); {
				time.Sleep(time.Millisecond)
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
				total.Add(1)
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

// TestSelectLeavesOutFilesChangedOnDisk: a file changed on disk but not yet
// re-indexed (its watched-file event has not come) gives no items, rather
// than slices of its new text cut at the old offsets; after the event it
// gives its new text.
func TestSelectLeavesOutFilesChangedOnDisk(t *testing.T) {
	ws, root := selOpen(t, selApp+"-- ledger/ledger.go --\n"+ledgerText(1), Options{})
	query := &SelectRequest{Query: "ledger alpha beta stamp total balances", Limit: 10}
	if res := selDo(t, ws, query); ledgerItems(res) == 0 {
		t.Fatalf("no ledger items to begin with: %v", selIDs(res))
	}
	if err := os.WriteFile(selPath(root, "ledger/ledger.go"), []byte(ledgerText(5)), 0o644); err != nil {
		t.Fatal(err)
	}
	if res := selDo(t, ws, query); ledgerItems(res) != 0 {
		t.Errorf("items of a file changed since it was indexed: %v", selIDs(res))
	}
	if err := ws.FilesChanged([]FileEvent{{Path: selPath(root, "ledger/ledger.go")}}); err != nil {
		t.Fatal(err)
	}
	res := selDo(t, ws, query)
	if msg := ledgerConsistent(res); msg != "" || ledgerItems(res) == 0 {
		t.Errorf("after the event: %s %v", msg, selIDs(res))
	}
	if res := selDo(t, ws, &SelectRequest{Query: "LedgerStamp5 stamps the ledger"}); selFind(res, "sym:ledger/ledger.go::LedgerStamp5") == nil {
		t.Errorf("after the event: no LedgerStamp5 in %v", selIDs(res))
	}
}

func ledgerItems(res *Selection) int {
	n := 0
	for _, it := range res.Items {
		if it.Path == "ledger/ledger.go" {
			n++
		}
	}
	return n
}

// TestCancelledRescanLeavesIndex: a re-scan is applied to the live index
// all at once at its end, so a cancelled one changes nothing.
func TestCancelledRescanLeavesIndex(t *testing.T) {
	ws, root := selOpen(t, selApp+"-- ledger/ledger.go --\n"+ledgerText(1), Options{})
	before := selDo(t, ws, &SelectRequest{Query: "ledger stamp"})
	for i := range 40 {
		if err := os.WriteFile(selPath(root, fmt.Sprintf("ledger/extra%02d.go", i)), []byte(fmt.Sprintf("package ledger\n\nfunc LedgerExtra%d() int { return %d }\n", i, i)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(selPath(root, "ledger/ledger.go"), []byte(ledgerText(2)), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	calls := 0
	_, err := ws.Index(ctx, func(p Progress) {
		if calls++; calls == 3 {
			cancel() // with results coming in
		}
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Index: %v, want it cancelled", err)
	}
	after := selDo(t, ws, &SelectRequest{Query: "ledger stamp"})
	if after.Stats.MerkleRoot != before.Stats.MerkleRoot || after.Stats.Files != before.Stats.Files {
		t.Errorf("a cancelled re-scan changed the index: root %s → %s, files %d → %d",
			before.Stats.MerkleRoot, after.Stats.MerkleRoot, before.Stats.Files, after.Stats.Files)
	}
	if _, err := ws.Index(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	if done := selDo(t, ws, &SelectRequest{Query: "ledger stamp"}); done.Stats.Files != before.Stats.Files+40 {
		t.Errorf("the re-scan that finished: %d files, want %d", done.Stats.Files, before.Stats.Files+40)
	}
}

// TestEditDoesNotWaitForSnapshot holds a snapshot, as a select in flight
// does, while the document is edited four times: the edits complete
// without it being released, a select taken after them sees the last
// version, and the held snapshot still answers from the first, whole
// (items, texts and counts of one version).
func TestEditDoesNotWaitForSnapshot(t *testing.T) {
	ws, root := selOpen(t, selApp+"-- ledger/ledger.go --\n"+ledgerText(1), Options{})
	uri := selPath(root, "ledger/ledger.go")
	if err := ws.DidOpen(uri, 1, ledgerText(1)); err != nil {
		t.Fatal(err)
	}
	req := &SelectRequest{Query: "ledger alpha beta stamp total balances", Limit: 10}
	ws.mu.Lock()
	held := ws.snapshotLocked()
	ws.mu.Unlock()

	edited := make(chan error)
	go func() {
		for v := 2; v <= 5; v++ {
			if err := ws.DidChange(uri, int32(v), docReplace(ledgerText(v))); err != nil {
				edited <- err
				return
			}
		}
		edited <- nil
	}()
	select {
	case err := <-edited:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(time.Minute): // a deadlock guard, not a measurement
		held.Release()
		t.Fatal("the edits waited for a snapshot in flight")
	}
	fresh := selDo(t, ws, req)
	if selFind(fresh, "sym:ledger/ledger.go::LedgerStamp5") == nil || ledgerConsistent(fresh) != "" {
		t.Errorf("a select after the edits does not see version 5: %s %v", ledgerConsistent(fresh), selIDs(fresh))
	}

	old, err := pipeline.Run(context.Background(), held, req)
	held.Release()
	if err != nil {
		t.Fatal(err)
	}
	if msg := ledgerConsistent(old); msg != "" || selFind(old, "sym:ledger/ledger.go::LedgerStamp1") == nil {
		t.Errorf("the held snapshot does not answer from version 1: %s %v", msg, selIDs(old))
	}
	if old.Stats.Reembedded >= fresh.Stats.Reembedded {
		t.Errorf("the held snapshot reports %d symbols re-embedded, the later one %d: the edits' work counted in the earlier answer", old.Stats.Reembedded, fresh.Stats.Reembedded)
	}
}
