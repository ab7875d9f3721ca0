package heuristics

import (
	"cmp"
	"iter"
	"math"
	"slices"
	"time"
)

// The ranking of contextSelect: the sources of evidence, their fusion
// weights, and every constant that shapes a ranking, each with the reason
// it has its value. The sources themselves live in workspace/sources.go;
// EVAL.md records what each choice did to the numbers.

// Source is one source of evidence a selection fuses.
type Source int

// The sources, in the order of Item.Signals. Adding a source is adding its
// function in workspace/sources.go, a name and a weight here.
const (
	SrcLexical        Source = iota // BM25F over symbols
	SrcFile                         // BM25 over whole files, inherited by their symbols
	SrcSemantic                     // cosine similarity of symbol vectors
	SrcMention                      // names and paths written in the query or history
	SrcActive                       // the symbol under the cursor
	SrcLocality                     // directory distance from the active file (a prior)
	SrcEdit                         // recently edited symbols, decaying
	SrcGraph                        // files linked to the active or mentioned files by references
	SrcSentence                     // each sentence of a long query as its own sub-query, max-pooled
	SrcCoChange                     // files that changed in the same commits as the active, open, edited and pinned files
	SrcHistory                      // files that past commits described in words like the query's touched
	SrcItem                         // context items (rules, memory notes, tools) whose words match the query
	SrcPastSymbol                   // symbols whose lines past commits described in words like the query's touched
	SrcCoChangeSymbol               // symbols, in other files, whose lines changed with the cursor's, the active file's edited ones' or the active file's
	SrcCoHistory                    // files that changed with the active file in past commits described in words like the query's
	SrcNeighbour                    // callers and callees, in other files, of the symbol under the cursor or the active file's symbols the query matches
	SrcSibling                      // files beside the active file named as its parts or variants (static.go: static_windows.go)
	SrcLiteral                      // files holding a literal of code the request removes or replaces ("Replace interface{} with any")
	SrcGone                         // symbols and files a name the request writes, defined nowhere today, was removed from by past commits
	SrcSpelling                     // symbols holding words that look misspelled, when the request asks to fix typos
	NumSources
)

// SourceNames are the sources' names in Item.Signals.
var SourceNames = [NumSources]string{"lexical", "file", "semantic", "mention", "active", "locality", "edit", "graph", "sentence", "cochange", "history", "item", "pastsymbol", "cochangesymbol", "cohistory", "neighbour", "sibling", "literal", "gone", "spelling"}

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
	SrcItem:     4.0, // scaled by the item's score (ItemFused): a perfect match ranks with the best code
	// The symbol-level history (workspace/historyload.go): see EVAL.md,
	// "History at the level of symbols".
	SrcPastSymbol:     PastSymbolWeight,
	SrcCoChangeSymbol: CoChangeSymbolWeight,
	SrcCoHistory:      CoHistoryWeight,
	SrcNeighbour:      NeighbourWeight,
	SrcSibling:        SiblingWeight,
	SrcLiteral:        LiteralWeight,
	SrcGone:           GoneWeight,
	SrcSpelling:       SpellingWeight,
}

// FocusSymbols and FocusSymbolRatio choose, with no cursor, the active
// file's symbols a request is about: its best lexical matches among the
// file's symbols, within the ratio of the best.
const (
	FocusSymbols     = 2
	FocusSymbolRatio = 0.75
)

// CoHistoryWeight and NeighbourWeight are the weights of the editor's
// case sources (EVAL.md, "The editor's case"): cohistory, the files that
// changed with the active file in past commits described like the
// request, and neighbour, the callers and callees of the symbol the user
// is at. Together they lifted the active scenario on 60 commits of the
// development set from .53/.85/.67 (hit@1/hit@5/MRR) to .55/.88/.68 and
// its hunk coverage .38 → .40; each alone did less (cohistory at 2 cost
// hit@1, neighbour at 1 and 2 cost MRR). Neither runs without an active
// file.
const (
	CoHistoryWeight = 1.0
	NeighbourWeight = 0.5
)

// SiblingWeight is the weight of the sibling source: the files beside
// the active file whose names extend its name, or that its name extends
// (static.go and static_windows.go, logger.go and request_logger.go,
// command.go and command_run.go), the parts and platform variants of one
// piece of code. No other source links them when they share no name and
// no commit yet, and one is the other file of a change in a third of the
// active cases that have one (16 of 48 over 150 commits of the
// development set). At 3 the active scenario went .564/.835/.681 →
// .580/.835/.693 (hit@1/hit@5/MRR) at 150 commits and .575/.877/.696 →
// .616/.890/.724 at 60; at 2 it did less, with no case better than at 3.
// See EVAL.md, "## active".
const SiblingWeight = 3

// NamesakeK is how many symbols the search for a focus symbol's namesakes
// reads (workspace/pipeline, namesakes); MaxNamesakeFiles is how many files
// may extend its name before the name is a convention, not one piece of
// code. With the namesakes second in the sibling source the active
// scenario at 150 commits of the development set gained one case in the
// first five and lost none (EVAL.md, "## active5").
const (
	NamesakeK        = 200
	MaxNamesakeFiles = 3
)

// LiteralWeight is the weight of the literal source: the symbols, and
// their files, that hold a literal of code the request removes or
// replaces (RemovedLiterals), found among the files the other sources
// found (at most LiteralScanFiles code files), each literal that no more
// than MaxLiteralFiles code files hold. Ranking the symbols that hold it
// (not only their files, at 2) and at 3 it did best at 150 commits of the
// development set: cold .659/.890/.758/.530 → .661/.892/.760/.533, active
// .590/.835/.697/.336 → .596/.846/.704/.348, no case worse. See EVAL.md,
// "## literal".
const (
	LiteralWeight    = 3.0
	LiteralScanFiles = 200
	MaxLiteralFiles  = 10
)

// SpellingWeight is the weight of the spelling source: when the request
// asks to fix typos or spelling (spelling.Request), the symbols, and their
// files, holding words that look misspelled by the workspace's own words
// (a word written once or twice a letter from one written many times, a
// contraction without its apostrophe, "an" before a consonant, "the the"),
// or variants of a word the request names ("fix macOS spelling": MacOS).
// It reads at most SpellingScanFiles files and SpellingScanBytes bytes
// for the vocabulary. At 3 it took the development set at 150 commits
// from cold .661/.893/.760/.531 to .666/.900/.766/.537 and active
// .596/.846/.704/.348 to .601/.851/.708/.359; at 5 no case moved from 3,
// at 1.5 cli's "Fix typos" fell to 4th in the active scenario. See
// EVAL.md, "## typos".
const (
	SpellingWeight    = 3.0
	SpellingScanFiles = 3000
	SpellingScanBytes = 16 << 20
)

// GoneWeight is the weight of the gone source: a name the request
// writes ("Reintroduce `URLTypes`") that no symbol of the workspace has
// is looked for among the names past commits took out of files
// (history.Gone), and the symbols and files it was removed from rank.
// See EVAL.md, "## ghost".
// GoneScanRanks is how many of each other source's first files are read
// to tell a name no longer written from one written but defined
// elsewhere (None, ContentLength).
const (
	GoneWeight    = 3.0
	GoneScanRanks = 10
)

// PastSymbolWeight and CoChangeSymbolWeight are the symbol-level history
// sources' weights; 0 leaves a source out (it is not run). pastsymbol is
// off: at .5 (its best on the last 30 commits of the development set:
// cold hit@1 .67 → .70, hunk coverage .51 → .56) it did not hold on the
// last 60 (cold .60/.87/.71/.51 → .59/.87/.71/.51). cochangesymbol
// earns its place in the active scenario (60 commits: hit@1 .47 → .52,
// MRR .62 → .66; 30: hunk coverage .42 → .46) and cannot touch a cold
// request. See EVAL.md.
const (
	PastSymbolWeight     = 0
	CoChangeSymbolWeight = 1.0
)

// SymbolHistoryWeights are the weights the symbol-level history sources
// were measured at, for turning them on.
var SymbolHistoryWeights = [2]float64{0.5, 1.0}

// FileOnly reports whether a source ranks files only: its evidence
// reaches a symbol through its file's fused rank (SrcFile) and, at
// FileOnlySymbolShare of its weight, once more in the symbol's own fused
// score. Its per-symbol rank is kept for Item.Signals.
func FileOnly(src Source) bool {
	return src == SrcCoChange || src == SrcHistory || src == SrcCoHistory || src == SrcSibling || src == SrcGone
}

// FileOnlySymbolShare is the share of a file-only source's weight its
// files' symbols get in their own fused scores. Through the file ranking
// alone, a file that history names but whose words do not match (the
// one-constant version.go of a release commit, the sibling a change always
// touches) lent its symbols a file rank diluted by every other source,
// and they came after symbols that merely matched words. Counting it
// again at half weight lifted cold hit@1 .51 → .60 and the active
// scenario's .43 → .54 on 572 real commits; at full weight it overshot.
const FileOnlySymbolShare = 0.5

// Candidate-list sizes per source, and other ranking constants.
const (
	LexicalK  = 300 // deep enough that a file's best symbol is found for the file ranking
	SentenceK = 50  // a sentence only needs to surface its own few best matches
	FileK     = 60  // three times TopFiles: enough for fusion to reorder the file list
	SemanticK = 100 // beyond this the hash embedder's cosine is noise
	HistoryK  = 20  // as many files as TopFiles: history only needs to lift a few
	// HistorySymbolK: the symbol-level history sources' lists; a past
	// change touches a few symbols in each of a few files.
	HistorySymbolK = 40

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
	// TestedCodeFiles is how many of an answer's first files are looked
	// at for tests whose code is placed right after them (testedCode):
	// the first five, as a reader takes in.
	TestedCodeFiles = 5
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
	// ConfigPrior scales manifests, CI workflows and build files: they
	// share a request's words (versions, names, tools) far more often
	// than they are what a change edits.
	ConfigPrior = 0.6
	// AskedPrior replaces those priors when the query asks for tests,
	// docs or configuration: a request that mentions them ("fix X and add
	// a test", "docs: clarify Y") still most often changes code, so they
	// are lifted, not put on a par with it (on real commits, lifting them
	// to 1 cost 3 points of cold hit@1).
	AskedPrior = 0.8
)

// Context items (workspace/items, workspace/pipeline/pick.go): rules, memory notes and tools, chosen
// by include mode and, in agent mode, by how well their words match the
// query, then fused with the code under one budget.
const (
	// ItemShare is the default share of maxChars that items other than
	// code (rules, docs, memory, tools) may take: they inform the change,
	// the code is what changes.
	ItemShare = 0.25
	// ItemTopN is how many agent-mode items (and memory notes) may come
	// in on their score, at most: rules are long, a few are enough.
	ItemTopN = 3
	// ItemThreshold is the score an agent-mode item needs to come in at
	// all: below it, the query shares only a word or two of little
	// weight with the item's description.
	ItemThreshold = 0.25
	// ItemIncludeScore: an item scoring this much comes in even beyond
	// ItemTopN (seed 003's includeScore).
	ItemIncludeScore = 0.7
	// MemoryHalfLife is how long a memory note takes to lose half its
	// weight, unless it is pinned: old notes describe old code.
	MemoryHalfLife = 30 * 24 * time.Hour
	// ItemScopeTopK is how many of the best-ranked code items (besides the
	// active file and the pinned ones) a scoped rule's globs, or a note's
	// paths, are matched with: the code the answer is about, not all it
	// brings along.
	ItemScopeTopK = 1
	// MemoryPathScore is what a note scores when it names the active
	// file or a selected one: what was learnt about a file matters when
	// working on it, whatever the words.
	MemoryPathScore = 0.5
)

// ItemFused is the fused score of a context item at 1-based rank of the
// items that passed, with its score in [0,1]: its RRF contribution scaled
// by the score, so that a weak match falls below the code it accompanies.
func ItemFused(score float64, rank int) float64 {
	return score * RRF(Weights[SrcItem], rank)
}

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
	// SiblingMinStem: a shorter stem ("db", "io") is a word many
	// unrelated files begin with, not the name of one piece of code.
	SiblingMinStem = 3
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

// SharedRanks is CompetitionRanks for the symbol searches (lexical,
// sentence, semantic), except that a tie spread over more than TieKeep
// groups (files: group gives an entry's) shares its credit: each member
// takes the rank whose reciprocal-rank credit is the tie's first rank's
// divided by the number of groups (TieRank). Generated handlers,
// migrations or fixtures that a query's words match alike then do not each
// take a first place's credit and bury the symbol under the cursor, while
// the equal symbols of one file (the methods a change edits together)
// keep theirs. See EVAL.md, "## ties".
func SharedRanks[E any, K comparable](list []E, key func(E) K, group func(E) uint32) iter.Seq2[int, Tie] {
	return func(yield func(int, Tie) bool) {
		var t Tie
		end := 0
		for i := range list {
			if i >= end {
				first := i
				for end = i + 1; end < len(list) && key(list[end]) == key(list[first]); end++ {
				}
				t = Tie{First: first + 1}
				if end-first > TieKeep {
					groups := make(map[uint32]bool, end-first)
					for _, e := range list[first:end] {
						groups[group(e)] = true
					}
					if len(groups) > TieKeep {
						t.Files = len(groups)
					}
				}
			}
			if !yield(i, t) {
				return
			}
		}
	}
}

// Tie is where an entry of SharedRanks' list stands: First, the rank its
// equal scores begin at (the list's own), and Files, the groups they span
// when their members share First's credit (more than TieKeep), else 0.
type Tie struct{ First, Files int }

// Rank is the rank whose credit the entry takes (TieRank).
func (t Tie) Rank() int { return TieRank(t.First, t.Files) }

// TieKeep is the largest tie (in groups) whose members keep the tie's
// first rank whole: equal scores among two or three files are common and
// say they are equally good; equal scores over more files say the source
// cannot tell them apart. Sharing within every tie, counting symbols
// rather than files, and average ranks each cost the development set
// some hunk coverage or hit@1; see EVAL.md, "## ties".
const TieKeep = 3

// TieRank is the rank each member of a tie over n groups from rank first
// takes:
// first for a tie of at most TieKeep, else the rank at which RRF gives the
// first rank's credit divided by n (weight/(n·(RRFK+first))).
func TieRank(first, n int) int {
	if n <= TieKeep {
		return first
	}
	return min(n*(RRFK+first)-RRFK, math.MaxInt32)
}

// EvidenceTies yields the index and Tie of each of n files sorted best
// first by fused score, given each file's Evidence. Files of equal
// evidence (exactly: a relative tolerance that joined files a token apart
// cost the development set; EVAL.md, "## literal2") whose words match
// (Search positive) and that are more than TieKeep share the credit of the
// best rank among them,
// as SharedRanks' ties do: the embedder's small differences (a generated
// handler's number) would otherwise order files that nothing else tells
// apart one by one, each of the first taking a first place's credit. Other
// files keep their own rank; so do the files of one past commit that only
// the history ties ("fix typo": EVAL.md, "## literal2").
func EvidenceTies(n int, ev func(int) Evidence) iter.Seq2[int, Tie] {
	return func(yield func(int, Tie) bool) {
		// Only files whose words match can share: sorted by their
		// evidence, equal ones are neighbours.
		type entry struct {
			i  int
			ev Evidence
		}
		var byEv []entry
		for i := range n {
			if e := ev(i); e.Search > 0 {
				byEv = append(byEv, entry{i, e})
			}
		}
		slices.SortFunc(byEv, func(a, b entry) int {
			if c := cmp.Compare(b.ev.Words, a.ev.Words); c != 0 {
				return c
			}
			if c := cmp.Compare(b.ev.Search, a.ev.Search); c != 0 {
				return c
			}
			return a.i - b.i
		})
		var shared map[int]Tie
		for j := 0; j < len(byEv); {
			end := j + 1
			for end < len(byEv) && byEv[end].ev == byEv[j].ev {
				end++
			}
			if end-j > TieKeep {
				if shared == nil {
					shared = map[int]Tie{}
				}
				for _, e := range byEv[j:end] {
					shared[e.i] = Tie{First: byEv[j].i + 1, Files: end - j} // the first by index is the best ranked
				}
			}
			j = end
		}
		for i := range n {
			t, ok := shared[i]
			if !ok {
				t = Tie{First: i + 1}
			}
			if !yield(i, t) {
				return
			}
		}
	}
}

// LongTie reports whether a list sorted best first by key holds more
// than TieKeep equal keys in a row. Files tie in EvidenceTies only when
// some search list ties them so: without such a tie the evidence need not
// be summed.
func LongTie[E any](list []E, key func(E) float64) bool {
	run := 1
	for i := 1; i < len(list); i++ {
		if key(list[i]) != key(list[i-1]) {
			run = 1
		} else if run++; run > TieKeep {
			return true
		}
	}
	return false
}

// Evidence is what a file's fused score holds apart from the embedder's
// rank and the locality prior: Words, every other source's part, and
// Search, the part of the searches of the request's words (lexical, file,
// sentence).
type Evidence struct{ Words, Search float64 }

// SearchSource reports whether src ranks by the request's own words
// (Evidence.Search).
func SearchSource(src Source) bool {
	return src == SrcLexical || src == SrcFile || src == SrcSentence
}

// LocalityPrior is what nearness in [0,1] to the active file adds to a
// fused score: as much as a first rank of the locality source would, in
// proportion to nearness. Locality is a prior, not a ranking.
func LocalityPrior(nearness float64) float64 {
	return RRF(Weights[SrcLocality], 1) * nearness
}

// FuseRanks is a candidate's fused score: the RRF contributions of its
// rank in every source but locality (file-only sources at
// FileOnlySymbolShare of their weight), plus the locality prior.
func FuseRanks(ranks *[NumSources]int32, nearness float64) float64 {
	fused := 0.0
	for src := Source(0); src < NumSources; src++ {
		r := ranks[src]
		if r <= 0 || src == SrcLocality {
			continue
		}
		w := Weights[src]
		if FileOnly(src) {
			w *= FileOnlySymbolShare
		}
		fused += RRF(w, int(r))
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
// (workspace/pipeline/read.go): the declaration, docstring and fields, not
// a second body.
const TypeHeaderChars = 600

// FocusAfter is how many items keep their diversified order before the
// best file's share (workspace/focus.go): the first few items span files,
// for the answers whose first file is wrong.
const FocusAfter = 5

// ContextChars is how far an item's text takes in the lines around its
// symbol (workspace/surround.go): changes cluster, so the lines next to a
// symbol the ranking found are edited with it far more often than lines
// elsewhere; at 1,000 characters an item holds a typical function and a
// few lines on each side. 800 and 1,200 did as well within a case on real
// history; 1,500 (the per-item cap) showed fewer files within the budget.
const ContextChars = 1000

// TailRank and TailChars shape the items of an answer's lesser files: the
// items of its fourth file and after (the active and pinned files not
// counted), when the limit leaves room (FocusRoom), are not
// widened with the lines around them (ContextChars) and are cut to the
// lines that match the query best, up to TailChars
// (workspace/pipeline/surround.go). On real history the opening items of
// the fourth and fifth files held .004 of the changed lines per 1,000
// characters, a tenth of what the lead's windows or the best file's other
// symbols held there (EVAL.md, "Short items for the lesser files"); short,
// they still show which files follow.
const (
	TailRank  = 4
	TailChars = 500
)

// RegionChars is how much of the lead's file, around the lead, an answer
// holds (the lead and the windows that follow it, workspace/surround.go):
// the first item is where the ranking is surest, and the code around it
// is the likeliest to change with it. 3,500 gave a point less of hunk
// coverage on real history; 8,000 took the room of the files after it.
const RegionChars = 5000

// FocusRoom is how many items the best files' shares (workspace/focus.go)
// may pull up in a ranking whose first nOpening items open it: the opening,
// the shares and one item more take at most half the limit, so the other
// half stays for the rest of the ranking. The default limit of 8 leaves no
// room: FocusAfter items open every ranking that long.
func FocusRoom(limit, nOpening int) int { return limit/2 - nOpening - 1 }

// CollapseWindow is how many ranked candidates (besides the pinned ones)
// the pack stage collapses (workspace/pack.go): a few times the limit,
// enough to fill it once overlapping and identical ones are gone.
func CollapseWindow(limit int) int { return 4 * limit }

// ReadLimit is how many candidates the pack stage reads texts for
// (workspace/pack.go), documentation held to the item share not counted:
// twice the limit, since the lead's neighbourhood (workspace/surround.go)
// may hold some of them.
func ReadLimit(limit int) int { return 2 * limit }

// WindowTail reports whether a window of lines holding size characters
// of at most limit has reached its last third, where a blank line may end
// it (workspace/surround.go): there one symbol gives way to the next, and
// ending there wastes at most a third of the window.
func WindowTail(size, limit int) bool { return 3*size >= 2*limit }

// MaxLeadingComments bounds how many comment lines above a symbol its item
// takes in (workspace/pack.go): a doc comment, not a banner.
const MaxLeadingComments = 40

// OutsideChars is how much of a file's lines outside its symbols (imports,
// module-level statements, registration tables) an item of them holds
// (workspace/pipeline/surround.go): the lines that hold the query's rarest
// words and the lines around them. 600 did no better on real history.
const OutsideChars = 400

// OutsideRarity is how rare a query term must be, as a share of the rarest
// a term can be (its IDF over the symbols against the IDF of a term no
// symbol holds), for a line outside the symbols that holds it to be worth
// an item (workspace/pipeline/surround.go): common words ("add", "error")
// are on every import line. .5 gave .003 less hunk coverage on real
// history (30 commits, cold), and active answers .010 less.
const OutsideRarity = 0.65
