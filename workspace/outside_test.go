package workspace

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/heuristics"
)

// outsideApp is a small command-line tool in the shape of a real one: its
// commands are functions of tool/cli.py, and the table that registers
// them with the command group is top-level code at the end of the file,
// no symbol's, far from the functions (as in click or argparse tools).
func outsideApp() string {
	var b strings.Builder
	b.WriteString("-- tool/cli.py --\nimport os\nimport sys\n\nfrom .group import Group\n\ncli = Group(\"tool\")\n\n\n")
	names := []string{"init", "status", "prune"}
	for i := range 40 {
		names = append(names, fmt.Sprintf("step%02d", i))
	}
	for _, n := range names {
		fmt.Fprintf(&b, "def cmd_%[1]s(args):\n    \"\"\"Run the %[1]s command over the given paths.\"\"\"\n    for path in args.paths:\n        print(%[1]q, os.path.abspath(path), file=sys.stderr)\n    return 0\n\n\n", n)
	}
	for _, n := range names {
		fmt.Fprintf(&b, "cli.add_command(%q, cmd_%s)\n", n, n)
	}
	b.WriteString("-- tool/group.py --\nclass Group:\n    \"\"\"A group of named commands.\"\"\"\n\n    def __init__(self, name):\n        self.name = name\n        self.commands = {}\n\n    def add_command(self, name, fn):\n        self.commands[name] = fn\n")
	return b.String()
}

// TestOutsideLinesRegistrationTable: a request about registering a
// command gets the line of the registration table that names it, top-level
// code no symbol holds, as an item of its own that says what it is; the
// function it registers still comes first.
func TestOutsideLinesRegistrationTable(t *testing.T) {
	ws, root := selOpen(t, outsideApp(), Options{})
	req := &SelectRequest{Query: "register the prune command with the cli", Limit: 20}
	res := selDo(t, ws, req)
	selCheckItems(t, root, req, res)
	selFirst(t, res, "sym:tool/cli.py::cmd_prune")
	var got *Selected
	for i, it := range res.Items {
		if it.Path == "tool/cli.py" && strings.Contains(it.Text, `cli.add_command("prune", cmd_prune)`) {
			got = &res.Items[i]
		}
	}
	if got == nil {
		for _, it := range res.Items {
			t.Logf("%s %d-%d: %s", it.ID, it.Span.StartLine, it.Span.EndLine, it.Why)
		}
		t.Fatalf("no item holds the registration of prune: %q", selIDs(res))
	}
	if len(got.Text) > heuristics.OutsideChars {
		t.Errorf("the registration item holds %d chars, more than %d", len(got.Text), heuristics.OutsideChars)
	}
	if want := "top-level lines of cli.py that hold words of your question: prune"; !strings.Contains(got.Why, want) {
		t.Errorf("why %q, want it to say %q", got.Why, want)
	}
}
