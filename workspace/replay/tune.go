package replay

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/ctxls/ctxls/heuristics"
	"github.com/ctxls/ctxls/workspace"
)

// Tuning fits the fusion weights and priors to a repository's own history
// in one walk of its last commits, oldest first: the older commits train,
// the most recent judge. Every training case is answered under each of a
// fixed list of weight sets (the defaults, each weight halved and
// doubled, each prior lowered and raised, then random moves from a fixed
// seed); at the first judged case the set with the best MRR over the
// training cases (hit@1 breaks ties, the defaults win a tie) is chosen,
// and every judged case is answered under the defaults and under it. A
// case is asked about its parent's tree and history, and the choice is
// made before any judged case is asked, from scores of older commits
// only: the fit never sees a judged commit, nor a case its own commit.

// TuneOptions say what to fit on.
type TuneOptions struct {
	Root string
	// Train and Judge are how many of the last non-merge commits train and
	// judge (the Judge most recent judge); commits that are no case are
	// counted too.
	Train, Judge int
	// Evals is how many weight sets each training case is answered under,
	// the defaults included (0: DefaultTuneEvals).
	Evals int
	// Seed picks the random moves (the same seed, the same sets).
	Seed uint64
	// Scenarios are the scenarios asked (nil: cold). With active, the
	// weights of the active file's sources are fitted too.
	Scenarios []string
	Config    workspace.Config
	// Limit and MaxChars shape each request (see Options).
	Limit, MaxChars int
	// Progress, if set, is told of each commit as it is replayed, and
	// whether it trains.
	Progress func(done, total int, commit string, train bool)
}

// DefaultTuneEvals is how many weight sets a training case is answered
// under by default: the defaults, a halving and a doubling of each of
// the cold scenario's weights and priors, and a few random moves.
const DefaultTuneEvals = 32

// MinPriorFit bounds how low a fitted prior may go: tests and docs are
// never what a replayed commit changes (they are not gold), so a fit
// would otherwise push them out of every answer.
const MinPriorFit = 0.3

// Figures are a weight set's averages over cases.
type Figures struct {
	Cases int     `json:"cases"` // answers: cases × scenarios
	Hit1  float64 `json:"hit1"`
	Hit5  float64 `json:"hit5"`
	MRR   float64 `json:"mrr"`
}

// better reports whether f beats g: a higher MRR, or the same MRR and a
// higher hit@1.
func (f Figures) better(g Figures) bool {
	const eps = 1e-9
	return f.MRR > g.MRR+eps || math.Abs(f.MRR-g.MRR) <= eps && f.Hit1 > g.Hit1+eps
}

// TuneReport is what Tune fitted and measured.
type TuneReport struct {
	Root    string         `json:"root"`
	Commits int            `json:"commits"`
	Head    string         `json:"head"`
	Skipped map[string]int `json:"skipped"`
	// TrainCommits and JudgeCommits split the commits; the cases are
	// those of them that are cases.
	TrainCommits int `json:"trainCommits"`
	JudgeCommits int `json:"judgeCommits"`
	// Evals is how many weight sets each training case was answered under.
	Evals   int                  `json:"evals"`
	Default heuristics.WeightSet `json:"-"`
	Fitted  heuristics.WeightSet `json:"-"`
	// Train and Judge are the defaults and the fitted set on the
	// training and the judged cases.
	Train struct{ Default, Fitted Figures } `json:"train"`
	Judge struct{ Default, Fitted Figures } `json:"judge"`
	// Moved: the fit found a set better than the defaults on the training
	// cases. Wins: it beat them on the judged cases too.
	Moved     bool    `json:"moved"`
	Wins      bool    `json:"wins"`
	ElapsedMs float64 `json:"elapsedMs"`
}

// Tune fits the weights to the repository's history and judges them.
func Tune(ctx context.Context, opts TuneOptions) (*TuneReport, error) {
	start := time.Now()
	if opts.Train < 1 || opts.Judge < 1 {
		return nil, fmt.Errorf("tune needs at least one training and one judged commit, got %d and %d", opts.Train, opts.Judge)
	}
	if opts.Evals <= 0 {
		opts.Evals = DefaultTuneEvals
	}
	if opts.Scenarios == nil {
		opts.Scenarios = []string{Cold}
	}
	def := heuristics.DefaultWeightSet()
	cands := TuneCandidates(opts.Evals, opts.Seed, slices.Contains(opts.Scenarios, Active))
	rep := &TuneReport{Root: opts.Root, Evals: len(cands), Default: def, Fitted: def}
	trainCommits := -1 // known once the commits are listed
	var chosen []heuristics.WeightSet
	nJudged := 0 // cases asked under the chosen sets: the last ones
	ropts := Options{Root: opts.Root, Commits: opts.Train + opts.Judge, Scenarios: opts.Scenarios, Config: opts.Config,
		Limit: opts.Limit, MaxChars: opts.MaxChars}
	ropts.Sets = func(i, n int, done []Case) []heuristics.WeightSet {
		if trainCommits < 0 {
			trainCommits = max(0, n-opts.Judge)
		}
		if i < trainCommits {
			return cands
		}
		nJudged++
		if chosen == nil {
			best := 0
			figs := make([]Figures, len(cands))
			for j := range cands {
				figs[j] = figures(done, j)
				if figs[j].better(figs[best]) {
					best = j
				}
			}
			rep.Fitted, rep.Moved = cands[best], best != 0
			rep.Train.Default, rep.Train.Fitted = figs[0], figs[best]
			chosen = []heuristics.WeightSet{def}
			if rep.Moved {
				chosen = append(chosen, rep.Fitted)
			}
		}
		return chosen
	}
	if opts.Progress != nil {
		ropts.Progress = func(done, total int, commit string) {
			opts.Progress(done, total, commit, done < total-opts.Judge)
		}
	}
	r, err := Run(ctx, ropts)
	if err != nil {
		return nil, err
	}
	rep.Commits, rep.Head, rep.Skipped = r.Commits, r.Head, r.Skipped
	rep.TrainCommits = max(0, r.Commits-opts.Judge)
	rep.JudgeCommits = r.Commits - rep.TrainCommits
	if rep.TrainCommits == 0 {
		return nil, fmt.Errorf("%s has %d non-merge commits: none is left to train on after the %d judged (--judge)", opts.Root, r.Commits, opts.Judge)
	}
	if chosen == nil {
		return nil, errors.New("none of the judged commits is a case (no source file modified, or no message): judge more commits")
	}
	judged := r.Cases[len(r.Cases)-nJudged:]
	rep.Judge.Default = figures(judged, 0)
	rep.Judge.Fitted = rep.Judge.Default
	if rep.Moved {
		rep.Judge.Fitted = figures(judged, 1)
	}
	rep.Wins = rep.Moved && rep.Judge.Fitted.better(rep.Judge.Default)
	if trainCases := len(r.Cases) - len(judged); trainCases == 0 {
		return nil, errors.New("none of the training commits is a case: train on more commits")
	}
	rep.ElapsedMs = float64(time.Since(start).Microseconds()) / 1000
	return rep, nil
}

// figures averages the answers of the cases under the j-th weight set.
func figures(cases []Case, j int) Figures {
	var f Figures
	for _, c := range cases {
		if j >= len(c.SetScores) {
			continue
		}
		for _, s := range c.SetScores[j] {
			f.Cases++
			f.Hit1 += b2f(s.Hit1)
			f.Hit5 += b2f(s.Hit5)
			f.MRR += s.RR
		}
	}
	if f.Cases > 0 {
		n := float64(f.Cases)
		f.Hit1, f.Hit5, f.MRR = f.Hit1/n, f.Hit5/n, f.MRR/n
	}
	return f
}

// tuneDim is one number a fit may move.
type tuneDim struct {
	prior int               // index into WeightSet.Priors, or -1
	src   heuristics.Source // the source whose weight it is, for prior -1
}

// tuneDims are the numbers the scenarios asked exercise: the sources a
// commit message reaches (and with an active file, those of the active
// file), and the priors of tests, docs and configuration. The edit and
// item sources never run in a replay, so their weights stay.
func tuneDims(active bool) []tuneDim {
	srcs := []heuristics.Source{heuristics.SrcLexical, heuristics.SrcFile, heuristics.SrcSemantic, heuristics.SrcMention,
		heuristics.SrcGraph, heuristics.SrcSentence, heuristics.SrcHistory}
	if active {
		srcs = append(srcs, heuristics.SrcActive, heuristics.SrcLocality, heuristics.SrcCoChange)
	}
	var dims []tuneDim
	for _, s := range srcs {
		dims = append(dims, tuneDim{prior: -1, src: s})
	}
	for i, name := range heuristics.PriorNames {
		if name == "asked" {
			// The prior of a kind a request asks for: a replayed commit's
			// answer is never a test, doc or config file, so the replay
			// always rewards lowering it, and never sees the harm to a
			// request that does want its test ("add a test for X").
			continue
		}
		dims = append(dims, tuneDim{prior: i})
	}
	return dims
}

// ptr is the number d names in w.
func (d tuneDim) ptr(w *heuristics.WeightSet) *float64 {
	if d.prior >= 0 {
		return w.Priors()[d.prior]
	}
	return &w.Source[d.src]
}

// move sets d in w to its value times f (a weight, within its bounds) or
// plus 0.2·log2 f (a prior, within [MinPriorFit, 1]).
func (d tuneDim) move(w *heuristics.WeightSet, f float64) {
	p := d.ptr(w)
	if d.prior >= 0 {
		*p = min(1, max(MinPriorFit, *p+0.2*math.Log2(f)))
		return
	}
	*p = min(heuristics.MaxSourceWeight, *p*f)
}

// TuneCandidates are the weight sets a fit tries, at most n and the
// defaults first: each number halved and doubled (a prior lowered and
// raised by 0.2), then moves of two to four numbers at once by factors in
// [1/3, 3], drawn from seed. With active, the active file's sources move
// too. The same arguments give the same sets.
func TuneCandidates(n int, seed uint64, active bool) []heuristics.WeightSet {
	def := heuristics.DefaultWeightSet()
	out := []heuristics.WeightSet{def}
	seen := map[heuristics.WeightSet]bool{def: true}
	add := func(w heuristics.WeightSet) {
		w = w.Rounded()
		if len(out) < n && !seen[w] && w.Check() == nil {
			seen[w] = true
			out = append(out, w)
		}
	}
	dims := tuneDims(active)
	for _, d := range dims {
		for _, f := range []float64{0.5, 2} {
			w := def
			d.move(&w, f)
			add(w)
		}
	}
	rng := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	for tries := 0; len(out) < n && tries < 100*n; tries++ {
		w := def
		k := 2 + rng.IntN(3)
		for _, i := range rng.Perm(len(dims))[:k] {
			dims[i].move(&w, math.Exp((2*rng.Float64()-1)*math.Log(3)))
		}
		add(w)
	}
	return out
}
