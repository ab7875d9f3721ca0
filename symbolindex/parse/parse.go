package parse

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/cespare/xxhash/v2"
	sitter "github.com/smacker/go-tree-sitter"
)

// Limits on what one file contributes.
const (
	maxSignatureBytes = 200
	maxDocBytes       = 1000
	maxRefs           = 2000
	minRefLen         = 3
	maxSourceBytes    = 1<<31 - 1 // tree-sitter offsets are uint32
	detectHeadBytes   = 1024
	maxDocScanLines   = 200
)

// ErrUnsupported is returned (wrapped) by Parse for files that are not
// indexed at all; DetectLanguage returns "" for them.
var ErrUnsupported = errors.New("file type is not indexed")

// Parser turns source files into symbols: tree-sitter grammars and queries
// for code, sectioning for docs and config. A Parser holds one tree-sitter
// parser per language it has seen (created on first use) and reusable
// scratch buffers; the compiled queries are shared by all Parsers.
//
// A Parser is not safe for concurrent use: use one per goroutine, and Close
// it when done, since tree-sitter memory is not managed by the Go GC.
type Parser struct {
	parsers [len(codeLangs)]*sitter.Parser
	closed  bool

	// Scratch reused across Parse calls.
	rec         records
	defs        []rawDef
	refs        []span
	lines       []uint32
	stack       []scope
	protos      []bool
	wraps       map[uint64]wrapSpan
	docs        map[uint32]span
	nameSeen    map[uint32]struct{}
	seen        map[uint64]struct{}
	buf         []byte
	kept        []keptNode     // ParseEdit: the old text's top-level nodes
	islandNodes []*sitter.Node // ParseEdit: the top-level nodes of an island
	walkBuf     []uint32       // goWalk's records
	queryOnly   bool           // tests: collect Go with the query, not goWalk
}

// NewParser returns a Parser. Close it when done.
func NewParser() *Parser {
	return &Parser{
		wraps:    make(map[uint64]wrapSpan),
		docs:     make(map[uint32]span),
		nameSeen: make(map[uint32]struct{}),
		seen:     make(map[uint64]struct{}),
	}
}

// Close frees the tree-sitter parsers. The Parser must not be used after.
func (p *Parser) Close() {
	for i, tp := range p.parsers {
		if tp != nil {
			tp.Close()
			p.parsers[i] = nil
		}
	}
	p.closed = true
}

// Parse detects the language of the file at path (workspace-relative or
// absolute; only its name matters) and extracts its symbols and the
// identifiers it references. A file with syntax errors still yields the
// symbols found, with SyntaxErrors set. Files that are not indexed at all
// give an error wrapping ErrUnsupported.
func (p *Parser) Parse(path string, src []byte) (*ParsedFile, error) {
	return p.ParseContext(context.Background(), path, src)
}

// ParseContext is Parse with a context that can cancel a long parse.
func (p *Parser) ParseContext(ctx context.Context, path string, src []byte) (*ParsedFile, error) {
	head := src
	if len(head) > detectHeadBytes {
		head = head[:detectHeadBytes]
	}
	lang := DetectLanguage(path, head)
	if lang == "" {
		return nil, fmt.Errorf("parse %s: %w", path, ErrUnsupported)
	}
	return p.ParseLanguage(ctx, path, lang, src)
}

// ParseLanguage parses src as the given language (a name DetectLanguage
// returns), for callers that already know it.
func (p *Parser) ParseLanguage(ctx context.Context, path, lang string, src []byte) (*ParsedFile, error) {
	if p.closed {
		return nil, fmt.Errorf("parse %s: parser is closed", path)
	}
	if len(src) > maxSourceBytes {
		return nil, fmt.Errorf("parse %s: file is too large (%d bytes, limit %d)", path, len(src), maxSourceBytes)
	}
	spec := codeLang(lang)
	if spec == nil {
		if !isTextLanguage(lang) {
			return nil, fmt.Errorf("parse %s: unknown language %q", path, lang)
		}
		p.lines = lineStarts(p.lines[:0], src)
		return &ParsedFile{Language: lang, Symbols: sectionText(lang, path, src, p.lines)}, nil
	}
	pf, err := p.parseCode(ctx, spec, path, src)
	if err != nil {
		return nil, fmt.Errorf("parse %s: %w", path, err)
	}
	return pf, nil
}

// span is a half-open byte range.
type span struct{ start, end uint32 }

// wrapSpan is the range of a node that extends the definition it wraps;
// group wrappers extend it only when they hold just that definition.
type wrapSpan struct {
	span
	group bool
}

// rawDef is one definition match, as byte offsets into the source.
type rawDef struct {
	kind      defKind
	pattern   uint16
	hasName   bool
	hasBody   bool
	start     uint32 // possibly extended by a wrapper
	end       uint32
	origStart uint32 // the definition node itself
	name      span
	bodyStart uint32
	recv      span // Go receiver type; empty if none
}

// scope is an enclosing definition while qualifying names.
type scope struct {
	end      uint32
	function bool   // definitions inside are local, not symbols
	class    bool   // functions inside are methods
	prefix   string // qualifier for what it contains
}

// parser returns the tree-sitter parser for a language, creating it.
func (p *Parser) parser(spec *langSpec, cq *compiledQuery) *sitter.Parser {
	i := slices.Index(codeLangs[:], spec)
	if p.parsers[i] == nil {
		tp := sitter.NewParser()
		tp.SetLanguage(cq.lang)
		p.parsers[i] = tp
	}
	return p.parsers[i]
}

// parseTree parses src with the language's tree-sitter parser; old, if not
// nil, is the previous tree, edited to match src (an incremental parse). After a
// failed (cancelled) parse the tree-sitter parser is discarded: it would
// resume the old parse, and its cancellation flag may still be set.
func (p *Parser) parseTree(ctx context.Context, spec *langSpec, cq *compiledQuery, old *sitter.Tree, src []byte) (*sitter.Tree, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	for attempt := 0; ; attempt++ {
		tp := p.parser(spec, cq)
		tree, err := tp.ParseCtx(ctx, old, src)
		if err == nil {
			return tree, nil
		}
		p.dropParser(spec)
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if attempt > 0 {
			return nil, fmt.Errorf("tree-sitter %s: %w", spec.name, err)
		}
	}
}

func (p *Parser) dropParser(spec *langSpec) {
	i := slices.Index(codeLangs[:], spec)
	if p.parsers[i] != nil {
		p.parsers[i].Close()
		p.parsers[i] = nil
	}
}

func (p *Parser) parseCode(ctx context.Context, spec *langSpec, filePath string, src []byte) (*ParsedFile, error) {
	cq, err := spec.compile()
	if err != nil {
		return nil, err
	}
	tree, err := p.parseTree(ctx, spec, cq, nil, src)
	if err != nil {
		return nil, err
	}
	p.rec.reset()
	syntaxErrors := func() bool {
		defer tree.Close() // C memory: the GC would not return it
		if spec.name == LangGo && !p.queryOnly {
			root := tree.RootNode()
			if p.goWalk(root, src) {
				return root.HasError()
			}
		}
		return p.collect(cq, tree, src)
	}()
	p.load(&p.rec)
	return p.finish(spec, filePath, src, syntaxErrors), nil
}

// finish turns the loaded records (see load) into the parsed file.
func (p *Parser) finish(spec *langSpec, filePath string, src []byte, syntaxErrors bool) *ParsedFile {
	p.lines = lineStarts(p.lines[:0], src)
	pf := &ParsedFile{Language: spec.name, SyntaxErrors: syntaxErrors}
	pf.Symbols = p.symbols(spec, src)
	if len(pf.Symbols) == 0 {
		if fs, ok := fileSymbol(filePath, src, p.lines); ok {
			pf.Symbols = []Symbol{fs}
		}
	}
	pf.Refs = p.collectRefs(src, pf.Symbols)
	return pf
}

// records are what a query pass keeps of its matches, as byte offsets into
// the source, so that nothing refers to the tree once it is closed:
// definitions, wrappers, docstrings and references, in match order.
type records struct {
	defs  []rawDef
	refs  []span
	wraps []wrapRec
	docs  []span
}

// wrapRec is one wrapper match: the wrapped definition's span and the
// wrapper's.
type wrapRec struct {
	wrapped span
	wrap    wrapSpan
}

func (r *records) reset() {
	r.defs, r.refs, r.wraps, r.docs = r.defs[:0], r.refs[:0], r.wraps[:0], r.docs[:0]
}

// collect runs the language's query over the whole tree into p.rec. It
// reports whether the tree has syntax errors.
func (p *Parser) collect(cq *compiledQuery, tree *sitter.Tree, src []byte) bool {
	root := tree.RootNode()
	syntaxErrors := root.HasError()
	cur := sitter.NewQueryCursor()
	defer cur.Close()
	cur.Exec(cq.query, root)
	for {
		m, ok := cur.NextMatch()
		if !ok {
			break
		}
		if cq.preds != nil && !cq.accept(m, src) {
			continue
		}
		p.rec.add(&cq.queryInfo, m, src)
	}
	return syntaxErrors
}

// add records one match of the query qi.
func (r *records) add(qi *queryInfo, m *sitter.QueryMatch, src []byte) {
	if len(m.Captures) == 1 {
		c := m.Captures[0]
		switch qi.roles[c.Index].role {
		case roleRef:
			r.refs = append(r.refs, span{c.Node.StartByte(), c.Node.EndByte()})
			return
		case roleDoc:
			r.docs = append(r.docs, span{c.Node.StartByte(), c.Node.EndByte()})
			return
		}
	}
	var (
		d              rawDef
		isDef          bool
		wrap, wrapped  span
		hasWrap, group bool
		hasWrapped     bool
	)
	d.pattern = m.PatternIndex
	for _, c := range m.Captures {
		cr := qi.roles[c.Index]
		switch cr.role {
		case roleDef:
			isDef = true
			d.kind = cr.defKind
			d.start, d.end = c.Node.StartByte(), c.Node.EndByte()
			d.origStart = d.start
		case roleName:
			d.hasName = true
			d.name = span{c.Node.StartByte(), c.Node.EndByte()}
		case roleBody:
			d.hasBody = true
			d.bodyStart = c.Node.StartByte()
		case roleReceiver:
			d.recv = span{c.Node.StartByte(), c.Node.EndByte()}
		case roleWrap, roleGroupWrap:
			hasWrap, group = true, cr.role == roleGroupWrap
			wrap = span{c.Node.StartByte(), c.Node.EndByte()}
		case roleWrapped, roleGroupWrapped:
			hasWrapped = true
			wrapped = span{c.Node.StartByte(), c.Node.EndByte()}
		}
	}
	switch {
	case isDef:
		if d.end > d.start && d.end <= uint32(len(src)) {
			r.defs = append(r.defs, d)
		}
	case hasWrap && hasWrapped:
		r.wraps = append(r.wraps, wrapRec{wrapped: wrapped, wrap: wrapSpan{span: wrap, group: group}})
	}
}

// load makes records the input of symbols and collectRefs: definitions
// (copied: symbols reorders them) and references in p.defs and p.refs,
// wrappers and docstrings in their maps (a later match wins).
func (p *Parser) load(r *records) {
	p.defs = append(p.defs[:0], r.defs...)
	p.refs = append(p.refs[:0], r.refs...)
	clear(p.wraps)
	for _, w := range r.wraps {
		p.wraps[spanKey(w.wrapped)] = w.wrap
	}
	clear(p.docs)
	for _, d := range r.docs {
		p.docs[d.start] = d
	}
}

func spanKey(s span) uint64 { return uint64(s.start)<<32 | uint64(s.end) }

// symbols turns the collected definitions into symbols: wrappers applied,
// duplicates removed, names qualified, locals dropped.
func (p *Parser) symbols(spec *langSpec, src []byte) []Symbol {
	defs := p.defs
	p.widenToWrappers(src, defs)
	sortDefs(defs)

	var syms []Symbol
	p.stack = p.stack[:0]
	p.protos = p.protos[:0]
	clear(p.nameSeen)
	hasProto := false
	var prev span
	for i := range defs {
		d := &defs[i]
		for n := len(p.stack); n > 0 && (p.stack[n-1].end <= d.start || p.stack[n-1].end < d.end); n = len(p.stack) {
			p.stack = p.stack[:n-1]
		}
		if i > 0 && d.start == prev.start && d.end == prev.end {
			continue // the same node matched by a less specific pattern, or another name of a group
		}
		prev = span{d.start, d.end}
		if d.hasName {
			if _, dup := p.nameSeen[d.name.start]; dup {
				continue
			}
			p.nameSeen[d.name.start] = struct{}{}
		}
		var outer *scope
		if n := len(p.stack); n > 0 {
			outer = &p.stack[n-1]
			if outer.function {
				continue // local definition
			}
		}

		name, qual := defName(src, d)
		if name == "" {
			continue
		}
		kind, ok := symbolKind(src, d, name, qual, outer != nil && outer.class)
		if !ok {
			continue
		}
		prefix := ""
		if outer != nil {
			prefix = outer.prefix
		}
		qualified := joinQualified(joinQualified(prefix, qual), name)

		p.stack = append(p.stack, scope{
			end:      d.end,
			function: d.kind.functionLike(),
			class:    d.kind.methodScope() || (outer != nil && outer.class && !d.kind.classLike() && !d.kind.functionLike()),
			prefix:   prefix,
		})
		if d.kind.classLike() {
			p.stack[len(p.stack)-1].prefix = qualified
		}
		if d.kind == defImpl {
			continue // qualifies its methods, is not a symbol itself
		}

		end := trimEnd(src, d.start, d.end)
		syms = append(syms, Symbol{
			Name:      name,
			Qualified: qualified,
			Kind:      kind,
			Range:     rangeFor(p.lines, d.start, end),
			StartByte: d.start,
			EndByte:   end,
			Signature: p.signature(spec, src, d, end),
			Doc:       p.doc(spec, src, d),
		})
		p.protos = append(p.protos, d.kind == defProto)
		hasProto = hasProto || d.kind == defProto
	}
	if hasProto {
		syms = dropDeclaredTwice(syms, p.protos)
	}
	return syms
}

// widenToWrappers widens each definition to the wrappers around it (an
// export, a template, a decorated definition), so that its range takes
// them in.
func (p *Parser) widenToWrappers(src []byte, defs []rawDef) {
	for i := range defs {
		d := &defs[i]
		for range 4 { // wrappers may nest (export of a template, ...)
			w, ok := p.wraps[spanKey(span{d.start, d.end})]
			if !ok || w.start > d.start || w.end < d.end {
				break
			}
			if w.group && bytes.IndexByte(src[w.start:d.start], '(') >= 0 {
				break
			}
			d.start, d.end = w.start, w.end
		}
	}
}

// sortDefs sorts definitions by where they start, outer before inner; a
// node several patterns matched comes first for its first name and its
// first pattern.
func sortDefs(defs []rawDef) {
	slices.SortFunc(defs, func(a, b rawDef) int {
		switch {
		case a.start != b.start:
			return cmpU32(a.start, b.start)
		case a.end != b.end:
			return cmpU32(b.end, a.end) // outer first
		case a.name.start != b.name.start:
			return cmpU32(a.name.start, b.name.start)
		}
		return int(a.pattern) - int(b.pattern)
	})
}

// defName returns a definition's name and the qualifier it spells out
// (a receiver type, a scope before "::"); "default" for an unnamed one.
func defName(src []byte, d *rawDef) (name, qual string) {
	name = "default"
	if d.hasName {
		raw := string(src[d.name.start:d.name.end])
		if d.kind == defImpl {
			name = baseTypeName(raw)
		} else {
			name, qual = splitScoped(raw)
		}
	}
	if d.recv.end > d.recv.start {
		qual = baseTypeName(string(src[d.recv.start:d.recv.end]))
	}
	return name, qual
}

// symbolKind returns the kind of symbol a definition named name is (inClass:
// it is in a class body), or false when it is none: a constant pattern
// matching a name that is not all upper case.
func symbolKind(src []byte, d *rawDef, name, qual string, inClass bool) (Kind, bool) {
	kind := d.kind.kind()
	switch d.kind {
	case defFunction, defProto:
		kind = KindFunction
		if qual != "" || inClass {
			kind = KindMethod
		}
	case defUpperConst:
		if !isUpperName(name) {
			return kind, false
		}
	case defJSVar:
		if bytes.HasPrefix(src[d.origStart:d.end], []byte("const")) {
			kind = KindConst
		}
	}
	return kind, true
}

// dropDeclaredTwice removes C/C++ declarations (prototypes) of functions the
// file also defines.
func dropDeclaredTwice(syms []Symbol, protos []bool) []Symbol {
	defined := make(map[string]struct{})
	for i, s := range syms {
		if !protos[i] && (s.Kind == KindFunction || s.Kind == KindMethod) {
			defined[s.Qualified] = struct{}{}
		}
	}
	out := syms[:0]
	for i, s := range syms {
		if protos[i] {
			if _, ok := defined[s.Qualified]; ok {
				continue
			}
		}
		out = append(out, s)
	}
	return out
}

func cmpU32(a, b uint32) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func joinQualified(prefix, name string) string {
	switch {
	case prefix == "":
		return name
	case name == "":
		return prefix
	}
	return prefix + "." + name
}

// splitScoped splits a possibly scoped name ("Foo::bar", "ns::Foo<T>::get",
// "Outer::Inner") into its last segment and the segment before it (the
// namespace path before that is dropped to keep names short). Template
// arguments are removed.
func splitScoped(raw string) (name, qual string) {
	s := stripBrackets(raw, '<', '>')
	if !strings.Contains(s, "::") {
		return strings.TrimSpace(s), ""
	}
	parts := strings.Split(s, "::")
	name = strings.TrimSpace(parts[len(parts)-1])
	if len(parts) >= 2 {
		qual = strings.TrimSpace(parts[len(parts)-2])
	}
	return name, qual
}

// baseTypeName reduces a type expression to its base name: "*Server[T]" →
// "Server", "&'a mut fmt::Formatter<'_>" → "Formatter".
func baseTypeName(raw string) string {
	s := stripBrackets(stripBrackets(raw, '<', '>'), '[', ']')
	last := ""
	for i := 0; i < len(s); {
		if !isIdentByte(s[i]) {
			i++
			continue
		}
		j := i
		for j < len(s) && isIdentByte(s[j]) {
			j++
		}
		if s[i] != '\'' {
			last = s[i:j]
		}
		i = j
	}
	return last
}

func isIdentByte(c byte) bool {
	return c == '_' || c == '$' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

// stripBrackets removes balanced open...close groups (and their contents).
func stripBrackets(s string, open, close byte) string {
	if strings.IndexByte(s, open) < 0 {
		return s
	}
	var b strings.Builder
	depth := 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == open:
			depth++
		case c == close && depth > 0:
			depth--
		case depth == 0:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// isUpperName reports whether name is an UPPER_CASE constant name.
func isUpperName(name string) bool {
	letter := false
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c >= 'A' && c <= 'Z':
			letter = true
		case c == '_' || c >= '0' && c <= '9':
		default:
			return false
		}
	}
	return letter
}

// trimEnd moves end back over trailing whitespace (some nodes include the
// newline that ends them).
func trimEnd(src []byte, start, end uint32) uint32 {
	for end > start && isSpace(src[end-1]) {
		end--
	}
	return end
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

// lineStarts appends the byte offset of the start of every line of src.
func lineStarts(dst []uint32, src []byte) []uint32 {
	dst = append(dst, 0)
	for off := 0; ; {
		i := bytes.IndexByte(src[off:], '\n')
		if i < 0 {
			return dst
		}
		off += i + 1
		dst = append(dst, uint32(off))
	}
}

// position converts a byte offset to a 0-based line and byte column.
func position(lines []uint32, off uint32) (line, col uint32) {
	i, found := slices.BinarySearch(lines, off)
	if !found {
		i--
	}
	return uint32(i), off - lines[i]
}

// rangeFor converts byte offsets to a Range, given the line starts.
func rangeFor(lines []uint32, start, end uint32) Range {
	sl, sc := position(lines, start)
	el, ec := position(lines, end)
	return Range{StartLine: sl, StartCol: sc, EndLine: el, EndCol: ec}
}

// signature is the text from the start of the definition to the start of
// its body, whitespace folded; without a body, its first line.
func (p *Parser) signature(spec *langSpec, src []byte, d *rawDef, end uint32) string {
	var text []byte
	if d.hasBody && d.bodyStart > d.start && d.bodyStart <= end && !spec.sigFirstLine {
		text = src[d.start:d.bodyStart]
	} else {
		text = src[d.start:end]
		if i := bytes.IndexByte(text, '\n'); i >= 0 {
			text = text[:i]
		}
		text = bytes.TrimRight(text, " \t\r{")
	}
	text = bytes.TrimSpace(text)
	if spec.name == LangPython {
		text = bytes.TrimSuffix(text, []byte(":"))
	}
	p.buf = foldSpace(p.buf[:0], text, maxSignatureBytes)
	return string(p.buf)
}

// foldSpace appends s to dst with whitespace runs folded to one space and
// leading/trailing whitespace removed, cut at max bytes on a rune boundary.
func foldSpace(dst, s []byte, max int) []byte {
	space := false
	for _, c := range s {
		if isSpace(c) {
			space = len(dst) > 0
			continue
		}
		if space {
			dst = append(dst, ' ')
			space = false
		}
		dst = append(dst, c)
	}
	return truncateUTF8(dst, max)
}

// truncateUTF8 cuts b to at most max bytes without splitting a rune.
func truncateUTF8(b []byte, max int) []byte {
	if len(b) <= max {
		return b
	}
	cut := max
	for cut > 0 && cut > max-utf8.UTFMax && !utf8.RuneStart(b[cut]) {
		cut--
	}
	return b[:cut]
}

// doc returns a definition's documentation: a Python docstring, or the
// comment block right above it.
func (p *Parser) doc(spec *langSpec, src []byte, d *rawDef) string {
	if spec.comments == commentNone {
		if !d.hasBody {
			return ""
		}
		if s, ok := p.docs[d.bodyStart]; ok {
			return docstring(src[s.start:s.end])
		}
		return ""
	}
	doc := commentAbove(src, d.start, spec)
	if spec.docTags && strings.IndexByte(doc, '<') >= 0 {
		doc = stripTags(doc)
	}
	return doc
}

// stripTags removes XML tags (<summary>, <param name="x">) from a doc
// comment, keeping their text.
func stripTags(s string) string {
	var b strings.Builder
	for {
		i := strings.IndexByte(s, '<')
		if i < 0 {
			break
		}
		j := strings.IndexByte(s[i:], '>')
		if j < 0 {
			break
		}
		b.WriteString(s[:i])
		s = s[i+j+1:]
	}
	b.WriteString(s)
	return strings.TrimSpace(b.String())
}

// commentAbove collects the comment block that ends on the line right
// above offset start (no blank line between), markers stripped.
func commentAbove(src []byte, start uint32, spec *langSpec) string {
	lineStart := int(start)
	for lineStart > 0 && src[lineStart-1] != '\n' {
		lineStart--
	}
	if len(bytes.TrimSpace(src[lineStart:start])) != 0 {
		return "" // the definition does not start its line
	}
	slashes := spec.comments == commentSlashes || spec.comments == commentSlashesHash
	hash := spec.comments == commentHash || spec.comments == commentSlashesHash
	var lines [][]byte // collected bottom-up
	end := lineStart
	for n := 0; end > 0 && n < maxDocScanLines; n++ {
		ls := end - 1
		for ls > 0 && src[ls-1] != '\n' {
			ls--
		}
		line := bytes.TrimSpace(src[ls : end-1])
		end = ls
		switch {
		case len(lines) == 0 && hasAnyPrefix(line, spec.attrLines):
			continue // an attribute between the comment and the definition
		case slashes && bytes.HasPrefix(line, []byte("//")):
			lines = append(lines, line)
			continue
		case hash && bytes.HasPrefix(line, []byte("#")) && !bytes.HasPrefix(line, []byte("#[")) && !bytes.HasPrefix(line, []byte("#!")):
			lines = append(lines, line)
			continue
		case slashes && len(lines) == 0 && bytes.HasSuffix(line, []byte("*/")):
			block := [][]byte{line}
			for !bytes.Contains(line, []byte("/*")) && end > 0 && len(block) < maxDocScanLines {
				ls = end - 1
				for ls > 0 && src[ls-1] != '\n' {
					ls--
				}
				line = bytes.TrimSpace(src[ls : end-1])
				end = ls
				block = append(block, line)
			}
			if !bytes.Contains(line, []byte("/*")) || !bytes.HasPrefix(line, []byte("/*")) {
				return "" // code before the comment opener, or no opener
			}
			lines = block
		}
		break
	}
	if len(lines) == 0 {
		return ""
	}
	slices.Reverse(lines)
	var b []byte
	for _, l := range lines {
		l, ok := stripCommentMarkers(l)
		if !ok {
			continue
		}
		if len(b) > 0 {
			b = append(b, '\n')
		}
		b = append(b, l...)
	}
	return string(truncateUTF8(bytes.TrimSpace(b), maxDocBytes))
}

func hasAnyPrefix(line []byte, prefixes []string) bool {
	for _, p := range prefixes {
		if bytes.HasPrefix(line, []byte(p)) {
			return true
		}
	}
	return false
}

// stripCommentMarkers removes comment syntax from one trimmed comment
// line; it reports false for lines that are tool directives
// (//go:generate, //nolint:...).
func stripCommentMarkers(l []byte) ([]byte, bool) {
	switch {
	case bytes.HasPrefix(l, []byte("///")):
		l = l[3:]
	case bytes.HasPrefix(l, []byte("//")):
		l = l[2:]
		if isDirective(l) {
			return nil, false
		}
		l = bytes.TrimPrefix(l, []byte("!"))
	case bytes.HasPrefix(l, []byte("#")):
		l = bytes.TrimLeft(l, "#")
	}
	l = bytes.TrimPrefix(l, []byte("/**"))
	l = bytes.TrimPrefix(l, []byte("/*"))
	l = bytes.TrimSuffix(l, []byte("*/"))
	l = bytes.TrimSpace(l)
	l = bytes.TrimLeft(l, "*")
	return bytes.TrimSpace(l), true
}

// isDirective reports whether a "//" comment body is a tool directive
// such as "go:generate" or "nolint:errcheck".
func isDirective(l []byte) bool {
	i := 0
	for i < len(l) && (l[i] >= 'a' && l[i] <= 'z' || l[i] >= '0' && l[i] <= '9') {
		i++
	}
	return i > 0 && i < len(l) && l[i] == ':'
}

// docstring turns a Python string literal statement into its text, quotes
// removed and indentation normalized.
func docstring(lit []byte) string {
	lit = bytes.TrimSpace(lit)
	lit = bytes.TrimLeft(lit, "rRuUbBfF")
	for _, q := range []string{`"""`, `'''`, `"`, `'`} {
		if bytes.HasPrefix(lit, []byte(q)) && bytes.HasSuffix(lit, []byte(q)) && len(lit) >= 2*len(q) {
			lit = lit[len(q) : len(lit)-len(q)]
			break
		}
	}
	lines := bytes.Split(lit, []byte("\n"))
	indent := -1
	for _, l := range lines[1:] {
		if len(bytes.TrimSpace(l)) == 0 {
			continue
		}
		n := len(l) - len(bytes.TrimLeft(l, " \t"))
		if indent < 0 || n < indent {
			indent = n
		}
	}
	var b []byte
	for i, l := range lines {
		if i > 0 {
			b = append(b, '\n')
			if indent > 0 && len(l) >= indent {
				l = l[indent:]
			}
		}
		b = append(b, bytes.TrimRight(l, " \t\r")...)
	}
	return string(truncateUTF8(bytes.TrimSpace(b), maxDocBytes))
}

// fileSymbol is the one symbol of a code file without definitions, or
// false for an empty (or blank) file.
func fileSymbol(filePath string, src []byte, lines []uint32) (Symbol, bool) {
	end := trimEnd(src, 0, uint32(len(src)))
	if end == 0 {
		return Symbol{}, false
	}
	base := path.Base(strings.ReplaceAll(filePath, `\`, "/"))
	first := src[:end]
	if i := bytes.IndexByte(first, '\n'); i >= 0 {
		first = first[:i]
	}
	return Symbol{
		Name:      base,
		Qualified: base,
		Kind:      KindFile,
		Range:     rangeFor(lines, 0, end),
		StartByte: 0,
		EndByte:   end,
		Signature: string(foldSpace(nil, first, maxSignatureBytes)),
	}, true
}

// collectRefs returns the distinct identifiers the file references, in
// order of first use, without the names it defines and short ones. The
// strings share one allocation.
func (p *Parser) collectRefs(src []byte, syms []Symbol) []string {
	clear(p.seen)
	for _, s := range syms {
		p.seen[xxhash.Sum64String(s.Name)] = struct{}{}
	}
	arena := p.buf[:0]
	var ends []uint32
	for _, r := range p.refs {
		if r.end-r.start < minRefLen || r.end > uint32(len(src)) {
			continue
		}
		id := src[r.start:r.end]
		h := xxhash.Sum64(id)
		if _, ok := p.seen[h]; ok {
			continue
		}
		p.seen[h] = struct{}{}
		arena = append(arena, id...)
		ends = append(ends, uint32(len(arena)))
		if len(ends) == maxRefs {
			break
		}
	}
	p.buf = arena
	if len(ends) == 0 {
		return nil
	}
	all := string(arena)
	refs := make([]string, len(ends))
	prev := uint32(0)
	for i, e := range ends {
		refs[i] = all[prev:e]
		prev = e
	}
	return refs
}
