package workspace

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/ctxls/ctxls/heuristics"
	"github.com/ctxls/ctxls/symbolindex"
	"github.com/ctxls/ctxls/symbolindex/embed"
	"github.com/ctxls/ctxls/symbolindex/parse"
	"github.com/ctxls/ctxls/symbolindex/tokenize"
	"github.com/ctxls/ctxls/workspace/glob"
	"github.com/ctxls/ctxls/workspace/history"
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

// plan is a validated request.
type plan struct {
	req       *SelectRequest
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
	// tok is the token budget (request.go).
	tok tokenBudget
}

// shareChars is the part of the budget items other than code may take.
func (p *plan) shareChars() int { return int(p.itemShare * float64(p.maxChars)) }

// validate checks a request and fills in its defaults.
func (w *Workspace) validate(req *SelectRequest) (*plan, error) {
	if strings.TrimSpace(req.Query) == "" {
		return nil, paramErr("query", "must not be empty")
	}
	p := &plan{req: req, limit: req.Limit, maxChars: req.MaxChars, perItem: req.MaxCharsPerItem}
	if err := p.validateBudget(req, w.cfg); err != nil {
		return nil, err
	}
	if err := p.validateTokens(req); err != nil {
		return nil, err
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
	if p.kinds, err = kindSet(req.Kinds); err != nil {
		return nil, err
	}
	if req.Active != "" {
		_, _, abs, err := w.resolve(req.Active)
		if err != nil {
			return nil, paramErr("active", "%v", err)
		}
		p.activeAbs, p.cursor = abs, req.Cursor
	} else if w.act.activeAbs != "" {
		p.activeAbs, p.cursor = w.act.activeAbs, w.act.cursor
		if req.Cursor != nil {
			p.cursor = req.Cursor
		}
	}
	for i, ref := range req.Pinned {
		if rel, qualified, ok := ParseItemID(ref); ok {
			p.pinned = append(p.pinned, pinRef{rel: rel, qualified: qualified})
			continue
		} else if IsItemID(ref) {
			continue // "sym:" without "::" names nothing
		}
		f, rel, _, err := w.resolve(ref)
		if err != nil {
			return nil, paramErr(fmt.Sprintf("pinned[%d]", i), "%v", err)
		}
		p.pinned = append(p.pinned, pinRef{root: f.Root, rel: rel})
	}
	if err := p.validateItems(req); err != nil {
		return nil, err
	}
	p.query = heuristics.Analyze(req.Query)
	p.asks = heuristics.AsksFor(req.Query)
	p.deixis = heuristics.DeixisOf(p.query)
	if p.deixis == heuristics.DeicticSelf && len(req.History) > 0 {
		p.deixis = heuristics.NotDeictic // "fix it" after a conversation points at the conversation
	}
	return p, nil
}

// validateBudget fills in the limit and the character budgets from cfg
// where the request leaves them at 0, and checks them.
func (p *plan) validateBudget(req *SelectRequest, cfg Config) error {
	if p.limit == 0 {
		p.limit = cfg.Limit
	}
	if p.limit < 0 || p.limit > MaxLimit {
		return paramErr("limit", "must be between 1 and %d, got %d", MaxLimit, req.Limit)
	}
	if p.maxChars == 0 {
		p.maxChars = cfg.MaxChars
	}
	if p.maxChars < 0 {
		return paramErr("maxChars", "must not be negative, got %d", req.MaxChars)
	}
	if p.perItem == 0 {
		p.perItem = cfg.MaxCharsPerItem
	}
	if p.perItem < 0 {
		return paramErr("maxCharsPerItem", "must not be negative, got %d", req.MaxCharsPerItem)
	}
	return nil
}

// kindSet reads the request's kinds; nil when it names none.
func kindSet(kinds []string) (map[parse.Kind]bool, error) {
	if len(kinds) == 0 {
		return nil, nil
	}
	set := make(map[parse.Kind]bool, len(kinds))
	for i, k := range kinds {
		kind, ok := parse.ParseKind(k)
		if !ok {
			return nil, paramErr(fmt.Sprintf("kinds[%d]", i), "unknown kind %q (want function, method, class, struct, interface, type, enum, const, var, module or file)", k)
		}
		set[kind] = true
	}
	return set, nil
}

// validateItems checks the request's context-item fields and fills in the
// item share's default.
func (p *plan) validateItems(req *SelectRequest) error {
	p.itemShare = req.ItemShare
	if p.itemShare == 0 {
		p.itemShare = heuristics.ItemShare
	}
	if !(p.itemShare > 0 && p.itemShare <= 1) {
		return paramErr("itemShare", "must be more than 0 and at most 1, got %v", req.ItemShare)
	}
	for k := range req.IncludeItems {
		if !slices.Contains(ItemKinds, k) {
			return paramErr("includeItems", "unknown item kind %q (want %s)", k, strings.Join(ItemKinds, ", "))
		}
	}
	for i, name := range req.Items {
		if strings.TrimSpace(name) == "" {
			return paramErr(fmt.Sprintf("items[%d]", i), "must not be empty")
		}
	}
	return nil
}

func compileField(field string, globs []string) (*glob.Set, error) {
	if len(globs) == 0 {
		return nil, nil
	}
	set, err := glob.CompileSet(globs)
	if err != nil {
		return nil, paramErr(field, "%v", err)
	}
	return set, nil
}

// cand is one candidate symbol with the evidence for it.
type cand struct {
	folder   *folderView
	fileSlot uint32
	slot     uint32
	path     string
	lang     string
	cat      heuristics.Category // the file's, from the index
	sym      parse.Symbol
	hash     uint64
	ranks    [heuristics.NumSources]int32
	scores   [heuristics.NumSources]float32
	fused    float64
	reason   string
	// head: a file item of the lines before the file's first symbol
	// (focus.go), not of the whole file.
	head bool
	// opening: one of the first items, which span files (focus.go).
	opening bool
	// evident: something besides a faint likeness points at it (see
	// hasEvidence); an answer nothing matched well keeps only these.
	evident bool
}

// Select answers a contextSelect request: it takes a snapshot of the
// workspace, ranks the symbols of every folder against the query, the
// conversation and the user's activity, fuses the rankings, and packs the
// best into the budget.
func (w *Workspace) Select(ctx context.Context, req *SelectRequest) (*Selection, error) {
	start := time.Now()
	select {
	case w.selecting <- struct{}{}:
		defer func() { <-w.selecting }()
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	w.mu.Lock()
	p, err := w.validate(req)
	var snap *Snapshot
	if err == nil {
		snap = w.snapshotLocked()
	}
	w.mu.Unlock()
	if err != nil {
		return nil, err
	}
	defer snap.Release()
	res, err := snap.selectContext(ctx, p)
	if err != nil {
		return nil, err
	}
	res.Stats.ElapsedMs = float64(time.Since(start).Microseconds()) / 1000
	return res, nil
}

// selectContext is the select pipeline over one snapshot: analyse the
// query, run the sources over each folder and fuse them, order the
// candidates across folders, collapse and pack.
func (s *Snapshot) selectContext(ctx context.Context, p *plan) (*Selection, error) {
	q := analyse(p)
	if !p.req.NoRetrieval {
		best := 0.0
		if len(p.req.History) > 0 {
			best = s.ownBestMatch(q)
		}
		q.addHistory(p, s.emb, best)
	}
	rules, ruleFiles := s.rules()
	res := &Selection{Items: []Selected{}}
	res.Stats.Ready = true
	// A vague follow-up ("fix that") has no terms of its own; the history
	// it continues counts.
	conf := heuristics.ConfidenceInput{QueryTerms: len(q.terms), Unanchored: p.unanchored()}
	var all []*cand
	for _, fv := range s.folders {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if !p.req.NoRetrieval {
			sc := newScope(s, fv, p, q)
			sc.ruleFiles = ruleFiles[fv.Root]
			all = append(all, sc.collect()...)
			sc.release()
			conf.BestLexicalCoverage = math.Max(conf.BestLexicalCoverage, sc.conf.BestLexicalCoverage)
			conf.BestSemantic = math.Max(conf.BestSemantic, sc.conf.BestSemantic)
			conf.Mentions += sc.conf.Mentions
			if sc.deictic() {
				// The symbol under the cursor is what the query names.
				conf.QueryTerms, conf.Mentions = max(conf.QueryTerms, 1), conf.Mentions+1
			}
		}
		res.Stats.Ready = res.Stats.Ready && fv.ready
		res.Stats.Files += fv.idx.Files()
		res.Stats.Symbols += fv.idx.Symbols()
		res.Stats.Reembedded += fv.idx.Reembedded
		if res.Stats.MerkleRoot == "" {
			res.Stats.MerkleRoot = fv.idx.Tree().RootHex()
		}
	}
	res.LowConfidence = heuristics.LowConfidence(conf)
	if res.LowConfidence {
		// Nothing matched well: fewer items, each with some evidence,
		// beat a full budget of faint likenesses.
		all = slices.DeleteFunc(all, func(c *cand) bool { return !c.evident })
	}
	res.Stats.Candidates = len(all)
	res.Stats.Embedder = s.emb.ID()
	res.Stats.Refused = s.refused
	res.Stats.History = s.historyStats()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	byRank := diversify(all)
	pinned := s.pinnedItems(p)
	pick, err := s.pickItems(p, q, rules, leadingPaths(p, pinned, byRank))
	if err != nil {
		return nil, err
	}
	if err := p.loadEncoding(); err != nil {
		return nil, err
	}
	res.Items, res.UsedChars = s.pack(p, q, pinned, byRank, pick)
	res.UsedTokens, res.TokenEncoding = p.usedTokens(res.Items)
	return res, nil
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
	// sentences are the sub-queries of a query of several sentences.
	sentences [][]symbolindex.QueryTerm
	// release: the request (or the history it continues) names a version
	// number, as a release commit does (history.NamesVersion).
	release bool
	// deictic: the query points at the code under the cursor; its own
	// words are not searched for (deixis.go).
	deictic bool
}

// mention is an identifier or a path the query or its history names,
// with the weight of the turn that names it.
type mention struct {
	name string
	w    float64
}

// analyse tokenizes the query once into its terms, its sentences'
// terms, and the names and paths it mentions.
func analyse(p *plan) *query {
	q := &query{raw: tokenize.QueryTerms(p.req.Query), seen: map[string]bool{}, release: history.NamesVersion(p.req.Query)}
	if p.pointsAtCursor() {
		// "who calls this", "explain this code": the words say what to
		// do with the code under the cursor, not what to look for.
		q.raw, q.deictic = nil, true
	}
	for _, t := range q.raw {
		if !q.seen[t] {
			q.seen[t] = true
			q.own = append(q.own, symbolindex.QueryTerm{Term: t, Weight: 1})
		}
	}
	q.terms = append(q.terms, q.own...)
	if sents := p.query.Sentences; len(sents) > 1 && !q.deictic {
		for _, sent := range sents[:min(len(sents), heuristics.MaxSentences)] {
			var st []symbolindex.QueryTerm
			for _, t := range tokenize.QueryTerms(sent) {
				st = append(st, symbolindex.QueryTerm{Term: t, Weight: 1})
			}
			if len(st) > 0 {
				q.sentences = append(q.sentences, st)
			}
		}
	}
	for _, id := range p.query.Identifiers {
		q.idents = append(q.idents, mention{id, 1})
	}
	for _, pth := range p.query.Paths {
		q.paths = append(q.paths, mention{pth, 1})
	}
	return q
}

// addHistory adds the conversation history and embeds the query. History
// counts in proportion to how vague the query is and how weakly it matches
// on its own (bestMatch), newest turns most; names and paths mentioned
// anywhere in the history count as mentions regardless.
func (q *query) addHistory(p *plan, emb embed.Embedder, bestMatch float64) {
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
			q.idents = append(q.idents, mention{id, weights[i]})
		}
		for _, pth := range hq.Paths {
			q.paths = append(q.paths, mention{pth, weights[i]})
		}
		if ctxWeight <= 0 {
			continue
		}
		hw := float32(ctxWeight * weights[i])
		q.release = q.release || history.NamesVersion(h)
		for _, t := range tokenize.QueryTerms(h) {
			if !q.seen[t] {
				q.seen[t] = true
				q.terms = append(q.terms, symbolindex.QueryTerm{Term: t, Weight: hw})
			}
		}
		texts = append(texts, h)
	}
	if q.deictic {
		texts = texts[1:]
	}
	if len(texts) == 0 {
		return
	}
	vecs, err := emb.Embed(texts)
	if err != nil || len(vecs) == 0 {
		return
	}
	first, off := 1, 1
	if q.deictic {
		first, off = 0, 0
		q.vec = make([]float32, len(vecs[0]))
	} else {
		q.vec = append([]float32(nil), vecs[0]...)
	}
	for i := first; i < len(vecs); i++ {
		hw := float32(ctxWeight * weights[i-off])
		for j, x := range vecs[i] {
			q.vec[j] += hw * x
		}
	}
	embed.Normalize(q.vec)
}

// ownBestMatch is how well the query alone matches: the share of its own
// terms that its best lexical hit contains, over all folders. It gates how
// much the conversation history may add.
func (s *Snapshot) ownBestMatch(q *query) float64 {
	if len(q.raw) == 0 {
		return 0
	}
	own := make([]symbolindex.QueryTerm, len(q.raw))
	for i, t := range q.raw {
		own[i] = symbolindex.QueryTerm{Term: t, Weight: 1}
	}
	best := 0
	buf := searchBufs.Get().(*symbolindex.SearchBuffer)
	defer searchBufs.Put(buf)
	for _, fv := range s.folders {
		for _, h := range fv.idx.SearchSymbols(own, heuristics.BestMatchK, nil, buf) {
			best = max(best, int(h.Matched))
		}
	}
	return math.Min(1, float64(best)/float64(len(own)))
}

// collect runs every source over the scope's folder and fuses their lists
// into scored candidates.
func (s *scope) collect() []*cand {
	cands := map[uint32]*cand{}
	var fileLists [heuristics.NumSources][]scoredFile
	for _, src := range sources {
		r := src.run(s)
		fileLists[src.src] = r.files
		for _, h := range r.syms {
			if c := s.cand(cands, h.slot); c != nil {
				c.ranks[src.src], c.scores[src.src] = h.rank, h.score
				if src.src == heuristics.SrcActive {
					c.reason = ReasonActive
				}
			}
		}
	}
	fileScore := s.fuseFiles(&fileLists)
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
		if i < heuristics.TopFiles {
			for _, slot := range s.idx.FileSymbols(fs) {
				s.cand(cands, slot)
			}
		}
	}
	onlyRanks := fileOnlyRanks(&fileLists)
	evident := evidentFiles(&fileLists)
	out := make([]*cand, 0, len(cands))
	for _, c := range cands {
		c.evident = evident[c.fileSlot] || c.hasEvidence()
		if r, ok := fileRank[c.fileSlot]; ok {
			c.ranks[heuristics.SrcFile] = r
			c.scores[heuristics.SrcFile] = float32(fileScore[c.fileSlot])
		}
		for src, ranks := range onlyRanks {
			if r, ok := ranks[c.fileSlot]; ok {
				c.ranks[src], c.scores[src] = r.rank, r.score
			}
		}
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

// cand returns the candidate for a symbol slot, making it on first sight;
// nil when the request's filters reject the symbol.
func (s *scope) cand(cands map[uint32]*cand, slot uint32) *cand {
	if c, ok := cands[slot]; ok {
		return c
	}
	ref, ok := s.idx.Symbol(slot)
	if !ok || !s.p.accepts(ref.Path, ref.Kind) || s.ruleFiles[ref.Path] || ref.Category.Has(heuristics.Docs) && !s.p.itemKind(ItemDoc) {
		return nil
	}
	c := &cand{folder: s.fv, fileSlot: ref.File, slot: slot, path: ref.Path, lang: ref.Language, cat: ref.Category, sym: ref.Symbol, hash: s.idx.LeafHash(slot)}
	cands[slot] = c
	return c
}

// fuseFiles fuses the file-level lists into one score per file: each
// source's ranks, then nearness to the active file as a prior, then the
// reference graph.
func (s *scope) fuseFiles(lists *[heuristics.NumSources][]scoredFile) map[uint32]float64 {
	fileScore := map[uint32]float64{}
	add := func(src heuristics.Source) {
		list := lists[src]
		for i, r := range heuristics.CompetitionRanks(list, fileScoreOf) {
			fileScore[list[i].slot] += heuristics.RRF(heuristics.Weights[src], r)
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
			fileScore[fs] += heuristics.LocalityPrior(locality(s.activeRel, s.idx.FilePath(fs)))
		}
	}
	add(heuristics.SrcGraph)
	return fileScore
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
	deictic := s.deictic()
	var here *cand
	best := 0.0
	for _, c := range cs {
		c.fused = heuristics.FuseRanks(&c.ranks, float64(c.scores[heuristics.SrcLocality]))
		if deictic {
			c.fused += (heuristics.DeicticBoost - 1) * heuristics.RRF(heuristics.Weights[heuristics.SrcGraph], int(c.ranks[heuristics.SrcGraph]))
			if c.ranks[heuristics.SrcActive] == 1 {
				here = c
			}
		}
		if !partners[c.fileSlot] {
			c.fused *= s.p.asks.Prior(c.cat)
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
		here.fused = max(here.fused, best+heuristics.RRF(heuristics.Weights[heuristics.SrcActive], 1))
	}
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

// ownCoverage is the share of the query's own terms that the best lexical
// hit matched.
func ownCoverage(lex []symbolindex.Hit, q *query) float64 {
	best := 0
	for _, h := range lex[:min(len(lex), heuristics.BestMatchK)] {
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

func fileScoreOf(sf scoredFile) float64 { return sf.score }

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

// diversify orders candidates by fused score, lowering each further item
// from a file that already has one (the j-th best item of a file is scaled
// by heuristics.SameFileDecay^j), so that the first items span files. Because each
// file's scaled scores still fall with j, sorting by the scaled score is the
// same as greedily taking the best remaining item each time.
func diversify(all []*cand) []*cand {
	sort.Slice(all, func(i, j int) bool { return better(all[i], all[j]) })
	type fileKey struct {
		f  *folderView
		fs uint32
	}
	taken := map[fileKey]int{}
	for _, c := range all {
		k := fileKey{c.folder, c.fileSlot}
		c.fused *= math.Pow(heuristics.SameFileDecay, float64(taken[k]))
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

// unanchored: the query only points ("make it better") and the request
// gives it nothing to point at (heuristics.ConfidenceInput.Unanchored).
func (p *plan) unanchored() bool {
	return len(p.req.History) == 0 && p.activeAbs == "" && len(p.pinned) == 0 && heuristics.PointsBack(p.query)
}

// pointsAtCursor reports whether the query points at the code under a
// cursor the request has.
func (p *plan) pointsAtCursor() bool {
	return p.deixis != heuristics.NotDeictic && p.cursor != nil && p.activeAbs != ""
}
