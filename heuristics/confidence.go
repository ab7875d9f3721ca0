package heuristics

// Confidence thresholds of LowConfidence, to be recalibrated on the
// evaluation set: the best hit is a strong match when it covers at least
// LexicalConfidence of the query's content words or its cosine similarity
// reaches SemanticConfidence.
const (
	LexicalConfidence  = 0.34
	SemanticConfidence = 0.35
)

// ConfidenceInput is what a selection knows about how well its best hits
// matched the query.
type ConfidenceInput struct {
	// QueryTerms is the number of content words in the query.
	QueryTerms int
	// BestLexicalCoverage is the share of the query's content words matched
	// by the best lexical hit, in [0,1].
	BestLexicalCoverage float64
	// BestSemantic is the best cosine similarity of a semantic hit.
	BestSemantic float64
	// Mentions is the number of identifiers and paths of the query that
	// matched something in the workspace.
	Mentions int
}

// LowConfidence reports whether nothing matched the query well, for the
// lowConfidence flag of a selection: the query has no content words, or no
// mention matched and neither the lexical coverage (≥ LexicalConfidence) nor
// the cosine (≥ SemanticConfidence) of the best hit is strong. NaN scores
// count as weak.
func LowConfidence(s ConfidenceInput) bool {
	if s.QueryTerms <= 0 {
		return true
	}
	return s.Mentions <= 0 &&
		!(s.BestLexicalCoverage >= LexicalConfidence) &&
		!(s.BestSemantic >= SemanticConfidence)
}
