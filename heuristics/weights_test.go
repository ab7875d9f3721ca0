package heuristics

import (
	"math"
	"slices"
	"testing"
	"time"
)

func near(a, b float64) bool { return math.Abs(a-b) < 1e-12 }

func TestHistoryWeights(t *testing.T) {
	tests := []struct {
		name  string
		n     int
		decay float64
		want  []float64
	}{
		{"default decay", 4, DefaultHistoryDecay, []float64{0.125, 0.25, 0.5, 1}},
		{"custom decay", 3, 0.9, []float64{0.81, 0.9, 1}},
		{"no decay", 3, 1, []float64{1, 1, 1}},
		{"single entry", 1, 0.5, []float64{1}},
		{"none", 0, 0.5, nil},
		{"negative n", -3, 0.5, nil},
		{"zero decay uses default", 3, 0, []float64{0.25, 0.5, 1}},
		{"decay above 1 uses default", 2, 1.5, []float64{0.5, 1}},
		{"NaN decay uses default", 2, math.NaN(), []float64{0.5, 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := HistoryWeights(tt.n, tt.decay)
			if !slices.EqualFunc(got, tt.want, near) {
				t.Errorf("HistoryWeights(%d, %v) = %v, want %v", tt.n, tt.decay, got, tt.want)
			}
		})
	}
}

func TestContextWeight(t *testing.T) {
	tests := []struct {
		name                 string
		vagueness, bestMatch float64
		want                 float64
	}{
		{"vague and weak", 1, 0, 1},
		{"vague but confident", 1, 1, 1},
		{"specific but no match", 0, 0, 1},
		{"specific and confident", 0, 1, 0},
		{"specific, fair match", 0, 0.8, 0.2},
		{"half vague, half match", 0.5, 0.5, 0.75},
		{"out of range clamps", -2, 3, 0},
		{"NaN counts as 0", math.NaN(), math.NaN(), 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ContextWeight(tt.vagueness, tt.bestMatch); !near(got, tt.want) {
				t.Errorf("ContextWeight(%v, %v) = %v, want %v", tt.vagueness, tt.bestMatch, got, tt.want)
			}
		})
	}
	// History counts more as the query gets vaguer and as its match weakens.
	for v := 0.0; v <= 1; v += 0.25 {
		for b := 0.0; b < 1; b += 0.25 {
			w := ContextWeight(v, b)
			if w < 0 || w > 1 || ContextWeight(v+0.25, b) < w || ContextWeight(v, b+0.25) > w {
				t.Errorf("ContextWeight(%v, %v) = %v is out of range or not monotone", v, b, w)
			}
		}
	}
}

func TestDecay(t *testing.T) {
	tests := []struct {
		name          string
		age, halfLife time.Duration
		want          float64
	}{
		{"now", 0, time.Hour, 1},
		{"future counts as now", -time.Minute, time.Hour, 1},
		{"one half-life", time.Hour, time.Hour, 0.5},
		{"two half-lives", 20 * time.Minute, 10 * time.Minute, 0.25},
		{"half a half-life", 30 * time.Minute, time.Hour, math.Sqrt(0.5)},
		{"zero half-life disables", time.Minute, 0, 0},
		{"zero half-life disables even now", 0, 0, 0},
		{"negative half-life disables", time.Minute, -time.Hour, 0},
		{"very old", 10000 * time.Hour, time.Second, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Decay(tt.age, tt.halfLife); !near(got, tt.want) {
				t.Errorf("Decay(%v, %v) = %v, want %v", tt.age, tt.halfLife, got, tt.want)
			}
		})
	}
}

func TestDirDistance(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"lsp/server.go", "lsp/server.go", 0},
		{"lsp/server.go", "lsp/config.go", 0},
		{"main.go", "go.mod", 0},
		{"lsp/server.go", "main.go", 1},
		{"main.go", "lsp/server.go", 1},
		{"lsp/server.go", "lsp/proto/types.go", 1},
		{"lsp/server.go", "workspace/folder.go", 2},
		{"a/b/c/x.go", "a/d/y.go", 3},
		{"a/b/c/x.go", "z.go", 3},
		{"ab/x.go", "a/x.go", 2},
		{"./lsp/server.go", "lsp/x.go", 0},
		{"/lsp/server.go", "lsp/x.go", 0},
		{"lsp//proto/../x.go", "lsp/y.go", 0},
		{"", "lsp/x.go", 1},
	}
	for _, tt := range tests {
		if got := DirDistance(tt.a, tt.b); got != tt.want {
			t.Errorf("DirDistance(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}

func TestLocality(t *testing.T) {
	tests := []struct {
		active, candidate string
		want              float64
	}{
		{"lsp/server.go", "lsp/server.go", 1},
		{"lsp/server.go", "./lsp/server.go", 1},
		{"lsp/server.go", "lsp/config.go", SameDirLocality},
		{"lsp/server.go", "main.go", SameDirLocality * LocalityDecay},
		{"lsp/server.go", "workspace/folder.go", SameDirLocality * LocalityDecay * LocalityDecay},
		{"", "lsp/server.go", 0},
		{"lsp/server.go", "", 0},
	}
	for _, tt := range tests {
		if got := Locality(tt.active, tt.candidate); !near(got, tt.want) {
			t.Errorf("Locality(%q, %q) = %v, want %v", tt.active, tt.candidate, got, tt.want)
		}
	}
	// Farther files never score higher than nearer ones.
	chain := []string{"a/b/x.go", "a/b/y.go", "a/y.go", "a/c/y.go", "a/c/d/y.go", "e/f/g/h/y.go"}
	for i := 1; i < len(chain); i++ {
		if Locality(chain[0], chain[i]) > Locality(chain[0], chain[i-1]) {
			t.Errorf("Locality to %s exceeds locality to the nearer %s", chain[i], chain[i-1])
		}
	}
}

// TestDefaultWeightSetIsTheConstants: fusing with the default set is
// fusing with the package's weights and priors.
func TestDefaultWeightSetIsTheConstants(t *testing.T) {
	d := DefaultWeightSet()
	if err := d.Check(); err != nil {
		t.Fatal(err)
	}
	ranks := [NumSources]int32{SrcLexical: 1, SrcFile: 3, SrcHistory: 2, SrcGraph: 7, SrcLocality: 2}
	if got, want := d.FuseRanks(&ranks, 0.4), FuseRanks(&ranks, 0.4); got != want {
		t.Errorf("default set fuses %v, the constants %v", got, want)
	}
	for _, a := range []Asks{{}, {Tests: true}, {Docs: true}, {Config: true}} {
		for _, c := range []Category{0, Test, Docs, Config, Test | Docs} {
			if got, want := d.Prior(a, c), a.Prior(c); got != want {
				t.Errorf("prior of %v asked %+v: set %v, constants %v", c, a, got, want)
			}
		}
	}
	bad := d
	bad.Source[SrcLexical] = math.Inf(1)
	if bad.Check() == nil {
		t.Error("an infinite weight passed the check")
	}
	bad = d
	bad.TestPrior = 0
	if bad.Check() == nil {
		t.Error("a prior of 0 passed the check")
	}
}
