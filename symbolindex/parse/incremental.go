package parse

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"sort"

	sitter "github.com/smacker/go-tree-sitter"
)

// DocTree is what ParseEdit keeps of one open document between edits so
// that an edit re-parses and re-queries only what it changed: the query
// matches of each top-level node of the text (the children of the syntax
// tree's root), the text itself, and a tree-sitter tree of it (or of an
// earlier version) for incremental parsing.
//
// A DocTree belongs to one document and is not safe for concurrent use (the
// workspace serializes a document's edits). Its tree lives in C memory:
// Close it when the document is closed or dropped.
type DocTree struct {
	spec      *langSpec // nil once closed
	src       []byte    // the text recs describe
	recs      topRecords
	spare     topRecords // the other buffer of recs, reused by the next edit
	valid     bool       // recs describe src
	rootOK    bool       // the root of src's tree is the grammar's root, not an error
	hasErrors bool       // src has syntax errors
	// cutAt is where the first token of src starts that its parse may have
	// cut short at the end of the text (see watchedInput); no island may
	// start after it. ^0 for none.
	cutAt uint32

	// tree is a syntax tree of treeSrc, which lags behind src after an
	// edit was re-parsed as an island (see island); nil if none.
	tree    *sitter.Tree
	treeSrc []byte

	// What the last update did, for tests: the number of top-level nodes
	// the query ran over, and whether it re-parsed an island only.
	requeried int
	island    bool
}

// topRecords are the query matches of a text, grouped by the top-level
// node they were found in.
type topRecords struct {
	records
	tops []topNode
}

// topNode is one top-level node: its span and kind, whether it has syntax
// errors (broken: it is an error or a missing node itself), and the end
// (exclusive) of its matches in each list of records; they start where the
// previous node's end.
type topNode struct {
	start, end              uint32
	symbol                  sitter.Symbol
	hasErr, broken          bool
	defs, refs, wraps, docs uint32
}

func (r *topRecords) reset() {
	r.records.reset()
	r.tops = r.tops[:0]
}

// add appends a top-level node, whose records were just appended.
func (r *topRecords) add(start, end uint32, symbol sitter.Symbol, hasErr, broken bool) {
	r.tops = append(r.tops, topNode{
		start: start, end: end, symbol: symbol, hasErr: hasErr, broken: broken,
		defs: uint32(len(r.defs)), refs: uint32(len(r.refs)),
		wraps: uint32(len(r.wraps)), docs: uint32(len(r.docs)),
	})
}

// Close frees the tree; the DocTree is not used again (ParseEdit given a
// closed one starts afresh). It is safe to call more than once, and on nil.
func (t *DocTree) Close() {
	if t == nil {
		return
	}
	t.closeTree()
	t.spec, t.valid = nil, false
}

func (t *DocTree) closeTree() {
	if t.tree != nil {
		t.tree.Close()
		t.tree = nil
	}
}

// ParseEdit is Parse for an open document that changes: old is the
// document's DocTree from the previous call (nil the first time), src its
// new text; the result is the same as Parse of src.
//
// ParseEdit finds what changed by comparing src with the text old
// describes (a memcmp), so it needs no edit positions and any edit,
// however the editor sent it, is handled the same. When the old text had no
// syntax errors it re-parses an island: the top-level nodes the change
// touched, with one unchanged neighbour on each side, as a text of its own.
// If the island parses without errors into nodes that start and end with
// those neighbours, and no token in it ran to its end looking for its own
// (an unclosed comment), the rest of the file keeps its matches, moved.
// Other edits re-parse the file incrementally with tree-sitter (Tree.Edit)
// and re-run the symbols query only over the top-level nodes that changed;
// a text with syntax errors is parsed from scratch, since tree-sitter's
// error recovery depends on the nodes it reuses. ctx is checked before each
// parse, but does not interrupt one (the binding only does that for string
// input, which hides what watchedInput sees).
//
// ParseEdit takes over old: the caller must use only the returned DocTree
// from then on (it may be old itself, updated). The returned DocTree is nil
// for files that are not parsed with tree-sitter (docs and config are
// sectioned as text) and on error, in which case old has been closed.
// src is copied; the caller may reuse it.
func (p *Parser) ParseEdit(ctx context.Context, path string, old *DocTree, src []byte) (*ParsedFile, *DocTree, error) {
	head := src
	if len(head) > detectHeadBytes {
		head = head[:detectHeadBytes]
	}
	lang := DetectLanguage(path, head)
	if lang == "" {
		old.Close()
		return nil, nil, fmt.Errorf("parse %s: %w", path, ErrUnsupported)
	}
	spec := codeLang(lang)
	if spec == nil || p.closed || len(src) > maxSourceBytes {
		old.Close()
		pf, err := p.ParseLanguage(ctx, path, lang, src)
		return pf, nil, err
	}
	dt, err := p.parseDoc(ctx, spec, old, src)
	if err != nil {
		old.Close()
		return nil, nil, fmt.Errorf("parse %s: %w", path, err)
	}
	p.load(&dt.recs.records)
	return p.finish(spec, path, src, dt.hasErrors), dt, nil
}

// parseDoc brings dt (or a new DocTree, when dt is nil, closed or of
// another language) up to date with src.
func (p *Parser) parseDoc(ctx context.Context, spec *langSpec, dt *DocTree, src []byte) (*DocTree, error) {
	cq, err := spec.compile()
	if err != nil {
		return nil, err
	}
	top, err := cq.topQuery()
	if err != nil {
		return nil, err
	}
	if dt != nil && dt.spec != spec {
		dt.Close()
		dt = nil
	}
	if dt == nil {
		dt = &DocTree{spec: spec}
	}
	dt.requeried, dt.island = 0, false
	if dt.valid && bytes.Equal(dt.src, src) {
		return dt, nil // nothing changed: the records stand
	}
	p.kept = p.kept[:0]
	res := islandNA
	if dt.valid {
		e := diffEdit(dt.src, src)
		res, err = p.island(ctx, cq, top, dt, src, e)
		if err != nil {
			dt.Close()
			return nil, err
		}
		if res == islandDone {
			return dt, nil
		}
		if dt.rootOK {
			p.keep(dt, e)
		}
	}

	tree, cutAt, err := p.parseWhole(ctx, spec, cq, dt, src, res == islandErrors)
	if err != nil {
		dt.Close()
		return nil, err
	}
	root := tree.RootNode()
	rootOK := p.recollect(top, dt, root, src)
	dt.closeTree()
	dt.tree = tree
	dt.treeSrc = append(dt.treeSrc[:0], src...)
	dt.recs, dt.spare = dt.spare, dt.recs
	dt.src = append(dt.src[:0], src...)
	dt.valid, dt.rootOK, dt.hasErrors, dt.cutAt = true, rootOK, root.HasError(), cutAt
	return dt, nil
}

// parseWhole parses the whole text src, incrementally from dt's tree of an
// earlier version when there is one and the text is likely to be free of
// errors (hasErrors: the island found errors in the edit).
func (p *Parser) parseWhole(ctx context.Context, spec *langSpec, cq *compiledQuery, dt *DocTree, src []byte, hasErrors bool) (*sitter.Tree, uint32, error) {
	old := dt.tree
	if old != nil && hasErrors {
		dt.closeTree()
		old = nil
	}
	if old != nil {
		editTree(old, diffEdit(dt.treeSrc, src))
	}
	tree, cutAt, err := p.parseWatched(ctx, spec, cq, old, src)
	if err == nil && old != nil && tree.RootNode().HasError() {
		// How tree-sitter recovers from a syntax error depends on the
		// nodes it reuses: an incremental parse of broken text can differ
		// from a parse from scratch, and Parse must not depend on the
		// history of edits. Broken text is parsed again from scratch.
		tree.Close()
		tree, cutAt, err = p.parseWatched(ctx, spec, cq, nil, src)
	}
	return tree, cutAt, err
}

// recollect fills dt.spare with the records of the top-level nodes under
// root, the new tree of src, and reports whether the root is the
// language's (not an error). A top-level node that the edit did not touch
// has the matches it had before, moved: the same text, parsed from the
// same (top-level) state, gives the same subtree. Tree-sitter rebuilds
// many such nodes (any node built while the parse was ambiguous is
// "fragile"), so they are found by kind and position, not by identity:
// p.kept. The others are queried again (counted in dt.requeried).
func (p *Parser) recollect(top *topQuery, dt *DocTree, root *sitter.Node, src []byte) (rootOK bool) {
	next := &dt.spare
	next.reset()
	rootOK = root.Type() == top.rootType
	if !rootOK {
		p.kept = p.kept[:0] // the whole text is an error: all of it changed
	}
	cur := sitter.NewQueryCursor()
	defer cur.Close()
	tc := sitter.NewTreeCursor(root)
	defer tc.Close()
	j, broken := 0, false
	for ok := tc.GoToFirstChild(); ok; ok = tc.GoToNextSibling() {
		n := tc.CurrentNode()
		start, end := n.StartByte(), n.EndByte()
		reuse, hasErr, isBroken := false, n.HasError(), false
		if hasErr {
			isBroken = n.IsError() || n.IsMissing()
		} else if !broken {
			for j < len(p.kept) && p.kept[j].start < start {
				j++
			}
			reuse = j < len(p.kept) && p.kept[j].ok && p.kept[j].start == start && p.kept[j].end == end &&
				end > start && p.kept[j].symbol == n.Symbol()
		}
		broken = broken || isBroken
		if reuse {
			next.copyShifted(&dt.recs, j, start)
		} else {
			p.collectTop(top, cur, n, rootOK, src, &next.records)
			dt.requeried++
		}
		next.add(start, end, n.Symbol(), hasErr, isBroken)
	}
	return rootOK
}

// keptNode is a top-level node of the old text as the edit leaves it:
// where it is now, its kind, and whether its records can be reused.
type keptNode struct {
	start, end uint32
	symbol     sitter.Symbol
	ok         bool
}

// keep fills p.kept with the top-level nodes of dt's text, moved by the
// edit e. Reusable are those the edit left alone, not next to it (a node's
// parse may have looked ahead at the bytes after it), without syntax errors
// and with no error at the top level before them: an error there could
// have left the parse in another state.
func (p *Parser) keep(dt *DocTree, e sitter.EditInput) {
	tops := dt.recs.tops
	f, g := touched(tops, e)
	delta := e.NewEndIndex - e.OldEndIndex // wraps around when negative: adding it still works
	broken := false
	for i := range tops {
		t := &tops[i]
		k := keptNode{start: t.start, end: t.end, symbol: t.symbol}
		switch {
		case i >= g:
			k.start += delta
			k.end += delta
		case i >= f:
			k.start, k.end = e.StartIndex, e.StartIndex // changed; kept in order
		}
		k.ok = !broken && !t.hasErr && (i < f-1 || i > g)
		broken = broken || t.broken
		p.kept = append(p.kept, k)
	}
}

// touched returns the range [f, g) of the top-level nodes an edit touches:
// f is the first that ends at or after its start, g the first that starts
// after its old end. Node f-1 and node g are its neighbours.
func touched(tops []topNode, e sitter.EditInput) (f, g int) {
	f, _ = slices.BinarySearchFunc(tops, e.StartIndex, func(t topNode, start uint32) int { return cmpU32(t.end, start) })
	g = f + sort.Search(len(tops)-f, func(i int) bool { return tops[f+i].start > e.OldEndIndex })
	return f, g
}

// islandResult is what island did.
type islandResult uint8

const (
	islandNA     islandResult = iota // it does not apply to the edit
	islandDone                       // it updated the DocTree
	islandErrors                     // the island has syntax errors, and so, most likely, has the text
)

// island tries to apply the edit e by re-parsing only the top-level nodes
// it touches, with an unchanged neighbour on each side, as a text of their
// own. It applies when the old text has no syntax errors, and succeeds when
// the island parses without errors into nodes beginning with the left
// neighbour and ending with the right one, as before: then what lies
// outside the island parses as before, and so does the island itself,
// since a file's top level parses the same from any node boundary.
func (p *Parser) island(ctx context.Context, cq *compiledQuery, top *topQuery, dt *DocTree, src []byte, e sitter.EditInput) (islandResult, error) {
	old := &dt.recs
	if !dt.rootOK || dt.hasErrors {
		return islandNA, nil
	}
	f, g := touched(old.tops, e)
	left, right := f-1, g // the neighbours; -1 and len(tops) for none
	n := len(old.tops)
	delta := e.NewEndIndex - e.OldEndIndex
	start, end := uint32(0), uint32(len(src))
	if left >= 0 {
		start = old.tops[left].start
	}
	if right < n {
		end = old.tops[right].end + delta
	}
	if end < start || int(end) > len(src) || end-start > uint32(len(src))/2 {
		return islandNA, nil // half the file or more: parse it all
	}
	if dt.cutAt < start {
		return islandNA, nil // a token before the island may run into it
	}
	text := src[start:end]
	tree, cutAt, err := p.parseWatched(ctx, dt.spec, cq, nil, text)
	if err != nil {
		return islandNA, err
	}
	defer tree.Close()
	root := tree.RootNode()
	if root.Type() != top.rootType {
		return islandNA, nil
	}
	if root.HasError() {
		// How tree-sitter recovers from an error depends on what follows:
		// in the file, it may swallow the nodes after the island.
		return islandErrors, nil
	}

	p.islandNodes = p.islandNodes[:0]
	tc := sitter.NewTreeCursor(root)
	defer tc.Close()
	for ok := tc.GoToFirstChild(); ok; ok = tc.GoToNextSibling() {
		p.islandNodes = append(p.islandNodes, tc.CurrentNode())
	}
	nodes := p.islandNodes
	same := func(i int, t topNode, shift uint32) bool {
		return i >= 0 && i < len(nodes) && nodes[i].Symbol() == t.symbol &&
			nodes[i].StartByte()+start == t.start+shift && nodes[i].EndByte()+start == t.end+shift
	}
	if left >= 0 && !same(0, old.tops[left], 0) || right < n && !same(len(nodes)-1, old.tops[right], delta) {
		return islandNA, nil
	}
	newCut, ok := islandCut(dt, nodes, right, cutAt, start, delta)
	if !ok {
		return islandNA, nil
	}
	p.spliceIsland(top, dt, nodes, left, right, text, start, delta)
	dt.recs, dt.spare = dt.spare, dt.recs
	dt.src = append(dt.src[:0], src...)
	dt.island, dt.cutAt = true, newCut
	return islandDone, nil
}

// islandCut returns the file's cut (see watchedInput) after the island,
// nodes, parsed from start with the cut cutAt, replaces the old top-level
// nodes before right; false when the island cannot stand: a token in it
// ran to its end, and in the file could run on past the right neighbour.
func islandCut(dt *DocTree, nodes []*sitter.Node, right int, cutAt, start, delta uint32) (uint32, bool) {
	old := &dt.recs
	switch {
	case right == len(old.tops): // the island runs to the end of the file
		if cutAt != ^uint32(0) {
			return cutAt + start, true
		}
		return ^uint32(0), true
	case cutAt < nodes[len(nodes)-1].StartByte():
		return 0, false
	case dt.cutAt == ^uint32(0):
		return ^uint32(0), true
	case dt.cutAt >= old.tops[right].start:
		return dt.cutAt + delta, true
	default:
		// The token cut short was in the island, and is no more; one in
		// the right neighbour could be: assume the worst.
		return old.tops[right].start + delta, true
	}
}

// spliceIsland fills dt.spare with the records of the new text: the old
// records before the island's left neighbour, the island's nodes (text,
// from start in the file) queried, and the old records from its right
// neighbour on, moved by delta.
func (p *Parser) spliceIsland(top *topQuery, dt *DocTree, nodes []*sitter.Node, left, right int, text []byte, start, delta uint32) {
	old := &dt.recs
	n := len(old.tops)
	// Before the island: as it was.
	next := &dt.spare
	next.reset()
	if left > 0 {
		last := old.tops[left-1]
		next.defs = append(next.defs, old.defs[:last.defs]...)
		next.refs = append(next.refs, old.refs[:last.refs]...)
		next.wraps = append(next.wraps, old.wraps[:last.wraps]...)
		next.docs = append(next.docs, old.docs[:last.docs]...)
		next.tops = append(next.tops, old.tops[:left]...)
	}
	// The island, but its right neighbour: queried, moved into place.
	cur := sitter.NewQueryCursor()
	defer cur.Close()
	island := nodes
	if right < n {
		island = nodes[:len(nodes)-1]
	}
	for _, nd := range island {
		mark := next.mark()
		p.collectTop(top, cur, nd, true, text, &next.records)
		next.shiftFrom(mark, start)
		next.add(nd.StartByte()+start, nd.EndByte()+start, nd.Symbol(), false, false)
		dt.requeried++
	}
	// The right neighbour and what follows: as it was, moved.
	for i := right; i < n; i++ {
		next.copyShifted(old, i, old.tops[i].start+delta)
		t := old.tops[i]
		next.add(t.start+delta, t.end+delta, t.symbol, t.hasErr, t.broken)
	}
}

// watchedInput feeds a parse its text through tree-sitter's read callback,
// to see what a string parse hides: whether the lexer, having read to the
// end of the text, went back to an earlier offset. It does when a token
// looked for its end up to the end of the text and did not find it (an
// unclosed comment, say, which then lexes as a "/"): more text after the
// end could have changed that token. cut is the least offset read after the
// end, ^0 if none.
type watchedInput struct {
	src []byte
	eof bool
	cut uint32
}

func (w *watchedInput) read(off uint32, _ sitter.Point) []byte {
	if int(off) >= len(w.src) {
		w.eof = true
		return nil
	}
	if w.eof {
		w.cut = min(w.cut, off)
	}
	return w.src[off:]
}

// parseWatched is parseTree through a watchedInput; it also returns where
// the first token starts that the end of the text may have cut short (^0 if
// none). The binding does not cancel such a parse: ctx is checked before.
func (p *Parser) parseWatched(ctx context.Context, spec *langSpec, cq *compiledQuery, old *sitter.Tree, src []byte) (*sitter.Tree, uint32, error) {
	if err := ctx.Err(); err != nil {
		return nil, 0, err
	}
	w := &watchedInput{src: src, cut: ^uint32(0)}
	tree, err := p.parser(spec, cq).ParseInputCtx(ctx, old, sitter.Input{Read: w.read, Encoding: sitter.InputEncodingUTF8})
	if err != nil {
		p.dropParser(spec)
		return nil, 0, fmt.Errorf("tree-sitter %s: %w", spec.name, err)
	}
	return tree, w.cut, nil
}

// recMark is a position in records: the length of each list.
type recMark struct{ defs, refs, wraps, docs int }

func (r *records) mark() recMark {
	return recMark{len(r.defs), len(r.refs), len(r.wraps), len(r.docs)}
}

// shiftFrom moves the records appended since m by delta.
func (r *records) shiftFrom(m recMark, delta uint32) {
	for i := m.defs; i < len(r.defs); i++ {
		r.defs[i].shift(delta)
	}
	for i := m.refs; i < len(r.refs); i++ {
		r.refs[i] = r.refs[i].shift(delta)
	}
	for i := m.wraps; i < len(r.wraps); i++ {
		r.wraps[i].wrapped = r.wraps[i].wrapped.shift(delta)
		r.wraps[i].wrap.span = r.wraps[i].wrap.span.shift(delta)
	}
	for i := m.docs; i < len(r.docs); i++ {
		r.docs[i] = r.docs[i].shift(delta)
	}
}

// collectTop runs the top-level form of the query over one top-level node
// n into r. Patterns that the full query anchors at the root count only
// when their definition is n itself, under a root of the root's type.
func (p *Parser) collectTop(top *topQuery, cur *sitter.QueryCursor, n *sitter.Node, rootOK bool, src []byte, r *records) {
	cur.Exec(top.query, n)
	id, start := n.ID(), n.StartByte()
	for {
		m, ok := cur.NextMatch()
		if !ok {
			return
		}
		if top.preds != nil && !top.accept(m, src) {
			continue
		}
		if top.rootOnly[m.PatternIndex] {
			atRoot := false
			for _, c := range m.Captures {
				if top.roles[c.Index].role == roleDef {
					atRoot = rootOK && c.Node.ID() == id && c.Node.StartByte() == start
					break
				}
			}
			if !atRoot {
				continue
			}
		}
		r.add(&top.queryInfo, m, src)
	}
}

// copyShifted appends the records of top-level node i of from, moved to
// start at newStart (but not the node itself: see add).
func (r *topRecords) copyShifted(from *topRecords, i int, newStart uint32) {
	t := from.tops[i]
	var lo topNode
	if i > 0 {
		lo = from.tops[i-1]
	}
	m := r.mark()
	r.defs = append(r.defs, from.defs[lo.defs:t.defs]...)
	r.refs = append(r.refs, from.refs[lo.refs:t.refs]...)
	r.wraps = append(r.wraps, from.wraps[lo.wraps:t.wraps]...)
	r.docs = append(r.docs, from.docs[lo.docs:t.docs]...)
	r.shiftFrom(m, newStart-t.start) // wraps around for a move back: adding it still works
}

// shift moves a definition by delta; the spans of captures it does not have
// stay empty, as a fresh match leaves them.
func (d *rawDef) shift(delta uint32) {
	d.start += delta
	d.end += delta
	d.origStart += delta
	if d.hasName {
		d.name = d.name.shift(delta)
	}
	if d.hasBody {
		d.bodyStart += delta
	}
	if d.recv.end > d.recv.start {
		d.recv = d.recv.shift(delta)
	}
}

func (s span) shift(delta uint32) span { return span{s.start + delta, s.end + delta} }

// diffEdit describes the change from old to src as one tree-sitter edit:
// the bytes between their common prefix and common suffix were replaced.
// Comparing the texts (a memcmp) costs less than the parse, and the edit
// always matches the text, whatever the editor sent.
func diffEdit(old, src []byte) sitter.EditInput {
	n := min(len(old), len(src))
	pre := 0
	for pre < n && old[pre] == src[pre] {
		if n-pre >= 64 && bytes.Equal(old[pre:pre+64], src[pre:pre+64]) {
			pre += 64
			continue
		}
		pre++
	}
	suf := 0
	for suf < n-pre && old[len(old)-1-suf] == src[len(src)-1-suf] {
		if k := suf + 64; k <= n-pre && bytes.Equal(old[len(old)-k:len(old)-suf], src[len(src)-k:len(src)-suf]) {
			suf = k
			continue
		}
		suf++
	}
	oldEnd, newEnd := len(old)-suf, len(src)-suf
	return sitter.EditInput{
		StartIndex:  uint32(pre),
		OldEndIndex: uint32(oldEnd),
		NewEndIndex: uint32(newEnd),
		StartPoint:  pointAt(old, pre),
		OldEndPoint: pointAt(old, oldEnd),
		NewEndPoint: pointAt(src, newEnd),
	}
}

// pointAt is the row and byte column of offset off in text.
func pointAt(text []byte, off int) sitter.Point {
	row := bytes.Count(text[:off], []byte{'\n'})
	col := off - (bytes.LastIndexByte(text[:off], '\n') + 1)
	return sitter.Point{Row: uint32(row), Column: uint32(col)}
}

// topQuery is a language's symbols query in the form ParseEdit runs on one
// top-level node at a time. Patterns the query anchors at the root node
// ("(program (lexical_declaration ...) @def.jsvar)": top-level declarations
// only) are unwrapped, since a query run on a node never sees its parent;
// rootOnly marks them, and their matches count only at the node the query
// runs on. Pattern indexes are those of the full query.
type topQuery struct {
	queryInfo
	rootType string // the node type of a tree's root
	rootOnly []bool // by pattern index
}

// topQuery returns the language's topQuery, compiling it on first use.
func (cq *compiledQuery) topQuery() (*topQuery, error) {
	cq.topOnce.Do(func() {
		cq.top, cq.topErr = compileTopQuery(cq)
	})
	return cq.top, cq.topErr
}

func compileTopQuery(cq *compiledQuery) (*topQuery, error) {
	tp := sitter.NewParser()
	defer tp.Close()
	tp.SetLanguage(cq.lang)
	tree, err := tp.ParseCtx(context.Background(), nil, nil)
	if err != nil {
		return nil, fmt.Errorf("root node type: %w", err)
	}
	rootType := tree.RootNode().Type()
	tree.Close()

	src, rootOnly, err := unwrapRootPatterns(cq.src, rootType)
	if err != nil {
		return nil, fmt.Errorf("top-level form of the symbols query: %w", err)
	}
	qi, err := newQueryInfo(src, cq.lang)
	if err != nil {
		return nil, fmt.Errorf("top-level form of the symbols query: %w", err)
	}
	if qi.query.PatternCount() != cq.query.PatternCount() || len(rootOnly) != int(cq.query.PatternCount()) {
		qi.query.Close()
		return nil, fmt.Errorf("top-level form of the symbols query has %d patterns (%d counted), the query %d",
			qi.query.PatternCount(), len(rootOnly), cq.query.PatternCount())
	}
	return &topQuery{queryInfo: qi, rootType: rootType, rootOnly: rootOnly}, nil
}

// unwrapRootPatterns rewrites query source so that every pattern of the
// form "(<root> <one child pattern with its @def capture>)" becomes the
// child pattern alone (the wrapper is blanked out, so offsets stay), and
// reports which patterns were unwrapped. Root patterns it cannot rewrite
// exactly (several children, fields, anchors, quantifiers, no @def on the
// child, captures of the root) and patterns that could match the root
// elsewhere (a wildcard root, the root type nested) are an error.
func unwrapRootPatterns(src []byte, root string) ([]byte, []bool, error) {
	out := bytes.Clone(src)
	var rootOnly []bool
	depth := 0
	for i := 0; i < len(src); i++ {
		switch c := src[i]; c {
		case ';':
			i = skipLine(src, i)
		case '"':
			if depth == 0 {
				rootOnly = append(rootOnly, false)
			}
			i = skipString(src, i)
		case '(', '[':
			name, nameEnd := nodeName(src, i)
			if c == '(' && name == root {
				if depth > 0 {
					return nil, nil, fmt.Errorf("offset %d: (%s ...) inside a pattern", i, root)
				}
				end, err := unwrapOne(src, out, i, nameEnd, root)
				if err != nil {
					return nil, nil, err
				}
				rootOnly = append(rootOnly, true)
				i = end
				continue
			}
			if depth == 0 {
				switch {
				case c == '(' && name == "_":
					return nil, nil, fmt.Errorf("offset %d: a pattern with a wildcard root could match the root node", i)
				case c == '(' && name == "":
					return nil, nil, fmt.Errorf("offset %d: a pattern of siblings could span top-level nodes", i)
				}
				rootOnly = append(rootOnly, false)
			}
			depth++
		case ')', ']':
			depth--
		case '_':
			if depth == 0 && (i+1 == len(src) || !isIdentByte(src[i+1])) && (i == 0 || !isIdentByte(src[i-1])) {
				return nil, nil, fmt.Errorf("offset %d: a wildcard pattern could match the root node", i)
			}
		}
	}
	return out, rootOnly, nil
}

// unwrapOne blanks the wrapper of the root pattern whose "(" is at open and
// whose node name ends at nameEnd, checks that what it wraps is one child
// pattern with a @def capture, and returns the offset of its ")".
func unwrapOne(src, out []byte, open, nameEnd int, root string) (int, error) {
	bad := func(why string) (int, error) {
		return 0, fmt.Errorf("offset %d: pattern (%s ...) %s", open, root, why)
	}
	depth, groups, hasDef := 0, 0, false
	for i := nameEnd; i < len(src); i++ {
		switch c := src[i]; {
		case c == ';':
			i = skipLine(src, i)
		case c == '"':
			if depth == 0 {
				return bad("holds a string pattern")
			}
			i = skipString(src, i)
		case c == '(' || c == '[':
			if depth == 0 && !(c == '(' && i+1 < len(src) && src[i+1] == '#') {
				groups++
			}
			depth++
		case c == ']':
			depth--
		case c == ')':
			if depth > 0 {
				depth--
				continue
			}
			if groups != 1 || !hasDef {
				return bad("must wrap exactly one child pattern carrying a @def capture")
			}
			j := i + 1
			for j < len(src) && (src[j] == ' ' || src[j] == '\t') {
				j++
			}
			if j < len(src) && (src[j] == '@' || src[j] == '*' || src[j] == '+' || src[j] == '?') {
				return bad("must not capture or quantify the root")
			}
			for k := open; k < nameEnd; k++ {
				out[k] = ' '
			}
			out[i] = ' '
			return i, nil
		case depth == 0 && c == '@':
			if bytes.HasPrefix(src[i:], []byte("@def.")) {
				hasDef = true
			}
		case depth == 0 && (c == ':' || c == '.' && !isIdentByte(prevByte(src, i)) || c == '*' || c == '+' || c == '?' || c == '!'):
			return bad("uses a field, an anchor, a quantifier or a negation at the top")
		}
	}
	return bad("is not closed")
}

func prevByte(src []byte, i int) byte {
	if i == 0 {
		return ' '
	}
	return src[i-1]
}

// nodeName returns the node name after the "(" or "[" at open, and where it
// ends; "" if there is none.
func nodeName(src []byte, open int) (string, int) {
	i := open + 1
	for i < len(src) && (src[i] == ' ' || src[i] == '\t' || src[i] == '\n' || src[i] == '\r') {
		i++
	}
	j := i
	for j < len(src) && (isIdentByte(src[j]) || src[j] == '.') {
		j++
	}
	return string(src[i:j]), j
}

func skipLine(src []byte, i int) int {
	if j := bytes.IndexByte(src[i:], '\n'); j >= 0 {
		return i + j
	}
	return len(src)
}

func skipString(src []byte, i int) int {
	for j := i + 1; j < len(src); j++ {
		switch src[j] {
		case '\\':
			j++
		case '"':
			return j
		}
	}
	return len(src)
}
