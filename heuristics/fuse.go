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
