package pipeline

import (
	"slices"

	"github.com/ctxls/ctxls/heuristics"
	"github.com/ctxls/ctxls/symbolindex/parse"
	"github.com/ctxls/ctxls/symbolindex/tokenize"
)

// Lines outside symbols. A file's lines that no symbol holds (imports,
// module-level statements, registration tables, the body of a function the
// parser does not name) are in an answer only as a file's head or by
// chance in a window, yet a change touches them as often as a symbol's
// lines (EVAL.md, "Lines outside symbols"). So each file among the opening
// items (focus.go) but the active one whose outside lines hold a rare word
// of the query (heuristics.OutsideRarity) gets one item of them: the
// matched lines and the lines around them, up to heuristics.OutsideChars,
// right after the opening items, when the limit leaves room after them
// (heuristics.FocusRoom). It takes no line another item holds.

// outside adds the outside items of the opening files to entries.
func (s *surroundings) outside(p *plan, q *query, entries []packEntry) []packEntry {
	if p.pointsAtCursor() || p.kinds != nil || len(q.terms) == 0 {
		return entries
	}
	s.held = map[string][]heldSpan{}
	code := 0
	for i := range entries {
		if e := &entries[i]; e.cand != nil {
			if code == p.limit {
				break
			}
			code++
			s.hold(entryAbs(e), e.rng.StartLine, e.rng.EndLine, i)
		}
	}
	at, nOpen := -1, 0
	var files []*packEntry
	for i := range entries {
		e := &entries[i]
		if e.cand == nil || !e.cand.opening {
			continue
		}
		at, nOpen = i+1, nOpen+1
		if e.cand.reason == ReasonPinned || p.activeAbs != "" && entryAbs(e) == p.activeAbs ||
			slices.ContainsFunc(files, func(o *packEntry) bool { return sameFile(o.cand, e.cand) }) {
			continue
		}
		files = append(files, e)
	}
	// Like the best files' shares (focus.go), they need a limit that
	// leaves room after the opening: at the default limit of 8 they would
	// take the slots of the lead's neighbourhood.
	if at < 0 || heuristics.FocusRoom(p.limit, nOpen) <= 0 {
		return entries
	}
	var out []packEntry
	for _, f := range files {
		if w, ok := s.outsideEntry(q, f); ok {
			out = append(out, w)
			s.hold(entryAbs(&w), w.rng.StartLine, w.rng.EndLine, -1-len(out))
		}
	}
	if len(out) == 0 {
		return entries
	}
	cands := make([]*cand, len(out))
	for k := range out {
		cands[k] = out[k].cand
	}
	var prev *cand
	for _, e := range entries[:at] {
		if e.cand != nil {
			prev = e.cand
		}
	}
	var next []*cand
	for _, e := range entries[at:] {
		if e.cand != nil {
			next = append(next, e.cand)
			break
		}
	}
	between(cands, prev, next)
	return slices.Concat(entries[:at], out, entries[at:])
}

// outsideEntry is the item of f's file's outside lines that hold the
// query's rarest words, if any does.
func (s *surroundings) outsideEntry(q *query, f *packEntry) (packEntry, bool) {
	abs := entryAbs(f)
	l := s.lines(abs)
	if l == nil || l.n() == 0 {
		return packEntry{}, false
	}
	idx := f.cand.folder.Index
	in := make([]bool, l.n()) // lines some symbol holds, with its doc comment
	for _, slot := range idx.FileSymbols(f.cand.fileSlot) {
		ref, ok := idx.Symbol(slot)
		if !ok || ref.Kind == parse.KindFile || int(ref.StartByte) > len(l.src) {
			continue
		}
		_, doc := leadingComments(l.src, int(ref.StartByte))
		for i := ref.Range.StartLine - min(uint32(doc), ref.Range.StartLine); i <= ref.Range.EndLine && i < l.n(); i++ {
			in[i] = true
		}
	}
	maxIDF := float64(idx.TermIDF(""))
	weight := map[string]float64{}
	for _, t := range q.terms {
		if idf := float64(idx.TermIDF(t.Term)); maxIDF > 0 && idf >= heuristics.OutsideRarity*maxIDF {
			weight[t.Term] += idf * float64(t.Weight)
		}
	}
	if len(weight) == 0 {
		return packEntry{}, false
	}
	free := func(i uint32) bool { return !in[i] && s.free(abs, i, -1) }
	best, bestW := -1, 0.0
	seen := map[string]bool{}
	for i := range l.n() {
		if !free(i) {
			continue
		}
		w := 0.0
		clear(seen)
		tokenize.Terms(string(l.src[l.starts[i]:l.end(i)]), func(t string) {
			if !seen[t] {
				seen[t] = true
				w += weight[t]
			}
		})
		if w > bestW {
			best, bestW = int(i), w
		}
	}
	if best < 0 {
		return packEntry{}, false
	}
	a, b := uint32(best), uint32(best)
	size := l.size(a)
	if size > heuristics.OutsideChars {
		return packEntry{}, false
	}
	for moved := true; moved; {
		moved = false
		if b+1 < l.n() && free(b+1) && size+l.size(b+1) <= heuristics.OutsideChars {
			b++
			size += l.size(b)
			moved = true
		}
		if a > 0 && free(a-1) && size+l.size(a-1) <= heuristics.OutsideChars {
			a--
			size += l.size(a)
			moved = true
		}
	}
	c := *f.cand
	c.reason, c.hash, c.opening, c.head, c.around = ReasonExpanded, 0, false, false, ""
	c.outside = true
	fileEvidence(&c)
	text, rng := l.text(a, b)
	c.slot = noSlot
	c.sym = parse.Symbol{Kind: parse.KindFile, StartByte: uint32(l.starts[a]), EndByte: uint32(l.end(b)), Range: rng}
	return packEntry{cand: &c, text: text, rng: rng, fixed: true, cut: true}, true
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
