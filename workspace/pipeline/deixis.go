package pipeline

import (
	"slices"
	"sort"
	"strings"

	"github.com/ctxls/ctxls/heuristics"
	"github.com/ctxls/ctxls/symbolindex"
	"github.com/ctxls/ctxls/symbolindex/parse"
)

// Queries that point at the code under the cursor ("who calls this",
// "explain this code") are answered from the reference graph of the
// symbol there: the cursor source ranks the symbol itself, the graph
// source its callers (every symbol of the folder whose body uses its
// name, found through the folder's reference index) or its callees (the
// definitions of the names its body uses), and both weigh
// heuristics.DeicticBoost times as much.

// cursorSlot is the innermost symbol under the cursor in the active file,
// found once per scope (the cursor source, deixis and its graph ask).
func (s *scope) cursorSlot() (uint32, bool) {
	if !s.cursor.done {
		s.cursor.done = true
		s.cursor.slot, s.cursor.ok = s.findCursorSlot()
	}
	return s.cursor.slot, s.cursor.ok
}

func (s *scope) findCursorSlot() (uint32, bool) {
	if s.activeRel == "" || s.p.cursor == nil {
		return 0, false
	}
	fs, ok := s.idx.FileSlot(s.activeRel)
	if !ok {
		return 0, false
	}
	// A file's symbols come outer before inner: the last to hold the
	// cursor's line is the innermost.
	best, found := uint32(0), false
	for _, slot := range s.idx.FileSymbols(fs) {
		ref, _ := s.idx.Symbol(slot)
		if ref.Range.StartLine <= s.p.cursor.Line && s.p.cursor.Line <= ref.Range.EndLine {
			best, found = slot, true
		}
	}
	return best, found
}

// deictic reports whether the request points at a symbol under the cursor.
func (s *scope) deictic() bool {
	if s.p.deixis == heuristics.NotDeictic {
		return false
	}
	_, ok := s.cursorSlot()
	return ok
}

// deicticSymbols are the callers or the callees of the symbol under the
// cursor, as the query asks, ranked.
func (s *scope) deicticSymbols() []symRank {
	slot, ok := s.cursorSlot()
	if !ok {
		return nil
	}
	switch s.p.deixis {
	case heuristics.DeicticCallers:
		return s.callers(slot)
	case heuristics.DeicticCallees:
		return s.callees(slot)
	}
	return nil
}

// text is the indexed text of one of the folder's files, or nil; each
// file is read once a select (snap.fileText).
func (s *scope) text(fs uint32) []byte {
	return s.snap.fileText(s.idx, s.fv.Root, s.idx.FilePath(fs))
}

// callers ranks the symbols whose bodies use the name of symbol target,
// most uses first: each use counts for the innermost symbol holding it.
// The files come from the folder's reference index, so callers anywhere
// in the workspace are found.
func (s *scope) callers(target uint32) []symRank {
	ref, ok := s.idx.Symbol(target)
	// The reference index holds names of GraphMinName characters or more.
	if !ok || len(ref.Name) < heuristics.GraphMinName {
		return nil
	}
	name := ref.Name
	// The reference index leaves out the names a file defines, so the
	// target's own file, where callers often are, is read first.
	files := s.idx.Referencing(name)
	if !slices.Contains(files, ref.File) {
		files = append([]uint32{ref.File}, files...)
	}
	if len(files) > heuristics.DeicticMaxFiles {
		files = files[:heuristics.DeicticMaxFiles]
	}
	uses := map[uint32]int{}
	for _, fs := range files {
		src := s.text(fs)
		if src == nil {
			continue
		}
		syms := s.idx.FileSymbols(fs)
		for _, at := range wordIndexes(src, name) {
			if in, ok := innermost(s.idx, syms, uint32(at)); ok && in != target && !encloses(s.idx, in, target) {
				uses[in]++
				if uses[in] == 1 {
					s.recordSite(in, callSite{user: s.qualified(in), path: s.idx.FilePath(fs), line: lineOf(src, at), callee: ref.Qualified, call: true})
				}
			}
		}
	}
	return rankCounts(s, uses)
}

// callees ranks the definitions of the names the body of symbol target
// uses, in the order the body first uses them; a name defined in more
// than heuristics.GraphMaxDefs places says nothing.
func (s *scope) callees(target uint32) []symRank {
	ref, ok := s.idx.Symbol(target)
	if !ok {
		return nil
	}
	src := s.text(ref.File)
	if src == nil || int(ref.EndByte) > len(src) {
		return nil
	}
	body := string(src[ref.StartByte:ref.EndByte])
	seen := map[string]bool{strings.ToLower(ref.Name): true}
	var out []symRank
	rank := int32(0)
	for _, use := range identifiers(body) {
		id := use.name
		low := strings.ToLower(id)
		if len(id) < heuristics.GraphMinName || seen[low] {
			continue
		}
		defs := s.idx.Named(id)
		if len(defs) == 0 || len(defs) > heuristics.GraphMaxDefs {
			continue
		}
		var found []uint32
		for _, d := range defs {
			// Names match case-insensitively in the index ("error" is not
			// a call of Error); a callee is called, a used type named.
			dr, ok := s.idx.Symbol(d)
			if !ok || dr.Name != id || !use.call && !isType(dr.Kind) && dr.Kind != parse.KindType {
				continue
			}
			if d != target && !encloses(s.idx, d, target) && s.accepts(d) {
				found = append(found, d)
			}
		}
		if len(found) == 0 {
			continue
		}
		seen[low] = true
		rank++
		for _, d := range found {
			out = append(out, symRank{slot: d, rank: rank, score: 1 / float32(rank)})
			s.recordSite(d, callSite{user: ref.Qualified, path: ref.Path, line: lineOf(src, int(ref.StartByte)+use.at), callee: s.qualified(d), call: use.call})
		}
	}
	return out
}

// rankCounts turns per-symbol counts into ranks, most first; symbols the
// request's filters reject are left out.
func rankCounts(s *scope, counts map[uint32]int) []symRank {
	type kv struct {
		slot uint32
		n    int
	}
	list := make([]kv, 0, len(counts))
	for slot, n := range counts {
		if s.accepts(slot) {
			list = append(list, kv{slot, n})
		}
	}
	sort.Slice(list, func(i, j int) bool {
		return list[i].n > list[j].n || list[i].n == list[j].n && symbolBefore(s.idx, list[i].slot, list[j].slot)
	})
	out := make([]symRank, len(list))
	for i, r := range heuristics.CompetitionRanks(list, func(x kv) int { return x.n }) {
		out[i] = symRank{slot: list[i].slot, rank: int32(r), score: float32(list[i].n)}
	}
	return out
}

// recordSite keeps where symbol slot uses or is used by the cursor's
// symbol, for the item's reason (why.go): the first use found.
func (s *scope) recordSite(slot uint32, site callSite) {
	if s.sites == nil {
		s.sites = map[uint32]*callSite{}
	}
	if s.sites[slot] == nil {
		s.sites[slot] = &site
	}
}

// qualified is a symbol's qualified name, "" for a slot the index lacks.
func (s *scope) qualified(slot uint32) string {
	ref, _ := s.idx.Symbol(slot)
	return ref.Qualified
}

// lineOf is the 1-based line of byte offset at in src.
func lineOf(src []byte, at int) int {
	return strings.Count(string(src[:min(at, len(src))]), "\n") + 1
}

// innermost is the smallest of syms whose bytes hold offset at.
func innermost(idx *symbolindex.Index, syms []uint32, at uint32) (uint32, bool) {
	best, size, found := uint32(0), ^uint32(0), false
	for _, slot := range syms {
		ref, ok := idx.Symbol(slot)
		if ok && ref.StartByte <= at && at < ref.EndByte && ref.EndByte-ref.StartByte < size {
			best, size, found = slot, ref.EndByte-ref.StartByte, true
		}
	}
	return best, found
}

// encloses reports whether symbol outer holds symbol inner (a class and
// its method): a class is not its own method's caller.
func encloses(idx *symbolindex.Index, outer, inner uint32) bool {
	o, ok1 := idx.Symbol(outer)
	i, ok2 := idx.Symbol(inner)
	return ok1 && ok2 && o.File == i.File && o.StartByte <= i.StartByte && i.EndByte <= o.EndByte
}

// wordIndexes are the offsets where name occurs in src as a whole
// identifier.
func wordIndexes(src []byte, name string) []int {
	var out []int
	text := string(src)
	for off := 0; ; {
		i := strings.Index(text[off:], name)
		if i < 0 {
			return out
		}
		at := off + i
		end := at + len(name)
		if (at == 0 || !identByte(text[at-1])) && (end == len(text) || !identByte(text[end])) {
			out = append(out, at)
		}
		off = end
	}
}

// ident is one identifier of a text, its offset in it and whether a call
// follows it.
type ident struct {
	name string
	call bool
	at   int
}

// identifiers are the identifiers of a text, in order, repeats kept.
func identifiers(text string) []ident {
	var out []ident
	for i := 0; i < len(text); {
		if !identByte(text[i]) || text[i] >= '0' && text[i] <= '9' {
			i++
			continue
		}
		j := i
		for j < len(text) && identByte(text[j]) {
			j++
		}
		k := j
		for k < len(text) && (text[k] == ' ' || text[k] == '\t') {
			k++
		}
		out = append(out, ident{text[i:j], k < len(text) && text[k] == '(', i})
		i = j
	}
	return out
}

func identByte(b byte) bool {
	return b == '_' || b == '$' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || b >= 0x80
}
