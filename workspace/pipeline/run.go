package pipeline

import (
	"context"
	"math"
	"slices"

	"github.com/ctxls/ctxls/heuristics"
	"github.com/ctxls/ctxls/workspace/snapshot"
)

// The select pipeline, a stage to a file, each reading only the snapshot
// and what the stages before it returned:
//
//	understand.go  the request checked and its query analysed: plan, query
//	sources.go     each source's ranked lists over one folder (deixis.go:
//	               the cursor's symbol and its callers; graph.go: imports
//	               and test partners)
//	fuse.go        the lists fused into ranked candidates, across folders
//	pick.go        the context items (rules, notes, tools) the request takes
//	focus.go       the best files' share of the answer first
//	read.go        overlaps collapsed, texts read, type headers, items merged
//	surround.go    each entry widened to the lines around it, and the opening
//	               files' lines outside symbols that hold the query's words
//	pack.go        the entries fitted into the budget, in characters or tokens
//	render.go      the result's items, each with why it is there
//
// types.go holds the types the stages pass on, text.go the helpers on
// texts and lines several stages use.

// Run answers a contextSelect request over the snapshot s: it checks the
// request, ranks the symbols of every folder against the query, the
// conversation and the user's activity, fuses the rankings, and packs the
// best into the budget. It reads s and nothing else.
func Run(ctx context.Context, s *snapshot.Snapshot, req *SelectRequest) (*Selection, error) {
	p, err := validate(s, req)
	if err != nil {
		return nil, err
	}
	sn := &snap{Snapshot: s}
	defer sn.releaseSlabs() // after the answer is made: it holds no candidate
	s.Yield()
	q := sn.understand(p)
	rules, ruleFiles := sn.rules()
	res := &Selection{Items: []Selected{}}
	all, err := sn.gather(ctx, p, q, ruleFiles, res)
	if err != nil {
		return nil, err
	}
	s.Yield()
	byRank := diversify(all)
	if p.activeAbs == "" {
		byRank = testedCode(byRank)
	}
	pinned := sn.pinnedItems(p)
	pick, err := sn.pickItems(p, q, rules, leadingPaths(p, pinned, byRank))
	if err != nil {
		return nil, err
	}
	if err := p.loadEncoding(); err != nil {
		return nil, err
	}
	s.Yield()
	kept := focusKept(p, q, pinned, byRank)
	entries, srcs := sn.read(p, kept, pick)
	s.Yield()
	sur := newSurroundings(srcs)
	entries = sur.region(p, q, entries)
	entries = sur.outside(p, q, entries)
	sur.widen(p, q, entries)
	s.Yield()
	sn.explain(p, q, entries, srcs)
	s.Yield()
	if res.LowConfidence {
		// Nothing matched well: an item whose only evidence is a faint
		// likeness is a guess, and no guesses beat a budget of them.
		entries = slices.DeleteFunc(entries, func(e packEntry) bool { return e.weak })
	}
	res.Items, res.UsedChars = pack(p, q, sur, entries, srcs)
	markParts(res.Items)
	res.UsedTokens, res.TokenEncoding = p.usedTokens(res.Items)
	return res, nil
}

// understand analyses the plan's query, with the conversation's history
// weighed by how well the query finds code on its own.
func (s *snap) understand(p *plan) *query {
	q := analyse(p)
	if !p.req.NoRetrieval {
		best := 0.0
		if len(p.hist) > 0 {
			best = s.ownBestMatch(q)
		}
		q.addHistory(p, s.Embedder, best)
	}
	return q
}

// gather runs the sources over each folder and fuses them (fuse.go,
// scope.collect), and fills in res's statistics and confidence. An
// answer with low confidence keeps only candidates with evidence beyond
// a faint likeness.
func (s *snap) gather(ctx context.Context, p *plan, q *query, ruleFiles map[string]map[string]bool, res *Selection) ([]*cand, error) {
	res.Stats.Ready = true
	// A vague follow-up ("fix that") has no terms of its own; the history
	// it continues counts.
	conf := heuristics.ConfidenceInput{QueryTerms: len(q.terms), Unanchored: p.unanchored()}
	var all []*cand
	for _, fv := range s.Folders {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if !p.req.NoRetrieval {
			sc := newScope(s, fv, p, q)
			sc.ruleFiles = ruleFiles[fv.Root]
			all = append(all, sc.collect()...)
			sc.release()
			conf.BestLexicalCoverage = math.Max(conf.BestLexicalCoverage, sc.conf.BestLexicalCoverage)
			conf.BestSemantic = math.Max(conf.BestSemantic, sc.conf.BestSemantic)
			conf.Mentions += sc.conf.Mentions
			if sc.deictic() {
				// The symbol under the cursor is what the query names.
				conf.QueryTerms, conf.Mentions = max(conf.QueryTerms, 1), conf.Mentions+1
			}
		}
		res.Stats.Ready = res.Stats.Ready && fv.Ready
		res.Stats.Files += fv.Index.Files()
		res.Stats.Symbols += fv.Index.Symbols()
		res.Stats.Reembedded += fv.Index.Reembedded
		if res.Stats.MerkleRoot == "" {
			res.Stats.MerkleRoot = fv.Index.Tree().RootHex()
		}
	}
	res.LowConfidence = heuristics.LowConfidence(conf)
	if res.LowConfidence {
		// Nothing matched well: fewer items, each with some evidence,
		// beat a full budget of faint likenesses.
		all = slices.DeleteFunc(all, func(c *cand) bool { return !c.evident })
	}
	res.Stats.Candidates = len(all)
	res.Stats.Embedder = s.Embedder.ID()
	res.Stats.Refused = s.Refused
	res.Stats.History = s.History()
	res.Stats.Weights = s.Weights()
	return all, ctx.Err()
}
