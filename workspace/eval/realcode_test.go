package eval

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/symbolindex/parse"
	"github.com/ctxls/ctxls/symbolindex/tokenize"
	"github.com/ctxls/ctxls/workspace"

	"github.com/ctxls/ctxls/symbolindex"
)

// The real-code benchmark: commit-message cases (testdata/realcode/golden)
// over real projects fetched from the Go module proxy and the npm registry
// by scripts/fetch-realcode.sh. See testdata/realcode/README.md.

// realcodeDir holds the golden cases and, once fetched, the workspaces.
var realcodeDir = filepath.Join("..", "..", "testdata", "realcode")

// realcodeHeadChars is how much of each file the whole-file baseline
// returns, as in BenchmarkBaselineBM25Files.
const realcodeHeadChars = 3000

// realcodeBaselineK is how many files the baseline returns, the default
// limit of a selection.
const realcodeBaselineK = workspace.DefaultLimit

var realcodeCaseName = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)

// TestRealcodeGoldenShape checks the golden files themselves (no corpus
// needed): the invariants of testdata/README.md and the size of the set.
func TestRealcodeGoldenShape(t *testing.T) {
	suites, err := LoadSuites(realcodeDir)
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	kinds := map[string]int{}
	for _, s := range suites {
		if len(s.Cases) < 10 {
			t.Errorf("%s: %d cases, want at least 10 per project", s.Workspace, len(s.Cases))
		}
		seen := map[string]bool{}
		for _, c := range s.Cases {
			total++
			kinds[c.Kind]++
			where := s.Workspace + "/" + c.Name
			if !realcodeCaseName.MatchString(c.Name) || seen[c.Name] {
				t.Errorf("%s: name must be unique kebab-case", where)
			}
			seen[c.Name] = true
			if strings.TrimSpace(c.Query) == "" {
				t.Errorf("%s: empty query", where)
			}
			switch c.Kind {
			case "cold":
				if c.Active != "" || c.Position != nil || len(c.History) > 0 {
					t.Errorf("%s: a cold case has no active file, cursor or history", where)
				}
			case "active":
				if c.Active == "" {
					t.Errorf("%s: an active case needs an active file", where)
				}
				if slices.Contains(c.Expect.Files, c.Active) {
					t.Errorf("%s: expects its own active file %s; expect the other files the commit changes", where, c.Active)
				}
			case "followup":
				if len(c.History) == 0 {
					t.Errorf("%s: a followup case needs history", where)
				}
			case "deictic":
				// "who calls this": the symbol under the cursor and its
				// neighbours, the active file's among them.
				if c.Active == "" || c.Position == nil {
					t.Errorf("%s: a deictic case needs an active file and a cursor", where)
				}
			default:
				t.Errorf("%s: kind %q, want cold, active, followup or deictic", where, c.Kind)
			}
			if c.Position != nil && c.Active == "" {
				t.Errorf("%s: position without active", where)
			}
			if len(c.Expect.Files) == 0 {
				t.Errorf("%s: no expected files", where)
			}
			for _, sym := range c.Expect.Symbols {
				path, _, ok := strings.Cut(sym, "::")
				if !ok || !slices.Contains(c.Expect.Files, path) {
					t.Errorf("%s: symbol %q is not <path>::<name> with its path in expect.files", where, sym)
				}
			}
		}
	}
	if total < 80 {
		t.Errorf("%d real-code cases, want at least 80", total)
	}
	t.Logf("%d suites, %d cases: %d cold, %d active, %d followup, %d deictic", len(suites), total, kinds["cold"], kinds["active"], kinds["followup"], kinds["deictic"])
}

// realcodeWorkspaces returns the fetched workspaces' directory, skipping
// the test when scripts/fetch-realcode.sh has not been run: the corpus
// comes from the network and is not part of CI. With -short it skips too:
// indexing seven real projects takes half a minute (two under -race).
func realcodeWorkspaces(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(realcodeDir, "workspaces")
	if _, err := os.Stat(dir); err != nil {
		t.Skip("run scripts/fetch-realcode.sh first")
	}
	if testing.Short() {
		t.Skip("indexes the real-code corpus; not in -short mode")
	}
	return dir
}

// TestRealcodeGoldenSymbols checks every golden case against the fetched
// sources: each expected and active path is a file of the workspace, each
// cursor is inside its file, and each expected symbol is defined in its file
// under exactly that qualified name.
func TestRealcodeGoldenSymbols(t *testing.T) {
	wsDir := realcodeWorkspaces(t)
	suites, err := LoadSuites(realcodeDir)
	if err != nil {
		t.Fatal(err)
	}
	p := parse.NewParser()
	defer p.Close()
	for _, s := range suites {
		root := filepath.Join(wsDir, s.Workspace)
		names := map[string]map[string]bool{} // path → qualified names
		defined := func(path string) (map[string]bool, error) {
			if m, ok := names[path]; ok {
				return m, nil
			}
			src, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(path)))
			if err != nil {
				return nil, err
			}
			pf, err := p.Parse(path, src)
			if err != nil {
				return nil, fmt.Errorf("parse %s: %w", path, err)
			}
			m := map[string]bool{}
			for _, sym := range pf.Symbols {
				m[sym.Qualified] = true
			}
			names[path] = m
			return m, nil
		}
		for _, c := range s.Cases {
			where := s.Workspace + "/" + c.Name
			paths := slices.Clone(c.Expect.Files)
			if c.Active != "" {
				paths = append(paths, c.Active)
			}
			for _, path := range paths {
				if fi, err := os.Stat(filepath.Join(root, filepath.FromSlash(path))); err != nil || !fi.Mode().IsRegular() {
					t.Errorf("%s: %s is not a file of %s (refetch with scripts/fetch-realcode.sh?)", where, path, root)
				}
			}
			if c.Position != nil && c.Active != "" {
				src, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(c.Active)))
				if err == nil {
					lines := strings.Split(string(src), "\n")
					pos := c.Position
					if int(pos.Line) >= len(lines) || int(pos.Character) > len(lines[pos.Line]) {
						t.Errorf("%s: cursor %d:%d is outside %s", where, pos.Line, pos.Character, c.Active)
					}
				}
			}
			for _, sym := range c.Expect.Symbols {
				path, q, _ := strings.Cut(sym, "::")
				m, err := defined(path)
				if err != nil {
					t.Errorf("%s: %v", where, err)
					continue
				}
				if !m[q] {
					t.Errorf("%s: %s defines no symbol named %q", where, path, q)
				}
			}
		}
	}
}

// realcodeScore is one system's outcome on one case.
type realcodeScore struct {
	hit1, hit5, mrr float64
	// hasSymbols says whether the case expects symbols whose lines were
	// found; coverage is then the share of those lines the answer covers.
	hasSymbols bool
	coverage   float64
}

// realcodeTally sums scores for macro averages.
type realcodeTally struct {
	n                  int
	hit1, hit5, mrr    float64
	symCases           int
	coverage           float64 // sum over cases with symbols of covered/lines
	followupRequestHit float64 // ctxls only: hit@5 with the history's request as the query
}

func (t *realcodeTally) add(s realcodeScore) {
	t.n++
	t.hit1 += s.hit1
	t.hit5 += s.hit5
	t.mrr += s.mrr
	if s.hasSymbols {
		t.symCases++
		t.coverage += s.coverage
	}
}

func (t *realcodeTally) String() string {
	if t.n == 0 {
		return "no cases"
	}
	n := float64(t.n)
	cov := 0.0
	if t.symCases > 0 {
		cov = t.coverage / float64(t.symCases)
	}
	return fmt.Sprintf("hit@1 %.3f  hit@5 %.3f  MRR %.3f  coverage %.3f", t.hit1/n, t.hit5/n, t.mrr/n, cov)
}

// realcodeFiles is the baseline: plain BM25 over whole files (path and
// content, symbolindex.DefaultFileParams), returning the first
// realcodeHeadChars bytes of the best realcodeBaselineK files. It knows
// nothing of the active file, the cursor or the history.
type realcodeFiles struct {
	lex      *symbolindex.Lexical
	paths    []string // doc → workspace-relative path
	headLast []uint32 // doc → last line (0-based) that its head reaches
	buf      symbolindex.SearchBuffer
	terms    []symbolindex.QueryTerm
}

func newRealcodeFiles(root string) (*realcodeFiles, error) {
	files, _, err := workspace.Discover(context.Background(), root, workspace.DiscoverOptions{MaxFileBytes: workspace.DefaultMaxFileBytes})
	if err != nil {
		return nil, fmt.Errorf("baseline %s: %w", root, err)
	}
	b := &realcodeFiles{lex: symbolindex.NewLexical(symbolindex.DefaultFileParams())}
	for i, f := range files {
		src, err := os.ReadFile(f.Abs)
		if err != nil {
			return nil, fmt.Errorf("baseline: %w", err)
		}
		var fields [symbolindex.NumFields]string
		fields[symbolindex.FieldPath] = f.Path
		fields[symbolindex.FieldBody] = string(src)
		if err := b.lex.Add(uint32(i), fields); err != nil {
			return nil, fmt.Errorf("baseline: add %s: %w", f.Path, err)
		}
		b.paths = append(b.paths, f.Path)
		b.headLast = append(b.headLast, uint32(bytes.Count(src[:min(len(src), realcodeHeadChars)], []byte("\n"))))
	}
	return b, nil
}

// search returns the docs of the best files for q, best first.
func (b *realcodeFiles) search(q string) []symbolindex.Hit {
	b.terms = b.terms[:0]
	for _, term := range tokenize.QueryTerms(q) {
		b.terms = append(b.terms, symbolindex.QueryTerm{Term: term, Weight: 1})
	}
	return b.lex.Search(b.terms, realcodeBaselineK, nil, &b.buf)
}

// score rates the baseline's answer to c. symLines gives the line span of
// an expected symbol.
func (b *realcodeFiles) score(c Case, symLines func(string) (uint32, uint32, bool)) realcodeScore {
	var s realcodeScore
	hits := b.search(c.Query)
	for i, h := range hits {
		if slices.Contains(c.Expect.Files, b.paths[h.Doc]) {
			s.mrr = 1 / float64(i+1)
			if i == 0 {
				s.hit1 = 1
			}
			if i < 5 {
				s.hit5 = 1
			}
			break
		}
	}
	lines, covered := 0, 0
	for _, sym := range c.Expect.Symbols {
		start, end, ok := symLines(sym)
		if !ok {
			continue
		}
		path, _, _ := strings.Cut(sym, "::")
		last := int64(-1) // the last line of the file's head, if returned
		for _, h := range hits {
			if b.paths[h.Doc] == path {
				last = int64(b.headLast[h.Doc])
			}
		}
		for l := start; l <= end; l++ {
			lines++
			if int64(l) <= last {
				covered++
			}
		}
	}
	if lines > 0 {
		s.hasSymbols, s.coverage = true, float64(covered)/float64(lines)
	}
	return s
}

// realcodeRequest builds the request of a case exactly as Evaluate does.
func realcodeRequest(root string, c Case) *workspace.SelectRequest {
	return c.Request(root)
}

// realcodeCtxls scores a Select result exactly as Evaluate does (score).
func realcodeCtxls(ws *workspace.Workspace, c Case, res *workspace.Selection) realcodeScore {
	m := score(ws, c, res)
	s := realcodeScore{hit1: m.Hit1, hit5: m.Hit5, mrr: m.MRR, coverage: m.Coverage}
	for _, sym := range c.Expect.Symbols {
		if _, _, ok := symbolLines(ws, sym); ok {
			s.hasSymbols = true
		}
	}
	return s
}

// TestRealcodeBaseline runs every real-code case through Select, as
// `ctxls eval testdata/realcode` does, and through the plain whole-file
// BM25 baseline, and prints both side by side, per case kind and per
// project; for followup cases also ctxls's hit@5 when the history's last
// request is the query itself. It fails when a case cannot run or its
// answer differs from its golden file (golden_test.go).
//
//	go test -run TestRealcodeBaseline -v ./workspace/eval/
func TestRealcodeBaseline(t *testing.T) {
	wsDir := realcodeWorkspaces(t)
	suites, err := LoadSuites(realcodeDir)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	cfg := workspace.DefaultConfig()
	cfg.CacheDir = "off"
	cfg.HistoryCommits = 0
	type key struct{ system, group string }
	tallies := map[key]*realcodeTally{}
	tally := func(system, group string) *realcodeTally {
		k := key{system, group}
		if tallies[k] == nil {
			tallies[k] = &realcodeTally{}
		}
		return tallies[k]
	}
	var misses []string
	golden := rankingDir(realcodeDir)
	startGolden(t, golden)
	for _, s := range suites {
		root := filepath.Join(wsDir, s.Workspace)
		base, err := newRealcodeFiles(root)
		if err != nil {
			t.Fatal(err)
		}
		ws, err := workspace.New(cfg, workspace.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ws.AddFolder(root); err != nil {
			t.Fatal(err)
		}
		if _, err := ws.Index(ctx, nil); err != nil {
			t.Fatalf("index %s: %v", root, err)
		}
		absRoot := ws.Folders()[0].Root
		for _, c := range s.Cases {
			res, err := ws.Select(ctx, realcodeRequest(absRoot, c))
			if err != nil {
				t.Fatalf("%s/%s: %v", s.Workspace, c.Name, err)
			}
			ids := make([]string, len(res.Items))
			for i, it := range res.Items {
				ids[i] = it.ID
			}
			checkGolden(t, golden, s.Workspace, c.Name, rankingGolden(s.Workspace, c, ids, res.LowConfidence))
			got := realcodeCtxls(ws, c, res)
			bl := base.score(c, func(id string) (uint32, uint32, bool) { return symbolLines(ws, id) })
			for _, g := range []string{"all", c.Kind, s.Workspace} {
				tally("ctxls", g).add(got)
				tally("bm25", g).add(bl)
			}
			if c.Kind == "followup" {
				alone := c
				alone.Query, alone.History = c.History[len(c.History)-1], nil
				res, err := ws.Select(ctx, realcodeRequest(absRoot, alone))
				if err != nil {
					t.Fatalf("%s/%s (request alone): %v", s.Workspace, c.Name, err)
				}
				tally("ctxls", "followup").followupRequestHit += realcodeCtxls(ws, alone, res).hit5
			}
			if got.hit5 == 0 {
				ids := make([]string, 0, 5)
				for _, it := range res.Items[:min(5, len(res.Items))] {
					ids = append(ids, it.Path+"::"+it.Symbol)
				}
				misses = append(misses, fmt.Sprintf("%s/%s (%s): want %v, got %v", s.Workspace, c.Name, c.Kind, c.Expect.Files, ids))
			}
		}
	}
	groups := []string{"all", "cold", "active", "followup", "deictic"}
	for _, s := range suites {
		groups = append(groups, s.Workspace)
	}
	t.Logf("ctxls items vs plain BM25 over whole files (%d files, %d-char heads); hit@k counts items for ctxls, files for BM25", realcodeBaselineK, realcodeHeadChars)
	for _, g := range groups {
		c, b := tally("ctxls", g), tally("bm25", g)
		t.Logf("%-9s %3d cases  ctxls: %s", g, c.n, c)
		t.Logf("%-9s %3s        bm25:  %s", "", "", b)
	}
	if f := tally("ctxls", "followup"); f.n > 0 {
		t.Logf("followup: ctxls hit@5 %.3f with the vague query and history, %.3f with the request itself as the query",
			f.hit5/float64(f.n), f.followupRequestHit/float64(f.n))
	}
	for _, m := range misses {
		t.Logf("miss@5: %s", m)
	}
}
