package workspace

import (
	"strings"

	"github.com/ctxls/ctxls/heuristics"
	"github.com/ctxls/ctxls/workspace/glob"
)

// Context items are what a selection returns beside code: rules (AGENTS.md,
// CLAUDE.md, Cursor, Copilot and Continue rules, .ctxls/items), memory
// notes (memory.go) and the tools a client registered (Config.Tools).
// Documentation sections come from the code ranking and keep their symbol
// kind; they are items of kind "doc" for includeItems and the item share.
// Each item has an include mode:
//
//   - always: included first, before code, whatever the query; a rule
//     scoped by globs applies when the active file or a selected code item
//     matches them (and, with a description, is an agent rule otherwise);
//   - manual: only when the request names it (items, or "@name" in the
//     query);
//   - agent: when its words match the query's (itemScore) at least
//     Config.ItemThreshold, at most Config.ItemTopN of them unless they
//     score Config.ItemIncludeScore.
//
// Memory notes are chosen like agent items, their score decaying with age
// unless pinned. Items of identical content found under several paths are
// one item that lists them all. Every file is read through the gate.

// contextItem is one item other than code.
type contextItem struct {
	kind, name, include string
	description         string
	globs               *glob.Set // a scoped rule's; nil: unscoped
	text                string    // what the result holds
	match               string    // what the query is matched against
	root                string    // the folder of a file's item
	paths               []string  // relative to root; the first is where it was found first
	span                Span
	startLine, endLine  []byte
	lang                string
	note                *Note

	reason string
	score  float64 // how well it matches the query, in [0,1]
	rank   int     // among the items that came in on their score
	fused  float64
}

// id is the item's id on the wire: "rule:<name>", "memory:<id>",
// "tool:<name>".
func (it *contextItem) id() string { return it.kind + ":" + it.name }

// toolItems are the tools the configuration registers.
func (s *Snapshot) toolItems() []*contextItem {
	out := make([]*contextItem, 0, len(s.cfg.Tools))
	for _, t := range s.cfg.Tools {
		inc := t.Include
		if inc == "" {
			inc = IncludeAgent
		}
		out = append(out, &contextItem{kind: ItemTool, name: t.Name, include: inc, description: t.Description,
			text: t.Description, match: t.Name + "\n" + t.Description})
	}
	return out
}

// memoryItems are the remembered notes.
func (s *Snapshot) memoryItems() []*contextItem {
	out := make([]*contextItem, 0, len(s.notes))
	for i := range s.notes {
		n := &s.notes[i]
		out = append(out, &contextItem{kind: ItemMemory, name: n.ID, include: IncludeAgent, text: n.Text,
			match: n.Text + "\n" + strings.Join(n.Tags, " "), root: n.Root, paths: n.Paths, note: n})
	}
	return out
}

// selected turns an item into a result item with its text cut to n bytes.
func (it *contextItem) selected(n int, cut bool) Selected {
	text, trunc := heuristics.TruncateText(it.text, n)
	sel := Selected{
		ID: it.id(), Symbol: it.name, Kind: it.kind, Language: it.lang, Text: text, Truncated: trunc || cut,
		Score: round4(it.fused), Reason: it.reason, Span: it.span, StartLineText: it.startLine, EndLineText: it.endLine,
	}
	if it.rank > 0 {
		sel.Signals = map[string]Signal{heuristics.SourceNames[heuristics.SrcItem]: {Rank: it.rank, Score: round4(it.score)}}
	}
	if len(it.paths) > 0 {
		sel.Paths = it.paths
	}
	if it.kind == ItemRule {
		sel.Path, sel.Abs = it.paths[0], joinRoot(it.root, it.paths[0])
	}
	return sel
}
