package workspace

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"path"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/cespare/xxhash/v2"

	"github.com/ctxls/ctxls/heuristics"
	"github.com/ctxls/ctxls/symbolindex"
	"github.com/ctxls/ctxls/symbolindex/cachefile"
	"github.com/ctxls/ctxls/workspace/glob"
)

// Context items are what a selection returns beside code: rules (AGENTS.md,
// CLAUDE.md, Cursor, Copilot and Continue rules, .ctxls/items), memory
// notes (memory.go) and the tools a client registered (Config.Tools).
// Documentation sections come from the code ranking and keep their symbol
// kind; they are items of kind "doc" for includeItems and the item share.
// Each item has an include mode:
//
//   - always: included first, before code, whatever the query; a rule
//     scoped by globs applies when the active file or a selected code item
//     matches them (and, with a description, is an agent rule otherwise);
//   - manual: only when the request names it (items, or "@name" in the
//     query);
//   - agent: when its words match the query's (itemScore) at least
//     Config.ItemThreshold, at most Config.ItemTopN of them unless they
//     score Config.ItemIncludeScore.
//
// Memory notes are chosen like agent items, their score decaying with age
// unless pinned. Items of identical content found under several paths are
// one item that lists them all. Every file is read through the gate.

// contextItem is one item other than code.
type contextItem struct {
	kind, name, include string
	description         string
	globs               *glob.Set // a scoped rule's; nil: unscoped
	text                string    // what the result holds
	match               string    // what the query is matched against
	root                string    // the folder of a file's item
	paths               []string  // relative to root; the first is where it was found first
	span                Span
	startLine, endLine  []byte
	lang                string
	note                *Note

	reason string
	score  float64 // how well it matches the query, in [0,1]
	rank   int     // among the items that came in on their score
	fused  float64
}

// id is the item's id on the wire: "rule:<name>", "memory:<id>",
// "tool:<name>".
func (it *contextItem) id() string { return it.kind + ":" + it.name }

// ruleSource is a place rules are found in a workspace folder: one file, or
// the files of a directory with one of the suffixes.
type ruleSource struct {
	dir      string // relative to the folder; "" is the folder itself
	file     string
	suffixes []string
	// dflt is the include mode of a rule whose front matter says nothing:
	// instructions for the whole repository apply always.
	dflt string
}

var ruleSources = []ruleSource{
	{file: "AGENTS.md", dflt: IncludeAlways},
	{file: "CLAUDE.md", dflt: IncludeAlways},
	{file: ".cursorrules", dflt: IncludeAlways},
	{dir: ".github", file: "copilot-instructions.md", dflt: IncludeAlways},
	{dir: ".cursor/rules", suffixes: []string{".mdc", ".md"}, dflt: IncludeManual},
	{dir: ".github/instructions", suffixes: []string{".instructions.md"}, dflt: IncludeManual},
	{dir: ".continue/rules", suffixes: []string{".md"}, dflt: IncludeAlways},
	{dir: ".ctxls/items", suffixes: []string{".md"}, dflt: IncludeManual},
}

// scopedRuleNames are rule files that also count below the folder's top,
// for their directory: a nested AGENTS.md applies to the code beside it.
var scopedRuleNames = []string{"AGENTS.md", "CLAUDE.md"}

// Bounds on what a workspace's rules may cost. Rules are read for every
// request, so a hostile repository could otherwise make every request
// slow: a rule file with 50,000 globs, thousands of rule files, a rule of
// megabytes. Each refusal is warned about once, naming the file and the
// bound:
//
//   - a rule file over MaxRuleBytes (or maxFileBytes, when smaller) is
//     skipped;
//   - past MaxRuleFiles rule files in a folder, or MaxFolderRuleBytes of
//     them, the rest (in the order they are found: the top-level files,
//     the rule directories by name, the nested AGENTS.md and CLAUDE.md by
//     path) are skipped;
//   - a rule directory is listed up to maxRuleDirEntries entries;
//   - a glob longer than MaxRuleGlobBytes, or malformed, is dropped; past
//     MaxRuleGlobs globs, or MaxRuleGlobAlternatives once their {a,b}
//     alternations are expanded, a rule keeps its first globs and drops
//     the rest (it applies to fewer files, never to more);
//   - a scoped rule none of whose globs is kept, or past
//     MaxFolderGlobAlternatives for all the rules of its folder, is
//     skipped.
//
// A rule file skipped for a bound is not ranked as code either.
const (
	MaxRuleBytes              = 64 << 10
	MaxRuleFiles              = 128
	MaxFolderRuleBytes        = 512 << 10
	MaxRuleGlobs              = 64
	MaxRuleGlobBytes          = 256
	MaxRuleGlobAlternatives   = 256
	MaxFolderGlobAlternatives = 2048
	maxRuleDirEntries         = 4096
)

// ruleBudget is what the rules of one folder have cost so far.
type ruleBudget struct {
	root    string
	files   int
	bytes   int
	alts    int
	skipped []string // rule files past MaxRuleFiles
}

// rules discovers the rule files of every folder, reads them through the
// gate (an open document's text wins) and collapses identical ones. It also
// returns the rule files by folder root, which the code ranking leaves out:
// their text comes as rules.
func (s *Snapshot) rules() ([]*contextItem, map[string]map[string]bool) {
	var out []*contextItem
	files := map[string]map[string]bool{}
	for _, fv := range s.folders {
		files[fv.Root] = map[string]bool{}
		budget := &ruleBudget{root: fv.Root}
		add := func(rel, dflt, scope string) {
			if files[fv.Root][rel] {
				return
			}
			if budget.files >= MaxRuleFiles {
				budget.skipped = append(budget.skipped, rel)
				files[fv.Root][rel] = true
				return
			}
			it, refused := s.readRule(fv.Root, rel, dflt, scope, budget)
			if it != nil {
				out = append(out, it)
			}
			// A rule file refused for a bound is not code either.
			files[fv.Root][rel] = it != nil || refused
		}
		for _, src := range ruleSources {
			if src.file != "" {
				add(path.Join(src.dir, src.file), src.dflt, "")
				continue
			}
			for _, name := range s.listRuleDir(fv.Root, src.dir) {
				for _, suf := range src.suffixes {
					if strings.HasSuffix(name, suf) && len(name) > len(suf) {
						add(src.dir+"/"+name, src.dflt, "")
						break
					}
				}
			}
		}
		for _, base := range scopedRuleNames {
			var nested []string
			for _, fs := range fv.idx.FilesNamed(base) {
				if rel := fv.idx.FilePath(fs); rel != base {
					nested = append(nested, rel)
				}
			}
			slices.Sort(nested)
			for _, rel := range nested {
				add(rel, IncludeAlways, path.Dir(rel)+"/**")
			}
		}
		if n := len(budget.skipped); n > 0 {
			s.warn.once(fmt.Sprintf("ctxls: %s has %d rule files past MaxRuleFiles (%d); skipped: %s",
				fv.Root, n, MaxRuleFiles, firstFew(budget.skipped)))
		}
	}
	return collapseItems(out), files
}

// firstFew lists names for a warning, the first few of them.
func firstFew(names []string) string {
	const most = 5
	if len(names) > most {
		return strings.Join(names[:most], ", ") + fmt.Sprintf(" and %d more", len(names)-most)
	}
	return strings.Join(names, ", ")
}

// listRuleDir lists the file names in the directory rel of the folder root,
// sorted; nothing when it is missing, not a directory or leads out of the
// folder. At most maxRuleDirEntries entries are read.
func (s *Snapshot) listRuleDir(root, rel string) []string {
	real, err := realPath(joinRoot(root, rel))
	if err != nil || !within(root, real) {
		return nil
	}
	entries, more, err := cachefile.ReadDir(real, maxRuleDirEntries)
	if err != nil {
		return nil
	}
	if more {
		s.warn.once(fmt.Sprintf("ctxls: rule directory %s holds more than %d entries (maxRuleDirEntries); only the first %d listed are read",
			real, maxRuleDirEntries, maxRuleDirEntries))
	}
	var names []string
	for _, e := range entries {
		if e.Type().IsRegular() {
			names = append(names, e.Name())
		}
	}
	slices.Sort(names)
	return names
}

// readRuleText is the text of the rule file abs of the folder root, as
// readText gives it, bounded by MaxRuleBytes (or maxFileBytes). Over the
// bound it is nil, with a warning, and refused is true.
func (s *Snapshot) readRuleText(root, abs string) (src []byte, refused bool) {
	limit, bound := int64(MaxRuleBytes), "MaxRuleBytes"
	if s.cfg.MaxFileBytes < limit {
		limit, bound = s.cfg.MaxFileBytes, "maxFileBytes"
	}
	src, ok := s.docs[abs]
	if !ok {
		var err error
		if src, _, err = readRegular(root, abs, limit); err != nil {
			if errors.Is(err, errTooLarge) {
				s.warn.once(fmt.Sprintf("ctxls: rule file %s is over %s (%d bytes); skipped", abs, bound, limit))
				return nil, true
			}
			return nil, false
		}
	}
	if int64(len(src)) > limit {
		s.warn.once(fmt.Sprintf("ctxls: rule file %s is over %s (%d bytes); skipped", abs, bound, limit))
		return nil, true
	}
	return src, false
}

// readRule reads the rule file rel of the folder root and its front matter;
// nil when there is none or it is empty, and nil with refused when it is
// over a bound of budget. scope, when not "", is the glob of the
// directory a nested rule file applies to.
func (s *Snapshot) readRule(root, rel, dflt, scope string, budget *ruleBudget) (it *contextItem, refused bool) {
	abs := joinRoot(root, rel)
	src, refused := s.readRuleText(root, abs)
	if len(bytes.TrimSpace(src)) == 0 {
		return nil, refused
	}
	if budget.bytes+len(src) > MaxFolderRuleBytes {
		s.warn.once(fmt.Sprintf("ctxls: rule file %s is past MaxFolderRuleBytes (%d bytes of rules in %s); skipped", abs, MaxFolderRuleBytes, root))
		return nil, true
	}
	fm, bodyLine, body := frontMatter(src)
	if len(bytes.TrimSpace(body)) == 0 {
		return nil, false
	}
	it = &contextItem{kind: ItemRule, root: root, paths: []string{rel}, lang: symbolindex.LangMarkdown, text: string(body)}
	it.name = ruleName(rel)
	if n := fm.str("name"); n != "" {
		it.name = n
	}
	it.description = fm.str("description")
	// One past the bound is enough to know it is over.
	globs := fm.listN("globs", MaxRuleGlobs+1)
	globs = append(globs, fm.listN("applyTo", MaxRuleGlobs+1-len(globs))...)
	if scope != "" && len(globs) == 0 {
		globs = []string{scope}
	}
	if len(globs) > 0 {
		kept, alts := s.ruleGlobs(abs, globs)
		if budget.alts+alts > MaxFolderGlobAlternatives {
			s.warn.once(fmt.Sprintf("ctxls: rule file %s is past MaxFolderGlobAlternatives (%d glob alternatives in the rules of %s); skipped",
				abs, MaxFolderGlobAlternatives, root))
			return nil, true
		}
		if len(kept) == 0 { // scoped, but every glob was dropped
			return nil, true
		}
		set, err := glob.CompileSet(kept)
		if err != nil {
			return nil, true
		}
		it.globs = set
		budget.alts += alts
	}
	budget.files++
	budget.bytes += len(src)
	it.include = includeMode(fm, dflt, it.description, it.globs != nil)
	it.match = it.name + "\n" + it.description
	if it.description == "" {
		it.match += "\n" + it.text
	}
	it.span = Span{StartLine: uint32(bodyLine)}
	end := endRange(src)
	it.span.EndLine, it.span.EndCol = end.EndLine, end.EndCol
	it.startLine, it.endLine = lineAt(src, it.span.StartLine), lineAt(src, it.span.EndLine)
	return it, false
}

// ruleGlobs are the globs of the rule file abs within the bounds on one
// rule's globs, with the number of alternatives they expand to. What is
// dropped is told in one warning for the file.
func (s *Snapshot) ruleGlobs(abs string, globs []string) ([]string, int) {
	var kept, dropped []string
	alts := 0
	for i, g := range globs {
		if len(kept) == MaxRuleGlobs {
			dropped = append(dropped, fmt.Sprintf("it lists more than MaxRuleGlobs (%d) globs: only the first %d are used", MaxRuleGlobs, MaxRuleGlobs))
			break
		}
		if len(g) > MaxRuleGlobBytes {
			dropped = append(dropped, fmt.Sprintf("glob %d is %d bytes, over MaxRuleGlobBytes (%d): dropped", i+1, len(g), MaxRuleGlobBytes))
			continue
		}
		c, err := glob.Compile(g)
		if err != nil {
			dropped = append(dropped, fmt.Sprintf("glob %d: %v: dropped", i+1, err))
			continue
		}
		if alts+c.Alternatives() > MaxRuleGlobAlternatives {
			dropped = append(dropped, fmt.Sprintf("glob %d brings its globs' {a,b} alternatives over MaxRuleGlobAlternatives (%d): only the %d before it are used",
				i+1, MaxRuleGlobAlternatives, len(kept)))
			break
		}
		alts += c.Alternatives()
		kept = append(kept, g)
	}
	if len(dropped) > 0 {
		if len(kept) == 0 {
			dropped = append(dropped, "no glob is left: the rule is skipped")
		}
		s.warn.once(fmt.Sprintf("ctxls: rule file %s: %s", abs, strings.Join(dropped, "; ")))
	}
	return kept, alts
}

// onceWarner tells each warning once. Its mutex is a leaf: a snapshot
// warns through it.
type onceWarner struct {
	mu   sync.Mutex
	seen map[string]bool
	warn func(string)
}

func (o *onceWarner) once(msg string) {
	if o == nil {
		return
	}
	o.mu.Lock()
	seen := o.seen[msg]
	o.seen[msg] = true
	o.mu.Unlock()
	if !seen {
		o.warn(msg)
	}
}

// ruleName is the name a rule file is asked for by: its base name without
// the rule suffixes (".cursor/rules/db-migrations.mdc" is "db-migrations");
// a nested AGENTS.md or CLAUDE.md keeps its directory ("api/AGENTS").
func ruleName(rel string) string {
	base := path.Base(rel)
	for _, suf := range []string{".instructions.md", ".mdc", ".md"} {
		if b, ok := strings.CutSuffix(base, suf); ok && b != "" {
			base = b
			break
		}
	}
	base = strings.TrimPrefix(base, ".")
	if dir := path.Dir(rel); dir != "." && slices.Contains(scopedRuleNames, path.Base(rel)) {
		return dir + "/" + base
	}
	return base
}

// includeMode is a rule's include mode from its front matter: an explicit
// "include", else alwaysApply, else globs (always, within their scope),
// else the description (agent), else the source's default.
func includeMode(fm fields, dflt, description string, scoped bool) string {
	switch inc := fm.str("include"); inc {
	case IncludeAlways, IncludeManual, IncludeAgent:
		return inc
	}
	always, set := fm.bool("alwaysApply")
	switch {
	case set && always:
		return IncludeAlways
	case scoped:
		return IncludeAlways
	case set && description != "":
		return IncludeAgent
	case set:
		return IncludeManual
	case dflt == IncludeAlways:
		return IncludeAlways
	case description != "":
		return IncludeAgent
	}
	return IncludeManual
}

// collapseItems merges the items of one folder with identical text into
// the first of them, which lists every path; its name and include mode
// stand for all.
func collapseItems(items []*contextItem) []*contextItem {
	type key struct {
		root string
		text uint64
	}
	byText := map[key]*contextItem{}
	names := map[string]int{}
	out := items[:0]
	for _, it := range items {
		h := key{it.root, xxhash.Sum64String(strings.TrimSpace(it.text))}
		if first, ok := byText[h]; ok {
			first.paths = append(first.paths, it.paths...)
			continue
		}
		byText[h] = it
		// Names are ids: a second rule of the same name (another folder's
		// AGENTS.md) gets a number.
		name := strings.ToLower(it.name)
		if n := names[name]; n > 0 {
			it.name = fmt.Sprintf("%s~%d", it.name, n+1)
		}
		names[name]++
		out = append(out, it)
	}
	return out
}

// toolItems are the tools the configuration registers.
func (s *Snapshot) toolItems() []*contextItem {
	out := make([]*contextItem, 0, len(s.cfg.Tools))
	for _, t := range s.cfg.Tools {
		inc := t.Include
		if inc == "" {
			inc = IncludeAgent
		}
		out = append(out, &contextItem{kind: ItemTool, name: t.Name, include: inc, description: t.Description,
			text: t.Description, match: t.Name + "\n" + t.Description})
	}
	return out
}

// memoryItems are the remembered notes.
func (s *Snapshot) memoryItems() []*contextItem {
	out := make([]*contextItem, 0, len(s.notes))
	for i := range s.notes {
		n := &s.notes[i]
		out = append(out, &contextItem{kind: ItemMemory, name: n.ID, include: IncludeAgent, text: n.Text,
			match: n.Text + "\n" + strings.Join(n.Tags, " "), root: n.Root, paths: n.Paths, note: n})
	}
	return out
}

// itemPick is the context items a request gets: the required ones (always,
// named), first, and the ones that came in on their score, to be fused with
// the code.
type itemPick struct {
	required, scored []*contextItem
}

// atName is an item named in the query: "@db-migrations".
var atName = regexp.MustCompile(`(?:^|[\s(\[,;])@([A-Za-z0-9_][A-Za-z0-9_.~/-]*)`)

// pickItems chooses the context items of a request. codePaths are the
// folder-relative paths of the code the ranking put first, by folder root,
// for scoped rules and notes about files.
func (s *Snapshot) pickItems(p *plan, q *query, rules []*contextItem, codePaths map[string][]string) (itemPick, error) {
	var all []*contextItem
	for _, group := range [][]*contextItem{rules, s.toolItems(), s.memoryItems()} {
		all = append(all, group...)
	}
	named := map[string]bool{}
	for i, ref := range p.req.Items {
		it := findItem(all, ref)
		if it == nil {
			return itemPick{}, paramErr(fmt.Sprintf("items[%d]", i), "no context item named %q (%s)", ref, knownItems(all))
		}
		named[it.id()] = true
	}
	for _, m := range atName.FindAllStringSubmatch(p.req.Query, -1) {
		if it := findItem(all, strings.TrimRight(m[1], ".")); it != nil {
			named[it.id()] = true
		}
	}
	var pick itemPick
	var scored []*contextItem
	for _, it := range all {
		switch {
		case !p.itemKind(it.kind):
		case named[it.id()]:
			it.reason, it.fused = ReasonManual, 1
			pick.required = append(pick.required, it)
		case it.include == IncludeAlways && (it.globs == nil || it.inScope(p, codePaths)):
			it.reason, it.fused = ReasonAlways, 1
			pick.required = append(pick.required, it)
		case p.req.NoRetrieval || it.include == IncludeManual:
		case it.include == IncludeAgent || it.include == IncludeAlways && it.description != "":
			if it.score = s.itemScore(it, q, p, codePaths); it.score >= s.cfg.ItemThreshold && it.score > 0 {
				scored = append(scored, it)
			}
		}
	}
	// Always rules before named items, each in the order found.
	sort.SliceStable(pick.required, func(i, j int) bool {
		return pick.required[i].reason == ReasonAlways && pick.required[j].reason != ReasonAlways
	})
	sort.SliceStable(scored, func(i, j int) bool { return scored[i].score > scored[j].score })
	for i, it := range scored {
		if i >= s.cfg.ItemTopN && it.score < s.cfg.ItemIncludeScore {
			break
		}
		it.rank = i + 1
		it.reason = ReasonAgent
		if it.kind == ItemMemory {
			it.reason = ReasonRetrieved
		}
		it.fused = heuristics.ItemFused(it.score, it.rank)
		pick.scored = append(pick.scored, it)
	}
	return pick, nil
}

// findItem is the item a request names: by id ("rule:db-migrations") or by
// name, ignoring case.
func findItem(all []*contextItem, ref string) *contextItem {
	for _, it := range all {
		if strings.EqualFold(ref, it.id()) || strings.EqualFold(ref, it.name) {
			return it
		}
	}
	return nil
}

// knownItems says which items there are, for an error.
func knownItems(all []*contextItem) string {
	var names []string
	for _, it := range all {
		if it.kind != ItemMemory {
			names = append(names, it.name)
		}
	}
	if len(names) == 0 {
		return "the workspace has no rules and no tools are registered"
	}
	const most = 12
	if len(names) > most {
		return "known: " + strings.Join(names[:most], ", ") + ", …"
	}
	return "known: " + strings.Join(names, ", ")
}

// inScope reports whether a scoped item's globs match the active file or
// one of the code items ranked first.
func (it *contextItem) inScope(p *plan, codePaths map[string][]string) bool {
	if p.activeAbs != "" && within(it.root, p.activeAbs) && it.globs.MatchAny(relPathOf(it.root, p.activeAbs)) {
		return true
	}
	for _, rel := range codePaths[it.root] {
		if it.globs.MatchAny(rel) {
			return true
		}
	}
	return false
}

// itemScore is how well an item matches the query, in [0,1]: the share of
// the query's terms (weighted by their rarity in the code, and the
// history's by their weight) that the item's name, description (or text)
// hold, or the cosine of their vectors, whichever is higher. A note about the active file or a selected one scores at least
// heuristics.MemoryPathScore; a note's score halves every
// Config.MemoryHalfLife unless it is pinned.
func (s *Snapshot) itemScore(it *contextItem, q *query, p *plan, codePaths map[string][]string) float64 {
	have := map[string]bool{}
	symbolindex.Terms(it.match, func(t string) { have[t] = true })
	var num, den float64
	for _, t := range q.terms {
		w := float64(t.Weight) * s.termIDF(t.Term)
		den += w
		if have[t.Term] {
			num += w
		}
	}
	score := 0.0
	if den > 0 {
		score = num / den
	}
	if q.vec != nil { // a deictic query has no vector: embed no item for it
		if v := s.itemVec(it.match); v != nil {
			score = math.Max(score, dot(q.vec, v))
		}
	}
	if n := it.note; n != nil {
		if n.mentions(p, codePaths) {
			score = math.Max(score, heuristics.MemoryPathScore)
		}
		if !n.Pinned {
			score *= heuristics.Decay(s.now.Sub(n.Created), time.Duration(s.cfg.MemoryHalfLife))
		}
	}
	return score
}

// termIDF is a term's rarity in the code of the workspace: its highest IDF
// over the folders.
func (s *Snapshot) termIDF(term string) float64 {
	best := 0.0
	for _, fv := range s.folders {
		best = math.Max(best, float64(fv.idx.TermIDF(term)))
	}
	return best
}

// mentions reports whether a note is about the active file or a code item
// ranked first.
func (n *Note) mentions(p *plan, codePaths map[string][]string) bool {
	for _, rel := range n.Paths {
		if p.activeAbs == joinRoot(n.Root, rel) || slices.Contains(codePaths[n.Root], rel) {
			return true
		}
	}
	return false
}

// itemKind reports whether the request takes items of a kind.
func (p *plan) itemKind(kind string) bool {
	on, set := p.req.IncludeItems[kind]
	return on || !set
}

// selected turns an item into a result item with its text cut to n bytes.
func (it *contextItem) selected(n int, cut bool) Selected {
	text, trunc := heuristics.TruncateText(it.text, n)
	sel := Selected{
		ID: it.id(), Symbol: it.name, Kind: it.kind, Language: it.lang, Text: text, Truncated: trunc || cut,
		Score: round4(it.fused), Reason: it.reason, Span: it.span, StartLineText: it.startLine, EndLineText: it.endLine,
	}
	if it.rank > 0 {
		sel.Signals = map[string]Signal{heuristics.SourceNames[heuristics.SrcItem]: {Rank: it.rank, Score: round4(it.score)}}
	}
	if len(it.paths) > 0 {
		sel.Paths = it.paths
	}
	if it.kind == ItemRule {
		sel.Path, sel.Abs = it.paths[0], joinRoot(it.root, it.paths[0])
	}
	return sel
}

// frontMatter splits a rule file into its front matter (the YAML-like
// block between "---" lines at the top: "key: value", "key: [a, b]", or a
// key followed by "- item" lines), the 0-based line its body starts on, and
// the body.
func frontMatter(src []byte) (fields, int, []byte) {
	fm := fields{}
	rest, ok := cutLine(src, "---")
	if !ok {
		return fm, 0, src
	}
	line := 1
	var key string
	for len(rest) > 0 {
		var l []byte
		l, rest, _ = bytes.Cut(rest, []byte{'\n'})
		line++
		t := strings.TrimSpace(string(bytes.TrimRight(l, "\r")))
		switch {
		case t == "---":
			return fm, line, rest
		case strings.HasPrefix(t, "- ") && key != "":
			fm[key] = append(fm[key], unquote(strings.TrimSpace(t[2:])))
		case t == "" || strings.HasPrefix(t, "#"):
		default:
			k, v, found := strings.Cut(t, ":")
			if !found {
				continue
			}
			key = strings.TrimSpace(k)
			v = strings.TrimSpace(v)
			fm[key] = nil
			if strings.HasPrefix(v, "[") && strings.HasSuffix(v, "]") {
				for _, e := range splitList(v[1 : len(v)-1]) {
					if e = unquote(strings.TrimSpace(e)); e != "" {
						fm[key] = append(fm[key], e)
					}
				}
			} else if v != "" {
				fm[key] = []string{unquote(v)}
			}
		}
	}
	return fields{}, 0, src // no closing "---": not front matter
}

// cutLine cuts a first line equal to want (a trailing "\r" aside).
func cutLine(src []byte, want string) ([]byte, bool) {
	first, rest, found := bytes.Cut(src, []byte{'\n'})
	if !found || string(bytes.TrimSpace(first)) != want {
		return nil, false
	}
	return rest, true
}

// splitList splits a front matter list at its commas, but for those
// inside quotes, braces or brackets: "*.{ts,tsx}, docs/**" is two globs.
func splitList(v string) []string {
	var out []string
	depth, start := 0, 0
	var quote byte
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case c == '\\':
			i++
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case (c == '"' || c == '\'') && strings.TrimSpace(v[start:i]) == "":
			quote = c // a quoted element; an apostrophe inside one is not
		case c == '{' || c == '[':
			depth++
		case (c == '}' || c == ']') && depth > 0:
			depth--
		case c == ',' && depth == 0:
			out = append(out, v[start:i])
			start = i + 1
		}
	}
	return append(out, v[start:])
}

func unquote(s string) string {
	if len(s) >= 2 && (s[0] == '"' && s[len(s)-1] == '"' || s[0] == '\'' && s[len(s)-1] == '\'') {
		return s[1 : len(s)-1]
	}
	return s
}

// fields is a front matter: each key's values.
type fields map[string][]string

func (f fields) str(key string) string { return strings.Join(f[key], ", ") }

// list is a key's values, each split at commas ("globs: a/**, b/**").
func (f fields) list(key string) []string { return f.listN(key, -1) }

// listN is the first n of list (all of them when n < 0).
func (f fields) listN(key string, n int) []string {
	var out []string
	for _, v := range f[key] {
		for _, e := range splitList(v) {
			if len(out) == n {
				return out
			}
			if e = strings.TrimSpace(e); e != "" {
				out = append(out, e)
			}
		}
	}
	return out
}

func (f fields) bool(key string) (value, set bool) {
	switch strings.ToLower(f.str(key)) {
	case "true", "yes":
		return true, true
	case "false", "no":
		return false, true
	}
	return false, false
}

// leadingPaths are the paths of the pinned code and of the code ranked
// first (heuristics.ItemScopeTopK of them, if the query's words or names
// found them: a neighbour of nothing in particular scopes nothing), by
// folder root: what the scoped rules and notes about files are matched
// with.
func leadingPaths(p *plan, pinned, ranked []*cand) map[string][]string {
	out := map[string][]string{}
	add := func(c *cand) {
		if !slices.Contains(out[c.folder.Root], c.path) {
			out[c.folder.Root] = append(out[c.folder.Root], c.path)
		}
	}
	for _, c := range pinned {
		add(c)
	}
	for _, c := range ranked[:min(len(ranked), p.limit, heuristics.ItemScopeTopK)] {
		if c.ranks[heuristics.SrcLexical] > 0 || c.ranks[heuristics.SrcMention] > 0 {
			add(c)
		}
	}
	return out
}

// packEntry is one entry of the list the budget is filled from: a code
// candidate with its text, or a context item.
type packEntry struct {
	cand   *cand
	text   string
	prefix string // a code candidate's enclosing type header (typecontext.go)
	item   *contextItem
	// rng is the lines a code candidate's text holds: its symbol's, or
	// more with the lines around it (surround.go).
	rng symbolindex.Range
	// fixed: the lead and its neighbourhood, which are not widened again;
	// cut: text is already an excerpt of the symbol.
	fixed, cut bool
}

// mergeItems orders what the budget is filled from: the required items
// (always rules, named items), the pinned code, then the ranked code and
// the items that came in on their score, by fused score.
func mergeItems(ready []*cand, texts, prefixes []string, pick itemPick) []packEntry {
	out := make([]packEntry, 0, len(ready)+len(pick.required)+len(pick.scored))
	for _, it := range pick.required {
		out = append(out, packEntry{item: it, text: it.text})
	}
	i := 0
	for ; i < len(ready) && ready[i].reason == ReasonPinned; i++ {
		out = append(out, packEntry{cand: ready[i], text: texts[i], prefix: prefixes[i], rng: ready[i].sym.Range})
	}
	scored := pick.scored
	for ; i < len(ready); i++ {
		for len(scored) > 0 && scored[0].fused > ready[i].fused {
			out = append(out, packEntry{item: scored[0], text: scored[0].text})
			scored = scored[1:]
		}
		out = append(out, packEntry{cand: ready[i], text: texts[i], prefix: prefixes[i], rng: ready[i].sym.Range})
	}
	for _, it := range scored {
		out = append(out, packEntry{item: it, text: it.text})
	}
	return out
}

// packItem is an entry's part in the budget: items other than code count
// against the share, and do not count against the limit; the named items
// and the unscoped always rules are not held to the share (a scoped rule,
// which the code brought in, is).
func (e packEntry) packItem(p *plan) heuristics.PackItem {
	if it := e.item; it != nil {
		required := it.reason == ReasonManual || it.reason == ReasonAlways && it.globs == nil
		return heuristics.PackItem{Len: len(e.text), Shared: true, Extra: true, Required: required}
	}
	return heuristics.PackItem{Len: len(e.prefix) + len(e.text), Shared: p.sharedDoc(e.cand)}
}

// sharedDoc reports whether a code candidate is documentation held to the
// item share: not when pinned, nor when the query asks for documentation.
func (p *plan) sharedDoc(c *cand) bool {
	return isDocLanguage(c.lang) && c.reason != ReasonPinned && !p.wantsDocs
}

// itemVec is the vector of an item's words, from the workspace's cache of
// them (the same words embed once per embedder); nil if they do not embed.
func (s *Snapshot) itemVec(text string) []float32 {
	key := xxhash.Sum64String(s.emb.ID() + "\x00" + text)
	c := s.vecs
	c.mu.Lock()
	v, ok := c.m[key]
	c.mu.Unlock()
	if ok {
		return v
	}
	vecs, err := s.emb.Embed([]string{text})
	if err != nil || len(vecs) == 0 {
		return nil
	}
	v = vecs[0]
	c.mu.Lock()
	if len(c.m) >= maxItemVecs {
		clear(c.m)
	}
	c.m[key] = v
	c.mu.Unlock()
	return v
}

// maxItemVecs bounds the cache of item vectors: rules, tools and notes are
// few, and an edited rule leaves its old vector behind.
const maxItemVecs = 4096

// itemVecCache holds the vectors of context items. Its mutex is a leaf: it
// is held for a map access only, never while taking another lock.
type itemVecCache struct {
	mu sync.Mutex
	m  map[uint64][]float32
}

// dot is the dot product of two vectors of one embedder (normalized: their
// cosine); 0 when their sizes differ.
func dot(a, b []float32) float64 {
	if len(a) != len(b) {
		return 0
	}
	var d float32
	for i := range a {
		d += a[i] * b[i]
	}
	return float64(d)
}
