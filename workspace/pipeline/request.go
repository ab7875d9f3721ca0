package pipeline

import (
	"strings"

	"github.com/ctxls/ctxls/symbolindex/parse"
	"github.com/ctxls/ctxls/workspace/snapshot"
)

// Cursor is where the user's cursor is: a 0-based line.
type Cursor = snapshot.Cursor

// A select request and its answer, in the workspace's terms: paths, lines
// and byte columns. The wire (JSON, URIs, UTF-16) is lsp/wire's.

// SelectRequest is what Select is asked.
type SelectRequest struct {
	Query   string
	History []string // earlier prompts of the conversation, oldest first
	// Active is the file the user is in: an absolute path, or one relative
	// to the first folder; "" means the last opened, changed or focused
	// document.
	Active string
	Cursor *Cursor // the cursor in Active
	// Limit, MaxChars and MaxCharsPerItem: 0 means the configured default.
	Limit, MaxChars, MaxCharsPerItem int
	// MaxTokens, when more than 0, bounds the tokens of all item texts
	// together, counted in TokenEncoding; MaxChars then bounds them only
	// when the request gives it (the configured default does not apply),
	// and both bounds hold.
	MaxTokens int
	// TokenEncoding names the encoding tokens are counted in (tokens.Names;
	// "" is tokens.Default). Given without MaxTokens, the answer is counted
	// but not bounded in tokens.
	TokenEncoding string
	// Pinned are paths (as Active) or item ids, included first.
	Pinned       []string
	Paths        []string // globs a selected path must match
	ExcludePaths []string // globs no selected path may match
	Kinds        []string // symbol kinds to select from
	MinScore     float64  // drop items scoring below this
	// Items names context items (rules, tools; by name or id) to include
	// whatever their include mode: the manual ones come only so, or
	// when the query says "@name".
	Items []string
	// IncludeItems turns item kinds (items.ItemRule, items.ItemDoc, items.ItemMemory,
	// items.ItemTool) on or off; a kind it does not name, and every kind when
	// it is nil, is on.
	IncludeItems map[string]bool
	// ItemShare is the share of MaxChars the items other than code may
	// take, in (0,1]; 0 means the default (heuristics.ItemShare).
	ItemShare float64
	// NoRetrieval: this turn needs no retrieval. Only the items asked for
	// come back: pinned ones, rules that apply always and named items.
	NoRetrieval bool
}

// Selection is Select's answer.
type Selection struct {
	Items     []Selected
	UsedChars int
	// UsedTokens is the tokens of the item texts, each counted alone, in
	// TokenEncoding; TokenEncoding is "" when the request asked for no
	// token count (no maxTokens, no tokenEncoding).
	UsedTokens    int
	TokenEncoding string
	LowConfidence bool // no source found a strong match
	Stats         SelectStats
}

// Selected is one selected slice of the workspace.
type Selected struct {
	ID   string // FormatItemID
	Abs  string // the file's absolute path
	Path string // relative to its folder, forward slashes
	// Symbol is the qualified name, "" for a file item.
	Symbol, Kind, Language string
	Span                   Span
	// StartLineText and EndLineText are the lines Span starts and ends
	// on, for converting its byte columns to another encoding.
	StartLineText, EndLineText []byte
	// SymbolSpan, when the text holds lines around the item's symbol, is
	// the part of Span the symbol (from its doc comment) takes, with its
	// first and last lines for converting the columns; nil otherwise.
	SymbolSpan                             *Span
	SymbolStartLineText, SymbolEndLineText []byte
	// Paths lists every path of an item whose identical content several
	// files hold (a rule copied into AGENTS.md and CLAUDE.md), Path first.
	Paths     []string
	Text      string // the text of Span, capped
	Truncated bool
	Score     float64
	Reason    string
	Signals   map[string]Signal // by source name
	// Strong is what the request's naming the item, its file or its
	// scope added to its fused score (nil for nothing).
	Strong *Strong
	// LeadBonus is what its lead in the word match (heuristics.LeadBonus)
	// added to its fused score: 0 for nothing, always 0 with an active
	// file or for a test, doc or configuration.
	LeadBonus float64
	// Why is the evidence that put the item there, in one short sentence
	// a person reads (why.go): "calls `Run` at main.go:12", "named in
	// your question: zsh, completion".
	Why string
	// Part, when several items are parts of one symbol (they share its
	// id), says which part this one is; nil otherwise.
	Part *Part
}

// Part is an item's place among the items that hold parts of one symbol:
// Index (1-based, in the order of their lines) of Of.
type Part struct {
	Index, Of int
}

// Span is a range of lines (0-based) with byte columns.
type Span = parse.Range

// Signal is one source's opinion of an item: its rank in that source's list
// (1-based) and the source's own score.
type Signal struct {
	Rank  int
	Score float64
	// TieFiles is the number of files a tie at Rank spreads over when its
	// members share that rank's credit (heuristics.SharedRanks); 0 when
	// the item takes its rank's credit whole.
	TieFiles int
}

// Strong is the strong-match bonus of an item: what was added to its fused
// score (before the category prior and the decay within its file) and
// what the request named to earn it.
type Strong struct {
	Bonus float64
	By    string // StrongName, StrongStem, StrongScope, StrongFile, StrongFolder or StrongVersion
}

// What a strong match is by.
const (
	StrongName  = "name"  // the request spells the symbol's name
	StrongStem  = "stem"  // it spells the stem of the symbol's file
	StrongScope = "scope" // its scope ("fix(static):") names the file's stem
	StrongFile  = "file"  // it names the file ("httperror.go")
	// StrongFolder: its scope names a folder above the file
	// ("fix(middleware):" for middleware/decompress.go).
	StrongFolder = "folder"
	// StrongVersion: it names a release, and the symbol declares the
	// version the release replaces (`Version = "5.3.0"` for "v5.3.1").
	StrongVersion = "version"
)

// Item reasons.
const (
	ReasonPinned    = "pinned"
	ReasonActive    = "active"
	ReasonRetrieved = "retrieved"
	ReasonExpanded  = "expanded"
	// Context items: a rule that applies always (or whose globs match
	// the active file or a selected one), an item the request named, an
	// item chosen because its description matches the query.
	ReasonAlways = "always"
	ReasonManual = "manual"
	ReasonAgent  = "agent"
)

// SelectStats describes the index a selection was computed on.
type SelectStats struct {
	Ready      bool
	Files      int
	Symbols    int
	Candidates int
	ElapsedMs  float64
	Embedder   string
	MerkleRoot string
	Refused    map[string]int // paths the gate refused, by reason
	History    snapshot.HistoryStats
	// Reembedded is the number of symbols tokenized and embedded since
	// the snapshot's indexes were built or loaded, summed over folders.
	Reembedded int
	Weights    snapshot.WeightsStats // which fusion weights ranked the answer
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
