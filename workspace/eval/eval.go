package eval

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/ctxls/ctxls/workspace"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"golang.org/x/tools/txtar"
)

// Case is one golden retrieval case (testdata/README.md).
type Case struct {
	Name     string    `json:"name"`
	Kind     string    `json:"kind"` // cold | active | followup | deictic
	Query    string    `json:"query"`
	Active   string    `json:"active,omitempty"`
	Position *Position `json:"position,omitempty"`
	History  []string  `json:"history,omitempty"`
	Expect   struct {
		Files   []string `json:"files"`
		Symbols []string `json:"symbols"`
	} `json:"expect"`
}

// Position is a cursor in a case's active file: a 0-based line and
// character.
type Position struct {
	Line      uint32 `json:"line"`
	Character uint32 `json:"character"`
}

// Request is the select request of the case, in the workspace at root.
// The cases measure the code ranking (documentation included), so rules,
// memory and tools are left out: a workspace's AGENTS.md would otherwise
// take the first place of every case. The context items have their own
// cases (testdata/items).
func (c Case) Request(root string) *workspace.SelectRequest {
	req := &workspace.SelectRequest{Query: c.Query, History: c.History, IncludeItems: workspace.CodeOnly()}
	if c.Active != "" {
		req.Active = filepath.Join(root, filepath.FromSlash(c.Active))
	}
	if c.Position != nil {
		req.Cursor = &workspace.Cursor{Line: c.Position.Line}
	}
	return req
}

// Suite is one golden file: a fixture workspace and its cases.
type Suite struct {
	Workspace string `json:"workspace"`
	Cases     []Case `json:"cases"`
}

// K is the cut-off of precision, recall and F1.
const K = 5

// Metrics are the retrieval metrics of one case, or their macro average.
type Metrics struct {
	Hit1      float64 `json:"hit1"`      // the first item is in an expected file
	Hit5      float64 `json:"hit5"`      // one of the first 5 items is
	MRR       float64 `json:"mrr"`       // 1 / rank of the first item in an expected file
	Precision float64 `json:"precision"` // share of the first K items in expected files
	Recall    float64 `json:"recall"`    // share of expected files among the first K items
	F1        float64 `json:"f1"`
	NDCG10    float64 `json:"ndcg10"`       // over files, binary relevance
	SymRecall float64 `json:"symbolRecall"` // share of expected symbols returned
	Coverage  float64 `json:"coverage"`     // share of expected symbols' lines that items overlap
}

// CaseResult is one case's outcome.
type CaseResult struct {
	Suite   string   `json:"suite"`
	Name    string   `json:"name"`
	Kind    string   `json:"kind"`
	Metrics Metrics  `json:"metrics"`
	Got     []string `json:"got"` // item ids, in order
	// LowConfidence is what the result said; a good flag is raised on
	// the misses and not on the hits.
	LowConfidence bool `json:"lowConfidence"`
}

// Report is the outcome of a run: every case and the macro averages,
// overall and per case kind.
type Report struct {
	Cases      []CaseResult       `json:"cases"`
	Macro      Metrics            `json:"macro"`
	ByKind     map[string]Metrics `json:"byKind"`
	Confidence Calibration        `json:"confidence"`
}

// Calibration says how well lowConfidence separates misses from hits: how
// many cases it flagged, and hit@5 among the flagged and the others.
type Calibration struct {
	Flagged       int     `json:"flagged"`
	Cases         int     `json:"cases"`
	Hit5Flagged   float64 `json:"hit5Flagged"`
	Hit5Unflagged float64 `json:"hit5Unflagged"`
	// OffTopic counts the off-topic queries (offTopicQueries, asked of
	// every suite), how many of them were flagged, as they should be, and
	// how many items their answers held in all (noise: the fewer the
	// better).
	OffTopic        int `json:"offTopic"`
	OffTopicFlagged int `json:"offTopicFlagged"`
	OffTopicItems   int `json:"offTopicItems"`
}

// offTopicQueries have no answer in any workspace; lowConfidence should
// flag them all.
var offTopicQueries = []string{
	"bake a sourdough loaf with rye flour",
	"lattice gauge theory in quantum chromodynamics",
	"which mountain huts in the alps open in winter",
	"knitting pattern for a cable-knit sweater",
	"the migration routes of arctic terns",
	"renaissance fresco restoration techniques",
}

func calibrate(cases []CaseResult) Calibration {
	var c Calibration
	var hf, hu float64
	for _, r := range cases {
		c.Cases++
		if r.LowConfidence {
			c.Flagged++
			hf += r.Metrics.Hit5
		} else {
			hu += r.Metrics.Hit5
		}
	}
	if c.Flagged > 0 {
		c.Hit5Flagged = hf / float64(c.Flagged)
	}
	if n := c.Cases - c.Flagged; n > 0 {
		c.Hit5Unflagged = hu / float64(n)
	}
	return c
}

// LoadSuites reads every golden file under dir/golden.
func LoadSuites(dir string) ([]Suite, error) {
	files, err := filepath.Glob(filepath.Join(dir, "golden", "*.json"))
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("%s: no golden cases (golden/*.json)", dir)
	}
	sort.Strings(files)
	var out []Suite
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		var s Suite
		if err := json.Unmarshal(b, &s); err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		out = append(out, s)
	}
	return out, nil
}

// suiteRoot finds a suite's workspace: a directory dir/workspaces/NAME (a
// real repository fetched by a script), or a txtar archive
// dir/workspaces/NAME.txtar, extracted into a temporary directory that
// cleanup removes.
func suiteRoot(dir, name string) (root string, cleanup func(), err error) {
	d := filepath.Join(dir, "workspaces", name)
	if fi, err := os.Stat(d); err == nil && fi.IsDir() {
		return d, func() {}, nil
	}
	tmp, err := os.MkdirTemp("", "ctxls-eval-*")
	if err != nil {
		return "", nil, err
	}
	cleanup = func() { os.RemoveAll(tmp) }
	if err := ExtractTxtar(d+".txtar", tmp); err != nil {
		cleanup()
		return "", nil, fmt.Errorf("workspace %s: %w (want %s/ or %s.txtar)", name, err, d, d)
	}
	return tmp, cleanup, nil
}

// ExtractTxtar writes the files of a txtar archive under dst.
func ExtractTxtar(archive, dst string) error {
	a, err := txtar.ParseFile(archive)
	if err != nil {
		return err
	}
	for _, f := range a.Files {
		name := filepath.FromSlash(f.Name)
		if !filepath.IsLocal(name) {
			return fmt.Errorf("%s: file %q leaves the archive's root", archive, f.Name)
		}
		p := filepath.Join(dst, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// Evaluate runs every golden case under dir (dir/workspaces/NAME.txtar and
// dir/golden/NAME.json) through Select, exactly as the server would, and
// scores the answers.
func Evaluate(ctx context.Context, dir string, cfg workspace.Config, opts workspace.Options) (*Report, error) {
	suites, err := LoadSuites(dir)
	if err != nil {
		return nil, err
	}
	rep := &Report{ByKind: map[string]Metrics{}}
	for _, s := range suites {
		root, cleanup, err := suiteRoot(dir, s.Workspace)
		if err != nil {
			return nil, err
		}
		defer cleanup()
		cfg.CacheDir = "off"
		cfg.HistoryCommits = 0 // golden cases are not commits: the repository's history would only mislead
		ws, err := workspace.New(cfg, opts)
		if err != nil {
			return nil, err
		}
		if _, err := ws.AddFolder(root); err != nil {
			return nil, err
		}
		if _, err := ws.Index(ctx, nil); err != nil {
			return nil, err
		}
		root = ws.Folders()[0].Root
		for _, c := range s.Cases {
			req := c.Request(root)
			res, err := ws.Select(ctx, req)
			if err != nil {
				return nil, fmt.Errorf("%s/%s: %w", s.Workspace, c.Name, err)
			}
			m := score(ws, c, res)
			got := make([]string, len(res.Items))
			for i, it := range res.Items {
				got[i] = it.ID
			}
			rep.Cases = append(rep.Cases, CaseResult{Suite: s.Workspace, Name: c.Name, Kind: c.Kind, Metrics: m, Got: got, LowConfidence: res.LowConfidence})
		}
		for _, q := range offTopicQueries {
			res, err := ws.Select(ctx, &workspace.SelectRequest{Query: q})
			if err != nil {
				return nil, fmt.Errorf("%s: off-topic query %q: %w", s.Workspace, q, err)
			}
			rep.Confidence.OffTopic++
			rep.Confidence.OffTopicItems += len(res.Items)
			if res.LowConfidence {
				rep.Confidence.OffTopicFlagged++
			}
		}
	}
	rep.Macro = average(rep.Cases, "")
	off, flagged, offItems := rep.Confidence.OffTopic, rep.Confidence.OffTopicFlagged, rep.Confidence.OffTopicItems
	rep.Confidence = calibrate(rep.Cases)
	rep.Confidence.OffTopic, rep.Confidence.OffTopicFlagged, rep.Confidence.OffTopicItems = off, flagged, offItems
	kinds := map[string]bool{}
	for _, c := range rep.Cases {
		kinds[c.Kind] = true
	}
	for k := range kinds {
		rep.ByKind[k] = average(rep.Cases, k)
	}
	return rep, nil
}

// score computes one case's metrics from its result.
func score(ws *workspace.Workspace, c Case, res *workspace.Selection) Metrics {
	var m Metrics
	want := map[string]bool{}
	for _, f := range c.Expect.Files {
		want[f] = true
	}
	// Ranked distinct files, for recall and nDCG.
	var files []string
	seen := map[string]bool{}
	for i, it := range res.Items {
		if want[it.Path] {
			if m.MRR == 0 {
				m.MRR = 1 / float64(i+1)
			}
			if i == 0 {
				m.Hit1 = 1
			}
			if i < 5 {
				m.Hit5 = 1
			}
			if i < K {
				m.Precision++
			}
		}
		if !seen[it.Path] {
			seen[it.Path] = true
			files = append(files, it.Path)
		}
	}
	m.Precision /= float64(min(K, max(1, len(res.Items))))
	found := 0
	for _, it := range res.Items[:min(K, len(res.Items))] {
		if want[it.Path] {
			want[it.Path] = false // count each file once
			found++
		}
	}
	if n := len(c.Expect.Files); n > 0 {
		m.Recall = float64(found) / float64(n)
	}
	if m.Precision+m.Recall > 0 {
		m.F1 = 2 * m.Precision * m.Recall / (m.Precision + m.Recall)
	}
	m.NDCG10 = ndcg10(files, c.Expect.Files)
	if len(c.Expect.Symbols) > 0 {
		m.SymRecall, m.Coverage = symbolMetrics(ws, c.Expect.Symbols, res.Items)
	}
	return m
}

// ndcg10 is the nDCG at 10 of the ranked distinct files against the
// expected ones (0 when none are expected).
func ndcg10(files, expect []string) float64 {
	dcg, idcg := 0.0, 0.0
	rel := map[string]bool{}
	for _, f := range expect {
		rel[f] = true
	}
	for i, f := range files[:min(10, len(files))] {
		if rel[f] {
			dcg += 1 / math.Log2(float64(i+2))
		}
	}
	for i := 0; i < min(10, len(expect)); i++ {
		idcg += 1 / math.Log2(float64(i+2))
	}
	if idcg > 0 {
		return dcg / idcg
	}
	return 0
}

// symbolMetrics is the share of the expected symbols ("<path>::<qualified>")
// among the items (recall), and the share of their lines the items cover.
func symbolMetrics(ws *workspace.Workspace, expect []string, items []workspace.Selected) (recall, coverage float64) {
	got := map[string]bool{}
	for _, it := range items {
		got[it.Path+"::"+it.Symbol] = true
	}
	hit, lines, covered := 0, 0, 0
	for _, s := range expect {
		if got[s] {
			hit++
		}
		start, end, ok := symbolLines(ws, s)
		if !ok {
			continue
		}
		for l := start; l <= end; l++ {
			lines++
			for _, it := range items {
				if it.Path+"::" == s[:strings.Index(s, "::")+2] && it.Span.StartLine <= l && l <= it.Span.EndLine {
					covered++
					break
				}
			}
		}
	}
	recall = float64(hit) / float64(len(expect))
	if lines > 0 {
		coverage = float64(covered) / float64(lines)
	}
	return recall, coverage
}

// symbolLines finds the line span of "<path>::<qualified>" in the first
// folder that defines it.
func symbolLines(ws *workspace.Workspace, id string) (uint32, uint32, bool) {
	rel, q, ok := strings.Cut(id, "::")
	if !ok {
		return 0, 0, false
	}
	return ws.SymbolLines(rel, q)
}

func average(cases []CaseResult, kind string) Metrics {
	var sum Metrics
	n := 0.0
	for _, c := range cases {
		if kind != "" && c.Kind != kind {
			continue
		}
		n++
		m := c.Metrics
		sum.Hit1 += m.Hit1
		sum.Hit5 += m.Hit5
		sum.MRR += m.MRR
		sum.Precision += m.Precision
		sum.Recall += m.Recall
		sum.F1 += m.F1
		sum.NDCG10 += m.NDCG10
		sum.SymRecall += m.SymRecall
		sum.Coverage += m.Coverage
	}
	if n == 0 {
		return sum
	}
	return Metrics{
		Hit1: sum.Hit1 / n, Hit5: sum.Hit5 / n, MRR: sum.MRR / n,
		Precision: sum.Precision / n, Recall: sum.Recall / n, F1: sum.F1 / n,
		NDCG10: sum.NDCG10 / n, SymRecall: sum.SymRecall / n, Coverage: sum.Coverage / n,
	}
}

// RatchetSlack is how far a macro metric may fall below the recorded
// baseline before the ratchet fails.
const RatchetSlack = 0.01

// Ratchet lists the metrics of got that fell more than RatchetSlack below
// base, one line each.
func Ratchet(base, got Metrics) []string {
	var out []string
	check := func(name string, b, g float64) {
		if g < b-RatchetSlack {
			out = append(out, fmt.Sprintf("%s: %.3f, baseline %.3f", name, g, b))
		}
	}
	check("hit@1", base.Hit1, got.Hit1)
	check("hit@5", base.Hit5, got.Hit5)
	check("mrr", base.MRR, got.MRR)
	check("precision@5", base.Precision, got.Precision)
	check("recall@5", base.Recall, got.Recall)
	check("f1@5", base.F1, got.F1)
	check("ndcg@10", base.NDCG10, got.NDCG10)
	check("symbol recall", base.SymRecall, got.SymRecall)
	check("coverage", base.Coverage, got.Coverage)
	return out
}
