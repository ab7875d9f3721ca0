package pipeline

import (
	"fmt"
	"sync"

	"github.com/ctxls/ctxls/heuristics"
	"github.com/ctxls/ctxls/heuristics/spelling"
	"github.com/ctxls/ctxls/symbolindex"
	"github.com/ctxls/ctxls/symbolindex/parse"
	"github.com/ctxls/ctxls/workspace/glob"
	"github.com/ctxls/ctxls/workspace/items"
	"github.com/ctxls/ctxls/workspace/snapshot"
)

// snap is the snapshot a request reads, with the pipeline's methods.
type snap struct {
	*snapshot.Snapshot
	// texts are the files the request has read, each read once for all
	// the stages (read.go: fileText), by the index that asked and the
	// path in its folder: whether a text is the one indexed depends on
	// which folder's index asks (nested folders may both hold a file).
	texts map[textKey][]byte
	// slabs are the slabs of candidates the request took (scope.cand),
	// given back when it ends (releaseSlabs).
	slabs []*[]cand
}

// candSlab is how many candidates a slab holds.
const candSlab = 64

// candSlabs holds slabs of candidates, cleared, kept from one request to
// the next: a select makes hundreds of candidates, and their slabs were a
// quarter of what it allocated, and so of what set the pace of the
// collector.
var candSlabs = sync.Pool{New: func() any {
	slab := make([]cand, 0, candSlab)
	return &slab
}}

// newSlab is an empty slab of candidates for the request, given back by
// releaseSlabs.
func (s *snap) newSlab() []cand {
	slab := candSlabs.Get().(*[]cand)
	s.slabs = append(s.slabs, slab)
	return (*slab)[:0]
}

// releaseSlabs gives the request's slabs of candidates back, cleared, so
// that they hold nothing alive. Nothing reads a candidate after it: the
// answer holds copies.
func (s *snap) releaseSlabs() {
	for _, slab := range s.slabs {
		clear((*slab)[:cap(*slab)])
		candSlabs.Put(slab)
	}
	s.slabs = nil
}

// textKey names a file as one folder's index holds it.
type textKey struct {
	idx *symbolindex.Index
	rel string
}

// contextItem is an item other than code (workspace/items) as one request
// ranks it: a copy of the item with the request's own reason and scores.
type contextItem struct {
	items.Item

	reason string
	score  float64 // how well it matches the query, in [0,1]
	rank   int     // among the items that came in on their score
	fused  float64
}

// pinRef is a pinned file or item id: a path in one folder (root) or, for
// an id, in any folder (root ""), and the qualified name of a symbol in it.
type pinRef struct {
	root, rel, qualified string
}

const noSlot = ^uint32(0)

// packEntry is one entry of the list the budget is filled from: a code
// candidate with its text, or a context item.
type packEntry struct {
	cand   *cand
	text   string
	prefix string // a code candidate's enclosing type header (read.go)
	item   *contextItem
	// rng is the lines a code candidate's text holds: its symbol's, or
	// more with the lines around it (surround.go).
	rng parse.Range
	// fixed: the lead and its neighbourhood, which are not widened again;
	// cut: text is already an excerpt of the symbol.
	fixed, cut bool
	// why is the evidence that put the entry in the answer, in words
	// (why.go); render.go adds what the item's lines hold beyond it.
	why string
	// weak: the entry has no evidence of its own (why.go).
	weak bool
}

// itemPick is the context items a request gets: the required ones (always,
// named), first, and the ones that came in on their score, to be fused with
// the code.
type itemPick struct {
	required, scored []*contextItem
}

// itemKind reports whether the request takes items of a kind.
func (p *plan) itemKind(kind string) bool {
	on, set := p.req.IncludeItems[kind]
	return on || !set
}

// ParamError is a request field that is missing or malformed. The server
// answers it with InvalidParams; the CLI exits with status 2.
type ParamError struct {
	Field string
	Msg   string
}

func (e *ParamError) Error() string { return e.Field + ": " + e.Msg }

// ParamErr is a ParamError for field, its message formatted.
func ParamErr(field, format string, args ...any) error {
	return &ParamError{Field: field, Msg: fmt.Sprintf(format, args...)}
}

// plan is a validated request.
type plan struct {
	req *SelectRequest
	// text is the turn the request asks, analysed as query, and hist the
	// conversation before it: the request and its history, or, for a
	// follow-up with no words of its own ("ok, now make that change"),
	// the last turn and the turns before that (standIn).
	text      string
	hist      []string
	query     heuristics.Query
	limit     int
	maxChars  int
	perItem   int
	paths     *glob.Set
	excludes  *glob.Set
	kinds     map[parse.Kind]bool
	activeAbs string
	cursor    *Cursor
	pinned    []pinRef // in order
	// asks: the query asks for tests, docs or configuration, so they are
	// discounted less.
	asks heuristics.Asks
	// itemShare is the share of maxChars items other than code may take.
	itemShare float64
	// deixis: the query points at the code under the cursor (deixis.go).
	deixis heuristics.Deixis
	// tok is the token budget (pack.go).
	tok tokenBudget
}

// shareChars is the part of the budget items other than code may take.
func (p *plan) shareChars() int { return int(p.itemShare * float64(p.maxChars)) }

// cand is one candidate symbol with the evidence for it.
// tiedRank is where a candidate stands in a source's tie whose credit its
// members share.
type tiedRank struct {
	src heuristics.Source
	tie heuristics.Tie
}

type cand struct {
	folder   *snapshot.Folder
	fileSlot uint32
	slot     uint32
	path     string
	lang     string
	cat      heuristics.Category // the file's, from the index
	sym      parse.Symbol
	hash     uint64
	nameSig  uint64 // sym.Name's signature from the index (0: none; fuse.go, namer)
	ranks    [heuristics.NumSources]int32
	scores   [heuristics.NumSources]float32
	// tied are the sources' ties where ranks holds a tie's shared credit
	// (symRank.tie): its signals show their own ranks.
	tied  []tiedRank
	fused float64
	// strong: what the query's naming the symbol or its file adds to
	// its fused score, on a scale of its own (fuse.go, nameStrengths).
	strong float64
	// strongBy says what the query named for strong: StrongName,
	// StrongStem, StrongScope, StrongFile, StrongFolder or StrongVersion
	// (read only when strong > 0).
	strongBy string
	// lead: what the size of its lexical lead adds to its fused score
	// (heuristics.LeadBonus; with no active file only, code only). The
	// whole-file and history leads move its file's rank instead.
	lead   float64
	reason string
	// head: a file item of the lines before the file's first symbol
	// (focus.go), not of the whole file.
	head bool
	// opening: one of the first items, which span files (focus.go).
	opening bool
	// evident: something besides a faint likeness points at it (see
	// hasEvidence); an answer nothing matched well keeps only these.
	evident bool
	// site: where a deictic query's caller calls the cursor's symbol, or
	// where the cursor's symbol calls this callee (deixis.go).
	site *callSite
	// coChanged and pastChange are the history's words for why it ranks
	// the file (sources.go): "changed together with …", "like commit …".
	coChanged, pastChange string
	// namesake: the name it defines that extends a name of the active
	// file the request names (sibling source, namesakes).
	namesake string
	// gone: where a name the request writes was removed from its file
	// (goneSource).
	gone string
	// literal: the literal of code the request removes that it holds
	// (literalOwn) or its file holds (literalSource).
	literal    string
	literalOwn bool
	// testedBy: the test file (base name) among the answer's first files
	// whose code this is, placed right after it (testedCode).
	testedBy string
	// literalFlag: the literal declares a flag the request names.
	literalFlag bool
	// spelling: why the spelling source ranks it, the misspelled word it
	// holds (spellingOwn) or its file holds (spellingSource).
	spelling    string
	spellingOwn bool
	// around: a window of the lines around the lead (surround.go) names
	// the lead's symbol, and above says on which side of it the window is.
	around string
	above  bool
	// outside: an item of its file's lines outside any symbol that hold
	// rare words of the query (surround.go, outside).
	outside bool
}

// callSite is a use of a name: the symbol using it (qualified), and the
// file and 1-based line of the use.
type callSite struct {
	user, path string
	line       int
	callee     string // the name used (qualified)
	call       bool   // a call, not a type named
}

// query is the analysed request, ready for the sources.
type query struct {
	raw   []string                // the query's terms as tokenized, repeats kept
	own   []symbolindex.QueryTerm // terms of the query itself, each once
	terms []symbolindex.QueryTerm // own terms plus weighted history terms
	seen  map[string]bool         // the terms in terms
	vec   []float32
	// mentions: identifiers and paths from the query (weight 1) and the
	// history (each with its recency weight).
	idents []mention
	paths  []mention
	// words are the request's own words as wordRuns gives them ("": a
	// deictic request), where a file's dotted name spelt out is looked
	// for (spells).
	words string
	// ctxWeight is how much the conversation counts in this turn
	// (heuristics.ContextWeight): a path the history names earns the
	// strong-match bonus only as far as the request leans on it.
	ctxWeight float64
	// sentences are the sub-queries of a query of several sentences.
	sentences [][]symbolindex.QueryTerm
	// release: the request (or the history it continues) names a version
	// number, as a release commit does (history.NamesVersion).
	release bool
	// versions are the versions the request's first line names
	// (heuristics.NamedVersions of releaseLine): the ones a release
	// replaces (versionCands, versionDecls). None when only the history
	// it continues names one.
	versions []heuristics.Version
	// removed are the literals of code the request removes or replaces
	// (heuristics.RemovedLiterals), for the literal source.
	removed []string
	// flags are the literals that declare the command-line flags the
	// request's first line names (heuristics.FlagLiterals), for the
	// literal source as well.
	flags []string
	// spell: what the request asks about spelling (spelling.Request), for
	// the spelling source.
	spell spelling.Ask
	// deictic: the query points at the code under the cursor; its own
	// words are not searched for (deixis.go).
	deictic bool
}

// mention is an identifier or a path the query or its history names,
// with the weight of the turn that names it.
type mention struct {
	name string
	w    float64
	hist bool // named by the history, not the request
}

// hasEvidence reports whether a candidate has evidence of its own beyond a
// faint likeness: a source other than the embedder ranked it, or its
// cosine reaches heuristics.SemanticConfidence. The built-in embedder's
// best cosine for a query the workspace knows nothing about is about .25
// (EVAL.md, "No evidence, no item").
func (c *cand) hasEvidence() bool {
	for src := range heuristics.NumSources {
		switch src {
		case heuristics.SrcSemantic, heuristics.SrcFile, heuristics.SrcLocality:
		default:
			if c.ranks[src] > 0 {
				return true
			}
		}
	}
	return float64(c.scores[heuristics.SrcSemantic]) >= heuristics.SemanticConfidence
}

func localityOf(c *cand) float32 { return c.scores[heuristics.SrcLocality] }

// hasOwnEvidence reports whether a source other than the file-level ones
// ranked the candidate itself.
func (c *cand) hasOwnEvidence() bool {
	for _, src := range []heuristics.Source{heuristics.SrcLexical, heuristics.SrcSemantic, heuristics.SrcMention, heuristics.SrcActive, heuristics.SrcEdit} {
		if c.ranks[src] > 0 {
			return true
		}
	}
	return false
}

// scoredFile is one entry of a file-level list: a file slot and the
// source's score for it.
type scoredFile struct {
	slot  uint32
	score float64
}

func fileScoreOf(sf scoredFile) float64 { return sf.score }

// accepts applies the request's path and kind filters.
func (p *plan) accepts(relPath string, kind parse.Kind) bool {
	if p.kinds != nil && !p.kinds[kind] {
		return false
	}
	return p.acceptsPath(relPath)
}

func (p *plan) acceptsPath(relPath string) bool {
	if p.paths != nil && !p.paths.MatchAny(relPath) {
		return false
	}
	return p.excludes == nil || !p.excludes.MatchAny(relPath)
}

// unanchored: the query only points ("make it better") and the request
// gives it nothing to point at (heuristics.ConfidenceInput.Unanchored).
func (p *plan) unanchored() bool {
	return len(p.hist) == 0 && p.activeAbs == "" && len(p.pinned) == 0 && heuristics.PointsBack(p.query)
}

// pointsAtCursor reports whether the query points at the code under a
// cursor the request has.
func (p *plan) pointsAtCursor() bool {
	return p.deixis != heuristics.NotDeictic && p.cursor != nil && p.activeAbs != ""
}
