package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"

	"path/filepath"
	"sort"
	"strings"

	"github.com/ctxls/ctxls/lsp/wire"
	"github.com/ctxls/ctxls/workspace"
	"github.com/ctxls/ctxls/workspace/history"
)

// indexFlags are the index options shared by select, index and eval.
type indexFlags struct {
	root     string
	embedder string
	model    string
	ortLib   string
	exclude  multiFlag
	cacheDir string
	maxBytes int64
	history  int
	verbose  bool
	tools    []workspace.Tool // select's --tool
}

func (f *indexFlags) register(fs *flag.FlagSet, withRoot bool) {
	if withRoot {
		fs.StringVar(&f.root, "root", ".", "the directory to index")
	}
	fs.StringVar(&f.embedder, "embedder", "", `embedder: "hash" (built in, default) or "onnx"`)
	fs.StringVar(&f.model, "model", "", "onnx: directory with model.onnx and vocab.txt or tokenizer.json")
	fs.StringVar(&f.ortLib, "ort-lib", "", "onnx: path to the ONNX Runtime library (or set CTXLS_ORT_LIB)")
	fs.Var(&f.exclude, "exclude", "glob of paths to leave out, relative to the root (repeatable)")
	fs.StringVar(&f.cacheDir, "cache-dir", "", `where to keep the index ("off" to keep none; default: the user cache dir)`)
	fs.Int64Var(&f.maxBytes, "max-file-bytes", 0, "skip files larger than this (default 1 MiB)")
	fs.IntVar(&f.history, "history-commits", history.DefaultMaxCommits, "read at most this many of the repository's latest commits for the history sources (0: none)")
	fs.BoolVar(&f.verbose, "v", false, "log progress to stderr")
}

// config maps the flags onto the one configuration struct.
func (f *indexFlags) config() (workspace.Config, error) {
	cfg := workspace.DefaultConfig()
	if f.embedder != "" {
		cfg.Embedder = f.embedder
	}
	if f.model != "" {
		cfg.ModelPath = f.model
	}
	if f.ortLib != "" {
		cfg.ONNXRuntimeLibrary = f.ortLib
	}
	if len(f.exclude) > 0 {
		cfg.Exclude = append(cfg.Exclude, f.exclude...)
	}
	if f.cacheDir != "" {
		cfg.CacheDir = f.cacheDir
	}
	if f.maxBytes < 0 {
		return cfg, usagef("--max-file-bytes must not be negative")
	}
	if f.maxBytes > 0 {
		cfg.MaxFileBytes = f.maxBytes
	}
	if f.history < 0 {
		return cfg, usagef("--history-commits must not be negative")
	}
	cfg.HistoryCommits = f.history
	cfg.Tools = f.tools
	if err := cfg.Validate(); err != nil {
		return cfg, usageError{err.Error()}
	}
	return cfg, nil
}

// open builds a workspace over the flags' root and indexes it.
func (f *indexFlags) open(ctx context.Context, stderr io.Writer) (*workspace.Workspace, []workspace.IndexStats, error) {
	cfg, err := f.config()
	if err != nil {
		return nil, nil, err
	}
	level := slog.LevelWarn
	if f.verbose {
		level = slog.LevelInfo
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	ws, err := workspace.New(cfg, workspace.Options{
		Logger: log,
		Warn:   func(msg string) { fmt.Fprintln(stderr, msg) },
	})
	if err != nil {
		return nil, nil, usageError{err.Error()}
	}
	if _, err := ws.AddFolder(f.root); err != nil {
		return nil, nil, usageError{err.Error()}
	}
	progress, finish := indexProgress(stderr, f.verbose, log)
	stats, err := ws.Index(ctx, progress)
	finish()
	if err != nil {
		return nil, nil, err
	}
	if f.verbose {
		for _, st := range stats {
			for _, s := range st.SkippedFiles {
				args := []any{"root", st.Root, "path", s.Path, "reason", string(s.Reason)}
				if s.Err != nil {
					args = append(args, "detail", s.Err.Error())
				}
				log.Info("skipped", args...)
			}
		}
	}
	return ws, stats, nil
}

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

// indexProgress is how indexing shows its progress on stderr: a counter
// redrawn in place on a terminal; with -v elsewhere, a log line every
// tenth of the files; otherwise nothing. finish ends the counter.
func indexProgress(stderr io.Writer, verbose bool, log *slog.Logger) (progress func(workspace.Progress), finish func()) {
	switch {
	case isTerminal(stderr):
		line := &statusLine{w: stderr}
		return func(p workspace.Progress) {
			if p.Total > 0 {
				line.show(fmt.Sprintf("indexing %s: %d/%d files", p.Root, p.Done, p.Total), p.Done == p.Total)
			}
		}, line.done
	case verbose:
		last := -1
		return func(p workspace.Progress) {
			if p.Total == 0 {
				return
			}
			pct := p.Done * 100 / p.Total
			if pct/10 != last/10 {
				last = pct
				log.Info("indexing", "root", p.Root, "done", p.Done, "total", p.Total)
			}
		}, func() {}
	}
	return nil, func() {}
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

// cliRef turns a path typed on the command line into a file URI (see
// cliPath); URIs and item ids pass through.
func cliRef(root, ref string) (uri string, missing bool) {
	if strings.Contains(ref, "://") || workspace.IsItemID(ref) {
		return ref, false
	}
	p, missing := cliPath(root, ref)
	return wire.URIFromPath(p), missing
}

// cliPath makes a path typed on the command line absolute: a relative path
// is relative to the root (--root), unless only the current directory has
// it. missing: the path names no file in either place (the path returned
// is then the one under the root, which an error should name).
func cliPath(root, ref string) (abs string, missing bool) {
	p := ref
	if !filepath.IsAbs(ref) {
		p = filepath.Join(root, ref)
		if !exists(p) && exists(ref) {
			p = ref
		}
	}
	missing = !exists(p)
	if a, err := filepath.Abs(p); err == nil {
		p = a
	}
	return p, missing
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return !errors.Is(err, fs.ErrNotExist)
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

// flagSet reports whether the command line set the flag called name.
func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// toolFlag reads --tool "name: description", or "name (mode): description"
// for an include mode other than agent.
func toolFlag(v string) (workspace.Tool, error) {
	name, desc, ok := strings.Cut(v, ":")
	if !ok {
		return workspace.Tool{}, usagef("--tool %q: want \"name: description\" or \"name (always|manual|agent): description\"", v)
	}
	t := workspace.Tool{Name: strings.TrimSpace(name), Description: strings.TrimSpace(desc)}
	if n, mode, found := strings.Cut(t.Name, "("); found && strings.HasSuffix(mode, ")") {
		t.Name, t.Include = strings.TrimSpace(n), strings.TrimSuffix(mode, ")")
	}
	return t, nil
}

// includeItemsFlag reads --include-items.
func includeItemsFlag(v string) (*wire.IncludeItems, error) {
	switch v {
	case "", "all":
		return nil, nil
	case "none":
		no := false
		return &wire.IncludeItems{All: &no}, nil
	}
	kinds := map[string]bool{}
	for _, k := range workspace.ItemKinds {
		kinds[k] = false
	}
	for _, k := range strings.Split(v, ",") {
		k = strings.TrimSpace(k)
		if _, ok := kinds[k]; !ok {
			return nil, usagef("--include-items: unknown item kind %q (want all, none, or some of %s)", k, strings.Join(workspace.ItemKinds, ", "))
		}
		kinds[k] = true
	}
	return &wire.IncludeItems{Kinds: kinds}, nil
}

// parseText parses the flags of a command that takes a text (select's
// query, remember's note) and returns the text: the other arguments,
// joined. An empty text is bad usage.
func parseText(fs *flag.FlagSet, args []string, stderr io.Writer, cmd, arg, what string) (string, error) {
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: ctxls %s [flags] %s...\n", cmd, arg)
		fs.PrintDefaults()
	}
	words, err := parseInterleaved(fs, args)
	if err != nil {
		return "", err
	}
	text := strings.TrimSpace(strings.Join(words, " "))
	if text == "" {
		return "", usagef("%s: %s is required (ctxls %s [flags] %s...)", cmd, what, cmd, arg)
	}
	return text, nil
}

// flagOf is the select flag that set a request field ("kinds[1]" →
// "--kind #2").
func flagOf(field string) string { return flagFor(selectFlags, field) }

// flagFor is the flag, in flags, that set a field.
func flagFor(flags map[string]string, field string) string {
	name, index, indexed := strings.Cut(field, "[")
	flag, ok := flags[name]
	switch {
	case !ok:
		return field
	case indexed:
		var i int
		fmt.Sscan(strings.TrimSuffix(index, "]"), &i)
		return fmt.Sprintf("%s #%d", flag, i+1)
	}
	return flag
}

// printResult writes the readable listing: one header line per item, then
// its text, indented.
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
				parts = append(parts, fmt.Sprintf("%s #%d (%.3f)", n, s.Rank, s.Score))
			}
			fmt.Fprintf(w, "   score %.4f (%s): %s\n", it.Score, it.Reason, strings.Join(parts, ", "))
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
	} else {
		fmt.Fprintf(w, "history     none (%s)\n", h.Reason)
	}
	if j := st.Weights.Judged; st.Weights.Set == "fitted" && j != nil {
		fmt.Fprintf(w, "weights     fitted %s (ctxls tune; on %d judged answers MRR %.3f, defaults %.3f)\n", st.Weights.Fitted, j.Cases, j.MRR, j.DefaultMRR)
	} else {
		fmt.Fprintf(w, "weights     default\n")
	}
	fmt.Fprintf(w, "embedder    %s\n", st.Embedder)
	fmt.Fprintf(w, "cache       %s\n", st.Cache)
}
