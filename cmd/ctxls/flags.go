package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

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
		// index and select do nothing else while the cache loads.
		HoldGC: workspace.HoldCollector,
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

// usageError is bad command-line usage: exit status 2.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return usageError{fmt.Sprintf(format, args...)} }

// parseInterleaved parses flags that may come before, between or after the
// positional arguments, as users type them: `ctxls select "query" --json`.
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := parseFlags(fs, args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		if rest[0] == "--" {
			return append(pos, rest[1:]...), nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// parseFlags is fs.Parse with the errors of a command line: an unknown
// flag or a bad value is one line naming the flag as typed, with a hint of
// -h (the flag package would print the whole usage after it); -h prints
// the usage and returns flag.ErrHelp.
func parseFlags(fs *flag.FlagSet, args []string) error {
	out, usage := fs.Output(), fs.Usage
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	err := fs.Parse(args)
	fs.SetOutput(out)
	fs.Usage = usage
	switch {
	case err == nil:
		return nil
	case errors.Is(err, flag.ErrHelp):
		if usage != nil {
			usage()
		} else {
			fmt.Fprintf(out, "usage: ctxls %s [flags]\n", fs.Name())
			fs.PrintDefaults()
		}
		return err
	}
	return usageError{fmt.Sprintf("%s: %s (see ctxls %s -h)", fs.Name(), flagProblem(fs, args, err), fs.Name())}
}

// flagProblem rewords an error of the flag package ("flag provided but not
// defined: -bogus", "invalid value "abc" for flag -min-score: parse
// error") to name the flag as the user typed it and what it wants.
func flagProblem(fs *flag.FlagSet, args []string, err error) string {
	msg := err.Error()
	typed := func(name string) string {
		for _, a := range args {
			if a == "--" {
				break
			}
			n, _, _ := strings.Cut(a, "=")
			if n == "-"+name || n == "--"+name {
				return n
			}
		}
		return "--" + name
	}
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: -"); ok {
		return "unknown flag " + typed(name)
	}
	if name, ok := strings.CutPrefix(msg, "flag needs an argument: -"); ok {
		return typed(name) + " needs a value"
	}
	// invalid value "abc" for flag -min-score: parse error
	// invalid boolean value "x" for -json: parse error
	for _, p := range []string{"invalid value ", "invalid boolean value "} {
		rest, ok := strings.CutPrefix(msg, p)
		if !ok {
			continue
		}
		i := strings.Index(rest, " for ")
		if i < 0 {
			break
		}
		value, rest := rest[:i], strings.TrimPrefix(rest[i+len(" for "):], "flag ")
		name, why, _ := strings.Cut(strings.TrimPrefix(rest, "-"), ": ")
		want := ""
		if f := fs.Lookup(name); f != nil {
			if g, ok := f.Value.(flag.Getter); ok {
				switch g.Get().(type) {
				case float64:
					want = "a number"
				case int, int64, uint, uint64:
					want = "a whole number"
				case bool:
					want = "true or false"
				case time.Duration:
					want = "a duration such as 30s"
				}
			}
		}
		if want == "" || why != "parse error" {
			return fmt.Sprintf("%s: invalid value %s: %s", typed(name), value, why)
		}
		return fmt.Sprintf("%s: invalid value %s (want %s)", typed(name), value, want)
	}
	return msg
}

// multiFlag is a repeatable string flag.
type multiFlag []string

func (m *multiFlag) String() string { return strings.Join(*m, ",") }

func (m *multiFlag) Set(v string) error {
	*m = append(*m, v)
	return nil
}
