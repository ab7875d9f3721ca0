package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sort"

	"github.com/ctxls/ctxls/workspace"
	"github.com/ctxls/ctxls/workspace/eval"
)

func runEval(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("eval", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var f indexFlags
	f.register(fs, false)
	asJSON := fs.Bool("json", false, "print the report as JSON")
	update := fs.Bool("update", false, "rewrite the baseline with this run's metrics")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	dir := "testdata"
	switch len(pos) {
	case 0:
	case 1:
		dir = pos[0]
	default:
		return usagef("eval: at most one DIR, got %d", len(pos))
	}
	cfg, err := f.config()
	if err != nil {
		return err
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	rep, err := eval.Evaluate(ctx, dir, cfg, workspace.Options{Logger: log, Warn: func(m string) { fmt.Fprintln(stderr, m) }})
	if err != nil {
		return err
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			return err
		}
	} else {
		printReport(stdout, rep)
	}
	basePath := filepath.Join(dir, "eval", "baseline.json")
	if *update {
		b, _ := json.MarshalIndent(rep.Macro, "", "  ")
		if err := os.MkdirAll(filepath.Dir(basePath), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(basePath, append(b, '\n'), 0o644); err != nil {
			return err
		}
		fmt.Fprintf(stderr, "baseline written to %s\n", basePath)
		return nil
	}
	b, err := os.ReadFile(basePath)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	var base eval.Metrics
	if err := json.Unmarshal(b, &base); err != nil {
		return fmt.Errorf("%s: %w", basePath, err)
	}
	if drops := eval.Ratchet(base, rep.Macro); len(drops) > 0 {
		for _, d := range drops {
			fmt.Fprintln(stderr, d)
		}
		return fmt.Errorf("eval: %d metric(s) fell below the baseline in %s (run with --update if the change is intended)", len(drops), basePath)
	}
	return nil
}

func printReport(w io.Writer, rep *eval.Report) {
	fmt.Fprintf(w, "%-32s %-8s %5s %5s %5s %5s %5s %5s %6s %5s %5s\n", "case", "kind", "hit1", "hit5", "mrr", "p@5", "r@5", "f1@5", "ndcg10", "symR", "cov")
	row := func(name, kind string, m eval.Metrics) {
		fmt.Fprintf(w, "%-32s %-8s %5.2f %5.2f %5.2f %5.2f %5.2f %5.2f %6.2f %5.2f %5.2f\n", name, kind,
			m.Hit1, m.Hit5, m.MRR, m.Precision, m.Recall, m.F1, m.NDCG10, m.SymRecall, m.Coverage)
	}
	for _, c := range rep.Cases {
		row(c.Suite+"/"+c.Name, c.Kind, c.Metrics)
	}
	fmt.Fprintln(w)
	kinds := make([]string, 0, len(rep.ByKind))
	for k := range rep.ByKind {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	for _, k := range kinds {
		row("macro ("+k+")", k, rep.ByKind[k])
	}
	row(fmt.Sprintf("macro (%d cases)", len(rep.Cases)), "all", rep.Macro)
	c := rep.Confidence
	fmt.Fprintf(w, "\nlowConfidence flagged %d of %d cases (hit@5 %.2f where flagged, %.2f elsewhere) and %d of %d off-topic queries",
		c.Flagged, c.Cases, c.Hit5Flagged, c.Hit5Unflagged, c.OffTopicFlagged, c.OffTopic)
	if c.OffTopic > 0 {
		fmt.Fprintf(w, ", whose answers held %.1f items on average", float64(c.OffTopicItems)/float64(c.OffTopic))
	}
	fmt.Fprintln(w)
}
