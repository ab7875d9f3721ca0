package lsp

import (
	"io"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"go.lsp.dev/jsonrpc2"

	"github.com/ctxls/ctxls/lsp/wire"
	"github.com/ctxls/ctxls/workspace/eval"
)

// itemsServer starts the ctxls binary on the context item workspace
// (testdata/items), with its notes in the cache and its tools registered
// in initializationOptions.
func itemsServer(t *testing.T) (*client, *eval.ItemSuite, string, []string) {
	t.Helper()
	const dir = "../testdata/items"
	suite, err := eval.LoadItemSuite(dir)
	if err != nil {
		t.Fatal(err)
	}
	root, cache := t.TempDir(), t.TempDir()
	if real, err := filepath.EvalSymlinks(root); err == nil {
		root = real
	}
	noteIDs, err := suite.Setup(dir, root, cache)
	if err != nil {
		t.Fatal(err)
	}
	c := processClient(t, io.Discard, "serve")
	c.mustCall("initialize", map[string]any{
		"processId":             nil,
		"rootUri":               wire.URIFromPath(root),
		"capabilities":          caps{}.json(),
		"initializationOptions": map[string]any{"cacheDir": cache, "tools": suite.Tools},
	}, nil)
	c.notify("initialized", map[string]any{})
	c.waitReady()
	return c, suite, root, noteIDs
}

// TestItemCasesOverLSP runs the context item cases against the server
// over its stdin and stdout: the same items as the workspace gives.
func TestItemCasesOverLSP(t *testing.T) {
	c, suite, root, noteIDs := itemsServer(t)
	defer c.shutdownExit()
	var failed []string
	for _, tc := range suite.Cases {
		params := map[string]any{"query": tc.Query}
		if tc.Active != "" {
			params["activeUri"] = uri(root, tc.Active)
		}
		if tc.Items != nil {
			params["items"] = tc.Items
		}
		if tc.IncludeItems != nil {
			params["includeItems"] = tc.IncludeItems
		}
		if tc.Retrieval != nil {
			params["retrieval"] = *tc.Retrieval
		}
		res := c.mustSelect(params)
		var ids, kinds []string
		for _, it := range res.Items {
			ids, kinds = append(ids, it.ID), append(kinds, it.Kind)
		}
		for _, p := range suite.Check(&tc, ids, kinds, noteIDs) {
			failed = append(failed, tc.Name+": "+p)
		}
		if tc.Name == "cent-off" {
			agents := res.Items[0]
			if agents.ID != "rule:AGENTS" || !slices.Equal(agents.Paths, []string{"AGENTS.md", "CLAUDE.md"}) ||
				agents.URI != uri(root, "AGENTS.md") || agents.Reason != "always" {
				t.Errorf("the first item is AGENTS.md's rule with both paths: %+v", agents)
			}
		}
	}
	sort.Strings(failed)
	for _, f := range failed {
		t.Error(f)
	}
}

// TestMemoryOverLSP remembers, lists and forgets notes through the
// server's requests, and a note remembered is selected by the next request.
func TestMemoryOverLSP(t *testing.T) {
	c, _, root, noteIDs := itemsServer(t)
	defer c.shutdownExit()
	var note wire.Note
	c.mustCall("workspace/contextRemember", map[string]any{
		"text":  "The sender's retry interval is configured in billing/sender.go, never in the outbox",
		"paths": []string{uri(root, "billing/sender.go")},
		"tags":  []string{"sender"},
	}, &note)
	if note.ID == "" || !slices.Equal(note.Paths, []string{"billing/sender.go"}) || note.Folder != wire.URIFromPath(root) || note.Created == "" {
		t.Fatalf("contextRemember answered %+v", note)
	}
	var list wire.MemoryResult
	c.mustCall("workspace/contextMemory", map[string]any{}, &list)
	if len(list.Notes) != len(noteIDs)+1 || list.Notes[len(list.Notes)-1].ID != note.ID {
		t.Errorf("contextMemory lists %d notes, the last %+v", len(list.Notes), list.Notes[len(list.Notes)-1])
	}
	res := c.mustSelect(map[string]any{"query": "change the retry interval of the sender"})
	if !slices.ContainsFunc(res.Items, func(it wire.Item) bool { return it.ID == "memory:"+note.ID && it.Kind == "memory" && it.URI == "" }) {
		t.Errorf("the new note is not selected:%s", res)
	}
	var forgot wire.ForgetResult
	c.mustCall("workspace/contextForget", map[string]any{"id": note.ID}, &forgot)
	if !forgot.Forgotten {
		t.Errorf("contextForget did not forget %s", note.ID)
	}
	c.mustCall("workspace/contextForget", map[string]any{"id": note.ID}, &forgot)
	if forgot.Forgotten {
		t.Errorf("forgot %s twice", note.ID)
	}
	res = c.mustSelect(map[string]any{"query": "change the retry interval of the sender"})
	if slices.ContainsFunc(res.Items, func(it wire.Item) bool { return it.ID == "memory:"+note.ID }) {
		t.Errorf("a forgotten note is still selected")
	}

	// Bad input: InvalidParams naming the field, and the server goes on.
	for _, tc := range []struct {
		method string
		params map[string]any
		want   string
	}{
		{"workspace/contextRemember", map[string]any{"text": " "}, "text: must not be empty"},
		{"workspace/contextRemember", map[string]any{"text": "x", "paths": []string{"billing/sender.go"}}, "paths[0]"},
		{"workspace/contextRemember", map[string]any{"text": "x", "paths": []string{"file:///etc/passwd"}}, "paths[0]"},
		{"workspace/contextRemember", map[string]any{"text": "x", "tags": make([]string, 100_000)}, "tags: at most 32 tags (MaxNoteTags), got 100000"},
		{"workspace/contextRemember", map[string]any{"text": strings.Repeat("日", 4001)}, "text: must be at most 4000 characters (MaxNoteChars), got 4001"},
		{"workspace/contextRemember", map[string]any{"text": "x", "paths": make([]string, 65)}, "paths: at most 64 paths (MaxNotePaths)"},
		{"workspace/contextForget", map[string]any{}, "id: must not be empty"},
		{"workspace/contextSelect", map[string]any{"query": "x", "items": []string{"nope"}}, `items[0]: no context item named "nope"`},
		{"workspace/contextSelect", map[string]any{"query": "x", "includeItems": "yes"}, "includeItems: expected a boolean or an object"},
		{"workspace/contextSelect", map[string]any{"query": "x", "includeItems": map[string]any{"rules": false}}, `unknown item kind "rules"`},
		{"workspace/contextSelect", map[string]any{"query": "x", "itemShare": 2}, "itemShare"},
	} {
		err := c.call(tc.method, tc.params, nil)
		if rpcCode(err) != jsonrpc2.InvalidParams || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s %v: got %v, want InvalidParams saying %q", tc.method, tc.params, err, tc.want)
		}
	}

	// Tools registered later, by didChangeConfiguration, are items too.
	c.notify("workspace/didChangeConfiguration", map[string]any{"settings": map[string]any{"ctxls": map[string]any{
		"tools": []map[string]any{{"name": "grep_logs", "description": "Search the production logs for a request id"}},
	}}})
	res = c.mustSelect(map[string]any{"query": "search the production logs for request id 42"})
	if !slices.ContainsFunc(res.Items, func(it wire.Item) bool { return it.ID == "tool:grep_logs" && it.Reason == "agent" }) {
		t.Errorf("the tool registered by the new settings is not selected:%s", res)
	}
}

// TestRulesRefreshOverLSP: the server answers a rule file as it was
// indexed until the client tells it the file changed (a watched-file
// event, a save); an open rule file's unsaved text wins, and closing it
// brings back the file on disk.
func TestRulesRefreshOverLSP(t *testing.T) {
	c, _, root, _ := itemsServer(t)
	defer c.shutdownExit()
	agents := func() wire.Item {
		t.Helper()
		res := c.mustSelect(map[string]any{"query": "format with gofmt", "items": []string{"rule:AGENTS"}})
		for _, it := range res.Items {
			if it.ID == "rule:AGENTS" {
				return it
			}
		}
		t.Fatalf("no rule:AGENTS:%s", res)
		return wire.Item{}
	}
	indexed := agents().Text
	if !strings.Contains(indexed, "gofmt") {
		t.Fatalf("the indexed AGENTS.md: %q", indexed)
	}

	// Changed on disk, no event: the select does not read the file.
	const onDisk = "# Working on ledger\n\nAmounts are integer cents.\n"
	writeFile(t, filepath.Join(root, "AGENTS.md"), onDisk)
	if got := agents().Text; got != indexed {
		t.Errorf("with no event the server answers the indexed rule, got %q", got)
	}
	c.notify("workspace/didChangeWatchedFiles", map[string]any{"changes": []any{map[string]any{"uri": uri(root, "AGENTS.md"), "type": 2}}})
	if it := agents(); it.Text != onDisk || !slices.Equal(it.Paths, []string{"AGENTS.md"}) {
		t.Errorf("after the watched-file event: %q at %q", it.Text, it.Paths)
	}

	// An unsaved edit wins; a save reads CLAUDE.md again; closing the
	// unsaved document brings back the file on disk.
	didOpen(c, root, "AGENTS.md", "Unsaved: every amount is in cents.\n")
	if got := agents().Text; got != "Unsaved: every amount is in cents.\n" {
		t.Errorf("the open document's text wins: %q", got)
	}
	writeFile(t, filepath.Join(root, "CLAUDE.md"), onDisk)
	c.notify("textDocument/didSave", map[string]any{"textDocument": map[string]any{"uri": uri(root, "CLAUDE.md")}})
	c.notify("textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": uri(root, "AGENTS.md")}})
	if it := agents(); it.Text != onDisk || !slices.Equal(it.Paths, []string{"AGENTS.md", "CLAUDE.md"}) {
		t.Errorf("after the save and the close: %q at %q", it.Text, it.Paths)
	}
}
