package heuristics

import "iter"

// The ranking of contextSelect: the sources of evidence, their fusion
// weights, and every constant that shapes a ranking, each with the reason
// it has its value. The sources themselves live in workspace/sources.go;
// EVAL.md records what each choice did to the numbers.

// Source is one source of evidence a selection fuses.
type Source int

// The sources, in the order of Item.Signals. Adding a source is adding its
// function in workspace/sources.go, a name and a weight here.
const (
	SrcLexical  Source = iota // BM25F over symbols
	SrcFile                   // BM25 over whole files, inherited by their symbols
	SrcSemantic               // cosine similarity of symbol vectors
	SrcMention                // names and paths written in the query or history
	SrcActive                 // the symbol under the cursor
	SrcLocality               // directory distance from the active file (a prior)
	SrcEdit                   // recently edited symbols, decaying
	SrcGraph                  // files linked to the active or mentioned files by references
	SrcSentence               // each sentence of a long query as its own sub-query, max-pooled
	SrcCoChange               // files that changed in the same commits as the active, open, edited and pinned files
	SrcHistory                // files that past commits described in words like the query's touched
	NumSources
)

// SourceNames are the sources' names in Item.Signals.
var SourceNames = [NumSources]string{"lexical", "file", "semantic", "mention", "active", "locality", "edit", "graph", "sentence", "cochange", "history"}

// Weights are the per-source weights of reciprocal-rank fusion.
var Weights = [NumSources]float64{
	SrcLexical:  1.0, // the baseline every other weight is judged against
	SrcFile:     1.5, // whole-file BM25 finds the file to change more often than any symbol list
	SrcSemantic: 0.5, // the hash embedder is noisy: it breaks ties rather than leads
	SrcMention:  1.5, // a name or path the user wrote is the strongest single hint
	SrcActive:   1.0, // the symbol under the cursor is usually, not always, in scope
	SrcLocality: 0.5, // nearness separates near-equal candidates; it must not outrank a match
	SrcEdit:     1.0, // what was just edited is likely to be edited again
	SrcGraph:    1.0, // callers, callees and tests of the seed files change together
	SrcSentence: 0.5, // per-sentence hits keep every sentence in play without outvoting the whole query
	SrcCoChange: 2.0, // logical coupling: files that changed with the user's files change with them again
	SrcHistory:  3.0, // a past change described like this request names the files such changes touch
}

// FileOnly reports whether a source ranks files only: its evidence
// reaches a symbol through its file's fused rank (SrcFile), so fusing it
// again per symbol would count it twice. Its per-symbol rank is kept for
// Item.Signals.
func FileOnly(src Source) bool { return src == SrcCoChange || src == SrcHistory }

// Candidate-list sizes per source, and other ranking constants.
const (
	LexicalK  = 300 // deep enough that a file's best symbol is found for the file ranking
	SentenceK = 50  // a sentence only needs to surface its own few best matches
	FileK     = 60  // three times TopFiles: enough for fusion to reorder the file list
	SemanticK = 100 // beyond this the hash embedder's cosine is noise
	HistoryK  = 20  // as many files as TopFiles: history only needs to lift a few

	// TopFiles is how many of the best-ranked files contribute all of
	// their symbols as candidates: enough to cover a multi-file change.
	TopFiles = 20
	// SameFileDecay lowers each further item from a file already chosen
	// (the j-th by SameFileDecay^j), so that the first items span files.
	SameFileDecay = 0.75
	// MaxSentences bounds how many sentences of a long query run as
	// sub-queries: later sentences of a long prompt are mostly detail.
	MaxSentences = 6
	// MemberWeight scales the mention of a type's members (and of the
	// last part of a dotted name that matched nothing whole): they are
	// in scope, a little less than what was named.
	MemberWeight = 0.5
	// MaxPathMention is the most files a path mention may name and still
	// count: a directory of a large tree says little about any one file.
	MaxPathMention = 20
	// BestMatchK is how many of the query's best lexical hits are looked at
	// to judge how well it matches on its own (for the history's weight
	// and lowConfidence): the best term coverage is often not first.
	BestMatchK = 5
	// MinEditWeight drops edits decayed below it: they are noise.
	MinEditWeight = 0.01
	// ActiveFileLocality is the nearness of the active file itself. The
	// user already has it in front of them, so it counts no more than a
	// file beside it: what they need is the code they are not looking at.
	ActiveFileLocality = SameDirLocality
	// TestPrior and DocPrior scale candidates in tests and docs: a change
	// is usually made to code, unless the query asks for tests or docs.
	TestPrior = 0.6
	DocPrior  = 0.6
)

// The reference graph (workspace/graph.go): bounds that keep it specific,
// and what a seed's tests weigh.
const (
	// GraphMaxDefs: a name defined in more files than this says little
	// about any one of them.
	GraphMaxDefs = 4
	// GraphMaxRefs: a name used by more files than this is a utility;
	// its users are not the seed's neighbours.
	GraphMaxRefs = 40
	// GraphMaxNames bounds how many of a seed's names are followed, so
	// that a huge file costs no more than a large one.
	GraphMaxNames = 400
	// GraphMinName: shorter names ("id", "ok") match everywhere.
	GraphMinName = 3
	// GraphTestWeight: a seed's tests (or the code a test seed tests)
	// change with it more often than any caller or callee.
	GraphTestWeight = 2
)

// CompetitionRanks yields the index and 1-based rank of each entry of a
// list sorted best first by key; entries with equal keys share the rank of
// the first of them ("1224" ranking), so that a source does not order what
// it cannot tell apart.
func CompetitionRanks[E any, K comparable](list []E, key func(E) K) iter.Seq2[int, int] {
	return func(yield func(int, int) bool) {
		rank := 0
		for i := range list {
			if i == 0 || key(list[i]) != key(list[i-1]) {
				rank = i + 1
			}
			if !yield(i, rank) {
				return
			}
		}
	}
}

// LocalityPrior is what nearness in [0,1] to the active file adds to a
// fused score: as much as a first rank of the locality source would, in
// proportion to nearness. Locality is a prior, not a ranking.
func LocalityPrior(nearness float64) float64 {
	return RRF(Weights[SrcLocality], 1) * nearness
}

// FuseRanks is a candidate's fused score: the RRF contributions of its
// rank in every source but locality, plus the locality prior.
func FuseRanks(ranks *[NumSources]int32, nearness float64) float64 {
	fused := 0.0
	for src := Source(0); src < NumSources; src++ {
		if r := ranks[src]; r > 0 && src != SrcLocality && !FileOnly(src) {
			fused += RRF(Weights[src], int(r))
		}
	}
	return fused + LocalityPrior(nearness)
}

// FocusShare is the share of the budget the best-ranked file's own
// symbols fill before other files', given ratio, the best score of
// another file over the first file's (below 1: the first leads). When the
// first file is right, the lines a change touches are mostly in it; it is
// right for nine commits in ten when it leads by a fifth, for one in four
// when it barely leads (EVAL.md, hunk coverage).
func FocusShare(ratio float64) float64 {
	switch {
	case ratio < 0.8:
		return 0.6
	case ratio < 0.95:
		return 0.4
	}
	return 0.2
}

// SecondShare is the share of the budget the second-ranked file's own
// symbols fill after the first file's: many changes touch two files, and
// the first is wrong for half the commits.
const SecondShare = 0.25

// TypeHeaderChars bounds the type header a member's item carries
// (workspace/typecontext.go): the declaration, docstring and fields, not
// a second body.
const TypeHeaderChars = 600

// FocusAfter is how many items keep their diversified order before the
// best file's share (workspace/focus.go): the first few items span files,
// for the answers whose first file is wrong.
const FocusAfter = 5
