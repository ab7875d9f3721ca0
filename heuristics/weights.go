package heuristics

import (
	"math"
	"path"
	"strings"
	"time"
)

// DefaultHistoryDecay is the factor by which each older history entry counts
// less than the next newer one.
const DefaultHistoryDecay = 0.5

// HistoryWeights returns the weights of n conversation-history entries given
// oldest first: the newest (last) entry weighs 1 and each older one decay
// times the next, so weights[i] = decay^(n−1−i). A decay outside (0, 1]
// (including NaN) is replaced by DefaultHistoryDecay. n ≤ 0 gives nil.
func HistoryWeights(n int, decay float64) []float64 {
	if n <= 0 {
		return nil
	}
	if !(decay > 0 && decay <= 1) {
		decay = DefaultHistoryDecay
	}
	w := make([]float64, n)
	x := 1.0
	for i := n - 1; i >= 0; i-- {
		w[i] = x
		x *= decay
	}
	return w
}

// ContextWeight says how much conversation history should count in this
// turn, in [0,1]. It is the probability that either the query is vague or
// its own best hit is unreliable, treating the two as independent:
//
//	ContextWeight = 1 − (1 − vagueness) · bestMatch
//
// so a vague query (vagueness 1) or a query whose best hit is weak
// (bestMatch 0) leans fully on history, and a specific (vagueness 0),
// confident (bestMatch 1) query ignores it. Both inputs are clamped to
// [0,1]; NaN counts as 0.
func ContextWeight(vagueness, bestMatch float64) float64 {
	return 1 - (1-unit(vagueness))*unit(bestMatch)
}

// unit clamps x to [0,1], mapping NaN to 0.
func unit(x float64) float64 {
	switch {
	case x > 1:
		return 1
	case x > 0:
		return x
	default: // x ≤ 0 or NaN
		return 0
	}
}

// Decay is the weight of a signal of the given age that halves every
// halfLife: 0.5^(age/halfLife). A non-positive halfLife disables the signal
// (0, even for age 0); otherwise a non-positive age (now, or a clock skewed
// into the future) weighs 1.
func Decay(age, halfLife time.Duration) float64 {
	if halfLife <= 0 {
		return 0
	}
	if age <= 0 {
		return 1
	}
	return math.Exp2(-float64(age) / float64(halfLife))
}

// Locality constants: a candidate in the active file scores 1, one in the
// same directory SameDirLocality, and each further directory step multiplies
// by LocalityDecay.
const (
	SameDirLocality = 0.8
	LocalityDecay   = 0.5
)

// DirDistance is the number of directory steps between the directories of
// two workspace-relative slash paths: 0 in the same directory, 1 from a
// directory to its parent or child, 2 between siblings. Paths are cleaned
// first, so "./a/x.go" and "a/x.go" are in the same directory; a leading "/"
// is ignored.
func DirDistance(a, b string) int {
	da, db := dirOf(a), dirOf(b)
	for da != "" && db != "" {
		ha, ra, _ := strings.Cut(da, "/")
		hb, rb, _ := strings.Cut(db, "/")
		if ha != hb {
			break
		}
		da, db = ra, rb
	}
	return segments(da) + segments(db)
}

// dirOf returns the cleaned directory of a slash path, "" for the root.
func dirOf(p string) string {
	d := path.Dir(path.Clean("/" + p))
	return strings.TrimPrefix(d, "/")
}

// segments counts the elements of a cleaned relative directory path.
func segments(d string) int {
	if d == "" {
		return 0
	}
	return strings.Count(d, "/") + 1
}

// Locality scores how close candidate is to the active file, in [0,1]: 1 for
// the active file itself, SameDirLocality · LocalityDecay^DirDistance
// otherwise, and 0 when either path is empty (no active file).
func Locality(active, candidate string) float64 {
	if active == "" || candidate == "" {
		return 0
	}
	if path.Clean("/"+active) == path.Clean("/"+candidate) {
		return 1
	}
	return SameDirLocality * math.Pow(LocalityDecay, float64(DirDistance(active, candidate)))
}
