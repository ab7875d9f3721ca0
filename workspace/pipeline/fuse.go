package pipeline

import (
	"bytes"
	"math"
	"path"
	"slices"
	"sort"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/ctxls/ctxls/heuristics"
	"github.com/ctxls/ctxls/symbolindex"
	"github.com/ctxls/ctxls/symbolindex/parse"
	"github.com/ctxls/ctxls/symbolindex/tokenize"
	"github.com/ctxls/ctxls/workspace/items"
	"github.com/ctxls/ctxls/workspace/snapshot"
)

// pinnedItems resolves the request's pinned files and ids to items. A
// pinned file is one file item; a pinned id names a symbol or a file, in
// the first folder that has it.
func (s *snap) pinnedItems(p *plan) []*cand {
	var out []*cand
	for _, ref := range p.pinned {
		for _, fv := range s.Folders {
			if ref.root != "" && fv.Root != ref.root {
				continue
			}
			if c := pinnedCand(fv, ref.rel, ref.qualified); c != nil {
				out = append(out, c)
				break
			}
		}
	}
	return out
}

func pinnedCand(f *snapshot.Folder, rel, qualified string) *cand {
	fs, ok := f.Index.FileSlot(rel)
	if !ok {
		return nil
	}
	c := &cand{folder: f, fileSlot: fs, path: rel, lang: f.Index.FileLanguage(fs), cat: f.Index.FileCategory(fs), reason: ReasonPinned, fused: 1}
	if qualified == "" {
		st, _ := f.Index.State(rel)
		c.sym = parse.Symbol{Name: "", Kind: parse.KindFile, EndByte: uint32(st.Size)}
		c.slot = noSlot
		return c
	}
	for _, s := range f.Index.FileSymbols(fs) {
		ref, _ := f.Index.Symbol(s)
		if ref.Qualified == qualified {
			c.slot, c.sym, c.hash, c.nameSig = s, ref.Symbol, f.Index.LeafHash(s), f.Index.NameSig(s)
			return c
		}
	}
	return nil
}

// collect runs every source over the scope's folder and fuses their lists
// into scored candidates.
func (s *scope) collect() []*cand {
	// The map is kept from one select to the next (cleared): grown step
	// by step for each select, it rehashed every candidate several times.
	cands := candsPool.Get().(map[uint32]*cand)
	defer func() {
		clear(cands)
		candsPool.Put(cands)
	}()
	var fileLists [heuristics.NumSources][]scoredFile
	s.lists = &fileLists
	for _, src := range sources {
		s.snap.Yield()
		r := src.run(s)
		fileLists[src.src] = r.files
		s.addSyms(cands, src.src, r.syms)
		s.notePointed(src.src, r)
	}
	fileScore, ev := s.fuseFiles(&fileLists)
	fileRank, fileTies := s.rankFiles(cands, fileScore, ev)
	if s.q.release {
		s.versionCands(cands)
	}
	onlyRanks := fileOnlyRanks(&fileLists)
	evident := evidentFiles(&fileLists)
	out := make([]*cand, 0, len(cands))
	for _, c := range cands {
		c.evident = evident[c.fileSlot] || c.hasEvidence()
		if r, ok := fileRank[c.fileSlot]; ok {
			c.ranks[heuristics.SrcFile] = r
			c.scores[heuristics.SrcFile] = float32(fileScore[c.fileSlot])
			if t, ok := fileTies[c.fileSlot]; ok {
				c.tied = append(c.tied, tiedRank{heuristics.SrcFile, t})
			}
		}
		for src, ranks := range onlyRanks {
			if r, ok := ranks[c.fileSlot]; ok {
				c.ranks[src], c.scores[src] = r.rank, r.score
			}
		}
		c.site, c.coChanged, c.pastChange, c.namesake, c.gone = s.sites[c.slot], s.coWhy[c.fileSlot], s.pastWhy[c.fileSlot], s.namesakeWhy[c.fileSlot], s.goneWhy[c.fileSlot] // the evidence's words (why.go)
		s.noteHeld(c)
		if s.activeRel != "" {
			c.scores[heuristics.SrcLocality] = float32(locality(s.activeRel, c.path))
		}
		out = append(out, c)
	}
	if s.activeRel != "" {
		rankLocality(out)
	}
	s.fuse(out, fileLists[heuristics.SrcGraph])
	return out
}

// noteHeld gives c what it, or else its file, holds that the literal and
// spelling sources rank it for: the words of their evidence (why.go).
func (s *scope) noteHeld(c *cand) {
	if lit, ok := s.litSym[c.slot]; ok {
		c.literal, c.literalOwn = lit, true
	} else {
		c.literal = s.litWhy[c.fileSlot]
	}
	c.literalFlag = c.literal != "" && slices.Contains(s.q.flags, c.literal)
	if why, ok := s.spellSym[c.slot]; ok {
		c.spelling, c.spellingOwn = why, true
	} else {
		c.spelling = s.spellWhy[c.fileSlot]
	}
}

// rankFiles ranks the files by their fused scores (ties by path), the
// file source's ranks of their symbols (and, in ties, the shared ones'
// heuristics.Tie), and makes candidates of the heuristics.TopFiles best
// files' symbols. Files that the request's words
// match alike and nothing else but the embedder tells apart share the
// credit of their best rank when they are more than heuristics.TieKeep
// (heuristics.EvidenceTies): the embedder's small differences would
// otherwise spread generated files over the first ranks one by one.
func (s *scope) rankFiles(cands map[uint32]*cand, fileScore map[uint32]float64, ev map[uint32]heuristics.Evidence) (fileRank map[uint32]int32, ties map[uint32]heuristics.Tie) {
	// Each file with its score, so that sorting compares scores without
	// looking them up in the map each time.
	type scored struct {
		fs    uint32
		score float64
		ev    heuristics.Evidence
	}
	files := make([]scored, 0, len(fileScore))
	for fs, sc := range fileScore {
		files = append(files, scored{fs, sc, ev[fs]})
	}
	sort.Slice(files, func(i, j int) bool {
		a, b := files[i].score, files[j].score
		if a != b {
			return a > b
		}
		// Ties by path: slots depend on the order files were indexed in.
		return s.idx.FilePath(files[i].fs) < s.idx.FilePath(files[j].fs)
	})
	fileRank = make(map[uint32]int32, len(files))
	for i, t := range heuristics.EvidenceTies(len(files), func(i int) heuristics.Evidence { return files[i].ev }) {
		fs := files[i].fs
		fileRank[fs] = int32(t.Rank())
		if t.Files > 0 {
			if ties == nil {
				ties = map[uint32]heuristics.Tie{}
			}
			ties[fs] = t
		}
		if i < heuristics.TopFiles {
			for _, slot := range s.idx.FileSymbols(fs) {
				s.cand(cands, slot)
			}
		}
	}
	return fileRank, ties
}

// evidentFiles are the files some source other than the embedder found:
// the words, names, history or graph of the request point at them.
func evidentFiles(lists *[heuristics.NumSources][]scoredFile) map[uint32]bool {
	out := map[uint32]bool{}
	for src := range heuristics.NumSources {
		if src == heuristics.SrcSemantic {
			continue
		}
		for _, sf := range lists[src] {
			out[sf.slot] = true
		}
	}
	return out
}

// fileOnlyRanks gives the files of the file-only sources their ranks, for
// the signals of their symbols (their evidence is already in the file
// ranking).
func fileOnlyRanks(lists *[heuristics.NumSources][]scoredFile) map[heuristics.Source]map[uint32]symRank {
	out := map[heuristics.Source]map[uint32]symRank{}
	for src := range heuristics.NumSources {
		if !heuristics.FileOnly(src) || len(lists[src]) == 0 {
			continue
		}
		ranks := make(map[uint32]symRank, len(lists[src]))
		for i, r := range heuristics.CompetitionRanks(lists[src], fileScoreOf) {
			ranks[lists[src][i].slot] = symRank{rank: int32(r), score: float32(lists[src][i].score)}
		}
		out[src] = ranks
	}
	return out
}

// addSyms puts one source's ranks and scores on its symbols' candidates,
// and what the size of its lead adds (heuristics.LeadBonus): with no
// active file only, and for code only (a test or a declaration table that
// repeats the request's words, a test block of email examples, is far
// ahead in words, not in what it asks for).
func (s *scope) addSyms(cands map[uint32]*cand, src heuristics.Source, syms []symRank) {
	top, floor, lead := s.leadRange(src, len(syms), func(i int) float64 { return float64(syms[i].score) })
	for _, h := range syms {
		if c := s.cand(cands, h.slot); c != nil {
			c.ranks[src], c.scores[src] = h.rank, h.score
			if h.tie.Files > 0 {
				c.tied = append(c.tied, tiedRank{src, h.tie})
			}
			if lead && c.cat == 0 {
				// A tie that shares its rank's credit shares its lead too:
				// four tied files ahead of the fifth take one lead, not four.
				c.lead += heuristics.LeadBonus(s.fv.Weights.Source[src], float64(h.score), top, floor) / float64(max(1, h.tie.Files))
			}
			if src == heuristics.SrcActive {
				c.reason = ReasonActive
			}
		}
	}
}

// leadRange is the top and the heuristics.LeadDepth-th of src's list of n
// scores (score(i), best first), and whether the size of its lead counts
// there (heuristics.LeadBonus): with no active file (as content
// agreement), for a source whose scores measure a word match, over at
// least LeadDepth entries.
func (s *scope) leadRange(src heuristics.Source, n int, score func(int) float64) (top, floor float64, ok bool) {
	if s.p.activeAbs != "" || !heuristics.LeadSource(src) || n < heuristics.LeadDepth {
		return 0, 0, false
	}
	return score(0), score(heuristics.LeadDepth - 1), true
}

// candsPool holds collect's maps of candidates by slot, empty.
var candsPool = sync.Pool{New: func() any { return map[uint32]*cand{} }}

// cand returns the candidate for a symbol slot, making it on first sight;
// nil when the request's filters reject the symbol.
func (s *scope) cand(cands map[uint32]*cand, slot uint32) *cand {
	if c, ok := cands[slot]; ok {
		return c
	}
	ref, ok := s.idx.Symbol(slot)
	if !ok || !s.p.accepts(ref.Path, ref.Kind) || s.ruleFiles[ref.Path] || ref.Category.Has(heuristics.Docs) && !s.p.itemKind(items.ItemDoc) {
		return nil
	}
	if len(s.cands) == cap(s.cands) { // candidates come from a slab, not one allocation each
		s.cands = s.snap.newSlab()
	}
	s.cands = append(s.cands, cand{folder: s.fv, fileSlot: ref.File, slot: slot, path: ref.Path, lang: ref.Language, cat: ref.Category, sym: ref.Symbol, hash: s.idx.LeafHash(slot), nameSig: s.idx.NameSig(slot)})
	c := &s.cands[len(s.cands)-1]
	cands[slot] = c
	return c
}

// fuseFiles fuses the file-level lists into one score per file: each
// source's ranks, then nearness to the active file as a prior, then the
// reference graph; and each file's evidence apart from the embedder's
// ranks and the prior, which rankFiles' ties compare (nil when no search
// list holds a tie over more than heuristics.TieKeep files).
func (s *scope) fuseFiles(lists *[heuristics.NumSources][]scoredFile) (fileScore map[uint32]float64, ev map[uint32]heuristics.Evidence) {
	fileScore = map[uint32]float64{}
	for src := range heuristics.NumSources {
		if heuristics.SearchSource(src) && heuristics.LongTie(lists[src], fileScoreOf) {
			ev = map[uint32]heuristics.Evidence{} // else no file ties (rankFiles)
			break
		}
	}
	add := func(src heuristics.Source) {
		list := lists[src]
		w := s.fv.Weights.Source[src]
		top, floor, lead := s.leadRange(src, len(list), func(i int) float64 { return list[i].score })
		for i, r := range heuristics.CompetitionRanks(list, fileScoreOf) {
			fs, part := list[i].slot, heuristics.RRF(w, r)
			fileScore[fs] += part
			if lead { // added apart: the sums stay those the replays measured
				l := heuristics.LeadBonus(w, list[i].score, top, floor)
				fileScore[fs] += l
				part += l
			}
			if ev != nil && src != heuristics.SrcSemantic {
				e := ev[fs]
				e.Words += part
				if heuristics.SearchSource(src) {
					e.Search += part
				}
				ev[fs] = e
			}
		}
	}
	for src := heuristics.Source(0); src < heuristics.NumSources; src++ {
		if src != heuristics.SrcGraph {
			add(src)
		}
	}
	if s.activeRel != "" {
		near := make([]uint32, 0, len(fileScore)+1)
		for fs := range fileScore {
			near = append(near, fs)
		}
		if fs, ok := s.idx.FileSlot(s.activeRel); ok {
			if _, in := fileScore[fs]; !in {
				near = append(near, fs)
			}
		}
		for _, fs := range near {
			fileScore[fs] += s.fv.Weights.LocalityPrior(locality(s.activeRel, s.idx.FilePath(fs)))
		}
	}
	add(heuristics.SrcGraph)
	return fileScore, ev
}

// priorAsks is what the request asks for, as the category priors read
// it. With a code file open, the words that ask for configuration do not
// lift it: "config", "settings", "build", "env", "upgrade ruff" are as
// often the code's own configuration (flask's app config, a middleware's
// XConfig) as its manifests, and the user is in code (pyproject.toml took
// one of the first five for a change to flask's app.py with wrappers.py
// open and "add config and docs for limits"). Configuration keeps the
// prior nobody asked for, and a file the request names is still found by
// its name. Words that ask for docs or tests ("document it") mean nothing
// else, and still lift them.
func (s *scope) priorAsks() heuristics.Asks {
	asks := s.p.asks
	if s.activeRel == "" || !asks.Config {
		return asks
	}
	if fs, ok := s.idx.FileSlot(s.activeRel); ok && heuristics.CategoryOf(s.activeRel, s.idx.FileLanguage(fs)) == 0 {
		asks.Config = false
	}
	return asks
}

// fuse gives each candidate its fused score and its reason. The tests of
// the active file (or the code it tests) are not discounted as tests:
// they change together.
func (s *scope) fuse(cs []*cand, graph []scoredFile) {
	partners := map[uint32]bool{}
	if s.activeRel != "" {
		for _, fs := range testPartners(s.idx, s.activeRel) {
			partners[fs] = true
		}
	}
	inGraph := make(map[uint32]bool, len(graph))
	for _, sf := range graph {
		inGraph[sf.slot] = true
	}
	asks := s.priorAsks()
	product := !s.scriptsAreTooling()
	deictic := s.deictic()
	s.nameStrengths(cs)
	var here *cand
	best := 0.0
	for _, c := range cs {
		c.fused = s.fv.Weights.FuseRanks(&c.ranks, float64(c.scores[heuristics.SrcLocality])) + c.strong + c.lead
		if s.p.activeAbs == "" && c.cat == 0 && heuristics.ContentAgrees(c.ranks[heuristics.SrcLexical], c.ranks[heuristics.SrcSemantic]) {
			// With no active file in the request: beside one, nearness
			// and the editor's sources part near-equal code (two
			// formatAmount, one in the active file's folder), which the
			// agreement must not outvote.
			c.fused += heuristics.AgreeWeight * heuristics.RRF(s.fv.Weights.Source[heuristics.SrcLexical], 1)
		}
		if deictic {
			c.fused += (heuristics.DeicticBoost - 1) * heuristics.RRF(s.fv.Weights.Source[heuristics.SrcGraph], int(c.ranks[heuristics.SrcGraph]))
			if c.ranks[heuristics.SrcActive] == 1 {
				here = c
			}
		}
		if !partners[c.fileSlot] && !(product && c.cat == heuristics.Config && c.lang == parse.LangShell) {
			c.fused *= s.fv.Weights.Prior(asks, c.cat)
			if s.p.activeAbs == "" {
				// Beside an open file, its declarations change with it
				// (a signature and its .d.ts): co-change ranks them.
				c.fused *= asks.DeclarationPrior(c.path)
			}
		}
		if c.reason == "" {
			c.reason = ReasonRetrieved
			if inGraph[c.fileSlot] && !c.hasOwnEvidence() || deictic && c.ranks[heuristics.SrcGraph] > 0 {
				c.reason = ReasonExpanded
			}
		}
		if c != here {
			best = max(best, c.fused)
		}
	}
	if here != nil {
		// A query pointing at the symbol under the cursor gets it first.
		here.fused = max(here.fused, best+heuristics.RRF(s.fv.Weights.Source[heuristics.SrcActive], 1))
	}
}

// nameStrengths gives each candidate what the query's naming it adds to
// its fused score (heuristics.StrongBonus of heuristics.StrongName): for
// its own name, or at heuristics.StemShare for its file's stem, whichever
// is more, in proportion to its lexical score over the best one (a name
// the words of the query otherwise match poorly is not what it asks for).
func (s *scope) nameStrengths(cs []*cand) {
	query, ownTerms := s.p.text, s.q.own
	// A release ("chore(release): v1.7.8") names a version, not code:
	// its words matching a changelog's headings say nothing; the code
	// that declares the version is what it changes.
	if s.q.release {
		s.versionDecls(cs)
		return
	}
	if len(ownTerms) == 0 {
		return
	}
	topLex := 0.0
	for _, c := range cs {
		topLex = max(topLex, float64(c.scores[heuristics.SrcLexical]))
	}
	if topLex == 0 {
		return
	}
	n := s.newNamer(query, ownTerms)
	written, bonus := n.written, n.bonus
	full, spelt := heuristics.StrongBonus(1, s.fv.Weights.Source[heuristics.SrcLexical]), s.speltFiles()
	stems := map[uint32]float64{}
	for _, c := range cs {
		switch {
		case c.scores[heuristics.SrcLexical] == 0:
			// The bonus is scaled by the lexical score: nothing to weigh.
			c.strong, c.strongBy = 0, StrongName
		case c.cat != 0:
			// A test, doc or configuration file repeats the names of the
			// code it is about ("TestUploadRetry" for "retry the upload"):
			// only a name written as it is counts.
			c.strong, c.strongBy = 0, StrongName
			if c.sym.Name != "" && written[c.sym.Name] {
				c.strong = bonus(c.sym.Name, c.nameSig, true) * float64(c.scores[heuristics.SrcLexical]) / topLex
			}
		default:
			st, ok := stems[c.fileSlot]
			if !ok {
				st = bonus(fileStem(c.path), 0, false) * heuristics.StemShare
				stems[c.fileSlot] = st
			}
			c.strong, c.strongBy = st, StrongStem
			if c.sym.Name != "" {
				if b := bonus(c.sym.Name, c.nameSig, true); b > c.strong {
					c.strong, c.strongBy = b, StrongName
				}
			}
			c.strong *= float64(c.scores[heuristics.SrcLexical]) / topLex
		}
		// A stem spelt out as words in a row ("adjust rollup config":
		// rollup.config.js) names the file as a path would: its code and
		// its configuration, whose names are most often dotted, take a
		// full name's bonus whatever their words; a test or a document
		// keeps only its mention, as when named outright. The files are
		// the mention's (speltFiles): read once, not a path a candidate.
		if full > c.strong && (c.cat == 0 || c.cat.Has(heuristics.Config) && !c.cat.Has(heuristics.Test)) && slices.Contains(spelt, c.fileSlot) {
			c.strong, c.strongBy = full, StrongStem
		}
	}
	s.scopedStems(cs)
}

// versionDecls gives the code symbols of a few lines that declare the
// version a release the turn names replaces (`Version = "5.3.0"` for
// "Changelog for v5.3.1") a full name's bonus (heuristics.Precedes): a
// version the first line names (q.versions), not the body's ("Requires
// Go 1.22" would make a `minGo = "1.21"` the release's declaration).
func (s *scope) versionDecls(cs []*cand) {
	named := s.q.versions
	b := heuristics.StrongBonus(1, s.fv.Weights.Source[heuristics.SrcLexical])
	if len(named) == 0 || b == 0 {
		return
	}
	for _, c := range cs {
		if c.cat == 0 && c.slot != noSlot && s.declaresVersion(c.fileSlot, &c.sym, named) {
			// Evidence of its own, as a name the request writes is: an
			// answer with low confidence ("2.0.4", no past release in
			// history) keeps it (gather).
			c.strong, c.strongBy, c.evident = b, StrongVersion, true
		}
	}
}

// declaresVersion reports whether sym, of the file in slot fs, declares
// a version one of named replaces: a declaration of a few lines, or a
// longer block of constants (Go's `const (` with the version, the
// website and a banner) that holds no other version.
func (s *scope) declaresVersion(fs uint32, sym *parse.Symbol, named []heuristics.Version) bool {
	long := sym.Range.EndLine-sym.Range.StartLine >= heuristics.VersionDeclLines
	if sym.Kind == parse.KindFile || long && sym.Kind != parse.KindConst && sym.Kind != parse.KindVar {
		return false
	}
	src := s.text(fs)
	if int(sym.EndByte) > len(src) || sym.StartByte > sym.EndByte {
		return false
	}
	return declares(string(src[sym.StartByte:sym.EndByte]), named, long)
}

// versionNames are the names code gives the version it declares
// (case-insensitively: Go's Version, JavaScript's VERSION). Python's
// __version__ is no symbol (the index keeps a module's UPPER_CASE
// assignments only), so its name finds nothing: its file is found by its
// name (__version__.py) or history. Made a symbol, it cost httpx
// 1805ee0d "Graceful upgrade path for 0.28." a place at 150 commits
// (read as a release, __version__.py first) and gained no case (EVAL.md,
// review3).
var versionNames = []string{"version"}

// versionCands makes candidates, for a release request, of the code
// symbols named as versions are that declare the version it replaces:
// the declaration a release changes may be in a file no source ranks (a
// version.go no past release touched yet, the version having moved
// there). versionDecls gives them their bonus.
func (s *scope) versionCands(cands map[uint32]*cand) {
	named := s.q.versions
	if len(named) == 0 {
		return
	}
	for _, name := range versionNames {
		for _, slot := range s.idx.Named(name) {
			if _, ok := cands[slot]; ok {
				continue
			}
			if ref, ok := s.idx.Symbol(slot); ok && ref.Category == 0 && s.declaresVersion(ref.File, &ref.Symbol, named) {
				s.cand(cands, slot)
			}
		}
	}
}

// declares reports whether text holds a version one of named replaces;
// only: and none other.
func declares(text string, named []heuristics.Version, only bool) bool {
	declared := heuristics.DeclaredVersions(text)
	if only && len(declared) != 1 {
		return false
	}
	for _, d := range declared {
		for _, n := range named {
			if d.Precedes(n) {
				return true
			}
		}
	}
	return false
}

// namer measures how strongly a turn names a name. It runs for every
// candidate of every request: a name whose signature says it holds none
// of the turn's terms is not read; one tokenizer scratch and one term
// list serve every other name, and the terms' rarities are looked up
// once.
type namer struct {
	s       *scope
	own     map[string]bool // the turn's terms
	ownBits []uint64        // the bits of each in a name signature
	// heads are each of the turn's terms but its last byte (mayName);
	// low is a name lowercased, as the tokenizer does.
	heads   [][]byte
	low     []byte
	written map[string]bool // the names it writes as code does
	idfs    map[string]float64
	maxIDF  float64
	sc      tokenize.Scratch
	terms   []int32 // the name's terms, in tab
	// tab holds each word of the names read, once (names share their
	// words): its string, whether the turn holds it, its rarity once
	// looked up; interned finds a word's entry.
	tab    []nameWord
	parts  []heuristics.NamePart
	joined heuristics.NamePart
	// hit, and the scanner bound once: a closure made per name cost two
	// allocations a candidate. It keeps a name's terms in buf, each ending
	// at its ends and held by the turn or not (held), so that one pass
	// both finds whether the turn holds one and gives them; jbuf is a
	// name's joined form.
	hit       bool
	scan      func([]byte) bool
	buf, jbuf []byte
	ends      []int
	held      []bool
	interned  map[string]int32
}

// nameWord is a word of names (namer.tab).
type nameWord struct {
	term         string
	own, weighed bool
	idf          float64
}

func (s *scope) newNamer(query string, ownTerms []symbolindex.QueryTerm) *namer {
	n := &namer{s: s, own: make(map[string]bool, len(ownTerms)), written: writtenNames(query),
		idfs: map[string]float64{}, maxIDF: float64(s.idx.TermIDF("")), interned: map[string]int32{},
		buf: make([]byte, 0, 256), ends: make([]int, 0, 32), held: make([]bool, 0, 32)}
	for _, t := range ownTerms {
		if !n.own[t.Term] && t.Term != "" {
			n.ownBits = append(n.ownBits, symbolindex.TermBits([]byte(t.Term)))
			n.heads = append(n.heads, []byte(t.Term[:len(t.Term)-1]))
		}
		n.own[t.Term] = true
	}
	n.scan = func(b []byte) bool {
		own := n.own[string(b)]
		n.hit = n.hit || own
		n.buf = append(n.buf, b...)
		n.ends = append(n.ends, len(n.buf))
		n.held = append(n.held, own)
		return true
	}
	return n
}

// intern is the entry in tab of the word b.
func (n *namer) intern(b []byte) int32 {
	i, ok := n.interned[string(b)]
	if !ok {
		t := string(b)
		i = int32(len(n.tab))
		n.tab = append(n.tab, nameWord{term: t, own: n.own[t]})
		n.interned[t] = i
	}
	return i
}

func (n *namer) idf(t string) float64 {
	w, ok := n.idfs[t]
	if !ok {
		w = float64(n.s.idx.TermIDF(t))
		n.idfs[t] = w
	}
	return w
}

// mayHold reports whether a name of signature sig may hold one of the
// turn's terms: false only when it holds none (0: no signature, maybe).
func (n *namer) mayHold(sig uint64) bool {
	if sig == 0 {
		return true
	}
	for _, b := range n.ownBits {
		if sig&b == b {
			return true
		}
	}
	return false
}

// mayName reports whether name may hold one of the turn's terms, found
// without tokenizing it: false only when it holds none. A term of a name
// is a part of one of its identifiers, lowercased and stemmed, or an
// identifier's parts joined (tokenize); stemming only cuts a part's end,
// then may add or change one letter: all but the term's last byte is in
// the name, lowercased, without the "_" and "-" that join parts.
func (n *namer) mayName(name string) bool {
	b := n.low[:0]
	for _, r := range name {
		switch {
		case r == '_' || r == '-':
		case r < utf8.RuneSelf:
			if 'A' <= r && r <= 'Z' {
				r += 'a' - 'A'
			}
			b = append(b, byte(r))
		default:
			b = utf8.AppendRune(b, unicode.ToLower(r))
		}
	}
	n.low = b
	for _, h := range n.heads {
		if bytes.Contains(b, h) {
			return true
		}
	}
	return false
}

// bonus is what naming name, of signature sig (0: none), adds
// (heuristics.StrongBonus); asWritten: a one-word name counts only when
// the turn writes it as code does. A name none of whose terms the turn
// holds has strength 0, found from its signature or without building its
// terms.
func (n *namer) bonus(name string, sig uint64, asWritten bool) float64 {
	if !n.mayHold(sig) || !n.mayName(name) {
		return 0
	}
	n.hit, n.buf, n.ends, n.held = false, n.buf[:0], n.ends[:0], n.held[:0]
	n.sc.Run(name, tokenize.ModeDoc, n.scan)
	if !n.hit {
		return 0
	}
	count, whole := len(n.ends), false
	if count > 1 {
		// The tokenizer gives an identifier of two parts or more its
		// joined form last; a stem of two words ("rollup.config") has
		// none (the dot parts them as two names of one word each), and
		// its joined form is made here.
		n.jbuf = appendJoined(n.jbuf[:0], name)
		if bytes.Equal(n.term(count-1), n.jbuf) {
			count--
		}
		whole = n.own[string(n.jbuf)]
	}
	written := asWritten && n.written[name]
	if !written && n.fewerThanTwo(count, whole) {
		// heuristics.StrongName: a name not written as code does counts
		// only with two of its parts in the turn; their rarities are not
		// needed.
		return 0
	}
	var joined *heuristics.NamePart
	if len(n.ends) > 1 {
		n.joined = heuristics.NamePart{Term: string(n.jbuf), InQuery: whole}
		joined = &n.joined
	}
	// The joined form's rarity, when the turn holds it, is the name's
	// (heuristics.NameStrengthOf): its parts' are not read.
	if whole {
		joined.IDF = n.idf(joined.Term)
	}
	n.terms = n.terms[:0]
	for i := range count {
		n.terms = append(n.terms, n.intern(n.term(i)))
	}
	words := n.terms
	n.parts = n.parts[:0]
	for _, i := range words {
		w := &n.tab[i]
		if !w.weighed && !whole {
			w.idf, w.weighed = float64(n.s.idx.TermIDF(w.term)), true
		}
		n.parts = append(n.parts, heuristics.NamePart{Term: w.term, IDF: w.idf, InQuery: w.own})
	}
	st, nparts := heuristics.NameStrengthOf(n.parts, joined, n.maxIDF)
	return heuristics.StrongBonus(heuristics.StrongName(st, nparts, written), n.s.fv.Weights.Source[heuristics.SrcLexical])
}

// term is the i-th term of the name scanned last.
func (n *namer) term(i int) []byte {
	start := 0
	if i > 0 {
		start = n.ends[i-1]
	}
	return n.buf[start:n.ends[i]]
}

// fewerThanTwo reports whether the name scanned last, of count words
// (its joined form left out), is named by too few of its parts to count
// unless written as code does (heuristics.CountedParts, NamedEnough): when
// the turn does not hold the joined form (whole), it counts the distinct
// words the turn holds, and stops as soon as they are enough. Two distinct
// words are (NamedEnough), so a held word is only compared with the first
// held one: one pass, however many words the name has.
func (n *namer) fewerThanTwo(count int, whole bool) bool {
	if whole {
		return !heuristics.NamedEnough(heuristics.CountedParts(count, true, 0))
	}
	held, first := 0, -1
	for i := range count {
		switch {
		case !n.held[i]:
			continue
		case first < 0:
			first = i
		case bytes.Equal(n.term(first), n.term(i)):
			continue
		}
		held++
		if heuristics.NamedEnough(heuristics.CountedParts(count, false, held)) {
			return false
		}
	}
	return !heuristics.NamedEnough(heuristics.CountedParts(count, false, held))
}

// appendJoined appends a name's letters and digits, lowercased, to dst:
// the term the tokenizer adds for an identifier of two parts or more
// ("bodydump").
func appendJoined(dst []byte, name string) []byte {
	for _, r := range name {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			dst = utf8.AppendRune(dst, unicode.ToLower(r))
		}
	}
	return dst
}

// scopedStems gives the symbols of a file the request's scope names by
// its stem ("fix(static): …" names middleware/static.go) a full name's
// bonus, whatever their words: the scope is the request's own pointer at
// the file (at half, as for a stem, two cases fewer came first on real
// history; EVAL.md).
func (s *scope) scopedStems(cs []*cand) {
	type naming struct {
		by    string
		bonus float64
	}
	named := map[uint32]naming{}
	dirs := map[string]float64{}
	name := func(fs uint32, by string, b float64) {
		if b > named[fs].bonus {
			named[fs] = naming{by: by, bonus: b}
		}
	}
	for _, m := range s.q.paths {
		stem := strings.Trim(strings.TrimPrefix(m.name, "./"), "/")
		// The request's own mentions count in full (a follow-up with no
		// words of its own is its last turn: plan.text); the
		// conversation's as far as the request leans on it ("now do the
		// same for powershell" after "fish: …" not: the earlier scope
		// named the file the request moves away from).
		w := m.w
		if m.hist {
			w *= s.q.ctxWeight
		}
		b := heuristics.StrongBonus(w, s.fv.Weights.Source[heuristics.SrcLexical])
		if b == 0 || stem == "" {
			continue
		}
		if path.Ext(stem) != "" {
			// A code file named outright ("fix typos in httperror.go"):
			// the request's own pointer, which history's many middling
			// ranks must not outvote. A named changelog, workflow or
			// test keeps only its mention: beside it, a commit's
			// message most often describes the code it changed.
			for _, fs := range s.filesByPath(stem) {
				if p := s.idx.FilePath(fs); p == stem || strings.HasSuffix(p, "/"+stem) {
					name(fs, StrongFile, b)
				}
			}
			continue
		}
		for _, fs := range s.filesByPath(stem) {
			if namesStem(s.idx.FilePath(fs), stem) {
				name(fs, StrongScope, b)
			}
		}
		if !m.hist {
			// An earlier turn's folder is where the conversation was,
			// not where a follow-up goes ("monitor-api: publish …",
			// then "handle it on the notifier side").
			dirs[stem] = max(dirs[stem], b)
		}
	}
	for _, c := range cs {
		n := named[c.fileSlot]
		if n.bonus > c.strong && (n.by == StrongScope || c.cat == 0) {
			c.strong, c.strongBy = n.bonus, n.by
		}
	}
	s.scopedFolders(cs, dirs)
}

// scopedFolders gives the code symbols under a folder the request's scope
// names ("fix(middleware): reset ContentLength after gzip decompression"
// names middleware/; "globset: remove use of unsafe" a crate's folder)
// heuristics.ScopeFolderShare of a full name's bonus, in proportion to
// their lexical score over the best one under the folder: the scope
// narrows the request to the folder, and its words pick within it.
func (s *scope) scopedFolders(cs []*cand, dirs map[string]float64) {
	if len(dirs) == 0 {
		return
	}
	in := func(p string) float64 {
		b := 0.0
		for d, db := range dirs {
			if strings.HasPrefix(p, d+"/") || strings.Contains(p, "/"+d+"/") {
				b = max(b, db)
			}
		}
		return b
	}
	top := 0.0
	var under []*cand
	var bonus []float64
	for _, c := range cs {
		if c.cat != 0 || c.scores[heuristics.SrcLexical] == 0 {
			continue
		}
		if b := in(c.path); b > 0 {
			under, bonus = append(under, c), append(bonus, b)
			top = max(top, float64(c.scores[heuristics.SrcLexical]))
		}
	}
	for i, c := range under {
		if b := bonus[i] * heuristics.ScopeFolderShare * float64(c.scores[heuristics.SrcLexical]) / top; b > c.strong {
			c.strong, c.strongBy = b, StrongFolder
		}
	}
}

// writtenNames are the words of a query written as code writes names:
// with a capital letter or an underscore ("Heartbeat", "fetch_orders"),
// as written.
func writtenNames(query string) map[string]bool {
	out := map[string]bool{}
	for _, w := range strings.FieldsFunc(query, func(r rune) bool {
		return !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
	}) {
		if strings.ContainsFunc(w, func(r rune) bool { return r == '_' || r >= 'A' && r <= 'Z' }) {
			out[w] = true
		}
	}
	return out
}

// rankLocality ranks candidates by their locality score (nearest to the
// active file first); equal localities share a rank, so that locality
// breaks ties between otherwise equal candidates without ordering them
// arbitrarily.
func rankLocality(cs []*cand) {
	byLoc := make([]*cand, 0, len(cs))
	for _, c := range cs {
		if c.scores[heuristics.SrcLocality] > 0 {
			byLoc = append(byLoc, c)
		}
	}
	sort.Slice(byLoc, func(i, j int) bool {
		return byLoc[i].scores[heuristics.SrcLocality] > byLoc[j].scores[heuristics.SrcLocality]
	})
	for i, r := range heuristics.CompetitionRanks(byLoc, localityOf) {
		byLoc[i].ranks[heuristics.SrcLocality] = int32(r)
	}
}

// diversify orders candidates by fused score, lowering each further item
// from a file that already has one (the j-th best item of a file is scaled
// by heuristics.SameFileDecay^j), so that the first items span files. Because each
// file's scaled scores still fall with j, sorting by the scaled score is the
// same as greedily taking the best remaining item each time. Twins (files of
// one directory, name without its last extension (twinName), language and
// category: index.d.ts and index.d.cts, the same declarations for two
// module systems) count as one file: the same text twice does not take two
// of the first places. A declaration and its implementation (fastify.d.ts
// and fastify.js) are not twins. The configuration files of a workspace
// folder (not tests) count as one file too: settings, CI workflows and
// templates that share a tooling request's words take one place among the
// first, not all of them.
func diversify(all []*cand) []*cand {
	sort.Slice(all, func(i, j int) bool { return better(all[i], all[j]) })
	// The map is kept from one select to the next (cleared): grown for
	// each select, it was a twentieth of what a select allocates.
	taken := takenPool.Get().(map[fileKey]int)
	copies := copiesPool.Get().(map[string]string)
	defer func() {
		clear(taken)
		takenPool.Put(taken)
		clear(copies)
		copiesPool.Put(copies)
	}()
	for _, c := range all {
		// A file's candidates share its copy name: built once a file.
		twin := twinName(c.path)
		name, ok := copies[twin]
		if !ok {
			name = copyName(twin)
			copies[twin] = name
		}
		k := fileKey{c.folder, name, c.lang, c.cat}
		if c.cat.Has(heuristics.Config) && !c.cat.Has(heuristics.Test) {
			k = fileKey{f: c.folder, cat: heuristics.Config}
		}
		c.fused *= math.Pow(heuristics.SameFileDecay, float64(taken[k]))
		taken[k]++
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].fused > all[j].fused })
	return all
}

// fileKey is what diversify counts a file's items by: its folder, twin
// name, language and category.
type fileKey struct {
	f    *snapshot.Folder
	twin string
	lang string
	cat  heuristics.Category
}

// takenPool holds diversify's counts, empty; copiesPool its copy names
// (copyName) by twin name, empty.
var (
	takenPool  = sync.Pool{New: func() any { return map[fileKey]int{} }}
	copiesPool = sync.Pool{New: func() any { return map[string]string{} }}
)

// twinName is a path without its last extension ("lib/index.d.ts" and
// "lib/index.d.cts": "lib/index.d"), what twins share; a dotfile's name is
// whole (".env"). Only the last extension goes, so user.component.ts and
// user.service.ts, releases/1.2.0.md and 1.3.0.md, or index.d.ts and
// index.ts stay apart. A C or C++ header and a Python stub keep their whole
// name: each declares what the source of its name implements. It is a
// prefix of p (no allocation: diversify asks it for every candidate).
func twinName(p string) string {
	base := path.Base(p)
	switch ext := path.Ext(base); {
	case ext == ".h" || ext == ".hh" || ext == ".hpp" || ext == ".hxx" || ext == ".pyi":
		return p
	case len(ext) < len(base):
		return p[:len(p)-len(ext)]
	}
	return p
}

// copyName is a twin name with the version digits of its folders left
// out ("src/main/java14/x/DefaultMethodSupport" and
// "src/main/java/x/DefaultMethodSupport": "src/main/java/x/..."): the
// copies of one file in the parallel source roots of a multi-release or
// versioned layout (java, java9, java16; v1, v2) are one file to
// diversify, and take one of the first places, not three. Only digits
// after a letter end a folder's version; the file's own name keeps them.
// It allocates only for a path with such a folder.
func copyName(p string) string {
	dir := strings.LastIndexByte(p, '/')
	if dir < 0 || !versionedDir(p[:dir]) {
		return p
	}
	var b strings.Builder
	b.Grow(len(p))
	for rest, first := p[:dir], true; ; first = false {
		d, after, more := strings.Cut(rest, "/")
		if !first {
			b.WriteByte('/')
		}
		if t := strings.TrimRight(d, "0123456789"); t != "" && heuristics.IsASCIILetter(t[len(t)-1]) {
			d = t
		}
		b.WriteString(d)
		if !more {
			break
		}
		rest = after
	}
	b.WriteString(p[dir:])
	return b.String()
}

// versionedDir reports whether a folder of dir ends in a digit after a
// letter.
func versionedDir(dir string) bool {
	for i := 1; i < len(dir); i++ {
		if heuristics.IsASCIIDigit(dir[i]) && heuristics.IsASCIILetter(dir[i-1]) &&
			(i+1 == len(dir) || dir[i+1] == '/' || heuristics.IsASCIIDigit(dir[i+1])) {
			return true
		}
	}
	return false
}

// better orders candidates by fused score, then place as the index
// breaks ties (symbolindex.PlaceOrder: path, then position), then name, so
// that results are deterministic. Candidates of several folders' indexes
// meet here, so it compares their own fields, not slots.
func better(a, b *cand) bool {
	if a.fused != b.fused {
		return a.fused > b.fused
	}
	if c := symbolindex.PlaceOrder(a.path, a.sym.StartByte, a.sym.EndByte, b.path, b.sym.StartByte, b.sym.EndByte); c != 0 {
		return c < 0
	}
	return a.sym.Name < b.sym.Name
}

// releaseLine is the line of a request that names the release it asks
// for, if any: its first (namesRelease). The versions it names are the
// ones a release replaces (versionDecls); the body's are details.
func releaseLine(text string) string {
	line, _, _ := strings.Cut(strings.TrimLeft(text, " \t\r\n"), "\n")
	return line
}

// scriptsAreTooling reports whether the folder holds code of a language
// other than shell: beside it, shell scripts build, lint and release it
// (scripts/lint, gradlew) and take the configuration prior (a Config
// file's); where none is (nvm's nvm.sh, bats), the scripts are the
// product and take none. The walk stops at the first such file, most
// often one of the first.
func (s *scope) scriptsAreTooling() bool {
	found := false
	s.idx.EachPath(func(_ string, fs uint32) bool {
		found = s.idx.FileCategory(fs) == 0 && s.idx.FileLanguage(fs) != ""
		return !found
	})
	return found
}
