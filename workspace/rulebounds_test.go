//go:build unix

package workspace

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ctxls/ctxls/workspace/items"
)

// hostileGlobRule is a Cursor rule whose front matter lists n globs, one a
// line, none of which matches anything.
func hostileGlobRule(n int) string {
	var b strings.Builder
	b.WriteString("---\ndescription: hostile\nglobs:\n")
	for i := range n {
		fmt.Fprintf(&b, "- n%d/*.go\n", i)
	}
	b.WriteString("---\nNever matches.\n")
	return b.String()
}

// BenchmarkSelectHostileRule is a select over a small workspace whose
// .cursor/rules holds a rule with many globs (50,000 of them: 600 KB; 5,000:
// 60 KB, under MaxRuleBytes): what one hostile rule file may add to every
// request.
func BenchmarkSelectHostileRule(b *testing.B) {
	for _, n := range []int{50_000, 5_000} {
		b.Run(fmt.Sprintf("globs=%d", n), func(b *testing.B) {
			ws, _ := selOpen(b, selApp+"-- .cursor/rules/hostile.mdc --\n"+hostileGlobRule(n), Options{Warn: func(string) {}})
			req := &SelectRequest{Query: "load the config file"}
			for b.Loop() {
				if _, err := ws.Select(b.Context(), req); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkSelectNoHostileRule is the same select without the rule.
func BenchmarkSelectNoHostileRule(b *testing.B) {
	ws, _ := selOpen(b, selApp, Options{})
	req := &SelectRequest{Query: "load the config file"}
	for b.Loop() {
		if _, err := ws.Select(b.Context(), req); err != nil {
			b.Fatal(err)
		}
	}
}

// ruleWorkspace indexes archive and returns the workspace with the
// warnings it gives.
func ruleWorkspace(t *testing.T, archive string) (*Workspace, string, *[]string) {
	t.Helper()
	var mu sync.Mutex
	var warnings []string
	ws, root := selOpen(t, archive, Options{Warn: func(msg string) {
		mu.Lock()
		warnings = append(warnings, msg)
		mu.Unlock()
	}})
	return ws, root, &warnings
}

// warningsWith are the warnings that hold every one of parts.
func warningsWith(warnings []string, parts ...string) []string {
	var out []string
	for _, w := range warnings {
		ok := true
		for _, p := range parts {
			ok = ok && strings.Contains(w, p)
		}
		if ok {
			out = append(out, w)
		}
	}
	return out
}

// A rule over a bound on its globs keeps its first globs (it applies to
// fewer files, never to more), or is skipped when none is left; each
// refusal is one warning naming the file and the bound, given once however
// many requests read the rule.
func TestRuleGlobBounds(t *testing.T) {
	var many strings.Builder
	many.WriteString("---\nglobs:\n- internal/config/**\n")
	for i := range 5_000 {
		fmt.Fprintf(&many, "- n%d/*.go\n", i)
	}
	many.WriteString("- cmd/**\n---\nConfiguration code never logs secrets.\n")
	braces := "---\nglobs: {a,b}{c,d}{e,f}{g,h}{i,j}{k,l}{m,n}{o,p}{q,r}/**\n---\nBraces everywhere.\n"
	long := "---\nglobs: " + strings.Repeat("x", items.MaxRuleGlobBytes+1) + "/**\n---\nA long glob.\n"
	ws, root, warnings := ruleWorkspace(t, selApp+
		"-- .cursor/rules/many.mdc --\n"+many.String()+
		"-- .cursor/rules/braces.mdc --\n"+braces+
		"-- .cursor/rules/long.mdc --\n"+long)

	for range 3 {
		res := selDo(t, ws, &SelectRequest{Query: "load the config file", Active: filepath.Join(root, "internal/config/config.go")})
		if it := selFind(res, "rule:many"); it == nil || it.Reason != ReasonAlways {
			t.Errorf("the rule whose first glob matches the active file: %q", selIDs(res))
		}
		res = selDo(t, ws, &SelectRequest{Query: "start the app", Active: filepath.Join(root, "cmd/app/main.go")})
		if selFind(res, "rule:many") != nil {
			t.Errorf("the rule came for its glob past MaxRuleGlobs: %q", selIDs(res))
		}
		if selFind(res, "rule:braces") != nil || selFind(res, "rule:long") != nil {
			t.Errorf("a rule whose every glob was dropped came: %q", selIDs(res))
		}
	}
	for _, want := range [][]string{
		{filepath.Join(root, ".cursor/rules/many.mdc"), "more than MaxRuleGlobs (64) globs"},
		{filepath.Join(root, ".cursor/rules/braces.mdc"), "MaxRuleGlobAlternatives (256)"},
		{filepath.Join(root, ".cursor/rules/long.mdc"), "MaxRuleGlobBytes (256)"},
	} {
		if got := warningsWith(*warnings, want...); len(got) != 1 {
			t.Errorf("warnings saying %q: %d, want 1; all: %q", want, len(got), *warnings)
		}
	}
}

// Rule files past the bounds on their size and number are skipped with a
// warning naming them and the bound, and are not ranked as code either.
func TestRuleFileBounds(t *testing.T) {
	var archive strings.Builder
	archive.WriteString(selApp)
	huge := "Quokkas are the mascot. " + strings.Repeat("padding words here ", items.MaxRuleBytes/19+1)
	archive.WriteString("-- AGENTS.md --\n" + huge + "\n")
	for i := range items.MaxRuleFiles + 10 {
		fmt.Fprintf(&archive, "-- .continue/rules/r%03d.md --\nRule number %d applies always.\n", i, i)
	}
	ws, root, warnings := ruleWorkspace(t, archive.String())
	res := selDo(t, ws, &SelectRequest{Query: "quokkas mascot"})
	for _, it := range res.Items {
		if it.ID == "rule:AGENTS" || it.Path == "AGENTS.md" {
			t.Errorf("the rule file over MaxRuleBytes came as %s", it.ID)
		}
	}
	rules := 0
	for _, it := range res.Items {
		if it.Kind == ItemRule {
			rules++
			if it.ID > "rule:r127" {
				t.Errorf("%s is past the first MaxRuleFiles rule files", it.ID)
			}
		}
	}
	if rules == 0 {
		t.Errorf("no rule came: %q", selIDs(res))
	}
	if got := warningsWith(*warnings, filepath.Join(root, "AGENTS.md"), "MaxRuleBytes"); len(got) != 1 {
		t.Errorf("warnings naming AGENTS.md and MaxRuleBytes: %q", *warnings)
	}
	if got := warningsWith(*warnings, root, "10 rule files past MaxRuleFiles (128)", ".continue/rules/r128.md"); len(got) != 1 {
		t.Errorf("warnings naming the rule files past MaxRuleFiles: %q", *warnings)
	}
}

// A rule directory that is a FIFO, or a rule file that is one, is not
// waited on when the rules are refreshed.
func TestRuleFIFOsDoNotBlock(t *testing.T) {
	ws, root := selOpen(t, selApp+"-- AGENTS.md --\nWrap errors.\n", Options{})
	for _, p := range []string{".cursor/rules", ".continue/rules/x.md", "CLAUDE.md"} {
		abs := filepath.Join(root, p)
		os.MkdirAll(filepath.Dir(abs), 0o755)
		if err := syscall.Mkfifo(abs, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	done := make(chan *Selection, 1)
	go func() {
		// The rules are found again at the events and at a re-index.
		var events []FileEvent
		for _, p := range []string{".cursor/rules", ".continue/rules/x.md", "CLAUDE.md"} {
			events = append(events, FileEvent{Path: filepath.Join(root, p)})
		}
		ws.FilesChanged(events)
		ws.Index(context.Background(), nil)
		res, _ := ws.Select(context.Background(), &SelectRequest{Query: "load the config file"})
		done <- res
	}()
	select {
	case res := <-done:
		if res == nil || selFind(res, "rule:AGENTS") == nil {
			t.Errorf("the select beside the FIFOs lost the rule: %v", res)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("a select with FIFOs among the rule paths hangs")
	}
}
