package pipeline

import (
	"bytes"
	"math"
	"sort"
	"strings"

	"github.com/cespare/xxhash/v2"

	"github.com/ctxls/ctxls/heuristics"
	"github.com/ctxls/ctxls/symbolindex"
	"github.com/ctxls/ctxls/symbolindex/parse"
	"github.com/ctxls/ctxls/symbolindex/tokenize"
	"github.com/ctxls/ctxls/workspace/config"
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

// pinRef is a pinned file or item id: a path in one folder (root) or, for
// an id, in any folder (root ""), and the qualified name of a symbol in it.
type pinRef struct {
	root, rel, qualified string
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
			c.slot, c.sym, c.hash = s, ref.Symbol, f.Index.LeafHash(s)
			return c
		}
	}
	return nil
}

const noSlot = ^uint32(0)

// pack turns ranked candidates into items: pinned ones first, overlapping
// ranges collapsed to the tighter unit, identical bodies to one, texts read
// and capped, merged with the context items (items.go), and the whole
// fitted into the character budget.
func (s *snap) pack(p *plan, q *query, pinned, byRank []*cand, pick itemPick) ([]Selected, int) {
	// The best file's share first (focus.go); then candidates below
	// minScore go; pinned items always stay.
	list := make([]*cand, 0, len(pinned)+len(byRank)+1)
	list = append(list, pinned...)
	for _, c := range focus(p, q, byRank) {
		if c.fused >= p.req.MinScore {
			list = append(list, c)
		}
	}
	// Collapse over a window a few times the limit: enough to fill it
	// (heuristics.CollapseWindow).
	kept := collapseWindow(list[:min(len(list), heuristics.CollapseWindow(p.limit)+len(pinned))], len(pinned))
	ready, texts, prefixes, srcs := s.readTexts(p, kept)
	return s.items(p, q, mergeItems(ready, texts, prefixes, pick), srcs)
}

// collapseWindow collapses the overlapping and identical candidates of
// window (whose first nPinned are pinned); see collapseRanked.
func collapseWindow(window []*cand, nPinned int) []*cand {
	fileIDs := map[*snapshot.Folder]uint32{}
	spans := make([]heuristics.Span, len(window))
	for i, c := range window {
		fid, ok := fileIDs[c.folder]
		if !ok {
			fid = uint32(len(fileIDs)) << 24
			fileIDs[c.folder] = fid
		}
		end := c.sym.Range.EndLine
		if c.sym.Kind == parse.KindFile && c.sym.Range == (parse.Range{}) {
			end = math.MaxUint32
		}
		spans[i] = heuristics.Span{File: fid | c.fileSlot, StartLine: c.sym.Range.StartLine, EndLine: end, BodyHash: c.hash}
	}
	return collapseRanked(window, spans, nPinned)
}

// readTexts reads the texts of the first candidates, as many as could fit
// (heuristics.ReadLimit: the lead's neighbourhood may hold some of them,
// surround.go), skipping a repeated id and a slice the file no longer
// holds. srcs are the whole texts of their files, by absolute path.
func (s *snap) readTexts(p *plan, kept []*cand) (ready []*cand, texts, prefixes []string, srcs map[string][]byte) {
	texts = make([]string, 0, len(kept))
	prefixes = make([]string, 0, len(kept))
	types := map[*snapshot.Folder]map[uint32]bool{}
	ready = make([]*cand, 0, len(kept))
	cache := map[string][]byte{}
	stale := map[string]bool{} // unreadable, or changed since it was indexed
	seenID := map[string]bool{}
	counted := 0 // documentation held to the item share does not count: code may take its place
	for _, c := range kept {
		if counted >= heuristics.ReadLimit(p.limit) {
			break
		}
		// Overloads (TypeScript signatures, Java constructors) share a
		// qualified name and so an id; the first, best-ranked one stands
		// for them all.
		if id := itemID(c); seenID[id] {
			continue
		} else {
			seenID[id] = true
		}
		abs := snapshot.JoinRoot(c.folder.Root, c.path)
		if stale[abs] {
			continue
		}
		src, ok := cache[abs]
		if !ok {
			b, err := s.ReadText(c.folder.Root, abs)
			if err != nil || !indexedText(c.folder.Index, c.path, b) {
				stale[abs] = true
				continue
			}
			src = b
			cache[abs] = src
		}
		switch {
		case c.head:
			// The head ends above the first symbol's doc comment, which
			// is the symbol's.
			hs, _ := leadingComments(src, min(int(c.sym.EndByte), len(src)))
			end := len(bytes.TrimRight(src[:hs], " \t\r\n"))
			if end == 0 {
				continue
			}
			c.sym.EndByte = uint32(end)
			c.sym.Range = parse.EndRange(src[:end])
		case c.slot == noSlot:
			c.sym.EndByte = uint32(len(src))
			c.sym.Range = parse.EndRange(src)
		}
		start, end := int(c.sym.StartByte), int(c.sym.EndByte)
		if end > len(src) || start > end {
			continue // the file changed under the index; skip the stale slice
		}
		if c.slot != noSlot && c.sym.Kind != parse.KindFile {
			if ds, n := leadingComments(src, start); n > 0 {
				start = ds
				c.sym.StartByte, c.sym.Range.StartLine, c.sym.Range.StartCol = uint32(ds), c.sym.Range.StartLine-uint32(n), 0
			}
		}
		if types[c.folder] == nil {
			types[c.folder] = map[uint32]bool{}
		}
		prefixes = append(prefixes, typeContext(c, src, types[c.folder]))
		texts = append(texts, string(src[c.sym.StartByte:end]))
		ready = append(ready, c)
		if !p.sharedDoc(c) {
			counted++
		}
	}
	return ready, texts, prefixes, cache
}

// indexedText reports whether src is the text the index holds for relPath.
// A file changed on disk is re-indexed when its watched-file event comes;
// until then its items are left out rather than cut from the new text at
// the old offsets.
func indexedText(idx *symbolindex.Index, relPath string, src []byte) bool {
	st, ok := idx.State(relPath)
	return ok && st.Size == int64(len(src)) && st.Hash == xxhash.Sum64(src)
}

// items fits the entries into the budget, items other than code within
// their share, and turns them into items, in order. Code items take in
// their surroundings first (surround.go). A code text over its share is
// cut to an excerpt that keeps the lines matching the query
// (heuristics.ExcerptOf), and the item's range is exactly the lines its
// text holds after any elision marker.
func (s *snap) items(p *plan, q *query, entries []packEntry, srcs map[string][]byte) ([]Selected, int) {
	sur := newSurroundings(srcs)
	entries = sur.region(p, q, entries)
	sur.widen(p, entries)
	if p.tok.max > 0 {
		return fitTokens(p, q, sur, entries, srcs)
	}
	packed := packSpend(p, sur, entries)
	return build(q, entries, packed, srcs)
}

// packSpend packs the entries into the character budget, then spends what
// the answer left on widening them (surround.go) and packs again.
func packSpend(p *plan, sur *surroundings, entries []packEntry) []heuristics.Packed {
	packed, packedChars := packEntries(p, entries)
	if left := min(p.maxChars, config.DefaultMaxChars) - packedChars; left > 0 && sur.spend(p, entries, packed, left) {
		packed, _ = packEntries(p, entries)
	}
	return packed
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
		return it.selected(pk.Len, pk.Truncated)
	}
	c := e.cand
	// A type header goes first when it leaves the member room.
	prefix, room := e.prefix, pk.Len
	if prefix != "" && room-len(prefix) < min(heuristics.MinTruncatedChars, len(e.text)) {
		prefix = ""
	}
	room -= len(prefix)
	ex := excerpt(e.text, room, q, c.lang)
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
		Score:         round4(c.fused),
		Reason:        c.reason,
		Signals:       signals(c),
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

// packEntries decides which entries fill the budget and how much of each.
func packEntries(p *plan, entries []packEntry) ([]heuristics.Packed, int) {
	in := make([]heuristics.PackItem, len(entries))
	for i, e := range entries {
		in[i] = e.packItem(p)
	}
	return heuristics.PackShare(in, p.limit, p.maxChars, p.perItem, p.shareChars())
}

// collapseRanked collapses overlapping and identical candidates of window
// (whose first nPinned are pinned) and returns the ones to keep, best first.
// Pinned candidates always stay; a ranked one that overlaps a pinned one is
// dropped, as the pinned text already holds it. A ranked candidate that
// Collapse moved up in place of a looser one it overlaps inherits that
// one's score, so items stay sorted by score, and its place among the
// opening items (focus.go); only the first to take a looser one's place
// does (a class ranked second yields its best method second, not all its
// methods at the class's score).
func collapseRanked(window []*cand, spans []heuristics.Span, nPinned int) []*cand {
	kept := make([]*cand, 0, len(window))
	type pinKey struct {
		f          *snapshot.Folder
		file, slot uint32
	}
	seen := make(map[pinKey]bool, nPinned)
	for _, c := range window[:nPinned] {
		k := pinKey{c.folder, c.fileSlot, c.slot}
		if !seen[k] {
			seen[k] = true
			kept = append(kept, c)
		}
	}
	unpinned := spans[nPinned:]
	keep := heuristics.Collapse(unpinned)
	isKept := make([]bool, len(unpinned))
	for _, i := range keep {
		isKept[i] = true
	}
	start := len(kept)
	inherited := make([]bool, len(unpinned))
	for _, i := range keep {
		s := unpinned[i]
		if spanOverlapsAny(s, spans[:nPinned]) {
			continue
		}
		c := window[nPinned+i]
		for j := 0; j < i; j++ {
			if !isKept[j] && !inherited[j] && unpinned[j].Overlaps(s) {
				c.fused = math.Max(c.fused, window[nPinned+j].fused)
				c.opening = c.opening || window[nPinned+j].opening
				inherited[j] = true
			}
		}
		kept = append(kept, c)
	}
	rest := kept[start:]
	sort.SliceStable(rest, func(i, j int) bool { return rest[i].fused > rest[j].fused })
	return kept
}

func spanOverlapsAny(s heuristics.Span, others []heuristics.Span) bool {
	for _, o := range others {
		if s.Overlaps(o) {
			return true
		}
	}
	return false
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
	return out
}

func round4(x float64) float64 { return math.Round(x*1e4) / 1e4 }

// excerpt cuts a candidate's text to n bytes, keeping the lines that
// match the query's terms (each line weighs the summed weights of the
// distinct terms it holds).
func excerpt(text string, n int, q *query, lang string) heuristics.Excerpt {
	var hits []float64
	if len(text) > n && q != nil && len(q.terms) > 0 {
		weight := make(map[string]float64, len(q.terms))
		for _, t := range q.terms {
			weight[t.Term] = float64(t.Weight)
		}
		seen := map[string]bool{}
		for line := range strings.SplitAfterSeq(text, "\n") {
			w := 0.0
			clear(seen)
			tokenize.Terms(line, func(term string) {
				if !seen[term] {
					seen[term] = true
					w += weight[term]
				}
			})
			hits = append(hits, w)
		}
	}
	return heuristics.ExcerptOf(text, n, hits, func(k int) string { return heuristics.ElisionMarker(lang, k) })
}

// claimedRange is the part of a symbol's range r that an excerpt of its
// text claims.
func claimedRange(r parse.Range, ex heuristics.Excerpt) parse.Range {
	if !ex.Cut {
		return r
	}
	out := parse.Range{StartLine: r.StartLine + uint32(ex.First), EndLine: r.StartLine + uint32(ex.Last)}
	if ex.First == 0 {
		out.StartCol = r.StartCol
	}
	last := ex.Text[strings.LastIndexByte(ex.Text, '\n')+1:]
	out.EndCol = uint32(len(last))
	if ex.Last == 0 {
		out.EndCol += r.StartCol
	}
	return out
}

// leadingComments finds the comment, attribute and decorator lines right
// above a symbol that starts at byte start (its doc comment, which the
// parser leaves out of the symbol's range): the byte its item's text then
// starts at (the beginning of the first such line) and how many lines it
// adds. A blank line ends them; so does anything that is not a whole
// comment line, so that no item claims another symbol's lines.
func leadingComments(src []byte, start int) (int, int) {
	ls := bytes.LastIndexByte(src[:start], '\n') + 1
	if len(bytes.TrimLeft(src[ls:start], " \t")) != 0 {
		return start, 0 // something precedes the symbol on its line
	}
	n := 0
	for ls > 0 && n < heuristics.MaxLeadingComments {
		prev := bytes.LastIndexByte(src[:ls-1], '\n') + 1
		line := bytes.TrimSpace(src[prev : ls-1])
		if !isCommentLine(line) {
			break
		}
		ls = prev
		n++
	}
	if n == 0 {
		return start, 0
	}
	return ls, n
}

// isCommentLine reports whether a trimmed line is a comment, an attribute
// or a decorator in one of the indexed languages.
func isCommentLine(line []byte) bool {
	for _, p := range []string{"//", "#", "/*", "*", "@", "--", ";"} {
		if bytes.HasPrefix(line, []byte(p)) {
			return !bytes.HasPrefix(line, []byte("#include")) && !bytes.HasPrefix(line, []byte("#define"))
		}
	}
	return false
}
