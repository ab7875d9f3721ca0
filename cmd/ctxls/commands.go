package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"path/filepath"
	"sort"
	"strings"

	"github.com/ctxls/ctxls/lsp/wire"
	"github.com/ctxls/ctxls/workspace"
	"github.com/ctxls/ctxls/workspace/pipeline"
)

// runSelect is ctxls select: flags → wire request → the one service call
// the LSP server and the MCP tools make too → the listing or JSON.
func runSelect(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	a, err := parseSelect(args, stderr)
	if err != nil {
		return err
	}
	req, missingActive := a.request()
	if missingActive {
		warnMissingActive(stderr, a.active)
	}
	var res *wire.Result
	if c := connectRemote(a.remote, stderr); c != nil {
		var answered bool
		if res, answered, err = remoteSelect(c, a, req, a.remote, stderr); err != nil {
			return err
		}
		if !answered {
			res = nil
		}
	}
	if res == nil {
		ws, stats, err := a.index.open(ctx, stderr)
		if err != nil {
			return err
		}
		res, err = wire.Select(ctx, ws, req, wire.Options{})
		if pe, ok := errors.AsType[*workspace.ParamError](err); ok {
			return usageError{flagOf(pe.Field) + ": " + pe.Msg}
		}
		if err != nil {
			return err
		}
		if a.active != "" && !missingActive {
			warnActive(stderr, ws, stats, req.ActiveURI, a.active, a.line)
		}
	}
	if a.asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(res)
	}
	printResult(stdout, res, req.Explain)
	return nil
}

// selectArgs is select's command line.
type selectArgs struct {
	index                                    indexFlags
	query, active, tokenEncoding, include    string
	remote                                   string
	line, limit, maxChars, perItem, maxToks  int
	minScore, share                          float64
	asJSON, explain, noRetrieval, maxCharsOn bool
	includeItems                             *wire.IncludeItems
	history, pinned, paths, excludePaths     multiFlag
	kinds, items, tools                      multiFlag
}

// parseSelect reads select's flags and query; what is wrong with them is
// bad usage, found before anything is indexed.
func parseSelect(args []string, stderr io.Writer) (*selectArgs, error) {
	fs := flag.NewFlagSet("select", flag.ContinueOnError)
	fs.SetOutput(stderr)
	a := &selectArgs{}
	a.register(fs)
	query, err := parseText(fs, args, stderr, "select", "QUERY", "a query")
	if err != nil {
		return nil, err
	}
	a.query, a.maxCharsOn = query, flagSet(fs, "max-chars")
	if a.line < 0 {
		return nil, usagef("--line must not be negative")
	}
	if a.includeItems, err = includeItemsFlag(a.include); err != nil {
		return nil, err
	}
	for _, t := range a.tools {
		tool, err := toolFlag(t)
		if err != nil {
			return nil, err
		}
		a.index.tools = append(a.index.tools, tool)
	}
	return a, nil
}

func (a *selectArgs) register(fs *flag.FlagSet) {
	a.index.register(fs, true)
	fs.StringVar(&a.remote, "remote", defaultRemote(), remoteUsage)
	fs.StringVar(&a.active, "active", "", "the active file (path or file:// URI)")
	fs.IntVar(&a.line, "line", 0, "1-based cursor line in the active file (0: none)")
	fs.IntVar(&a.limit, "limit", workspace.DefaultLimit, fmt.Sprintf("maximum number of items (1-%d; 0: the default)", workspace.MaxLimit))
	fs.IntVar(&a.maxChars, "max-chars", workspace.DefaultMaxChars, "total character budget over all item texts (0: the default)")
	fs.IntVar(&a.perItem, "max-chars-per-item", workspace.DefaultMaxCharsPerItem, "character cap per item (0: the default)")
	fs.IntVar(&a.maxToks, "max-tokens", 0, "total token budget over all item texts (0: none); with it, --max-chars applies only when given")
	fs.StringVar(&a.tokenEncoding, "token-encoding", "", "the encoding tokens are counted in: o200k_base (default) or cl100k_base")
	fs.Float64Var(&a.minScore, "min-score", 0, "drop items scoring below this")
	fs.BoolVar(&a.asJSON, "json", false, "print the result object as JSON")
	fs.BoolVar(&a.explain, "explain", false, "show each item's per-source ranks and scores")
	fs.StringVar(&a.include, "include-items", "", `context item kinds to include: "all" (default), "none", or a comma-separated list of rule, doc, memory, tool`)
	fs.Float64Var(&a.share, "item-share", 0, "share of --max-chars items other than code may take (default 0.25)")
	fs.BoolVar(&a.noRetrieval, "no-retrieval", false, "retrieve nothing: only pinned items, rules that apply always and named items")
	fs.Var(&a.items, "item", "a context item (rule or tool) to include, by name or id (repeatable)")
	fs.Var(&a.tools, "tool", `a tool to offer, as "name: description" or "name (manual): description" (repeatable)`)
	fs.Var(&a.history, "history", "an earlier prompt of the conversation, oldest first (repeatable)")
	fs.Var(&a.pinned, "pin", "a path, URI or item id to include first (repeatable)")
	fs.Var(&a.paths, "path", "only select from paths matching this glob (repeatable)")
	fs.Var(&a.excludePaths, "exclude-path", "never select from paths matching this glob (repeatable)")
	fs.Var(&a.kinds, "kind", "only select symbols of this kind (repeatable)")
}

// request is the wire request of the command line, as a client would
// send it: paths become file URIs, relative to --root. missingActive
// says that --active names no file.
func (a *selectArgs) request() (req *wire.Request, missingActive bool) {
	req = &wire.Request{
		Query: a.query, History: a.history, Limit: a.limit, MaxChars: a.maxChars, MaxCharsPerItem: a.perItem,
		Pinned: a.pinned, Paths: a.paths, ExcludePaths: a.excludePaths, Kinds: a.kinds, MinScore: a.minScore, Explain: a.explain,
		Items: a.items, IncludeItems: a.includeItems, ItemShare: a.share,
		MaxTokens: a.maxToks, TokenEncoding: a.tokenEncoding,
	}
	if a.maxToks != 0 && !a.maxCharsOn {
		req.MaxChars = 0 // the token budget alone, unless --max-chars says otherwise
	}
	if a.noRetrieval {
		req.Retrieval = new(false)
	}
	if a.active != "" {
		req.ActiveURI, missingActive = cliRef(a.index.root, a.active)
		if a.line > 0 {
			req.Position = &wire.Position{Line: uint32(a.line - 1)}
		}
	}
	for i, p := range req.Pinned {
		req.Pinned[i], _ = cliRef(a.index.root, p)
	}
	return req, missingActive
}

// warnMissingActive says that --active names a file that does not exist
// (under the root or the current directory): the selection goes on (an
// editor's unsaved buffer has no file yet), but a typo, or an editor
// variable left unexpanded ("%{buffer_name}" in a Helix older than 25.07),
// would otherwise pass unnoticed.
func warnMissingActive(stderr io.Writer, active string) {
	hint := ""
	if strings.Contains(active, "%") || strings.Contains(active, "$") {
		hint = " (an editor variable left unexpanded?)"
	}
	fmt.Fprintf(stderr, "ctxls: warning: --active %s: no such file%s; selecting as if it were an unsaved buffer\n", active, hint)
}

// warnActive says when --active names a file the index does not hold (a
// binary file, an ignored one: its contents cannot steer the selection),
// naming why when indexing skipped it, and when --line is past the end
// of the file.
func warnActive(stderr io.Writer, ws *workspace.Workspace, stats []workspace.IndexStats, uri, active string, line int) {
	p, err := wire.PathFromURI(uri)
	if err != nil {
		return // an item id or a URI of another scheme: the request said what was wrong
	}
	lines, indexed, err := ws.FileLines(p)
	switch {
	case err != nil:
		return
	case !indexed:
		why := "left out by .gitignore or an exclude"
		if real, err := filepath.EvalSymlinks(p); err == nil {
			if fi, err := os.Stat(real); err == nil && fi.IsDir() {
				why = "a directory"
			}
			for _, st := range stats {
				for _, s := range st.SkippedFiles {
					if filepath.Join(st.Root, filepath.FromSlash(s.Path)) == real {
						why = string(s.Reason)
					}
				}
			}
		}
		fmt.Fprintf(stderr, "ctxls: warning: --active %s: not indexed (%s), so its contents cannot steer the selection\n", active, why)
	case line > lines:
		noun := "lines"
		if lines == 1 {
			noun = "line"
		}
		fmt.Fprintf(stderr, "ctxls: warning: --line %d: past the end of %s (%d %s); no symbol is under the cursor\n", line, active, lines, noun)
	}
}

// selectFlags are the select flags that set each request field, so that
// the workspace's validation (the same for the server) names the flag.
var selectFlags = map[string]string{
	"limit": "--limit", "maxChars": "--max-chars", "maxCharsPerItem": "--max-chars-per-item",
	"minScore": "--min-score", "paths": "--path", "excludePaths": "--exclude-path",
	"kinds": "--kind", "pinned": "--pin", "activeUri": "--active",
	"items": "--item", "includeItems": "--include-items", "itemShare": "--item-share",
	"maxTokens": "--max-tokens", "tokenEncoding": "--token-encoding",
}

// flagOf is the select flag that set a request field ("kinds[1]" →
// "--kind #2").
func flagOf(field string) string { return flagFor(selectFlags, field) }

// printResult writes the readable listing: one header line per item, then
// its text, indented.
//
// With explain, an item the request names outright shows the strong-match
// bonus on its own line, and an item far ahead in the word match its lead
// bonus: both are added to the fused score beside the sources' reciprocal
// ranks, so the ranks alone do not add up to the score.
func printResult(w io.Writer, res *wire.Result, explain bool) {
	switch {
	case len(res.Items) == 0 && res.Message != "":
		fmt.Fprintln(w, res.Message)
	case len(res.Items) == 0:
		fmt.Fprintln(w, "no items")
	}
	for i, it := range res.Items {
		fmt.Fprintf(w, "%d. %s  %s\n   why: %s\n", i+1, it.Where("(file)"), it.Kind, it.Why)
		switch {
		case it.Kind == workspace.ItemMemory && len(it.Paths) > 0:
			fmt.Fprintf(w, "   about: %s\n", strings.Join(it.Paths, ", "))
		case len(it.Paths) > 1:
			fmt.Fprintf(w, "   also at: %s\n", strings.Join(it.Paths[1:], ", "))
		}
		if explain {
			names := make([]string, 0, len(it.Signals))
			for n := range it.Signals {
				names = append(names, n)
			}
			sort.Strings(names)
			var parts []string
			for _, n := range names {
				s := it.Signals[n]
				part := fmt.Sprintf("%s #%d (%.3f)", n, s.Rank, s.Score)
				if s.TieFiles > 0 {
					part = fmt.Sprintf("%s #%d (%.3f, tied across %d files, which share its credit)", n, s.Rank, s.Score, s.TieFiles)
				}
				parts = append(parts, part)
			}
			if len(parts) == 0 {
				// A release's version declaration that only the strong
				// match found (its line below says so).
				parts = append(parts, "no source ranked it")
			}
			fmt.Fprintf(w, "   score %.4f (%s): %s\n", it.Score, it.Reason, strings.Join(parts, ", "))
			if it.Strong != nil {
				fmt.Fprintf(w, "   strong match +%.4f: %s\n", it.Strong.Bonus, strongBy[it.Strong.By])
			}
			if it.LeadBonus > 0 {
				fmt.Fprintf(w, "   lead +%.4f: its word match is ahead of the source's fifth place by that much\n", it.LeadBonus)
			}
		}
		for _, l := range strings.Split(strings.TrimRight(it.Text, "\n"), "\n") {
			fmt.Fprintf(w, "   | %s\n", l)
		}
		if it.Truncated {
			fmt.Fprintln(w, "   | …")
		}
		fmt.Fprintln(w)
	}
	conf := ""
	if res.LowConfidence {
		conf = ", low confidence"
	}
	toks := ""
	if res.UsedTokens != nil {
		toks = fmt.Sprintf(", %d tokens (%s)", *res.UsedTokens, res.TokenEncoding)
	}
	fmt.Fprintf(w, "%d items, %d chars%s; %d files, %d symbols, %d candidates, %.1f ms, %s%s\n",
		len(res.Items), res.UsedChars, toks, res.Stats.Files, res.Stats.Symbols, res.Stats.Candidates,
		res.Stats.ElapsedMs, res.Stats.Embedder, conf)
}

func runIndex(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("index", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var f indexFlags
	f.register(fs, true)
	asJSON := fs.Bool("json", false, "print the statistics as JSON")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("index: unexpected argument %q (use --root DIR)", pos[0])
	}
	_, stats, err := f.open(ctx, stderr)
	if err != nil {
		return err
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if len(stats) == 1 {
			return enc.Encode(stats[0])
		}
		return enc.Encode(stats)
	}
	for _, st := range stats {
		printStats(stdout, st)
	}
	return nil
}

func printStats(w io.Writer, st workspace.IndexStats) {
	fmt.Fprintf(w, "root        %s\n", st.Root)
	fmt.Fprintf(w, "files       %d (%d parsed, %d from cache", st.Files, st.Parsed, st.Reused)
	if n := st.Found - st.Files; n > 0 {
		// Indexing counts the files it reads; some are skipped once read.
		fmt.Fprintf(w, "; %d read, %d of them skipped", st.Found, n)
	}
	fmt.Fprintln(w, ")")
	fmt.Fprintf(w, "symbols     %d\n", st.Symbols)
	langs := make([]string, 0, len(st.Languages))
	for l := range st.Languages {
		langs = append(langs, l)
	}
	sort.Slice(langs, func(i, j int) bool {
		a, b := st.Languages[langs[i]], st.Languages[langs[j]]
		return a > b || a == b && langs[i] < langs[j]
	})
	var parts []string
	for _, l := range langs {
		parts = append(parts, fmt.Sprintf("%s %d", l, st.Languages[l]))
	}
	fmt.Fprintf(w, "languages   %s\n", strings.Join(parts, ", "))
	fmt.Fprintf(w, "bytes       %d\n", st.Bytes)
	var reasons, refusals []string
	for r, n := range st.SkipReasons {
		reasons = append(reasons, fmt.Sprintf("%s %d", r, n))
		if workspace.IsRefusal(workspace.SkipReason(r)) {
			refusals = append(refusals, fmt.Sprintf("%s %d", r, n))
		}
	}
	sort.Strings(reasons)
	sort.Strings(refusals)
	if len(reasons) > 0 {
		fmt.Fprintf(w, "skipped     %d (%s)\n", st.Skipped, strings.Join(reasons, ", "))
	} else {
		fmt.Fprintf(w, "skipped     0\n")
	}
	if st.Refused > 0 {
		fmt.Fprintf(w, "refused     %d, never read (%s)\n", st.Refused, strings.Join(refusals, ", "))
	}
	fmt.Fprintf(w, "elapsed     %.1f ms\n", st.ElapsedMs)
	fmt.Fprintf(w, "merkle root %s\n", st.MerkleRoot)
	if h := st.History; h.Commits > 0 {
		noun := "commits"
		if h.Commits == 1 {
			noun = "commit"
		}
		fmt.Fprintf(w, "history     %d %s to %.12s (%.1f ms)\n", h.Commits, noun, h.Head, h.ElapsedMs)
		if h.Partial != "" {
			fmt.Fprintf(w, "            %s\n", h.Partial)
		}
	} else if note := h.Note(); note != "" {
		// No commit in the tables: why not, or what the read found (a
		// depth-1 clone's only commit is its boundary).
		fmt.Fprintf(w, "history     none (%s)\n", note)
	} else {
		fmt.Fprintf(w, "history     none\n")
	}
	if j := st.Weights.Judged; st.Weights.Set == "fitted" && j != nil {
		fmt.Fprintf(w, "weights     fitted %s (ctxls tune; on %d judged answers MRR %.3f, defaults %.3f)\n", st.Weights.Fitted, j.Cases, j.MRR, j.DefaultMRR)
	} else {
		fmt.Fprintf(w, "weights     default\n")
	}
	fmt.Fprintf(w, "embedder    %s\n", st.Embedder)
	fmt.Fprintf(w, "cache       %s\n", st.Cache)
}

// strongBy says what a strong match's "by" means.
var strongBy = map[string]string{
	pipeline.StrongName:    "the request spells the symbol's name",
	pipeline.StrongStem:    "the request spells its file's stem",
	pipeline.StrongScope:   "the request's scope names its file",
	pipeline.StrongFile:    "the request names its file",
	pipeline.StrongFolder:  "the request's scope names its folder",
	pipeline.StrongVersion: "the request names a release, and it declares the version",
}
