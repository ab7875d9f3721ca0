package workspace

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// itemsApp is selApp with rules: an always rule copied into AGENTS.md and
// CLAUDE.md, an agent rule, a manual rule and a long agent rule.
const itemsApp = selApp + `
-- AGENTS.md --
Wrap every error with the operation it came from.
-- CLAUDE.md --
Wrap every error with the operation it came from.
-- .cursor/rules/config-files.mdc --
---
description: Reading and validating configuration files and their keys
alwaysApply: false
---
Unknown configuration keys are errors, never ignored.
-- .cursor/rules/wire.mdc --
---
alwaysApply: false
---
The wire never renames a field.
-- .ctxls/items/invoices.md --
---
include: agent
description: invoice totals, amounts and formatting money
---
` + "Invoices: " + `
`

func TestRulesDuplicatesCollapse(t *testing.T) {
	ws, _ := selOpen(t, itemsApp, Options{})
	res := selDo(t, ws, &SelectRequest{Query: "load the config file"})
	it := selFind(res, "rule:AGENTS")
	if it == nil {
		t.Fatalf("the always rule is missing: %q", selIDs(res))
	}
	if !slices.Equal(it.Paths, []string{"AGENTS.md", "CLAUDE.md"}) || it.Reason != ReasonAlways || it.Kind != ItemRule {
		t.Errorf("AGENTS.md and CLAUDE.md hold one rule: got paths %q, reason %s, kind %s", it.Paths, it.Reason, it.Kind)
	}
	if selFind(res, "rule:CLAUDE") != nil {
		t.Errorf("the copy in CLAUDE.md came as a second item: %q", selIDs(res))
	}
	// The rule files are not code: their text comes once, as the rule.
	for _, x := range res.Items {
		if x.Kind != ItemRule && (x.Path == "AGENTS.md" || x.Path == "CLAUDE.md") {
			t.Errorf("rule file %s came as %s too", x.Path, x.ID)
		}
	}
}

func TestRulesIncludeModes(t *testing.T) {
	ws, _ := selOpen(t, itemsApp, Options{})
	res := selDo(t, ws, &SelectRequest{Query: "reject unknown keys when parsing the configuration file"})
	if it := selFind(res, "rule:config-files"); it == nil || it.Reason != ReasonAgent || it.Signals["item"].Rank != 1 {
		t.Errorf("the agent rule whose description matches: got %+v in %q", it, selIDs(res))
	}
	if selFind(res, "rule:wire") != nil {
		t.Errorf("a manual rule came unasked: %q", selIDs(res))
	}
	res = selDo(t, ws, &SelectRequest{Query: "start the server @wire"})
	if it := selFind(res, "rule:wire"); it == nil || it.Reason != ReasonManual {
		t.Errorf("@wire names the manual rule: %q", selIDs(res))
	}
	if selFind(res, "rule:config-files") != nil {
		t.Errorf("the agent rule came for a query that does not match it: %q", selIDs(res))
	}
	res = selDo(t, ws, &SelectRequest{Query: "start the server", Items: []string{"rule:wire"}})
	if it := selFind(res, "rule:wire"); it == nil || it.Reason != ReasonManual {
		t.Errorf("items names the manual rule by id: %q", selIDs(res))
	}
	// Required items come first, and the result stays sorted by score.
	if res.Items[0].Kind != ItemRule {
		t.Errorf("first item %s, want a rule", res.Items[0].ID)
	}
	for i := 1; i < len(res.Items); i++ {
		if res.Items[i].Score > res.Items[i-1].Score {
			t.Errorf("item %d (%s) scores %v above item %d's %v", i, res.Items[i].ID, res.Items[i].Score, i-1, res.Items[i-1].Score)
		}
	}
}

func TestItemsRequestErrors(t *testing.T) {
	ws, _ := selOpen(t, itemsApp, Options{})
	for _, tc := range []struct {
		req   SelectRequest
		field string
		msg   string
	}{
		{SelectRequest{Query: "x", Items: []string{"nope"}}, "items[0]", `no context item named "nope"`},
		{SelectRequest{Query: "x", Items: []string{" "}}, "items[0]", "must not be empty"},
		{SelectRequest{Query: "x", IncludeItems: map[string]bool{"rules": false}}, "includeItems", `unknown item kind "rules"`},
		{SelectRequest{Query: "x", ItemShare: 1.5}, "itemShare", "at most 1"},
		{SelectRequest{Query: "x", ItemShare: -0.1}, "itemShare", "more than 0"},
	} {
		_, err := ws.Select(t.Context(), &tc.req)
		pe, ok := errors.AsType[*ParamError](err)
		if !ok || pe.Field != tc.field || !strings.Contains(pe.Msg, tc.msg) {
			t.Errorf("%+v: got %v, want a ParamError on %s saying %q", tc.req, err, tc.field, tc.msg)
		}
	}
	if _, err := ws.Select(t.Context(), &SelectRequest{Query: "x", Items: []string{"wire"}}); err != nil {
		t.Errorf("the workspace keeps answering: %v", err)
	}
}

func TestItemShareCapsAgentItems(t *testing.T) {
	long := strings.Repeat("Amounts are integer cents; format them with formatAmount only. ", 80)
	ws, _ := selOpen(t, strings.Replace(itemsApp, "Invoices: ", long, 1), Options{})
	req := &SelectRequest{Query: "invoice total amount formatting money", MaxChars: 4000}
	res := selDo(t, ws, req)
	var shared, code int
	for _, it := range res.Items {
		if it.Kind == ItemRule && it.Reason == ReasonAgent {
			shared += len(it.Text)
		} else if it.Kind != ItemRule {
			code += len(it.Text)
		}
	}
	if it := selFind(res, "rule:invoices"); it == nil || !it.Truncated {
		t.Fatalf("the long agent rule should come, cut to the share: %q", selIDs(res))
	}
	if shared > 1000 {
		t.Errorf("agent rules took %d chars of 4000, more than the 25%% share", shared)
	}
	if res.UsedChars > 4000 || code == 0 {
		t.Errorf("used %d chars (code %d) of 4000", res.UsedChars, code)
	}
	req.ItemShare = 0.5
	res = selDo(t, ws, req)
	if it := selFind(res, "rule:invoices"); it == nil || len(it.Text) <= 1000 {
		t.Errorf("itemShare 0.5 lets the rule take more than a quarter")
	}
}

func TestIncludeItemsAndNoRetrieval(t *testing.T) {
	ws, _ := selOpen(t, itemsApp, Options{})
	res := selDo(t, ws, &SelectRequest{Query: "reject unknown keys in the configuration file", IncludeItems: map[string]bool{ItemRule: false}})
	for _, it := range res.Items {
		if it.Kind == ItemRule {
			t.Errorf("rules are off, got %s", it.ID)
		}
	}
	res = selDo(t, ws, &SelectRequest{Query: "what does the guide say about installation", IncludeItems: map[string]bool{ItemDoc: false}})
	for _, it := range res.Items {
		if it.Language == "markdown" && it.Kind != ItemRule {
			t.Errorf("docs are off, got %s", it.ID)
		}
	}
	res = selDo(t, ws, &SelectRequest{Query: "thanks, that fixed it", NoRetrieval: true, Pinned: []string{"file:go.mod"}})
	if ids := selIDs(res); !slices.Equal(ids, []string{"rule:AGENTS", "file:go.mod"}) {
		t.Errorf("no retrieval: only the always rule and the pinned file, got %q", ids)
	}
}

func TestRulesReadThroughGate(t *testing.T) {
	outside := t.TempDir()
	if err := os.MkdirAll(filepath.Join(outside, "rules"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeTestFile(t, filepath.Join(outside, "rules", "secret.mdc"), "---\nalwaysApply: true\n---\nSECRET outside the workspace\n")
	writeTestFile(t, filepath.Join(outside, "AGENTS.md"), "SECRET agents outside\n")
	ws, root := selOpen(t, selApp, Options{})
	if err := os.MkdirAll(filepath.Join(root, ".cursor"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "rules"), filepath.Join(root, ".cursor", "rules")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "AGENTS.md"), filepath.Join(root, "AGENTS.md")); err != nil {
		t.Fatal(err)
	}
	// The rules are found again at the symlinks' events and at a re-index.
	if err := ws.FilesChanged([]FileEvent{{Path: filepath.Join(root, ".cursor", "rules")}, {Path: filepath.Join(root, "AGENTS.md")}}); err != nil {
		t.Logf("events: %v", err) // the gate refuses the symlinks out
	}
	for _, step := range []string{"events", "re-index"} {
		if step == "re-index" {
			if _, err := ws.Index(t.Context(), nil); err != nil {
				t.Fatal(err)
			}
		}
		res := selDo(t, ws, &SelectRequest{Query: "secret"})
		for _, it := range res.Items {
			if strings.Contains(it.Text, "SECRET") {
				t.Errorf("after the %s %s returned text from outside the workspace", step, it.ID)
			}
		}
	}
}

// TestSymlinkedRulesInside: rule files that are symlinks to files inside
// the folder (CLAUDE.md → a guide in docs/, a Cursor rule kept beside the
// docs) are read as rules, and the files they lead to are not answered
// again as code; a symlinked rule leading outside stays unread.
func TestSymlinkedRulesInside(t *testing.T) {
	outside := t.TempDir()
	writeTestFile(t, filepath.Join(outside, "AGENTS.md"), "SECRET agents outside\n")
	ws, root := selOpen(t, selApp, Options{})
	if err := os.MkdirAll(filepath.Join(root, "docs", "ai"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeTestFile(t, filepath.Join(root, "docs", "ai", "guide.md"), "# AI guide\n\nWrap every config error with the key that failed.\n")
	writeTestFile(t, filepath.Join(root, "docs", "config-rule.mdc"), "---\nalwaysApply: true\n---\nConfig parsers never panic on unknown keys.\n")
	if err := os.MkdirAll(filepath.Join(root, ".cursor", "rules"), 0o755); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{
		"CLAUDE.md":                "docs/ai/guide.md",
		".cursor/rules/config.mdc": "../../docs/config-rule.mdc",
		"AGENTS.md":                filepath.Join(outside, "AGENTS.md"),
	} {
		if err := os.Symlink(target, filepath.Join(root, filepath.FromSlash(link))); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := ws.Index(t.Context(), nil); err != nil {
		t.Fatal(err)
	}
	res := selDo(t, ws, &SelectRequest{Query: "config error unknown keys"})
	ids := selIDs(res)
	for _, id := range []string{"rule:CLAUDE", "rule:config"} {
		if !slices.Contains(ids, id) {
			t.Errorf("the symlinked rule %s is not in the answer: %q", id, ids)
		}
	}
	for _, it := range res.Items {
		if strings.HasPrefix(it.Path, "docs/ai/") || strings.HasPrefix(it.Path, "docs/config-rule") {
			t.Errorf("%s, a symlinked rule's file, is answered again as %s", it.Path, it.ID)
		}
		if strings.Contains(it.Text, "SECRET") {
			t.Errorf("%s returned text from outside the workspace", it.ID)
		}
	}
}

func TestRuleOverlayAndScope(t *testing.T) {
	ws, root := selOpen(t, itemsApp+`
-- lsp/AGENTS.md --
The server answers every request exactly once.
`, Options{})
	res := selDo(t, ws, &SelectRequest{Query: "load the config file"})
	if selFind(res, "rule:lsp/AGENTS") != nil {
		t.Errorf("a nested AGENTS.md applies only to its directory: %q", selIDs(res))
	}
	res = selDo(t, ws, &SelectRequest{Query: "stop the server", Active: selPath(root, "lsp/server.go")})
	if it := selFind(res, "rule:lsp/AGENTS"); it == nil || it.Reason != ReasonAlways {
		t.Errorf("the active file is in lsp/: its AGENTS.md applies: %q", selIDs(res))
	}
	// An open document's text wins over the disk.
	if err := ws.DidOpen(selPath(root, "AGENTS.md"), 1, "Return errors, never panic.\n"); err != nil {
		t.Fatal(err)
	}
	res = selDo(t, ws, &SelectRequest{Query: "load the config file"})
	if it := selFind(res, "rule:AGENTS"); it == nil || it.Text != "Return errors, never panic.\n" || !slices.Equal(it.Paths, []string{"AGENTS.md"}) {
		t.Errorf("the edited AGENTS.md is its own rule now: %+v", it)
	}
}

func TestMemoryPersistsAndDecays(t *testing.T) {
	cache := t.TempDir()
	now := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	cfg := DefaultConfig()
	cfg.CacheDir = cache
	ws, root := selOpenConfig(t, selApp, cfg, Options{Now: clock})
	note, err := ws.Remember(NoteRequest{Text: "parseConfig must reject unknown keys; users rely on the error", Paths: []string{"internal/config/config.go"}, Tags: []string{"config"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ws.Remember(NoteRequest{Text: "the parcel label format is fixed by the carrier", Pinned: true}); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(note.Paths, []string{"internal/config/config.go"}) || note.Root != root {
		t.Errorf("note %+v", note)
	}
	// Only the cache dir holds it.
	entries, _ := os.ReadDir(cache)
	var names []string
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".memory.json") {
			names = append(names, e.Name())
		}
	}
	if len(names) != 1 {
		t.Errorf("cache dir holds memory files %q, want one", names)
	}
	if _, err := os.Stat(filepath.Join(root, ".ctxls")); err == nil {
		t.Errorf("memory was written into the workspace")
	}

	// A new workspace on the same cache has the notes; a fresh note about
	// the config comes for a config query.
	ws2, err := New(cfg, Options{Now: clock})
	if err != nil {
		t.Fatal(err)
	}
	ws2.AddFolder(root)
	if _, err := ws2.Index(t.Context(), nil); err != nil {
		t.Fatal(err)
	}
	if got := ws2.Memories(); len(got) != 2 {
		t.Fatalf("reloaded %d notes, want 2", len(got))
	}
	res := selDo(t, ws2, &SelectRequest{Query: "reject unknown keys when parsing the config"})
	if it := selFind(res, "memory:"+note.ID); it == nil || it.Reason != ReasonRetrieved || it.Kind != ItemMemory || it.Text != note.Text {
		t.Errorf("the note about the config: %q", selIDs(res))
	}
	// A fresh note about the active file comes whatever the query says.
	res = selDo(t, ws2, &SelectRequest{Query: "monthly sales report", Active: filepath.Join(root, "internal/config/config.go")})
	if selFind(res, "memory:"+note.ID) == nil {
		t.Errorf("the note about the active file did not come: %q", selIDs(res))
	}
	// A year later it has decayed away; the pinned one has not.
	now = now.Add(365 * 24 * time.Hour)
	res = selDo(t, ws2, &SelectRequest{Query: "reject unknown keys when parsing the config"})
	if selFind(res, "memory:"+note.ID) != nil {
		t.Errorf("a year-old note still came: %q", selIDs(res))
	}
	res = selDo(t, ws2, &SelectRequest{Query: "the parcel label format of the carrier"})
	if !slices.ContainsFunc(res.Items, func(it Selected) bool { return it.Kind == ItemMemory }) {
		t.Errorf("the pinned note does not decay: %q", selIDs(res))
	}

	ok, err := ws2.Forget(note.ID)
	if !ok || err != nil {
		t.Fatalf("Forget: %v %v", ok, err)
	}
	if ok, _ := ws2.Forget(note.ID); ok {
		t.Errorf("forgot the same note twice")
	}
	ws3, _ := New(cfg, Options{Now: clock})
	ws3.AddFolder(root)
	if got := ws3.Memories(); len(got) != 1 || got[0].ID == note.ID {
		t.Errorf("after Forget the cache holds %+v", got)
	}
}

func TestRememberErrors(t *testing.T) {
	ws, _ := selOpen(t, selApp, Options{})
	outside := t.TempDir()
	for _, tc := range []struct {
		req   NoteRequest
		field string
	}{
		{NoteRequest{Text: "  "}, "text"},
		{NoteRequest{Text: strings.Repeat("x", MaxNoteChars+1)}, "text"},
		{NoteRequest{Text: "x", Paths: []string{filepath.Join(outside, "a.go")}}, "paths[0]"},
		{NoteRequest{Text: "x", Tags: []string{""}}, "tags[0]"},
	} {
		_, err := ws.Remember(tc.req)
		if pe, ok := errors.AsType[*ParamError](err); !ok || pe.Field != tc.field {
			t.Errorf("%.40v: got %v, want a ParamError on %s", tc.req, err, tc.field)
		}
	}
	// With the cache off, notes last for the session.
	if _, err := ws.Remember(NoteRequest{Text: "kept in memory"}); err != nil || len(ws.Memories()) != 1 {
		t.Errorf("cache off: %v, %d notes", err, len(ws.Memories()))
	}
}

func writeTestFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestRulesOfTwoFolders(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	selWriteTree(t, a, selApp+"-- AGENTS.md --\nFolder a: run make test.\n")
	selWriteTree(t, b, "-- lib.go --\npackage lib\n\n// Parse parses.\nfunc Parse() {}\n-- AGENTS.md --\nFolder b: run go test.\n")
	cfg := DefaultConfig()
	cfg.CacheDir = CacheDirOff
	ws, err := New(cfg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, root := range []string{a, b} {
		if _, err := ws.AddFolder(root); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := ws.Index(t.Context(), nil); err != nil {
		t.Fatal(err)
	}
	res := selDo(t, ws, &SelectRequest{Query: "parse the config"})
	first, second := selFind(res, "rule:AGENTS"), selFind(res, "rule:AGENTS~2")
	if first == nil || second == nil || first.Text == second.Text || first.Abs == second.Abs {
		t.Fatalf("each folder's AGENTS.md is its own rule, named apart: %q", selIDs(res))
	}
	res = selDo(t, ws, &SelectRequest{Query: "parse", Items: []string{"AGENTS~2"}})
	if it := selFind(res, "rule:AGENTS~2"); it == nil || it.Reason != ReasonManual {
		t.Errorf("the second is asked for by its name: %q", selIDs(res))
	}
}

func TestItemTopNAndIncludeScore(t *testing.T) {
	cfg := DefaultConfig()
	cfg.CacheDir, cfg.ItemTopN = CacheDirOff, 1
	cfg.Tools = []Tool{
		{Name: "parcel_label", Description: "print the parcel label"},
		{Name: "label_printer", Description: "parcel label printer"},
		{Name: "weigh", Description: "weigh a parcel on the scale"},
		{Name: "always_on", Description: "unrelated", Include: IncludeAlways},
		{Name: "asked", Description: "unrelated", Include: IncludeManual},
	}
	ws, _ := selOpenConfig(t, selApp, cfg, Options{})
	res := selDo(t, ws, &SelectRequest{Query: "print the parcel label"})
	var tools []string
	for _, it := range res.Items {
		if it.Kind == ItemTool {
			tools = append(tools, it.ID+"/"+it.Reason)
		}
	}
	// Both label tools match every word (score 1 ≥ itemIncludeScore) and
	// pass itemTopN 1; weigh matches one word in three and does not.
	want := []string{"tool:always_on/always", "tool:parcel_label/agent", "tool:label_printer/agent"}
	if !slices.Equal(tools, want) {
		t.Errorf("tools %q, want %q", tools, want)
	}
	// The second now matches one word in three: only the best passes.
	cfg.Tools[1] = Tool{Name: "spooler", Description: "the queue of print jobs"}
	if _, err := ws.SetConfig(cfg); err != nil {
		t.Fatal(err)
	}
	res = selDo(t, ws, &SelectRequest{Query: "print the parcel label"})
	n := 0
	for _, it := range res.Items {
		if it.Kind == ItemTool && it.Reason == ReasonAgent {
			n++
		}
	}
	if n != 1 {
		t.Errorf("with one perfect match and itemTopN 1, %d agent tools came: %q", n, selIDs(res))
	}
}

// An unreadable memory file is set aside with a warning, not replaced by
// the next note: its notes are not lost.
func TestUnreadableMemoryIsKept(t *testing.T) {
	cache := t.TempDir()
	cfg := DefaultConfig()
	cfg.CacheDir = cache
	var warnings []string
	root := t.TempDir()
	selWriteTree(t, root, selApp)
	root, _ = filepath.EvalSymlinks(root)
	file := memoryFile(cache, root)
	if err := os.WriteFile(file, []byte(`{"notes from a newer version"`), 0o644); err != nil {
		t.Fatal(err)
	}
	ws, err := New(cfg, Options{Warn: func(msg string) { warnings = append(warnings, msg) }})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ws.AddFolder(root); err != nil {
		t.Fatal(err)
	}
	if _, err := ws.Remember(NoteRequest{Text: "a new note"}); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(file + ".bad"); err != nil || string(b) != `{"notes from a newer version"` {
		t.Errorf("the unreadable file was not kept aside: %q, %v", b, err)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], file+".bad") {
		t.Errorf("warnings %q, want one naming %s.bad", warnings, file)
	}
	if got := ws.Memories(); len(got) != 1 || got[0].Text != "a new note" {
		t.Errorf("notes %+v", got)
	}
}
