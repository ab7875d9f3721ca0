package heuristics

import "math"

// RRFK is the rank offset k of reciprocal-rank fusion: an item at rank r of
// a list contributes weight/(RRFK + r).
const RRFK = 60

// RRF is the reciprocal-rank-fusion contribution of an item at 1-based rank
// of a list whose source weighs weight: weight / (RRFK + rank). A rank below
// 1, or a weight that is not a positive finite number, contributes nothing.
// A fused score is the sum of an item's contributions over the lists.
func RRF(weight float64, rank int) float64 {
	if rank < 1 || !(weight > 0) || math.IsInf(weight, 1) {
		return 0
	}
	return weight / float64(RRFK+rank)
}

// The lead term: reciprocal ranks keep a source's order but lose how far
// its first is ahead of the rest. A source whose scores grow with how well
// the request's words match (lexical's BM25F over symbols, whole-file
// BM25, history's votes of past commits whose messages match, summed per
// file) adds, to each item it ranks, LeadWeight of its own first places
// times the item's lead over the list's LeadDepth-th (LeadOf): at the
// file level, and for lexical's symbols of code (not tests, docs or
// configuration). A list shorter than LeadDepth gives no lead. Only with
// no active file (as content agreement): beside one, the editor's sources
// decide, and the lead cost the active scenario at 150 commits (EVAL.md,
// "fusek" and "lead (cold only)").
const (
	LeadWeight = 1.0
	LeadDepth  = 5
)

// LeadSource reports whether src's scores grow with the request's word
// matches, so that the size of its lead counts: mention's and the graph's
// are weights, the embedder's similarities are near-equal at the top.
func LeadSource(src Source) bool {
	return src == SrcLexical || src == SrcFile || src == SrcHistory
}

// LeadOf is the lead of score in a list whose best score is top and whose
// LeadDepth-th is floor: (score − floor) / top, nothing when top is not
// positive or score does not exceed floor.
func LeadOf(score, top, floor float64) float64 {
	if !(top > 0) || !(score > floor) {
		return 0
	}
	return (score - floor) / top
}

// LeadBonus is what a lead adds to a fused score: LeadWeight first places
// of a source weighing weight, times the lead.
func LeadBonus(weight, score, top, floor float64) float64 {
	return LeadWeight * RRF(weight, 1) * LeadOf(score, top, floor)
}
