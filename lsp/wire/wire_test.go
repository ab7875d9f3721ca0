package wire_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/ctxls/ctxls/lsp/wire"
	"github.com/ctxls/ctxls/workspace"
)

// greet holds non-ASCII text before the places the tests edit, so that
// UTF-16, UTF-8 and byte columns all differ there.
const greet = `package i18n

// Greeting returns the welcome line.
func Greeting(name string) string {
	return "héllo 😀 世界, " + name
}

var wave = "👋"

/* 👋 */ func Wave() string { return wave }
`

// column is the LSP character of the end of prefix: UTF-16 code units, or
// bytes in UTF-8 mode.
func column(prefix string, utf8 bool) uint32 {
	if utf8 {
		return uint32(len(prefix))
	}
	return uint32(len(utf16.Encode([]rune(prefix))))
}

func encodings(t *testing.T, fn func(t *testing.T, utf8 bool)) {
	for _, utf8 := range []bool{false, true} {
		name := "utf-16"
		if utf8 {
			name = "utf-8"
		}
		t.Run(name, func(t *testing.T) { fn(t, utf8) })
	}
}

// openGreet indexes a folder holding i18n/greet.go and opens it.
func openGreet(t *testing.T) (*workspace.Workspace, string) {
	t.Helper()
	ws, dir := openFolder(t, "i18n/greet.go", greet)
	real, err := filepath.EvalSymlinks(filepath.Join(dir, "i18n", "greet.go"))
	if err != nil {
		t.Fatal(err)
	}
	if err := ws.DidOpen(real, 1, greet); err != nil {
		t.Fatal(err)
	}
	return ws, real
}

// openFolder indexes a new folder holding one file, rel, with text.
func openFolder(t *testing.T, rel, text string) (*workspace.Workspace, string) {
	t.Helper()
	ws, dir := addFolder(t, rel, text)
	if _, err := ws.Index(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	return ws, dir
}

// addFolder is openFolder before the folder is indexed.
func addFolder(t *testing.T, rel, text string) (*workspace.Workspace, string) {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := workspace.DefaultConfig()
	cfg.CacheDir = workspace.CacheDirOff
	ws, err := workspace.New(cfg, workspace.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ws.AddFolder(dir); err != nil {
		t.Fatal(err)
	}
	return ws, dir
}

// item selects for query and returns the wire item id, in the encoding.
// item is the item of id in the answer to query, pinned so that its range
// is exactly its symbol's (a ranked item takes in the whole lines around
// it).
func item(t *testing.T, ws *workspace.Workspace, query, id string, utf8 bool) wire.Item {
	t.Helper()
	sel, err := ws.Select(context.Background(), &workspace.SelectRequest{Query: query, Limit: 20, Pinned: []string{id}})
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range wire.FromSelection(sel, utf8).Items {
		if it.ID == id {
			return it
		}
	}
	t.Fatalf("%q: no item %s in %v", query, id, sel.Items)
	return wire.Item{}
}

// TestDidChangeInEncoding applies didChange's ranges in both encodings to
// an open document and reads the items' ranges back in them.
func TestDidChangeInEncoding(t *testing.T) {
	encodings(t, func(t *testing.T, utf8 bool) {
		ws, path := openGreet(t)
		edit := func(changes ...wire.TextChange) {
			t.Helper()
			err := ws.DidChange(path, 2, func(text []byte) ([]byte, error) { return wire.ApplyChanges(text, changes, utf8) })
			if err != nil {
				t.Fatal(err)
			}
		}
		// Replace "name" after the emoji and CJK on line 4, and insert a
		// parameter on line 3 (ASCII), in one didChange.
		start := column("\treturn \"héllo 😀 世界, \" + ", utf8)
		edit(
			wire.TextChange{Range: &wire.Range{Start: wire.Position{Line: 4, Character: start}, End: wire.Position{Line: 4, Character: start + 4}}, Text: "strings.ToUpper(name)"},
			wire.TextChange{Range: &wire.Range{Start: wire.Position{Line: 3, Character: 25}, End: wire.Position{Line: 3, Character: 25}}, Text: ", loud bool"},
		)
		it := item(t, ws, "Greeting welcome line", "sym:i18n/greet.go::Greeting", utf8)
		if want := "// Greeting returns the welcome line.\nfunc Greeting(name string, loud bool) string {\n\treturn \"héllo 😀 世界, \" + strings.ToUpper(name)\n}"; it.Text != want {
			t.Errorf("Greeting after the edit:\n got %q\nwant %q", it.Text, want)
		}

		// Wave starts after an emoji on its line: its range is in the
		// negotiated encoding.
		it = item(t, ws, "Wave", "sym:i18n/greet.go::Wave", utf8)
		waveLine := "/* 👋 */ "
		if want := column(waveLine, utf8); it.Range.Start != (wire.Position{Line: 9, Character: want}) {
			t.Errorf("Wave starts at %v, want 9:%d", it.Range.Start, want)
		}
		if want := column(waveLine+"func Wave() string { return wave }", utf8); it.Range.End != (wire.Position{Line: 9, Character: want}) {
			t.Errorf("Wave ends at %v, want 9:%d", it.Range.End, want)
		}
		if it.URI != wire.URIFromPath(path) {
			t.Errorf("uri %q, want %q", it.URI, wire.URIFromPath(path))
		}

		// An edit after the emoji on Wave's line lands after it.
		at := column(waveLine+"func Wave() string { return ", utf8)
		edit(wire.TextChange{Range: &wire.Range{Start: wire.Position{Line: 9, Character: at}, End: wire.Position{Line: 9, Character: at + 4}}, Text: "wave + wave"})
		if it := item(t, ws, "Wave", "sym:i18n/greet.go::Wave", utf8); it.Text != "func Wave() string { return wave + wave }" {
			t.Errorf("Wave after the edit: %q", it.Text)
		}
	})
}

// TestApplyChangesBadRange: a bad range fails the whole batch, naming the
// change, and leaves the text as it was.
func TestApplyChangesBadRange(t *testing.T) {
	pos := func(line, char uint32) wire.Position { return wire.Position{Line: line, Character: char} }
	for _, c := range []struct {
		name    string
		changes []wire.TextChange
		msg     string
	}{
		{"line past the end", []wire.TextChange{{Range: &wire.Range{Start: pos(40, 0), End: pos(41, 0)}, Text: "x"}}, "past the end"},
		{"end before start", []wire.TextChange{{Range: &wire.Range{Start: pos(4, 5), End: pos(3, 0)}, Text: "x"}}, "before its start"},
		// The first change is fine; the batch still fails as a whole.
		{"second change bad", []wire.TextChange{
			{Range: &wire.Range{Start: pos(0, 0), End: pos(0, 7)}, Text: "package broken"},
			{Range: &wire.Range{Start: pos(99, 0), End: pos(99, 1)}, Text: "x"},
		}, "contentChanges[1]"},
	} {
		t.Run(c.name, func(t *testing.T) {
			text := []byte(greet)
			out, err := wire.ApplyChanges(text, c.changes, false)
			if err == nil || !strings.Contains(err.Error(), c.msg) || out != nil {
				t.Fatalf("err %v, out %q; want an error containing %q and no text", err, out, c.msg)
			}
			if string(text) != greet {
				t.Errorf("the text was modified:\n%s", text)
			}
		})
	}
	// Past the end of a line clamps; the line after the last is the end.
	out, err := wire.ApplyChanges([]byte("ab\ncd"), []wire.TextChange{
		{Range: &wire.Range{Start: pos(0, 9), End: pos(0, 9)}, Text: "!"},
		{Range: &wire.Range{Start: pos(2, 0), End: pos(2, 0)}, Text: "?"},
	}, false)
	if err != nil || string(out) != "ab!\ncd?" {
		t.Errorf("clamping: %q, %v; want %q", out, err, "ab!\ncd?")
	}
}

// TestSelectRequest: URIs become paths, ids pass, and a bad reference is
// an error naming the wire field.
func TestSelectRequest(t *testing.T) {
	abs := filepath.Join(t.TempDir(), "a.go")
	req, err := wire.SelectRequest(&wire.Request{
		Query: "q", ActiveURI: wire.URIFromPath(abs), Position: &wire.Position{Line: 3, Character: 9},
		Pinned: []string{"sym:a.go::F", "file:b.go", wire.URIFromPath(abs)},
	})
	if err != nil {
		t.Fatal(err)
	}
	if req.Active != abs || req.Cursor == nil || req.Cursor.Line != 3 {
		t.Errorf("active %q cursor %+v, want %q line 3", req.Active, req.Cursor, abs)
	}
	if want := []string{"sym:a.go::F", "file:b.go", abs}; strings.Join(req.Pinned, " ") != strings.Join(want, " ") {
		t.Errorf("pinned %q, want %q", req.Pinned, want)
	}
	for _, c := range []struct {
		req   wire.Request
		field string
	}{
		{wire.Request{Query: "q", ActiveURI: "http://example.com/a.go"}, "activeUri"},
		{wire.Request{Query: "q", Pinned: []string{"sym:a.go::F", "ftp://host/x.go"}}, "pinned[1]"},
	} {
		_, err := wire.SelectRequest(&c.req)
		var pe *workspace.ParamError
		if !errors.As(err, &pe) || pe.Field != c.field || !strings.Contains(pe.Msg, "scheme") {
			t.Errorf("%+v: err %v, want one for %s naming the scheme", c.req, err, c.field)
		}
	}
}

// TestSelect: the one service call validates the request once, names a
// problem by its wire field (the workspace's own "active" included), and
// reports stats.reembedded only when asked.
func TestSelect(t *testing.T) {
	ws, dir := openFolder(t, "wave.go", "package i18n\n\nfunc Wave() string { return \"👋\" }\n")
	ctx := context.Background()
	for _, c := range []struct {
		req  wire.Request
		want string
	}{
		{wire.Request{Query: "q", ActiveURI: wire.URIFromPath(filepath.Join(t.TempDir(), "x.go"))}, "activeUri: "},
		{wire.Request{Query: "q", ActiveURI: "wave.go"}, `activeUri: "wave.go" is not a URI`},
		{wire.Request{Query: "q", Pinned: []string{"wave.go"}}, `pinned[0]: "wave.go" is not a URI (want a file:// URI or an item id)`},
		{wire.Request{Query: "q", ActiveURI: "file://%zz"}, `activeUri: malformed URI "file://%zz": invalid URL escape "%zz"`},
		{wire.Request{Query: "q", Limit: -1}, "limit: "},
	} {
		_, err := wire.Select(ctx, ws, &c.req, wire.Options{})
		if _, ok := errors.AsType[*workspace.ParamError](err); !ok || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%+v: err %v, want a ParamError starting %q", c.req, err, c.want)
		}
	}
	req := &wire.Request{Query: "Wave", ActiveURI: wire.URIFromPath(filepath.Join(dir, "wave.go"))}
	res, err := wire.Select(ctx, ws, req, wire.Options{})
	if err != nil || len(res.Items) == 0 || res.Items[0].Symbol != "Wave" || res.Stats.Reembedded != nil {
		t.Fatalf("select Wave: %+v, %v; want Wave first and no stats.reembedded", res, err)
	}
	res, err = wire.Select(ctx, ws, req, wire.Options{Reembedded: true})
	if err != nil || res.Stats.Reembedded == nil {
		t.Fatalf("select Wave with Reembedded: %+v, %v; want stats.reembedded", res, err)
	}
}

func TestItemWhere(t *testing.T) {
	sym := wire.Item{ID: "sym:a/b.go::F", Path: "a/b.go", Symbol: "F", Range: wire.Range{Start: wire.Position{Line: 3}, End: wire.Position{Line: 9, Character: 1}}}
	// A text that ends with its last line's newline ends at the start of
	// the next line, which it holds nothing of.
	file := wire.Item{ID: "file:a/b.go", Path: "a/b.go", Range: wire.Range{End: wire.Position{Line: 4}}}
	oneLine := wire.Item{ID: "sym:a/b.go::x", Path: "a/b.go", Symbol: "x", Range: wire.Range{Start: wire.Position{Line: 7}, End: wire.Position{Line: 7}}}
	note := wire.Item{ID: "memory:n1", Kind: "memory"}
	for _, c := range []struct {
		it   wire.Item
		want string
	}{{sym, "a/b.go:4-10  F"}, {file, "a/b.go:1-4  (file)"}, {oneLine, "a/b.go:8-8  x"}, {note, "memory:n1"}} {
		if got := c.it.Where("(file)"); got != c.want {
			t.Errorf("Where = %q, want %q", got, c.want)
		}
	}
}

// TestSymbolRangeInEncoding: an item that holds lines around its symbol
// says where the symbol lies, in the negotiated encoding.
func TestSymbolRangeInEncoding(t *testing.T) {
	encodings(t, func(t *testing.T, utf8 bool) {
		waveLine := "/* 👋 */ "
		ws, _ := openFolder(t, "wave.go", "package i18n\n\n"+waveLine+"func Wave() string { return \"👋\" }\n")
		sel, err := ws.Select(context.Background(), &workspace.SelectRequest{Query: "Wave"})
		if err != nil {
			t.Fatal(err)
		}
		res := wire.FromSelection(sel, utf8)
		if len(res.Items) != 1 || res.Items[0].Symbol != "Wave" {
			t.Fatalf("want Wave alone, got %+v", res.Items)
		}
		it := res.Items[0]
		if it.Range.Start != (wire.Position{}) {
			t.Errorf("range %+v: want it to start at the package clause, as the item takes in the lines around Wave", it.Range)
		}
		want := wire.Range{Start: wire.Position{Line: 2, Character: column(waveLine, utf8)}, End: wire.Position{Line: 2, Character: column(waveLine+"func Wave() string { return \"👋\" }", utf8)}}
		if it.SymbolRange == nil || *it.SymbolRange != want {
			t.Errorf("symbolRange %+v, want %+v", it.SymbolRange, want)
		}
	})
}

// TestEmptyAnswerWhileIndexing: an empty answer before the folder is
// indexed says ctxls is still indexing, not that nothing matches; once
// indexed, an off-topic question gets the no-match message.
func TestEmptyAnswerWhileIndexing(t *testing.T) {
	ws, _ := addFolder(t, "wave.go", "package i18n\n\nfunc Wave() string { return \"hi\" }\n")
	ctx := context.Background()
	res, err := wire.Select(ctx, ws, &wire.Request{Query: "Wave"}, wire.Options{})
	if err != nil || len(res.Items) != 0 || res.Stats.Ready || res.Message != wire.StillIndexing {
		t.Fatalf("before the index: %+v, %v; want no items, ready false and the still-indexing message", res, err)
	}
	if _, err := ws.Index(ctx, nil); err != nil {
		t.Fatal(err)
	}
	res, err = wire.Select(ctx, ws, &wire.Request{Query: "quarterly tax reconciliation ledger"}, wire.Options{})
	if err != nil || len(res.Items) != 0 || res.Message != wire.NoMatch {
		t.Fatalf("off-topic after the index: %+v, %v; want no items and the no-match message", res, err)
	}
}
