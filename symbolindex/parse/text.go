package parse

import (
	"bytes"
	"encoding/json"
	"path"
	"strconv"
	"strings"
)

// Section sizes, in lines.
const (
	configMinLines = 5  // YAML/TOML/JSON: merge smaller consecutive keys
	configMaxLines = 80 // and split larger ones
	windowMinLines = 40 // plain text, shell, Dockerfile: blank-line blocks
	windowMaxLines = 60 // merged into windows of about this size
	ruleMaxLines   = 80 // Makefile rules longer than this are split
	maxHeadingLvl  = 3  // Markdown headings that start sections
)

// isTextLanguage reports whether lang is sectioned by sectionText.
func isTextLanguage(lang string) bool {
	switch lang {
	case LangMarkdown, LangYAML, LangTOML, LangJSON, LangShell, LangDockerfile, LangMakefile, LangText:
		return true
	}
	return false
}

// textDoc is a non-code file split into lines.
type textDoc struct {
	src   []byte
	lines []uint32 // start offset of each line
	base  string   // file base name
}

func (t *textDoc) n() int { return len(t.lines) }

// line returns line i without its line terminator.
func (t *textDoc) line(i int) []byte {
	end := len(t.src)
	if i+1 < len(t.lines) {
		end = int(t.lines[i+1]) - 1
	}
	l := t.src[t.lines[i]:end]
	return bytes.TrimSuffix(l, []byte("\r"))
}

func (t *textDoc) blank(i int) bool { return len(bytes.TrimSpace(t.line(i))) == 0 }

// block is a run of lines [first, end) that becomes one section.
type block struct {
	first, end int
	name       string // "" names it after the file and its first line
	qualified  string // "" means the same as name
}

func (b block) size() int { return b.end - b.first }

// sectionText cuts a doc or config file into KindModule sections.
func sectionText(lang, filePath string, src []byte, lines []uint32) []Symbol {
	t := &textDoc{src: src, lines: lines, base: path.Base(strings.ReplaceAll(filePath, `\`, "/"))}
	var blocks []block
	switch lang {
	case LangMarkdown:
		blocks = markdownBlocks(t)
	case LangYAML:
		blocks = configBlocks(t, yamlKey)
	case LangTOML:
		blocks = configBlocks(t, tomlSectioner())
	case LangJSON:
		blocks = jsonBlocks(t)
	case LangMakefile:
		blocks = makefileBlocks(t)
	default:
		blocks = windowBlocks(t, 0, t.n())
	}
	return t.symbols(blocks)
}

// symbols turns blocks into symbols, dropping blank ones and keeping
// qualified names unique within the file.
func (t *textDoc) symbols(blocks []block) []Symbol {
	syms := make([]Symbol, 0, len(blocks))
	used := make(map[string]bool, len(blocks))
	for _, b := range blocks {
		for b.first < b.end && t.blank(b.first) {
			b.first++
		}
		for b.end > b.first && t.blank(b.end-1) {
			b.end--
		}
		if b.first >= b.end {
			continue
		}
		start := t.lines[b.first]
		end := trimEnd(t.src, start, uint32(len(t.src)))
		if b.end < t.n() {
			end = trimEnd(t.src, start, t.lines[b.end])
		}
		name := b.name
		if name == "" {
			name = t.base + ":" + strconv.Itoa(b.first+1)
		}
		qualified := b.qualified
		if qualified == "" {
			qualified = name
		}
		if used[qualified] {
			qualified += ":" + strconv.Itoa(b.first+1)
		}
		used[qualified] = true
		syms = append(syms, Symbol{
			Name:      name,
			Qualified: qualified,
			Kind:      KindModule,
			Range:     rangeFor(t.lines, start, end),
			StartByte: start,
			EndByte:   end,
			Signature: string(foldSpace(nil, t.line(b.first), maxSignatureBytes)),
		})
	}
	return syms
}

// markdownBlocks cuts Markdown at headings of level 1 to 3. A section runs
// to the next heading of the same or a higher level, so sections nest; the
// qualified name is the heading path ("Install > From source"). Text
// before the first heading is a section named after the file.
func markdownBlocks(t *textDoc) []block {
	hs := markdownHeadings(t)
	var blocks []block
	firstHeading := t.n()
	for _, h := range hs {
		if h.level <= maxHeadingLvl {
			firstHeading = h.line
			break
		}
	}
	if firstHeading > 0 {
		if firstHeading == t.n() && firstHeading > windowMaxLines {
			return windowBlocks(t, 0, t.n()) // a long file without headings
		}
		blocks = append(blocks, block{first: 0, end: firstHeading, name: t.base})
	}
	type open struct {
		level int
		text  string
	}
	var path []open
	for i, h := range hs {
		if h.level > maxHeadingLvl {
			continue
		}
		end := t.n()
		for _, next := range hs[i+1:] {
			if next.level <= h.level {
				end = next.line
				break
			}
		}
		for len(path) > 0 && path[len(path)-1].level >= h.level {
			path = path[:len(path)-1]
		}
		text := h.text
		if text == "" {
			text = t.base + ":" + strconv.Itoa(h.line+1)
		}
		path = append(path, open{h.level, text})
		parts := make([]string, len(path))
		for j, o := range path {
			parts[j] = o.text
		}
		blocks = append(blocks, block{first: h.line, end: end, name: text, qualified: strings.Join(parts, " > ")})
	}
	return blocks
}

// mdHeading is a Markdown heading: its line (0-based), level and text.
type mdHeading struct {
	line, level int
	text        string
}

// markdownHeadings finds the ATX ("## Install") and setext (a line
// underlined with "===" or "---") headings of Markdown, in order, outside
// fenced code blocks and front matter.
func markdownHeadings(t *textDoc) []mdHeading {
	var hs []mdHeading
	var fence byte // '`' or '~' while inside a fenced code block
	fenceLen := 0
	prevText := false // the previous line is paragraph text (setext candidate)
	for i := frontMatterEnd(t); i < t.n(); i++ {
		l := t.line(i)
		ind := indentOf(l)
		body := l[min(ind, len(l)):]
		if ind <= 3 {
			if c, n := fenceRun(body); n >= 3 {
				switch {
				case fence == 0:
					fence, fenceLen = c, n
					prevText = false
					continue
				case c == fence && n >= fenceLen && len(bytes.TrimSpace(body[n:])) == 0:
					fence = 0
					prevText = false
					continue
				}
			}
		}
		if fence != 0 {
			continue
		}
		if ind <= 3 {
			if lvl, text, ok := atxHeading(body); ok {
				hs = append(hs, mdHeading{i, lvl, text})
				prevText = false
				continue
			}
			if prevText {
				if lvl := setextLevel(body); lvl > 0 {
					hs = append(hs, mdHeading{i - 1, lvl, string(bytes.TrimSpace(t.line(i - 1)))})
					prevText = false
					continue
				}
			}
		}
		prevText = len(bytes.TrimSpace(l)) > 0 && !isListOrQuote(body)
	}
	return hs
}

// frontMatterEnd is the first line after Markdown's front matter (a block
// between "---" lines at the top), 0 when there is none.
func frontMatterEnd(t *textDoc) int {
	if t.n() > 1 && string(bytes.TrimSpace(t.line(0))) == "---" {
		for i := 1; i < t.n(); i++ {
			if l := string(bytes.TrimSpace(t.line(i))); l == "---" || l == "..." {
				return i + 1
			}
		}
	}
	return 0
}

func indentOf(l []byte) int {
	n := 0
	for n < len(l) && (l[n] == ' ' || l[n] == '\t') {
		if l[n] == '\t' {
			return 4
		}
		n++
	}
	return n
}

// fenceRun returns the fence character and run length at the start of l.
func fenceRun(l []byte) (byte, int) {
	if len(l) == 0 || (l[0] != '`' && l[0] != '~') {
		return 0, 0
	}
	n := 0
	for n < len(l) && l[n] == l[0] {
		n++
	}
	return l[0], n
}

// atxHeading parses "## Title ##".
func atxHeading(l []byte) (level int, text string, ok bool) {
	for level < len(l) && l[level] == '#' {
		level++
	}
	if level == 0 || level > 6 || (level < len(l) && l[level] != ' ' && l[level] != '\t') {
		return 0, "", false
	}
	rest := bytes.TrimSpace(l[level:])
	if trimmed := bytes.TrimRight(rest, "#"); len(trimmed) == 0 || trimmed[len(trimmed)-1] == ' ' || trimmed[len(trimmed)-1] == '\t' {
		rest = bytes.TrimSpace(trimmed)
	}
	return level, string(rest), true
}

// setextLevel returns 1 for a "===" underline, 2 for "---", else 0.
func setextLevel(l []byte) int {
	l = bytes.TrimSpace(l)
	if len(l) == 0 {
		return 0
	}
	c := l[0]
	if c != '=' && c != '-' {
		return 0
	}
	for _, x := range l {
		if x != c {
			return 0
		}
	}
	if c == '=' {
		return 1
	}
	if len(l) >= 2 {
		return 2
	}
	return 0
}

func isListOrQuote(l []byte) bool {
	if len(l) == 0 {
		return false
	}
	switch l[0] {
	case '>', '|':
		return true
	case '-', '*', '+':
		return len(l) == 1 || l[1] == ' ' || l[1] == '\t'
	}
	return false
}

// configBlocks cuts YAML or TOML at top-level keys (key reports the name a
// line starts, or ""), attaching the comments right above a key to it, then
// merges small neighbours and splits long blocks.
func configBlocks(t *textDoc, key func(l []byte) string) []block {
	var blocks []block
	for i := 0; i < t.n(); i++ {
		name := key(t.line(i))
		if name == "" {
			continue
		}
		first := i
		for first > 0 && isCommentLine(t.line(first-1)) {
			first--
		}
		if len(blocks) == 0 {
			first = 0
		} else {
			blocks[len(blocks)-1].end = first
		}
		blocks = append(blocks, block{first: first, end: t.n(), name: name})
	}
	if len(blocks) == 0 {
		return windowBlocks(t, 0, t.n())
	}
	return t.splitLong(mergeSmall(blocks, configMinLines, configMaxLines), configMaxLines)
}

func isCommentLine(l []byte) bool {
	return len(l) > 0 && l[0] == '#'
}

// yamlKey returns the top-level key a YAML line starts, or "".
func yamlKey(l []byte) string {
	if len(l) == 0 {
		return ""
	}
	switch l[0] {
	case ' ', '\t', '#', '-', '.', '%', '?', '[', '{', '}', ']', '|', '>':
		return ""
	}
	i := bytes.Index(l, []byte(": "))
	if i < 0 {
		if !bytes.HasSuffix(bytes.TrimRight(l, " \t"), []byte(":")) {
			return ""
		}
		i = len(bytes.TrimRight(l, " \t")) - 1
	}
	return strings.Trim(strings.TrimSpace(string(l[:i])), `"'`)
}

// tomlSectioner returns a key function for configBlocks that names the
// table a TOML line opens ("[server]", "[[bin]]") and, before the first
// table, root "key = value" lines; keys inside a table belong to it.
func tomlSectioner() func(l []byte) string {
	inTable := false
	return func(l []byte) string {
		name, table := tomlKey(l)
		if table {
			inTable = true
			return name
		}
		if inTable {
			return ""
		}
		return name
	}
}

// tomlKey returns the table a TOML line opens, or the key of a
// "key = value" line at column 0, or "".
func tomlKey(l []byte) (name string, table bool) {
	s := bytes.TrimSpace(l)
	if len(s) == 0 || s[0] == '#' {
		return "", false
	}
	if s[0] == '[' {
		if i := bytes.IndexByte(s, '#'); i >= 0 {
			s = bytes.TrimSpace(s[:i])
		}
		if !bytes.HasSuffix(s, []byte("]")) {
			return "", false // an array value continued on this line
		}
		return string(bytes.TrimSpace(bytes.Trim(s, "[]"))), true
	}
	if l[0] == ' ' || l[0] == '\t' {
		return "", false
	}
	i := bytes.IndexByte(s, '=')
	if i <= 0 {
		return "", false
	}
	k := bytes.TrimSpace(s[:i])
	for _, c := range k {
		if !isIdentByte(c) && c != '-' && c != '.' && c != '"' && c != '\'' && c != ' ' {
			return "", false
		}
	}
	return strings.Trim(string(k), `"'`), false
}

// jsonBlocks cuts a JSON object at its top-level keys; other JSON (arrays,
// scalars, JSON with comments) is cut into line windows.
func jsonBlocks(t *textDoc) []block {
	dec := json.NewDecoder(bytes.NewReader(t.src))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return windowBlocks(t, 0, t.n())
	}
	var blocks []block
	for dec.More() {
		off := int(dec.InputOffset())
		tok, err := dec.Token()
		if err != nil {
			return windowBlocks(t, 0, t.n())
		}
		key, _ := tok.(string)
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return windowBlocks(t, 0, t.n())
		}
		for off < len(t.src) && (isSpace(t.src[off]) || t.src[off] == ',') {
			off++
		}
		line, _ := position(t.lines, uint32(off))
		first := int(line)
		if len(blocks) > 0 && blocks[len(blocks)-1].first == first {
			continue // several keys on one line
		}
		if len(blocks) == 0 {
			first = 0
		} else {
			blocks[len(blocks)-1].end = first
		}
		blocks = append(blocks, block{first: first, end: t.n(), name: key})
	}
	if len(blocks) == 0 {
		return windowBlocks(t, 0, t.n())
	}
	return t.splitLong(mergeSmall(blocks, configMinLines, configMaxLines), configMaxLines)
}

// makefileBlocks cuts a Makefile at rule targets. Comments and special
// targets (.PHONY: ...) right above a rule belong to it; text before the
// first rule is cut into windows.
func makefileBlocks(t *textDoc) []block {
	var blocks []block
	firstRule := -1
	for i := 0; i < t.n(); i++ {
		target := makeTarget(t.line(i))
		if target == "" {
			continue
		}
		first := i
		for first > 0 {
			prev := t.line(first - 1)
			if !isCommentLine(prev) && !(len(prev) > 0 && prev[0] == '.' && bytes.IndexByte(prev, ':') > 0) {
				break
			}
			first--
		}
		if len(blocks) > 0 {
			first = max(first, blocks[len(blocks)-1].first+1)
			blocks[len(blocks)-1].end = first
		} else {
			firstRule = first
		}
		blocks = append(blocks, block{first: first, end: t.n(), name: target})
	}
	if firstRule < 0 {
		return windowBlocks(t, 0, t.n())
	}
	pre := windowBlocks(t, 0, firstRule)
	return append(pre, t.splitLong(blocks, ruleMaxLines)...)
}

// makeTarget returns the first target a Makefile rule line names, or ""
// (for recipes, assignments, directives and special targets).
func makeTarget(l []byte) string {
	if len(l) == 0 || l[0] == '\t' || l[0] == ' ' || l[0] == '#' || l[0] == '.' {
		return ""
	}
	i := bytes.IndexByte(l, ':')
	if i <= 0 || bytes.IndexByte(l[:i], '=') >= 0 {
		return ""
	}
	if i+1 < len(l) && l[i+1] == '=' {
		return "" // VAR := value
	}
	if i+2 < len(l) && l[i+1] == ':' && l[i+2] == '=' {
		return "" // VAR ::= value
	}
	fields := strings.Fields(string(l[:i]))
	if len(fields) == 0 {
		return ""
	}
	return fields[0]
}

// windowBlocks cuts lines [from, to) at blank lines into windows of about
// windowMinLines..windowMaxLines lines, named after the file and line.
func windowBlocks(t *textDoc, from, to int) []block {
	var blocks []block
	cur := block{first: -1}
	for i := from; i < to; {
		for i < to && t.blank(i) {
			i++
		}
		if i == to {
			break
		}
		j := i
		for j < to && !t.blank(j) {
			j++
		}
		// paragraph [i, j)
		switch {
		case cur.first < 0:
			cur = block{first: i, end: j}
		case j-cur.first <= windowMaxLines:
			cur.end = j
		default:
			blocks = append(blocks, cur)
			cur = block{first: i, end: j}
		}
		if cur.size() >= windowMinLines {
			blocks = append(blocks, cur)
			cur = block{first: -1}
		}
		i = j
	}
	if cur.first >= 0 {
		blocks = append(blocks, cur)
	}
	return t.splitLong(blocks, windowMaxLines)
}

// mergeSmall merges consecutive blocks smaller than minLines while the
// result stays within maxLines; the merged block keeps the first name.
func mergeSmall(blocks []block, minLines, maxLines int) []block {
	out := blocks[:0]
	cur := blocks[0]
	for _, b := range blocks[1:] {
		if cur.size() < minLines && cur.size()+b.size() <= maxLines {
			cur.end = b.end
			continue
		}
		out = append(out, cur)
		cur = b
	}
	if n := len(out); n > 0 && cur.size() < minLines && out[n-1].size()+cur.size() <= maxLines {
		out[n-1].end = cur.end
	} else {
		out = append(out, cur)
	}
	return out
}

// splitLong splits blocks longer than maxLines, preferring blank lines as
// cut points; the parts after the first are qualified with their line.
func (t *textDoc) splitLong(blocks []block, maxLines int) []block {
	var out []block
	for _, b := range blocks {
		for b.size() > maxLines {
			cut := b.first + maxLines
			for c := cut; c > b.first+maxLines/2; c-- {
				if t.blank(c - 1) {
					cut = c
					break
				}
			}
			out = append(out, block{first: b.first, end: cut, name: b.name, qualified: b.qualified})
			b.first = cut
			if b.name != "" {
				b.qualified = b.name + ":" + strconv.Itoa(cut+1)
			}
		}
		out = append(out, b)
	}
	return out
}
