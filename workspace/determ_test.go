package workspace

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// determDup is the text of the i-th of many files that differ only in a
// number the query does not name: every one scores the same for the
// query's words, and there are more of them than a source's list keeps.
func determDup(i int) string {
	return fmt.Sprintf(`package uploads

// retryUpload retries a failed upload with exponential backoff.
func retryUpload(attempt int) int {
	backoff := %d << attempt
	return backoff
}

// uploadChunk sends one chunk of the upload.
func uploadChunk(chunk []byte) int { return len(chunk) + %d }
`, 1000+i, 2000+i)
}

// TestSelectSameWhateverIndexOrder builds the same tree twice, once by
// indexing it whole and once by file events that add its files in the
// reverse order over files of other content, and requires the same answer
// byte for byte: the slots files and symbols take depend on that order,
// and the files kept of many equal scores must not.
func TestSelectSameWhateverIndexOrder(t *testing.T) {
	const n = 90 // more than heuristics.FileK
	paths := make([]string, n)
	for i := range paths {
		paths[i] = fmt.Sprintf("uploads/u%02d.go", i)
	}
	write := func(root, rel, text string) string {
		abs := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(abs, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return abs
	}
	base := "-- go.mod --\nmodule example.com/up\n\ngo 1.22\n"

	whole, wholeRoot := selOpen(t, base, Options{})
	for i, p := range paths {
		write(wholeRoot, p, determDup(i))
	}
	if _, err := whole.Index(t.Context(), nil); err != nil {
		t.Fatal(err)
	}

	// The other: the files come in the reverse order, each first holding
	// other symbols, which the final contents replace (their slots go
	// back to be taken again), half of the files after the rest.
	moved, movedRoot := selOpen(t, base, Options{})
	var events []FileEvent
	for i := n - 1; i >= 0; i-- {
		events = append(events, FileEvent{Path: write(movedRoot, paths[i], fmt.Sprintf("package uploads\n\nfunc old%dA() {}\n\nfunc old%dB() {}\n\nfunc old%dC() {}\n", i, i, i))})
	}
	if err := moved.FilesChanged(events); err != nil {
		t.Fatal(err)
	}
	for _, half := range [][2]int{{n / 2, n}, {0, n / 2}} {
		events = events[:0]
		for i := half[1] - 1; i >= half[0]; i-- {
			events = append(events, FileEvent{Path: write(movedRoot, paths[i], determDup(i))})
		}
		if err := moved.FilesChanged(events); err != nil {
			t.Fatal(err)
		}
	}

	for _, q := range []string{"retry the failed upload with exponential backoff", "upload chunk"} {
		req := SelectRequest{Query: q, Limit: 30}
		a, b := selDo(t, whole, &req), selDo(t, moved, &req)
		for _, res := range []*Selection{a, b} {
			for i := range res.Items {
				res.Items[i].Abs = "" // the roots differ
			}
		}
		if a.Stats.Files != b.Stats.Files || a.Stats.Symbols != b.Stats.Symbols {
			t.Fatalf("%q: the trees differ: %d files, %d symbols against %d, %d", q, a.Stats.Files, a.Stats.Symbols, b.Stats.Files, b.Stats.Symbols)
		}
		ja, err := json.Marshal(a.Items)
		if err != nil {
			t.Fatal(err)
		}
		jb, err := json.Marshal(b.Items)
		if err != nil {
			t.Fatal(err)
		}
		if string(ja) != string(jb) {
			t.Errorf("%q: the tree indexed whole answers\n  %q\nthe same tree built by file events answers\n  %q", q, selIDs(a), selIDs(b))
		}
	}
}
