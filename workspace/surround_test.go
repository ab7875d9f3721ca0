package workspace

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/heuristics"
)

// surroundApp is a workspace with one long file of many small functions
// (ledger.go, about 14,000 characters) and five short files that share a
// word with the queries.
func surroundApp() string {
	var b strings.Builder
	b.WriteString("-- ledger/ledger.go --\npackage ledger\n\nimport \"fmt\"\n\n")
	for i := range 120 {
		fmt.Fprintf(&b, "// step%03d moves the ledger one step.\nfunc step%03d(x int) int {\n\treturn x + %d\n}\n\n", i, i, i)
	}
	b.WriteString("// reconcileAccounts matches postings against the bank statement.\nfunc reconcileAccounts(postings []int) error {\n\treturn fmt.Errorf(\"reconcile %d postings\", len(postings))\n}\n\n")
	for i := 120; i < 240; i++ {
		fmt.Fprintf(&b, "// step%03d moves the ledger one step.\nfunc step%03d(x int) int {\n\treturn x + %d\n}\n\n", i, i, i)
	}
	for _, name := range []string{"bank", "statement", "postings", "accounts", "match"} {
		fmt.Fprintf(&b, "-- %[1]s/%[1]s.go --\npackage %[1]s\n\n// Use%[1]s reads the %[1]s.\nfunc Use%[1]s() string { return %[1]q }\n", name)
	}
	return b.String()
}

// TestSurroundLeadRegion: the lead comes with its neighbourhood, windows of
// the lines above and below it, after the opening items (which span five
// files), each at most the per-item cap, none sharing a line with another
// item, the whole about heuristics.RegionChars.
func TestSurroundLeadRegion(t *testing.T) {
	ws, root := selOpen(t, surroundApp(), Options{})
	req := &SelectRequest{Query: "reconcileAccounts matches postings against the bank statement", Limit: 20, MaxChars: 30000}
	res := selDo(t, ws, req)
	selCheckItems(t, root, req, res)
	lead := res.Items[0]
	if lead.ID != "sym:ledger/ledger.go::reconcileAccounts" || !strings.Contains(lead.Text, "func reconcileAccounts(") {
		t.Fatalf("first item: want reconcileAccounts, got %q", selIDs(res))
	}
	if len(lead.Text) < DefaultMaxCharsPerItem-200 || !strings.Contains(lead.Text, "func step119(") || !strings.Contains(lead.Text, "func step120(") {
		t.Errorf("the lead (%d chars) does not take in the functions around it:\n%s", len(lead.Text), lead.Text)
	}
	// Its symbol span says where reconcileAccounts (and its doc comment) is.
	if sp := lead.SymbolSpan; sp == nil || sp.StartLine != 4+120*5 || sp.EndLine != 4+120*5+3 {
		t.Errorf("symbol span %v, want lines %d-%d", sp, 4+120*5, 4+120*5+3)
	}
	files := map[string]bool{}
	regionChars, windows := len(lead.Text), 0
	first, last := lead.Span.StartLine, lead.Span.EndLine
	for i, it := range res.Items[1:] {
		if it.Path != "ledger/ledger.go" {
			files[it.Path] = true
			continue
		}
		if it.Reason != ReasonExpanded {
			continue // a ranked item of the file beyond the region
		}
		windows++
		regionChars += len(it.Text)
		if len(files) < 4 {
			t.Errorf("window %d (%s) comes before the opening items of the other files: %q", i+1, it.ID, selIDs(res))
		}
		// Windows continue the region without a gap.
		switch {
		case it.Span.StartLine == last+1:
			last = it.Span.EndLine
		case it.Span.EndLine+1 == first:
			first = it.Span.StartLine
		default:
			t.Errorf("window %s (lines %d-%d) does not continue the region %d-%d", it.ID, it.Span.StartLine, it.Span.EndLine, first, last)
		}
		if !strings.HasPrefix(it.ID, "sym:ledger/ledger.go::step") {
			t.Errorf("window %s is not named after a function it holds", it.ID)
		}
	}
	if windows < 2 || regionChars > heuristics.RegionChars || regionChars < heuristics.RegionChars-2*DefaultMaxCharsPerItem/3 {
		t.Errorf("%d windows, region of %d chars, want at least two and about %d: %q", windows, regionChars, heuristics.RegionChars, selIDs(res))
	}
}

// TestSurroundContext: an item other than the lead holds its symbol and
// the lines around it, up to heuristics.ContextChars, and never the lines
// of another item.
func TestSurroundContext(t *testing.T) {
	archive := surroundApp() + "-- audit/audit.go --\npackage audit\n\n// Reconcile audits a reconciliation of postings against the bank statement.\nfunc Reconcile(postings []int) bool {\n\treturn len(postings) > 0\n}\n"
	ws, root := selOpen(t, archive, Options{})
	req := &SelectRequest{Query: "step130 moves the ledger; audit Reconcile of postings", Limit: 40, MaxChars: 8000} // the budget binds
	res := selDo(t, ws, req)
	selCheckItems(t, root, req, res)
	it := selFind(res, "sym:audit/audit.go::Reconcile")
	if it == nil || !strings.HasPrefix(it.Text, "package audit") {
		t.Fatalf("want audit.go's Reconcile with the lines above it, got %q", selIDs(res))
	}
	for _, it := range res.Items {
		if it.Reason != ReasonExpanded && it.ID != res.Items[0].ID && len(it.Text) > heuristics.ContextChars {
			t.Errorf("%s: %d chars, more than its surroundings allow (%d)", it.ID, len(it.Text), heuristics.ContextChars)
		}
	}
}

// TestSurroundSpendsBudgetAtTheLimit: an answer that ends at its limit with
// budget to spare widens its items, each up to the per-item cap.
func TestSurroundSpendsBudgetAtTheLimit(t *testing.T) {
	ws, root := selOpen(t, surroundApp(), Options{})
	// A cap above heuristics.ContextChars: only the budget left over can
	// widen an item past it.
	const perItem = 1400
	req := &SelectRequest{Query: "step050 step150 step200 move the ledger", Limit: 3, MaxCharsPerItem: perItem}
	res := selDo(t, ws, req)
	selCheckItems(t, root, req, res)
	if len(res.Items) != 3 {
		t.Fatalf("want 3 items, got %q", selIDs(res))
	}
	for _, it := range res.Items {
		if len(it.Text) < perItem-60 {
			t.Errorf("%s: %d chars, want it widened to about the cap of %d (budget left: %d of %d)", it.ID, len(it.Text), perItem, DefaultMaxChars-res.UsedChars, DefaultMaxChars)
		}
	}
}

// TestSurroundPointedQueryKeepsItsOrder: a query that points at the code
// under the cursor gets no neighbourhood: the symbol first, then its
// callers.
func TestSurroundPointedQueryKeepsItsOrder(t *testing.T) {
	var caller strings.Builder
	caller.WriteString("-- ledger/run.go --\npackage ledger\n\n")
	for i := range 60 {
		fmt.Fprintf(&caller, "// helper%d helps.\nfunc helper%d() int {\n\treturn %d\n}\n\n", i, i, i)
	}
	caller.WriteString("// run runs step130.\nfunc run() int { return step130(1) }\n")
	ws, root := selOpen(t, surroundApp()+caller.String(), Options{})
	req := &SelectRequest{Query: "who calls this", Active: selPath(root, "ledger/ledger.go"), Cursor: &Cursor{Line: 5 + 130*5 + 5 + 1}, Limit: 40, MaxChars: 4000} // the budget binds: nothing is widened to the cap
	res := selDo(t, ws, req)
	selCheckItems(t, root, req, res)
	selFirst(t, res, "sym:ledger/ledger.go::step130")
	// The caller, the first item outside the active file, is no lead: it
	// takes in the lines around it, not a neighbourhood.
	run := selFind(res, "sym:ledger/run.go::run")
	if run == nil {
		t.Fatalf("the caller is missing: %q", selIDs(res))
	}
	if len(run.Text) > heuristics.ContextChars {
		t.Errorf("the caller has %d chars, a lead's neighbourhood:\n%s", len(run.Text), run.Text)
	}
}

// TestSurroundKindsFilter: a request for some kinds of symbol only gets no
// neighbourhood, whose windows are named after whatever symbol they hold.
func TestSurroundKindsFilter(t *testing.T) {
	var b strings.Builder
	b.WriteString("-- ledger/ledger.go --\npackage ledger\n\n")
	for i := range 240 {
		if i == 120 {
			b.WriteString("// reconcileAccounts matches postings against the bank statement.\nfunc reconcileAccounts(postings []int) error {\n\treturn nil\n}\n\n")
		}
		fmt.Fprintf(&b, "// Entry%03d is one kind of ledger entry.\ntype Entry%03d struct {\n\tCents int\n}\n\n", i, i)
	}
	ws, root := selOpen(t, b.String(), Options{})
	req := &SelectRequest{Query: "reconcileAccounts matches postings against the bank statement", Kinds: []string{"function"}, Limit: 20}
	res := selDo(t, ws, req)
	selCheckItems(t, root, req, res)
	selFirst(t, res, "sym:ledger/ledger.go::reconcileAccounts")
	for _, it := range res.Items {
		if it.Kind != "function" {
			t.Errorf("kinds [function]: got %s (%s)", it.ID, it.Kind)
		}
	}
}

// lesserApp is surroundApp with six more files, each one long function
// (about 1,000 characters) whose one line that names the query's words
// lies in its middle.
func lesserApp() string {
	var b strings.Builder
	b.WriteString(surroundApp())
	for _, name := range []string{"bankfeed", "clearing", "payouts", "refunds", "settlement", "invoices"} {
		fmt.Fprintf(&b, "-- %[1]s/%[1]s.go --\npackage %[1]s\n\n// Sync%[1]s copies the %[1]s.\nfunc Sync%[1]s(xs []int) int {\n\tn := 0\n", name)
		for i := range 18 {
			fmt.Fprintf(&b, "\tn += xs[%d] * %d // filler line of the copy\n", i, i+1)
			if i == 9 {
				b.WriteString("\tn += reconcileAccounts(xs) // reconcile the postings against the bank statement\n")
			}
		}
		b.WriteString("\treturn n\n}\n")
	}
	return b.String()
}

// TestSurroundLesserFilesShort: when the limit leaves room after the
// opening items, the items of an answer's fourth file and after are cut to
// the lines that match the query, up to heuristics.TailChars, while the
// first files' items keep their surroundings; at the default limit every
// item keeps its whole symbol.
func TestSurroundLesserFilesShort(t *testing.T) {
	ws, root := selOpen(t, lesserApp(), Options{})
	query := "reconcileAccounts reconcile the postings against the bank statement"
	req := &SelectRequest{Query: query, Limit: 20, MaxChars: 30000}
	res := selDo(t, ws, req)
	selCheckItems(t, root, req, res)
	var files []string
	short := 0
	for _, it := range res.Items {
		k := slices.Index(files, it.Path)
		if k < 0 {
			k, files = len(files), append(files, it.Path)
		}
		long := strings.HasPrefix(it.Path, "bankfeed/") || strings.HasPrefix(it.Path, "clearing/") || strings.HasPrefix(it.Path, "payouts/") ||
			strings.HasPrefix(it.Path, "refunds/") || strings.HasPrefix(it.Path, "settlement/") || strings.HasPrefix(it.Path, "invoices/")
		switch {
		case k+1 >= heuristics.TailRank:
			if len(it.Text) > heuristics.TailChars {
				t.Errorf("%s, of the answer's file %d: %d chars, want at most %d", it.ID, k+1, len(it.Text), heuristics.TailChars)
			}
			if long {
				short++
				if !it.Truncated || !strings.Contains(it.Text, "reconcileAccounts(xs)") || strings.Contains(it.Text, "return n\n}") {
					t.Errorf("%s, of the answer's file %d: want the line that matches the query, truncated; got (truncated %v)\n%s", it.ID, k+1, it.Truncated, it.Text)
				}
			}
		case long && (it.Truncated || !strings.Contains(it.Text, "return n\n}")):
			t.Errorf("%s, of the answer's file %d: %d chars, want the whole function", it.ID, k+1, len(it.Text))
		}
	}
	if short == 0 {
		t.Fatalf("no long function among the answer's fourth file and after: %q", selIDs(res))
	}
	// The default limit leaves no room after the opening: nothing is cut.
	req = &SelectRequest{Query: query}
	res = selDo(t, ws, req)
	selCheckItems(t, root, req, res)
	for _, it := range res.Items {
		if strings.HasPrefix(it.ID, "sym:") && strings.Contains(it.ID, "::Sync") && (it.Truncated || !strings.Contains(it.Text, "return n\n}")) {
			t.Errorf("default limit: %s cut to %d chars (truncated %v), want the whole function", it.ID, len(it.Text), it.Truncated)
		}
	}
}

// optionsApp is one Go file holding a long struct of options: forty
// one-line fields at its top, five of which say "option", then many fields
// documented without the word, and among them the one the query is about.
func optionsApp() string {
	var b strings.Builder
	b.WriteString("-- cli/opts.go --\npackage cli\n\n// Opts holds the command line.\ntype Opts struct {\n")
	for i := range 40 {
		word := "flag"
		if i%8 == 0 {
			word = "option"
		}
		fmt.Fprintf(&b, "\tAlpha%02d bool // alpha%02d %s\n", i, i, word)
	}
	for i := range 60 {
		if i == 45 {
			b.WriteString("\t// Palette option picks the terminal colors.\n\tPalette string\n")
		}
		fmt.Fprintf(&b, "\t// Beta%02d sets the beta knob.\n\t// It is documented here.\n\tBeta%02d int\n", i, i)
	}
	b.WriteString("}\n")
	return b.String()
}

// TestSurroundCutKeepsTheRareWord: a symbol over the per-item cap is cut
// around the lines that match the query, a word weighing by how rare it
// is among the symbol's lines: "option" is on six of them, five at the
// top, and says less of where to look than "terminal" and "palette", on
// one. (Counted alike, the top's five lines outweighed the field's three
// words.)
func TestSurroundCutKeepsTheRareWord(t *testing.T) {
	ws, root := selOpen(t, optionsApp(), Options{})
	req := &SelectRequest{Query: "terminal palette option", Limit: 8}
	res := selDo(t, ws, req)
	selCheckItems(t, root, req, res)
	if len(res.Items) == 0 || res.Items[0].Symbol != "Opts" {
		t.Fatalf("first item: want Opts, got %q", selIDs(res))
	}
	lead := res.Items[0]
	if !lead.Truncated || !strings.Contains(lead.Text, "\tPalette string\n") {
		t.Errorf("the cut of Opts (%d chars, lines %d-%d) does not hold the Palette field:\n%s",
			len(lead.Text), lead.Span.StartLine, lead.Span.EndLine, lead.Text)
	}
}
