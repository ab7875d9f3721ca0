// Package replay measures ctxls on a repository's own history. Each of the
// last non-merge commits is a change-localization case: the workspace is
// the commit's parent tree, read from git objects; the request is the
// commit's message, cleaned of trailers, references and URLs; the answer
// is the source files the commit modified and the lines it changed. The
// workspace walks forward from case to case through the incremental index,
// as an editor's would, and a case sees nothing of its own commit or any
// later one: the tree it is asked about is its parent's.
package replay

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"time"

	"github.com/ctxls/ctxls/heuristics"
	"github.com/ctxls/ctxls/symbolindex/parse"
	"github.com/ctxls/ctxls/workspace"
	"github.com/ctxls/ctxls/workspace/history"
	"github.com/ctxls/ctxls/workspace/snapshot"
)

// Scenarios, in the order they are reported.
const (
	// Cold asks the commit message.
	Cold = "cold"
	// Vague asks a follow-up that says nothing itself, with the message as
	// the conversation's history.
	Vague = "vague"
	// Active asks the message with the gold file the commit changed most
	// open as the active document; the answer is the other gold files.
	Active = "active"
	// Cursor is Active with the cursor on the first line the commit
	// changed in the open file, where an editor's would be while making
	// the change.
	Cursor = "cursor"
)

// AllScenarios are the scenarios Run knows.
var AllScenarios = []string{Cold, Vague, Active, Cursor}

// DefaultScenarios are the scenarios Run runs unless told which.
var DefaultScenarios = []string{Cold, Vague, Active}

// VagueQuery is the follow-up the vague scenario asks.
const VagueQuery = "ok, now make that change"

// CoverageBudget is the characters of item text over which hunk coverage
// counts items, in rank order.
const CoverageBudget = 12000

// Options say which commits to replay and how.
type Options struct {
	Root    string // the repository: a working tree or a bare git directory
	Commits int    // the last N non-merge commits (0: 60)
	// Cases, if set, replays the last Cases commits that are cases instead
	// (a commit that modifies no source file, or has no message, is passed
	// over), looking back at most CasesLookback×Cases non-merge commits;
	// Commits is then ignored.
	Cases     int
	Since     string   // only commits after this date (git's --since), "" for any
	Scenarios []string // nil: all
	Baseline  bool     // also score plain BM25 over whole files
	// NoHistory leaves the history sources out: each case otherwise sees
	// the repository's commits up to its parent, as a clone would.
	NoHistory bool
	Config    workspace.Config
	// Limit and MaxChars shape each request as a client would (0: 40
	// items and no character budget, so that the answer ranks files well
	// past the first five and hunk coverage reads the first
	// CoverageBudget characters of it).
	Limit, MaxChars int
	// Items keeps each answer's items (path, lines, characters) in its
	// score, for reading where an answer spent its budget.
	Items bool
	// Progress, if set, is told of each commit as it is replayed.
	Progress func(done, total int, commit string)
	// Sets, if set, gives the weight sets each case is answered under
	// (each scenario once under each): i is the case's commit among the
	// n replayed, oldest first, and done the cases scored before it, so
	// a caller may fit on them. It is called once per case, after its
	// commit is known to be one; done never holds the case's own commit
	// or a later one. Case.SetScores[j] holds the scores under the j-th
	// set and Case.Scores those under the first.
	Sets func(i, n int, done []Case) []heuristics.WeightSet
}

// Report is what Run measured.
type Report struct {
	Root      string           `json:"root"`
	Commits   int              `json:"commits"` // non-merge commits read
	Head      string           `json:"head"`    // the newest of them
	Skipped   map[string]int   `json:"skipped"` // commits that are no case, by reason
	Scenarios []ScenarioReport `json:"scenarios"`
	Cases     []Case           `json:"cases"`
	// Unwritten names the commits whose tree could not be written whole
	// (a path the file system refuses): each is skipped as a case, with
	// the paths and why, and the replay goes on.
	Unwritten []string `json:"unwritten,omitempty"`
	ElapsedMs float64  `json:"elapsedMs"`
}

// ScenarioReport averages one scenario's cases, over all of them and split
// by whether the message names a gold file or a changed symbol.
type ScenarioReport struct {
	Name     string `json:"name"`
	Ctxls    Split  `json:"ctxls"`
	Baseline *Split `json:"baseline,omitempty"`
}

// Split is a scenario's metrics over all cases and two subsets.
type Split struct {
	All          Metrics `json:"all"`
	NamesGold    Metrics `json:"namesGold"`    // the message names a gold file or changed symbol
	NamesNothing Metrics `json:"namesNothing"` // it names neither
	// FirstRight: the cases whose first file is a changed one (hit@1),
	// where hunk coverage measures the lines within the right file.
	FirstRight Metrics `json:"firstRight"`
}

// Metrics are macro averages over cases.
type Metrics struct {
	Cases        int     `json:"cases"`
	Hit1         float64 `json:"hit1"`
	Hit5         float64 `json:"hit5"`
	Recall5      float64 `json:"recall5"`
	MRR          float64 `json:"mrr"`
	HunkCoverage float64 `json:"hunkCoverage"`
}

// Case is one replayed commit.
type Case struct {
	Commit      string           `json:"commit"`
	Query       string           `json:"query"`
	Gold        []Gold           `json:"gold"`
	NamesFile   bool             `json:"namesFile"`
	NamesSymbol bool             `json:"namesSymbol"`
	Scores      map[string]Score `json:"scores"`             // by scenario
	Baseline    map[string]Score `json:"baseline,omitempty"` // by scenario
	// SetScores are the scores under each of Options.Sets, by scenario.
	SetScores []map[string]Score `json:"-"`
}

// Gold is a file the commit modified and the old-side lines it changed.
type Gold struct {
	Path  string `json:"path"`
	Hunks []Hunk `json:"hunks"`
}

// Score is one answer to one case.
type Score struct {
	Files        []string `json:"files"`           // the distinct files answered, in order (at most 10)
	Items        []Item   `json:"items,omitempty"` // with Options.Items: every item, in order
	Hit1         bool     `json:"hit1"`
	Hit5         bool     `json:"hit5"`
	Recall5      float64  `json:"recall5"`
	RR           float64  `json:"rr"`
	HunkCoverage float64  `json:"hunkCoverage"`
}

// Item is one item of an answer: its file, the lines its range claims
// (1-based, inclusive), the characters of its text and its symbol.
type Item struct {
	Path   string `json:"path"`
	Start  int    `json:"start"`
	End    int    `json:"end"`
	Chars  int    `json:"chars"`
	Symbol string `json:"symbol,omitempty"`
	Why    string `json:"why,omitempty"`
}

// answerLimit is how many items a replayed request asks for by default:
// enough to rank files well past the first five.
const answerLimit = 40

// Run replays the commits and scores every scenario.
func Run(ctx context.Context, opts Options) (*Report, error) {
	start := time.Now()
	if err := opts.defaults(); err != nil {
		return nil, err
	}
	r, err := openRepo(ctx, opts.Root)
	if err != nil {
		return nil, err
	}
	defer r.close()
	n := opts.Commits
	if opts.Cases > 0 {
		n = CasesLookback * opts.Cases
	}
	ids, err := r.commits(ctx, n, opts.Since)
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "ctxls-replay-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	maxBytes := opts.Config.MaxFileBytes
	if maxBytes <= 0 {
		maxBytes = workspace.DefaultMaxFileBytes
	}
	rp := &replayer{opts: opts, r: r, t: &tree{r: r, dir: dir, maxBytes: maxBytes}, parser: parse.NewParser()}
	defer rp.parser.Close()
	if opts.Baseline {
		rp.base = newBaseline()
	}
	rep := &Report{Root: opts.Root, Commits: len(ids), Skipped: map[string]int{}, Cases: []Case{}}
	var kept map[string]*candidate
	if opts.Cases > 0 {
		if ids, kept, err = rp.lastCases(ctx, ids, opts.Cases, rep); err != nil {
			return nil, err
		}
	}
	if len(ids) > 0 {
		rep.Head = ids[len(ids)-1]
	}
	for i, c := range ids {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if opts.Progress != nil {
			opts.Progress(i, len(ids), c)
		}
		rp.i, rp.n, rp.done = i, len(ids), rep.Cases
		cs, skip, err := rp.replay(ctx, c, kept[c])
		delete(kept, c) // its old files' texts, no longer needed
		if err != nil {
			return nil, fmt.Errorf("commit %.12s: %w", c, err)
		}
		if skip != "" {
			rep.Skipped[skip]++
			if rp.unwritten != "" {
				rep.Unwritten = append(rep.Unwritten, fmt.Sprintf("%.12s: %s", c, rp.unwritten))
				rp.unwritten = ""
			}
			continue
		}
		rep.Cases = append(rep.Cases, *cs)
	}
	if opts.Progress != nil {
		opts.Progress(len(ids), len(ids), "")
	}
	rep.Scenarios = summarize(rep.Cases, opts.Scenarios, opts.Baseline)
	rep.ElapsedMs = float64(time.Since(start).Microseconds()) / 1000
	return rep, nil
}

// defaults fills the options left unset and checks the scenarios.
func (opts *Options) defaults() error {
	if opts.Commits <= 0 {
		opts.Commits = 60
	}
	if opts.Limit <= 0 {
		opts.Limit = answerLimit
	}
	if opts.MaxChars <= 0 {
		opts.MaxChars = 1 << 20
	}
	if opts.Scenarios == nil {
		opts.Scenarios = DefaultScenarios
	}
	for _, s := range opts.Scenarios {
		if !slices.Contains(AllScenarios, s) {
			return fmt.Errorf("unknown scenario %q (want cold, vague, active or cursor)", s)
		}
	}
	return nil
}

// CasesLookback bounds how far Options.Cases looks back: at most this many
// commits per case asked for.
const CasesLookback = 10

// lastCases keeps the newest n of ids (oldest first) that are cases, by
// the message and the files each commit modified, without replaying them,
// and what inspect read of each, by id, for the replay. The report counts
// the commits looked at, down to the oldest kept, and why those passed
// over are none.
func (rp *replayer) lastCases(ctx context.Context, ids []string, n int, rep *Report) ([]string, map[string]*candidate, error) {
	var keep []string
	cands := map[string]*candidate{}
	looked := 0
	for i := len(ids) - 1; i >= 0 && len(keep) < n; i-- {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		looked++
		cand, skip, err := rp.inspect(ctx, ids[i])
		if err != nil {
			return nil, nil, fmt.Errorf("commit %.12s: %w", ids[i], err)
		}
		if skip != "" {
			rep.Skipped[skip]++
			continue
		}
		keep = append(keep, ids[i])
		cands[ids[i]] = cand
	}
	slices.Reverse(keep)
	rep.Commits = looked
	return keep, cands, nil
}

// candidate is what makes a commit a case, read before any tree is
// written: its parent, the request, the gold files and their old contents.
type candidate struct {
	parent, query string
	gold          []Gold
	olds          map[string][]byte
}

// inspect reads commit c as a candidate, or says why it is no case.
func (rp *replayer) inspect(ctx context.Context, c string) (*candidate, string, error) {
	parent, msg, err := rp.r.commitInfo(ctx, c)
	if err != nil {
		return nil, "", err
	}
	if parent == "" {
		return nil, "no parent in the repository", nil
	}
	query := CleanMessage(msg)
	if query == "" {
		return nil, "empty message", nil
	}
	gold, olds, err := rp.gold(ctx, parent, c)
	if err != nil {
		return nil, "", err
	}
	if len(gold) == 0 {
		return nil, "no source file modified", nil
	}
	return &candidate{parent: parent, query: query, gold: gold, olds: olds}, "", nil
}

// replayer holds the state that walks forward from case to case.
type replayer struct {
	opts   Options
	r      *repo
	t      *tree
	ws     *workspace.Workspace
	base   *baseline
	hist   *history.History // the last case's
	parser *parse.Parser
	// unwritten says which paths of the last tree written could not be,
	// and why, when that made its case a skip.
	unwritten string
	// i, n and done are what Options.Sets is told of the case at hand.
	i, n int
	done []Case
}

// Reasons a commit is no case.
const (
	// SkipUnwritten: the parent's tree could not be written whole.
	SkipUnwritten = "tree could not be written"
)

// replay makes commit c a case and scores it, or says why it is none.
// cand is what inspect read of c already (nil: read it here).
func (rp *replayer) replay(ctx context.Context, c string, cand *candidate) (*Case, string, error) {
	if cand == nil {
		var skip string
		var err error
		if cand, skip, err = rp.inspect(ctx, c); err != nil || skip != "" {
			return nil, skip, err
		}
	}
	parent, query, gold, olds := cand.parent, cand.query, cand.gold, cand.olds
	failed, err := rp.moveTo(ctx, parent)
	if err != nil {
		return nil, "", err
	}
	for _, g := range gold {
		if werr, ok := rp.t.unwritten[g.Path]; ok && len(failed) == 0 {
			failed = append(failed, fmt.Errorf("%s: %w", g.Path, werr))
		}
	}
	if len(failed) > 0 {
		rp.unwritten = errors.Join(failed...).Error()
		return nil, SkipUnwritten, nil
	}
	cs := &Case{Commit: c, Query: query, Gold: gold, Scores: map[string]Score{}}
	symbols := map[string][]parse.Symbol{}
	for _, g := range gold {
		if pf, err := rp.parser.Parse(g.Path, olds[g.Path]); err == nil {
			symbols[g.Path] = pf.Symbols
			placeHunks(g.Hunks, pf.Symbols, olds[g.Path])
		}
	}
	cs.NamesFile, cs.NamesSymbol = mentions(query, gold, symbols)
	if rp.base != nil {
		cs.Baseline = map[string]Score{}
	}
	var sets []heuristics.WeightSet
	if rp.opts.Sets != nil {
		sets = rp.opts.Sets(rp.i, rp.n, rp.done)
	}
	for _, sc := range rp.opts.Scenarios {
		if len(sets) == 0 {
			if err := rp.ask(ctx, sc, cs); err != nil {
				return nil, "", err
			}
			continue
		}
		if err := rp.askUnder(ctx, sc, cs, sets); err != nil {
			return nil, "", err
		}
	}
	return cs, "", nil
}

// gold lists the files commit c modified (against parent) that count as
// the answer, with the lines it changed, and their old contents.
func (rp *replayer) gold(ctx context.Context, parent, c string) ([]Gold, map[string][]byte, error) {
	changes, err := rp.r.diff(ctx, parent, c)
	if err != nil {
		return nil, nil, err
	}
	olds := map[string][]byte{}
	var paths []string
	for _, ch := range changes {
		if ch.status != 'M' || !regular(ch.oldMode) || !regular(ch.newMode) {
			continue
		}
		if _, ok := rp.t.abs(ch.path); !ok {
			continue // never in the tree
		}
		old, err := rp.r.blob(ch.oldBlob, rp.t.maxBytes)
		if errors.Is(err, errBlobTooLarge) {
			continue // too large to index, and so never in the tree
		}
		if err != nil {
			return nil, nil, err
		}
		if goldFile(ch.path, old) {
			olds[ch.path] = old
			paths = append(paths, ch.path)
		}
	}
	if len(paths) == 0 {
		return nil, nil, nil
	}
	hunks, err := rp.r.hunks(ctx, parent, c, paths)
	if err != nil {
		return nil, nil, err
	}
	var gold []Gold
	for _, p := range paths {
		if len(hunks[p]) > 0 {
			gold = append(gold, Gold{Path: p, Hunks: hunks[p]})
		}
	}
	return gold, olds, nil
}

// placeHunks says where each hunk lies among the file's symbols (Hunk.Where).
func placeHunks(hunks []Hunk, syms []parse.Symbol, src []byte) {
	starts := []int{0} // byte offsets of the lines, 0-based
	for i, c := range src {
		if c == '\n' && i+1 < len(src) {
			starts = append(starts, i+1)
		}
	}
	lineChars := func(a, b int) int { // 1-based, inclusive
		if a < 1 || b > len(starts) || a > b {
			return 0
		}
		end := len(src)
		if b < len(starts) {
			end = starts[b]
		}
		return end - starts[a-1]
	}
	var rs [][2]int // symbols' lines, 1-based
	var names []string
	for _, s := range syms {
		if s.Kind == parse.KindFile {
			continue
		}
		rs = append(rs, [2]int{int(s.Range.StartLine) + 1, int(s.Range.EndLine) + 1})
		names = append(names, s.Qualified)
	}
	for i := range hunks {
		h := &hunks[i]
		h.Where = "symbol"
		lo, hi, before, after := 1, len(starts), false, false
		inside := false
		for k, r := range rs {
			switch {
			case r[0] <= h.End && h.Start <= r[1]:
				if !inside || r[1]-r[0] < h.SymLines[1]-h.SymLines[0] {
					h.Symbol, h.SymLines = names[k], r
				}
				inside = true
			case r[1] < h.Start:
				lo, before = max(lo, r[1]+1), true
			case r[0] > h.End:
				hi, after = min(hi, r[0]-1), true
			}
		}
		if inside {
			continue
		}
		switch {
		case !before:
			h.Where = "head"
		case !after:
			h.Where = "tail"
		default:
			h.Where = "between"
		}
		h.Gap = [2]int{lo, hi}
		h.GapChars = lineChars(lo, hi)
	}
}

// moveTo brings the tree, the index and the baseline to commit p: the
// first time by building the index, afterwards by telling the workspace
// which files changed, as watched-file events do. failed are the paths of
// p that could not be written (the tree holds the others).
func (rp *replayer) moveTo(ctx context.Context, p string) (failed []error, _ error) {
	touched, failed, err := rp.t.moveTo(ctx, p)
	if err != nil {
		return nil, err
	}
	return failed, rp.sync(ctx, p, touched)
}

// sync tells the index and the baseline that the tree moved to commit p,
// changing the paths touched.
func (rp *replayer) sync(ctx context.Context, p string, touched []string) error {
	if rp.ws == nil {
		cfg := rp.opts.Config
		cfg.CacheDir = workspace.CacheDirOff
		cfg.HistoryCommits = 0 // the tree has no .git: the case's history comes from the repository below
		ws, err := workspace.New(cfg, workspace.Options{})
		if err != nil {
			return err
		}
		if _, err := ws.AddFolder(rp.t.dir); err != nil {
			return err
		}
		if _, err := ws.Index(ctx, nil); err != nil {
			return err
		}
		rp.ws = ws
	} else if len(touched) > 0 {
		events := make([]workspace.FileEvent, len(touched))
		for i, abs := range touched {
			// Under a directory that became a file the path is gone too.
			_, statErr := os.Lstat(abs)
			events[i] = workspace.FileEvent{Path: abs, Deleted: errors.Is(statErr, os.ErrNotExist) || errors.Is(statErr, syscall.ENOTDIR)}
		}
		if err := rp.ws.FilesChanged(events); err != nil {
			return err
		}
	}
	if !rp.opts.NoHistory {
		// The cases walk forward: each history extends the last one
		// (history.Extend reads only the commits since).
		h, err := rp.hist.Extend(ctx, rp.r.hist, p, history.Options{
			MaxCommits: rp.opts.Config.HistoryCommits, MaxAge: time.Duration(rp.opts.Config.HistoryDays) * 24 * time.Hour,
		})
		if err != nil {
			return err
		}
		rp.hist = h
		if err := rp.ws.SetHistory(rp.t.dir, h); err != nil {
			return err
		}
	}
	if rp.base != nil {
		return rp.base.sync(ctx, rp.t.dir, rp.t.read)
	}
	return nil
}

// askUnder runs one scenario of a case under each weight set, keeping
// each set's score in cs.SetScores and the first's in cs.Scores.
func (rp *replayer) askUnder(ctx context.Context, scenario string, cs *Case, sets []heuristics.WeightSet) error {
	if cs.SetScores == nil {
		cs.SetScores = make([]map[string]Score, len(sets))
		for j := range cs.SetScores {
			cs.SetScores[j] = map[string]Score{}
		}
	}
	base := cs.Baseline
	for j, set := range sets {
		if err := rp.ws.SetWeights(rp.t.dir, set, snapshot.WeightsStats{Set: snapshot.WeightsFitted}); err != nil {
			return err
		}
		if j > 0 {
			cs.Baseline = nil // the baseline has no weights: once is enough
		}
		if err := rp.ask(ctx, scenario, cs); err != nil {
			return err
		}
		if s, ok := cs.Scores[scenario]; ok {
			cs.SetScores[j][scenario] = s
		}
	}
	cs.Baseline = base
	if s, ok := cs.SetScores[0][scenario]; ok {
		cs.Scores[scenario] = s
	}
	return nil
}

// ask runs one scenario of a case, for ctxls and the baseline.
func (rp *replayer) ask(ctx context.Context, scenario string, cs *Case) error {
	req := &workspace.SelectRequest{Query: cs.Query, Limit: rp.opts.Limit, MaxChars: rp.opts.MaxChars, IncludeItems: workspace.CodeOnly()}
	baseQuery := cs.Query
	gold, active := cs.Gold, ""
	switch scenario {
	case Vague:
		req.Query, req.History = VagueQuery, []string{cs.Query}
		baseQuery = cs.Query + "\n" + VagueQuery
	case Active, Cursor:
		if len(gold) < 2 {
			return nil
		}
		i := mostChanged(gold)
		active = gold[i].Path
		req.Active = filepath.Join(rp.t.dir, filepath.FromSlash(active))
		if scenario == Cursor {
			req.Cursor = &workspace.Cursor{Line: uint32(max(gold[i].Hunks[0].Start-1, 0))}
		}
		gold = slices.Delete(slices.Clone(gold), i, i+1)
	}
	sel, err := rp.ws.Select(ctx, req)
	if err != nil {
		return err
	}
	results := make([]Item, len(sel.Items))
	for i, it := range sel.Items {
		results[i] = Item{Path: it.Path, Start: int(it.Span.StartLine) + 1, End: int(it.Span.EndLine) + 1, Chars: len(it.Text), Symbol: it.Symbol, Why: it.Why}
	}
	s := score(results, gold, active)
	if rp.opts.Items {
		s.Items = results
	}
	cs.Scores[scenario] = s
	if rp.base != nil && cs.Baseline != nil {
		cs.Baseline[scenario] = score(rp.base.answer(baseQuery, rp.opts.Limit), gold, active)
	}
	return nil
}

// mostChanged is the gold file with the most changed lines.
func mostChanged(gold []Gold) int {
	best, bestLines := 0, -1
	for i, g := range gold {
		n := 0
		for _, h := range g.Hunks {
			n += h.End - h.Start + 1
		}
		if n > bestLines {
			best, bestLines = i, n
		}
	}
	return best
}

// score rates an answer against the gold files: ranks over distinct files
// (the active file left out), and hunk coverage over the items that fit
// CoverageBudget, in rank order.
func score(results []Item, gold []Gold, active string) Score {
	isGold := map[string]bool{}
	hunks := 0
	for _, g := range gold {
		isGold[g.Path] = true
		hunks += len(g.Hunks)
	}
	var s Score
	seen := map[string]bool{}
	found := 0
	for _, r := range results {
		if r.Path == active || seen[r.Path] {
			continue
		}
		seen[r.Path] = true
		rank := len(seen)
		if len(s.Files) < 10 {
			s.Files = append(s.Files, r.Path)
		}
		if !isGold[r.Path] {
			continue
		}
		if s.RR == 0 {
			s.RR = 1 / float64(rank)
		}
		if rank <= 5 {
			found++
		}
	}
	s.Hit1, s.Hit5 = s.RR == 1, s.RR >= 0.2
	s.Recall5 = float64(found) / float64(len(gold))
	covered := map[[2]int]bool{}
	used := 0
	for _, r := range results {
		if used+r.Chars > CoverageBudget {
			break
		}
		used += r.Chars
		for gi, g := range gold {
			if g.Path != r.Path {
				continue
			}
			for hi, h := range g.Hunks {
				if r.Start <= h.End && h.Start <= r.End {
					covered[[2]int{gi, hi}] = true
				}
			}
		}
	}
	if hunks > 0 {
		s.HunkCoverage = float64(len(covered)) / float64(hunks)
	}
	return s
}

// summarize averages the cases per scenario.
func summarize(cases []Case, scenarios []string, baseline bool) []ScenarioReport {
	var out []ScenarioReport
	for _, sc := range scenarios {
		rep := ScenarioReport{Name: sc}
		rep.Ctxls = split(cases, func(c *Case) (Score, bool) { s, ok := c.Scores[sc]; return s, ok })
		if baseline {
			b := split(cases, func(c *Case) (Score, bool) { s, ok := c.Baseline[sc]; return s, ok })
			rep.Baseline = &b
		}
		out = append(out, rep)
	}
	return out
}

func split(cases []Case, get func(*Case) (Score, bool)) Split {
	var sp Split
	for i := range cases {
		c := &cases[i]
		s, ok := get(c)
		if !ok {
			continue
		}
		sp.All.add(s)
		if c.NamesFile || c.NamesSymbol {
			sp.NamesGold.add(s)
		} else {
			sp.NamesNothing.add(s)
		}
		if s.Hit1 {
			sp.FirstRight.add(s)
		}
	}
	sp.All.mean()
	sp.NamesGold.mean()
	sp.NamesNothing.mean()
	sp.FirstRight.mean()
	return sp
}

func (m *Metrics) add(s Score) {
	m.Cases++
	m.Hit1 += b2f(s.Hit1)
	m.Hit5 += b2f(s.Hit5)
	m.Recall5 += s.Recall5
	m.MRR += s.RR
	m.HunkCoverage += s.HunkCoverage
}

func (m *Metrics) mean() {
	if m.Cases == 0 {
		return
	}
	n := float64(m.Cases)
	m.Hit1, m.Hit5, m.Recall5, m.MRR, m.HunkCoverage = m.Hit1/n, m.Hit5/n, m.Recall5/n, m.MRR/n, m.HunkCoverage/n
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
