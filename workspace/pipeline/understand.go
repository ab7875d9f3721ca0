package pipeline

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/ctxls/ctxls/heuristics"
	"github.com/ctxls/ctxls/heuristics/spelling"
	"github.com/ctxls/ctxls/symbolindex"
	"github.com/ctxls/ctxls/symbolindex/embed"
	"github.com/ctxls/ctxls/symbolindex/parse"
	"github.com/ctxls/ctxls/symbolindex/tokenize"
	"github.com/ctxls/ctxls/workspace/config"
	"github.com/ctxls/ctxls/workspace/glob"
	"github.com/ctxls/ctxls/workspace/history"
	"github.com/ctxls/ctxls/workspace/items"
	"github.com/ctxls/ctxls/workspace/snapshot"
)

// validate checks a request against the snapshot s and fills in its
// defaults.
func validate(s *snapshot.Snapshot, req *SelectRequest) (*plan, error) {
	if strings.TrimSpace(req.Query) == "" {
		return nil, ParamErr("query", "must not be empty")
	}
	p := &plan{req: req, limit: req.Limit, maxChars: req.MaxChars, perItem: req.MaxCharsPerItem}
	if err := p.validateBudget(req, s.Config); err != nil {
		return nil, err
	}
	if err := p.validateTokens(req); err != nil {
		return nil, err
	}
	if req.MinScore < 0 || math.IsNaN(req.MinScore) {
		return nil, ParamErr("minScore", "must not be negative")
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
		_, _, abs, err := s.Resolve(req.Active)
		if err != nil {
			return nil, ParamErr("active", "%v", err)
		}
		p.activeAbs, p.cursor = abs, req.Cursor
	} else if s.Active != "" {
		p.activeAbs, p.cursor = s.Active, s.Cursor
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
		root, rel, _, err := s.Resolve(ref)
		if err != nil {
			return nil, ParamErr(fmt.Sprintf("pinned[%d]", i), "%v", err)
		}
		p.pinned = append(p.pinned, pinRef{root: root, rel: rel})
	}
	if err := p.validateItems(req); err != nil {
		return nil, err
	}
	p.ask(req.Query, req.History)
	if p.deixis == heuristics.NotDeictic && standsIn(req) {
		p.ask(req.History[len(req.History)-1], req.History[:len(req.History)-1])
	}
	return p, nil
}

// ask analyses text as the request's query, with hist the conversation
// before it.
func (p *plan) ask(text string, hist []string) {
	p.text, p.hist = text, hist
	p.query = heuristics.Analyze(text)
	p.asks = heuristics.AsksFor(text)
	p.deixis = heuristics.DeixisOf(p.query)
	if p.deixis == heuristics.DeicticSelf && len(hist) > 0 {
		p.deixis = heuristics.NotDeictic // "fix it" after a conversation points at the conversation
	}
}

// standsIn reports whether the request is a follow-up with no words of its
// own ("ok, now make that change", "do it") after a turn that has some: it
// leans fully on the conversation (its own words match nothing, so
// heuristics.ContextWeight is 1), and it asks what the last turn asked,
// so it is read as that turn, its words, sentences, names and scope the
// request's own, the turns before it the conversation. Read as the request
// with the last turn for history, the filler's own vector diluted the
// turn's, its sentences, scope folder and asks went unread, and it ranked
// the changed file first less often than the turn itself (EVAL.md).
func standsIn(req *SelectRequest) bool {
	n := len(req.History)
	return n > 0 && len(tokenize.QueryTerms(req.Query)) == 0 && len(tokenize.QueryTerms(req.History[n-1])) > 0
}

// validateBudget fills in the limit and the character budgets from cfg
// where the request leaves them at 0, and checks them.
func (p *plan) validateBudget(req *SelectRequest, cfg config.Config) error {
	if p.limit == 0 {
		p.limit = cfg.Limit
	}
	if p.limit < 0 || p.limit > config.MaxLimit {
		return ParamErr("limit", "must be between 1 and %d, got %d", config.MaxLimit, req.Limit)
	}
	if p.maxChars == 0 {
		p.maxChars = cfg.MaxChars
	}
	if p.maxChars < 0 {
		return ParamErr("maxChars", "must not be negative, got %d", req.MaxChars)
	}
	if p.perItem == 0 {
		p.perItem = cfg.MaxCharsPerItem
	}
	if p.perItem < 0 {
		return ParamErr("maxCharsPerItem", "must not be negative, got %d", req.MaxCharsPerItem)
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
			return nil, ParamErr(fmt.Sprintf("kinds[%d]", i), "unknown kind %q (want function, method, class, struct, interface, type, enum, const, var, module or file)", k)
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
		return ParamErr("itemShare", "must be more than 0 and at most 1, got %v", req.ItemShare)
	}
	for k := range req.IncludeItems {
		if !slices.Contains(items.ItemKinds, k) {
			return ParamErr("includeItems", "unknown item kind %q (want %s)", k, strings.Join(items.ItemKinds, ", "))
		}
	}
	for i, name := range req.Items {
		if strings.TrimSpace(name) == "" {
			return ParamErr(fmt.Sprintf("items[%d]", i), "must not be empty")
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
		return nil, ParamErr(field, "%v", err)
	}
	return set, nil
}

// analyse tokenizes the query once into its terms, its sentences'
// terms, and the names and paths it mentions.
func analyse(p *plan) *query {
	q := &query{raw: tokenize.QueryTerms(p.text), seen: map[string]bool{}, release: namesRelease(p.text)}
	if q.release {
		q.versions = heuristics.NamedVersions(releaseLine(p.text))
	}
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
		q.idents = append(q.idents, mention{name: id, w: 1})
	}
	for _, pth := range p.query.Paths {
		q.paths = append(q.paths, mention{name: pth, w: 1})
	}
	if !q.deictic {
		q.words = wordRuns(p.text)
		q.removed = heuristics.RemovedLiterals(p.text)
		q.flags = heuristics.FlagLiterals(p.text)
		q.spell = spelling.Request(p.text)
	}
	return q
}

// addHistory adds the conversation history and embeds the query. History
// counts in proportion to how vague the query is and how weakly it matches
// on its own (bestMatch), newest turns most; names and paths mentioned
// anywhere in the history count as mentions regardless.
func (q *query) addHistory(p *plan, emb embed.Embedder, bestMatch float64) {
	texts := []string{p.text}
	hist := p.hist
	weights := heuristics.HistoryWeights(len(hist), heuristics.DefaultHistoryDecay)
	ctxWeight := 0.0
	if len(hist) > 0 {
		ctxWeight = heuristics.ContextWeight(p.query.Vagueness, bestMatch)
	}
	q.ctxWeight = ctxWeight
	for i, h := range hist {
		hq := heuristics.Analyze(h)
		for _, id := range hq.Identifiers {
			q.idents = append(q.idents, mention{id, weights[i], true})
		}
		for _, pth := range hq.Paths {
			q.paths = append(q.paths, mention{pth, weights[i], true})
		}
		if ctxWeight <= 0 {
			continue
		}
		hw := float32(ctxWeight * weights[i])
		q.release = q.release || namesRelease(h)
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
func (s *snap) ownBestMatch(q *query) float64 {
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
	for _, fv := range s.Folders {
		for _, h := range fv.Index.SearchSymbols(own, heuristics.BestMatchK, nil, buf) {
			best = max(best, int(h.Matched))
		}
	}
	return math.Min(1, float64(best)/float64(len(own)))
}

// wordRuns is text's words (runs of ASCII letters and digits), lowercase,
// wrapped in spaces: one space between two words only spaces part, " | "
// between others ("Adjust rollup config, now": " adjust rollup config |
// now "). A file's dotted name spelt out is looked for in it (spells).
func wordRuns(text string) string {
	out := make([]byte, 0, len(text)+2)
	gap := byte(' ')
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch {
		case 'A' <= c && c <= 'Z':
			c += 'a' - 'A'
		case 'a' <= c && c <= 'z' || '0' <= c && c <= '9':
		case c == ' ':
			continue
		default:
			gap = '|'
			continue
		}
		if i == 0 || !isWordByte(text[i-1]) {
			out = append(out, ' ')
			if gap == '|' && len(out) > 1 {
				out = append(out, "| "...)
			}
			gap = ' '
		}
		out = append(out, c)
	}
	return string(append(out, ' '))
}

// spells reports whether the request spells out a file's name without
// its extension (stem) as its words in a row: the stem's parts split on
// dots, two or more of them, each of two or more letters and digits
// ("rollup config" spells rollup.config, "user service" User.Service).
func (q *query) spells(stem string) bool {
	if q.words == "" || strings.IndexByte(stem, '.') < 0 {
		return false
	}
	part := 0 // the length of the part so far
	for i := 0; i <= len(stem); i++ {
		switch {
		case i == len(stem) || stem[i] == '.':
			if part < 2 {
				return false
			}
			part = 0
		case !isWordByte(stem[i]):
			return false
		default:
			part++
		}
	}
	// At each word of the request, the stem with its dots read as spaces,
	// lowercase, followed by the end of a word.
	for i := 0; i+len(stem)+1 < len(q.words); i++ {
		if q.words[i] == ' ' && spelledAt(q.words[i+1:], stem) {
			return true
		}
	}
	return false
}

// spelledAt reports whether words starts with stem, its dots read as
// spaces and its letters lowercase, and a space after it.
func spelledAt(words, stem string) bool {
	for k := 0; k < len(stem); k++ {
		c := stem[k]
		switch {
		case c == '.':
			c = ' '
		case 'A' <= c && c <= 'Z':
			c += 'a' - 'A'
		}
		if words[k] != c {
			return false
		}
	}
	return words[len(stem)] == ' '
}

func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// platforms are the operating systems a Go file's name restricts it to
// (static_windows.go, terminal_unix.go), by the word a request writes
// for each ("macos" for darwin).
var platforms = map[string][]string{
	"windows": {"windows"}, "unix": {"unix"}, "linux": {"linux"},
	"darwin": {"darwin", "macos"}, "freebsd": {"freebsd"}, "openbsd": {"openbsd"},
	"netbsd": {"netbsd"}, "solaris": {"solaris"}, "wasm": {"wasm", "webassembly"},
}

// namesPlatform reports whether the request writes the platform a file
// built for one platform only is named for (stem "static_windows" and
// "fix failing tests under Windows"): the build constraint is the file's
// name, so the request names the file as a dotted name spelt out would.
func (q *query) namesPlatform(stem string) bool {
	i := strings.LastIndexByte(stem, '_')
	if q.words == "" || i <= 0 {
		return false
	}
	for _, w := range platforms[strings.ToLower(stem[i+1:])] {
		if strings.Contains(q.words, " "+w+" ") {
			return true
		}
	}
	return false
}

// literals are the literals the literal source looks for: those the
// request removes, then those declaring the flags it names.
func (q *query) literals() []string {
	if len(q.flags) == 0 {
		return q.removed
	}
	return append(slices.Clip(q.removed), q.flags...)
}

// flagField reports whether lit is the field form of a flag the request
// names (heuristics.FlagField), which holds only where it declares the
// field (heuristics.IndexLiteral).
func (q *query) flagField(lit string) bool {
	return heuristics.FlagField(lit) && slices.Contains(q.flags, lit)
}

// namesRelease reports whether a request asks for a release: its first
// line names a version (history.NamesVersion). Any version, not only the
// project's release that history marks past subjects by
// (history.NamesRelease): read as releases, "bump werkzeug 2.3.7" and
// "werkzeug 2.3.3 compatibility" find the files past releases touched,
// and a long body's words name no code ("kill-pane", "windows" in
// "Use floating pane instead of popup on tmux 3.7 or above"); the
// narrower reading lost more such cases than it won (EVAL.md,
// release2). A version the body names in passing is a
// detail of the change, not what it asks for: "Use for range for
// integers" with "This uses more idiomatic Go 1.22 style", a proxy fix
// quoting "RFC 9110 §5.3", a benchmark's "+3.5%".
func namesRelease(text string) bool {
	return history.NamesVersion(releaseLine(text))
}
