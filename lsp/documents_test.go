package lsp

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"unicode/utf16"
	"unicode/utf8"

	"go.lsp.dev/jsonrpc2"
)

// lspPos is an LSP position in the wire's encoding.
type lspPos struct {
	Line      int `json:"line"`
	Character int `json:"character"`
}

// posOf returns the position of byte offset off in text, counting
// characters in UTF-16 code units, or bytes when utf8Units is set.
func posOf(text string, off int, utf8Units bool) lspPos {
	line := strings.Count(text[:off], "\n")
	start := strings.LastIndex(text[:off], "\n") + 1
	col := off - start
	if !utf8Units {
		col = len(utf16.Encode([]rune(text[start:off])))
	}
	return lspPos{line, col}
}

// change is one incremental content change.
func change(text string, start, end int, newText string, utf8Units bool) map[string]any {
	return map[string]any{
		"range": map[string]any{"start": posOf(text, start, utf8Units), "end": posOf(text, end, utf8Units)},
		"text":  newText,
	}
}

func didOpen(c *client, root, rel, text string) {
	c.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{
		"uri": uri(root, rel), "languageId": "", "version": 1, "text": text,
	}})
}

func didChange(c *client, root, rel string, version int, changes ...map[string]any) {
	c.notify("textDocument/didChange", map[string]any{
		"textDocument":   map[string]any{"uri": uri(root, rel), "version": version},
		"contentChanges": changes,
	})
}

// TestUnsavedEditComesFirst: the user edits a function body without
// saving and asks a vague question; the edited function is the answer.
func TestUnsavedEditComesFirst(t *testing.T) {
	root := writeFixture(t, "shop.txtar")
	c := pipeClient(t, nil)
	c.start(root, caps{})
	before := c.mustSelect(map[string]any{"query": "fix that"})

	text := readFile(t, filepath.Join(root, "cart/cart.go"))
	didOpen(c, root, "cart/cart.go", text)
	off := strings.Index(text, "total * 75 / 100")
	edit := "total * 70 / 100"
	didChange(c, root, "cart/cart.go", 2, change(text, off, off+len(edit), edit, false))
	// Make another file active afterwards: the edit, not the focus, must
	// carry the function.
	c.notify("ctxls/didFocus", map[string]any{"uri": uri(root, "inventory/stock.go")})

	res := c.mustSelect(map[string]any{"query": "fix that"})
	if len(res.Items) == 0 || res.Items[0].Symbol != "applyDiscount" {
		t.Fatalf("after editing applyDiscount, \"fix that\" selects:%s", res)
	}
	if !strings.Contains(res.Items[0].Text, edit) {
		t.Errorf("the item shows the text on disk, not the unsaved edit:\n%s", res.Items[0].Text)
	}
	if before.Stats.Reembedded == nil || res.Stats.Reembedded == nil {
		t.Fatal("stats.reembedded is missing")
	}
	if n := *res.Stats.Reembedded - *before.Stats.Reembedded; n < 1 || n > 2 {
		t.Errorf("a one-function edit re-embedded %d symbols, want 1 (the function; at most its file too)", n)
	}

	// Closing the document goes back to the disk text.
	c.notify("textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": uri(root, "cart/cart.go")}})
	res = c.mustSelect(map[string]any{"query": "apply discount code percentage"})
	i := res.find("cart/cart.go", "applyDiscount")
	if i < 0 || strings.Contains(res.Items[i].Text, edit) || !strings.Contains(res.Items[i].Text, "total * 75 / 100") {
		t.Errorf("after didClose applyDiscount should show the disk text:%s", res)
	}
}

// TestActiveFileLocality: two packages have a helper of the same name; the
// one in the package the user is looking at wins.
func TestActiveFileLocality(t *testing.T) {
	root := writeFixture(t, "locality.txtar")
	c := pipeClient(t, nil)
	c.start(root, caps{})
	for _, tc := range []struct{ focus, want string }{
		{"billing/invoice.go", "billing/normalize.go"},
		{"shipping/label.go", "shipping/normalize.go"},
		{"billing/invoice.go", "billing/normalize.go"},
	} {
		c.notify("ctxls/didFocus", map[string]any{"uri": uri(root, tc.focus), "position": lspPos{9, 2}})
		res := c.mustSelect(map[string]any{"query": "normalize the input string"})
		first := -1
		for i, it := range res.Items {
			if it.Symbol == "normalize" {
				first = i
				break
			}
		}
		if first < 0 || res.Items[first].Path != tc.want {
			t.Errorf("focused on %s, the first normalize should be %s:%s", tc.focus, tc.want, res)
		}
	}
	// An explicit activeUri overrides the focus.
	res := c.mustSelect(map[string]any{"query": "normalize the input string", "activeUri": uri(root, "shipping/label.go")})
	for _, it := range res.Items {
		if it.Symbol == "normalize" {
			if it.Path != "shipping/normalize.go" {
				t.Errorf("activeUri shipping/label.go, first normalize is %s", it.Path)
			}
			break
		}
	}
}

// TestWatchedFiles: files created and deleted on disk, announced by the
// client's watcher, enter and leave the results.
func TestWatchedFiles(t *testing.T) {
	root := writeFixture(t, "shop.txtar")
	c := pipeClient(t, nil)
	c.start(root, caps{watch: true})
	query := map[string]any{"query": "compute the shipping quote for a parcel"}
	if res := c.mustSelect(query); res.find("cart/shipping.go", "ComputeShippingQuote") >= 0 {
		t.Fatal("ComputeShippingQuote found before it exists")
	}

	path := filepath.Join(root, "cart/shipping.go")
	writeFile(t, path, "package cart\n\n// ComputeShippingQuote prices a parcel by weight.\nfunc ComputeShippingQuote(grams int) int {\n\treturn 499 + grams/100\n}\n")
	c.notify("workspace/didChangeWatchedFiles", map[string]any{"changes": []any{map[string]any{"uri": uri(root, "cart/shipping.go"), "type": 1}}})
	res := c.mustSelect(query)
	if i := res.find("cart/shipping.go", "ComputeShippingQuote"); i != 0 {
		t.Fatalf("a created file's function should come first:%s", res)
	}
	files := res.Stats.Files

	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	c.notify("workspace/didChangeWatchedFiles", map[string]any{"changes": []any{map[string]any{"uri": uri(root, "cart/shipping.go"), "type": 3}}})
	res = c.mustSelect(query)
	if res.find("cart/shipping.go", "ComputeShippingQuote") >= 0 {
		t.Errorf("a deleted file's function is still selected:%s", res)
	}
	if res.Stats.Files != files-1 {
		t.Errorf("stats.files %d after deleting one of %d", res.Stats.Files, files)
	}
}

// TestPositionEncodings: an edit after an emoji on the same line lands in
// the same place whether the client counts UTF-16 units or UTF-8 bytes.
func TestPositionEncodings(t *testing.T) {
	for _, enc := range []string{"utf-16", "utf-8"} {
		t.Run(enc, func(t *testing.T) {
			root := writeFixture(t, "shop.txtar")
			text := "package cart\n\n// Greeting welcomes a shopper.\nfunc Greeting() string {\n\tmsg := \"héllo 😀 shopper\"; count := 1\n\treturn fmt.Sprint(msg, count)\n}\n"
			writeFile(t, filepath.Join(root, "cart/greeting.go"), text)
			c := pipeClient(t, nil)
			var offered []string
			if enc == "utf-8" {
				offered = []string{"utf-8", "utf-16"}
			}
			res := c.start(root, caps{encodings: offered})
			if res.Capabilities.PositionEncoding != enc {
				t.Fatalf("positionEncoding %q, want %q", res.Capabilities.PositionEncoding, enc)
			}
			didOpen(c, root, "cart/greeting.go", text)
			off := strings.Index(text, "count := 1") + len("count := ")
			didChange(c, root, "cart/greeting.go", 2, change(text, off, off+1, "42", enc == "utf-8"))
			sel := c.mustSelect(map[string]any{"query": "greeting welcomes a shopper"})
			i := sel.find("cart/greeting.go", "Greeting")
			if i < 0 {
				t.Fatalf("Greeting not selected:%s", sel)
			}
			it := sel.Items[i]
			if !strings.Contains(it.Text, "\"héllo 😀 shopper\"; count := 42\n") {
				t.Errorf("the edit landed in the wrong place:\n%s", it.Text)
			}
			// The item's range is in the negotiated encoding too: it
			// starts at the doc comment (line 2) or above it and ends
			// after the last character of the file, "}".
			if it.Range.Start.Line > 2 || it.Range.End.Line != 6 || it.Range.End.Character != 1 {
				t.Errorf("range %+v, want lines from 2 or before to 6, ending at character 1", it.Range)
			}
		})
	}
}

// TestIncrementalEditsMatchFreshIndex: after any random sequence of
// incremental edits the index's Merkle root equals the root of a fresh
// `ctxls index` of the same final content.
func TestIncrementalEditsMatchFreshIndex(t *testing.T) {
	files := []string{"cart/cart.go", "web/checkout.ts", "scripts/report.py"}
	snippets := []string{"", "x", "\n", "}", "{", "func extra() int {\n\treturn 7\n}\n", "def more():\n    return 1\n",
		"é", "😀", "total", "  ", "// note\n", "class Z {}\n", "return nil\n", "\"", "ü😀\n"}
	for seed := int64(1); seed <= 4; seed++ {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			r := rand.New(rand.NewSource(seed))
			root := writeFixture(t, "shop.txtar")
			utf8Units := seed%2 == 0
			var offered []string
			if utf8Units {
				offered = []string{"utf-8"}
			}
			c := pipeClient(t, nil)
			c.start(root, caps{encodings: offered})
			texts := map[string]string{}
			versions := map[string]int{}
			for _, f := range files {
				texts[f] = readFile(t, filepath.Join(root, f))
				didOpen(c, root, f, texts[f])
				versions[f] = 1
			}
			var wg sync.WaitGroup
			for step := 0; step < 60; step++ {
				f := files[r.Intn(len(files))]
				text := texts[f]
				var changes []map[string]any
				n := 1 + r.Intn(3)
				for k := 0; k < n; k++ {
					if r.Intn(15) == 0 {
						// A full-text change now and then.
						text = text + "\n// appended " + fmt.Sprint(step) + "\n"
						changes = append(changes, map[string]any{"text": text})
						continue
					}
					a, b := runeOffset(r, text), runeOffset(r, text)
					if b < a {
						a, b = b, a
					}
					if b-a > 40 {
						b = a + 40
						for !utf8.RuneStart(text[b]) {
							b--
						}
					}
					s := snippets[r.Intn(len(snippets))]
					changes = append(changes, change(text, a, b, s, utf8Units))
					text = text[:a] + s + text[b:]
				}
				texts[f] = text
				versions[f]++
				didChange(c, root, f, versions[f], changes...)
				if step%5 == 4 {
					// Selections running concurrently with the edits must
					// neither disturb them nor race with them.
					wg.Add(1)
					go func() {
						defer wg.Done()
						if _, err := c.selectq(map[string]any{"query": "fix that", "activeUri": uri(root, f)}); err != nil {
							t.Errorf("select during edits: %v", err)
						}
					}()
				}
			}
			wg.Wait()
			live := c.mustSelect(map[string]any{"query": "fix that"}).Stats.MerkleRoot

			fresh := t.TempDir()
			copyTree(t, root, fresh)
			for f, text := range texts {
				writeFile(t, filepath.Join(fresh, f), text)
			}
			out, err := exec.Command(ctxlsBin, "index", "--root", fresh, "--json", "--cache-dir", "off").Output()
			if err != nil {
				t.Fatalf("ctxls index: %v", err)
			}
			var stats struct {
				MerkleRoot string `json:"merkleRoot"`
			}
			if err := json.Unmarshal(out, &stats); err != nil {
				t.Fatalf("ctxls index --json: %v\n%s", err, out)
			}
			if live != stats.MerkleRoot || live == "" {
				t.Errorf("Merkle root after edits %q, fresh index of the same content %q", live, stats.MerkleRoot)
			}
		})
	}
}

// runeOffset is a random byte offset in text on a rune boundary.
func runeOffset(r *rand.Rand, text string) int {
	if text == "" {
		return 0
	}
	off := r.Intn(len(text) + 1)
	for off < len(text) && !utf8.RuneStart(text[off]) {
		off--
	}
	return off
}

func copyTree(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(from, path)
		if err != nil {
			return err
		}
		writeFile(t, filepath.Join(to, rel), readFile(t, path))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestConfigurationChange: new settings re-index with the new excludes;
// bad settings are refused with a message naming the field.
func TestConfigurationChange(t *testing.T) {
	root := writeFixture(t, "shop.txtar")
	c := pipeClient(t, nil)
	c.start(root, caps{})
	query := map[string]any{"query": "build the sales report"}
	if res := c.mustSelect(query); res.find("scripts/report.py", "build_sales_report") < 0 {
		t.Fatalf("build_sales_report not selected:%s", res)
	}

	c.notify("workspace/didChangeConfiguration", map[string]any{"settings": map[string]any{"ctxls": map[string]any{"exclude": []string{"scripts/**"}}}})
	waitFor(t, func() bool {
		return c.mustSelect(query).find("scripts/report.py", "build_sales_report") < 0
	}, "the excluded Python report to leave the index")

	// Settings given as the object itself are accepted too.
	c.notify("workspace/didChangeConfiguration", map[string]any{"settings": map[string]any{"exclude": []string{}}})
	waitFor(t, func() bool {
		return c.mustSelect(query).find("scripts/report.py", "build_sales_report") >= 0
	}, "the Python report to come back")

	c.notify("workspace/didChangeConfiguration", map[string]any{"settings": map[string]any{"ctxls": map[string]any{"maxFileBytes": "big"}}})
	m := c.waitMessage("a warning about bad settings", func(m message) bool {
		return m.Method == "window/showMessage" && strings.Contains(string(m.Params), "maxFileBytes")
	})
	if !strings.Contains(string(m.Params), `"type":2`) {
		t.Errorf("bad settings: %s, want a warning", m.Params)
	}
	if res := c.mustSelect(query); res.find("scripts/report.py", "build_sales_report") < 0 {
		t.Errorf("bad settings disturbed the index:%s", res)
	}
}

// TestWorkspaceFoldersChange: an added folder is indexed, a removed one
// leaves the results.
func TestWorkspaceFoldersChange(t *testing.T) {
	shop := writeFixture(t, "shop.txtar")
	other := writeFixture(t, "locality.txtar")
	c := pipeClient(t, nil)
	c.start(shop, caps{})
	query := map[string]any{"query": "print an address label"}
	added := map[string]any{"uri": uri(other, ""), "name": "other"}
	c.notify("workspace/didChangeWorkspaceFolders", map[string]any{"event": map[string]any{"added": []any{added}, "removed": []any{}}})
	waitFor(t, func() bool {
		res := c.mustSelect(query)
		return res.Stats.Ready && res.find("shipping/label.go", "PrintLabel") >= 0
	}, "the added folder's PrintLabel")

	c.notify("workspace/didChangeWorkspaceFolders", map[string]any{"event": map[string]any{"added": []any{}, "removed": []any{added}}})
	if res := c.mustSelect(query); res.find("shipping/label.go", "PrintLabel") >= 0 {
		t.Errorf("a removed folder is still selected:%s", res)
	}
}

// TestOutsideDocuments: documents outside the folders are ignored; a
// select naming one as activeUri is refused.
func TestOutsideDocuments(t *testing.T) {
	root := writeFixture(t, "shop.txtar")
	elsewhere := t.TempDir()
	writeFile(t, filepath.Join(elsewhere, "notes.go"), "package notes\n\nfunc ReserveStock() {}\n")
	c := pipeClient(t, nil)
	c.start(root, caps{})
	didOpen(c, elsewhere, "notes.go", "package notes\n\nfunc ReserveStock() {}\n")
	c.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": "untitled:Untitled-1", "version": 1, "text": "hello"}})
	res := c.mustSelect(map[string]any{"query": "reserve stock"})
	for _, it := range res.Items {
		if strings.Contains(it.URI, "notes.go") {
			t.Errorf("a document outside the workspace was indexed: %s", it.URI)
		}
	}
	err := c.call("workspace/contextSelect", map[string]any{"query": "reserve stock", "activeUri": uri(elsewhere, "notes.go")}, nil)
	if rpcCode(err) != jsonrpc2.InvalidParams || !strings.Contains(err.Error(), "activeUri") {
		t.Errorf("activeUri outside the workspace: %v, want InvalidParams naming activeUri", err)
	}
}

// waitFor polls cond until it holds.
func waitFor(t *testing.T, cond func() bool, what string) {
	t.Helper()
	for i := 0; i < 3000; i++ {
		if cond() {
			return
		}
		sleepBriefly()
	}
	t.Fatalf("timed out waiting for %s", what)
}
