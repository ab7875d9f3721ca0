package workspace

import (
	"context"
	"fmt"
	"math"
	"os"
	"path"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/ctxls/ctxls/heuristics"
	"github.com/ctxls/ctxls/symbolindex"
)

// ParamError is a request field that is missing or malformed. The server
// answers it with InvalidParams; the CLI exits with status 2.
type ParamError struct {
	Field string
	Msg   string
}

func (e *ParamError) Error() string { return e.Field + ": " + e.Msg }

func paramErr(field, format string, args ...any) error {
	return &ParamError{Field: field, Msg: fmt.Sprintf(format, args...)}
}

// The sources of evidence a selection fuses, in the order of Item.Signals.
const (
	srcLexical  = iota // BM25F over symbols
	srcFile            // BM25 over whole files, inherited by their symbols
	srcSemantic        // cosine similarity of symbol vectors
	srcMention         // names and paths written in the query or history
	srcActive          // the symbol under the cursor and the active file
	srcLocality        // directory distance from the active file
	srcEdit            // recently edited symbols, decaying
	srcGraph           // files linked to the active or mentioned files by references
	srcSentence        // each sentence of a long query as its own sub-query, max-pooled
	numSources
)

var sourceNames = [numSources]string{"lexical", "file", "semantic", "mention", "active", "locality", "edit", "graph", "sentence"}

// sourceWeights are the per-source weights of reciprocal-rank fusion.
var sourceWeights = [numSources]float64{
	srcLexical:  1.0,
	srcFile:     1.5,
	srcSemantic: 0.5,
	srcMention:  1.5,
	srcActive:   1.0,
	srcLocality: 0.5,
	srcEdit:     1.0,
	srcGraph:    1,
	srcSentence: 0.5,
}

// Candidate-list sizes per source.
const (
	lexicalK  = 300
	sentenceK = 50
	fileK     = 60
	semanticK = 100
	// topFiles is how many of the best-ranked files contribute all of their
	// symbols as candidates.
	topFiles = 20
	// sameFileDecay lowers each further item from a file already chosen, so
	// that the first items cover several files.
	sameFileDecay = 0.75
)

// plan is a validated request.
type plan struct {
	req       *Request
	query     heuristics.Query
	limit     int
	maxChars  int
	perItem   int
	paths     *GlobSet
	excludes  *GlobSet
	kinds     map[symbolindex.Kind]bool
	activeAbs string
	cursor    *Position
	pinned    []string // absolute paths or item ids, in order
	// wantsTests and wantsDocs: the query asks for tests or docs, so
	// they are not discounted.
	wantsTests, wantsDocs bool
}

// validate checks a request and fills in its defaults.
func (w *Workspace) validate(req *Request) (*plan, error) {
	if strings.TrimSpace(req.Query) == "" {
		return nil, paramErr("query", "must not be empty")
	}
	p := &plan{req: req, limit: req.Limit, maxChars: req.MaxChars, perItem: req.MaxCharsPerItem}
	if p.limit == 0 {
		p.limit = w.cfg.Limit
	}
	if p.limit < 0 || p.limit > MaxLimit {
		return nil, paramErr("limit", "must be between 1 and %d, got %d", MaxLimit, req.Limit)
	}
	if p.maxChars == 0 {
		p.maxChars = w.cfg.MaxChars
	}
	if p.maxChars < 0 {
		return nil, paramErr("maxChars", "must not be negative, got %d", req.MaxChars)
	}
	if p.perItem == 0 {
		p.perItem = w.cfg.MaxCharsPerItem
	}
	if p.perItem < 0 {
		return nil, paramErr("maxCharsPerItem", "must not be negative, got %d", req.MaxCharsPerItem)
	}
	if req.MinScore < 0 || math.IsNaN(req.MinScore) {
		return nil, paramErr("minScore", "must not be negative")
	}
	var err error
	if p.paths, err = compileField("paths", req.Paths); err != nil {
		return nil, err
	}
	if p.excludes, err = compileField("excludePaths", req.ExcludePaths); err != nil {
		return nil, err
	}
	if len(req.Kinds) > 0 {
		p.kinds = make(map[symbolindex.Kind]bool, len(req.Kinds))
		for i, k := range req.Kinds {
			kind, ok := symbolindex.ParseKind(k)
			if !ok {
				return nil, paramErr(fmt.Sprintf("kinds[%d]", i), "unknown kind %q (want function, method, class, struct, interface, type, enum, const, var, module or file)", k)
			}
			p.kinds[kind] = true
		}
	}
	if req.ActiveURI != "" {
		_, _, abs, err := w.resolve(req.ActiveURI)
		if err != nil {
			return nil, paramErr("activeUri", "%v", err)
		}
		p.activeAbs, p.cursor = abs, req.Position
	} else if w.act.activeAbs != "" {
		p.activeAbs, p.cursor = w.act.activeAbs, w.act.cursor
		if req.Position != nil {
			p.cursor = req.Position
		}
	}
	for i, ref := range req.Pinned {
		if strings.HasPrefix(ref, "sym:") || strings.HasPrefix(ref, "file:") && !strings.HasPrefix(ref, "file://") {
			p.pinned = append(p.pinned, ref)
			continue
		}
		_, _, abs, err := w.resolve(ref)
		if err != nil {
			return nil, paramErr(fmt.Sprintf("pinned[%d]", i), "%v", err)
		}
		p.pinned = append(p.pinned, abs)
	}
	p.query = heuristics.Analyze(req.Query)
	p.wantsTests, p.wantsDocs = asksFor(req.Query)
	return p, nil
}

func compileField(field string, globs []string) (*GlobSet, error) {
	if len(globs) == 0 {
		return nil, nil
	}
	set, err := CompileGlobSet(globs)
	if err != nil {
		return nil, paramErr(field, "%v", err)
	}
	return set, nil
}

// cand is one candidate symbol with the evidence for it. Everything needed
// after the folder's lock is released is copied out.
type cand struct {
	folder   *Folder
	fileSlot uint32
	slot     uint32
	path     string
	lang     string
	sym      symbolindex.Symbol
	hash     uint64
	ranks    [numSources]int32
	scores   [numSources]float32
	fused    float64
	reason   string
}

// Select answers a contextSelect request: it ranks the symbols of every
// folder against the query, the conversation and the user's activity, fuses
// the rankings, and packs the best into the budget.
func (w *Workspace) Select(ctx context.Context, req *Request) (*Result, error) {
	start := time.Now()
	w.mu.Lock()
	p, err := w.validate(req)
	folders := append([]*Folder(nil), w.folders...)
	emb := w.emb
	edits := make(map[editKey]time.Time, len(w.act.edits))
	for k, t := range w.act.edits {
		edits[k] = t
	}
	halfLife := time.Duration(w.cfg.RecentEditHalfLife)
	refused := w.refusals()
	w.mu.Unlock()
	if err != nil {
		return nil, err
	}

	best := 0.0
	if len(req.History) > 0 {
		best = ownBestMatch(folders, p)
	}
	q := buildQuery(p, emb, best)
	now := w.opts.Now()
	var all []*cand
	res := &Result{Items: []Item{}}
	res.Stats.Ready = true
	var conf heuristics.ConfidenceInput
	// A vague follow-up ("fix that") has no terms of its own; the history
	// it continues counts.
	conf.QueryTerms = len(q.terms)
	for _, f := range folders {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		f.mu.RLock()
		cs, fc := collect(f, p, q, edits, now, halfLife)
		res.Stats.Ready = res.Stats.Ready && f.ready
		res.Stats.Files += f.idx.Files()
		res.Stats.Symbols += f.idx.Symbols()
		if res.Stats.MerkleRoot == "" {
			res.Stats.MerkleRoot = f.idx.Tree().RootHex()
		}
		f.mu.RUnlock()
		all = append(all, cs...)
		conf.BestLexicalCoverage = math.Max(conf.BestLexicalCoverage, fc.BestLexicalCoverage)
		conf.BestSemantic = math.Max(conf.BestSemantic, fc.BestSemantic)
		conf.Mentions += fc.Mentions
	}
	res.Stats.Candidates = len(all)
	res.Stats.Embedder = emb.ID()
	res.Stats.Refused = refused
	if err := ctx.Err(); err != nil {
		return nil, err
	}

	ordered := diversify(all)
	pinned := w.pinnedItems(p, folders)
	res.Items, res.UsedChars = w.pack(p, pinned, ordered)
	res.LowConfidence = heuristics.LowConfidence(conf)
	res.Stats.ElapsedMs = float64(time.Since(start).Microseconds()) / 1000
	return res, nil
}

// query is the analysed request, ready for the sources.
type query struct {
	own   []symbolindex.QueryTerm // terms of the query itself
	terms []symbolindex.QueryTerm // own terms plus weighted history terms
	vec   []float32
	// mentions: identifiers and paths from the query (weight 1) and the
	// history (each with its recency weight).
	idents []weighted
	paths  []weighted
	// sentences are the sub-queries of a query of several sentences.
	sentences [][]symbolindex.QueryTerm
}

// maxSentences bounds how many sentences of a long query run as sub-queries.
const maxSentences = 6

type weighted struct {
	s string
	w float64
}

// buildQuery turns the request into terms and a vector. History counts in
// proportion to how vague the query is, newest turns most; names and paths
// mentioned anywhere in the history count as mentions regardless.
func buildQuery(p *plan, emb symbolindex.Embedder, bestMatch float64) *query {
	q := &query{}
	seen := map[string]bool{}
	for _, t := range symbolindex.QueryTerms(p.req.Query) {
		if !seen[t] {
			seen[t] = true
			q.own = append(q.own, symbolindex.QueryTerm{Term: t, Weight: 1})
		}
	}
	q.terms = append(q.terms, q.own...)
	if len(p.query.Sentences) > 1 {
		for _, sent := range p.query.Sentences[:min(len(p.query.Sentences), maxSentences)] {
			var st []symbolindex.QueryTerm
			for _, t := range symbolindex.QueryTerms(sent) {
				st = append(st, symbolindex.QueryTerm{Term: t, Weight: 1})
			}
			if len(st) > 0 {
				q.sentences = append(q.sentences, st)
			}
		}
	}
	for _, id := range p.query.Identifiers {
		q.idents = append(q.idents, weighted{id, 1})
	}
	for _, pth := range p.query.Paths {
		q.paths = append(q.paths, weighted{pth, 1})
	}

	texts := []string{p.req.Query}
	hist := p.req.History
	weights := heuristics.HistoryWeights(len(hist), heuristics.DefaultHistoryDecay)
	ctxWeight := 0.0
	if len(hist) > 0 {
		ctxWeight = heuristics.ContextWeight(p.query.Vagueness, bestMatch)
	}
	for i, h := range hist {
		hq := heuristics.Analyze(h)
		for _, id := range hq.Identifiers {
			q.idents = append(q.idents, weighted{id, weights[i]})
		}
		for _, pth := range hq.Paths {
			q.paths = append(q.paths, weighted{pth, weights[i]})
		}
		if ctxWeight <= 0 {
			continue
		}
		hw := float32(ctxWeight * weights[i])
		for _, t := range symbolindex.QueryTerms(h) {
			if !seen[t] {
				seen[t] = true
				q.terms = append(q.terms, symbolindex.QueryTerm{Term: t, Weight: hw})
			}
		}
		texts = append(texts, h)
	}
	vecs, err := emb.Embed(texts)
	if err != nil || len(vecs) == 0 {
		return q
	}
	q.vec = append([]float32(nil), vecs[0]...)
	for i := 1; i < len(vecs); i++ {
		hw := float32(ctxWeight * weights[i-1])
		for j, x := range vecs[i] {
			q.vec[j] += hw * x
		}
	}
	symbolindex.Normalize(q.vec)
	return q
}

// ownBestMatch is how well the query alone matches: the share of its own
// terms that its best lexical hit contains, over all folders. It gates how
// much the conversation history may add.
func ownBestMatch(folders []*Folder, p *plan) float64 {
	var own []symbolindex.QueryTerm
	for _, t := range symbolindex.QueryTerms(p.req.Query) {
		own = append(own, symbolindex.QueryTerm{Term: t, Weight: 1})
	}
	if len(own) == 0 {
		return 0
	}
	best := 0
	var buf symbolindex.SearchBuffer
	for _, f := range folders {
		f.mu.RLock()
		for _, h := range f.idx.SearchSymbols(own, 5, nil, &buf) {
			best = max(best, int(h.Matched))
		}
		f.mu.RUnlock()
	}
	return math.Min(1, float64(best)/float64(len(own)))
}

// collect runs every source over one folder and returns the scored
// candidates. Caller holds f.mu for reading.
func collect(f *Folder, p *plan, q *query, edits map[editKey]time.Time, now time.Time, halfLife time.Duration) ([]*cand, heuristics.ConfidenceInput) {
	idx := f.idx
	var conf heuristics.ConfidenceInput
	cands := map[uint32]*cand{}
	get := func(s uint32) *cand {
		if c, ok := cands[s]; ok {
			return c
		}
		ref, ok := idx.Symbol(s)
		if !ok || !p.accepts(ref.Path, ref.Kind) {
			return nil
		}
		c := &cand{folder: f, fileSlot: ref.File, slot: s, path: ref.Path, lang: ref.Language, sym: *ref.Symbol, hash: idx.LeafHash(s)}
		cands[s] = c
		return c
	}
	// Filters only when the request has some: the searches call them for
	// every document they score.
	var symFilter, fileFilter func(uint32) bool
	if p.kinds != nil || p.paths != nil || p.excludes != nil {
		symFilter = func(s uint32) bool {
			ref, ok := idx.Symbol(s)
			return ok && p.accepts(ref.Path, ref.Kind)
		}
	}
	if p.paths != nil || p.excludes != nil {
		fileFilter = func(fs uint32) bool { return p.acceptsPath(idx.FilePath(fs)) }
	}

	// File-level evidence, fused into one file ranking below.
	var fileLists [numSources][]scoredFile

	// Lexical.
	var buf symbolindex.SearchBuffer
	lex := idx.SearchSymbols(q.terms, lexicalK, symFilter, &buf)
	rank := int32(0)
	for i, h := range lex {
		if i == 0 || h.Score != lex[i-1].Score {
			rank = int32(i + 1) // equal scores share a rank
		}
		if c := get(h.Doc); c != nil {
			c.ranks[srcLexical], c.scores[srcLexical] = rank, h.Score
		}
	}
	if len(lex) > 0 && len(q.own) > 0 {
		conf.BestLexicalCoverage = ownCoverage(lex, q)
	}
	for _, h := range lex {
		if ref, ok := idx.Symbol(h.Doc); ok {
			fileLists[srcLexical] = append(fileLists[srcLexical], scoredFile{ref.File, float64(h.Score)})
		}
	}
	fileLists[srcLexical] = bestPerFile(fileLists[srcLexical])

	// Whole files.
	for _, h := range idx.SearchFiles(q.terms, fileK, fileFilter, &buf) {
		fileLists[srcFile] = append(fileLists[srcFile], scoredFile{h.Doc, float64(h.Score)})
	}

	// Sentences: each sentence of a long query ranks symbols on its own,
	// and a symbol keeps its best rank over the sentences (max pooling), so
	// every sentence's best matches stay in play however strongly another
	// sentence matches.
	if len(q.sentences) > 1 {
		var pooled []scoredFile
		for _, st := range q.sentences {
			hits := idx.SearchSymbols(st, sentenceK, symFilter, &buf)
			r := int32(0)
			for i, h := range hits {
				if i == 0 || h.Score != hits[i-1].Score {
					r = int32(i + 1)
				}
				c := get(h.Doc)
				if c == nil {
					continue
				}
				if c.ranks[srcSentence] == 0 || r < c.ranks[srcSentence] {
					c.ranks[srcSentence], c.scores[srcSentence] = r, h.Score
				}
				pooled = append(pooled, scoredFile{c.fileSlot, -float64(r)})
			}
		}
		fileLists[srcSentence] = bestPerFile(pooled)
	}

	// Semantic.
	if q.vec != nil {
		sem := idx.SearchVectors(q.vec, semanticK, symFilter, nil)
		for i, h := range sem {
			if h.Score <= 0 {
				break
			}
			if i == 0 {
				conf.BestSemantic = float64(h.Score)
			}
			if i == 0 || h.Score != sem[i-1].Score {
				rank = int32(i + 1)
			}
			if c := get(h.Slot); c != nil {
				c.ranks[srcSemantic], c.scores[srcSemantic] = rank, h.Score
			}
			if ref, ok := idx.Symbol(h.Slot); ok {
				fileLists[srcSemantic] = append(fileLists[srcSemantic], scoredFile{ref.File, float64(h.Score)})
			}
		}
		fileLists[srcSemantic] = bestPerFile(fileLists[srcSemantic])
	}

	// Mentions: names and paths written in the query or the history.
	var mentioned []weighted2
	for _, m := range q.idents {
		named := idx.Named(m.s)
		for _, s := range named {
			mentioned = append(mentioned, weighted2{s, m.w})
			// A type named in the query ("BufferedWriteSyncer: flush on
			// Stop") scopes the change: its members count too, a little
			// less than the type itself.
			mentioned = appendMembers(idx, mentioned, s, m.w*0.5)
		}
		// "reply.redirect()" names a method whose receiver is spelled
		// differently in the code: fall back to the last part, but only
		// when the whole name matched nothing.
		if i := strings.LastIndexByte(m.s, '.'); i > 0 && len(named) == 0 {
			for _, s := range idx.Named(m.s[i+1:]) {
				mentioned = append(mentioned, weighted2{s, m.w * 0.5})
			}
		}
	}
	var mentionedFiles []weighted2
	for _, m := range q.paths {
		for _, fs := range filesByPath(idx, m.s) {
			mentionedFiles = append(mentionedFiles, weighted2{fs, m.w})
		}
	}
	sort.SliceStable(mentioned, func(i, j int) bool { return mentioned[i].w > mentioned[j].w })
	n, prev := int32(0), math.Inf(1)
	for _, m := range mentioned {
		if c := get(m.slot); c != nil && c.ranks[srcMention] == 0 {
			n++
			if m.w != prev {
				rank, prev = n, m.w // equal weights share a rank
			}
			c.ranks[srcMention], c.scores[srcMention] = rank, float32(m.w)
			conf.Mentions++
		}
	}
	sort.SliceStable(mentionedFiles, func(i, j int) bool { return mentionedFiles[i].w > mentionedFiles[j].w })
	for _, m := range mentionedFiles {
		fileLists[srcMention] = append(fileLists[srcMention], scoredFile{m.slot, m.w})
		conf.Mentions++
	}
	fileLists[srcMention] = bestPerFile(fileLists[srcMention])

	// The active file and cursor.
	activeRel := ""
	if p.activeAbs != "" && (p.activeAbs == f.Root || strings.HasPrefix(p.activeAbs, f.Root+string(os.PathSeparator))) {
		activeRel = relPathOf(f.Root, p.activeAbs)
		if fs, ok := idx.FileSlot(activeRel); ok {
			syms := idx.FileSymbols(fs)
			if p.cursor != nil {
				// The innermost symbol under the cursor first.
				best := -1
				for i, s := range syms {
					ref, _ := idx.Symbol(s)
					if ref.Range.StartLine <= p.cursor.Line && p.cursor.Line <= ref.Range.EndLine {
						best = i
					}
				}
				if best >= 0 {
					if c := get(syms[best]); c != nil {
						c.ranks[srcActive], c.scores[srcActive] = 1, 1
						c.reason = ReasonActive
					}
				}
			}
		}
	}

	// Recent edits, newest first.
	type edited struct {
		slot uint32
		w    float64
	}
	var eds []edited
	for k, t := range edits {
		if !strings.HasPrefix(k.abs, f.Root+string(os.PathSeparator)) {
			continue
		}
		fs, ok := idx.FileSlot(relPathOf(f.Root, k.abs))
		if !ok {
			continue
		}
		for _, s := range idx.FileSymbols(fs) {
			if idx.LeafKey(s) == k.key {
				if wt := heuristics.Decay(now.Sub(t), halfLife); wt > 0.01 {
					eds = append(eds, edited{s, wt})
				}
				break
			}
		}
	}
	sort.Slice(eds, func(i, j int) bool { return eds[i].w > eds[j].w || eds[i].w == eds[j].w && eds[i].slot < eds[j].slot })
	for i, e := range eds {
		if c := get(e.slot); c != nil {
			c.ranks[srcEdit], c.scores[srcEdit] = int32(i+1), float32(e.w)
		}
	}

	// Fuse the file-level lists into one file ranking; the best files
	// bring all their symbols in as candidates.
	fileScore := map[uint32]float64{}
	for src, list := range fileLists {
		for i, r := range competitionRanks(list) {
			fileScore[list[i].slot] += heuristics.RRF(sourceWeights[src], r)
		}
	}
	if activeRel != "" {
		// Locality: nearness to the active file, as a prior.
		near := make([]uint32, 0, len(fileScore)+1)
		for fs := range fileScore {
			near = append(near, fs)
		}
		if fs, ok := idx.FileSlot(activeRel); ok {
			if _, in := fileScore[fs]; !in {
				near = append(near, fs)
			}
		}
		for _, fs := range near {
			fileScore[fs] += heuristics.RRF(sourceWeights[srcLocality], 1) * locality(activeRel, idx.FilePath(fs))
		}
	}

	// The reference graph around the active file and the mentioned files.
	// (Seeding it with the best files so far as well made both eval sets
	// worse: see EVAL.md.)
	var seeds []weighted2
	if activeRel != "" {
		if fs, ok := idx.FileSlot(activeRel); ok {
			seeds = append(seeds, weighted2{fs, 1})
		}
	}
	seeds = append(seeds, mentionedFiles...)
	// The tests of the active file (or the code it tests) are not
	// discounted as tests: they change together.
	partners := map[uint32]bool{}
	if activeRel != "" {
		for _, fs := range testPartners(idx, activeRel) {
			partners[fs] = true
		}
	}
	graphSet := map[uint32]bool{}
	if len(seeds) > 0 {
		list := graphFiles(idx, seeds)
		fileLists[srcGraph] = list
		for i, r := range competitionRanks(list) {
			graphSet[list[i].slot] = true
			fileScore[list[i].slot] += heuristics.RRF(sourceWeights[srcGraph], r)
		}
	}
	files := make([]uint32, 0, len(fileScore))
	for fs := range fileScore {
		files = append(files, fs)
	}
	sort.Slice(files, func(i, j int) bool {
		a, b := fileScore[files[i]], fileScore[files[j]]
		return a > b || a == b && files[i] < files[j]
	})
	fileRank := make(map[uint32]int32, len(files))
	for i, fs := range files {
		fileRank[fs] = int32(i + 1)
		if i < topFiles {
			for _, s := range idx.FileSymbols(fs) {
				get(s)
			}
		}
	}

	out := make([]*cand, 0, len(cands))
	for _, c := range cands {
		if r, ok := fileRank[c.fileSlot]; ok {
			c.ranks[srcFile] = r
			c.scores[srcFile] = float32(fileScore[c.fileSlot])
		}
		if activeRel != "" {
			c.scores[srcLocality] = float32(locality(activeRel, c.path))
		}
		out = append(out, c)
	}
	if activeRel != "" {
		rankLocality(out)
	}
	for _, c := range out {
		for src := 0; src < numSources; src++ {
			if r := c.ranks[src]; r > 0 && src != srcLocality {
				c.fused += heuristics.RRF(sourceWeights[src], int(r))
			}
		}
		// Locality is a prior, not a ranking: it counts in proportion to
		// how near the candidate is, as a first rank would, so that it
		// separates near-equal candidates by where the user is.
		c.fused += heuristics.RRF(sourceWeights[srcLocality], 1) * float64(c.scores[srcLocality])
		if !partners[c.fileSlot] {
			c.fused *= p.prior(c.path, c.lang)
		}
		if c.reason == "" {
			c.reason = ReasonRetrieved
			if graphSet[c.fileSlot] && !c.hasOwnEvidence() {
				c.reason = ReasonExpanded
			}
		}
	}
	return out, conf
}

// activeFileLocality is the locality of the active file itself. The user
// already has it in front of them, so it counts no more than a file beside
// it: what they need is the code they are not looking at.
const activeFileLocality = heuristics.SameDirLocality

// locality is heuristics.Locality with the active file's own weight.
func locality(active, candidate string) float64 {
	if active == candidate {
		return activeFileLocality
	}
	return heuristics.Locality(active, candidate)
}

// rankLocality ranks candidates by their locality score (nearest to the
// active file first); equal localities share a rank, so that locality
// breaks ties between otherwise equal candidates without ordering them
// arbitrarily.
func rankLocality(cs []*cand) {
	byLoc := make([]*cand, 0, len(cs))
	for _, c := range cs {
		if c.scores[srcLocality] > 0 {
			byLoc = append(byLoc, c)
		}
	}
	sort.Slice(byLoc, func(i, j int) bool { return byLoc[i].scores[srcLocality] > byLoc[j].scores[srcLocality] })
	rank := int32(0)
	for i, c := range byLoc {
		if i == 0 || c.scores[srcLocality] != byLoc[i-1].scores[srcLocality] {
			rank = int32(i + 1)
		}
		c.ranks[srcLocality] = rank
	}
}

// hasOwnEvidence reports whether a source other than the file-level ones
// ranked the candidate itself.
func (c *cand) hasOwnEvidence() bool {
	for _, src := range []int{srcLexical, srcSemantic, srcMention, srcActive, srcEdit} {
		if c.ranks[src] > 0 {
			return true
		}
	}
	return false
}

// appendMembers appends, with weight w, the symbols of the same file that
// are members of the container symbol s (qualified "S.member").
func appendMembers(idx *symbolindex.Index, out []weighted2, s uint32, w float64) []weighted2 {
	ref, ok := idx.Symbol(s)
	if !ok {
		return out
	}
	switch ref.Kind {
	case symbolindex.KindClass, symbolindex.KindStruct, symbolindex.KindInterface, symbolindex.KindType, symbolindex.KindEnum, symbolindex.KindModule:
	default:
		return out
	}
	prefix := ref.Qualified + "."
	for _, m := range idx.FileSymbols(ref.File) {
		if mr, ok := idx.Symbol(m); ok && strings.HasPrefix(mr.Qualified, prefix) {
			out = append(out, weighted2{m, w})
		}
	}
	return out
}

type weighted2 struct {
	slot uint32
	w    float64
}

// ownCoverage is the share of the query's own terms that the best lexical
// hit matched.
func ownCoverage(lex []symbolindex.Hit, q *query) float64 {
	best := 0
	for _, h := range lex[:min(len(lex), 5)] {
		best = max(best, int(h.Matched))
	}
	return math.Min(1, float64(best)/float64(len(q.own)))
}

// scoredFile is one entry of a file-level list: a file slot and the
// source's score for it.
type scoredFile struct {
	slot  uint32
	score float64
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

// competitionRanks returns the 1-based rank of each entry of a list sorted
// best first; entries with equal scores share the rank of the first of
// them, so that a source does not order what it cannot tell apart.
func competitionRanks(list []scoredFile) []int {
	ranks := make([]int, len(list))
	for i := range list {
		if i > 0 && list[i].score == list[i-1].score {
			ranks[i] = ranks[i-1]
		} else {
			ranks[i] = i + 1
		}
	}
	return ranks
}

// filesByPath finds the files a mentioned path names: an exact relative
// path, a path suffix ("server.go", "lsp/server.go"), or a directory
// ("lsp", "net/http") whose files all count.
// maxPathMention is the most files a path mention may name and still count.
const maxPathMention = 20

func filesByPath(idx *symbolindex.Index, mention string) []uint32 {
	m := strings.Trim(strings.TrimPrefix(mention, "./"), "/")
	if m == "" {
		return nil
	}
	var out []uint32
	idx.EachPath(func(p string, fs uint32) bool {
		if p == m || strings.HasSuffix(p, "/"+m) || strings.HasPrefix(p, m+"/") || strings.Contains(p, "/"+m+"/") {
			out = append(out, fs)
		}
		return len(out) <= maxPathMention
	})
	slices.Sort(out)
	// A directory mention of a large tree says little about any one file.
	if len(out) > maxPathMention {
		out = out[:0]
	}
	return out
}

// accepts applies the request's path and kind filters.
func (p *plan) accepts(relPath string, kind symbolindex.Kind) bool {
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

// diversify orders candidates by fused score, lowering each further item
// from a file that already has one (the j-th best item of a file is scaled
// by sameFileDecay^j), so that the first items span files. Because each
// file's scaled scores still fall with j, sorting by the scaled score is the
// same as greedily taking the best remaining item each time.
func diversify(all []*cand) []*cand {
	sort.Slice(all, func(i, j int) bool { return better(all[i], all[j]) })
	type fileKey struct {
		f  *Folder
		fs uint32
	}
	taken := map[fileKey]int{}
	for _, c := range all {
		k := fileKey{c.folder, c.fileSlot}
		c.fused *= math.Pow(sameFileDecay, float64(taken[k]))
		taken[k]++
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].fused > all[j].fused })
	return all
}

// better orders candidates by fused score, then path and position, so that
// results are deterministic.
func better(a, b *cand) bool {
	if a.fused != b.fused {
		return a.fused > b.fused
	}
	if a.path != b.path {
		return a.path < b.path
	}
	return a.sym.StartByte < b.sym.StartByte
}

// Priors on what kind of file a candidate is in. A change is usually made
// to code, so tests and docs count for less unless the query asks for
// them ("add a test for …", "document …").
const (
	testPrior = 0.6
	docPrior  = 0.6
)

// prior is the multiplier of a candidate's fused score for its file kind.
func (p *plan) prior(relPath, lang string) float64 {
	switch {
	case isTestPath(relPath):
		if p.wantsTests {
			return 1
		}
		return testPrior
	case isDocLanguage(lang):
		if p.wantsDocs {
			return 1
		}
		return docPrior
	}
	return 1
}

// isTestPath reports whether a path is a test by the common conventions.
func isTestPath(relPath string) bool {
	base := path.Base(relPath)
	stem := strings.TrimSuffix(base, path.Ext(base))
	switch {
	case strings.HasSuffix(stem, "_test"), strings.HasSuffix(stem, "_spec"),
		strings.HasPrefix(stem, "test_"),
		strings.HasSuffix(stem, ".test"), strings.HasSuffix(stem, ".spec"),
		strings.HasSuffix(stem, "Test"), strings.HasSuffix(stem, "Tests"):
		return true
	}
	for _, dir := range strings.Split(path.Dir(relPath), "/") {
		switch dir {
		case "test", "tests", "__tests__", "spec", "testdata", "testing":
			return true
		}
	}
	return false
}

func isDocLanguage(lang string) bool {
	return lang == "markdown" || lang == "text"
}

// asksFor reports whether a query is about tests or about documentation.
func asksFor(query string) (tests, docs bool) {
	for _, w := range strings.FieldsFunc(strings.ToLower(query), func(r rune) bool {
		return !(r >= 'a' && r <= 'z')
	}) {
		switch w {
		case "test", "tests", "testing", "spec", "specs", "coverage", "flaky", "benchmark", "fixture", "fixtures":
			tests = true
		case "doc", "docs", "document", "documentation", "readme", "documented", "changelog", "guide", "tutorial", "markdown", "comment", "comments", "explain":
			docs = true
		}
	}
	return tests, docs
}
