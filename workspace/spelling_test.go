package workspace

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/ctxls/ctxls/heuristics/spelling"
)

// mailbox is a Go package that writes "receive" in every file, and once,
// in a comment of queue.go's Drain, "recieve"; platform code names macOS
// in four files and "MacOS" once, in paths.go's ConfigDir.
func mailbox() string {
	var b strings.Builder
	b.WriteString("-- go.mod --\nmodule example.com/mailbox\n\ngo 1.22\n")
	for i, name := range []string{"inbox", "outbox", "socket", "relay", "filter", "store", "notify", "client"} {
		fmt.Fprintf(&b, "-- %s.go --\npackage mailbox\n\n// Receive%d waits to receive a message: receive blocks until one comes, and every receive counts.\nfunc Receive%d(ch chan string) string {\n\t// receive the message\n\treturn <-ch\n}\n\n// Send%d sends a message to whoever waits to receive it.\nfunc Send%d(ch chan string, m string) { ch <- m }\n", name, i, i, i, i)
	}
	b.WriteString("-- queue.go --\npackage mailbox\n\n// Queue holds messages in order.\ntype Queue struct{ items []string }\n\n// Push adds a message at the back.\nfunc (q *Queue) Push(m string) { q.items = append(q.items, m) }\n\n// Drain empties the queue.\nfunc (q *Queue) Drain() []string {\n\t// hand every message to whoever waits to recieve it\n\tout := q.items\n\tq.items = nil\n\treturn out\n}\n")
	for _, name := range []string{"home", "cache", "temp", "trash"} {
		fmt.Fprintf(&b, "-- %s.go --\npackage mailbox\n\n// %sDir is the %s folder: on macOS under Library, on macOS and Linux the same name, macOS first.\nfunc %sDir() string { return %q }\n", name, strings.Title(name), name, strings.Title(name), name)
	}
	b.WriteString("-- paths.go --\npackage mailbox\n\n// ConfigDir is where settings live.\nfunc ConfigDir() string {\n\t// MacOS keeps them under Application Support\n\treturn \"config\"\n}\n")
	return b.String()
}

// A request to fix typos ranks first the symbol whose comment holds the
// word the workspace writes once, a letter from one it writes many times,
// and says so; a request that names the right spelling ranks first the
// holder of its variant; a request that asks for no spelling is left as it
// was.
func TestSelectSpellingFindsMisspelledWords(t *testing.T) {
	ws, root := selOpen(t, mailbox(), Options{})
	res := selDo(t, ws, &SelectRequest{Query: "chore: fix some typos in comments", Limit: 10})
	if len(res.Items) == 0 || res.Items[0].ID != "sym:queue.go::Queue.Drain" {
		t.Fatalf("fix typos: first is not Drain, which writes recieve: %q", selIDs(res))
	}
	if why := res.Items[0].Why; !strings.Contains(why, "`recieve`, two letters swapped from `receive` (") || !strings.Contains(why, "your request asks about spelling") {
		t.Errorf("Drain's why does not name the word: %q", why)
	}
	res = selDo(t, ws, &SelectRequest{Query: "docs: fix macOS spelling in a comment", Limit: 10})
	if len(res.Items) == 0 || res.Items[0].ID != "sym:paths.go::ConfigDir" {
		t.Fatalf("fix macOS spelling: first is not ConfigDir, which writes MacOS: %q", selIDs(res))
	}
	if why := res.Items[0].Why; !strings.Contains(why, "`MacOS`, a variant of `macOS`, which your request names") {
		t.Errorf("ConfigDir's why does not name the variant: %q", why)
	}
	for _, q := range []string{"hand every message to whoever waits", "Warn about common option misspellings"} {
		for _, it := range selDo(t, ws, &SelectRequest{Query: q, Limit: 10}).Items {
			if it.Signals["spelling"].Rank > 0 {
				t.Errorf("%q: %s ranked by spelling", q, it.ID)
			}
		}
	}
	// The editor's unsaved text is the one read: fixed there, Drain holds
	// no misspelled word, and the relay file's new one is found.
	selEdit(t, ws, root, "relay.go", func(disk string) string {
		return strings.Replace(disk, "// receive the message", "// recieve the message", 1)
	})
	res = selDo(t, ws, &SelectRequest{Query: "fix typo", Limit: 10})
	if len(res.Items) == 0 || res.Items[0].ID != "sym:relay.go::Receive3" && res.Items[0].ID != "sym:queue.go::Queue.Drain" {
		t.Errorf("fix typo with relay.go's unsaved recieve: first is %q", selIDs(res))
	}
	if it := selFind(res, "sym:relay.go::Receive3"); it == nil || it.Signals["spelling"].Rank == 0 {
		t.Errorf("Receive3, whose unsaved text writes recieve, is not ranked by spelling: %q", selIDs(res))
	}
}

// Asked again, a request to fix typos finds what it found (the folder's
// words are counted once) until an edit fixes it: the editor's unsaved
// text is counted in place of the file's.
func TestSelectSpellingAskedAgainAfterAnEdit(t *testing.T) {
	ws, root := selOpen(t, mailbox(), Options{})
	req := &SelectRequest{Query: "chore: fix some typos in comments", Limit: 10}
	var wg sync.WaitGroup
	for range 3 { // at once: the folder's words are counted by one of them
		wg.Add(1)
		go func() {
			defer wg.Done()
			if res, err := ws.Select(context.Background(), req); err != nil || len(res.Items) == 0 || res.Items[0].ID != "sym:queue.go::Queue.Drain" {
				t.Errorf("fix typos: first is not Drain, which writes recieve (%v)", err)
			}
		}()
	}
	wg.Wait()
	selEdit(t, ws, root, "queue.go", func(disk string) string { return strings.Replace(disk, "recieve", "receive", 1) })
	for _, it := range selDo(t, ws, req).Items {
		if it.Signals["spelling"].Rank > 0 {
			t.Errorf("after the fix, %s is ranked by spelling: %s", it.ID, it.Why)
		}
	}
}

// A request that names the file of its typos keeps to that file; one to
// clean up non-ASCII characters ranks the code whose comment writes an em
// dash, not the code whose strings draw boxes.
func TestSelectSpellingNamedFileAndNonASCII(t *testing.T) {
	arch := mailbox() + "-- border.go --\npackage mailbox\n\n// Border draws the frame.\nfunc Border() string { return \"┌──┐│└┘é\" }\n" +
		"-- ansi.go --\npackage mailbox\n\n// Style parses a style.\nfunc Style(s string) string {\n\t// SGR 4:N — underline style\n\treturn s\n}\n"
	ws, _ := selOpen(t, arch, Options{})
	res := selDo(t, ws, &SelectRequest{Query: "chore: fix typos in inbox.go", Limit: 10})
	for _, it := range res.Items {
		if it.Signals["spelling"].Rank > 0 && !strings.HasPrefix(it.ID, "sym:inbox.go::") {
			t.Errorf("fix typos in inbox.go: %s ranked by spelling", it.ID)
		}
	}
	res = selDo(t, ws, &SelectRequest{Query: "Clean up non-ascii characters", Limit: 10})
	if len(res.Items) == 0 || res.Items[0].ID != "sym:ansi.go::Style" {
		t.Fatalf("clean up non-ascii: first is not Style, whose comment writes an em dash: %q", selIDs(res))
	}
	if why := res.Items[0].Why; !strings.Contains(why, "holds `—`, a character outside ASCII") {
		t.Errorf("Style's why does not name the character: %q", why)
	}
	if it := selFind(res, "sym:border.go::Border"); it != nil && it.Signals["spelling"].Rank > 0 {
		t.Errorf("Border, whose string draws a box, is ranked by spelling")
	}
}

// BenchmarkSelectSpelling: a request to fix typos in a package of 1,000
// files of 60 lines each (2.7 MB), whose vocabulary the spelling source
// reads whole, against the same request without its marker: asked again
// (typos: the folder's words are counted) and first (first: counted
// afresh each time).
func BenchmarkSelectSpelling(b *testing.B) {
	var a strings.Builder
	a.WriteString("-- go.mod --\nmodule example.com/handlers\n\ngo 1.22\n")
	for i := range 1000 {
		fmt.Fprintf(&a, "-- h%04d.go --\npackage handlers\n\n// Handle%04d is a handler of requests: it receives the request, parses its header and writes the response.\nfunc Handle%04d(run func() error) error {\n", i, i, i)
		for j := range 18 {
			fmt.Fprintf(&a, "\t// step %d of handler %d validates the request's parameters%d\n\tif err := run(); err != nil {\n\t\treturn fmt.Errorf(\"handler%d: %%w\", err)\n\t}\n", j, i, j, i)
		}
		a.WriteString("\treturn nil\n}\n")
	}
	ws, _ := selOpen(b, a.String(), Options{})
	for _, name := range []string{"typos", "words", "first"} {
		q := map[string]string{"typos": "Fix typos in the request handlers", "words": "Fix the request handlers", "first": "Fix typos in the request handlers"}[name]
		b.Run(name, func(b *testing.B) {
			req := &SelectRequest{Query: q, Limit: 10}
			for range b.N {
				if name == "first" {
					f := ws.folders[0]
					f.mu.Lock()
					f.words = spelling.NewCache()
					f.mu.Unlock()
				}
				selDo(b, ws, req)
			}
		})
	}
}

// A comment a blank line above a symbol is not its doc comment, in a file
// of CRLF lines as in one of LF lines: the symbol is not ranked for the
// word the comment misspells.
func TestSelectSpellingCRLFBlankLine(t *testing.T) {
	queue := "package mailbox\n\n// Queue holds messages in order.\ntype Queue struct{ items []string }\n\n" +
		"// Messages that wait to recieve are kept in order.\n\n" +
		"// Drain empties the queue.\nfunc (q *Queue) Drain() []string {\n\tout := q.items\n\tq.items = nil\n\treturn out\n}\n"
	for _, eol := range []string{"\n", "\r\n"} {
		arch := strings.Replace(mailbox(), "-- queue.go --", "-- old.go --", 1) + "-- queue.go --\n" + strings.ReplaceAll(queue, "\n", eol)
		ws, _ := selOpen(t, arch, Options{})
		res := selDo(t, ws, &SelectRequest{Query: "chore: fix some typos in comments", Limit: 10})
		if it := selFind(res, "sym:queue.go::Queue.Drain"); it != nil && it.Signals["spelling"].Rank > 0 {
			t.Errorf("%q lines: Drain is ranked for the comment a blank line above it: %s", eol, it.Why)
		}
	}
}

// A request that names the file of its typos, a file of no folder, ranks
// nothing for spelling: the typos it means are not the workspace's. A
// commit's scope names no file.
func TestSelectSpellingNamesAFileElsewhere(t *testing.T) {
	ws, _ := selOpen(t, mailbox(), Options{})
	res := selDo(t, ws, &SelectRequest{Query: "chore(tests): fix some typos in comments", Limit: 10})
	if len(res.Items) == 0 || res.Items[0].ID != "sym:queue.go::Queue.Drain" {
		t.Errorf("chore(tests): fix typos: first is not Drain, which writes recieve: %q", selIDs(res))
	}
	for _, q := range []string{"chore: fix typos in ../notes/todo.go", "fix typos in docs/guide/missing.go"} {
		for _, it := range selDo(t, ws, &SelectRequest{Query: q, Limit: 10}).Items {
			if it.Signals["spelling"].Rank > 0 {
				t.Errorf("%q: %s ranked by spelling: %s", q, it.ID, it.Why)
			}
		}
	}
}

// A word the docs alone write makes no right word: a site's translations
// write words of other languages and its examples made-up ones, of which
// the code's words are no misspelling.
func TestSelectSpellingDocsOnlyWordIsNoRightWord(t *testing.T) {
	arch := mailbox() + "-- docs/fr/guide.md --\n# Guide\n\n" + strings.Repeat("Un nom propre, le dooing du serveur.\n", 8) +
		"-- worker.go --\npackage mailbox\n\n// Work keeps doing the proper thing.\nfunc Work() {}\n"
	ws, _ := selOpen(t, arch, Options{})
	res := selDo(t, ws, &SelectRequest{Query: "chore: fix some typos in comments", Limit: 10})
	if it := selFind(res, "sym:worker.go::Work"); it != nil && it.Signals["spelling"].Rank > 0 {
		t.Errorf("Work is ranked for a word only the docs write otherwise: %s", it.Why)
	}
	if len(res.Items) == 0 || res.Items[0].ID != "sym:queue.go::Queue.Drain" {
		t.Errorf("fix typos: first is not Drain, which writes recieve: %q", selIDs(res))
	}
}
