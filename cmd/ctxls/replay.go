package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	"github.com/ctxls/ctxls/workspace"
	"github.com/ctxls/ctxls/workspace/replay"
)

func runReplay(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("replay", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var f indexFlags
	f.register(fs, true)
	commits := fs.Int("commits", 60, "replay the last N non-merge commits (those that modify no source file are counted, not cases)")
	cases := fs.Int("cases", 0, "replay the last N commits that are cases instead, passing over the others (looks back at most 10×N commits; overrides --commits)")
	since := fs.String("since", "", "only commits after this date (as git log --since takes it)")
	scenarios := fs.String("scenarios", strings.Join(replay.DefaultScenarios, ","), "scenarios to run: cold, vague, active, cursor (comma-separated)")
	baseline := fs.Bool("baseline", false, "also score plain BM25 over whole files")
	withHistory := fs.Bool("history", true, "let each case see the repository's commits up to its parent (--history=false: none)")
	asJSON := fs.Bool("json", false, "print the report, with every case, as JSON")
	limit := fs.Int("limit", 40, "items each request asks for (as a client's limit)")
	maxChars := fs.Int("max-chars", 0, "each request's character budget (0: none; hunk coverage reads the first 12,000 characters either way)")
	items := fs.Bool("items", false, "with --json, keep every answer's items (path, lines, characters, why)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: ctxls replay [flags]\n\nReplays the repository's last commits as change-localization cases: the parent's\ntree is the workspace, the message the request, the modified source files the answer.")
		fs.PrintDefaults()
	}
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("replay: unexpected argument %q (the repository is --root)", pos[0])
	}
	if *commits < 1 {
		return usagef("--commits must be positive, got %d", *commits)
	}
	if *cases < 0 {
		return usagef("--cases must not be negative, got %d", *cases)
	}
	if *limit < 1 || *limit > workspace.MaxLimit {
		return usagef("--limit must be between 1 and %d, got %d", workspace.MaxLimit, *limit)
	}
	if *maxChars < 0 {
		return usagef("--max-chars must not be negative, got %d", *maxChars)
	}
	list, err := scenarioList(*scenarios)
	if err != nil {
		return err
	}
	cfg, err := f.config()
	if err != nil {
		return err
	}
	opts := replay.Options{Root: f.root, Commits: *commits, Cases: *cases, Since: *since, Scenarios: list, Baseline: *baseline, NoHistory: !*withHistory, Config: cfg,
		Limit: *limit, MaxChars: *maxChars, Items: *items}
	opts.Progress = replayProgress(stderr, f.verbose)
	rep, err := replay.Run(ctx, opts)
	if err != nil {
		return err
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	printReplay(stdout, rep)
	return nil
}

// scenarioList reads --scenarios: names separated by commas, each one of
// cold, vague and active.
func scenarioList(arg string) ([]string, error) {
	var list []string
	for _, s := range strings.Split(arg, ",") {
		if s = strings.TrimSpace(s); s == "" {
			continue
		}
		if !slices.Contains(replay.AllScenarios, s) {
			return nil, usagef("--scenarios: unknown scenario %q (want cold, vague, active or cursor)", s)
		}
		list = append(list, s)
	}
	return list, nil
}

// replayProgress is how a replay shows its progress: a counter redrawn in
// place on a terminal; with -v elsewhere, a line per commit; otherwise
// nothing (nil).
func replayProgress(stderr io.Writer, verbose bool) func(done, total int, commit string) {
	msg := func(done, total int, commit string) string {
		return fmt.Sprintf("replaying commit %d/%d  %.10s", done+1, total, commit)
	}
	switch {
	case isTerminal(stderr):
		line := &statusLine{w: stderr}
		return func(done, total int, commit string) {
			if commit != "" {
				line.show(msg(done, total, commit), true)
			} else {
				line.done()
			}
		}
	case verbose:
		return func(done, total int, commit string) {
			if commit != "" {
				fmt.Fprintln(stderr, msg(done, total, commit))
			} else {
				fmt.Fprintf(stderr, "replayed %d commits\n", total)
			}
		}
	}
	return nil
}

// printReplay writes the readable report: one line per scenario and split,
// ctxls beside the baseline when there is one.
func printReplay(w io.Writer, rep *replay.Report) {
	fmt.Fprintf(w, "%s: %d commits, %d cases", rep.Root, rep.Commits, len(rep.Cases))
	if len(rep.Skipped) > 0 {
		var why []string
		for r, n := range rep.Skipped {
			why = append(why, fmt.Sprintf("%s %d", r, n))
		}
		sort.Strings(why)
		fmt.Fprintf(w, " (not cases: %s)", strings.Join(why, ", "))
	}
	fmt.Fprintf(w, ", %.1f s\n", rep.ElapsedMs/1000)
	for _, u := range rep.Unwritten {
		fmt.Fprintf(w, "skipped %s\n", u)
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "%-8s %-14s %5s  %5s %5s %5s %5s %6s", "scenario", "split", "cases", "hit@1", "hit@5", "rec@5", "MRR", "hunks")
	if len(rep.Scenarios) > 0 && rep.Scenarios[0].Baseline != nil {
		fmt.Fprintf(w, "   | BM25 files: %5s %5s %5s %5s %6s", "hit@1", "hit@5", "rec@5", "MRR", "hunks")
	}
	fmt.Fprintln(w)
	row := func(m replay.Metrics) string {
		if m.Cases == 0 {
			// Zeros would read as a score of 0.
			return fmt.Sprintf("%-33s", "no cases")
		}
		return fmt.Sprintf("%5.2f %5.2f %5.2f %5.2f %6.2f", m.Hit1, m.Hit5, m.Recall5, m.MRR, m.HunkCoverage)
	}
	for _, sc := range rep.Scenarios {
		for _, part := range []struct {
			name string
			c    replay.Metrics
			b    *replay.Metrics
		}{
			{"all", sc.Ctxls.All, ptr(sc.Baseline, func(s *replay.Split) *replay.Metrics { return &s.All })},
			{"names gold", sc.Ctxls.NamesGold, ptr(sc.Baseline, func(s *replay.Split) *replay.Metrics { return &s.NamesGold })},
			{"names nothing", sc.Ctxls.NamesNothing, ptr(sc.Baseline, func(s *replay.Split) *replay.Metrics { return &s.NamesNothing })},
			{"first right", sc.Ctxls.FirstRight, ptr(sc.Baseline, func(s *replay.Split) *replay.Metrics { return &s.FirstRight })},
		} {
			line := fmt.Sprintf("%-8s %-14s %5d  %s", sc.Name, part.name, part.c.Cases, row(part.c))
			if part.b != nil {
				line += fmt.Sprintf("   |             %s", row(*part.b))
			}
			fmt.Fprintln(w, strings.TrimRight(line, " "))
		}
	}
	fmt.Fprint(w, replayLegend)
}

// replayLegend explains the columns and the splits under the table.
const replayLegend = `
commits: the non-merge commits read, newest first (--commits N: the last
N, of which those that modify no source file or have no message are no
case; --cases N: back until N are cases, at most 10×N).
cases: commits scored in the row. hit@1, hit@5: share of cases whose first
file, or one of the first five files, is one the commit changed. rec@5:
share of the changed files among the first five. MRR: mean of 1/rank of
the first changed file. hunks: share of the changed hunks that the items
within the first 12,000 characters overlap. Files are distinct files in
answer order (the active file left out).
Splits: all cases; "names gold": the message names a changed file or
symbol; "names nothing": it names neither; "first right": the cases whose
first file is a changed one (so hit@1 is 1), where hunks says how much of
the change the answer holds once it found the right file. The BM25 columns
(--baseline) score plain BM25 over whole files on the same cases; its first
right row is over its own first-right cases.
Scenarios: cold asks the commit message; vague asks "` + replay.VagueQuery + `"
with the message as history; active asks the message with the most-changed
file open and scores the other changed files (a commit that changed one
file has no active case); cursor (not run unless asked) is active with the
cursor on the first line the commit changed in the open file.
`

func ptr(s *replay.Split, get func(*replay.Split) *replay.Metrics) *replay.Metrics {
	if s == nil {
		return nil
	}
	return get(s)
}
