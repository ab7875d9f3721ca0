package workspace

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// ruleText is the text of the rule with the id in a select for query, ""
// when it does not come.
func ruleTextOf(t *testing.T, ws *Workspace, id string, req *SelectRequest) string {
	t.Helper()
	if it := selFind(selDo(t, ws, req), id); it != nil {
		return it.Text
	}
	return ""
}

// A select answers the rules as they were indexed: a rule file changed on
// disk with no event is not read by the select; a watched-file event, a
// save or a re-index brings the new text.
func TestRulesNotReadBySelect(t *testing.T) {
	ws, root := selOpen(t, itemsApp, Options{})
	req := &SelectRequest{Query: "load the config file"}
	agents, claude := filepath.Join(root, "AGENTS.md"), filepath.Join(root, "CLAUDE.md")
	const old = "Wrap every error with the operation it came from.\n"
	if got := ruleTextOf(t, ws, "rule:AGENTS", req); got != old {
		t.Fatalf("the indexed AGENTS.md: %q", got)
	}

	writeTestFile(t, agents, "Log every error once, at the top.\n")
	if got := ruleTextOf(t, ws, "rule:AGENTS", req); got != old {
		t.Errorf("with no event the select answers the indexed rule, got %q", got)
	}
	if err := ws.FilesChanged([]FileEvent{{Path: agents}}); err != nil {
		t.Fatal(err)
	}
	if got := ruleTextOf(t, ws, "rule:AGENTS", req); got != "Log every error once, at the top.\n" {
		t.Errorf("after the watched-file event: %q", got)
	}
	// CLAUDE.md still holds the old text: it is its own rule now.
	if got := ruleTextOf(t, ws, "rule:CLAUDE", req); got != old {
		t.Errorf("CLAUDE.md, untouched, keeps its text: %q", got)
	}

	// A save of a file that is not open reads it again too.
	writeTestFile(t, claude, "Log every error once, at the top.\n")
	if err := ws.DidSave(claude); err != nil {
		t.Fatal(err)
	}
	res := selDo(t, ws, req)
	if it := selFind(res, "rule:AGENTS"); it == nil || !slices.Equal(it.Paths, []string{"AGENTS.md", "CLAUDE.md"}) {
		t.Errorf("after the save both files hold one rule again: %q", selIDs(res))
	}

	// A rule file created, and one deleted, come with their events; a
	// re-index finds what changed without one.
	cursor := filepath.Join(root, ".cursor/rules/money.mdc")
	writeTestFile(t, cursor, "---\ndescription: money amounts\n---\nAmounts are integer cents.\n")
	mreq := &SelectRequest{Query: "x", Items: []string{"money"}}
	if _, err := ws.Select(t.Context(), mreq); err == nil {
		t.Errorf("a rule file created with no event came")
	}
	if err := ws.FilesChanged([]FileEvent{{Path: cursor}}); err != nil {
		t.Fatal(err)
	}
	if got := ruleTextOf(t, ws, "rule:money", mreq); got != "Amounts are integer cents.\n" {
		t.Errorf("the rule file created, after its event: %q", got)
	}
	if err := os.Remove(cursor); err != nil {
		t.Fatal(err)
	}
	if err := ws.FilesChanged([]FileEvent{{Path: cursor, Deleted: true}}); err != nil {
		t.Fatal(err)
	}
	if _, err := ws.Select(t.Context(), mreq); err == nil {
		t.Errorf("the deleted rule file still comes")
	}
	writeTestFile(t, agents, "Return errors; never panic.\n")
	if _, err := ws.Index(t.Context(), nil); err != nil {
		t.Fatal(err)
	}
	if got := ruleTextOf(t, ws, "rule:AGENTS", req); got != "Return errors; never panic.\n" {
		t.Errorf("after a re-index: %q", got)
	}
}

// A nested AGENTS.md comes with its event, and goes when its directory is
// deleted; a rule directory deleted takes its rules with it.
func TestRulesNestedAndDirectoryEvents(t *testing.T) {
	ws, root := selOpen(t, itemsApp, Options{})
	nested := filepath.Join(root, "lsp", "AGENTS.md")
	writeTestFile(t, nested, "The server answers every request exactly once.\n")
	req := &SelectRequest{Query: "stop the server", Active: selPath(root, "lsp/server.go")}
	if got := ruleTextOf(t, ws, "rule:lsp/AGENTS", req); got != "" {
		t.Errorf("a nested rule with no event came: %q", got)
	}
	if err := ws.FilesChanged([]FileEvent{{Path: nested}}); err != nil {
		t.Fatal(err)
	}
	if got := ruleTextOf(t, ws, "rule:lsp/AGENTS", req); got == "" {
		t.Errorf("the nested rule did not come after its event")
	}
	if err := os.RemoveAll(filepath.Join(root, ".cursor")); err != nil {
		t.Fatal(err)
	}
	if err := ws.FilesChanged([]FileEvent{{Path: filepath.Join(root, ".cursor"), Deleted: true}}); err != nil {
		t.Fatal(err)
	}
	res := selDo(t, ws, &SelectRequest{Query: "reject unknown keys when parsing the configuration file"})
	if selFind(res, "rule:config-files") != nil {
		t.Errorf("the rules of the deleted .cursor came: %q", selIDs(res))
	}
}

// An unsaved edit of a rule file is what the next select answers, as for
// code; closing it brings back the text on disk.
func TestRuleUnsavedEdit(t *testing.T) {
	ws, root := selOpen(t, itemsApp, Options{})
	req := &SelectRequest{Query: "load the config file"}
	agents := filepath.Join(root, "AGENTS.md")
	const disk = "Wrap every error with the operation it came from.\n"
	if err := ws.DidOpen(agents, 1, disk); err != nil {
		t.Fatal(err)
	}
	err := ws.DidChange(agents, 2, func([]byte) ([]byte, error) { return []byte("Unsaved: errors carry a code.\n"), nil })
	if err != nil {
		t.Fatal(err)
	}
	if got := ruleTextOf(t, ws, "rule:AGENTS", req); got != "Unsaved: errors carry a code.\n" {
		t.Errorf("the open document's text wins: %q", got)
	}
	// A watched-file event for the open file changes nothing.
	if err := ws.FilesChanged([]FileEvent{{Path: agents}}); err != nil {
		t.Fatal(err)
	}
	if got := ruleTextOf(t, ws, "rule:AGENTS", req); got != "Unsaved: errors carry a code.\n" {
		t.Errorf("after an event the open document's text still wins: %q", got)
	}
	if err := ws.DidClose(agents); err != nil {
		t.Fatal(err)
	}
	res := selDo(t, ws, req)
	if it := selFind(res, "rule:AGENTS"); it == nil || it.Text != disk || !slices.Equal(it.Paths, []string{"AGENTS.md", "CLAUDE.md"}) {
		t.Errorf("closed unsaved, the rule is the text on disk again: %+v", it)
	}
}

// Watch, which serves clients that send no events, refreshes the rules
// when a rule file changes on disk.
func TestWatchRefreshesRules(t *testing.T) {
	ws, root := selOpen(t, itemsApp, Options{})
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	applied := make(chan struct{}, 1)
	go ws.Watch(ctx, 20*time.Millisecond, func(int, error) {
		select {
		case applied <- struct{}{}:
		default:
		}
	})
	req := &SelectRequest{Query: "load the config file"}
	want := "Watched: errors are wrapped once.\n"
	deadline := time.After(30 * time.Second)
	// The watch is in place some time after Watch starts: write until a
	// batch brings the new text.
	for got := ""; got != want; got = ruleTextOf(t, ws, "rule:AGENTS", req) {
		writeTestFile(t, filepath.Join(root, "AGENTS.md"), want)
		select {
		case <-applied:
		case <-time.After(time.Second):
		case <-deadline:
			t.Fatalf("the watched rule file never changed the rule: %q", got)
		}
	}
}

// A select reads no rule file: one made unreadable after indexing still
// answers, and its rule is the one indexed.
func TestRulesSurviveUnreadableFiles(t *testing.T) {
	ws, root := selOpen(t, itemsApp, Options{})
	if err := os.Remove(filepath.Join(root, "AGENTS.md")); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(filepath.Join(root, ".cursor")); err != nil {
		t.Fatal(err)
	}
	res := selDo(t, ws, &SelectRequest{Query: "reject unknown keys when parsing the configuration file"})
	if selFind(res, "rule:config-files") == nil || selFind(res, "rule:AGENTS") == nil {
		t.Errorf("the indexed rules are gone without an event: %q", selIDs(res))
	}
	if strings.Contains(strings.Join(selIDs(res), " "), "rule:CLAUDE") {
		t.Errorf("AGENTS.md and CLAUDE.md are one rule until an event says otherwise: %q", selIDs(res))
	}
}
