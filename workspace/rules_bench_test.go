package workspace

import "testing"

// BenchmarkSelectRules is a select over a workspace holding rules of every
// kind (itemsApp: AGENTS.md and CLAUDE.md, Cursor rules, a .ctxls item):
// what the rules add to every request.
func BenchmarkSelectRules(b *testing.B) {
	ws, _ := selOpen(b, itemsApp, Options{})
	req := &SelectRequest{Query: "reject unknown keys when parsing the configuration file"}
	for b.Loop() {
		if _, err := ws.Select(b.Context(), req); err != nil {
			b.Fatal(err)
		}
	}
}
