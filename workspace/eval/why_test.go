package eval

import (
	"context"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/workspace"
)

// whyMarker is an elision marker line (heuristics.ElisionMarker).
var whyMarker = regexp.MustCompile(`(?m)^(// |# |-- )?… \d+ lines? …$`)

// TestWhyAndRangesOverGoldenAnswers: every item of every golden case's
// answer (three workspaces, all kinds of case) says why it is there, in
// words and never only "expanded"; its range spans exactly the lines its
// text holds (after a type header and its elision marker, if any), its
// symbol range lies inside it, and items sharing an id are numbered parts.
func TestWhyAndRangesOverGoldenAnswers(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join("..", "..", "testdata")
	suites, err := LoadSuites(dir)
	if err != nil {
		t.Fatal(err)
	}
	items, parts, sites := 0, 0, 0
	for _, s := range suites {
		root, cleanup, err := suiteRoot(dir, s.Workspace)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(cleanup)
		cfg := workspace.DefaultConfig()
		cfg.CacheDir, cfg.HistoryCommits = "off", 0
		ws, err := workspace.New(cfg, workspace.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ws.AddFolder(root); err != nil {
			t.Fatal(err)
		}
		if _, err := ws.Index(ctx, nil); err != nil {
			t.Fatal(err)
		}
		root = ws.Folders()[0].Root
		for _, c := range s.Cases {
			res, err := ws.Select(ctx, c.Request(root))
			if err != nil {
				t.Fatalf("%s/%s: %v", s.Workspace, c.Name, err)
			}
			byID := map[string][]*workspace.Selected{}
			for i := range res.Items {
				it := &res.Items[i]
				items++
				name := s.Workspace + "/" + c.Name + " " + it.ID
				if it.Why == "" || it.Why == workspace.ReasonExpanded || strings.Contains(it.Why, "0.") {
					t.Errorf("%s: why %q", name, it.Why)
				}
				if strings.Contains(it.Why, " at ") && strings.Contains(it.Why, "calls `") {
					sites++
				}
				if it.Abs == "" {
					continue // a rule, tool or note
				}
				claimed := it.Text
				if m := whyMarker.FindAllStringIndex(claimed, -1); m != nil {
					claimed = claimed[m[len(m)-1][1]+1:]
				}
				if n := uint32(strings.Count(claimed, "\n")); n != it.Span.EndLine-it.Span.StartLine {
					t.Errorf("%s: text holds %d lines, range %d-%d spans %d", name, n+1, it.Span.StartLine, it.Span.EndLine, it.Span.EndLine-it.Span.StartLine+1)
				}
				if sp := it.SymbolSpan; sp != nil && (sp.StartLine < it.Span.StartLine || sp.EndLine > it.Span.EndLine) {
					t.Errorf("%s: symbol range %d-%d outside the range %d-%d", name, sp.StartLine, sp.EndLine, it.Span.StartLine, it.Span.EndLine)
				}
				if it.Symbol != "" {
					byID[it.ID] = append(byID[it.ID], it)
				}
			}
			for id, its := range byID {
				for k, it := range its {
					switch {
					case len(its) == 1 && it.Part != nil:
						t.Errorf("%s/%s %s: alone, yet part %+v", s.Workspace, c.Name, id, *it.Part)
					case len(its) == 1:
					case it.Part == nil || it.Part.Of != len(its) || !strings.HasPrefix(it.Why, "part "):
						t.Errorf("%s/%s %s: %d items share the id; item %d has part %v, why %q", s.Workspace, c.Name, id, len(its), k, it.Part, it.Why)
					default:
						parts++
					}
				}
			}
		}
	}
	t.Logf("%d items checked, %d parts of symbols, %d callers naming their call site", items, parts, sites)
	if items < 500 {
		t.Errorf("only %d items checked", items)
	}
}
