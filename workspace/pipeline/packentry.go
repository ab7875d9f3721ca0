package pipeline

import (
	"github.com/ctxls/ctxls/heuristics"
	"github.com/ctxls/ctxls/symbolindex/parse"
)

// This file holds the pack stage's entries (pack.go): the code candidates
// and context items the budget is filled from, in their order.

// packEntry is one entry of the list the budget is filled from: a code
// candidate with its text, or a context item.
type packEntry struct {
	cand   *cand
	text   string
	prefix string // a code candidate's enclosing type header (typecontext.go)
	item   *contextItem
	// rng is the lines a code candidate's text holds: its symbol's, or
	// more with the lines around it (surround.go).
	rng parse.Range
	// fixed: the lead and its neighbourhood, which are not widened again;
	// cut: text is already an excerpt of the symbol.
	fixed, cut bool
}

// mergeItems orders what the budget is filled from: the required items
// (always rules, named items), the pinned code, then the ranked code and
// the items that came in on their score, by fused score.
func mergeItems(ready []*cand, texts, prefixes []string, pick itemPick) []packEntry {
	out := make([]packEntry, 0, len(ready)+len(pick.required)+len(pick.scored))
	for _, it := range pick.required {
		out = append(out, packEntry{item: it, text: it.Text})
	}
	i := 0
	for ; i < len(ready) && ready[i].reason == ReasonPinned; i++ {
		out = append(out, packEntry{cand: ready[i], text: texts[i], prefix: prefixes[i], rng: ready[i].sym.Range})
	}
	scored := pick.scored
	for ; i < len(ready); i++ {
		for len(scored) > 0 && scored[0].fused > ready[i].fused {
			out = append(out, packEntry{item: scored[0], text: scored[0].Text})
			scored = scored[1:]
		}
		out = append(out, packEntry{cand: ready[i], text: texts[i], prefix: prefixes[i], rng: ready[i].sym.Range})
	}
	for _, it := range scored {
		out = append(out, packEntry{item: it, text: it.Text})
	}
	return out
}

// packItem is an entry's part in the budget: items other than code count
// against the share, and do not count against the limit; the named items
// and the unscoped always rules are not held to the share (a scoped rule,
// which the code brought in, is).
func (e packEntry) packItem(p *plan) heuristics.PackItem {
	if it := e.item; it != nil {
		required := it.reason == ReasonManual || it.reason == ReasonAlways && it.Globs == nil
		return heuristics.PackItem{Len: len(e.text), Shared: true, Extra: true, Required: required}
	}
	return heuristics.PackItem{Len: len(e.prefix) + len(e.text), Shared: p.sharedDoc(e.cand)}
}

// sharedDoc reports whether a code candidate is documentation held to the
// item share: not when pinned, nor when the query asks for documentation.
func (p *plan) sharedDoc(c *cand) bool {
	return c.cat.Has(heuristics.Docs) && c.reason != ReasonPinned && !p.asks.Docs
}
