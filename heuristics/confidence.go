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
	// Unanchored: the query only points at something ("make it better",
	// "improve this": see PointsBack) and the request gives it nothing to
	// point at: no conversation history, no active file, no pinned item.
	// Whatever its words match, that is no evidence.
	Unanchored bool
}

// LowConfidence reports whether nothing matched the query well, for the
// lowConfidence flag of a selection: the query has no content words, or it
// is Unanchored, or no mention matched and neither the lexical coverage (≥ LexicalConfidence) nor
// the cosine (≥ SemanticConfidence) of the best hit is strong. NaN scores
// count as weak.
func LowConfidence(s ConfidenceInput) bool {
	if s.QueryTerms <= 0 || s.Unanchored {
		return true
	}
	return s.Mentions <= 0 &&
		!(s.BestLexicalCoverage >= LexicalConfidence) &&
		!(s.BestSemantic >= SemanticConfidence)
}

// PointsBack reports whether a query says little but "it", "this" or
// "that": a pronoun standing for something said before or under the
// cursor, fewer than SpecificWords content words of its own, and no
// identifier or path ("make it better", "clean this up"). Such a query
// matches whatever shares its few generic words.
func PointsBack(q Query) bool {
	return len(q.Identifiers) == 0 && len(q.Paths) == 0 && len(q.Words) < SpecificWords &&
		usesWord(q.Text, "it", "this", "that", "these", "those", "them")
}
