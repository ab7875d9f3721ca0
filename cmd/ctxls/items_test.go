package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/lsp/wire"
	"github.com/ctxls/ctxls/workspace"
	"github.com/ctxls/ctxls/workspace/eval"
)

// TestItemCasesCLI runs the context item cases with ctxls select: the same
// items as the workspace and the server give.
func TestItemCasesCLI(t *testing.T) {
	const dir = "../../testdata/items"
	suite, err := eval.LoadItemSuite(dir)
	if err != nil {
		t.Fatal(err)
	}
	root, cache := t.TempDir(), t.TempDir()
	noteIDs, err := suite.Setup(dir, root, cache)
	if err != nil {
		t.Fatal(err)
	}
	base := []string{"select", "--json", "--root", root, "--cache-dir", cache}
	for _, tool := range suite.Tools {
		name := tool.Name
		if tool.Include != "" {
			name += " (" + tool.Include + ")"
		}
		base = append(base, "--tool", name+": "+tool.Description)
	}
	var failed []string
	for _, tc := range suite.Cases {
		args := append([]string(nil), base...)
		if tc.Active != "" {
			args = append(args, "--active", filepath.Join(root, tc.Active))
		}
		for _, it := range tc.Items {
			args = append(args, "--item", it)
		}
		switch inc := tc.IncludeItems.(type) {
		case bool:
			if !inc {
				args = append(args, "--include-items", "none")
			}
		case map[string]any:
			var on []string
			for _, k := range workspace.ItemKinds {
				if v, set := inc[k]; !set || v == true {
					on = append(on, k)
				}
			}
			args = append(args, "--include-items", strings.Join(on, ","))
		}
		if tc.Retrieval != nil && !*tc.Retrieval {
			args = append(args, "--no-retrieval")
		}
		args = append(args, tc.Query)
		code, stdout, stderr := cliRun(t, args...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", tc.Name, code, stderr)
		}
		var res wire.Result
		if err := json.Unmarshal([]byte(stdout), &res); err != nil {
			t.Fatalf("%s: %v", tc.Name, err)
		}
		var ids, kinds []string
		for _, it := range res.Items {
			ids, kinds = append(ids, it.ID), append(kinds, it.Kind)
		}
		for _, p := range suite.Check(&tc, ids, kinds, noteIDs) {
			failed = append(failed, tc.Name+": "+p)
		}
	}
	sort.Strings(failed)
	for _, f := range failed {
		t.Error(f)
	}
	// The readable listing names a rule's other paths.
	_, stdout, _ := cliRun(t, "select", "--root", root, "--cache-dir", cache, "why is the invoice total off by a cent")
	if !strings.Contains(stdout, "1. AGENTS.md:1-5  AGENTS  rule\n   why: a rule that always applies\n   also at: CLAUDE.md\n") {
		t.Errorf("listing:\n%s", stdout)
	}
}

// TestRememberAndMemoryCLI keeps, lists and forgets a note from the
// command line, and select offers it.
func TestRememberAndMemoryCLI(t *testing.T) {
	root := cliTree(t, cliApp)
	cache := t.TempDir()
	code, stdout, stderr := cliRun(t, "remember", "--root", root, "--cache-dir", cache, "--path", filepath.Join(root, "internal/config/config.go"),
		"--tag", "config", "--pin", "parseConfig must reject unknown keys: deploy scripts rely on the error")
	if code != 0 || !strings.HasPrefix(stdout, "remembered m") {
		t.Fatalf("remember: exit %d, %q %q", code, stdout, stderr)
	}
	id := strings.TrimSpace(strings.TrimPrefix(stdout, "remembered "))
	// A relative --path is relative to --root, as select's --active is.
	code, stdout, stderr = cliRun(t, "remember", "--root", root, "--cache-dir", t.TempDir(), "--json", "--path", "lsp/server.go", "the server listens on one port")
	if code != 0 || !strings.Contains(stdout, `"paths": [`) || !strings.Contains(stdout, "lsp/server.go") {
		t.Errorf("remember with a relative --path: exit %d, %q %q", code, stdout, stderr)
	}
	code, stdout, _ = cliRun(t, "memory", "list", "--root", root, "--cache-dir", cache)
	if code != 0 || !strings.Contains(stdout, id) || !strings.Contains(stdout, "pinned; paths internal/config/config.go; tags config") ||
		!strings.Contains(stdout, "   | parseConfig must reject unknown keys") {
		t.Errorf("memory list: %d %q", code, stdout)
	}
	code, stdout, _ = cliRun(t, "select", "--json", "--root", root, "--cache-dir", cache, "reject unknown keys in parseConfig")
	var res wire.Result
	if err := json.Unmarshal([]byte(stdout), &res); code != 0 || err != nil {
		t.Fatalf("select: %d %v", code, err)
	}
	found := false
	for _, it := range res.Items {
		found = found || it.ID == "memory:"+id && it.Kind == "memory" && it.Reason == "retrieved"
	}
	if !found {
		t.Errorf("select does not offer the note: %s", stdout)
	}
	code, stdout, _ = cliRun(t, "memory", "forget", "--root", root, "--cache-dir", cache, id)
	if code != 0 || stdout != fmt.Sprintf("forgot %s\n", id) {
		t.Errorf("memory forget: %d %q", code, stdout)
	}
	code, _, stderr = cliRun(t, "memory", "forget", "--root", root, "--cache-dir", cache, id)
	if code != 1 || !strings.Contains(stderr, "no note") {
		t.Errorf("forgetting twice: %d %q", code, stderr)
	}
	code, stdout, _ = cliRun(t, "memory", "list", "--json", "--root", root, "--cache-dir", cache)
	if code != 0 || strings.TrimSpace(stdout) != `{
  "notes": []
}` {
		t.Errorf("memory list --json after forget: %q", stdout)
	}

	cliUsageError(t, []string{"remember", "--root", root, "--cache-dir", cache}, "a text is required")
	cliUsageError(t, []string{"remember", "--root", root, "--cache-dir", "off", "x"}, "--cache-dir")
	cliUsageError(t, []string{"remember", "--root", root, "--cache-dir", cache, "--path", "/etc/passwd", "x"}, "--path #1")
	cliUsageError(t, []string{"memory", "drop"}, "ctxls memory list")
	// Each bound on a note is named; characters are characters, not bytes.
	cliUsageError(t, []string{"remember", "--root", root, "--cache-dir", cache, strings.Repeat("ü", workspace.MaxNoteChars+1)},
		"TEXT: must be at most 4000 characters (MaxNoteChars), got 4001")
	manyTags := []string{"remember", "--root", root, "--cache-dir", cache}
	for i := range workspace.MaxNoteTags + 1 {
		manyTags = append(manyTags, "--tag", fmt.Sprint("t", i))
	}
	cliUsageError(t, append(manyTags, "x"), "--tag: at most 32 tags (MaxNoteTags), got 33")
	cliUsageError(t, []string{"remember", "--root", root, "--cache-dir", cache, "--tag", "a", "--tag", strings.Repeat("t", 65), "x"}, "--tag #2", "MaxTagChars")
	if code, stdout, _ := cliRun(t, "remember", "--root", root, "--cache-dir", cache, strings.Repeat("ü", workspace.MaxNoteChars)); code != 0 {
		t.Errorf("a note of MaxNoteChars two-byte characters: exit %d, %q", code, stdout)
	}
	cliUsageError(t, []string{"select", "--root", root, "--cache-dir", "off", "--include-items", "rules", "x"}, "--include-items", `"rules"`)
	cliUsageError(t, []string{"select", "--root", root, "--cache-dir", "off", "--item", "nope", "x"}, "--item #1", `"nope"`)
	cliUsageError(t, []string{"select", "--root", root, "--cache-dir", "off", "--tool", "nodescription", "x"}, "--tool")
	cliUsageError(t, []string{"select", "--root", root, "--cache-dir", "off", "--item-share", "3", "x"}, "--item-share")
}
