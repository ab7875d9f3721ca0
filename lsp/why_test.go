package lsp

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/lsp/wire"
)

// whyApp is a small command-line program: findSuggestions in command.go,
// called from args.go (twice, by two functions) and nowhere else.
var whyApp = map[string]string{
	"go.mod": "module example.com/cli\n\ngo 1.22\n",
	"command.go": `package cli

import "strings"

// Command is one command of the program.
type Command struct {
	Name     string
	Commands []*Command
}

// Find looks a command up by name.
func (c *Command) Find(name string) *Command {
	for _, s := range c.Commands {
		if s.Name == name {
			return s
		}
	}
	return nil
}

// findSuggestions lists the commands whose names start like arg.
func (c *Command) findSuggestions(arg string) []string {
	var out []string
	for _, s := range c.Commands {
		if strings.HasPrefix(s.Name, arg) {
			out = append(out, s.Name)
		}
	}
	return out
}
`,
	"args.go": `package cli

import "fmt"

// legacyArgs rejects an unknown subcommand.
func legacyArgs(c *Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	return fmt.Errorf("unknown command %q; did you mean %v", args[0], c.findSuggestions(args[0]))
}

// suggestHelp prints the suggestions for a typo.
func suggestHelp(c *Command, typo string) string {
	return fmt.Sprint(c.findSuggestions(typo))
}
`,
	"render.go": `package cli

// renderTemplate fills a usage template.
func renderTemplate(tmpl string) string { return tmpl }
`,
}

func whyTree(t *testing.T) string {
	root := t.TempDir()
	for name, text := range whyApp {
		writeFile(t, filepath.Join(root, name), text)
	}
	return root
}

// TestSelectWhyOverLSP: over a real LSP connection, every item of several
// answers carries a reason in words; asked "who calls this" with the
// cursor in findSuggestions, each caller's reason names the line of its
// call; a question nothing in the workspace answers gets no items and a
// message saying so.
func TestSelectWhyOverLSP(t *testing.T) {
	root := whyTree(t)
	c := pipeClient(t, nil)
	c.start(root, caps{})
	for _, q := range []map[string]any{
		{"query": "findSuggestions for an unknown command"},
		{"query": "render the usage template"},
		{"query": "what does this call", "activeUri": uri(root, "args.go"), "position": lspPos{8, 2}},
	} {
		res := c.mustSelect(q)
		if len(res.Items) == 0 {
			t.Fatalf("%v: no items", q)
		}
		for _, it := range res.Items {
			if it.Why == "" || it.Why == "expanded" {
				t.Errorf("%v: %s has the reason %q", q, it.ID, it.Why)
			}
		}
	}

	res := c.mustSelect(map[string]any{"query": "who calls this", "activeUri": uri(root, "command.go"), "position": lspPos{22, 3}})
	want := map[string]string{
		"legacyArgs":  "calls `Command.findSuggestions` at args.go:10",
		"suggestHelp": "calls `Command.findSuggestions` at args.go:15",
	}
	for sym, why := range want {
		i := res.find("args.go", sym)
		if i < 0 {
			t.Errorf("who calls findSuggestions: no item for %s:%s", sym, res)
			continue
		}
		if got := res.Items[i].Why; !strings.HasPrefix(got, why) {
			t.Errorf("caller %s: why %q, want it to begin %q", sym, got, why)
		}
	}

	res = c.mustSelect(map[string]any{"query": "bake a sourdough loaf with rye flour"})
	if len(res.Items) != 0 || !res.LowConfidence || res.Message != wire.NoMatch {
		t.Errorf("off-topic question: %d items, lowConfidence %v, message %q; want none, true, %q%s", len(res.Items), res.LowConfidence, res.Message, wire.NoMatch, res)
	}
}
