package workspace

import (
	"sort"

	"github.com/ctxls/ctxls/heuristics"
	"github.com/ctxls/ctxls/symbolindex"
)

// focus spends the best file's share of the budget on it. Once a file
// ranks first, the model needs the code in it that the change touches,
// not the first symbol of each of twenty files. The first
// heuristics.FocusAfter items keep their order (so the first few span
// files); then the best-ranked file's other symbols, ranked again among
// themselves (BM25F and cosine against the query restricted to the file,
// beside their fused score), and the file's head (its lines before the
// first symbol) follow until they fill the file's share of the budget (of
// DefaultMaxChars at most, each counted at most maxCharsPerItem; the share
// grows with the file's lead, heuristics.FocusShare) or half the limit.
// They take scores between the item before them and the next one after,
// so items stay sorted by score; the order in which files first appear
// is unchanged.
func focus(p *plan, q *query, ranked []*cand) []*cand {
	if len(ranked) < 2 {
		return ranked
	}
	top := ranked[0]
	inTop := func(c *cand) bool { return c.folder == top.folder && c.fileSlot == top.fileSlot }
	size := func(c *cand) int {
		n := int(c.sym.EndByte - c.sym.StartByte)
		if p.perItem > 0 {
			n = min(n, p.perItem)
		}
		return n
	}
	nHead := min(heuristics.FocusAfter, len(ranked))
	head := ranked[:nHead]
	used := 0
	taken := []symbolindex.Range{}
	for _, c := range head {
		if inTop(c) {
			used += size(c)
			taken = append(taken, c.sym.Range)
		}
	}
	var mine, rest []*cand
	for _, c := range ranked[nHead:] {
		if inTop(c) && c.slot != noSlot {
			mine = append(mine, c)
		} else {
			rest = append(rest, c)
		}
	}
	next := 0.0
	for _, c := range ranked[1:] {
		if !inTop(c) {
			next = c.fused
			break
		}
	}
	share := int(heuristics.FocusShare(next/top.fused) * float64(min(p.maxChars, DefaultMaxChars)))
	within := withinFile(top.folder.idx, top.fileSlot, q)
	score := func(c *cand) float64 { return c.fused + within[c.slot] }
	sort.SliceStable(mine, func(i, j int) bool { return score(mine[i]) > score(mine[j]) })
	var pulled []*cand
	for _, c := range mine {
		if used+size(c) > share || nHead+len(pulled)+1 >= p.limit/2 || overlapsAny(c.sym.Range, taken) {
			rest = append(rest, c)
			continue
		}
		used += size(c)
		taken = append(taken, c.sym.Range)
		pulled = append(pulled, c)
	}
	if h := fileHead(top); h != nil && p.accepts(h.path, symbolindex.KindFile) && used+int(h.sym.EndByte) <= share && nHead+len(pulled)+1 < p.limit/2 {
		pulled = append(pulled, h)
	}
	if len(pulled) == 0 {
		return ranked
	}
	sort.SliceStable(rest, func(i, j int) bool { return rest[i].fused > rest[j].fused })
	hi, lo := head[len(head)-1].fused, 0.0
	if len(rest) > 0 {
		lo = min(rest[0].fused, hi)
	}
	for j, c := range pulled {
		c.fused = lo + (hi-lo)*float64(len(pulled)-j)/float64(len(pulled)+1)
	}
	out := make([]*cand, 0, len(ranked)+1)
	out = append(out, head...)
	out = append(out, pulled...)
	return append(out, rest...)
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
	var buf symbolindex.SearchBuffer
	lex := idx.SearchSymbols(q.terms, len(slots), func(s uint32) bool { return in[s] }, &buf)
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

func overlapsAny(r symbolindex.Range, others []symbolindex.Range) bool {
	for _, o := range others {
		if r.StartLine <= o.EndLine && o.StartLine <= r.EndLine {
			return true
		}
	}
	return false
}

// fileHead is the item of the lines of top's file before its first symbol
// (package clause, imports, module constants), or nil when there are none.
func fileHead(top *cand) *cand {
	first := symbolindex.Symbol{StartByte: ^uint32(0)}
	for _, s := range top.folder.idx.FileSymbols(top.fileSlot) {
		if ref, ok := top.folder.idx.Symbol(s); ok && ref.StartByte < first.StartByte {
			first = *ref.Symbol
		}
	}
	if first.StartByte == ^uint32(0) || first.Range.StartLine == 0 || first.Kind == symbolindex.KindFile {
		return nil
	}
	c := *top
	c.slot, c.hash, c.head, c.reason = noSlot, 0, true, ReasonRetrieved
	// It has its file's evidence, none of its own.
	for src := range heuristics.NumSources {
		switch src {
		case heuristics.SrcFile, heuristics.SrcLocality, heuristics.SrcGraph, heuristics.SrcCoChange, heuristics.SrcHistory:
		default:
			c.ranks[src], c.scores[src] = 0, 0
		}
	}
	c.sym = symbolindex.Symbol{Kind: symbolindex.KindFile, EndByte: first.StartByte,
		Range: symbolindex.Range{EndLine: first.Range.StartLine - 1}}
	return &c
}
