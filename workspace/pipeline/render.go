package pipeline

import (
	"fmt"
	"math"
	"path"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ctxls/ctxls/heuristics"
	"github.com/ctxls/ctxls/symbolindex/parse"
	"github.com/ctxls/ctxls/symbolindex/tokenize"
	"github.com/ctxls/ctxls/workspace/items"
	"github.com/ctxls/ctxls/workspace/snapshot"
)

// selected turns an item into a result item with its text cut to n bytes.
func (it *contextItem) selected(n int, cut bool) Selected {
	text, trunc := heuristics.TruncateText(it.Text, n)
	sel := Selected{
		ID: it.ID(), Symbol: it.Name, Kind: it.Kind, Language: it.Lang, Text: text, Truncated: trunc || cut,
		Score: itemScore(it.fused), Reason: it.reason, Span: it.Span, StartLineText: it.StartLine, EndLineText: it.EndLine,
	}
	if it.rank > 0 {
		sel.Signals = map[string]Signal{heuristics.SourceNames[heuristics.SrcItem]: {Rank: it.rank, Score: round4(it.score)}}
	}
	if len(it.Paths) > 0 {
		sel.Paths = it.Paths
	}
	if it.Kind == items.ItemRule {
		sel.Path, sel.Abs = it.Paths[0], snapshot.JoinRoot(it.Root, it.Paths[0])
	}
	return sel
}

// build turns the packed entries into items, one per entry, in order, and
// returns them with their texts' total length.
func build(q *query, entries []packEntry, packed []heuristics.Packed, srcs map[string][]byte) ([]Selected, int) {
	items := make([]Selected, 0, len(packed))
	used := 0 // the texts as cut (an excerpt may come out shorter than its share)
	for _, pk := range packed {
		it := buildItem(q, &entries[pk.Index], pk, srcs)
		used += len(it.Text)
		items = append(items, it)
	}
	return items, used
}

// buildItem is the item of one packed entry, its text cut to pk.Len.
func buildItem(q *query, e *packEntry, pk heuristics.Packed, srcs map[string][]byte) Selected {
	if it := e.item; it != nil {
		sel := it.selected(pk.Len, pk.Truncated)
		sel.Why = e.why
		return sel
	}
	c := e.cand
	// A type header goes first when it leaves the member room.
	prefix, room := e.prefix, pk.Len
	if prefix != "" && room-len(prefix) < min(heuristics.MinTruncatedChars, len(e.text)) {
		prefix = ""
	}
	room -= len(prefix)
	ex := excerpt(e.text, room, q, c.lang, ownLiteral(c))
	text := prefix + ex.Text
	src := srcs[snapshot.JoinRoot(c.folder.Root, c.path)]
	r := claimedRange(e.rng, ex)
	it := Selected{
		Abs:           snapshot.JoinRoot(c.folder.Root, c.path),
		Path:          c.path,
		Symbol:        c.sym.Qualified,
		Kind:          c.sym.Kind.String(),
		Language:      c.lang,
		Span:          Span{StartLine: r.StartLine, StartCol: r.StartCol, EndLine: r.EndLine, EndCol: r.EndCol},
		StartLineText: parse.LineAt(src, r.StartLine),
		EndLineText:   parse.LineAt(src, r.EndLine),
		Text:          text,
		Truncated:     ex.Cut || e.cut || c.head, // a file head is never the whole file
		Score:         itemScore(c.fused),
		Reason:        c.reason,
		Signals:       signals(c),
		Strong:        strongOf(c),
		LeadBonus:     itemScore(c.lead),
		Why:           e.why,
	}
	if b := beyond(e, r, prefix); b != "" {
		it.Why += ", with " + b
	}
	it.ID = itemID(c)
	if c.slot == noSlot || c.sym.Kind == parse.KindFile {
		it.Symbol = ""
	} else if sr, ok := r.Intersect(c.sym.Range); ok && sr != r {
		it.SymbolSpan = &Span{StartLine: sr.StartLine, StartCol: sr.StartCol, EndLine: sr.EndLine, EndCol: sr.EndCol}
		it.SymbolStartLineText, it.SymbolEndLineText = parse.LineAt(src, sr.StartLine), parse.LineAt(src, sr.EndLine)
	}
	return it
}

// itemID is the wire id of a candidate: "sym:<path>::<qualified>" or
// "file:<path>".
func itemID(c *cand) string {
	if c.slot == noSlot || c.sym.Kind == parse.KindFile {
		return FormatItemID(c.path, "")
	}
	return FormatItemID(c.path, c.sym.Qualified)
}

func signals(c *cand) map[string]Signal {
	out := make(map[string]Signal, heuristics.NumSources)
	for src := range heuristics.NumSources {
		if c.ranks[src] > 0 {
			out[heuristics.SourceNames[src]] = Signal{Rank: int(c.ranks[src]), Score: round4(float64(c.scores[src]))}
		}
	}
	// A tie's members show the rank the source gave them, not the one
	// whose credit they share.
	for _, t := range c.tied {
		if c.ranks[t.src] > 0 {
			out[heuristics.SourceNames[t.src]] = Signal{Rank: t.tie.First, Score: round4(float64(c.scores[t.src])), TieFiles: t.tie.Files}
		}
	}
	return out
}

func strongOf(c *cand) *Strong {
	if !(c.strong > 0) {
		return nil
	}
	return &Strong{Bonus: itemScore(c.strong), By: c.strongBy}
}

func round4(x float64) float64 { return math.Round(x*1e4) / 1e4 }

// itemScore is an item's score on the wire: its fused score to four
// places, and never 0 for an item that scored above 0 (a long answer's
// last items, decayed within their file, would otherwise read as no match
// at all).
func itemScore(x float64) float64 {
	if x > 0 {
		return max(round4(x), 1e-4)
	}
	return round4(x)
}

// Every item of an answer says why it is there, in one short sentence a
// person reads: the strongest one or two pieces of the evidence that put
// it there, in plain words and without scores ("calls `Run` at
// main.go:12; named in your question: run"). explain words the evidence
// of each entry before packing; render.go adds what the item's lines hold
// beyond its symbol (the lines around it, its type's header) and
// markParts which part of a symbol an item is.

// maxWhyWords is how many of the query's words a reason lists.
const maxWhyWords = 4

// explainer words the evidence of one answer's entries.
type explainer struct {
	s    *snap
	p    *plan
	q    *query
	srcs map[string][]byte // whole texts by absolute path (read.go)
	// own maps the terms of the query to the words the user wrote;
	// earlier the same for the conversation's earlier prompts.
	own, earlier map[string]string
	fileTerms    map[string]map[string]bool // by absolute path
	tok          tokenize.Scratch
}

// explain gives each entry its reason (packEntry.why) and marks the ones
// that have no evidence of their own.
func (s *snap) explain(p *plan, q *query, entries []packEntry, srcs map[string][]byte) {
	x := &explainer{s: s, p: p, q: q, srcs: srcs, own: userWords(p.req.Query), earlier: map[string]string{}, fileTerms: map[string]map[string]bool{}}
	for _, h := range p.req.History {
		for t, w := range userWords(h) {
			if _, ok := x.earlier[t]; !ok {
				x.earlier[t] = w
			}
		}
	}
	for i := range entries {
		e := &entries[i]
		if e.item != nil {
			e.why = itemWhy(e.item)
			continue
		}
		var reasons []string
		reasons, e.weak = x.reasons(e.cand)
		e.why = strings.Join(reasons[:min(2, len(reasons))], "; ")
	}
}

// userWords maps each query term of text to the word the user wrote for
// it, lower-cased: "zsh", "completions" for the terms "zsh", "complet".
func userWords(text string) map[string]string {
	out := map[string]string{}
	for _, w := range strings.FieldsFunc(text, func(r rune) bool {
		return !(r == '_' || r == '.' || r == '-' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= 0x80)
	}) {
		w = strings.Trim(w, ".-")
		// An identifier's parts are words of their own: "parseConfig"
		// matches config.go by "config", not by "parseConfig".
		for _, part := range identParts(w) {
			for _, t := range tokenize.QueryTerms(part) {
				if _, ok := out[t]; !ok {
					out[t] = strings.ToLower(part)
				}
			}
		}
	}
	return out
}

// identParts splits a word at underscores, dots, dashes and lower-to-upper
// case changes: "parseConfig" is "parse", "Config".
func identParts(w string) []string {
	var out []string
	start := 0
	for i := 1; i <= len(w); i++ {
		if i < len(w) && !(w[i] == '_' || w[i] == '.' || w[i] == '-' || w[i] >= 'A' && w[i] <= 'Z' && w[i-1] >= 'a' && w[i-1] <= 'z') {
			continue
		}
		if p := strings.Trim(w[start:i], "_.-"); p != "" {
			out = append(out, p)
		}
		start = i
	}
	return out
}

// matched lists the user's words (from words) whose terms text holds, in
// the order the user wrote them, at most maxWhyWords.
func (x *explainer) matched(words map[string]string, has func(term string) bool) []string {
	var out []string
	for _, t := range x.termOrder(words) {
		if w := words[t]; has(t) && !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	return out[:min(len(out), maxWhyWords)]
}

// termOrder is the terms of words in the order their words come in the
// query (then the history): reasons list the words as the user wrote them.
func (x *explainer) termOrder(words map[string]string) []string {
	ts := make([]string, 0, len(words))
	for t := range words {
		ts = append(ts, t)
	}
	text := strings.ToLower(x.p.req.Query + "\n" + strings.Join(x.p.req.History, "\n"))
	sort.Slice(ts, func(i, j int) bool {
		a, b := strings.Index(text, strings.ToLower(words[ts[i]])), strings.Index(text, strings.ToLower(words[ts[j]]))
		return a < b || a == b && ts[i] < ts[j]
	})
	return ts
}

// termSet is the set of the terms of text that are terms of the question
// or the conversation. Only those are ever looked up (matched), so only
// they are kept: the others cost no allocation.
func (x *explainer) termSet(text string) map[string]bool {
	out := map[string]bool{}
	x.tok.Run(text, tokenize.ModeDoc, func(b []byte) bool {
		if _, ok := x.own[string(b)]; ok {
			out[string(b)] = true
		} else if _, ok := x.earlier[string(b)]; ok {
			out[string(b)] = true
		}
		return true
	})
	return out
}

// reasons are the pieces of evidence for a code candidate, strongest
// first; weak reports that it has none of its own: only a faint likeness
// to the query, or its file's evidence (a window of the lines around
// another item, a file's head, a symbol of a file the query's words are
// in).
func (x *explainer) reasons(c *cand) (out []string, weak bool) {
	abs := snapshot.JoinRoot(c.folder.Root, c.path)
	add := func(r string) {
		if r != "" && !slices.Contains(out, r) {
			out = append(out, r)
		}
	}
	add(x.what(c))
	if c.ranks[heuristics.SrcActive] > 0 {
		add("the code under your cursor")
	}
	if c.ranks[heuristics.SrcGraph] > 0 || c.ranks[heuristics.SrcNeighbour] > 0 {
		add(siteWords(c))
	}
	if c.ranks[heuristics.SrcMention] > 0 || c.ranks[heuristics.SrcFile] > 0 && len(x.q.paths) > 0 {
		add(x.mention(c))
	}
	if c.ranks[heuristics.SrcEdit] > 0 {
		add(x.edited(c, abs))
	}
	if c.ranks[heuristics.SrcLexical] > 0 || c.ranks[heuristics.SrcSentence] > 0 {
		add(x.words(c))
	}
	if c.ranks[heuristics.SrcSibling] > 0 && c.namesake != "" {
		add(c.namesake)
	} else if c.ranks[heuristics.SrcSibling] > 0 && x.p.activeAbs != "" {
		add("named like " + path.Base(x.p.activeAbs) + ", the file you have open, beside it")
	}
	if (c.ranks[heuristics.SrcCoChange] > 0 || c.ranks[heuristics.SrcCoHistory] > 0) && c.coChanged != "" {
		add(c.coChanged)
	}
	for _, h := range holds(c) {
		add(h)
	}
	if c.ranks[heuristics.SrcGone] > 0 && c.gone != "" {
		add(c.gone)
	}
	if c.ranks[heuristics.SrcHistory] > 0 && c.pastChange != "" {
		add("touched by past commits like your question (" + strings.TrimPrefix(c.pastChange, "like ") + ")")
	}
	if c.ranks[heuristics.SrcGraph] > 0 && c.site == nil {
		add(x.linked(c))
	}
	if float64(c.scores[heuristics.SrcSemantic]) >= heuristics.SemanticConfidence {
		add("close in meaning to your question")
	}
	if x.p.activeAbs != "" && abs == x.p.activeAbs && c.ranks[heuristics.SrcActive] == 0 {
		add("in the file you have open")
	}
	// What follows is its file's evidence or a faint likeness, not its
	// own: an answer with low confidence leaves such items out.
	if len(out) == 0 || c.around != "" || c.head || c.outside {
		weak = len(out) == 0 || (c.around != "" || c.head || c.outside) && len(out) == 1
		// A symbol found through its file: the query's words in the file
		// (a query pointing at the cursor has no words that count).
		if ws := x.matched(x.own, x.fileHas(abs)); len(ws) > 0 && !x.q.deictic {
			add("in a file that holds words of your question: " + strings.Join(ws, ", "))
		}
	}
	if len(out) == 0 && c.ranks[heuristics.SrcLocality] > 0 && x.p.activeAbs != "" {
		add("near the file you have open")
	}
	if c.testedBy != "" {
		// Placed by its test, not by evidence of its own: as weak as it
		// was without the words (an off-topic answer still drops it).
		weak = weak || len(out) == 0
		add("the code " + c.testedBy + " tests, placed after it")
	}
	if c.strongBy == StrongVersion && c.strong > 0 {
		// What put it here comes first, and it is no guess: the request
		// names the release, the symbol declares the version it
		// replaces (versionDecls).
		out, weak = slices.Insert(out, 0, "declares the version the release your request names replaces"), false
	}
	if len(out) == 0 {
		return []string{"only loosely like your question"}, true
	}
	return out, weak
}

// siteWords says where c uses, or is used by, the symbol the graph
// sources link it to; "" when they found no call site.
func siteWords(c *cand) string {
	st := c.site
	if st == nil {
		return ""
	}
	if st.user == c.sym.Qualified {
		verb := "uses"
		if st.call {
			verb = "calls"
		}
		return fmt.Sprintf("%s `%s` at %s:%d", verb, st.callee, path.Base(st.path), st.line)
	}
	verb := "used"
	if st.call {
		verb = "called"
	}
	return fmt.Sprintf("%s by `%s` at %s:%d", verb, st.user, path.Base(st.path), st.line)
}

// what says what an item that is not a whole symbol holds: a pin, a
// file's head, its top-level lines, the lines around a symbol; "" for a
// symbol.
func (x *explainer) what(c *cand) string {
	switch {
	case c.reason == ReasonPinned:
		return "pinned"
	case c.head:
		return fmt.Sprintf("the head of %s (what comes before its first symbol)", path.Base(c.path))
	case c.outside:
		what := "top-level lines of " + path.Base(c.path)
		if c.sym.Range.StartLine == 0 || c.sym.EndByte <= x.firstSymbolStart(c) {
			what = "the head of " + path.Base(c.path) + " (imports, top-level lines)"
		}
		terms := x.candTerms(c)
		if ws := x.matched(x.own, func(t string) bool { return terms[t] }); len(ws) > 0 {
			what += " that hold words of your question: " + strings.Join(ws, ", ")
		}
		return what
	case c.around != "":
		side := "below"
		if c.above {
			side = "above"
		}
		return fmt.Sprintf("the lines %s `%s`", side, c.around)
	}
	return ""
}

// mention names what of the candidate the query (or the conversation)
// names: the symbol, its type, or its file.
func (x *explainer) mention(c *cand) string {
	query := strings.ToLower(x.p.req.Query)
	for _, m := range x.q.idents {
		n := m.name
		if i := strings.LastIndexByte(n, '.'); i > 0 && !strings.EqualFold(n, c.sym.Qualified) {
			n = n[i+1:]
		}
		named := strings.EqualFold(n, c.sym.Name) || strings.EqualFold(m.name, c.sym.Qualified)
		member := !named && c.sym.Qualified != "" && strings.HasPrefix(strings.ToLower(c.sym.Qualified), strings.ToLower(m.name)+".")
		if !named && !member {
			continue
		}
		where := "named in your question"
		if !strings.Contains(query, strings.ToLower(m.name)) {
			where = "named earlier in the conversation"
		}
		if member {
			return fmt.Sprintf("a member of `%s`, %s", m.name, where)
		}
		return fmt.Sprintf("%s: `%s`", where, m.name)
	}
	for _, m := range x.q.paths {
		mp := strings.Trim(strings.TrimPrefix(m.name, "./"), "/")
		if mp == "" {
			continue
		}
		if c.path == mp || strings.HasSuffix(c.path, "/"+mp) || strings.HasPrefix(c.path, mp+"/") || strings.Contains(c.path, "/"+mp+"/") ||
			path.Ext(mp) == "" && namesStem(c.path, mp) {
			if strings.Contains(query, strings.ToLower(m.name)) {
				return "in " + m.name + ", which your question names"
			}
			return "in " + m.name + ", named earlier in the conversation"
		}
	}
	return ""
}

// edited says when the user last edited the candidate's symbol.
func (x *explainer) edited(c *cand, abs string) string {
	if c.slot == noSlot {
		return ""
	}
	key := c.folder.Index.LeafKey(c.slot)
	for k, t := range x.s.Edits {
		if k.Abs == abs && k.Key == key {
			return "you edited this " + ago(x.s.Now.Sub(t))
		}
	}
	return ""
}

// ago is a duration in words: "just now", "2 minutes ago", "3 hours ago".
func ago(d time.Duration) string {
	switch {
	case d < time.Minute:
		return "just now"
	case d < 2*time.Minute:
		return "a minute ago"
	case d < time.Hour:
		return fmt.Sprintf("%d minutes ago", int(d/time.Minute))
	case d < 2*time.Hour:
		return "an hour ago"
	case d < 48*time.Hour:
		return fmt.Sprintf("%d hours ago", int(d/time.Hour))
	}
	return fmt.Sprintf("%d days ago", int(d/(24*time.Hour)))
}

// words names the query's words the candidate holds: in its name or path
// first ("named in your question"), else in its text.
func (x *explainer) words(c *cand) string {
	name := x.termSet(c.sym.Qualified + " " + c.path)
	if ws := x.matched(x.own, func(t string) bool { return name[t] }); len(ws) > 0 {
		return "named in your question: " + strings.Join(ws, ", ")
	}
	text := x.candTerms(c)
	if ws := x.matched(x.own, func(t string) bool { return text[t] }); len(ws) > 0 {
		return "holds words of your question: " + strings.Join(ws, ", ")
	}
	if ws := x.matched(x.earlier, func(t string) bool { return name[t] || text[t] }); len(ws) > 0 {
		return "holds words from earlier in the conversation: " + strings.Join(ws, ", ")
	}
	return ""
}

// candTerms are the terms of a candidate's own text.
func (x *explainer) candTerms(c *cand) map[string]bool {
	src := x.srcs[snapshot.JoinRoot(c.folder.Root, c.path)]
	if int(c.sym.EndByte) > len(src) || c.sym.StartByte > c.sym.EndByte {
		return nil
	}
	return x.termSet(string(src[c.sym.StartByte:c.sym.EndByte]))
}

// fileHas reports whether the whole text of file abs holds a term.
func (x *explainer) fileHas(abs string) func(string) bool {
	ts, ok := x.fileTerms[abs]
	if !ok {
		ts = x.termSet(string(x.srcs[abs]))
		x.fileTerms[abs] = ts
	}
	return func(t string) bool { return ts[t] }
}

// linked says how the reference graph ties the candidate's file to the
// files the request works with.
func (x *explainer) linked(c *cand) string {
	if x.p.activeAbs == "" {
		return "linked by references to the files your question names"
	}
	active := snapshot.RelPath(c.folder.Root, x.p.activeAbs)
	for _, fs := range testPartners(c.folder.Index, active) {
		if fs == c.fileSlot {
			if isTestPath(c.path) {
				return "the tests of " + path.Base(active) + ", the file you have open"
			}
			return "the code " + path.Base(active) + " tests"
		}
	}
	return "linked by references to " + path.Base(active) + ", the file you have open"
}

func isTestPath(p string) bool {
	b := strings.ToLower(path.Base(p))
	return strings.Contains(b, "test") || strings.Contains(b, "spec")
}

// itemWhy is the reason of a context item (a rule, a tool, a note).
func itemWhy(it *contextItem) string {
	what := map[string]string{items.ItemRule: "a rule", items.ItemTool: "a tool", items.ItemMemory: "a note", items.ItemDoc: "a document"}[it.Kind]
	if what == "" {
		what = "an item"
	}
	switch it.reason {
	case ReasonAlways:
		if it.Globs != nil {
			return what + " for the files this answer holds"
		}
		return what + " that always applies"
	case ReasonManual:
		return "asked for by name"
	}
	if n := it.Note; n != nil && len(n.Paths) > 0 && it.score >= heuristics.MemoryPathScore {
		return what + " about " + strings.Join(n.Paths[:min(2, len(n.Paths))], ", ")
	}
	return what + " that matches your question"
}

// beyond is what an item's lines hold besides its symbol, for its
// reason: the header of the type it belongs to, and the lines around it
// (naming the symbols they come from). r is the item's range, src its
// file's text.
func beyond(e *packEntry, r parse.Range, prefix string) string {
	c := e.cand
	if c.slot == noSlot || c.sym.Kind == parse.KindFile || c.head || c.around != "" {
		return ""
	}
	var parts []string
	if prefix != "" {
		if i := strings.LastIndexByte(c.sym.Qualified, '.'); i > 0 {
			parts = append(parts, fmt.Sprintf("the header of the type `%s`", c.sym.Qualified[:i]))
		}
	}
	sr := c.sym.Range
	up, down := r.StartLine < sr.StartLine, r.EndLine > sr.EndLine
	if !up && !down {
		return strings.Join(parts, " and ")
	}
	side := "around"
	switch {
	case !down:
		side = "above"
	case !up:
		side = "below"
	}
	lines := "the lines " + side + " it"
	// The symbols those lines come from, when they are not all of it.
	var from []string
	idx := c.folder.Index
	for _, slot := range idx.FileSymbols(c.fileSlot) {
		ref, ok := idx.Symbol(slot)
		if !ok || slot == c.slot || ref.Kind == parse.KindFile || ref.Range.StartLine <= sr.StartLine && sr.EndLine <= ref.Range.EndLine {
			continue // the symbol itself, or one holding it
		}
		o := ref.Range
		above := up && o.StartLine < sr.StartLine && o.EndLine >= r.StartLine
		below := down && o.EndLine > sr.EndLine && o.StartLine <= r.EndLine
		partly := o.StartLine < r.StartLine || o.EndLine > r.EndLine
		if (above || below) && partly && !slices.Contains(from, ref.Qualified) {
			from = append(from, "`"+ref.Qualified+"`")
		}
	}
	if len(from) > 0 {
		lines += ", part of " + strings.Join(from[:min(2, len(from))], " and ")
	}
	return strings.Join(append(parts, lines), " and ")
}

// markParts numbers the items that hold parts of one symbol (they share
// its id: a window of the lead's neighbourhood holding the start of a
// symbol whose own item holds the rest, the parts of a symbol the
// region cut), in the order of their lines, and says so in their
// reasons.
func markParts(items []Selected) {
	byID := map[string][]int{}
	for i := range items {
		if it := &items[i]; it.Symbol != "" && it.Abs != "" {
			byID[it.ID] = append(byID[it.ID], i)
		}
	}
	for _, at := range byID {
		if len(at) < 2 {
			continue
		}
		sort.Slice(at, func(a, b int) bool { return items[at[a]].Span.StartLine < items[at[b]].Span.StartLine })
		for k, i := range at {
			it := &items[i]
			it.Part = &Part{Index: k + 1, Of: len(at)}
			name := it.Symbol[strings.LastIndexByte(it.Symbol, '.')+1:]
			lead := fmt.Sprintf("part %d of %d of `%s` (lines %d-%d)", k+1, len(at), name, it.Span.StartLine+1, it.Span.EndLine+1)
			if it.Why != "" {
				lead += "; " + it.Why
			}
			it.Why = lead
		}
	}
}

// firstSymbolStart is where the first symbol of c's file starts (the end
// of the file when it has none).
func (x *explainer) firstSymbolStart(c *cand) uint32 {
	first := ^uint32(0)
	for _, s := range c.folder.Index.FileSymbols(c.fileSlot) {
		if ref, ok := c.folder.Index.Symbol(s); ok && ref.Kind != parse.KindFile && ref.StartByte < first {
			first = ref.StartByte
		}
	}
	return first
}

// holds says what c, or its file, holds that the literal and spelling
// sources rank it for: a literal the request removes, a misspelled word.
func holds(c *cand) []string {
	var out []string
	if c.ranks[heuristics.SrcLiteral] > 0 && c.literal != "" {
		holds := "its file holds `"
		if c.literalOwn {
			holds = "holds `"
		}
		what := "`, which your request removes or replaces"
		switch {
		case c.literalFlag && heuristics.FlagField(c.literal):
			// A field named like the flag, which may or may not be
			// what declares it.
			what = "`, a field or option named like a flag your request names"
		case c.literalFlag:
			what = "`, declaring a flag your request names"
		}
		out = append(out, holds+shortLiteral(strings.TrimSpace(c.literal))+what)
	}
	if c.ranks[heuristics.SrcSpelling] > 0 && c.spelling != "" {
		holds := "its file holds "
		if c.spellingOwn {
			holds = "holds "
		}
		out = append(out, holds+c.spelling)
	}
	return out
}

// shortLiteral is lit cut to about 60 characters, at a rune, for a why.
func shortLiteral(lit string) string {
	if len(lit) <= 60 {
		return lit
	}
	cut := 57
	for cut > 0 && !utf8.RuneStart(lit[cut]) {
		cut--
	}
	return lit[:cut] + "…"
}
