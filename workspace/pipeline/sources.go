package pipeline

import (
	"bytes"
	"cmp"
	"math"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/ctxls/ctxls/heuristics"
	"github.com/ctxls/ctxls/heuristics/spelling"
	"github.com/ctxls/ctxls/symbolindex"
	"github.com/ctxls/ctxls/symbolindex/parse"
	"github.com/ctxls/ctxls/workspace/history"
	"github.com/ctxls/ctxls/workspace/snapshot"
)

// The sources of a selection: each is one function from a folder's scope
// to its ranked list, best first. Their weights and every ranking constant
// are in heuristics/ranking.go; scope.collect (fuse.go) fuses them.
// Adding a source is adding its function to this table, and its name and
// weight to heuristics.
var sources = []struct {
	src heuristics.Source
	run func(*scope) ranked
}{
	{heuristics.SrcLexical, lexicalSource},
	{heuristics.SrcFile, filesSource},
	{heuristics.SrcSemantic, semanticSource},
	{heuristics.SrcMention, mentionSource},
	{heuristics.SrcActive, cursorSource},
	{heuristics.SrcEdit, editSource},
	{heuristics.SrcGraph, graphSource},
	{heuristics.SrcSentence, sentenceSource},
	{heuristics.SrcCoChange, coChangeSource},
	{heuristics.SrcHistory, historySource},
	{heuristics.SrcPastSymbol, pastSymbolSource},         // historyload.go
	{heuristics.SrcCoChangeSymbol, coChangeSymbolSource}, // historyload.go
	{heuristics.SrcCoHistory, coHistorySource},
	{heuristics.SrcNeighbour, neighboursSource}, // graph.go
	{heuristics.SrcSibling, siblingSource},      // graph.go
	{heuristics.SrcLiteral, literalSource},      // after the sources whose files it scans
	{heuristics.SrcGone, goneSource},
	{heuristics.SrcSpelling, spellingSource}, // after the sources whose files it reads first
}

// ranked is one source's list: symbols it ranks itself and files it ranks
// (which lend their rank to their symbols), each best first.
type ranked struct {
	syms  []symRank
	files []scoredFile // one entry per file
}

// symRank is a symbol's rank (1-based; equal scores share one) and score
// in one source.
type symRank struct {
	slot  uint32
	rank  int32
	score float32
	// tie is where a search's tie over many files stands, its members
	// sharing its credit (heuristics.SharedRanks): rank is tie.Rank(),
	// which no list position has; zero otherwise.
	tie heuristics.Tie
}

// scope is what the sources of one folder read: the folder's index as the
// snapshot has it, the validated request and the analysed query.
type scope struct {
	snap      *snap
	fv        *snapshot.Folder
	idx       *symbolindex.Index
	p         *plan
	q         *query
	activeRel string // the active file relative to this folder, "" if elsewhere
	// Filters only when the request has some: the searches call them for
	// every document they score.
	symFilter, fileFilter func(uint32) bool
	buf                   *symbolindex.SearchBuffer // from searchBufs until release
	conf                  heuristics.ConfidenceInput
	mentioned             []weightedSlot // files the query names; see mentionedFiles
	mentionedDone         bool
	// lists are the sources' file lists so far (collect): the mention
	// source reads the files the request's words found (speltFiles).
	lists     *[heuristics.NumSources][]scoredFile
	spelt     []uint32 // see speltFiles
	speltDone bool
	cursor    struct { // see cursorSlot
		slot     uint32
		ok, done bool
	}
	// ruleFiles are the folder's rule files: they come as rules, not as
	// text sections among the code.
	ruleFiles map[string]bool
	// sites are where deixis found each caller's or callee's use
	// (deixis.go); coWhy and pastWhy the history's words for the files
	// it ranks: the evidence the items' reasons name (why.go).
	sites          map[uint32]*callSite
	cands          []cand              // the slab cand takes candidates from
	pathFiles      map[string][]uint32 // the files each path mention names (filesByPath)
	coWhy, pastWhy map[uint32]string
	litWhy         map[uint32]string // the removed literal each file of the literal source holds
	goneWhy        map[uint32]string // where the gone source's name was removed from each file, in words
	litSym         map[uint32]string // the removed literal each symbol of the literal source holds
	namesakeWhy    map[uint32]string // what each namesake file of the sibling source defines (namesakes)
	spellWhy       map[uint32]string // the first misspelled word each file of the spelling source holds, said
	spellSym       map[uint32]string // the first misspelled word each symbol of the spelling source holds, said
	spellIn        []uint32          // the files of the mention source's symbols and files, for the spelling source
	pointed        []uint32          // the files of the mention, active and edit sources' symbols and files, in their order (notePointed)
}

// searchBufs are the buffers of every lexical search of a request (the
// sources', withinFile's and ownBestMatch's), kept from one request to the
// next: their per-document arrays (6 bytes a document: 6 MB at 1M symbols)
// were most of what a request allocated at that size, and so what set the
// pace of the collector.
var searchBufs = sync.Pool{New: func() any { return new(symbolindex.SearchBuffer) }}

func newScope(snap *snap, fv *snapshot.Folder, p *plan, q *query) *scope {
	s := &scope{snap: snap, fv: fv, idx: fv.Index, p: p, q: q, buf: searchBufs.Get().(*symbolindex.SearchBuffer)}
	if p.activeAbs != "" && (p.activeAbs == fv.Root || strings.HasPrefix(p.activeAbs, fv.Root+string(os.PathSeparator))) {
		s.activeRel = snapshot.RelPath(fv.Root, p.activeAbs)
	}
	if p.kinds != nil || p.paths != nil || p.excludes != nil {
		s.symFilter = s.accepts
	}
	if p.paths != nil || p.excludes != nil {
		s.fileFilter = func(fs uint32) bool { return p.acceptsPath(s.idx.FilePath(fs)) }
	}
	return s
}

// release returns the scope's search buffer; the scope runs no search
// after it (the hits of the searches alias the buffer).
func (s *scope) release() {
	searchBufs.Put(s.buf)
	s.buf = nil
}

// accepts reports whether a symbol passes the request's filters.
func (s *scope) accepts(slot uint32) bool {
	ref, ok := s.idx.Symbol(slot)
	return ok && s.p.accepts(ref.Path, ref.Kind)
}

// ranksOf gives the hits of a search their ranks, a tie over many files
// sharing its credit among them (heuristics.SharedRanks).
func ranksOf[T any](idx *symbolindex.Index, hits []T, slot func(T) uint32, score func(T) float32) []symRank {
	out := make([]symRank, len(hits))
	file := func(h T) uint32 {
		f, _ := idx.SymbolFile(slot(h))
		return f
	}
	for i, t := range heuristics.SharedRanks(hits, score, file) {
		out[i] = symRank{slot: slot(hits[i]), rank: int32(t.Rank()), score: score(hits[i])}
		if t.Files > 0 {
			out[i].tie = t
		}
	}
	return out
}

func hitSlot(h symbolindex.Hit) uint32   { return h.Doc }
func hitScore(h symbolindex.Hit) float32 { return h.Score }

// filesOf is the best entry per file of a symbol list.
func (s *scope) filesOf(syms []symRank) []scoredFile {
	var files []scoredFile
	for _, h := range syms {
		if f, ok := s.idx.SymbolFile(h.slot); ok {
			files = append(files, scoredFile{f, float64(h.score)})
		}
	}
	return bestPerFile(files)
}

// lexicalSource is BM25F over symbols, for the query's terms and the
// history's.
func lexicalSource(s *scope) ranked {
	lex := s.idx.SearchSymbols(s.q.terms, heuristics.LexicalK, s.symFilter, s.buf)
	if len(lex) > 0 && len(s.q.own) > 0 {
		s.conf.BestLexicalCoverage = ownCoverage(lex, s.q)
	}
	syms := ranksOf(s.idx, lex, hitSlot, hitScore)
	return ranked{syms: syms, files: s.filesOf(syms)}
}

// filesSource is BM25 over whole files.
func filesSource(s *scope) ranked {
	var out ranked
	for _, h := range s.idx.SearchFiles(s.q.terms, heuristics.FileK, s.fileFilter, s.buf) {
		out.files = append(out.files, scoredFile{h.Doc, float64(h.Score)})
	}
	return out
}

// sentenceSource ranks symbols for each sentence of a long query on its
// own, and a symbol keeps its best rank over the sentences (max pooling),
// so that every sentence's best matches stay in play however strongly
// another sentence matches.
func sentenceSource(s *scope) ranked {
	var out ranked
	if len(s.q.sentences) < 2 {
		return out
	}
	at := map[uint32]int{}
	var pooled []scoredFile
	for _, st := range s.q.sentences {
		hits := s.idx.SearchSymbols(st, heuristics.SentenceK, s.symFilter, s.buf)
		for _, h := range ranksOf(s.idx, hits, hitSlot, hitScore) {
			ref, ok := s.idx.Symbol(h.slot)
			if !ok || !s.p.accepts(ref.Path, ref.Kind) {
				continue
			}
			if i, seen := at[h.slot]; !seen {
				at[h.slot] = len(out.syms)
				out.syms = append(out.syms, h)
			} else if h.rank < out.syms[i].rank {
				out.syms[i] = h
			}
			pooled = append(pooled, scoredFile{ref.File, -float64(h.rank)})
		}
	}
	out.files = bestPerFile(pooled)
	return out
}

// semanticSource is cosine similarity of the query's vector to the
// symbols'; only positive similarities count.
func semanticSource(s *scope) ranked {
	if s.q.vec == nil {
		return ranked{}
	}
	sem := s.idx.SearchVectors(s.q.vec, heuristics.SemanticK, s.symFilter, nil)
	n := 0
	for n < len(sem) && sem[n].Score > 0 {
		n++
	}
	sem = sem[:n]
	if n > 0 {
		s.conf.BestSemantic = float64(sem[0].Score)
	}
	syms := ranksOf(s.idx, sem, func(h symbolindex.ScoredSlot) uint32 { return h.Slot }, func(h symbolindex.ScoredSlot) float32 { return h.Score })
	return ranked{syms: syms, files: s.filesOf(syms)}
}

// mentionSource ranks the symbols and files whose names or paths the query
// or the history spells out, by the weight of the mention.
func mentionSource(s *scope) ranked {
	var named []weightedSlot
	for _, m := range s.q.idents {
		slots := s.idx.Named(m.name)
		for _, slot := range slots {
			named = append(named, weightedSlot{slot, m.w})
			// A type named in the query ("BufferedWriteSyncer: flush on
			// Stop") scopes the change: its members count too, a little
			// less than the type itself.
			named = appendMembers(s.idx, named, slot, m.w*heuristics.MemberWeight)
		}
		// "reply.redirect()" names a method whose receiver is spelled
		// differently in the code: fall back to the last part, but only
		// when the whole name matched nothing.
		if i := strings.LastIndexByte(m.name, '.'); i > 0 && len(slots) == 0 {
			for _, slot := range s.qualifiedBy(s.idx.Named(m.name[i+1:]), m.name[:i]) {
				named = append(named, weightedSlot{slot, m.w * heuristics.MemberWeight})
			}
		}
	}
	sort.SliceStable(named, func(i, j int) bool { return named[i].w > named[j].w })
	var once []weightedSlot // each accepted symbol once, at its heaviest
	seen := map[uint32]bool{}
	for _, m := range named {
		if !seen[m.slot] && s.accepts(m.slot) {
			seen[m.slot] = true
			once = append(once, m)
		}
	}
	var out ranked
	for i, r := range heuristics.CompetitionRanks(once, weightOf) {
		out.syms = append(out.syms, symRank{slot: once[i].slot, rank: int32(r), score: float32(once[i].w)})
	}
	files := s.mentionedFiles()
	for _, m := range files {
		out.files = append(out.files, scoredFile{m.slot, m.w})
	}
	out.files = bestPerFile(out.files)
	s.conf.Mentions += len(out.syms) + len(files)
	return out
}

// qualifiedBy keeps, of the symbols a dotted name's last part names, those
// whose folder or file its qualifier names ("middleware.Logger": the
// Logger of middleware/, a Go package's; "utils.merge": utils.js's), when
// some are; else all of them, the qualifier being a receiver or a type
// spelled otherwise in the code ("reply.redirect()").
func (s *scope) qualifiedBy(slots []uint32, qualifier string) []uint32 {
	if i := strings.LastIndexByte(qualifier, '.'); i >= 0 {
		qualifier = qualifier[i+1:]
	}
	var out []uint32
	for _, slot := range slots {
		if f, ok := s.idx.SymbolFile(slot); ok {
			p := s.idx.FilePath(f)
			if strings.EqualFold(fileStem(p), qualifier) || strings.EqualFold(path.Base(path.Dir(p)), qualifier) {
				out = append(out, slot)
			}
		}
	}
	if len(out) == 0 {
		return slots
	}
	return out
}

// mentionedFiles are the files the paths in the query or the history name,
// heaviest mention first.
func (s *scope) mentionedFiles() []weightedSlot {
	if !s.mentionedDone {
		s.mentionedDone = true
		for _, m := range s.q.paths {
			for _, fs := range s.filesByPath(m.name) {
				s.mentioned = append(s.mentioned, weightedSlot{fs, m.w})
			}
		}
		for _, fs := range s.speltFiles() {
			// Once, though a path may name it too: the confidence
			// counts mentions.
			if !slices.ContainsFunc(s.mentioned, func(m weightedSlot) bool { return m.slot == fs }) {
				s.mentioned = append(s.mentioned, weightedSlot{fs, 1})
			}
		}
		sort.SliceStable(s.mentioned, func(i, j int) bool { return s.mentioned[i].w > s.mentioned[j].w })
	}
	return s.mentioned
}

// speltFiles are the files, among those the request's words found (the
// lexical and whole-file sources, which run before the mention source),
// whose dotted name it spells out as words in a row ("adjust rollup
// config": rollup.config.js; query.spells), by slot, found once per folder
// scope, and, with no file open, the code files built for a platform the
// request names ("fix failing tests under Windows": static_windows.go;
// namesPlatform: with a file open it outvoted the open file's partners);
// none when they are more than heuristics.MaxPathMention. It relies
// on the sources table's order (TestSelectDottedNameIsMentioned fails if
// the mention source runs before the two word sources).
func (s *scope) speltFiles() []uint32 {
	if s.speltDone || s.lists == nil {
		return s.spelt
	}
	s.speltDone = true
	if s.q.words == "" {
		return nil
	}
	for _, src := range []heuristics.Source{heuristics.SrcLexical, heuristics.SrcFile} {
		for _, f := range s.lists[src] {
			stem := fileStem(s.idx.FilePath(f.slot))
			named := s.q.spells(stem) || s.p.activeAbs == "" && s.idx.FileCategory(f.slot) == 0 && s.q.namesPlatform(stem)
			if named && !slices.Contains(s.spelt, f.slot) {
				s.spelt = append(s.spelt, f.slot)
			}
		}
	}
	if len(s.spelt) > heuristics.MaxPathMention {
		s.spelt = nil
	}
	slices.Sort(s.spelt)
	return s.spelt
}

// cursorSource is the innermost symbol under the cursor in the active file.
func cursorSource(s *scope) ranked {
	slot, ok := s.cursorSlot()
	if !ok {
		return ranked{}
	}
	return ranked{syms: []symRank{{slot: slot, rank: 1, score: 1}}}
}

// editSource ranks the symbols the user edited recently, newest first,
// their weight halving every RecentEditHalfLife.
func editSource(s *scope) ranked {
	var eds []weightedSlot
	halfLife := time.Duration(s.snap.Config.RecentEditHalfLife)
	for k, t := range s.snap.Edits {
		if !strings.HasPrefix(k.Abs, s.fv.Root+string(os.PathSeparator)) {
			continue
		}
		fs, ok := s.idx.FileSlot(snapshot.RelPath(s.fv.Root, k.Abs))
		if !ok {
			continue
		}
		for _, slot := range s.idx.FileSymbols(fs) {
			if s.idx.LeafKey(slot) == k.Key {
				if wt := heuristics.Decay(s.snap.Now.Sub(t), halfLife); wt > heuristics.MinEditWeight {
					eds = append(eds, weightedSlot{slot, wt})
				}
				break
			}
		}
	}
	sort.Slice(eds, func(i, j int) bool {
		return eds[i].w > eds[j].w || eds[i].w == eds[j].w && symbolBefore(s.idx, eds[i].slot, eds[j].slot)
	})
	var out ranked
	for i, e := range eds {
		out.syms = append(out.syms, symRank{slot: e.slot, rank: int32(i + 1), score: float32(e.w)})
	}
	return out
}

// graphSource ranks the files linked by references to the active file and
// the files the query names. (Seeding it with the best files so far as
// well made both eval sets worse: see EVAL.md.) A query pointing at the
// symbol under the cursor ("who calls this", "what does this do") also
// ranks its callers or callees themselves (deixis.go).
func graphSource(s *scope) ranked {
	syms := s.deicticSymbols()
	var seeds []weightedSlot
	if s.activeRel != "" {
		if fs, ok := s.idx.FileSlot(s.activeRel); ok {
			seeds = append(seeds, weightedSlot{fs, 1})
		}
	}
	seeds = append(seeds, s.mentionedFiles()...)
	if len(seeds) == 0 {
		return ranked{syms: syms}
	}
	return ranked{syms: syms, files: graphFiles(s.idx, seeds)}
}

// locality is the nearness of a candidate to the active file, in [0,1]:
// heuristics.Locality, with the active file itself counting as
// heuristics.ActiveFileLocality.
func locality(active, candidate string) float64 {
	if active == candidate {
		return heuristics.ActiveFileLocality
	}
	return heuristics.Locality(active, candidate)
}

// appendMembers appends, with weight w, the symbols of the same file that
// are members of the container symbol s (qualified "S.member").
func appendMembers(idx *symbolindex.Index, out []weightedSlot, s uint32, w float64) []weightedSlot {
	ref, ok := idx.Symbol(s)
	if !ok {
		return out
	}
	switch ref.Kind {
	case parse.KindClass, parse.KindStruct, parse.KindInterface, parse.KindType, parse.KindEnum, parse.KindModule:
	default:
		return out
	}
	prefix := ref.Qualified + "."
	for _, m := range idx.FileSymbols(ref.File) {
		if mr, ok := idx.Symbol(m); ok && strings.HasPrefix(mr.Qualified, prefix) {
			out = append(out, weightedSlot{m, w})
		}
	}
	return out
}

// weightedSlot is a slot (a symbol's or a file's) with a weight.
type weightedSlot struct {
	slot uint32
	w    float64
}

func weightOf(w weightedSlot) float64 { return w.w }

// namesStem reports whether the path without its extension is stem or ends
// in "/"+stem, ignoring case. It runs for every indexed path of a mention,
// so it allocates nothing.
func namesStem(p, stem string) bool {
	noExt := strings.TrimSuffix(p, path.Ext(p))
	i := len(noExt) - len(stem)
	if i < 0 || !strings.EqualFold(noExt[i:], stem) {
		return false
	}
	return i == 0 || noExt[i-1] == '/'
}

// fileStem is a path's file name without its extension.
func fileStem(p string) string {
	base := path.Base(p)
	return base[:len(base)-len(path.Ext(base))]
}

// filesByPath finds the files a mentioned path names: an exact relative
// path, a path suffix ("server.go", "lsp/server.go"), a directory ("lsp",
// "net/http") whose files all count, unless there are more than
// heuristics.MaxPathMention of them, or, for a mention without an
// extension, a file of that name ("fetch" in "fix(fetch): …" names
// lib/adapters/fetch.js; "middleware/proxy" names middleware/proxy.go),
// in any case.
func filesByPath(idx *symbolindex.Index, mention string) []uint32 {
	m := strings.Trim(strings.TrimPrefix(mention, "./"), "/")
	if m == "" {
		return nil
	}
	stem := ""
	if path.Ext(m) == "" {
		stem = m
	}
	var out []uint32
	idx.EachPath(func(p string, fs uint32) bool {
		if p == m || strings.HasSuffix(p, "/"+m) || strings.HasPrefix(p, m+"/") || strings.Contains(p, "/"+m+"/") ||
			stem != "" && namesStem(p, stem) {
			out = append(out, fs)
		}
		return len(out) <= heuristics.MaxPathMention
	})
	slices.Sort(out)
	if len(out) > heuristics.MaxPathMention {
		out = out[:0]
	}
	return out
}

// filesByPath is filesByPath over the scope's index, each mention's
// files found once a select (the mentions and the strong match's scopes
// ask for the same ones, each a walk over every path).
func (s *scope) filesByPath(mention string) []uint32 {
	if fs, ok := s.pathFiles[mention]; ok {
		return fs
	}
	if s.pathFiles == nil {
		s.pathFiles = map[string][]uint32{}
	}
	fs := filesByPath(s.idx, mention)
	s.pathFiles[mention] = fs
	return fs
}

// literalSource ranks the symbols, and their files, that hold a literal of
// code the request removes or replaces ("Replace interface{} with any":
// the functions and files where `interface{}` is written; q.removed),
// which no index holds (the tokenizer drops punctuation). It scans the
// texts of the files the sources before it found (those of the mention,
// active and edit sources first, then the others' by rank), at most
// heuristics.LiteralScanFiles code files, through the gate (fileText, which the read stage reuses). A literal more than
// heuristics.MaxLiteralFiles code files hold is too common to count (its
// search stops there); of the others, a symbol is the innermost around a
// place one is written, ranked by how many places, and a file by how many
// of them it holds.
func literalSource(s *scope) ranked {
	all := s.q.literals()
	if len(all) == 0 || s.lists == nil || s.fv.Weights.Source[heuristics.SrcLiteral] == 0 {
		return ranked{}
	}
	lits := make([][]byte, len(all))
	field := make([]bool, len(all))
	for i, lit := range all {
		lits[i] = []byte(lit)
		field[i] = s.q.flagField(lit)
	}
	holds, files := s.literalFiles(lits, field)
	// Second pass, over the files that hold a kept literal: the symbols
	// around each place one is written.
	var out ranked
	var holders []weightedSlot
	for _, f := range files {
		n := 0
		for _, i := range f.lits {
			if holds[i] > heuristics.MaxLiteralFiles {
				continue
			}
			if n++; n == 1 {
				if s.litWhy == nil {
					s.litWhy = map[uint32]string{}
				}
				s.litWhy[f.slot] = all[i]
			}
			holders = s.literalHolders(holders, f.slot, f.text, lits[i], field[i], all[i])
		}
		if n > 0 {
			out.files = append(out.files, scoredFile{f.slot, float64(n)})
		}
	}
	sort.SliceStable(out.files, func(i, j int) bool { return out.files[i].score > out.files[j].score })
	if len(holders) > 0 {
		sort.SliceStable(holders, func(i, j int) bool { return holders[i].w > holders[j].w })
		for i, r := range heuristics.CompetitionRanks(holders, weightOf) {
			out.syms = append(out.syms, symRank{slot: holders[i].slot, rank: int32(r), score: float32(holders[i].w)})
		}
	}
	return out
}

// litFile is a file that holds some of a request's removed literals (by
// their index), with its text.
type litFile struct {
	slot uint32
	text []byte
	lits []int
}

// literalFiles is literalSource's first pass: the code files, of those it
// scans, that hold each literal (lits; a flag's field form, field, only
// where it declares one: heuristics.IndexLiteral), a literal's search
// stopped once more than heuristics.MaxLiteralFiles do; holds counts them.
func (s *scope) literalFiles(lits [][]byte, field []bool) (holds []int, files []litFile) {
	holds = make([]int, len(lits))
	seen := map[uint32]bool{}
	scanned, open := 0, len(lits)
	scan := func(fs uint32) bool {
		if open == 0 || scanned == heuristics.LiteralScanFiles {
			return false
		}
		if seen[fs] {
			return true
		}
		seen[fs] = true
		// A shell script is configuration to the priors but code here:
		// a literal a request removes from it (`set -e`) is its code's.
		if cat := s.idx.FileCategory(fs); cat != 0 && (cat != heuristics.Config || s.idx.FileLanguage(fs) != parse.LangShell) {
			return true
		}
		scanned++
		text := s.snap.fileText(s.idx, s.fv.Root, s.idx.FilePath(fs))
		var held []int
		for i, lit := range lits {
			if holds[i] <= heuristics.MaxLiteralFiles && heuristics.IndexLiteral(text, 0, lit, field[i]) >= 0 {
				held = append(held, i)
				if holds[i]++; holds[i] > heuristics.MaxLiteralFiles {
					open--
				}
			}
		}
		if held != nil {
			files = append(files, litFile{fs, text, held})
		}
		return true
	}
	// The files the user points at (mentions, the cursor, edits) first,
	// then the other sources' by rank: each one's first, then each one's
	// second, and so on.
	more := true
	for _, fs := range s.pointed {
		if more = scan(fs); !more {
			break
		}
	}
	for at := 0; more; at++ {
		left := false
		for src := range heuristics.SrcLiteral {
			if at < len(s.lists[src]) {
				left = true
				if more = scan(s.lists[src][at].slot); !more {
					break
				}
			}
		}
		more = more && left
	}
	return holds, files
}

// literalHolders adds to out, once each, the innermost symbols of the file
// fs (whose text is text) around each place lit is written, by the times
// it is written in them (a flag's field form, field, only where it
// declares one); each symbol's first literal is its why (litSym).
func (s *scope) literalHolders(out []weightedSlot, fs uint32, text, lit []byte, field bool, why string) []weightedSlot {
	spans := s.spansOf(fs)
	for at := 0; ; {
		at = heuristics.IndexLiteral(text, at, lit, field)
		if at < 0 {
			return out
		}
		if best, ok := spans.innermost(uint32(at), uint32(at+len(lit))); ok && s.accepts(best) {
			if j := slices.IndexFunc(out, func(w weightedSlot) bool { return w.slot == best }); j >= 0 {
				out[j].w++
			} else {
				out = append(out, weightedSlot{best, 1})
			}
			if s.litSym == nil {
				s.litSym = map[uint32]string{}
			}
			if _, ok := s.litSym[best]; !ok {
				s.litSym[best] = why
			}
		}
		at += len(lit)
	}
}

// symbolSpans are a file's symbols' spans, by start, the outer of two
// that start together first (spansOf).
type symbolSpans []symbolSpan

type symbolSpan struct {
	start, end uint32
	slot       uint32
}

// spansOf are the spans of the file fs's symbols.
func (s *scope) spansOf(fs uint32) symbolSpans {
	var spans symbolSpans
	for _, slot := range s.idx.FileSymbols(fs) {
		if ref, ok := s.idx.Symbol(slot); ok {
			spans = append(spans, symbolSpan{ref.Symbol.StartByte, ref.Symbol.EndByte, slot})
		}
	}
	slices.SortStableFunc(spans, func(a, b symbolSpan) int {
		if a.start != b.start {
			return cmp.Compare(a.start, b.start)
		}
		return cmp.Compare(b.end, a.end)
	})
	return spans
}

// innermost is the innermost symbol around the bytes [at, end): walking
// back from the last that starts at or before at, the first that ends at
// or after end.
func (spans symbolSpans) innermost(at, end uint32) (uint32, bool) {
	k := sort.Search(len(spans), func(k int) bool { return spans[k].start > at }) - 1
	for ; k >= 0 && spans[k].end < end; k-- {
	}
	if k < 0 {
		return 0, false
	}
	return spans[k].slot, true
}

// documented is the symbol whose doc comment holds text[at:end]: the
// first symbol that starts after it with no blank line between, unless a
// symbol holds it.
func (spans symbolSpans) documented(text []byte, at, end uint32) (uint32, bool) {
	k := sort.Search(len(spans), func(k int) bool { return spans[k].start >= end })
	inner, ok := spans.innermost(at, end)
	if k == len(spans) || spans[k].start > uint32(len(text)) || hasBlankLine(text[end:spans[k].start]) ||
		ok && spans[k].start > spans.endOf(inner) {
		return inner, ok
	}
	return spans[k].slot, true
}

// hasBlankLine reports whether b holds a blank line: two line ends with
// only spaces between (a CRLF file's "\r\n\r\n" too).
func hasBlankLine(b []byte) bool {
	for i := bytes.IndexByte(b, '\n'); i >= 0; {
		j := bytes.IndexByte(b[i+1:], '\n')
		if j < 0 {
			return false
		}
		if len(bytes.TrimSpace(b[i+1:i+1+j])) == 0 {
			return true
		}
		i += 1 + j
	}
	return false
}

// endOf is where the span of slot ends.
func (spans symbolSpans) endOf(slot uint32) uint32 {
	for _, sp := range spans {
		if sp.slot == slot {
			return sp.end
		}
	}
	return 0
}

// filesOf are the files of r's symbols and files.
func filesOf(s *scope, r ranked) []uint32 {
	var out []uint32
	for _, h := range r.syms {
		if fs, ok := s.idx.SymbolFile(h.slot); ok && !slices.Contains(out, fs) {
			out = append(out, fs)
		}
	}
	for _, f := range r.files {
		if !slices.Contains(out, f.slot) {
			out = append(out, f.slot)
		}
	}
	return out
}

// notePointed adds to s.pointed the files of a mention, active or edit
// source's symbols and files, for the literal and spelling sources (whose
// scans read them first), and keeps the mention source's as the files
// the spelling source keeps to (spellIn).
func (s *scope) notePointed(src heuristics.Source, r ranked) {
	spell := s.q.spell.Spelling || s.q.spell.NonASCII
	if spell && src == heuristics.SrcMention {
		s.spellIn = filesOf(s, r)
	}
	if len(s.q.literals()) == 0 && !spell || src != heuristics.SrcMention && src != heuristics.SrcActive && src != heuristics.SrcEdit {
		return
	}
	s.pointed = append(s.pointed, filesOf(s, r)...) // each scan skips a file it has seen
}

// coChangeSource ranks the files that changed in the same commits as the
// files the user is working with: the active file, the open and recently
// edited ones and the pinned ones.
func coChangeSource(s *scope) ranked {
	if s.fv.History == nil {
		return ranked{}
	}
	s.coWhy = map[uint32]string{}
	return ranked{files: s.historyFiles(s.fv.History.CoChanged(s.seedFiles(), heuristics.HistoryK), s.coWhy)}
}

// historySource ranks the files that past commits described in words like
// the query's (and the conversation's) touched.
func historySource(s *scope) ranked {
	if s.fv.History == nil {
		return ranked{}
	}
	s.pastWhy = map[uint32]string{}
	return ranked{files: s.historyFiles(s.fv.History.PastChanges(s.q.terms, s.q.release, heuristics.HistoryK), s.pastWhy)}
}

// coHistorySource ranks the files that changed with the active file in
// past commits described in words like the query's: of the files the
// active one changes with, those of changes like this one.
func coHistorySource(s *scope) ranked {
	if s.fv.History == nil || s.activeRel == "" || s.fv.Weights.Source[heuristics.SrcCoHistory] == 0 {
		return ranked{}
	}
	why := map[uint32]string{}
	files := s.historyFiles(s.fv.History.CoChangedLike(s.activeRel, s.q.terms, s.q.release, heuristics.HistoryK), why)
	if s.coWhy == nil {
		s.coWhy = why
	} else {
		for fs, w := range why {
			if _, ok := s.coWhy[fs]; !ok {
				s.coWhy[fs] = w
			}
		}
	}
	return ranked{files: files}
}

// historyFiles turns the history's ranked paths into the folder's file
// slots, leaving out files no longer indexed or filtered out; why keeps
// the history's words for each.
func (s *scope) historyFiles(files []history.File, why map[uint32]string) []scoredFile {
	out := make([]scoredFile, 0, len(files))
	for _, f := range files {
		fs, ok := s.idx.FileSlot(f.Path)
		if ok && (s.fileFilter == nil || s.fileFilter(fs)) {
			out = append(out, scoredFile{fs, f.Score})
			why[fs] = f.Why
		}
	}
	return out
}

// seedFiles are the files of this folder the user is working with.
func (s *scope) seedFiles() []string {
	var seeds []string
	add := func(abs string) {
		if snapshot.Within(s.fv.Root, abs) && abs != s.fv.Root {
			if rel := snapshot.RelPath(s.fv.Root, abs); !slices.Contains(seeds, rel) {
				seeds = append(seeds, rel)
			}
		}
	}
	if s.activeRel != "" {
		seeds = append(seeds, s.activeRel)
	}
	// Sorted, so that the same state always gives the same answer.
	var open []string
	for abs := range s.snap.Docs {
		open = append(open, abs)
	}
	for k := range s.snap.Edits {
		open = append(open, k.Abs)
	}
	slices.Sort(open)
	for _, abs := range open {
		add(abs)
	}
	for _, p := range s.p.pinned {
		if p.root == s.fv.Root {
			seeds = append(seeds, p.rel)
		}
	}
	return seeds
}

// ownCoverage is the share of the query's own terms that the best lexical
// hit matched.
func ownCoverage(lex []symbolindex.Hit, q *query) float64 {
	best := 0
	for _, h := range lex[:min(len(lex), heuristics.BestMatchK)] {
		best = max(best, int(h.Matched))
	}
	return math.Min(1, float64(best)/float64(len(q.own)))
}

// bestPerFile sorts a file list by score, best first, keeping each file's
// best entry. Ties keep their input order.
func bestPerFile(list []scoredFile) []scoredFile {
	sort.SliceStable(list, func(i, j int) bool { return list[i].score > list[j].score })
	seen := map[uint32]bool{}
	out := list[:0]
	for _, sf := range list {
		if !seen[sf.slot] {
			seen[sf.slot] = true
			out = append(out, sf)
		}
	}
	return out
}

// goneSource ranks the files the names the request writes that no symbol
// of the workspace has, and no file it ranks first writes, were taken out
// of (history.Gone): "Reintroduce `URLTypes`" points at the file that
// defined it. A past commit the request names by its hash ("This reverts
// commit 2f64f68c…") points at the files it changed (history.NamedCommit).
// A dotted name is looked for by its last part (http.Hijacker: Hijacker),
// as past lines wrote it.
func goneSource(s *scope) ranked {
	h := s.fv.History
	if h == nil || s.fv.Weights.Source[heuristics.SrcGone] == 0 {
		return ranked{}
	}
	score := map[uint32]float64{}
	// add scores the file fs by w, its why (said once) the first place's.
	add := func(fs uint32, w float64, why func() string) {
		if _, ok := score[fs]; !ok {
			if s.goneWhy == nil {
				s.goneWhy = map[uint32]string{}
			}
			s.goneWhy[fs] = why()
		}
		score[fs] += w
	}
	var scan []uint32
	for _, m := range s.q.idents {
		name := m.name
		if i := strings.LastIndexByte(name, '.'); i >= 0 {
			name = name[i+1:]
		}
		if name == "" || len(s.idx.Named(m.name)) > 0 || len(s.idx.Named(name)) > 0 {
			continue
		}
		// The history first: most names were never removed, and reading
		// the files costs more than asking it.
		places := h.Gone(name)
		if len(places) == 0 {
			continue
		}
		if scan == nil {
			scan = s.goneScan() // once a request, for its first name with places
		}
		if s.written(name, scan) {
			continue
		}
		for _, t := range places {
			fs, ok := s.goneFile(t.Path)
			if !ok || s.written(name, []uint32{fs}) {
				continue
			}
			add(fs, t.Weight*m.w, func() string { return h.GoneWhy(name, t) })
		}
	}
	for _, hash := range commitHashes(s.p.query.Text) {
		for _, t := range h.NamedCommit(hash) {
			if fs, ok := s.goneFile(t.Path); ok {
				add(fs, t.Weight, func() string { return h.NamedWhy(t) })
			}
		}
	}
	var out ranked
	for fs, sc := range score {
		out.files = append(out.files, scoredFile{fs, sc})
	}
	slices.SortFunc(out.files, func(a, b scoredFile) int {
		if c := cmp.Compare(b.score, a.score); c != 0 {
			return c
		}
		return cmp.Compare(a.slot, b.slot)
	})
	return out
}

// goneFile is the slot of the file p the gone source may rank: one the
// index holds and the request keeps to (fileFilter).
func (s *scope) goneFile(p string) (uint32, bool) {
	fs, ok := s.idx.FileSlot(p)
	return fs, ok && (s.fileFilter == nil || s.fileFilter(fs))
}

// commitHashes are the words of text (runs of ASCII letters and digits)
// that may be commit hashes (heuristics.IsCommitHash).
func commitHashes(text string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(text, func(r rune) bool {
		return !('0' <= r && r <= '9' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z')
	}) {
		if heuristics.IsCommitHash(w) {
			out = append(out, w)
		}
	}
	return out
}

// written reports whether name is written as a word in one of the files
// fs: a name still written in the file it was removed from, or in the
// files the other sources rank first (goneScan: None, ContentLength), is
// not gone, though no symbol of the workspace defines it.
func (s *scope) written(name string, fs []uint32) bool {
	for _, f := range fs {
		if holdsWord(s.snap.fileText(s.idx, s.fv.Root, s.idx.FilePath(f)), name) {
			return true
		}
	}
	return false
}

// goneScan are the files the other sources rank first
// (heuristics.GoneScanRanks of each), each once.
func (s *scope) goneScan() []uint32 {
	if s.lists == nil {
		return nil
	}
	var fs []uint32
	seen := map[uint32]bool{}
	for src := range heuristics.SrcGone {
		for _, f := range s.lists[src][:min(len(s.lists[src]), heuristics.GoneScanRanks)] {
			if !seen[f.slot] {
				seen[f.slot] = true
				fs = append(fs, f.slot)
			}
		}
	}
	return fs
}

// holdsWord reports whether text holds name not inside a longer name.
func holdsWord(text []byte, name string) bool {
	word := func(c byte) bool {
		return c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
	}
	for at := 0; ; {
		i := bytes.Index(text[at:], []byte(name))
		if i < 0 {
			return false
		}
		i += at
		j := i + len(name)
		if (i == 0 || !word(text[i-1])) && (j == len(text) || !word(text[j])) {
			return true
		}
		at = i + 1
	}
}

// pastSymbolSource ranks the symbols whose lines past commits described in
// words like the query's touched (history.PastTouches): the within-file
// ranking the file-level history lacks. Each commit's weight is spread
// over the symbols it touched.
func pastSymbolSource(s *scope) ranked {
	if s.fv.History == nil || s.fv.Weights.Source[heuristics.SrcPastSymbol] == 0 {
		return ranked{}
	}
	return s.touchedSymbols(s.fv.History.PastTouches(s.q.terms, s.q.release))
}

// coChangeSymbolSource ranks the symbols, in other files, whose lines
// changed in the same commits as the symbol under the cursor and the
// active file's recently edited symbols; with neither, as the active
// file's lines (history.CoTouches).
func coChangeSymbolSource(s *scope) ranked {
	h := s.fv.History
	if h == nil || s.activeRel == "" || s.fv.Weights.Source[heuristics.SrcCoChangeSymbol] == 0 {
		return ranked{}
	}
	fs, ok := s.idx.FileSlot(s.activeRel)
	if !ok {
		return ranked{}
	}
	seeds := map[uint32]float64{}
	if slot, ok := s.cursorSlot(); ok {
		seeds[slot] = 1
	}
	halfLife := time.Duration(s.snap.Config.RecentEditHalfLife)
	activeAbs := filepath.Join(s.fv.Root, filepath.FromSlash(s.activeRel))
	for k, t := range s.snap.Edits {
		if k.Abs != activeAbs {
			continue
		}
		for _, slot := range s.idx.FileSymbols(fs) {
			if s.idx.LeafKey(slot) == k.Key {
				if wt := heuristics.Decay(s.snap.Now.Sub(t), halfLife); wt > heuristics.MinEditWeight {
					seeds[slot] = max(seeds[slot], wt)
				}
				break
			}
		}
	}
	var touches []history.Touch
	if len(seeds) == 0 {
		touches = h.CoTouches(s.activeRel, 1, math.MaxInt32)
	}
	for slot, w := range seeds {
		ref, ok := s.idx.Symbol(slot)
		if !ok {
			continue
		}
		for _, t := range h.CoTouches(s.activeRel, int(ref.Range.StartLine)+1, int(ref.Range.EndLine)+1) {
			t.Weight *= w
			touches = append(touches, t)
		}
	}
	return s.touchedSymbols(touches)
}

// touchedSymbols maps the lines past commits touched to the symbols that
// hold them in the index: the innermost symbols overlapping each span. A
// commit's weight is spread over the symbols it touched (by the square
// root of their number, as the file tables spread it over files).
func (s *scope) touchedSymbols(touches []history.Touch) ranked {
	if len(touches) == 0 {
		return ranked{}
	}
	files := map[string]*fileSyms{}
	score := map[uint32]float64{}
	var commit []uint32 // the symbols of the commit being summed
	var hit []int       // scratch of innermost
	flush := func(w float64) {
		if len(commit) == 0 {
			return
		}
		slices.Sort(commit)
		commit = slices.Compact(commit)
		share := w / math.Sqrt(float64(len(commit)))
		for _, slot := range commit {
			score[slot] += share
		}
		commit = commit[:0]
	}
	for i, t := range touches {
		f, ok := files[t.Path]
		if !ok {
			f = s.fileSymbols(t.Path)
			files[t.Path] = f
		}
		hit, commit = f.innermost(t, hit[:0], commit)
		if i+1 == len(touches) || touches[i+1].Commit != t.Commit {
			flush(t.Weight)
		}
	}
	return rankScores(s.idx, score, s.symFilter)
}

// rankScores ranks the symbols of score by it, highest first (ties by
// path, position and qualified name: symbolBefore), keeping those keep accepts (all when
// nil), at most heuristics.HistorySymbolK of them, with competition ranks.
func rankScores(idx *symbolindex.Index, score map[uint32]float64, keep func(uint32) bool) ranked {
	list := make([]weightedSlot, 0, len(score))
	for slot, sc := range score {
		if keep == nil || keep(slot) {
			list = append(list, weightedSlot{slot, sc})
		}
	}
	sort.Slice(list, func(i, j int) bool {
		return list[i].w > list[j].w || list[i].w == list[j].w && symbolBefore(idx, list[i].slot, list[j].slot)
	})
	list = list[:min(len(list), heuristics.HistorySymbolK)]
	var out ranked
	for i, r := range heuristics.CompetitionRanks(list, weightOf) {
		out.syms = append(out.syms, symRank{slot: list[i].slot, rank: int32(r), score: float32(list[i].w)})
	}
	return out
}

// symbolBefore orders two symbols of equal score as the index breaks ties
// (symbolindex.Index.SymbolOrder: path, position, qualified name): a slot
// depends on the order files were indexed and updated in, and ties broken
// by it make the same workspace give different answers (a truncation
// keeping the first of many equal scores keeps other symbols).
func symbolBefore(idx *symbolindex.Index, a, b uint32) bool {
	return idx.SymbolOrder(a, b) < 0
}

// fileSyms are the symbols of one file, in index order (outer before
// inner), with their ranges.
type fileSyms struct {
	slots  []uint32
	ranges []parse.Range
}

// fileSymbols are the symbols of the file at path p the request may
// select; none when the file is not indexed or filtered out.
func (s *scope) fileSymbols(p string) *fileSyms {
	f := &fileSyms{}
	fs, ok := s.idx.FileSlot(p)
	if !ok || s.fileFilter != nil && !s.fileFilter(fs) {
		return f
	}
	for _, slot := range s.idx.FileSymbols(fs) {
		if ref, ok := s.idx.Symbol(slot); ok {
			f.slots = append(f.slots, slot)
			f.ranges = append(f.ranges, ref.Range)
		}
	}
	return f
}

// innermost appends to commit the innermost symbols overlapping the lines
// of t (1-based): an overlapping symbol that holds the next overlapping one
// is its container. hit is scratch space, returned for reuse.
func (f *fileSyms) innermost(t history.Touch, hit []int, commit []uint32) ([]int, []uint32) {
	for j, r := range f.ranges {
		if int(r.StartLine)+1 <= t.End && t.Start <= int(r.EndLine)+1 {
			hit = append(hit, j)
		}
	}
	for k, j := range hit {
		inner := false
		for _, j2 := range hit[k+1:] {
			if f.ranges[j].Contains(f.ranges[j2]) {
				inner = true
				break
			}
		}
		if !inner {
			commit = append(commit, f.slots[j])
		}
	}
	return hit, commit
}

// spellingSource ranks, when the request asks to fix typos or spelling
// (q.spell), the symbols, and their files, that hold what looks
// misspelled (spelling.Find): a variant of a word the request names
// ("fix macOS spelling": `MacOS`) if any code file holds one, else the
// words the workspace writes once or twice a letter from a word it writes
// many times (its vocabulary, from at most heuristics.SpellingScanFiles
// files and heuristics.SpellingScanBytes bytes, read through the gate),
// contractions without their apostrophe, "an" before a consonant and a
// short word written twice. A symbol is the innermost around a place,
// ranked by the weight of its places, and a file by its places' weight.
func spellingSource(s *scope) ranked {
	ask := s.q.spell
	if !ask.Spelling && !ask.NonASCII || s.fv.Weights.Source[heuristics.SrcSpelling] == 0 || s.namesElsewhere() {
		return ranked{}
	}
	if ask.NonASCII {
		var texts []litFile
		s.spellingOrder(func(fs uint32) int64 {
			text := s.peekFile(fs)
			if len(text) > 0 {
				texts = append(texts, litFile{slot: fs, text: text})
			}
			return int64(len(text))
		})
		return s.spellingHits(s.spellingWhere(texts), func(text []byte, fn func(spelling.Hit)) { spelling.FindNonASCII(text, fn) })
	}
	var named []spelling.Named
	anyCase := false
	for _, w := range ask.Named {
		named = append(named, spelling.Named{Word: w, Case: mixedCase(w) && len(s.idx.Named(w)) == 0})
		anyCase = anyCase || named[len(named)-1].Case
	}
	slots, j := s.spellingJudge(named)
	var out ranked
	var read []litFile
	if len(j.Variants) > 0 || anyCase {
		read = s.spellingRead(slots, func(i int) bool { return j.MayVariant[i] }, nil)
		out = s.spellingHits(read, func(text []byte, fn func(spelling.Hit)) { spelling.Find(text, j.Variants, named, false, fn) })
	}
	if len(out.files) == 0 {
		texts := s.spellingRead(slots, func(i int) bool { return j.MaySuspect[i] }, read)
		out = s.spellingHits(texts, func(text []byte, fn func(spelling.Hit)) { spelling.Find(text, j.Suspects, nil, true, fn) })
	}
	return out
}

// namesElsewhere reports whether the request names files (its own
// paths with an extension: "fix typos in inbox.go"; a commit's scope,
// "chore(tests):", names none) of which the folder holds none (spellIn):
// the typos it means are another folder's, or none of the workspace's.
func (s *scope) namesElsewhere() bool {
	return len(s.spellIn) == 0 && slices.ContainsFunc(s.q.paths, func(m mention) bool { return !m.hist && path.Ext(m.name) != "" })
}

// spellingJudge judges the texts the spelling source reads
// (spellingOrder) by their vocabulary, kept by the folder's cache of
// words (snapshot.Folder.Words): a text it counted before, by its path and
// the hash the index holds of it, is not read again. slots are the files
// of the texts, in their order.
func (s *scope) spellingJudge(named []spelling.Named) (slots []uint32, j spelling.Judgement) {
	cache := s.fv.Words
	if cache == nil {
		cache = spelling.NewCache()
	}
	cache.With(func(l spelling.Locked) {
		var sel []spelling.Key
		s.spellingOrder(func(fs uint32) int64 {
			rel := s.idx.FilePath(fs)
			st, ok := s.idx.State(rel)
			if !ok {
				return 0
			}
			k := spelling.Key{Path: rel, Hash: st.Hash}
			n, ok := l.Size(k)
			if !ok {
				text := s.peekFile(fs)
				if len(text) == 0 {
					return 0
				}
				l.Count(k, text, s.idx.FileCategory(fs).Has(heuristics.Docs))
				n = int64(len(text))
			}
			if n > 0 {
				sel, slots = append(sel, k), append(slots, fs)
			}
			return n
		})
		j = l.Judge(sel, named)
	})
	return slots, j
}

// spellingRead reads the texts of the files slots[i] the request keeps
// to (spellingWhere) for which may(i) holds; one the pass before read
// (read, in the order of slots: the variants', for the suspects') is
// taken from it, not read again.
func (s *scope) spellingRead(slots []uint32, may func(i int) bool, read []litFile) []litFile {
	var out []litFile
	for i, fs := range slots {
		var had []byte
		if len(read) > 0 && read[0].slot == fs {
			had, read = read[0].text, read[1:]
		}
		if !may(i) || len(s.spellIn) > 0 && !slices.Contains(s.spellIn, fs) {
			continue
		}
		if had != nil {
			out = append(out, litFile{slot: fs, text: had})
		} else if text := s.peekFile(fs); len(text) > 0 {
			out = append(out, litFile{slot: fs, text: text})
		}
	}
	return out
}

// peekFile is the text of the file fs (peekText).
func (s *scope) peekFile(fs uint32) []byte {
	return s.snap.peekText(s.idx, s.fv.Root, s.idx.FilePath(fs))
}

// spellingWhere are the texts where the request says what it fixes is
// (the files of the symbols and files it names: "fix typos in
// httperror.go"), if it says, else all.
func (s *scope) spellingWhere(texts []litFile) []litFile {
	if len(s.spellIn) == 0 {
		return texts
	}
	return slices.DeleteFunc(texts, func(t litFile) bool { return !slices.Contains(s.spellIn, t.slot) })
}

// mixedCase reports whether w's case is part of its spelling: a capital
// after a small letter (macOS, GitHub).
func mixedCase(w string) bool {
	i := strings.IndexFunc(w, func(r rune) bool { return r >= 'a' && r <= 'z' })
	return i >= 0 && strings.ContainsFunc(w[i:], func(r rune) bool { return r >= 'A' && r <= 'Z' })
}

// spellingHits ranks the code files of texts that hold what
// spelling.Find finds, and the innermost symbols around each place.
func (s *scope) spellingHits(texts []litFile, find func([]byte, func(spelling.Hit))) ranked {
	var out ranked
	var holders []weightedSlot
	s.spellWhy, s.spellSym = map[uint32]string{}, map[uint32]string{}
	for _, f := range texts {
		if s.idx.FileCategory(f.slot) != 0 {
			continue
		}
		var spans symbolSpans
		w := 0.0
		find(f.text, func(h spelling.Hit) {
			if w == 0 {
				s.spellWhy[f.slot] = h.Why()
				spans = s.spansOf(f.slot)
			}
			w += h.Weight
			if slot, ok := spans.documented(f.text, uint32(h.At), uint32(h.End)); ok && s.accepts(slot) {
				if j := slices.IndexFunc(holders, func(x weightedSlot) bool { return x.slot == slot }); j >= 0 {
					holders[j].w += h.Weight
				} else {
					holders = append(holders, weightedSlot{slot, h.Weight})
					s.spellSym[slot] = h.Why()
				}
			}
		})
		if w > 0 {
			out.files = append(out.files, scoredFile{f.slot, w})
		}
	}
	sort.SliceStable(out.files, func(i, j int) bool { return out.files[i].score > out.files[j].score })
	sort.SliceStable(holders, func(i, j int) bool { return holders[i].w > holders[j].w })
	for i, r := range heuristics.CompetitionRanks(holders, weightOf) {
		out.syms = append(out.syms, symRank{slot: holders[i].slot, rank: int32(r), score: float32(holders[i].w)})
	}
	return out
}

// spellingOrder calls take with the folder's files the spelling source
// reads, through the gate: the files the user points at first, then the
// other sources' by rank, then the rest, docs last (their prose counts
// the words code writes in its comments, but a site's translations are
// words of other languages), until it has taken
// heuristics.SpellingScanFiles texts or heuristics.SpellingScanBytes
// bytes. take says how many bytes it took: 0 for a file it could not
// read or an empty one, which does not count.
func (s *scope) spellingOrder(take func(fs uint32) int64) {
	seen := map[uint32]bool{}
	files, size := 0, int64(0)
	add := func(fs uint32) bool {
		if files == heuristics.SpellingScanFiles || size >= heuristics.SpellingScanBytes {
			return false
		}
		if seen[fs] {
			return true
		}
		seen[fs] = true
		if n := s.idx.FileSize(fs); n > heuristics.SpellingScanBytes-size {
			return true
		}
		if files%256 == 255 {
			s.snap.Yield()
		}
		if n := take(fs); n > 0 {
			files++
			size += n
		}
		return true
	}
	for _, fs := range s.pointed {
		if !add(fs) {
			return
		}
	}
	for src := range heuristics.SrcSpelling {
		if s.lists == nil {
			break
		}
		for _, f := range s.lists[src] {
			if !add(f.slot) {
				return
			}
		}
	}
	for _, docs := range []bool{false, true} {
		s.idx.EachPath(func(_ string, fs uint32) bool { return s.idx.FileCategory(fs).Has(heuristics.Docs) != docs || add(fs) })
	}
}
