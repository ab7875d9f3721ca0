package workspace

import (
	"math"
	"strings"

	"github.com/ctxls/ctxls/workspace/tokens"
)

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
	// IncludeItems turns item kinds (ItemRule, ItemDoc, ItemMemory,
	// ItemTool) on or off; a kind it does not name, and every kind when
	// it is nil, is on.
	IncludeItems map[string]bool
	// ItemShare is the share of MaxChars the items other than code may
	// take, in (0,1]; 0 means the default (heuristics.ItemShare).
	ItemShare float64
	// NoRetrieval: this turn needs no retrieval. Only the items asked for
	// come back: pinned ones, rules that apply always and named items.
	NoRetrieval bool
}

// Context item kinds: what an item other than a code symbol is.
const (
	ItemRule   = "rule"   // a rule file: AGENTS.md, .cursor/rules/*.mdc, ...
	ItemDoc    = "doc"    // a section of documentation (Markdown, text)
	ItemMemory = "memory" // a note the user or an agent asked to remember
	ItemTool   = "tool"   // a tool description a client registered
)

// ItemKinds are the context item kinds, in the order they are documented.
var ItemKinds = []string{ItemRule, ItemDoc, ItemMemory, ItemTool}

// CodeOnly is an IncludeItems that turns off the items other than code
// and documentation (rules, memory, tools): what the ranking measurements
// (workspace/eval, workspace/replay) ask for.
func CodeOnly() map[string]bool {
	return map[string]bool{ItemRule: false, ItemMemory: false, ItemTool: false}
}

// Include modes of a context item.
const (
	IncludeAlways = "always" // included first, whatever the query
	IncludeManual = "manual" // included only when the request names it
	IncludeAgent  = "agent"  // included when its description matches the query
)

// Cursor is where the user's cursor is: a 0-based line.
type Cursor struct {
	Line uint32
}

// Request defaults and bounds, the one set for the server and the CLI.
const (
	DefaultLimit           = 8
	MaxLimit               = 100
	DefaultMaxChars        = 12000
	DefaultMaxCharsPerItem = 1500
	// MaxMaxTokens bounds maxTokens: far more than any model's window.
	MaxMaxTokens = 1 << 24
)

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
}

// Span is a range of lines (0-based) with byte columns.
type Span struct {
	StartLine, StartCol, EndLine, EndCol uint32
}

// Signal is one source's opinion of an item: its rank in that source's list
// (1-based) and the source's own score.
type Signal struct {
	Rank  int
	Score float64
}

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
	History    HistoryStats
	// Reembedded is the number of symbols tokenized and embedded since
	// the snapshot's indexes were built or loaded, summed over folders.
	Reembedded int
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

// charsPerToken is the first guess at how many bytes of code a token
// holds, which turns maxTokens into a character budget to pack by before
// the chosen texts are counted (o200k_base and cl100k_base both average
// about 3.4 on this repository's Go; a guess on the high side errs
// towards trimming the last item rather than leaving budget unused).
const charsPerToken = 3.5

// tokenBudget is a request's token budget and the encoding it counts in.
type tokenBudget struct {
	max     int    // 0: no token budget
	name    string // the encoding's name; "" when nothing is counted
	charCap int    // the request's own maxChars; 0 when it gives none
	enc     *tokens.Encoding
	// fitted is the tokens of the texts fitTokens chose, which it counts
	// as it fits them: with a token budget, the answer is not counted
	// again.
	fitted int
}

// validateTokens checks the request's token fields and, with a token
// budget, sets the character budget packing starts from: maxTokens at
// charsPerToken, within the request's own maxChars. It does not load the
// encoding (loadEncoding does, outside the workspace's lock).
func (p *plan) validateTokens(req *SelectRequest) error {
	if req.MaxTokens < 0 || req.MaxTokens > MaxMaxTokens {
		return paramErr("maxTokens", "must be between 1 and %d (0: no token budget), got %d", MaxMaxTokens, req.MaxTokens)
	}
	if req.TokenEncoding != "" && !tokens.Known(req.TokenEncoding) {
		return paramErr("tokenEncoding", "unknown encoding %q (want %s)", req.TokenEncoding, strings.Join(tokens.Names, " or "))
	}
	if req.MaxTokens == 0 && req.TokenEncoding == "" {
		return nil
	}
	p.tok = tokenBudget{max: req.MaxTokens, name: req.TokenEncoding, charCap: req.MaxChars}
	if p.tok.name == "" {
		p.tok.name = tokens.Default
	}
	if p.tok.max > 0 {
		est := int(math.Ceil(float64(p.tok.max) * charsPerToken))
		if p.tok.charCap > 0 {
			est = min(est, p.tok.charCap)
		}
		p.maxChars = est
	}
	return nil
}

// loadEncoding loads the encoding the request counts in, once per
// process.
func (p *plan) loadEncoding() error {
	if p.tok.name == "" || p.tok.enc != nil {
		return nil
	}
	enc, err := tokens.Get(p.tok.name)
	if err != nil {
		return err
	}
	p.tok.enc = enc
	return nil
}

// count is the tokens of text.
func (t *tokenBudget) count(text string) int { return t.enc.Count(text) }

// usedTokens is the tokens of the items' texts, each counted alone, and
// the encoding; 0 and "" when the request counts none.
func (p *plan) usedTokens(items []Selected) (int, string) {
	if p.tok.enc == nil {
		return 0, ""
	}
	if p.tok.max > 0 {
		return p.tok.fitted, p.tok.name
	}
	n := 0
	for i := range items {
		n += p.tok.count(items[i].Text)
	}
	return n, p.tok.name
}
