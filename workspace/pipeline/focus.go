package pipeline

import (
	"slices"
	"sort"

	"github.com/ctxls/ctxls/heuristics"
	"github.com/ctxls/ctxls/symbolindex"
	"github.com/ctxls/ctxls/symbolindex/parse"
	"github.com/ctxls/ctxls/workspace/config"
)

// focus spends the best files' shares of the budget on them. Once a file
// ranks first, the model needs the code in it that the change touches,
// not the first symbol of each of twenty files. The first
// heuristics.FocusAfter items keep their order (so the first few span
// files); then come the best-ranked file's other symbols, ranked again
// among themselves (BM25F and cosine against the query restricted to the
// file, beside their fused score), and the file's head (its lines before
// the first symbol), until they fill the file's share of the budget (of
// config.DefaultMaxChars at most, each counted at most maxCharsPerItem; the share
// grows with the file's lead, heuristics.FocusShare); then the same for
// the second-ranked file (heuristics.SecondShare). Together they take at
// most half the limit (heuristics.FocusRoom). They take scores between the item before them and
// the next one after, so items stay sorted by score; the order in which
// files first appear is unchanged.
func focus(p *plan, q *query, byRank []*cand) []*cand {
	if len(byRank) < 2 {
		return byRank
	}
	nHead := opening(p, byRank)
	room := heuristics.FocusRoom(p.limit, nHead)
	if room <= 0 {
		return byRank // the limit leaves no room (the default limit of 8 does not)
	}
	head := byRank[:nHead]
	// The files to focus on are the best two but the active one: the
	// user has it in front of them.
	var top, second *cand
	next := 0.0
	for _, c := range byRank {
		switch {
		case p.inActive(c):
		case top == nil:
			top = c
		case !sameFile(c, top):
			next, second = c.fused, c
		default:
			continue
		}
		if second != nil {
			break
		}
	}
	if top == nil {
		return byRank
	}
	budget := float64(min(p.maxChars, config.DefaultMaxChars))
	rest := byRank[nHead:]
	pulled, rest := focusFile(p, q, top, head, rest, int(heuristics.FocusShare(next/top.fused)*budget), room)
	if second != nil {
		var more []*cand
		more, rest = focusFile(p, q, second, head, rest, int(heuristics.SecondShare*budget), room-len(pulled))
		pulled = append(pulled, more...)
	}
	if len(pulled) == 0 {
		return byRank
	}
	sort.SliceStable(rest, func(i, j int) bool { return rest[i].fused > rest[j].fused })
	between(pulled, head[len(head)-1], rest)
	out := make([]*cand, 0, len(byRank)+1)
	out = append(out, head...)
	out = append(out, pulled...)
	return append(out, rest...)
}

// opening orders the first items of a ranking and marks them: the first
// heuristics.FocusAfter items keep their place and, when they hold fewer
// than FocusAfter files besides the active one (which the user has in
// front of them), the best item of each next file joins them until they
// do. What comes after them (the best files' shares, the lead's
// neighbourhood) must not push the fifth file out of an answer whose
// budget binds. It returns how many items open the ranking.
func opening(p *plan, byRank []*cand) int {
	n := min(heuristics.FocusAfter, len(byRank))
	var files []*cand
	seen := func(c *cand) bool {
		return p.inActive(c) ||
			slices.ContainsFunc(files, func(o *cand) bool { return sameFile(o, c) })
	}
	for _, c := range byRank[:n] {
		if !seen(c) {
			files = append(files, c)
		}
	}
	var joined []*cand
	for i := n; i < len(byRank) && len(files) < heuristics.FocusAfter; i++ {
		if c := byRank[i]; !seen(c) {
			files = append(files, c)
			joined = append(joined, c)
		}
	}
	if len(joined) > 0 {
		rest := slices.DeleteFunc(slices.Clone(byRank[n:]), func(c *cand) bool { return slices.Contains(joined, c) })
		between(joined, byRank[n-1], rest)
		copy(byRank[n:], joined)
		copy(byRank[n+len(joined):], rest)
		n += len(joined)
	}
	for _, c := range byRank[:n] {
		c.opening = true
	}
	return n
}

// between gives items moved up behind prev scores between prev's and the
// first of rest's, in their order, so that items stay sorted by score.
func between(items []*cand, prev *cand, rest []*cand) {
	hi, lo := prev.fused, 0.0
	if len(rest) > 0 {
		lo = min(rest[0].fused, hi)
	}
	for j, c := range items {
		c.fused = lo + (hi-lo)*float64(len(items)-j)/float64(len(items)+1)
	}
}

func sameFile(a, b *cand) bool { return a.folder == b.folder && a.fileSlot == b.fileSlot }

// focusFile pulls the symbols of best's file out of rest, best first by
// their score within the file, and the file's head (its lines before the
// first symbol) ahead of them, until they and the file's items in head
// fill share characters or room items. It returns them and what is left
// of rest.
func focusFile(p *plan, q *query, best *cand, head, rest []*cand, share, room int) (pulled, left []*cand) {
	size := func(c *cand) int {
		n := int(c.sym.EndByte - c.sym.StartByte)
		if p.perItem > 0 {
			n = min(n, p.perItem)
		}
		return n
	}
	used := 0
	var taken []parse.Range
	for _, c := range head {
		if sameFile(c, best) {
			used += size(c)
			taken = append(taken, c.sym.Range)
		}
	}
	var mine []*cand
	left = make([]*cand, 0, len(rest))
	for _, c := range rest {
		if sameFile(c, best) && c.slot != noSlot {
			mine = append(mine, c)
		} else {
			left = append(left, c)
		}
	}
	if room <= 0 {
		return nil, append(left, mine...)
	}
	// The head comes first when it fits the share (counted, like every
	// item, at most at the per-item cap): changes add imports and module
	// constants as often as they touch a symbol, and a head is short: per
	// character it holds five times the changed lines a symbol does
	// (EVAL.md, "Heads first").
	if h := fileHead(best); h != nil && p.accepts(h.path, parse.KindFile) && used+size(h) <= share {
		pulled = append(pulled, h)
		used += size(h)
	}
	within := withinFile(best.folder.Index, best.fileSlot, q)
	score := func(c *cand) float64 { return c.fused + within[c.slot] }
	sort.SliceStable(mine, func(i, j int) bool { return score(mine[i]) > score(mine[j]) })
	for _, c := range mine {
		if used+size(c) > share || len(pulled) >= room || slices.ContainsFunc(taken, c.sym.Range.Overlaps) {
			left = append(left, c)
			continue
		}
		used += size(c)
		taken = append(taken, c.sym.Range)
		pulled = append(pulled, c)
	}
	return pulled, left
}

// withinFile scores a file's symbols against the query among themselves:
// the RRF of their BM25F rank and their cosine rank within the file.
func withinFile(idx *symbolindex.Index, fs uint32, q *query) map[uint32]float64 {
	slots := idx.FileSymbols(fs)
	out := make(map[uint32]float64, len(slots))
	in := make(map[uint32]bool, len(slots))
	for _, s := range slots {
		in[s] = true
	}
	buf := searchBufs.Get().(*symbolindex.SearchBuffer)
	defer searchBufs.Put(buf)
	lex := idx.SearchSymbols(q.terms, len(slots), func(s uint32) bool { return in[s] }, buf)
	for i, r := range heuristics.CompetitionRanks(lex, hitScore) {
		out[lex[i].Doc] += heuristics.RRF(heuristics.Weights[heuristics.SrcLexical], r)
	}
	if q.vec != nil {
		sem := idx.Vectors().TopK(q.vec, slots, len(slots), nil)
		for i, r := range heuristics.CompetitionRanks(sem, func(h symbolindex.ScoredSlot) float32 { return h.Score }) {
			if sem[i].Score > 0 {
				out[sem[i].Slot] += heuristics.RRF(heuristics.Weights[heuristics.SrcSemantic], r)
			}
		}
	}
	return out
}

// fileHead is the item of the lines of top's file before its first symbol
// (package clause, imports, module constants), or nil when there are none.
func fileHead(top *cand) *cand {
	first := parse.Symbol{StartByte: ^uint32(0)}
	for _, s := range top.folder.Index.FileSymbols(top.fileSlot) {
		if ref, ok := top.folder.Index.Symbol(s); ok && ref.StartByte < first.StartByte {
			first = ref.Symbol
		}
	}
	if first.StartByte == ^uint32(0) || first.Range.StartLine == 0 || first.Kind == parse.KindFile {
		return nil
	}
	c := *top
	c.slot, c.hash, c.nameSig, c.head, c.reason, c.opening = noSlot, 0, 0, true, ReasonRetrieved, false
	fileEvidence(&c) // it has its file's evidence, none of its own
	c.sym = parse.Symbol{Kind: parse.KindFile, EndByte: first.StartByte,
		Range: parse.Range{EndLine: first.Range.StartLine - 1}}
	return &c
}

// fileEvidence keeps only the file-level evidence of a candidate made
// from another of its file (a file head, a window of the lead's
// neighbourhood): it has none of its own.
func fileEvidence(c *cand) {
	for src := range heuristics.NumSources {
		switch src {
		case heuristics.SrcFile, heuristics.SrcLocality, heuristics.SrcGraph, heuristics.SrcCoChange, heuristics.SrcHistory, heuristics.SrcSibling, heuristics.SrcLiteral, heuristics.SrcGone, heuristics.SrcSpelling:
		default:
			c.ranks[src], c.scores[src] = 0, 0
		}
	}
	c.lead = 0 // lexical's, the symbol's own
	c.site = nil
}

// focusKept is what the later stages work on: the pinned candidates, then
// the best file's share first (focus) and the rest, each scoring at least
// minScore, over a window a few times the limit (heuristics.CollapseWindow)
// with overlapping and identical candidates collapsed (read.go).
func focusKept(p *plan, q *query, pinned, byRank []*cand) []*cand {
	list := make([]*cand, 0, len(pinned)+len(byRank)+1)
	list = append(list, pinned...)
	for _, c := range focus(p, q, byRank) {
		if c.fused >= p.req.MinScore {
			list = append(list, c)
		}
	}
	return collapseWindow(list[:min(len(list), heuristics.CollapseWindow(p.limit)+len(pinned))], len(pinned))
}
