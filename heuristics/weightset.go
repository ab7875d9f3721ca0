package heuristics

import (
	"fmt"
	"math"
)

// WeightSet is what fusion reads that a repository may fit to its own
// history (ctxls tune): the per-source weights of reciprocal-rank fusion
// and the category priors. The pipeline reads it from the snapshot, one
// per folder; DefaultWeightSet is the set of the constants above, which a
// folder uses unless a fitted set won on its own recent commits.
type WeightSet struct {
	Source                                       [NumSources]float64
	TestPrior, DocPrior, ConfigPrior, AskedPrior float64
}

// DefaultWeightSet is the set of the package's weights and priors.
func DefaultWeightSet() WeightSet {
	return WeightSet{Source: Weights, TestPrior: TestPrior, DocPrior: DocPrior, ConfigPrior: ConfigPrior, AskedPrior: AskedPrior}
}

// Bounds of a weight set that may be loaded or fitted: a weight is in
// [0, MaxSourceWeight] (0 turns a source off), a prior in
// [MinPrior, 1] (a prior of 0 would hide every test or doc, and a prior
// over 1 would put them ahead of code).
const (
	MaxSourceWeight = 20
	MinPrior        = 0.1
)

// PriorNames name the priors in a weights file, in the order of Priors.
var PriorNames = [4]string{"test", "docs", "config", "asked"}

// Priors are pointers to the set's priors, in the order of PriorNames.
func (w *WeightSet) Priors() [4]*float64 {
	return [4]*float64{&w.TestPrior, &w.DocPrior, &w.ConfigPrior, &w.AskedPrior}
}

// Check says why a weight set is unusable: a weight or a prior that is
// not a finite number within its bounds. Nil when it is usable.
func (w *WeightSet) Check() error {
	for src, x := range w.Source {
		if !(x >= 0 && x <= MaxSourceWeight) {
			return fmt.Errorf("weight of %s is %v, want a number in [0, %d]", SourceNames[src], x, MaxSourceWeight)
		}
	}
	for i, p := range w.Priors() {
		if !(*p >= MinPrior && *p <= 1) {
			return fmt.Errorf("prior %s is %v, want a number in [%v, 1]", PriorNames[i], *p, MinPrior)
		}
	}
	return nil
}

// Prior is the multiplier of a candidate's fused score for its file's
// category under this set: a test is discounted as a test even when it is
// also docs or configuration, and what the query asks for is discounted
// less (Asks.Prior under the defaults).
func (w *WeightSet) Prior(a Asks, c Category) float64 {
	switch {
	case c.Has(Test):
		if a.Tests {
			return w.AskedPrior
		}
		return w.TestPrior
	case c.Has(Docs):
		if a.Docs {
			return w.AskedPrior
		}
		return w.DocPrior
	case c.Has(Config):
		if a.Config {
			return w.AskedPrior
		}
		return w.ConfigPrior
	}
	return 1
}

// LocalityPrior is LocalityPrior under this set's locality weight.
func (w *WeightSet) LocalityPrior(nearness float64) float64 {
	return RRF(w.Source[SrcLocality], 1) * nearness
}

// FuseRanks is FuseRanks under this set's weights.
func (w *WeightSet) FuseRanks(ranks *[NumSources]int32, nearness float64) float64 {
	fused := 0.0
	for src := Source(0); src < NumSources; src++ {
		r := ranks[src]
		if r <= 0 || src == SrcLocality {
			continue
		}
		x := w.Source[src]
		if FileOnly(src) {
			x *= FileOnlySymbolShare
		}
		fused += RRF(x, int(r))
	}
	return fused + w.LocalityPrior(nearness)
}

// Equal reports whether two sets hold the same numbers.
func (w *WeightSet) Equal(o *WeightSet) bool {
	return *w == *o
}

// round4 rounds x to 4 decimals, so that a fitted set reads cleanly.
func round4(x float64) float64 { return math.Round(x*1e4) / 1e4 }

// Rounded is the set with every number rounded to 4 decimals.
func (w WeightSet) Rounded() WeightSet {
	for i := range w.Source {
		w.Source[i] = round4(w.Source[i])
	}
	for _, p := range w.Priors() {
		*p = round4(*p)
	}
	return w
}
