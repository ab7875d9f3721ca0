package pipeline

import (
	"slices"

	"github.com/ctxls/ctxls/heuristics"
	"github.com/ctxls/ctxls/symbolindex/parse"
	"github.com/ctxls/ctxls/symbolindex/tokenize"
	"github.com/ctxls/ctxls/workspace/snapshot"
)

// An item's surroundings. Changes cluster: the lines next to a symbol the
// ranking found are edited with it far more often than lines elsewhere in
// its file (EVAL.md, "Third pass: the lines around the symbols"). So the items of an
// answer hold more than their symbols:
//
//   - the lead (the first ranked symbol outside the active file) takes in
//     its neighbourhood: it is cut or widened to the per-item cap, and
//     windows of the lines below and above it follow, nearest first, as
//     items of their own, up to heuristics.RegionChars in all; they come
//     right after the opening items (focus.go), and the candidates whose
//     lines they hold go;
//   - every other symbol's item of the first heuristics.TailRank-1 files
//     is widened with the lines around it, a line at a time below and
//     above, up to heuristics.ContextChars; the items of the files after
//     them are cut to the lines that match the query, up to
//     heuristics.TailChars, when the limit leaves room after the opening
//     items (heuristics.FocusRoom: at the default limit of 8 every item
//     is widened);
//   - when the answer holds less than min(maxChars, config.DefaultMaxChars) (it
//     ended at the limit, or ran out of candidates), its items are widened
//     further, in order, up to the per-item cap, until it holds that.
//
// No item takes a line another item of the answer holds, and an item's
// range is always exactly the lines its text holds.

// heldSpan is lines first..last of a file that entry owner holds.
type heldSpan struct {
	first, last uint32
	owner       int
}

// surroundings widens the entries of one answer.
type surroundings struct {
	srcs  map[string][]byte // whole texts by absolute path (readTexts)
	files map[string]*fileLines
	held  map[string][]heldSpan // by absolute path
}

func newSurroundings(srcs map[string][]byte) *surroundings {
	return &surroundings{srcs: srcs, files: map[string]*fileLines{}}
}

func (s *surroundings) lines(abs string) *fileLines {
	l := s.files[abs]
	if l == nil {
		src, ok := s.srcs[abs]
		if !ok {
			return nil
		}
		l = newFileLines(src)
		s.files[abs] = l
	}
	return l
}

func entryAbs(e *packEntry) string { return snapshot.JoinRoot(e.cand.folder.Root, e.cand.path) }

// inActive reports whether c is in the active file (in front of the
// user already).
func (p *plan) inActive(c *cand) bool {
	return p.activeAbs != "" && snapshot.JoinRoot(c.folder.Root, c.path) == p.activeAbs
}

// userFile reports whether c is in a file the user chose: pinned, or the
// active one.
func (p *plan) userFile(c *cand) bool { return c.reason == ReasonPinned || p.inActive(c) }

// hold records the lines entry i holds, replacing what it held before.
func (s *surroundings) hold(abs string, first, last uint32, owner int) {
	spans := s.held[abs]
	for k := range spans {
		if spans[k].owner == owner {
			spans[k].first, spans[k].last = first, last
			return
		}
	}
	s.held[abs] = append(spans, heldSpan{first, last, owner})
}

// free reports whether line i of abs is held by no entry but owner.
func (s *surroundings) free(abs string, i uint32, owner int) bool {
	for _, sp := range s.held[abs] {
		if sp.owner != owner && sp.first <= i && i <= sp.last {
			return false
		}
	}
	return true
}

// growable reports whether an entry's text may take in the lines around
// it: a ranked symbol's whole text (a pinned item is given as asked; a
// file head and a whole file have no surroundings; a text over the cap is
// cut, not widened).
func growable(e *packEntry, perItem int) bool {
	c := e.cand
	return c != nil && !e.fixed && !c.head && c.slot != noSlot && c.sym.Kind != parse.KindFile &&
		c.reason != ReasonPinned && len(e.prefix)+len(e.text) <= perItem
}

// grow widens entry e (owner, in the held spans) with free lines below and
// above it, a line at a time on each side, while its text stays within
// limit characters; lines above it only when it has no type header before
// it (whose elision marker counts the lines between). It returns how many
// characters it added.
func (s *surroundings) grow(e *packEntry, owner, limit int) int {
	abs := entryAbs(e)
	l := s.lines(abs)
	if l == nil || e.rng.EndLine >= l.n() {
		return 0
	}
	before := len(e.prefix) + len(e.text)
	a, b := e.rng.StartLine, e.rng.EndLine
	size := len(e.prefix) + l.end(b) - l.starts[a]
	up := e.prefix == ""
	for moved := true; moved; {
		moved = false
		if b+1 < l.n() && s.free(abs, b+1, owner) && size+l.size(b+1) <= limit {
			b++
			size += l.size(b)
			moved = true
		}
		if up && a > 0 && s.free(abs, a-1, owner) && size+l.size(a-1) <= limit {
			a--
			size += l.size(a)
			moved = true
		}
	}
	if a == e.rng.StartLine && b == e.rng.EndLine {
		return 0
	}
	e.text, e.rng = l.text(a, b)
	s.hold(abs, a, b, owner)
	return len(e.prefix) + len(e.text) - before
}

// widen gives the growable entries among the first limit of code the
// lines around them, up to heuristics.ContextChars, in order, and cuts
// those of the lesser files short (shorten); the entries after those hold
// no lines (they are beyond the limit).
func (s *surroundings) widen(p *plan, q *query, entries []packEntry) {
	s.held = map[string][]heldSpan{}
	end, code := len(entries), 0
	for i := range entries {
		if e := &entries[i]; e.cand != nil {
			if code == p.limit {
				end = i
				break
			}
			code++
			s.hold(entryAbs(e), e.rng.StartLine, e.rng.EndLine, i)
		}
	}
	limit := min(heuristics.ContextChars, p.perItem)
	tail := lesserFiles(p, entries[:end])
	for i := range entries[:end] {
		e := &entries[i]
		switch {
		case tail[i]:
			shorten(e, q)
		case growable(e, p.perItem):
			s.grow(e, i, limit)
		}
	}
}

// lesserFiles marks the code entries whose file is the answer's
// heuristics.TailRank-th or later (in the order files first appear, the
// active one not counted), when the limit leaves room after the opening
// items: a short limit is filled by the opening and the lead's
// neighbourhood, and the budget does not bind.
func lesserFiles(p *plan, entries []packEntry) map[int]bool {
	nOpen := 0
	for i := range entries {
		if c := entries[i].cand; c != nil && c.opening {
			nOpen++
		}
	}
	if heuristics.FocusRoom(p.limit, nOpen) <= 0 {
		return nil
	}
	var files []*cand
	out := map[int]bool{}
	for i := range entries {
		c := entries[i].cand
		if c == nil || p.userFile(c) {
			continue
		}
		k := slices.IndexFunc(files, func(o *cand) bool { return sameFile(o, c) })
		if k < 0 {
			k = len(files)
			files = append(files, c)
		}
		if k+1 >= heuristics.TailRank {
			out[i] = true
		}
	}
	return out
}

// shorten cuts a lesser file's entry to the lines of its text that match
// the query best, about heuristics.TailChars (a fifth of it at least,
// before its type header), and keeps it from growing again.
func shorten(e *packEntry, q *query) {
	if e.fixed || e.cut {
		return
	}
	e.fixed = true
	if len(e.prefix)+len(e.text) <= heuristics.TailChars {
		return
	}
	e.cutTo(max(heuristics.TailChars-len(e.prefix), heuristics.TailChars/5), q)
}

// cutTo cuts the entry's text to the lines that match the query best
// within room characters, its range to the lines the text keeps.
func (e *packEntry) cutTo(room int, q *query) {
	ex := excerpt(e.text, room, q, e.cand.lang)
	e.rng, e.text, e.cut = claimedRange(e.rng, ex), ex.Text, ex.Cut
}

// spend widens the packed entries further, in order, up to the per-item
// cap, with the left characters the answer did not use. It reports whether any entry grew.
func (s *surroundings) spend(p *plan, entries []packEntry, packed []heuristics.Packed, left int) bool {
	s.held = map[string][]heldSpan{}
	for _, pk := range packed {
		if e := &entries[pk.Index]; e.cand != nil {
			s.hold(entryAbs(e), e.rng.StartLine, e.rng.EndLine, pk.Index)
		}
	}
	grew := false
	for _, pk := range packed {
		e := &entries[pk.Index]
		if left <= 0 {
			break
		}
		if pk.Truncated || !growable(e, p.perItem) {
			continue
		}
		n := s.grow(e, pk.Index, min(p.perItem, len(e.prefix)+len(e.text)+left))
		left -= n
		grew = grew || n > 0
	}
	return grew
}

// region gives the lead its neighbourhood (see the top of this file) and
// returns the entries with its windows in place. Queries that point at
// the cursor have their own order (deixis.go) and get none; nor do
// requests for some kinds of symbol only, as a window is named after
// whatever symbol it holds.
func (s *surroundings) region(p *plan, q *query, entries []packEntry) []packEntry {
	if p.pointsAtCursor() || p.kinds != nil {
		return entries
	}
	li := leadEntry(p, entries)
	if li < 0 {
		return entries
	}
	lead := &entries[li]
	abs := entryAbs(lead)
	l := s.lines(abs)
	if l == nil || lead.rng.EndLine >= l.n() {
		return entries
	}
	// The region takes no line of a pinned item.
	s.held = map[string][]heldSpan{}
	for i := range entries {
		if e := &entries[i]; e.cand != nil && e.cand.reason == ReasonPinned {
			s.hold(entryAbs(e), e.rng.StartLine, e.rng.EndLine, i)
		}
	}
	if room := p.perItem - len(lead.prefix); len(lead.text) > room {
		// A lead over the cap is cut to the lines that match the query
		// best; its neighbourhood is around them.
		lead.cutTo(room, q)
	} else {
		s.grow(lead, li, p.perItem)
	}
	lead.fixed = true
	at := regionAt(entries, li)
	slots := p.limit
	for _, e := range entries[:at] {
		if e.cand != nil {
			slots--
		}
	}
	a, b, windows := s.windows(p, l, abs, lead, li, slots)
	kept := make([]packEntry, 0, len(entries)+len(windows))
	for i, e := range entries {
		if i == at {
			at = len(kept)
		}
		if i == li || e.cand == nil || e.cand.reason == ReasonPinned || entryAbs(&e) != abs || trim(&e, l, a, b) {
			kept = append(kept, e)
		}
	}
	if at >= len(entries) {
		at = len(kept)
	}
	if len(windows) == 0 {
		return kept
	}
	// The windows take scores between the items around them.
	var prev *cand
	for _, e := range kept[:at] {
		if e.cand != nil {
			prev = e.cand
		}
	}
	var next []*cand
	for _, e := range kept[at:] {
		if e.cand != nil {
			next = append(next, e.cand)
			break
		}
	}
	cands := make([]*cand, len(windows))
	for k := range windows {
		cands[k] = windows[k].cand
	}
	between(cands, prev, next)
	return slices.Concat(kept[:at], windows, kept[at:])
}

// leadEntry is the index of the lead: the first ranked code entry outside
// the active file (the user has it in front of them), if it is a symbol;
// -1 when there is none.
func leadEntry(p *plan, entries []packEntry) int {
	for i := range entries {
		e := &entries[i]
		if e.cand == nil || p.userFile(e.cand) {
			continue
		}
		if e.cand.head || e.cand.slot == noSlot || e.cand.sym.Kind == parse.KindFile {
			return -1
		}
		return i
	}
	return -1
}

// regionAt is where the lead's windows go: after the opening items
// (which span files, focus.go) and after the lead.
func regionAt(entries []packEntry, li int) int {
	at := li + 1
	for i := at; i < len(entries); i++ {
		if c := entries[i].cand; c != nil && c.opening {
			at = i + 1
		}
	}
	return at
}

// windows are the items of the lead's neighbourhood: windows of the lines
// below and above it, nearest first, each up to the per-item cap, until
// they hold heuristics.RegionChars with the lead or there are slots of
// them. It returns them and the lines the region spans, lead included.
func (s *surroundings) windows(p *plan, l *fileLines, abs string, lead *packEntry, li, slots int) (a, b uint32, out []packEntry) {
	a, b = lead.rng.StartLine, lead.rng.EndLine
	used := len(lead.prefix) + len(lead.text)
	var done [2]bool // below, above
	for dir := 1; len(out) < slots && !(done[0] && done[1]); dir = -dir {
		side := (1 - dir) / 2
		if done[side] {
			continue
		}
		left := heuristics.RegionChars - used
		if left < heuristics.MinTruncatedChars {
			break
		}
		from := int(b) + 1
		if dir < 0 {
			from = int(a) - 1
		}
		wa, wb, ok := s.window(l, abs, from, dir, min(p.perItem, left), li)
		if !ok {
			done[side] = true
			continue
		}
		if dir > 0 {
			b = wb
		} else {
			a = wa
		}
		w := windowEntry(lead, l, wa, wb)
		used += len(w.text)
		out = append(out, w)
	}
	return a, b, out
}

// window is the run of free lines from line from going dir (1 down, -1
// up) that holds at most limit characters, ending at a blank line when
// one lies in its last third (where one symbol gives way to the next).
func (s *surroundings) window(l *fileLines, abs string, from, dir, limit, owner int) (a, b uint32, ok bool) {
	size, last, blank := 0, -1, -1
	full := false
	for i := from; i >= 0 && i < int(l.n()); i += dir {
		n := l.size(uint32(i))
		if !s.free(abs, uint32(i), owner) {
			break
		}
		if size+n > limit {
			full = true
			break
		}
		size += n
		last = i
		if heuristics.WindowTail(size, limit) && l.blank(uint32(i)) {
			blank = i
		}
	}
	if last < 0 {
		return 0, 0, false
	}
	if full && blank >= 0 {
		last = blank
	}
	if dir > 0 {
		return uint32(from), uint32(last), true
	}
	return uint32(last), uint32(from), true
}

// windowEntry is the item of lines a..b of the lead's file: named after
// the first symbol that starts in it, or else the innermost one that holds
// it, or else the file. It has its file's evidence, none of its own.
func windowEntry(lead *packEntry, l *fileLines, a, b uint32) packEntry {
	c := *lead.cand
	c.reason, c.hash, c.opening = ReasonExpanded, 0, false
	c.around, c.above = lead.cand.sym.Qualified, b < lead.rng.StartLine
	fileEvidence(&c)
	c.slot, c.sym, c.nameSig = noSlot, parse.Symbol{Kind: parse.KindFile}, 0
	idx := c.folder.Index
	starts, holds := false, false
	for _, slot := range idx.FileSymbols(c.fileSlot) {
		ref, ok := idx.Symbol(slot)
		if !ok || ref.Kind == parse.KindFile {
			continue
		}
		r := ref.Range
		switch {
		case a <= r.StartLine && r.StartLine <= b:
			if !starts || r.StartLine < c.sym.Range.StartLine {
				c.slot, c.sym, starts = slot, ref.Symbol, true
			}
		case !starts && r.StartLine < a && a <= r.EndLine:
			if !holds || r.StartLine >= c.sym.Range.StartLine {
				c.slot, c.sym, holds = slot, ref.Symbol, true
			}
		}
	}
	text, rng := l.text(a, b)
	// Truncated, as items say: it does not hold all of what it is named
	// after.
	cut := c.slot == noSlot && (a > 0 || b+1 < l.n()) || c.slot != noSlot && !rng.Contains(c.sym.Range)
	return packEntry{cand: &c, text: text, rng: rng, fixed: true, cut: cut}
}

// trim cuts entry e of the region's file to its lines outside the region
// a..b (the longer side when the region lies inside it). It reports
// whether anything of e is left.
func trim(e *packEntry, l *fileLines, a, b uint32) bool {
	ea, eb := e.rng.StartLine, e.rng.EndLine
	if eb < a || ea > b {
		return true
	}
	below, above := int(eb)-int(b), int(a)-int(ea)
	switch {
	case below <= 0 && above <= 0:
		return false
	case below >= above:
		ea = b + 1
		e.prefix = "" // its type header no longer leads into it
	default:
		eb = a - 1
	}
	e.text, e.rng = l.text(ea, eb)
	return true
}

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
		if p.userFile(e.cand) ||
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
	c.slot, c.nameSig = noSlot, 0
	c.sym = parse.Symbol{Kind: parse.KindFile, StartByte: uint32(l.starts[a]), EndByte: uint32(l.end(b)), Range: rng}
	return packEntry{cand: &c, text: text, rng: rng, fixed: true, cut: true}, true
}
