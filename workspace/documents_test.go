package workspace

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
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
// docItem is the item of id in the answer to query, pinned so that its
// text is exactly its symbol's (a ranked item takes in the lines around
// it, surround.go).
func docItem(t *testing.T, ws *Workspace, query, id string) Selected {
	t.Helper()
	res := selDo(t, ws, &SelectRequest{Query: query, Limit: 20, Pinned: []string{id}})
	if it := selFind(res, id); it != nil {
		return *it
	}
	t.Fatalf("%q: no item %s in %q", query, id, selIDs(res))
	return Selected{}
}

// docReplace is an edit that replaces the whole text.
func docReplace(text string) func([]byte) ([]byte, error) {
	return func([]byte) ([]byte, error) { return []byte(text), nil }
}

// docSubst is an edit that replaces the one occurrence of old with new.
func docSubst(old, new string) func([]byte) ([]byte, error) {
	return func(text []byte) ([]byte, error) {
		if bytes.Count(text, []byte(old)) != 1 {
			return nil, fmt.Errorf("%q is not in the text exactly once", old)
		}
		return bytes.Replace(text, []byte(old), []byte(new), 1), nil
	}
}

func TestDidOpenUnsavedTextWins(t *testing.T) {
	ws, root := docOpen(t, Options{})
	uri := selPath(root, "lsp/server.go")
	disk, _ := os.ReadFile(filepath.Join(root, "lsp", "server.go"))
	before := selDo(t, ws, &SelectRequest{Query: "server"}).Stats.MerkleRoot

	restart := "\n// Restart reconnects the listener with exponential backoff.\nfunc (s *Server) Restart() error {\n\ts.Stop()\n\treturn s.Start()\n}\n"
	if err := ws.DidOpen(uri, 1, string(disk)+restart); err != nil {
		t.Fatal(err)
	}
	res := selDo(t, ws, &SelectRequest{Query: "Server.Restart reconnects with exponential backoff"})
	selFirst(t, res, "sym:lsp/server.go::Server.Restart")
	// The item holds the symbol from its doc comment on, at its line in
	// the buffer.
	it := res.Items[0]
	at := strings.Index(it.Text, "// Restart reconnects the listener with exponential backoff.\nfunc (s *Server) Restart() error {")
	if at < 0 || it.Span.StartLine+uint32(strings.Count(it.Text[:at], "\n")) != uint32(strings.Count(string(disk), "\n")+1) {
		t.Errorf("Restart item from the buffer: span %v, text %q", it.Span, it.Text)
	}
	if res.Stats.MerkleRoot == before {
		t.Error("the Merkle root did not change with the open document")
	}
	if now, _ := os.ReadFile(filepath.Join(root, "lsp", "server.go")); string(now) != string(disk) {
		t.Error("DidOpen wrote to the file on disk")
	}
}

// TestDidChangeIncremental edits an open document twice; the second edit
// re-parses from the first one's tree. (lsp/wire's tests convert LSP
// ranges in both encodings.)
func TestDidChangeIncremental(t *testing.T) {
	ws, root := docOpen(t, Options{})
	path := selPath(root, "i18n/greet.go")
	if err := ws.DidOpen(path, 1, docGreet); err != nil {
		t.Fatal(err)
	}
	edit := func(text []byte) ([]byte, error) {
		text, _ = docSubst("+ name", "+ strings.ToUpper(name)")(text)
		return docSubst("(name string)", "(name string, loud bool)")(text)
	}
	if err := ws.DidChange(path, 2, edit); err != nil {
		t.Fatal(err)
	}
	it := docItem(t, ws, "Greeting welcome line", "sym:i18n/greet.go::Greeting")
	want := "// Greeting returns the welcome line.\nfunc Greeting(name string, loud bool) string {\n\treturn \"héllo 😀 世界, \" + strings.ToUpper(name)\n}"
	if it.Text != want {
		t.Errorf("Greeting after the edit:\n got %q\nwant %q", it.Text, want)
	}

	// Wave starts after an emoji on its line: its span counts bytes, and
	// carries its line for converting them.
	it = docItem(t, ws, "Wave", "sym:i18n/greet.go::Wave")
	waveLine := "var wave = \"👋\"; "
	if it.Span.StartCol != uint32(len(waveLine)) || it.Span.StartLine != 7 || string(it.StartLineText) != waveLine+"func Wave() string { return wave }" {
		t.Errorf("Wave starts at %v on %q, want 7:%d", it.Span, it.StartLineText, len(waveLine))
	}
	if err := ws.DidChange(path, 3, docSubst("return wave }", "return wave + wave }")); err != nil {
		t.Fatal(err)
	}
	it = docItem(t, ws, "Wave", "sym:i18n/greet.go::Wave")
	if it.Text != "func Wave() string { return wave + wave }" {
		t.Errorf("Wave after the edit: %q", it.Text)
	}
}

func TestDidChangeFullText(t *testing.T) {
	ws, root := docOpen(t, Options{})
	uri := selPath(root, "i18n/greet.go")
	if err := ws.DidOpen(uri, 1, docGreet); err != nil {
		t.Fatal(err)
	}
	text := "package i18n\n\n// Salute bows politely.\nfunc Salute() string { return \"bow\" }\n"
	if err := ws.DidChange(uri, 2, docReplace(text)); err != nil {
		t.Fatal(err)
	}
	it := docItem(t, ws, "Salute bows politely", "sym:i18n/greet.go::Salute")
	if it.Text != "// Salute bows politely.\nfunc Salute() string { return \"bow\" }" || it.Span.StartLine != 2 {
		t.Errorf("Salute: span %v, text %q", it.Span, it.Text)
	}
	res := selDo(t, ws, &SelectRequest{Query: "Greeting welcome line", Limit: 20})
	if selFind(res, "sym:i18n/greet.go::Greeting") != nil {
		t.Error("Greeting is still indexed after the full-text change removed it")
	}
}

func TestDidCloseRevertsToDisk(t *testing.T) {
	ws, root := docOpen(t, Options{})
	uri := selPath(root, "i18n/greet.go")
	before := selDo(t, ws, &SelectRequest{Query: "greeting"}).Stats.MerkleRoot
	if err := ws.DidOpen(uri, 1, "package i18n\n\nfunc Salute() string { return \"bow\" }\n"); err != nil {
		t.Fatal(err)
	}
	docItem(t, ws, "Salute", "sym:i18n/greet.go::Salute")
	if err := ws.DidClose(uri); err != nil {
		t.Fatal(err)
	}
	res := selDo(t, ws, &SelectRequest{Query: "Greeting returns the welcome line", Limit: 20})
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
	invoice := selPath(root, "billing/invoice.go")
	src, _ := os.ReadFile(filepath.Join(root, "billing", "invoice.go"))
	if err := ws.DidOpen(invoice, 1, string(src)); err != nil {
		t.Fatal(err)
	}
	// Edit the body of Invoice.Total (line 18: "\t\tsum += l.Cents").
	if err := ws.DidChange(invoice, 2, docSubst("sum += l.Cents", "sum += l.Cents * 2")); err != nil {
		t.Fatal(err)
	}
	// Then the user asks, vaguely. Of the file's symbols only Total changed.
	res := selDo(t, ws, &SelectRequest{Query: "fix that"})
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
	res = selDo(t, ws, &SelectRequest{Query: "fix that"})
	if it := selFind(res, "sym:billing/invoice.go::Invoice.Total"); it != nil {
		if _, ok := it.Signals["edit"]; ok {
			t.Errorf("an edit two hours old still has an edit signal: %v", it.Signals)
		}
	}
}

func TestFilesChanged(t *testing.T) {
	ws, root := docOpen(t, Options{})
	files := selDo(t, ws, &SelectRequest{Query: "x"}).Stats.Files
	abs := filepath.Join(root, "billing", "tax.go")
	uri := selPath(root, "billing/tax.go")

	// Created.
	if err := os.WriteFile(abs, []byte("package billing\n\n// applyTax adds value-added tax.\nfunc applyTax(cents int64) int64 { return cents * 120 / 100 }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := ws.FilesChanged([]FileEvent{{Path: uri}}); err != nil {
		t.Fatal(err)
	}
	res := selDo(t, ws, &SelectRequest{Query: "applyTax value-added tax"})
	selFirst(t, res, "sym:billing/tax.go::applyTax")
	if res.Stats.Files != files+1 {
		t.Errorf("files %d after a create, want %d", res.Stats.Files, files+1)
	}

	// Changed.
	if err := os.WriteFile(abs, []byte("package billing\n\n// applyVAT adds value-added tax.\nfunc applyVAT(cents int64) int64 { return cents * 121 / 100 }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := ws.FilesChanged([]FileEvent{{Path: uri}}); err != nil {
		t.Fatal(err)
	}
	res = selDo(t, ws, &SelectRequest{Query: "applyVAT applyTax value-added tax"})
	selFirst(t, res, "sym:billing/tax.go::applyVAT")
	if selFind(res, "sym:billing/tax.go::applyTax") != nil {
		t.Error("applyTax still indexed after the file changed")
	}

	// Deleted.
	if err := os.Remove(abs); err != nil {
		t.Fatal(err)
	}
	if err := ws.FilesChanged([]FileEvent{{Path: uri, Deleted: true}}); err != nil {
		t.Fatal(err)
	}
	res = selDo(t, ws, &SelectRequest{Query: "applyVAT value-added tax"})
	for _, it := range res.Items {
		if it.Path == "billing/tax.go" {
			t.Errorf("deleted file still selected: %s", it.ID)
		}
	}
	if res.Stats.Files != files {
		t.Errorf("files %d after the delete, want %d", res.Stats.Files, files)
	}

	// An open document keeps its text when the disk changes under it.
	greet := selPath(root, "i18n/greet.go")
	if err := ws.DidOpen(greet, 1, docGreet); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "i18n", "greet.go"), []byte("package i18n\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := ws.FilesChanged([]FileEvent{{Path: greet}}); err != nil {
		t.Fatal(err)
	}
	docItem(t, ws, "Greeting welcome line", "sym:i18n/greet.go::Greeting")
}

func TestEditsOutsideWorkspaceRefused(t *testing.T) {
	ws, _ := docOpen(t, Options{})
	outside := filepath.Join(t.TempDir(), "elsewhere.go")
	if err := ws.DidOpen(outside, 1, "package x\n\nfunc Sneaky() {}\n"); !errors.Is(err, ErrOutside) {
		t.Errorf("DidOpen outside: err %v, want ErrOutside", err)
	}
	if err := ws.DidChange(outside, 2, docReplace("package x\n")); !errors.Is(err, ErrOutside) {
		t.Errorf("DidChange outside: err %v, want ErrOutside", err)
	}
	if err := ws.DidClose(outside); !errors.Is(err, ErrOutside) {
		t.Errorf("DidClose outside: err %v, want ErrOutside", err)
	}
	if err := ws.FilesChanged([]FileEvent{{Path: outside}}); err != nil {
		t.Errorf("FilesChanged outside: %v, want the event ignored", err)
	}
	if err := ws.DidOpen("http://example.com/a.go", 1, "package a\n"); err == nil || !strings.Contains(err.Error(), "not a path") {
		t.Errorf("DidOpen with a URI: err %v, want one saying it is not a path", err)
	}
	res := selDo(t, ws, &SelectRequest{Query: "Sneaky", Limit: 20})
	for _, it := range res.Items {
		if strings.Contains(it.Text, "Sneaky") {
			t.Errorf("text from outside the workspace was indexed: %s", it.ID)
		}
	}
}

// TestDidChangeBadEditLeavesDocument: an edit that fails (lsp/wire's
// for a range past the end, say) changes neither the buffer nor the index.
func TestDidChangeBadEditLeavesDocument(t *testing.T) {
	ws, root := docOpen(t, Options{})
	path := selPath(root, "i18n/greet.go")
	if err := ws.DidChange(path, 1, docReplace("package i18n\n")); err == nil || !strings.Contains(err.Error(), "not open") {
		t.Errorf("DidChange before DidOpen: err %v, want one saying the document is not open", err)
	}
	if err := ws.DidOpen(path, 1, docGreet); err != nil {
		t.Fatal(err)
	}
	bad := errors.New("contentChanges[1]: line 99 is past the end")
	err := ws.DidChange(path, 2, func([]byte) ([]byte, error) { return nil, bad })
	if !errors.Is(err, bad) {
		t.Fatalf("err %v, want the edit's", err)
	}
	it := docItem(t, ws, "Greeting welcome line", "sym:i18n/greet.go::Greeting")
	if it.Text != "// Greeting returns the welcome line.\nfunc Greeting(name string) string {\n\treturn \"héllo 😀 世界, \" + name\n}" {
		t.Errorf("document changed by a rejected edit: %q", it.Text)
	}
}

// TestFilesChangedHonoursGitignore: a change to a file that .gitignore (or
// .git/info/exclude) leaves out does not put it into the index, as
// discovery would not have: logs and build output change all the time.
func TestFilesChangedHonoursGitignore(t *testing.T) {
	ws, root := docOpen(t, Options{})
	write := func(rel, text string) {
		t.Helper()
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(".gitignore", "/generated/\n*.out.go\n")
	write(".git/info/exclude", "scratch.go\n")
	write("billing/.gitignore", "local_*.go\n!local_keep.go\n")
	for _, rel := range []string{"generated/zorb.go", "billing/zorb.out.go", "scratch.go", "billing/local_zorb.go", "billing/local_keep.go"} {
		write(rel, "package x\n\n// ZorbFunc"+strings.NewReplacer("/", "", ".", "", "_", "").Replace(rel)+" is here.\nfunc Zorb() {}\n")
		if err := ws.FilesChanged([]FileEvent{{Path: selPath(root, rel)}}); err != nil {
			t.Fatal(err)
		}
	}
	res := selDo(t, ws, &SelectRequest{Query: "Zorb", Limit: 20})
	var got []string
	for _, it := range res.Items {
		if it.Symbol == "Zorb" {
			got = append(got, it.Path)
		}
	}
	if strings.Join(got, " ") != "billing/local_keep.go" {
		t.Errorf("want only billing/local_keep.go (re-included) indexed, got %v", got)
	}
}
