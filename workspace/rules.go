package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ctxls/ctxls/symbolindex/cachefile"
	"github.com/ctxls/ctxls/workspace/items"
	"github.com/ctxls/ctxls/workspace/snapshot"
)

// Rules are found and parsed (front matter read, globs compiled) when a
// folder is added and each time it is indexed, and kept with the folder
// (Folder.rules). Something that touches a rule path refreshes them: a
// watched-file event (FilesChanged: the client's didChangeWatchedFiles,
// Watch, replay), a didOpen, didChange, didSave or didClose of a rule
// file, a re-index. A select reads the parsed rules of its snapshot and
// never the disk: a rule file changed on disk with no event is seen at the
// next event or index, as code is.
//
// An open document's text wins over the file on disk, as for code: an
// unsaved edit of AGENTS.md is what the next select answers, and closing
// it brings back the text on disk.
//
// A refresh re-reads only what was touched: the texts read from disk and
// the rule directories listed are kept (folderRules.texts, dirs) and the
// touched ones dropped; the bounds are applied again to the whole folder,
// so a refresh finds what a fresh discovery would.

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
	{file: "AGENTS.md", dflt: items.IncludeAlways},
	{file: "CLAUDE.md", dflt: items.IncludeAlways},
	{file: ".cursorrules", dflt: items.IncludeAlways},
	{dir: ".github", file: "copilot-instructions.md", dflt: items.IncludeAlways},
	{dir: ".cursor/rules", suffixes: []string{".mdc", ".md"}, dflt: items.IncludeManual},
	{dir: ".github/instructions", suffixes: []string{".instructions.md"}, dflt: items.IncludeManual},
	{dir: ".continue/rules", suffixes: []string{".md"}, dflt: items.IncludeAlways},
	{dir: ".ctxls/items", suffixes: []string{".md"}, dflt: items.IncludeManual},
}

// Bounds on what a workspace's rules may cost. Rules are read when a
// folder is indexed and each time a rule file changes, and every request
// matches their globs, so a hostile repository could otherwise make every
// request slow: a rule file with 50,000 globs, thousands of rule files, a
// rule of megabytes. Each refusal is warned about once, naming the file and the
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

// maxRuleDirEntries bounds the listing of one rule directory.
const maxRuleDirEntries = 4096

// folderRules are the parsed rules of one folder. A value is never
// modified once made: a refresh makes a new one, and a select copies the
// items it changes (Snapshot.rules).
type folderRules struct {
	items []*items.Item // collapsed within the folder, in the order found
	// files are the rule paths, read or refused for a bound: the code
	// ranking leaves them out, as their text comes as rules.
	files map[string]bool
	limit int64               // the size bound texts were read with
	texts map[string]ruleText // rule files read from disk, by path
	dirs  map[string]ruleDir  // rule directories listed, by path
}

// ruleText is a rule file as read from disk through the gate.
type ruleText struct {
	src     []byte
	refused bool   // over the size bound
	real    string // where the gate read it from; "" when it could not
}

// ruleDir is a rule directory's listing.
type ruleDir struct {
	names []string
	real  string // where it was listed; "" when it could not be
	more  bool   // it holds more than maxRuleDirEntries entries
}

// ruleScan is one discovery of a folder's rules.
type ruleScan struct {
	root         string
	limit        int64  // MaxRuleBytes, or maxFileBytes when smaller
	bound        string // the name of limit
	docs         map[string]*document
	warn         *items.Warner
	prev, out    *folderRules
	budget       items.Budget
	items        []*items.Item
	nestedByBase map[string][]string
	// linked holds the real paths of the symlinks a rule directory listed
	// this scan leads to, by rel, so that reading one resolves it no more.
	linked map[string]string
}

// discoverRulesLocked finds and parses the rules of f afresh, reading
// every rule file again. Caller holds w.mu.
func (w *Workspace) discoverRulesLocked(f *Folder) { w.scanRulesLocked(f, nil) }

// scanRulesLocked finds and parses the rules of f, reusing what prev (the
// folder's rules, less what was touched) read from disk; prev nil reads
// everything. Caller holds w.mu.
func (w *Workspace) scanRulesLocked(f *Folder, prev *folderRules) {
	sc := &ruleScan{root: f.Root, limit: items.MaxRuleBytes, bound: "MaxRuleBytes", docs: w.docs, warn: w.itemWarn,
		nestedByBase: map[string][]string{}, linked: map[string]string{}}
	if w.cfg.MaxFileBytes < sc.limit {
		sc.limit, sc.bound = w.cfg.MaxFileBytes, "maxFileBytes"
	}
	if prev != nil && prev.limit == sc.limit {
		sc.prev = prev
	}
	f.mu.RLock()
	for _, base := range items.ScopedRuleNames {
		for _, fs := range f.idx.FilesNamed(base) {
			if rel := f.idx.FilePath(fs); rel != base {
				sc.nestedByBase[base] = append(sc.nestedByBase[base], rel)
			}
		}
	}
	f.mu.RUnlock()
	fr := sc.scan()
	f.mu.Lock()
	f.rules = fr
	f.mu.Unlock()
}

// scan finds the rule files of the folder in their order (the top-level
// files, the rule directories by name, the nested AGENTS.md and CLAUDE.md
// by path), reads them through the gate (an open document's text wins),
// parses them within the bounds and collapses identical ones.
func (sc *ruleScan) scan() *folderRules {
	sc.out = &folderRules{files: map[string]bool{}, limit: sc.limit, texts: map[string]ruleText{}, dirs: map[string]ruleDir{}}
	sc.budget = items.Budget{Root: sc.root}
	for _, src := range ruleSources {
		if src.file != "" {
			sc.add(path.Join(src.dir, src.file), src.dflt, "")
			continue
		}
		for _, name := range sc.listDir(src.dir) {
			for _, suf := range src.suffixes {
				if strings.HasSuffix(name, suf) && len(name) > len(suf) {
					sc.add(src.dir+"/"+name, src.dflt, "")
					break
				}
			}
		}
	}
	for _, base := range items.ScopedRuleNames {
		nested := sc.nestedByBase[base]
		slices.Sort(nested)
		for _, rel := range nested {
			sc.add(rel, items.IncludeAlways, path.Dir(rel)+"/**")
		}
	}
	if n := len(sc.budget.Skipped); n > 0 {
		sc.warn.Once(fmt.Sprintf("ctxls: %s has %d rule files past MaxRuleFiles (%d); skipped: %s",
			sc.root, n, items.MaxRuleFiles, firstFew(sc.budget.Skipped)))
	}
	sc.out.items = items.Collapse(sc.items)
	return sc.out
}

// add reads and parses the rule file rel, unless it was found already.
func (sc *ruleScan) add(rel, dflt, scope string) {
	files := sc.out.files
	if files[rel] {
		return
	}
	if sc.budget.Files >= items.MaxRuleFiles {
		sc.budget.Skipped = append(sc.budget.Skipped, rel)
		files[rel] = true
		return
	}
	abs := snapshot.JoinRoot(sc.root, rel)
	src, refused := sc.text(rel, abs)
	var it *items.Item
	if !refused {
		it, refused = items.ParseRule(sc.root, rel, abs, src, dflt, scope, &sc.budget, sc.warn)
	}
	if it != nil {
		sc.items = append(sc.items, it)
	}
	// A rule file refused for a bound is not code either; nor is the file
	// a symlinked rule leads to.
	files[rel] = it != nil || refused
	if real := sc.out.texts[rel].real; real != "" && real != abs && (it != nil || refused) && snapshot.Within(sc.root, real) {
		files[filepath.ToSlash(snapshot.RelPath(sc.root, real))] = true
	}
}

// text is the text of the rule file rel (abs) as a select would read it:
// the open document's, or the file's read through the gate, bounded by
// MaxRuleBytes (or maxFileBytes). Over the bound it is nil, with a
// warning, and refused is true.
func (sc *ruleScan) text(rel, abs string) (src []byte, refused bool) {
	if d, ok := sc.docs[abs]; ok {
		if int64(len(d.text)) > sc.limit {
			sc.warn.Once(fmt.Sprintf("ctxls: rule file %s is over %s (%d bytes); skipped", abs, sc.bound, sc.limit))
			return nil, true
		}
		return d.text, false
	}
	t, ok := sc.prev.text(rel)
	if !ok {
		t = ruleText{}
		// A rule file may be a symlink to a file inside the folder (a
		// CLAUDE.md pointing at AGENTS.md, a Cursor rule kept in docs/):
		// it is read at its real path, which the gate keeps inside.
		real, err := sc.linked[rel], error(nil)
		if real == "" {
			real, err = realPath(abs)
		}
		if err == nil {
			t.real = real
			t.src, _, err = readRegular(sc.root, real, sc.limit)
			t.refused = errors.Is(err, errTooLarge)
		}
	}
	sc.out.texts[rel] = t
	if t.refused {
		sc.warn.Once(fmt.Sprintf("ctxls: rule file %s is over %s (%d bytes); skipped", abs, sc.bound, sc.limit))
	}
	return t.src, t.refused
}

// listDir lists the file names in the rule directory rel, sorted; nothing
// when it is missing, not a directory or leads out of the folder. At most
// maxRuleDirEntries entries are read.
func (sc *ruleScan) listDir(rel string) []string {
	d, ok := sc.prev.dir(rel)
	if !ok {
		var links map[string]string
		d, links = listRuleDir(sc.root, rel)
		for name, real := range links {
			sc.linked[rel+"/"+name] = real
		}
	}
	sc.out.dirs[rel] = d
	if d.more {
		sc.warn.Once(fmt.Sprintf("ctxls: rule directory %s holds more than %d entries (maxRuleDirEntries); only the first %d listed are read",
			d.real, maxRuleDirEntries, maxRuleDirEntries))
	}
	return d.names
}

// listRuleDir lists the regular files of the directory rel of the folder
// root through the gate, reading at most maxRuleDirEntries entries, and
// the real paths of those that are symlinks, by name.
func listRuleDir(root, rel string) (ruleDir, map[string]string) {
	real, err := realPath(snapshot.JoinRoot(root, rel))
	if err != nil || !snapshot.Within(root, real) {
		return ruleDir{}, nil
	}
	entries, more, err := cachefile.ReadDir(real, maxRuleDirEntries)
	if err != nil {
		return ruleDir{}, nil
	}
	var names []string
	links := map[string]string{}
	for _, e := range entries {
		if e.Type().IsRegular() {
			names = append(names, e.Name())
		} else if e.Type()&fs.ModeSymlink != 0 {
			if target, ok := regularWithin(root, filepath.Join(real, e.Name())); ok {
				names = append(names, e.Name())
				links[e.Name()] = target
			}
		}
	}
	slices.Sort(names)
	return ruleDir{names: names, real: real, more: more}, links
}

// regularWithin returns the real path of the symlink at path when it
// leads to a regular file inside root.
func regularWithin(root, path string) (string, bool) {
	real, err := realPath(path)
	if err != nil || !snapshot.Within(root, real) {
		return "", false
	}
	fi, err := os.Stat(real)
	return real, err == nil && fi.Mode().IsRegular()
}

func (fr *folderRules) text(rel string) (ruleText, bool) {
	if fr == nil {
		return ruleText{}, false
	}
	t, ok := fr.texts[rel]
	return t, ok
}

func (fr *folderRules) dir(rel string) (ruleDir, bool) {
	if fr == nil {
		return ruleDir{}, false
	}
	d, ok := fr.dirs[rel]
	return d, ok
}

// rulesTouched refreshes the rules of the folders holding the absolute
// paths, once per folder, when one of them is a rule path (touches): a
// rule file, a rule directory or a directory above one, or where a rule
// file was read from. Caller holds w.mu.
func (w *Workspace) rulesTouched(paths ...string) {
	var folders []*Folder
	touched := map[*Folder][]string{}
	for _, abs := range paths {
		f, rel, err := locate(w.folders, abs)
		if err != nil || !f.rules.touches(rel, abs) {
			continue
		}
		if touched[f] == nil {
			folders = append(folders, f)
		}
		touched[f] = append(touched[f], abs)
	}
	for _, f := range folders {
		w.scanRulesLocked(f, f.rules.without(f.Root, touched[f]))
	}
}

// touches reports whether a change to rel (abs) may change the rules.
// fr may be nil: the folder's rules were not looked for yet.
func (fr *folderRules) touches(rel, abs string) bool {
	if rel == "." || slices.Contains(items.ScopedRuleNames, path.Base(rel)) {
		return true
	}
	under := rel + "/" // what a path below rel starts with
	for _, src := range ruleSources {
		p := path.Join(src.dir, src.file)
		if p == rel || strings.HasPrefix(p, under) || src.file == "" && strings.HasPrefix(rel, src.dir+"/") {
			return true
		}
	}
	if fr == nil {
		return false
	}
	for p := range fr.files {
		if strings.HasPrefix(p, under) { // a directory holding nested rules
			return true
		}
	}
	for _, t := range fr.texts {
		if t.real != "" && (t.real == abs || snapshot.Within(abs, t.real)) {
			return true
		}
	}
	for _, d := range fr.dirs {
		if d.real != "" && (snapshot.Within(d.real, abs) || snapshot.Within(abs, d.real)) {
			return true
		}
	}
	return false
}

// without is fr less what was read from or under the touched absolute
// paths of the folder root: what a refresh reuses.
func (fr *folderRules) without(root string, touched []string) *folderRules {
	if fr == nil {
		return nil
	}
	hit := func(rel, real string) bool {
		for _, abs := range touched {
			if p := snapshot.JoinRoot(root, rel); snapshot.Within(abs, p) || snapshot.Within(p, abs) {
				return true
			}
			if real != "" && (snapshot.Within(abs, real) || snapshot.Within(real, abs)) {
				return true
			}
		}
		return false
	}
	out := &folderRules{limit: fr.limit, texts: map[string]ruleText{}, dirs: map[string]ruleDir{}}
	for rel, t := range fr.texts {
		if !hit(rel, t.real) {
			out.texts[rel] = t
		}
	}
	for rel, d := range fr.dirs {
		if !hit(rel, d.real) {
			out.dirs[rel] = d
		}
	}
	return out
}

// firstFew lists names for a warning, the first few of them.
func firstFew(names []string) string {
	const most = 5
	if len(names) > most {
		return strings.Join(names[:most], ", ") + fmt.Sprintf(" and %d more", len(names)-most)
	}
	return strings.Join(names, ", ")
}
