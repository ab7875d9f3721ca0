package mcp

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ctxls/ctxls/workspace"
	"github.com/ctxls/ctxls/workspace/txtartest"
)

const testTimeout = 60 * time.Second

// fixture writes testdata/workspaces/name.txtar into a fresh directory.
func fixture(t *testing.T, name string) string {
	t.Helper()
	return fixtureFile(t, filepath.Join("..", "..", "testdata", "workspaces", name+".txtar"))
}

// fixtureFile writes the txtar archive at path into a fresh directory.
func fixtureFile(t *testing.T, path string) string {
	t.Helper()
	return txtartest.DirFromFile(t, path)
}

func write(t *testing.T, path, text string) {
	t.Helper()
	txtartest.WriteFile(t, path, []byte(text))
}

func testConfig() workspace.Config {
	cfg := workspace.DefaultConfig()
	cfg.CacheDir = "off"
	return cfg
}

// connect runs a server over roots and returns a client session to it,
// the way an agent connects (in memory instead of a pipe).
func connect(t *testing.T, roots ...string) *sdk.ClientSession {
	t.Helper()
	srv, err := New(Options{Version: "test", Roots: roots, Config: testConfig(), Debounce: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	st, ct := sdk.NewInMemoryTransports()
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx, st) }()
	client := sdk.NewClient(&sdk.Implementation{Name: "test-agent", Version: "1"}, nil)
	cs, err := client.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
	})
	return cs
}

func call(t *testing.T, cs *sdk.ClientSession, tool string, args map[string]any) *sdk.CallToolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	return res
}

func text(res *sdk.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// waitReady polls index_status until the index is ready.
func waitReady(t *testing.T, cs *sdk.ClientSession) {
	t.Helper()
	deadline := time.Now().Add(testTimeout)
	for time.Now().Before(deadline) {
		var st StatusOutput
		decode(t, call(t, cs, "index_status", nil), &st)
		if st.Ready {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatal("the index never became ready")
}

func decode(t *testing.T, res *sdk.CallToolResult, v any) {
	t.Helper()
	if res.IsError {
		t.Fatalf("tool error: %s", text(res))
	}
	data, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatal(err)
	}
}

func TestTools(t *testing.T) {
	cs := connect(t, fixture(t, "shop"))
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	list, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]*sdk.Tool{}
	for _, tool := range list.Tools {
		got[tool.Name] = tool
	}
	for _, name := range []string{"select_context", "explain_selection", "index_status"} {
		tool := got[name]
		if tool == nil {
			t.Fatalf("tools/list has no %s: %v", name, list.Tools)
		}
		if tool.Description == "" || tool.Annotations == nil || !tool.Annotations.ReadOnlyHint {
			t.Errorf("%s: want a description and readOnlyHint, got %+v", name, tool)
		}
	}
	schema, _ := json.Marshal(got["select_context"].InputSchema)
	for _, want := range []string{`"required":["query"]`, `"activeFile"`, `"cursorLine"`, `"maxChars"`, `"kinds"`, `1-based line`} {
		if !strings.Contains(string(schema), want) {
			t.Errorf("select_context's input schema lacks %s: %s", want, schema)
		}
	}
}

func TestSelectContext(t *testing.T) {
	root := fixture(t, "shop")
	cs := connect(t, root)
	waitReady(t, cs)

	res := call(t, cs, "select_context", map[string]any{"query": "expired coupon codes are still accepted at checkout", "limit": 5})
	var out SelectOutput
	decode(t, res, &out)
	found := false
	for _, it := range out.Items {
		found = found || it.Path == "internal/cart/pricing.go"
	}
	if !found {
		t.Fatalf("want internal/cart/pricing.go among the items, got %s", text(res))
	}
	if out.Indexing != "" || !out.Stats.Ready {
		t.Errorf("a ready index answered with an indexing note: %q", out.Indexing)
	}
	// One text block per item, with its code fenced, and a summary.
	if len(res.Content) != len(out.Items)+1 {
		t.Errorf("want %d text blocks, got %d", len(out.Items)+1, len(res.Content))
	}
	first := res.Content[0].(*sdk.TextContent).Text
	if !strings.HasPrefix(first, "1. "+out.Items[0].Path+":") || !strings.Contains(first, "```go\n") {
		t.Errorf("first block does not lead with the item's place and fenced code:\n%s", first)
	}
	for _, it := range out.Items {
		if it.Path == "debug.log" || strings.HasPrefix(it.Path, "dist/") {
			t.Errorf("an ignored file was returned: %s", it.Path)
		}
	}

	// The active file and cursor, as a relative path; the cursor on the
	// first item's declaration (its text holds lines around it too).
	first0 := out.Items[0]
	name := first0.Symbol[strings.LastIndexByte(first0.Symbol, '.')+1:]
	decl := slices.IndexFunc(strings.Split(first0.Text, "\n"), func(l string) bool {
		return strings.HasPrefix(l, "func ") && strings.Contains(l, name+"(")
	})
	if decl < 0 {
		t.Fatalf("no declaration of %s in the first item:\n%s", first0.Symbol, first0.Text)
	}
	res = call(t, cs, "select_context", map[string]any{"query": "what does this do", "activeFile": first0.Path, "cursorLine": int(first0.Range.Start.Line) + decl + 1})
	var active SelectOutput
	decode(t, res, &active)
	if len(active.Items) == 0 || active.Items[0].ID != out.Items[0].ID {
		t.Errorf("the symbol under the cursor is not first: %s", text(res))
	}

	res = call(t, cs, "explain_selection", map[string]any{"query": "expired coupon codes are still accepted at checkout", "limit": 3})
	var explained SelectOutput
	decode(t, res, &explained)
	got := text(res)
	if !strings.Contains(got, "ranked by: ") || !strings.Contains(got, "lexical #") || strings.Contains(got, "score ") || len(explained.Items) == 0 {
		t.Errorf("explain_selection does not say why in words, without scores:\n%s", got)
	}
	for _, it := range explained.Items {
		if it.Why == "" || !strings.Contains(got, "   why: "+it.Why+"\n") {
			t.Errorf("explain_selection: item %s's reason %q is not in its text:\n%s", it.ID, it.Why, got)
		}
	}

	// A question nothing in the workspace answers: no items, and a text
	// that says what to try, from both tools.
	for _, tool := range []string{"select_context", "explain_selection"} {
		res = call(t, cs, tool, map[string]any{"query": "bake a sourdough loaf with rye flour"})
		var none SelectOutput
		decode(t, res, &none)
		if len(none.Items) != 0 || !strings.Contains(text(res), "Nothing in the workspace matches this question well; try naming a symbol, file or error message.") {
			t.Errorf("%s, off-topic question: %d items, text:\n%s", tool, len(none.Items), text(res))
		}
	}
}

// TestBadArguments: a bad argument is a tool error (the model sees it and
// can correct itself) naming the argument, and the server goes on.
func TestBadArguments(t *testing.T) {
	root := fixture(t, "shop")
	cs := connect(t, root)
	for _, tc := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"query": "coupon", "limit": 500}, "limit: must be between 1 and 100"},
		{map[string]any{"query": "coupon", "limit": "ten"}, "/properties/limit"},
		{map[string]any{"query": "  "}, "query: must not be empty"},
		{map[string]any{"limit": 3}, "query"},
		{map[string]any{"query": "coupon", "kinds": []string{"function", "func"}}, `kinds[1]: unknown kind "func"`},
		{map[string]any{"query": "coupon", "maxChars": -1}, "maxChars: must not be negative"},
		{map[string]any{"query": "coupon", "activeFile": "/etc/passwd"}, "activeFile: "},
		{map[string]any{"query": "coupon", "activeFile": "https://example.com/x.go"}, "activeFile: unsupported URI scheme"},
		{map[string]any{"query": "coupon", "activeFile": "web/src/api.ts", "cursorLine": -2}, "cursorLine: must be 1 or more"},
		{map[string]any{"query": "coupon", "paths": []string{"internal/[x"}}, "paths"},
	} {
		res := call(t, cs, "select_context", tc.args)
		if !res.IsError || !strings.Contains(text(res), tc.want) {
			t.Errorf("%v: want a tool error containing %q, got isError=%v %q", tc.args, tc.want, res.IsError, text(res))
		}
	}
	waitReady(t, cs)
	if res := call(t, cs, "select_context", map[string]any{"query": "coupon"}); res.IsError {
		t.Errorf("the server did not recover: %s", text(res))
	}
}

// TestWatch: files created, changed and deleted on disk are seen without
// any notification from the client.
func TestWatch(t *testing.T) {
	root := fixture(t, "shop")
	cs := connect(t, root)
	waitReady(t, cs)
	find := func(symbol string) bool {
		var out SelectOutput
		decode(t, call(t, cs, "select_context", map[string]any{"query": symbol, "limit": 3}), &out)
		for _, it := range out.Items {
			if it.Symbol == symbol {
				return true
			}
		}
		return false
	}
	waitFor := func(what string, cond func() bool) {
		t.Helper()
		deadline := time.Now().Add(testTimeout)
		for !cond() {
			if time.Now().After(deadline) {
				t.Fatalf("never saw %s", what)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}

	write(t, filepath.Join(root, "internal", "loyalty", "points.go"), "package loyalty\n\n// AwardZorbPoints credits zorb points for an order.\nfunc AwardZorbPoints(total int) int { return total / 10 }\n")
	waitFor("a file in a new directory", func() bool { return find("AwardZorbPoints") })

	write(t, filepath.Join(root, "internal", "loyalty", "points.go"), "package loyalty\n\n// RedeemZorbPoints spends zorb points.\nfunc RedeemZorbPoints(p int) int { return p }\n")
	waitFor("a changed file", func() bool { return find("RedeemZorbPoints") && !find("AwardZorbPoints") })

	if err := os.RemoveAll(filepath.Join(root, "internal", "loyalty")); err != nil {
		t.Fatal(err)
	}
	waitFor("a deleted directory", func() bool { return !find("RedeemZorbPoints") })

	// Ignored files stay out when they change: .gitignore has *.log, dist/
	// and /reports/. The watcher adds no watch under dist/ and reports/
	// (what this checks end to end); debug.log would be left out as a log
	// file anyway, and the .gitignore check of an event itself is
	// workspace's TestFilesChangedHonoursGitignore.
	write(t, filepath.Join(root, "debug.log"), "func ZorbLogLine() {}\n")
	write(t, filepath.Join(root, "reports", "weekly.py"), "def zorb_report():\n    return 1\n")
	write(t, filepath.Join(root, "dist", "bundle.js"), "function ZorbBundled() {}\n")
	write(t, filepath.Join(root, "internal", "cart", "zorb.go"), "package cart\n\nfunc ZorbIgnoreMarker() {}\n")
	waitFor("the marker after the ignored files", func() bool { return find("ZorbIgnoreMarker") })
	var out SelectOutput
	decode(t, call(t, cs, "select_context", map[string]any{"query": "ZorbLogLine ZorbBundled zorb_report", "limit": 10}), &out)
	for _, it := range out.Items {
		if it.Path == "debug.log" || strings.HasPrefix(it.Path, "dist/") || strings.HasPrefix(it.Path, "reports/") {
			t.Errorf("an ignored file was indexed after it changed: %s", it.Path)
		}
	}

	// Outside the folder: a symlink to a file elsewhere is refused.
	outside := filepath.Join(t.TempDir(), "secret.go")
	write(t, outside, "package secret\n\nfunc LeakZorbSecret() {}\n")
	if err := os.Symlink(outside, filepath.Join(root, "secret.go")); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(root, "marker.go"), "package shop\n\nfunc ZorbMarker() {}\n")
	waitFor("the marker after the symlink", func() bool { return find("ZorbMarker") })
	if find("LeakZorbSecret") {
		t.Error("a file outside the folder was indexed through a symlink")
	}
}

// TestStillIndexing: before the first index is complete, a selection
// answers with what there is and says how far indexing has got.
func TestStillIndexing(t *testing.T) {
	root := fixture(t, "shop")
	// Not run: nothing is indexed, so the selection waits ReadyWait.
	srv, err := New(Options{Version: "test", Roots: []string{root}, Config: testConfig(), ReadyWait: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	srv.progress[srv.ws.Folders()[0].Root] = workspace.Progress{Root: root, Done: 3, Total: 4}
	res, out, err := srv.selectContext(context.Background(), nil, SelectInput{Query: "coupon"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.Indexing, "still indexing (75% of files)") || !strings.Contains(text(res), "still indexing (75%") {
		t.Errorf("no indexing note: %q / %q", out.Indexing, text(res))
	}
	_, st, _ := srv.indexStatus(context.Background(), nil, struct{}{})
	if st.Ready || st.Percent != 75 {
		t.Errorf("index_status: want not ready at 75%%, got %+v", st)
	}
}

func TestNewRefusesABadRoot(t *testing.T) {
	_, err := New(Options{Roots: []string{filepath.Join(t.TempDir(), "missing")}, Config: testConfig()})
	if err == nil || !strings.Contains(err.Error(), "missing: no such directory") {
		t.Errorf("want an error naming the missing root, got %v", err)
	}
}

// TestSeveralRoots: --root is repeatable; items come from every folder,
// and a relative activeFile is relative to the first.
func TestSeveralRoots(t *testing.T) {
	shop, notes := fixture(t, "shop"), fixture(t, "notes")
	cs := connect(t, shop, notes)
	waitReady(t, cs)
	var st StatusOutput
	decode(t, call(t, cs, "index_status", nil), &st)
	if len(st.Folders) != 2 || st.Folders[0].Root != shop || st.Folders[1].Root != notes {
		t.Fatalf("want both folders in index_status, got %+v", st.Folders)
	}
	var out SelectOutput
	decode(t, call(t, cs, "select_context", map[string]any{"query": "expired coupon codes markdown notes", "limit": 20}), &out)
	roots := map[string]bool{}
	for _, it := range out.Items {
		switch {
		case strings.HasPrefix(it.URI, "file://"+shop+"/"):
			roots["shop"] = true
		case strings.HasPrefix(it.URI, "file://"+notes+"/"):
			roots["notes"] = true
		}
	}
	if !roots["shop"] || !roots["notes"] {
		t.Errorf("want items from both roots, got %v", roots)
	}
	res := call(t, cs, "select_context", map[string]any{"query": "coupon", "activeFile": "internal/cart/pricing.go"})
	if res.IsError {
		t.Errorf("a path relative to the first root was refused: %s", text(res))
	}
}

// TestContextItems: the workspace's rules come with the code; a manual
// rule comes only when the call names it; includeItems false is code only.
func TestContextItems(t *testing.T) {
	cs := connect(t, fixtureFile(t, filepath.Join("..", "..", "testdata", "items", "workspace.txtar")))
	waitReady(t, cs)
	ids := func(args map[string]any) map[string]bool {
		var out SelectOutput
		decode(t, call(t, cs, "select_context", args), &out)
		got := map[string]bool{}
		for _, it := range out.Items {
			got[it.ID] = true
		}
		return got
	}
	const query = "prepare the next release of the billing service"
	plain := ids(map[string]any{"query": query})
	if !plain["rule:AGENTS"] || plain["rule:release-checklist"] {
		t.Errorf("without items: want the always rule AGENTS and not the manual release-checklist, got %v", plain)
	}
	named := ids(map[string]any{"query": query, "items": []string{"release-checklist"}})
	if !named["rule:release-checklist"] {
		t.Errorf("items [release-checklist]: the manual rule is missing from %v", named)
	}
	code := ids(map[string]any{"query": query, "includeItems": false})
	for id := range code {
		if strings.HasPrefix(id, "rule:") || strings.HasPrefix(id, "memory:") || strings.HasPrefix(id, "tool:") {
			t.Errorf("includeItems false returned %s", id)
		}
	}
}

// index_status says why a folder has no history, and what a history read
// in part lost, where the commit count alone would say nothing.
func TestStatusTextSaysWhyHistoryIsShort(t *testing.T) {
	st := &StatusOutput{Ready: true, Embedder: "hash-384", Watching: true, Folders: []workspace.IndexStats{
		{Root: "/a", History: workspace.HistoryStats{Reason: "not in a git repository"}},
		{Root: "/b", History: workspace.HistoryStats{Commits: 3, Partial: "a shallow clone: the history is its 3 commits"}},
	}}
	text := statusText(st)
	for _, want := range []string{"/a: 0 files, 0 symbols, 0 skipped (0 refused), history 0 commits (not in a git repository)", "history 3 commits (a shallow clone: the history is its 3 commits)"} {
		if !strings.Contains(text, want) {
			t.Errorf("index_status text lacks %q:\n%s", want, text)
		}
	}
}
