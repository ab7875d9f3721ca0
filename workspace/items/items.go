package items

import (
	"github.com/ctxls/ctxls/symbolindex/parse"
	"github.com/ctxls/ctxls/workspace/glob"
)

// Context items are what a selection returns beside code: rules (AGENTS.md,
// CLAUDE.md, Cursor, Copilot and Continue rules, .ctxls/items), memory
// notes (workspace/memory.go) and the tools a client registered (Config.Tools).
// Documentation sections come from the code ranking and keep their symbol
// kind; they are items of kind "doc" for includeItems and the item share.
// Each item has an include mode (workspace/pipeline picks them):
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

// Item is one item other than code, as found: a rule file parsed, a note,
// a registered tool. It is shared by every request that sees it; the
// select pipeline copies it before writing to it.
type Item struct {
	Kind, Name, Include string
	Description         string
	Globs               *glob.Set // a scoped rule's; nil: unscoped
	Text                string    // what the result holds
	Match               string    // what the query is matched against
	Root                string    // the folder of a file's item
	Paths               []string  // relative to Root; the first is where it was found first
	Span                parse.Range
	StartLine, EndLine  []byte // the text of Span's first and last lines
	Lang                string
	Note                *Note
}

// ID is the item's id on the wire: "rule:<name>", "memory:<id>",
// "tool:<name>".
func (it *Item) ID() string { return it.Kind + ":" + it.Name }
