package pipeline

import (
	"sort"

	"github.com/ctxls/ctxls/heuristics"
	"github.com/ctxls/ctxls/symbolindex/parse"
)

// The editor's case: with a file active, the other files a change touches
// are most often those its code calls or is called from. The neighbours
// source ranks the callers and callees, in other files, of the symbol the
// user is at: the one under the cursor, or, with no cursor, the active
// file's symbols the request's words match best.

// focusSlots are the active file's symbols a request is about: the
// cursor's, or the best lexical matches of the query among the file's
// functions and methods (at most heuristics.FocusSymbols, each within
// heuristics.FocusSymbolRatio of the best).
func (s *scope) focusSlots() []uint32 {
	if slot, ok := s.cursorSlot(); ok {
		return []uint32{slot}
	}
	if s.activeRel == "" || len(s.q.own) == 0 {
		return nil
	}
	fs, ok := s.idx.FileSlot(s.activeRel)
	if !ok {
		return nil
	}
	inFile := func(slot uint32) bool {
		ref, ok := s.idx.Symbol(slot)
		return ok && ref.File == fs && !isType(ref.Kind) && ref.Kind != parse.KindModule
	}
	hits := s.idx.SearchSymbols(s.q.own, heuristics.FocusSymbols, inFile, s.buf)
	var out []uint32
	for _, h := range hits {
		if float64(h.Score) < heuristics.FocusSymbolRatio*float64(hits[0].Score) {
			break
		}
		out = append(out, h.Doc)
	}
	return out
}

// neighboursSource ranks the callers and callees, outside the active
// file, of the focus symbols: each found symbol scores the best of its
// ranks' reciprocals over the focus symbols' lists.
func neighboursSource(s *scope) ranked {
	// A query pointing at the cursor ("who calls this") has its callers
	// or callees from the graph source already, at heuristics.DeicticBoost.
	if s.activeRel == "" || s.fv.Weights.Source[heuristics.SrcNeighbour] == 0 || s.deictic() {
		return ranked{}
	}
	focus := s.focusSlots()
	if len(focus) == 0 {
		return ranked{}
	}
	fs, _ := s.idx.FileSlot(s.activeRel)
	score := map[uint32]float64{}
	for _, f := range focus {
		for _, list := range [][]symRank{s.callers(f), s.callees(f)} {
			for _, r := range list {
				if ref, ok := s.idx.Symbol(r.slot); ok && ref.File != fs {
					score[r.slot] = max(score[r.slot], 1/float64(r.rank))
				}
			}
		}
	}
	list := make([]weightedSlot, 0, len(score))
	for slot, w := range score {
		list = append(list, weightedSlot{slot, w})
	}
	sort.Slice(list, func(i, j int) bool {
		return list[i].w > list[j].w || list[i].w == list[j].w && list[i].slot < list[j].slot
	})
	list = list[:min(len(list), heuristics.HistorySymbolK)]
	var out ranked
	for i, r := range heuristics.CompetitionRanks(list, weightOf) {
		out.syms = append(out.syms, symRank{list[i].slot, int32(r), float32(list[i].w)})
	}
	return out
}
