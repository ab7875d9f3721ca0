package workspace

import "strings"

// The wire types of workspace/contextSelect (docs/protocol.md). The CLI and
// the LSP server decode into and encode from these same structs.

// Position is an LSP position: 0-based line and character (in the
// negotiated position encoding, UTF-16 code units unless told otherwise).
type Position struct {
	Line      uint32 `json:"line"`
	Character uint32 `json:"character"`
}

// Range is an LSP range.
type Range struct {
	Start Position `json:"start"`
	End   Position `json:"end"`
}

// Request is the params object of workspace/contextSelect.
type Request struct {
	Query           string    `json:"query"`
	History         []string  `json:"history,omitempty"`
	ActiveURI       string    `json:"activeUri,omitempty"`
	Position        *Position `json:"position,omitempty"`
	Limit           int       `json:"limit,omitempty"`
	MaxChars        int       `json:"maxChars,omitempty"`
	MaxCharsPerItem int       `json:"maxCharsPerItem,omitempty"`
	Pinned          []string  `json:"pinned,omitempty"`
	Paths           []string  `json:"paths,omitempty"`
	ExcludePaths    []string  `json:"excludePaths,omitempty"`
	Kinds           []string  `json:"kinds,omitempty"`
	MinScore        float64   `json:"minScore,omitempty"`
	// Explain asks for each item's per-source breakdown. Items always
	// carry their signals (docs/protocol.md), so on the wire it is an
	// alias that changes nothing; the CLI prints the breakdown with it.
	Explain bool `json:"explain,omitempty"`
}

// Request defaults and bounds.
const (
	DefaultLimit           = 8
	MaxLimit               = 100
	DefaultMaxChars        = 12000
	DefaultMaxCharsPerItem = 1500
)

// Result is the result object of workspace/contextSelect.
type Result struct {
	Items         []Item `json:"items"`
	UsedChars     int    `json:"usedChars"`
	LowConfidence bool   `json:"lowConfidence"`
	Stats         Stats  `json:"stats"`
}

// Item is one selected slice of the workspace.
type Item struct {
	ID        string            `json:"id"`
	URI       string            `json:"uri"`
	Path      string            `json:"path"`
	Symbol    string            `json:"symbol"`
	Kind      string            `json:"kind"`
	Language  string            `json:"language"`
	Range     Range             `json:"range"`
	Text      string            `json:"text"`
	Truncated bool              `json:"truncated"`
	Score     float64           `json:"score"`
	Reason    string            `json:"reason"`
	Signals   map[string]Signal `json:"signals,omitempty"`
}

// Signal is one source's opinion of an item: its rank in that source's list
// (1-based) and the source's own score.
type Signal struct {
	Rank  int     `json:"rank"`
	Score float64 `json:"score"`
}

// Item reasons.
const (
	ReasonPinned    = "pinned"
	ReasonActive    = "active"
	ReasonRetrieved = "retrieved"
	ReasonExpanded  = "expanded"
)

// Stats describes the index a result was computed on.
type Stats struct {
	Ready      bool    `json:"ready"`
	Files      int     `json:"files"`
	Symbols    int     `json:"symbols"`
	Candidates int     `json:"candidates"`
	ElapsedMs  float64 `json:"elapsedMs"`
	Embedder   string  `json:"embedder"`
	MerkleRoot string  `json:"merkleRoot"`
	// Refused counts, by reason, the paths the workspace gate turned away
	// since the server started: symlinks leading outside the folders or
	// into loops, files that are not regular, files swapped while read.
	Refused map[string]int `json:"refused,omitempty"`
}

// Item ids: "sym:<path>::<qualified>" names a symbol, "file:<path>" a
// file (paths relative to their folder, forward slashes). ParseItemID,
// IsItemID and FormatItemID are the one place they are read and written.

// IsItemID reports whether ref is written as an item id rather than a URI
// or a path ("file://" is a URI).
func IsItemID(ref string) bool {
	return strings.HasPrefix(ref, "sym:") || strings.HasPrefix(ref, "file:") && !strings.HasPrefix(ref, "file://")
}

// ParseItemID splits an item id into its path and, for a symbol, its
// qualified name. ok is false for a ref that is not an id, and for a
// "sym:" id without "::".
func ParseItemID(ref string) (relPath, qualified string, ok bool) {
	if !IsItemID(ref) {
		return "", "", false
	}
	if r, isSym := strings.CutPrefix(ref, "sym:"); isSym {
		relPath, qualified, ok = strings.Cut(r, "::")
		return relPath, qualified, ok
	}
	return strings.TrimPrefix(ref, "file:"), "", true
}

// FormatItemID is the id of the symbol qualified in relPath, or of the
// file when qualified is "".
func FormatItemID(relPath, qualified string) string {
	if qualified == "" {
		return "file:" + relPath
	}
	return "sym:" + relPath + "::" + qualified
}
