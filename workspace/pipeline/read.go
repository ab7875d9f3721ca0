package pipeline

import (
	"bytes"
	"math"
	"sort"

	"github.com/cespare/xxhash/v2"
	"github.com/ctxls/ctxls/heuristics"
	"github.com/ctxls/ctxls/symbolindex"
	"github.com/ctxls/ctxls/symbolindex/parse"
	"github.com/ctxls/ctxls/workspace/snapshot"
)

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
	srcs = map[string][]byte{}
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
		src := s.fileText(c.folder.Index, c.folder.Root, c.path)
		if src == nil {
			continue // unreadable, or changed since it was indexed
		}
		srcs[abs] = src
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
	return ready, texts, prefixes, srcs
}

// fileText is the text of the file rel of the folder root whose index
// is idx, read once a request
// whichever stage asks first: nil when it cannot be read or is not the
// text the index holds (indexedText).
func (s *snap) fileText(idx *symbolindex.Index, root, rel string) []byte {
	key := textKey{idx, rel}
	if src, ok := s.texts[key]; ok {
		return src
	}
	src := s.peekText(idx, root, rel)
	if s.texts == nil {
		s.texts = map[textKey][]byte{}
	}
	s.texts[key] = src
	return src
}

// peekText is the text of rel as fileText reads it, without keeping it
// for the request when no stage read it before: the spelling source reads
// many files it ranks none of.
func (s *snap) peekText(idx *symbolindex.Index, root, rel string) []byte {
	if src, ok := s.texts[textKey{idx, rel}]; ok {
		return src
	}
	src, err := s.ReadText(root, snapshot.JoinRoot(root, rel))
	if err != nil || !indexedText(idx, rel, src) {
		return nil
	}
	return src
}

// indexedText reports whether src is the text the index holds for relPath.
// A file changed on disk is re-indexed when its watched-file event comes;
// until then its items are left out rather than cut from the new text at
// the old offsets.
func indexedText(idx *symbolindex.Index, relPath string, src []byte) bool {
	st, ok := idx.State(relPath)
	return ok && st.Size == int64(len(src)) && st.Hash == xxhash.Sum64(src)
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

// mergeItems orders what the budget is filled from: the required items
// (always rules, named items), the pinned code, then the ranked code and
// the items that came in on their score, by fused score.
func mergeItems(ready []*cand, texts, prefixes []string, pick itemPick) []packEntry {
	out := make([]packEntry, 0, len(ready)+len(pick.required)+len(pick.scored))
	for _, it := range pick.required {
		out = append(out, packEntry{item: it, text: it.Text})
	}
	i := 0
	for ; i < len(ready) && ready[i].reason == ReasonPinned; i++ {
		out = append(out, packEntry{cand: ready[i], text: texts[i], prefix: prefixes[i], rng: ready[i].sym.Range})
	}
	scored := pick.scored
	for ; i < len(ready); i++ {
		for len(scored) > 0 && scored[0].fused > ready[i].fused {
			out = append(out, packEntry{item: scored[0], text: scored[0].Text})
			scored = scored[1:]
		}
		out = append(out, packEntry{cand: ready[i], text: texts[i], prefix: prefixes[i], rng: ready[i].sym.Range})
	}
	for _, it := range scored {
		out = append(out, packEntry{item: it, text: it.Text})
	}
	return out
}

// sharedDoc reports whether a code candidate is documentation held to the
// item share: not when pinned, nor when the query asks for documentation.
func (p *plan) sharedDoc(c *cand) bool {
	return c.cat.Has(heuristics.Docs) && c.reason != ReasonPinned && !p.asks.Docs
}

// A member's type context: the first item of an answer that is a member
// of a class, struct, interface or enum (a method, a nested function)
// carries the type's header (its lines before its first member:
// declaration, docstring, fields, constants) so that the model sees what
// the method belongs to. When the header runs straight into the member,
// the item's text and range simply start at the type; otherwise the text
// starts with the header (cut to heuristics.TypeHeaderChars at a line)
// and an elision marker line, and the range is only the member's lines.

// typeContext is the header of the type enclosing candidate c in src (a
// pinned item is given as asked),
// when c is the first item of that type in the answer (seen records the
// types already given): the prefix to put before c's text, or "" with c
// extended to start at the type when the header runs into c.
func typeContext(c *cand, src []byte, seen map[uint32]bool) (prefix string) {
	if c.slot == noSlot || c.sym.Kind == parse.KindFile || c.head || c.reason == ReasonPinned {
		return ""
	}
	idx := c.folder.Index
	var outer symbolindex.SymbolRef
	outerSlot, found := uint32(0), false
	syms := idx.FileSymbols(c.fileSlot)
	for _, s := range syms {
		ref, ok := idx.Symbol(s)
		if !ok || s == c.slot || !isType(ref.Kind) || !(ref.StartByte <= c.sym.StartByte && c.sym.EndByte <= ref.EndByte) {
			continue
		}
		if !found || ref.EndByte-ref.StartByte < outer.EndByte-outer.StartByte {
			outer, outerSlot, found = ref, s, true
		}
	}
	if !found || seen[outerSlot] || int(outer.EndByte) > len(src) {
		return ""
	}
	seen[outerSlot] = true
	// The header ends before the type's first member (and its doc comment).
	first := outer.EndByte
	for _, s := range syms {
		if ref, ok := idx.Symbol(s); ok && s != outerSlot && outer.StartByte < ref.StartByte && ref.EndByte <= outer.EndByte && ref.StartByte < first {
			first = ref.StartByte
		}
	}
	hs, _ := leadingComments(src, int(first))
	end := len(bytes.TrimRight(src[:hs], " \t\r\n"))
	if end <= int(outer.StartByte) {
		return ""
	}
	from, _ := leadingComments(src, int(outer.StartByte)) // the type's doc comment
	if int(c.sym.StartByte) <= hs {
		// The member follows the header: the item starts at the type.
		c.sym.Range.StartLine -= uint32(bytes.Count(src[from:c.sym.StartByte], []byte{'\n'}))
		c.sym.Range.StartCol = 0
		c.sym.StartByte = uint32(from)
		return ""
	}
	if end-from > heuristics.TypeHeaderChars {
		from = int(outer.StartByte) // a long doc comment gives way to the declaration
	}
	header := src[from:end]
	if len(header) > heuristics.TypeHeaderChars {
		cut := bytes.LastIndexByte(header[:heuristics.TypeHeaderChars], '\n')
		if cut <= 0 {
			return ""
		}
		header = header[:cut]
	}
	headerEnd := outer.Range.StartLine + uint32(bytes.Count(src[outer.StartByte:from+len(header)], []byte{'\n'}))
	elided := int(c.sym.Range.StartLine) - int(headerEnd) - 1
	if elided < 1 {
		return ""
	}
	return string(header) + "\n" + heuristics.ElisionMarker(c.lang, elided) + "\n"
}

func isType(k parse.Kind) bool {
	switch k {
	case parse.KindClass, parse.KindStruct, parse.KindInterface, parse.KindEnum:
		return true
	}
	return false
}

// read reads the texts of the kept candidates (readTexts) and merges them
// with the context items picked (mergeItems): the entries the budget is
// filled from, in order, and the whole texts of their files by absolute
// path.
func (s *snap) read(p *plan, kept []*cand, pick itemPick) ([]packEntry, map[string][]byte) {
	ready, texts, prefixes, srcs := s.readTexts(p, kept)
	return mergeItems(ready, texts, prefixes, pick), srcs
}
