package workspace

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf16"
)

// docGreet holds non-ASCII text before the places the tests edit, so that
// UTF-16, UTF-8 and byte columns all differ there.
const docGreet = `package i18n

// Greeting returns the welcome line.
func Greeting(name string) string {
	return "héllo 😀 世界, " + name
}

var wave = "👋"; func Wave() string { return wave }
`

func docOpen(t *testing.T, opts Options) (*Workspace, string) {
	t.Helper()
	return selOpen(t, selApp+"-- i18n/greet.go --\n"+docGreet, opts)
}

// docItem runs a query and returns the item with id, failing when it is
// missing.
func docItem(t *testing.T, ws *Workspace, query, id string) Item {
	t.Helper()
	res := selDo(t, ws, &Request{Query: query, Limit: 20})
	if it := selFind(res, id); it != nil {
		return *it
	}
	t.Fatalf("%q: no item %s in %q", query, id, selIDs(res))
	return Item{}
}

// docColumn is the LSP character of the end of prefix: UTF-16 code units,
// or bytes in UTF-8 mode.
func docColumn(prefix string, utf8 bool) uint32 {
	if utf8 {
		return uint32(len(prefix))
	}
	return uint32(len(utf16.Encode([]rune(prefix))))
}

func TestDidOpenUnsavedTextWins(t *testing.T) {
	ws, root := docOpen(t, Options{})
	uri := selURI(root, "lsp/server.go")
	disk, _ := os.ReadFile(filepath.Join(root, "lsp", "server.go"))
	before := selDo(t, ws, &Request{Query: "server"}).Stats.MerkleRoot

	restart := "\n// Restart reconnects the listener with exponential backoff.\nfunc (s *Server) Restart() error {\n\ts.Stop()\n\treturn s.Start()\n}\n"
	if err := ws.DidOpen(uri, 1, string(disk)+restart); err != nil {
		t.Fatal(err)
	}
	res := selDo(t, ws, &Request{Query: "Server.Restart reconnects with exponential backoff"})
	selFirst(t, res, "sym:lsp/server.go::Server.Restart")
	if it := res.Items[0]; !strings.HasPrefix(it.Text, "func (s *Server) Restart() error {") || it.Range.Start.Line != uint32(strings.Count(string(disk), "\n")+2) {
		t.Errorf("Restart item from the buffer: range %v, text %q", it.Range, it.Text)
	}
	if res.Stats.MerkleRoot == before {
		t.Error("the Merkle root did not change with the open document")
	}
	if now, _ := os.ReadFile(filepath.Join(root, "lsp", "server.go")); string(now) != string(disk) {
		t.Error("DidOpen wrote to the file on disk")
	}
}

func TestDidChangeIncremental(t *testing.T) {
	for _, utf8 := range []bool{false, true} {
		name := "utf-16"
		if utf8 {
			name = "utf-8"
		}
		t.Run(name, func(t *testing.T) {
			ws, root := docOpen(t, Options{UTF8: utf8})
			uri := selURI(root, "i18n/greet.go")
			if err := ws.DidOpen(uri, 1, docGreet); err != nil {
				t.Fatal(err)
			}
			// Replace "name" after the emoji and CJK on line 4, and insert
			// a parameter on line 3 (ASCII), in one didChange.
			line4 := "\treturn \"héllo 😀 世界, \" + "
			start := docColumn(line4, utf8)
			changes := []TextChange{
				{Range: &Range{Start: Position{4, start}, End: Position{4, start + 4}}, Text: "strings.ToUpper(name)"},
				{Range: &Range{Start: Position{3, 25}, End: Position{3, 25}}, Text: ", loud bool"},
			}
			if err := ws.DidChange(uri, 2, changes); err != nil {
				t.Fatal(err)
			}
			it := docItem(t, ws, "Greeting welcome line", "sym:i18n/greet.go::Greeting")
			want := "func Greeting(name string, loud bool) string {\n\treturn \"héllo 😀 世界, \" + strings.ToUpper(name)\n}"
			if it.Text != want {
				t.Errorf("Greeting after the edit:\n got %q\nwant %q", it.Text, want)
			}

			// Wave starts after an emoji on its line: its range is in the
			// negotiated encoding.
			it = docItem(t, ws, "Wave", "sym:i18n/greet.go::Wave")
			waveLine := "var wave = \"👋\"; "
			if want := docColumn(waveLine, utf8); it.Range.Start.Character != want || it.Range.Start.Line != 7 {
				t.Errorf("Wave starts at %v, want 7:%d", it.Range.Start, want)
			}
			if want := docColumn(waveLine+"func Wave() string { return wave }", utf8); it.Range.End.Character != want || it.Range.End.Line != 7 {
				t.Errorf("Wave ends at %v, want 7:%d", it.Range.End, want)
			}

			// An edit after the emoji on Wave's line lands after it.
			at := docColumn(waveLine+"func Wave() string { return ", utf8)
			if err := ws.DidChange(uri, 3, []TextChange{{Range: &Range{Start: Position{7, at}, End: Position{7, at + 4}}, Text: "wave + wave"}}); err != nil {
				t.Fatal(err)
			}
			it = docItem(t, ws, "Wave", "sym:i18n/greet.go::Wave")
			if it.Text != "func Wave() string { return wave + wave }" {
				t.Errorf("Wave after the edit: %q", it.Text)
			}
		})
	}
}

func TestDidChangeFullText(t *testing.T) {
	ws, root := docOpen(t, Options{})
	uri := selURI(root, "i18n/greet.go")
	if err := ws.DidOpen(uri, 1, docGreet); err != nil {
		t.Fatal(err)
	}
	text := "package i18n\n\n// Salute bows politely.\nfunc Salute() string { return \"bow\" }\n"
	if err := ws.DidChange(uri, 2, []TextChange{{Text: text}}); err != nil {
		t.Fatal(err)
	}
	it := docItem(t, ws, "Salute bows politely", "sym:i18n/greet.go::Salute")
	if it.Text != "func Salute() string { return \"bow\" }" || it.Range.Start.Line != 3 {
		t.Errorf("Salute: range %v, text %q", it.Range, it.Text)
	}
	res := selDo(t, ws, &Request{Query: "Greeting welcome line", Limit: 20})
	if selFind(res, "sym:i18n/greet.go::Greeting") != nil {
		t.Error("Greeting is still indexed after the full-text change removed it")
	}
}

func TestDidCloseRevertsToDisk(t *testing.T) {
	ws, root := docOpen(t, Options{})
	uri := selURI(root, "i18n/greet.go")
	before := selDo(t, ws, &Request{Query: "greeting"}).Stats.MerkleRoot
	if err := ws.DidOpen(uri, 1, "package i18n\n\nfunc Salute() string { return \"bow\" }\n"); err != nil {
		t.Fatal(err)
	}
	docItem(t, ws, "Salute", "sym:i18n/greet.go::Salute")
	if err := ws.DidClose(uri); err != nil {
		t.Fatal(err)
	}
	res := selDo(t, ws, &Request{Query: "Greeting returns the welcome line", Limit: 20})
	if selFind(res, "sym:i18n/greet.go::Salute") != nil {
		t.Error("Salute, only in the closed buffer, is still indexed")
	}
	it := selFind(res, "sym:i18n/greet.go::Greeting")
	if it == nil || !strings.Contains(it.Text, "+ name\n}") {
		t.Fatalf("Greeting from disk missing after close: %q", selIDs(res))
	}
	if res.Stats.MerkleRoot != before {
		t.Errorf("Merkle root after close %s, want the disk's %s", res.Stats.MerkleRoot, before)
	}
}

func TestSelectSeesRecentEdit(t *testing.T) {
	now := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	ws, root := docOpen(t, Options{Now: func() time.Time { return now }})
	invoice := selURI(root, "billing/invoice.go")
	src, _ := os.ReadFile(filepath.Join(root, "billing", "invoice.go"))
	if err := ws.DidOpen(invoice, 1, string(src)); err != nil {
		t.Fatal(err)
	}
	// Edit the body of Invoice.Total (line 18: "\t\tsum += l.Cents").
	edit := TextChange{Range: &Range{Start: Position{18, 9}, End: Position{18, 16}}, Text: "l.Cents * 2"}
	if err := ws.DidChange(invoice, 2, []TextChange{edit}); err != nil {
		t.Fatal(err)
	}
	// Then the user asks, vaguely. Of the file's symbols only Total changed.
	res := selDo(t, ws, &Request{Query: "fix that"})
	selFirst(t, res, "sym:billing/invoice.go::Invoice.Total")
	if len(res.Items) > 0 {
		if _, ok := res.Items[0].Signals["edit"]; !ok || !strings.Contains(res.Items[0].Text, "sum += l.Cents * 2") {
			t.Errorf("edited item: signals %v, text %q", res.Items[0].Signals, res.Items[0].Text)
		}
	}
	for _, it := range res.Items[1:] {
		if _, ok := it.Signals["edit"]; ok {
			t.Errorf("%s has an edit signal but was not edited", it.ID)
		}
	}

	// Two hours later (twelve half-lives) the edit no longer counts.
	now = now.Add(2 * time.Hour)
	res = selDo(t, ws, &Request{Query: "fix that"})
	if it := selFind(res, "sym:billing/invoice.go::Invoice.Total"); it != nil {
		if _, ok := it.Signals["edit"]; ok {
			t.Errorf("an edit two hours old still has an edit signal: %v", it.Signals)
		}
	}
}

func TestFilesChanged(t *testing.T) {
	ws, root := docOpen(t, Options{})
	files := selDo(t, ws, &Request{Query: "x"}).Stats.Files
	abs := filepath.Join(root, "billing", "tax.go")
	uri := selURI(root, "billing/tax.go")

	// Created.
	if err := os.WriteFile(abs, []byte("package billing\n\n// applyTax adds value-added tax.\nfunc applyTax(cents int64) int64 { return cents * 120 / 100 }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := ws.FilesChanged([]FileEvent{{URI: uri}}); err != nil {
		t.Fatal(err)
	}
	res := selDo(t, ws, &Request{Query: "applyTax value-added tax"})
	selFirst(t, res, "sym:billing/tax.go::applyTax")
	if res.Stats.Files != files+1 {
		t.Errorf("files %d after a create, want %d", res.Stats.Files, files+1)
	}

	// Changed.
	if err := os.WriteFile(abs, []byte("package billing\n\n// applyVAT adds value-added tax.\nfunc applyVAT(cents int64) int64 { return cents * 121 / 100 }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := ws.FilesChanged([]FileEvent{{URI: uri}}); err != nil {
		t.Fatal(err)
	}
	res = selDo(t, ws, &Request{Query: "applyVAT applyTax value-added tax"})
	selFirst(t, res, "sym:billing/tax.go::applyVAT")
	if selFind(res, "sym:billing/tax.go::applyTax") != nil {
		t.Error("applyTax still indexed after the file changed")
	}

	// Deleted.
	if err := os.Remove(abs); err != nil {
		t.Fatal(err)
	}
	if err := ws.FilesChanged([]FileEvent{{URI: uri, Deleted: true}}); err != nil {
		t.Fatal(err)
	}
	res = selDo(t, ws, &Request{Query: "applyVAT value-added tax"})
	for _, it := range res.Items {
		if it.Path == "billing/tax.go" {
			t.Errorf("deleted file still selected: %s", it.ID)
		}
	}
	if res.Stats.Files != files {
		t.Errorf("files %d after the delete, want %d", res.Stats.Files, files)
	}

	// An open document keeps its text when the disk changes under it.
	greet := selURI(root, "i18n/greet.go")
	if err := ws.DidOpen(greet, 1, docGreet); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "i18n", "greet.go"), []byte("package i18n\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := ws.FilesChanged([]FileEvent{{URI: greet}}); err != nil {
		t.Fatal(err)
	}
	docItem(t, ws, "Greeting welcome line", "sym:i18n/greet.go::Greeting")
}

func TestEditsOutsideWorkspaceRefused(t *testing.T) {
	ws, _ := docOpen(t, Options{})
	outside := URIFromPath(filepath.Join(t.TempDir(), "elsewhere.go"))
	if err := ws.DidOpen(outside, 1, "package x\n\nfunc Sneaky() {}\n"); !errors.Is(err, ErrOutside) {
		t.Errorf("DidOpen outside: err %v, want ErrOutside", err)
	}
	if err := ws.DidChange(outside, 2, []TextChange{{Text: "package x\n"}}); !errors.Is(err, ErrOutside) {
		t.Errorf("DidChange outside: err %v, want ErrOutside", err)
	}
	if err := ws.DidClose(outside); !errors.Is(err, ErrOutside) {
		t.Errorf("DidClose outside: err %v, want ErrOutside", err)
	}
	if err := ws.FilesChanged([]FileEvent{{URI: outside}}); err != nil {
		t.Errorf("FilesChanged outside: %v, want the event ignored", err)
	}
	if err := ws.DidOpen("http://example.com/a.go", 1, "package a\n"); err == nil || !strings.Contains(err.Error(), "scheme") {
		t.Errorf("DidOpen with an http URI: err %v, want one naming the scheme", err)
	}
	res := selDo(t, ws, &Request{Query: "Sneaky", Limit: 20})
	for _, it := range res.Items {
		if strings.Contains(it.Text, "Sneaky") {
			t.Errorf("text from outside the workspace was indexed: %s", it.ID)
		}
	}
}

func TestDidChangeBadRangeLeavesDocument(t *testing.T) {
	ws, root := docOpen(t, Options{})
	uri := selURI(root, "i18n/greet.go")
	if err := ws.DidChange(uri, 1, []TextChange{{Text: "package i18n\n"}}); err == nil || !strings.Contains(err.Error(), "not open") {
		t.Errorf("DidChange before DidOpen: err %v, want one saying the document is not open", err)
	}
	if err := ws.DidOpen(uri, 1, docGreet); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name    string
		changes []TextChange
		msg     string
	}{
		{"line past the end", []TextChange{{Range: &Range{Start: Position{40, 0}, End: Position{41, 0}}, Text: "x"}}, "past the end"},
		{"end before start", []TextChange{{Range: &Range{Start: Position{4, 5}, End: Position{3, 0}}, Text: "x"}}, "before its start"},
		// The first change is fine; the batch still fails as a whole.
		{"second change bad", []TextChange{
			{Range: &Range{Start: Position{0, 0}, End: Position{0, 7}}, Text: "package broken"},
			{Range: &Range{Start: Position{99, 0}, End: Position{99, 1}}, Text: "x"},
		}, "contentChanges[1]"},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := ws.DidChange(uri, 2, c.changes)
			if err == nil || !strings.Contains(err.Error(), c.msg) {
				t.Fatalf("err %v, want one containing %q", err, c.msg)
			}
			it := docItem(t, ws, "Greeting welcome line", "sym:i18n/greet.go::Greeting")
			if it.Text != "func Greeting(name string) string {\n\treturn \"héllo 😀 世界, \" + name\n}" {
				t.Errorf("document changed by a rejected edit: %q", it.Text)
			}
			ws.mu.Lock()
			text := string(ws.docs[filepath.Join(root, "i18n", "greet.go")].text)
			ws.mu.Unlock()
			if text != docGreet {
				t.Errorf("buffer changed by a rejected edit:\n%s", text)
			}
		})
	}
}
