package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/ctxls/ctxls/heuristics"
	"github.com/ctxls/ctxls/workspace"
	"github.com/ctxls/ctxls/workspace/replay"
)

func runTune(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("tune", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var f indexFlags
	f.register(fs, true)
	commits := fs.Int("commits", 80, "train on this many non-merge commits, the ones before the judged")
	judge := fs.Int("judge", 20, "judge on the most recent N non-merge commits")
	evals := fs.Int("evals", replay.DefaultTuneEvals, "weight sets each training commit is answered under, the defaults included")
	seed := fs.Uint64("seed", 1, "seed of the random moves")
	scenarios := fs.String("scenarios", replay.Cold, "scenarios to fit on: cold, active (comma-separated)")
	dryRun := fs.Bool("dry-run", false, "measure, but keep nothing in the cache")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: ctxls tune [flags]\n\nFits the ranking's source weights and priors to the repository's own history\n(ctxls replay): the older commits train, the most recent judge. The fitted set is\nkept in the cache, beside the index, only when it beats the defaults on the judged\ncommits; the server and ctxls select then use it (stats.weights).")
		fs.PrintDefaults()
	}
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("tune: unexpected argument %q (the repository is --root)", pos[0])
	}
	if *commits < 1 || *judge < 1 {
		return usagef("--commits and --judge must be positive, got %d and %d", *commits, *judge)
	}
	if *evals < 2 {
		return usagef("--evals must be at least 2 (the defaults and one other set), got %d", *evals)
	}
	list, err := scenarioList(*scenarios)
	if err != nil {
		return err
	}
	if len(list) == 0 {
		return usagef("--scenarios names none")
	}
	for _, sc := range list {
		if sc == replay.Vague {
			return usagef("--scenarios: tune fits on cold and active, not vague")
		}
	}
	cfg, err := f.config()
	if err != nil {
		return err
	}
	root, err := filepath.Abs(f.root)
	if err != nil {
		return err
	}
	if real, err := filepath.EvalSymlinks(root); err == nil {
		root = real
	}
	opts := replay.TuneOptions{Root: root, Train: *commits, Judge: *judge, Evals: *evals, Seed: *seed, Scenarios: list, Config: cfg}
	opts.Progress = tuneProgress(stderr, f.verbose, *judge)
	rep, err := replay.Tune(ctx, opts)
	if err != nil {
		return err
	}
	kept, note, err := keepWeights(cfg, root, rep, *dryRun)
	if err != nil {
		return err
	}
	if *asJSON {
		out := struct {
			*replay.TuneReport
			Default map[string]float64 `json:"default"`
			Fitted  map[string]float64 `json:"fitted"`
			Kept    string             `json:"kept,omitempty"` // the weights file, when the fitted set was kept
			Note    string             `json:"note"`
		}{rep, setMap(rep.Default), setMap(rep.Fitted), kept, note}
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	printTune(stdout, rep, note)
	return nil
}

// keepWeights keeps the fitted set in the cache when it won on the judged
// commits, and removes a stale one when it did not; it returns the file
// kept ("" for none) and a sentence saying what was done.
func keepWeights(cfg workspace.Config, root string, rep *replay.TuneReport, dryRun bool) (string, string, error) {
	dir, persist := cfg.ResolvedCacheDir()
	why := "the fitted set does not beat the defaults on the judged commits"
	if !rep.Moved {
		why = "no set beat the defaults on the training commits"
	}
	switch {
	case dryRun && rep.Wins:
		return "", "the fitted set wins; --dry-run: nothing kept", nil
	case dryRun:
		return "", why + "; --dry-run: nothing kept", nil
	case !persist:
		return "", "the cache is off: nothing kept", nil
	}
	file := workspace.WeightsFile(dir, root)
	if !rep.Wins {
		if err := workspace.RemoveWeights(file); err != nil {
			return "", "", err
		}
		return "", why + ": the defaults stay (nothing kept, " + file + " removed if it was there)", nil
	}
	fw := workspace.NewFittedWeights(root, rep.Fitted, time.Now())
	fw.Head = rep.Head
	fw.Judged = workspace.WeightsJudge{Cases: rep.Judge.Fitted.Cases, HitAt1: rep.Judge.Fitted.Hit1, HitAt5: rep.Judge.Fitted.Hit5, MRR: rep.Judge.Fitted.MRR,
		DefaultHitAt1: rep.Judge.Default.Hit1, DefaultHitAt5: rep.Judge.Default.Hit5, DefaultMRR: rep.Judge.Default.MRR}
	fw.TrainCases, fw.Evals = rep.Train.Fitted.Cases, rep.Evals
	if err := workspace.WriteWeights(file, fw); err != nil {
		return "", "", err
	}
	return file, "the fitted set wins on the judged commits: kept in " + file, nil
}

// setMap names a set's numbers as a weights file does.
func setMap(w heuristics.WeightSet) map[string]float64 {
	out := map[string]float64{}
	for src, x := range w.Source {
		out[heuristics.SourceNames[src]] = x
	}
	for i, p := range w.Priors() {
		out["prior."+heuristics.PriorNames[i]] = *p
	}
	return out
}

// tuneProgress is replayProgress for a fit: each commit says whether it
// trains or judges.
func tuneProgress(stderr io.Writer, verbose bool, judge int) func(done, total int, commit string, train bool) {
	msg := func(done, total int, commit string, train bool) string {
		if train {
			return fmt.Sprintf("tuning: training commit %d/%d  %.10s", done+1, total-judge, commit)
		}
		return fmt.Sprintf("tuning: judging commit %d/%d  %.10s", done+1-(total-judge), judge, commit)
	}
	switch {
	case isTerminal(stderr):
		line := &statusLine{w: stderr}
		return func(done, total int, commit string, train bool) {
			if commit != "" {
				line.show(msg(done, total, commit, train), true)
			} else {
				line.done()
			}
		}
	case verbose:
		return func(done, total int, commit string, train bool) {
			if commit != "" {
				fmt.Fprintln(stderr, msg(done, total, commit, train))
			}
		}
	}
	return nil
}

// printTune writes the readable report: the defaults against the fitted
// set on the training and the judged commits, what moved, and what was
// kept.
func printTune(w io.Writer, rep *replay.TuneReport, note string) {
	fmt.Fprintf(w, "%s: %d commits (%d train, %d judge), %d weight sets tried on each training case", rep.Root, rep.Commits, rep.TrainCommits, rep.JudgeCommits, rep.Evals)
	if len(rep.Skipped) > 0 {
		var why []string
		for r, n := range rep.Skipped {
			why = append(why, fmt.Sprintf("%s %d", r, n))
		}
		sort.Strings(why)
		fmt.Fprintf(w, " (not cases: %s)", strings.Join(why, ", "))
	}
	fmt.Fprintf(w, ", %.1f s\n\n", rep.ElapsedMs/1000)
	fmt.Fprintf(w, "%-6s %-8s %5s  %5s %5s %5s\n", "slice", "set", "cases", "hit@1", "hit@5", "MRR")
	row := func(slice, set string, f replay.Figures) {
		fmt.Fprintf(w, "%-6s %-8s %5d  %5.3f %5.3f %5.3f\n", slice, set, f.Cases, f.Hit1, f.Hit5, f.MRR)
	}
	row("train", "defaults", rep.Train.Default)
	row("train", "fitted", rep.Train.Fitted)
	row("judge", "defaults", rep.Judge.Default)
	row("judge", "fitted", rep.Judge.Fitted)
	fmt.Fprintln(w)
	def, fit := setMap(rep.Default), setMap(rep.Fitted)
	var moved []string
	for name, x := range fit {
		if x != def[name] {
			moved = append(moved, fmt.Sprintf("%s %g → %g", name, def[name], x))
		}
	}
	sort.Strings(moved)
	if len(moved) == 0 {
		fmt.Fprintln(w, "fitted: the defaults")
	} else {
		fmt.Fprintf(w, "fitted: %s\n", strings.Join(moved, ", "))
	}
	fmt.Fprintln(w, note)
}
