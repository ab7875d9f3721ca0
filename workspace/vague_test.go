package workspace

import (
	"slices"
	"testing"
)

// A follow-up with no words of its own ("ok, now make that change") asks
// what the last turn asked, and its answer is the turn's: the same items
// in the same order, the turn's scope folder narrowing its words as it
// does when the turn is asked on its own (the replay's vague scenario:
// "fix(middleware): reset ContentLength after gzip decompression" put
// middleware/decompress.go second asked cold and tenth as a follow-up).
func TestSelectVagueFollowUpAnswersAsTheLastTurn(t *testing.T) {
	ws, _ := selOpen(t, gzipkit, Options{})
	const turn = "fix(middleware): reset content length after gzip decompression"
	cold := selDo(t, ws, &SelectRequest{Query: turn})
	vague := selDo(t, ws, &SelectRequest{Query: "ok, now make that change", History: []string{turn}})
	if files := selFiles(vague); len(files) == 0 || files[0] != "middleware/decompress.go" {
		t.Errorf("want middleware/decompress.go first, got %q", files)
	}
	if it := selFind(vague, "sym:middleware/decompress.go::Decompress"); it == nil || it.Strong == nil || it.Strong.By != "folder" {
		t.Errorf("Decompress should carry the last turn's folder bonus, got %+v", it)
	}
	if got, want := selIDs(vague), selIDs(cold); !slices.Equal(got, want) {
		t.Errorf("the follow-up answers otherwise than its last turn asked alone:\n got %q\nwant %q", got, want)
	}
	// Earlier turns stay the conversation: the answer is the last turn's
	// asked after them.
	const first = "why is the body empty after the gzip middleware?"
	cold = selDo(t, ws, &SelectRequest{Query: turn, History: []string{first}})
	vague = selDo(t, ws, &SelectRequest{Query: "do it", History: []string{first, turn}})
	if got, want := selIDs(vague), selIDs(cold); !slices.Equal(got, want) {
		t.Errorf("after two turns, the follow-up answers otherwise than its last turn asked after the first:\n got %q\nwant %q", got, want)
	}
}
