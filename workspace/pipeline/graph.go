package pipeline

import (
	"math"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/ctxls/ctxls/heuristics"
	"github.com/ctxls/ctxls/symbolindex"
	"github.com/ctxls/ctxls/symbolindex/parse"
	"github.com/ctxls/ctxls/symbolindex/tokenize"
	"github.com/ctxls/ctxls/workspace/snapshot"
)

// The reference graph links files through the identifiers they use: a file
// that calls or names a symbol points at the file that defines it. From a
// set of seed files (the active file, files the query names) the graph
// source ranks their neighbours: the files defining what a seed uses, the
// files using what a seed defines, and a seed's tests (or the code a test
// seed tests). These are the files a change to a seed most often touches
// too.

// graphFiles ranks the neighbours of the seed files, best first. Seeds
// themselves are not returned.
func graphFiles(idx *symbolindex.Index, seeds []weightedSlot) []scoredFile {
	score := map[uint32]float64{}
	isSeed := map[uint32]bool{}
	for _, sd := range seeds {
		isSeed[sd.slot] = true
	}
	for _, sd := range seeds {
		f := sd.slot
		fam := langFamily(idx.FileLanguage(f))
		same := func(g uint32) bool { return g != f && langFamily(idx.FileLanguage(g)) == fam }
		// Callees and used types: files defining what the seed references.
		for i, name := range idx.FileRefs(f) {
			if i >= heuristics.GraphMaxNames {
				break
			}
			defs := idx.Named(name)
			if len(defs) == 0 || len(defs) > heuristics.GraphMaxDefs {
				continue
			}
			w := sd.w / float64(len(defs))
			for _, s := range defs {
				if g, ok := idx.SymbolFile(s); ok && same(g) {
					score[g] += w
				}
			}
		}
		// Callers and users: files referencing what the seed defines.
		seen := map[string]bool{}
		for i, s := range idx.FileSymbols(f) {
			if i >= heuristics.GraphMaxNames {
				break
			}
			ref, _ := idx.Symbol(s)
			name := strings.ToLower(ref.Name)
			if len(name) < heuristics.GraphMinName || seen[name] {
				continue
			}
			seen[name] = true
			users := idx.Referencing(name)
			if len(users) == 0 || len(users) > heuristics.GraphMaxRefs {
				continue
			}
			w := sd.w / math.Log2(2+float64(len(users)))
			for _, u := range users {
				if same(u) {
					score[u] += w
				}
			}
		}
		// Tests and the code they test.
		for _, t := range testPartners(idx, idx.FilePath(f)) {
			score[t] += heuristics.GraphTestWeight * sd.w
		}
	}
	out := make([]scoredFile, 0, len(score))
	for f, sc := range score {
		if !isSeed[f] {
			out = append(out, scoredFile{f, sc})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		// Ties by path: slots depend on the order files were indexed in.
		return out[i].score > out[j].score || out[i].score == out[j].score && idx.FilePath(out[i].slot) < idx.FilePath(out[j].slot)
	})
	return out
}

// testPartners returns the files that test rel, or that rel tests, by the
// naming conventions of the common languages: x.go ↔ x_test.go, x.py ↔
// test_x.py / x_test.py, x.ts ↔ x.test.ts / x.spec.ts (and .js, .tsx, .jsx),
// X.java ↔ XTest.java, X.cs ↔ XTests.cs / XTest.cs, x.rb ↔ x_spec.rb /
// x_test.rb / test_x.rb, X.php ↔ XTest.php.
func testPartners(idx *symbolindex.Index, rel string) []uint32 {
	base := path.Base(rel)
	ext := path.Ext(base)
	stem := strings.TrimSuffix(base, ext)
	var names []string
	switch ext {
	case ".go":
		if s, ok := strings.CutSuffix(stem, "_test"); ok {
			names = []string{s + ext}
		} else {
			names = []string{stem + "_test" + ext}
		}
	case ".py", ".rb":
		switch {
		case strings.HasPrefix(stem, "test_"):
			names = []string{strings.TrimPrefix(stem, "test_") + ext}
		case strings.HasSuffix(stem, "_test"), strings.HasSuffix(stem, "_spec"):
			names = []string{stem[:len(stem)-5] + ext}
		default:
			names = []string{"test_" + stem + ext, stem + "_test" + ext, stem + "_spec" + ext}
		}
	case ".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts":
		if s, ok := cutAnySuffix(stem, ".test", ".spec"); ok {
			for _, e := range []string{ext, ".ts", ".tsx", ".js", ".jsx"} {
				names = append(names, s+e)
			}
		} else {
			names = []string{stem + ".test" + ext, stem + ".spec" + ext}
		}
	case ".java", ".php", ".cs", ".kt":
		if s, ok := cutAnySuffix(stem, "Tests", "Test"); ok {
			names = []string{s + ext}
		} else {
			names = []string{stem + "Test" + ext, stem + "Tests" + ext}
		}
	}
	var out []uint32
	dir := path.Dir(rel)
	for _, n := range names {
		cands := idx.FilesNamed(n)
		// Prefer partners in the same directory; elsewhere (src/ vs
		// test/ trees) only when the name is unique.
		var same []uint32
		for _, f := range cands {
			if path.Dir(idx.FilePath(f)) == dir {
				same = append(same, f)
			}
		}
		switch {
		case len(same) > 0:
			out = append(out, same...)
		case len(cands) == 1:
			out = append(out, cands[0])
		}
	}
	return out
}

func cutAnySuffix(s string, suffixes ...string) (string, bool) {
	for _, suf := range suffixes {
		if t, ok := strings.CutSuffix(s, suf); ok && t != "" {
			return t, true
		}
	}
	return s, false
}

// langFamily groups languages whose files can reference each other's
// definitions: a Python file does not call a Rust function of the same name.
func langFamily(lang string) string {
	switch lang {
	case "typescript", "tsx", "javascript":
		return "js"
	case "c", "cpp":
		return "c"
	}
	return lang
}

// The editor's case: with a file active, the other files a change touches
// are most often those its code calls or is called from. The neighbours
// source ranks the callers and callees, in other files, of the symbol the
// user is at: the one under the cursor, or, with no cursor, the active
// file's symbols the request's words match best.

// focusSlots are the active file's symbols a request is about: the
// cursor's, or the best lexical matches of the query among the file's
// symbols (at most heuristics.FocusSymbols, each within
// heuristics.FocusSymbolRatio of the best).
func (s *scope) focusSlots() []uint32 {
	if slot, ok := s.cursorSlot(); ok {
		return []uint32{slot}
	}
	if s.activeRel == "" || len(s.q.own) == 0 {
		return nil
	}
	fs, ok := s.idx.FileSlot(s.activeRel)
	if !ok {
		return nil
	}
	inFile := func(slot uint32) bool {
		ref, ok := s.idx.Symbol(slot)
		return ok && ref.File == fs && !isType(ref.Kind) && ref.Kind != parse.KindModule
	}
	hits := s.idx.SearchSymbols(s.q.own, heuristics.FocusSymbols, inFile, s.buf)
	var out []uint32
	for _, h := range hits {
		if float64(h.Score) < heuristics.FocusSymbolRatio*float64(hits[0].Score) {
			break
		}
		out = append(out, h.Doc)
	}
	return out
}

// neighboursSource ranks the callers and callees, outside the active
// file, of the focus symbols: each found symbol scores the best of its
// ranks' reciprocals over the focus symbols' lists.
func neighboursSource(s *scope) ranked {
	// A query pointing at the cursor ("who calls this") has its callers
	// or callees from the graph source already, at heuristics.DeicticBoost.
	if s.activeRel == "" || s.fv.Weights.Source[heuristics.SrcNeighbour] == 0 || s.deictic() {
		return ranked{}
	}
	focus := s.focusSlots()
	if len(focus) == 0 {
		return ranked{}
	}
	fs, _ := s.idx.FileSlot(s.activeRel)
	score := map[uint32]float64{}
	for _, f := range focus {
		for _, list := range [][]symRank{s.callers(f), s.callees(f)} {
			for _, r := range list {
				if ref, ok := s.idx.Symbol(r.slot); ok && ref.File != fs {
					score[r.slot] = max(score[r.slot], 1/float64(r.rank))
				}
			}
		}
	}
	return rankScores(s.idx, score, nil)
}

// siblingSource ranks the files beside the active file whose names extend
// its own or that its own extends, all first: the parts of one piece of
// code split over files (command.go, command_run.go, command_setup.go),
// its platform variants (static.go, static_windows.go, static_other.go)
// and its specialisations (logger.go, request_logger.go). Tests are left
// to the test partners, on both sides: a test open has no siblings.
// After them, second, come the namesakes of the active file's symbols the
// request names (namesakes).
func siblingSource(s *scope) ranked {
	if s.activeRel == "" || s.fv.Weights.Source[heuristics.SrcSibling] == 0 || heuristics.IsTestPath(s.activeRel) {
		return ranked{}
	}
	var out ranked
	sib := siblings(s.idx, s.activeRel)
	for _, fs := range sib {
		if s.fileFilter == nil || s.fileFilter(fs) {
			out.files = append(out.files, scoredFile{fs, 1})
		}
	}
	for _, n := range s.namesakes() {
		if !slices.Contains(sib, n.file) && (s.fileFilter == nil || s.fileFilter(n.file)) {
			out.files = append(out.files, scoredFile{n.file, 0.5})
			if s.namesakeWhy == nil {
				s.namesakeWhy = map[uint32]string{}
			}
			s.namesakeWhy[n.file] = "defines `" + n.name + "`, named like `" + n.of + "` of the file you have open"
		}
	}
	return out
}

// namesake is a file defining a symbol (name) whose name extends that of
// the active file's symbol of.
type namesake struct {
	file     uint32
	name, of string
}

// namesakes are the files, other than the active one and not tests, that
// define a symbol whose name extends, by whole parts at either end, the
// name of one of the active file's focus symbols the request names (every
// word of it, two or more): with template_filter named, app_template_filter
// of the blueprint beside the app; with LoggerWithConfig,
// RequestLoggerWithConfig. One piece of behaviour given to several types
// or layers is named so, and a change to it changes them all. A name that
// more than heuristics.MaxNamesakeFiles files extend is a convention
// (every middleware's XConfig.ToMiddleware), not one piece of code; a name
// merely equal elsewhere is an interface's implementations, and no link.
func (s *scope) namesakes() []namesake {
	fs, ok := s.idx.FileSlot(s.activeRel)
	if !ok {
		return nil
	}
	other := func(slot uint32) bool {
		r, ok := s.idx.Symbol(slot)
		return ok && r.File != fs && !heuristics.IsTestPath(r.Path)
	}
	var out []namesake
	for _, f := range s.focusSlots() {
		ref, ok := s.idx.Symbol(f)
		if !ok {
			continue
		}
		parts := lowerParts(ref.Name)
		terms := tokenize.QueryTerms(strings.Join(parts, " "))
		if len(terms) < 2 || slices.ContainsFunc(terms, func(t string) bool { return !s.q.seen[t] }) {
			continue
		}
		q := make([]symbolindex.QueryTerm, len(terms))
		for i, t := range terms {
			q[i] = symbolindex.QueryTerm{Term: t, Weight: 1}
		}
		var found []namesake
		for _, h := range s.idx.SearchSymbols(q, heuristics.NamesakeK, other, s.buf) {
			r, _ := s.idx.Symbol(h.Doc)
			if np := lowerParts(r.Name); len(np) > len(parts) && partsExtend(np, parts) &&
				!slices.ContainsFunc(found, func(n namesake) bool { return n.file == r.File }) {
				found = append(found, namesake{r.File, r.Name, ref.Name})
			}
		}
		if len(found) > heuristics.MaxNamesakeFiles {
			continue
		}
		for _, n := range found {
			if !slices.ContainsFunc(out, func(o namesake) bool { return o.file == n.file }) {
				out = append(out, n)
			}
		}
	}
	return out
}

// lowerParts is a name's parts (identParts), lower-cased.
func lowerParts(name string) []string {
	parts := identParts(name)
	for i, p := range parts {
		parts[i] = strings.ToLower(p)
	}
	return parts
}

// partsExtend reports whether the parts of name begin or end with part.
func partsExtend(name, part []string) bool {
	return len(name) >= len(part) && (slices.Equal(name[:len(part)], part) || slices.Equal(name[len(name)-len(part):], part))
}

// siblings are the files in rel's directory, with its extension and not
// tests (heuristics.IsTestPath), whose stem (the name up to its first
// dot, as written) begins with rel's stem and "_" or "-", or ends with
// "_" or "-" and it, or whose stem
// rel's stem so begins or ends with; a stem of fewer than
// heuristics.SiblingMinStem bytes names no family. Sorted by path.
func siblings(idx *symbolindex.Index, rel string) []uint32 {
	dir, base := path.Split(rel)
	ext := path.Ext(base)
	stem := siblingStem(base)
	var out []uint32
	idx.EachPath(func(p string, fs uint32) bool {
		d, b := path.Split(p)
		if d != dir || b == base || path.Ext(b) != ext || heuristics.IsTestPath(p) {
			return true
		}
		o := siblingStem(b)
		if extends(o, stem) || extends(stem, o) {
			out = append(out, fs)
		}
		return true
	})
	sort.Slice(out, func(i, j int) bool { return idx.FilePath(out[i]) < idx.FilePath(out[j]) })
	return out
}

// siblingStem is a file name up to its first dot. Case counts: Migrator.js
// and migrator-configuration-merger.js are a class and a helper module
// written in two conventions, not one name's parts.
func siblingStem(base string) string {
	if i := strings.IndexByte(base, '.'); i > 0 {
		base = base[:i]
	}
	return base
}

// extends reports whether the stem name is part, a stem of at least
// heuristics.SiblingMinStem bytes, joined to more by "_" or "-".
func extends(name, part string) bool {
	if len(part) < heuristics.SiblingMinStem || len(name) <= len(part)+1 {
		return false
	}
	sep := func(b byte) bool { return b == '_' || b == '-' }
	return strings.HasPrefix(name, part) && sep(name[len(part)]) ||
		strings.HasSuffix(name, part) && sep(name[len(name)-len(part)-1])
}

// testedCode places, with no file open, the code a test among the
// answer's first heuristics.TestedCodeFiles files tests (testPartners)
// right after that test, unless it is already ahead of it: a test leads
// when the request speaks of tests ("Improve test coverage", "fix failing
// tests"), and what such a change touches, or what a reader of the test
// needs, is the code under test. byRank is diversify's order; it stays
// sorted by fused score.
func testedCode(byRank []*cand) []*cand {
	type fileRef struct {
		f    *snapshot.Folder
		slot uint32
	}
	var seen []fileRef
	first := map[fileRef]*cand{}
	for _, c := range byRank {
		k := fileRef{c.folder, c.fileSlot}
		if _, ok := first[k]; !ok {
			first[k] = c
			seen = append(seen, k)
		}
	}
	moved := false
	for i, k := range seen[:min(len(seen), heuristics.TestedCodeFiles)] {
		t := first[k]
		if !t.cat.Has(heuristics.Test) {
			continue
		}
		for _, fs := range testPartners(k.f.Index, t.path) {
			pk := fileRef{k.f, fs}
			code, ok := first[pk]
			if !ok {
				// No source ranked it: the partner's symbol the test
				// uses first.
				if code = testedSymbol(k.f, t, fs); code == nil {
					continue
				}
				first[pk] = code
				seen = append(seen, pk)
				byRank = append(byRank, code)
			}
			if code.cat != 0 || slices.Index(seen, pk) < i {
				continue
			}
			code.fused, code.testedBy = math.Nextafter(t.fused, 0), path.Base(t.path)
			moved = true
			break
		}
	}
	if moved {
		sort.SliceStable(byRank, func(i, j int) bool { return byRank[i].fused > byRank[j].fused })
	}
	return byRank
}

// testedSymbol is a candidate for the symbol of the code file fs that the
// test t's file references first, nil when it references none.
func testedSymbol(f *snapshot.Folder, t *cand, fs uint32) *cand {
	if f.Index.FileCategory(fs) != 0 {
		return nil
	}
	syms := f.Index.FileSymbols(fs)
	for _, name := range f.Index.FileRefs(t.fileSlot) {
		for _, s := range syms {
			ref, ok := f.Index.Symbol(s)
			if !ok || ref.Kind == parse.KindFile || !strings.EqualFold(ref.Name, name) {
				continue
			}
			return &cand{folder: f, fileSlot: fs, path: f.Index.FilePath(fs), lang: f.Index.FileLanguage(fs),
				reason: ReasonRetrieved, slot: s, sym: ref.Symbol, hash: f.Index.LeafHash(s), nameSig: f.Index.NameSig(s)}
		}
	}
	return nil
}
