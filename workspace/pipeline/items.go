package pipeline

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ctxls/ctxls/heuristics"
	"github.com/ctxls/ctxls/workspace/items"
	"github.com/ctxls/ctxls/workspace/snapshot"
)

// snap is the snapshot a request reads, with the pipeline's methods.
type snap struct{ *snapshot.Snapshot }

// contextItem is an item other than code (workspace/items) as one request
// ranks it: a copy of the item with the request's own reason and scores.
type contextItem struct {
	items.Item

	reason string
	score  float64 // how well it matches the query, in [0,1]
	rank   int     // among the items that came in on their score
	fused  float64
}

// toolItems are the tools the configuration registers.
func (s *snap) toolItems() []*contextItem {
	out := make([]*contextItem, 0, len(s.Config.Tools))
	for _, t := range s.Config.Tools {
		inc := t.Include
		if inc == "" {
			inc = items.IncludeAgent
		}
		out = append(out, &contextItem{Item: items.Item{Kind: items.ItemTool, Name: t.Name, Include: inc, Description: t.Description,
			Text: t.Description, Match: t.Name + "\n" + t.Description}})
	}
	return out
}

// memoryItems are the remembered notes.
func (s *snap) memoryItems() []*contextItem {
	out := make([]*contextItem, 0, len(s.Notes))
	for i := range s.Notes {
		n := &s.Notes[i]
		out = append(out, &contextItem{Item: items.Item{Kind: items.ItemMemory, Name: n.ID, Include: items.IncludeAgent, Text: n.Text,
			Match: n.Text + "\n" + strings.Join(n.Tags, " "), Root: n.Root, Paths: n.Paths, Note: n}})
	}
	return out
}

// selected turns an item into a result item with its text cut to n bytes.
func (it *contextItem) selected(n int, cut bool) Selected {
	text, trunc := heuristics.TruncateText(it.Text, n)
	sel := Selected{
		ID: it.ID(), Symbol: it.Name, Kind: it.Kind, Language: it.Lang, Text: text, Truncated: trunc || cut,
		Score: round4(it.fused), Reason: it.reason, Span: it.Span, StartLineText: it.StartLine, EndLineText: it.EndLine,
	}
	if it.rank > 0 {
		sel.Signals = map[string]Signal{heuristics.SourceNames[heuristics.SrcItem]: {Rank: it.rank, Score: round4(it.score)}}
	}
	if len(it.Paths) > 0 {
		sel.Paths = it.Paths
	}
	if it.Kind == items.ItemRule {
		sel.Path, sel.Abs = it.Paths[0], snapshot.JoinRoot(it.Root, it.Paths[0])
	}
	return sel
}

// dot is the dot product of two vectors of one embedder (normalized: their
// cosine); 0 when their sizes differ.
func dot(a, b []float32) float64 {
	if len(a) != len(b) {
		return 0
	}
	var d float32
	for i := range a {
		d += a[i] * b[i]
	}
	return float64(d)
}

// rules are the parsed rules of every folder of the snapshot, each a copy
// the request may change, named apart across folders; and the rule files
// by folder root, which the code ranking leaves out: their text comes as
// rules.
func (s *snap) rules() ([]*contextItem, map[string]map[string]bool) {
	var out []*contextItem
	files := map[string]map[string]bool{}
	names := map[string]int{}
	for _, fv := range s.Folders {
		if fv.RuleFiles == nil {
			continue
		}
		files[fv.Root] = fv.RuleFiles
		for _, it := range fv.Rules {
			c := &contextItem{Item: *it}
			c.Paths = slices.Clone(it.Paths)
			// Names are ids: a second rule of the same name (another
			// folder's AGENTS.md) gets a number.
			name := strings.ToLower(c.Name)
			if n := names[name]; n > 0 {
				c.Name = fmt.Sprintf("%s~%d", c.Name, n+1)
			}
			names[name]++
			out = append(out, c)
		}
	}
	return out, files
}

// itemVec is the vector of an item's words, from the workspace's cache of
// them; nil if they do not embed.
func (s *snap) itemVec(text string) []float32 { return s.ItemVecs.Get(s.Embedder, text) }
