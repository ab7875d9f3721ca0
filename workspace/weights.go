package workspace

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"

	"github.com/ctxls/ctxls/heuristics"
	"github.com/ctxls/ctxls/symbolindex/cachefile"
	"github.com/ctxls/ctxls/workspace/snapshot"
)

// A folder's fitted weights (ctxls tune) live in the cache directory
// beside its index, <hash of the root>.weights.json, written only when the
// fitted set beat the defaults on the folder's most recent commits. The
// workspace reads it at every Index; a missing file is the defaults, and
// so is a file that cannot be used, with one warning.

// MaxWeightsFileBytes bounds a weights file: the real one is under 2 KiB.
const MaxWeightsFileBytes = 64 << 10

// weightsVersion is the format of a weights file.
const weightsVersion = 1

// FittedWeights is a weights file: the fitted set and how it was judged.
type FittedWeights struct {
	Version int                `json:"version"`
	Root    string             `json:"root"`
	Fitted  string             `json:"fitted"` // when (RFC 3339)
	Head    string             `json:"head"`   // the commit the history was read up to
	Weights map[string]float64 `json:"weights"`
	Priors  map[string]float64 `json:"priors"`
	// Judged is the fitted set against the defaults on the most recent
	// commits, which the fit never saw.
	Judged snapshot.WeightsJudge `json:"judged"`
	// TrainCases and Evals say what the fit read: its cases, and how many
	// weight sets it tried on each.
	TrainCases int `json:"trainCases"`
	Evals      int `json:"evals"`
}

// NewFittedWeights is the weights file of set for the folder root.
func NewFittedWeights(root string, set heuristics.WeightSet, fitted time.Time) *FittedWeights {
	fw := &FittedWeights{Version: weightsVersion, Root: root, Fitted: fitted.UTC().Format(time.RFC3339),
		Weights: map[string]float64{}, Priors: map[string]float64{}}
	for src, x := range set.Source {
		fw.Weights[heuristics.SourceNames[src]] = x
	}
	for i, p := range set.Priors() {
		fw.Priors[heuristics.PriorNames[i]] = *p
	}
	return fw
}

// Set is the weight set the file holds; an error names what makes it
// unusable (a version, a root or a name it does not know, a number out of
// bounds, a weight or a prior missing).
func (fw *FittedWeights) Set(root string) (heuristics.WeightSet, error) {
	var set heuristics.WeightSet
	if fw.Version != weightsVersion {
		return set, fmt.Errorf("version %d, want %d", fw.Version, weightsVersion)
	}
	if fw.Root != root {
		return set, fmt.Errorf("fitted for %q, not this folder", fw.Root)
	}
	if _, err := time.Parse(time.RFC3339, fw.Fitted); err != nil {
		return set, fmt.Errorf("fitted time %q is not RFC 3339", fw.Fitted)
	}
	if len(fw.Weights) != int(heuristics.NumSources) || len(fw.Priors) != len(heuristics.PriorNames) {
		return set, fmt.Errorf("fitted for another set of ranking sources (%d weights and %d priors; this ctxls ranks with %d and %d): run `ctxls tune --root %s` again",
			len(fw.Weights), len(fw.Priors), heuristics.NumSources, len(heuristics.PriorNames), root)
	}
	for src, name := range heuristics.SourceNames {
		x, ok := fw.Weights[name]
		if !ok {
			return set, fmt.Errorf("no weight for the source %s (fitted by another ctxls): run `ctxls tune --root %s` again", name, root)
		}
		set.Source[src] = x
	}
	for i, p := range set.Priors() {
		x, ok := fw.Priors[heuristics.PriorNames[i]]
		if !ok {
			return set, fmt.Errorf("no prior for %s", heuristics.PriorNames[i])
		}
		*p = x
	}
	return set, set.Check()
}

// WeightsFile is the path of the weights file of the folder root in the
// cache directory dir.
func WeightsFile(dir, root string) string { return folderCacheFile(dir, root, ".weights.json") }

// ReadWeights reads the weights file at path for the folder root. A
// missing file is (nil, nil); anything else that cannot be used is an
// error naming the file and the problem.
func ReadWeights(path, root string) (*FittedWeights, heuristics.WeightSet, error) {
	data, _, err := cachefile.Read(path, MaxWeightsFileBytes)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, heuristics.WeightSet{}, nil
	case err != nil:
		return nil, heuristics.WeightSet{}, fmt.Errorf("weights file: %w", err)
	}
	var fw FittedWeights
	if err := json.Unmarshal(data, &fw); err != nil {
		return nil, heuristics.WeightSet{}, fmt.Errorf("weights file %s: %w", path, err)
	}
	set, err := fw.Set(root)
	if err != nil {
		return nil, heuristics.WeightSet{}, fmt.Errorf("weights file %s: %w", path, err)
	}
	return &fw, set, nil
}

// WriteWeights replaces the weights file at path with fw: written beside
// it and renamed over it, so a reader sees the old file or the new one.
func WriteWeights(path string, fw *FittedWeights) error {
	data, err := json.MarshalIndent(fw, "", "  ")
	if err != nil {
		return err
	}
	if err := cachefile.WriteFile(path, append(data, '\n')); err != nil {
		return fmt.Errorf("weights file %s: %w", path, err)
	}
	return nil
}

// RemoveWeights removes the weights file at path, if there is one.
func RemoveWeights(path string) error {
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("weights file %s: %w", path, err)
	}
	return nil
}

// loadWeights gives f the fitted weights in the cache, or the defaults
// when there are none or they cannot be used (warned once per file and
// problem).
func (w *Workspace) loadWeights(f *Folder, cfg Config) {
	set, st := heuristics.DefaultWeightSet(), snapshot.WeightsStats{Set: snapshot.WeightsDefault}
	if dir, ok := cfg.ResolvedCacheDir(); ok {
		fw, fitted, err := ReadWeights(WeightsFile(dir, f.Root), f.Root)
		switch {
		case err != nil:
			w.mu.Lock()
			w.warn(err.Error() + "; using the default weights for " + f.Root)
			w.mu.Unlock()
		case fw != nil:
			judged := fw.Judged
			set, st = fitted, snapshot.WeightsStats{Set: snapshot.WeightsFitted, Judged: &judged, Fitted: fw.Fitted}
		}
	}
	f.mu.Lock()
	f.weights, f.weightsStats = set, st
	f.mu.Unlock()
}
