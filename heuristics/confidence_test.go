package heuristics

import (
	"math"
	"testing"
)

func TestLowConfidence(t *testing.T) {
	tests := []struct {
		name string
		in   ConfidenceInput
		want bool
	}{
		{"nothing matched", ConfidenceInput{QueryTerms: 5, BestLexicalCoverage: 0.2, BestSemantic: 0.2}, true},
		{"no query terms", ConfidenceInput{QueryTerms: 0, BestLexicalCoverage: 1, BestSemantic: 0.9, Mentions: 2}, true},
		{"a mention matched", ConfidenceInput{QueryTerms: 5, Mentions: 1}, false},
		{"lexical coverage at threshold", ConfidenceInput{QueryTerms: 3, BestLexicalCoverage: LexicalConfidence}, false},
		{"lexical coverage just below", ConfidenceInput{QueryTerms: 3, BestLexicalCoverage: 0.33, BestSemantic: 0.3}, true},
		{"semantic at threshold", ConfidenceInput{QueryTerms: 3, BestSemantic: SemanticConfidence}, false},
		{"semantic just below", ConfidenceInput{QueryTerms: 3, BestSemantic: 0.349}, true},
		{"NaN scores are weak", ConfidenceInput{QueryTerms: 3, BestLexicalCoverage: math.NaN(), BestSemantic: math.NaN()}, true},
		{"negative terms", ConfidenceInput{QueryTerms: -1, Mentions: 3}, true},
		{"unanchored, however well it matched", ConfidenceInput{QueryTerms: 1, BestLexicalCoverage: 1, BestSemantic: 0.9, Unanchored: true}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := LowConfidence(tt.in); got != tt.want {
				t.Errorf("LowConfidence(%+v) = %v, want %v", tt.in, got, tt.want)
			}
		})
	}
}

// TestPointsBack: a short query that stands for something else with "it"
// or "this" points back; one that names what it wants does not.
func TestPointsBack(t *testing.T) {
	for _, c := range []struct {
		query string
		want  bool
	}{
		{"make it better", true},
		{"clean this up", true},
		{"can you make that faster", true},
		{"tokenizer", false},                                        // one word, but it names something
		{"make the tokenizer faster", false},                        // no pronoun
		{"make parseConfig faster", false},                          // an identifier
		{"make it faster in lsp/server.go", false},                  // a path
		{"make it reject unknown keys in the config parser", false}, // says enough
	} {
		if got := PointsBack(Analyze(c.query)); got != c.want {
			t.Errorf("PointsBack(%q) = %v, want %v", c.query, got, c.want)
		}
	}
}
