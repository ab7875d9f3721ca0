package pipeline

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/ctxls/ctxls/heuristics"
	"github.com/ctxls/ctxls/symbolindex/tokenize"
	"github.com/ctxls/ctxls/workspace/items"
	"github.com/ctxls/ctxls/workspace/snapshot"
)

// This file picks the context items of a request (workspace/items) and scores
// them against its query.

// atName is an item named in the query: "@db-migrations".
var atName = regexp.MustCompile(`(?:^|[\s(\[,;])@([A-Za-z0-9_][A-Za-z0-9_.~/-]*)`)

// pickItems chooses the context items of a request. codePaths are the
// folder-relative paths of the code the ranking put first, by folder root,
// for scoped rules and notes about files.
func (s *snap) pickItems(p *plan, q *query, rules []*contextItem, codePaths map[string][]string) (itemPick, error) {
	var all []*contextItem
	for _, group := range [][]*contextItem{rules, s.toolItems(), s.memoryItems()} {
		all = append(all, group...)
	}
	named := map[string]bool{}
	for i, ref := range p.req.Items {
		it := findItem(all, ref)
		if it == nil {
			return itemPick{}, ParamErr(fmt.Sprintf("items[%d]", i), "no context item named %q (%s)", ref, knownItems(all))
		}
		named[it.ID()] = true
	}
	for _, m := range atName.FindAllStringSubmatch(p.req.Query, -1) {
		if it := findItem(all, strings.TrimRight(m[1], ".")); it != nil {
			named[it.ID()] = true
		}
	}
	var pick itemPick
	var scored []*contextItem
	for _, it := range all {
		switch {
		case !p.itemKind(it.Kind):
		case named[it.ID()]:
			it.reason, it.fused = ReasonManual, 1
			pick.required = append(pick.required, it)
		case it.Include == items.IncludeAlways && (it.Globs == nil || it.inScope(p, codePaths)):
			it.reason, it.fused = ReasonAlways, 1
			pick.required = append(pick.required, it)
		case p.req.NoRetrieval || it.Include == items.IncludeManual:
		case it.Include == items.IncludeAgent || it.Include == items.IncludeAlways && it.Description != "":
			if it.score = s.itemScore(it, q, p, codePaths); it.score >= s.Config.ItemThreshold && it.score > 0 {
				scored = append(scored, it)
			}
		}
	}
	// Always rules before named items, each in the order found.
	sort.SliceStable(pick.required, func(i, j int) bool {
		return pick.required[i].reason == ReasonAlways && pick.required[j].reason != ReasonAlways
	})
	sort.SliceStable(scored, func(i, j int) bool { return scored[i].score > scored[j].score })
	for i, it := range scored {
		if i >= s.Config.ItemTopN && it.score < s.Config.ItemIncludeScore {
			break
		}
		it.rank = i + 1
		it.reason = ReasonAgent
		if it.Kind == items.ItemMemory {
			it.reason = ReasonRetrieved
		}
		it.fused = heuristics.ItemFused(it.score, it.rank)
		pick.scored = append(pick.scored, it)
	}
	return pick, nil
}

// findItem is the item a request names: by id ("rule:db-migrations") or by
// name, ignoring case.
func findItem(all []*contextItem, ref string) *contextItem {
	for _, it := range all {
		if strings.EqualFold(ref, it.ID()) || strings.EqualFold(ref, it.Name) {
			return it
		}
	}
	return nil
}

// knownItems says which items there are, for an error.
func knownItems(all []*contextItem) string {
	var names []string
	for _, it := range all {
		if it.Kind != items.ItemMemory {
			names = append(names, it.Name)
		}
	}
	if len(names) == 0 {
		return "the workspace has no rules and no tools are registered"
	}
	const most = 12
	if len(names) > most {
		return "known: " + strings.Join(names[:most], ", ") + ", …"
	}
	return "known: " + strings.Join(names, ", ")
}

// inScope reports whether a scoped item's globs match the active file or
// one of the code items ranked first.
func (it *contextItem) inScope(p *plan, codePaths map[string][]string) bool {
	if p.activeAbs != "" && snapshot.Within(it.Root, p.activeAbs) && it.Globs.MatchAny(snapshot.RelPath(it.Root, p.activeAbs)) {
		return true
	}
	for _, rel := range codePaths[it.Root] {
		if it.Globs.MatchAny(rel) {
			return true
		}
	}
	return false
}

// itemScore is how well an item matches the query, in [0,1]: the share of
// the query's terms (weighted by their rarity in the code, and the
// history's by their weight) that the item's name, description (or text)
// hold, or the cosine of their vectors, whichever is higher. A note about the active file or a selected one scores at least
// heuristics.MemoryPathScore; a note's score halves every
// Config.MemoryHalfLife unless it is pinned.
func (s *snap) itemScore(it *contextItem, q *query, p *plan, codePaths map[string][]string) float64 {
	have := map[string]bool{}
	tokenize.Terms(it.Match, func(t string) { have[t] = true })
	var num, den float64
	for _, t := range q.terms {
		w := float64(t.Weight) * s.termIDF(t.Term)
		den += w
		if have[t.Term] {
			num += w
		}
	}
	score := 0.0
	if den > 0 {
		score = num / den
	}
	if q.vec != nil { // a deictic query has no vector: embed no item for it
		if v := s.itemVec(it.Match); v != nil {
			score = math.Max(score, dot(q.vec, v))
		}
	}
	if n := it.Note; n != nil {
		if noteMentions(n, p, codePaths) {
			score = math.Max(score, heuristics.MemoryPathScore)
		}
		if !n.Pinned {
			score *= heuristics.Decay(s.Now.Sub(n.Created), time.Duration(s.Config.MemoryHalfLife))
		}
	}
	return score
}

// termIDF is a term's rarity in the code of the workspace: its highest IDF
// over the folders.
func (s *snap) termIDF(term string) float64 {
	best := 0.0
	for _, fv := range s.Folders {
		best = math.Max(best, float64(fv.Index.TermIDF(term)))
	}
	return best
}

// noteMentions reports whether a note is about the active file or a code
// item ranked first.
func noteMentions(n *items.Note, p *plan, codePaths map[string][]string) bool {
	for _, rel := range n.Paths {
		if p.activeAbs == snapshot.JoinRoot(n.Root, rel) || slices.Contains(codePaths[n.Root], rel) {
			return true
		}
	}
	return false
}

// leadingPaths are the paths of the pinned code and of the code ranked
// first (heuristics.ItemScopeTopK of them, if the query's words or names
// found them: a neighbour of nothing in particular scopes nothing), by
// folder root: what the scoped rules and notes about files are matched
// with.
func leadingPaths(p *plan, pinned, ranked []*cand) map[string][]string {
	out := map[string][]string{}
	add := func(c *cand) {
		if !slices.Contains(out[c.folder.Root], c.path) {
			out[c.folder.Root] = append(out[c.folder.Root], c.path)
		}
	}
	for _, c := range pinned {
		add(c)
	}
	for _, c := range ranked[:min(len(ranked), p.limit, heuristics.ItemScopeTopK)] {
		if c.ranks[heuristics.SrcLexical] > 0 || c.ranks[heuristics.SrcMention] > 0 {
			add(c)
		}
	}
	return out
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
