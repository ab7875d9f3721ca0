// Package wire is the JSON of workspace/contextSelect (docs/protocol.md)
// and the conversions between it and the workspace, which speaks in paths,
// byte columns and its own types: file:// URIs to paths and back, LSP
// positions (UTF-16 code units unless UTF-8 was negotiated) to byte
// offsets and back. Select is the one call of a selection that the LSP
// server, the MCP tools and the command line each make.
package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/ctxls/ctxls/workspace"
)

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

// LastLine is the last line (0-based) a range holds text of: End.Line,
// unless the range ends at the start of a line, after the previous line's
// newline (then that line is not part of the text).
func (r Range) LastLine() uint32 {
	if r.End.Character == 0 && r.End.Line > r.Start.Line {
		return r.End.Line - 1
	}
	return r.End.Line
}

// Request is the params object of workspace/contextSelect. Zero limits and
// budgets mean the defaults; the bounds are the workspace's
// (workspace.MaxLimit), checked once for the server and the CLI.
type Request struct {
	Query           string    `json:"query"`
	History         []string  `json:"history,omitempty"`
	ActiveURI       string    `json:"activeUri,omitempty"`
	Position        *Position `json:"position,omitempty"`
	Limit           int       `json:"limit,omitempty"`
	MaxChars        int       `json:"maxChars,omitempty"`
	MaxCharsPerItem int       `json:"maxCharsPerItem,omitempty"`
	// MaxTokens bounds the tokens of all item texts together, counted in
	// TokenEncoding ("o200k_base", the default, or "cl100k_base"); with
	// it, maxChars bounds them only when given, and both bounds hold.
	MaxTokens     int      `json:"maxTokens,omitempty"`
	TokenEncoding string   `json:"tokenEncoding,omitempty"`
	Pinned        []string `json:"pinned,omitempty"`
	Paths         []string `json:"paths,omitempty"`
	ExcludePaths  []string `json:"excludePaths,omitempty"`
	Kinds         []string `json:"kinds,omitempty"`
	MinScore      float64  `json:"minScore,omitempty"`
	// Explain asks for each item's per-source breakdown. Items always
	// carry their signals (docs/protocol.md), so on the wire it is an
	// alias that changes nothing; the CLI prints the breakdown with it.
	Explain bool `json:"explain,omitempty"`
	// Items names context items (rules, tools) to include whatever their
	// include mode, by name or id.
	Items []string `json:"items,omitempty"`
	// IncludeItems turns context item kinds on or off: false (none), true
	// (all, the default) or an object such as {"memory": false}.
	IncludeItems *IncludeItems `json:"includeItems,omitempty"`
	// ItemShare is the share of maxChars items other than code may take
	// (default 0.25).
	ItemShare float64 `json:"itemShare,omitempty"`
	// Retrieval false turns retrieval off for a turn that needs none: only
	// pinned items, rules that apply always and named items come back.
	Retrieval *bool `json:"retrieval,omitempty"`
}

// IncludeItems is includeItems: a boolean for every kind, or an object
// with a boolean per kind ("rule", "doc", "memory", "tool"; a kind it does
// not name is on).
type IncludeItems struct {
	All   *bool
	Kinds map[string]bool
}

// UnmarshalJSON reads a boolean or an object of booleans.
func (x *IncludeItems) UnmarshalJSON(b []byte) error {
	var all bool
	if err := json.Unmarshal(b, &all); err == nil {
		*x = IncludeItems{All: &all}
		return nil
	}
	var kinds map[string]bool
	if err := json.Unmarshal(b, &kinds); err != nil {
		return fmt.Errorf("includeItems: expected a boolean or an object of item kinds with boolean values, got %s", workspace.JSONKind(bytes.TrimSpace(b)))
	}
	*x = IncludeItems{Kinds: kinds}
	return nil
}

// MarshalJSON writes what UnmarshalJSON reads.
func (x IncludeItems) MarshalJSON() ([]byte, error) {
	if x.All != nil {
		return json.Marshal(*x.All)
	}
	return json.Marshal(x.Kinds)
}

// kinds is the workspace's form: nil for every kind.
func (x *IncludeItems) kinds() map[string]bool {
	switch {
	case x == nil || x.All != nil && *x.All:
		return nil
	case x.All != nil:
		out := map[string]bool{}
		for _, k := range workspace.ItemKinds {
			out[k] = false
		}
		return out
	}
	return x.Kinds
}

// Result is the result object of workspace/contextSelect.
type Result struct {
	Items     []Item `json:"items"`
	UsedChars int    `json:"usedChars"`
	// UsedTokens is the tokens of the item texts, each counted alone, in
	// TokenEncoding; both are there when the request gave maxTokens or
	// tokenEncoding.
	UsedTokens    *int   `json:"usedTokens,omitempty"`
	TokenEncoding string `json:"tokenEncoding,omitempty"`
	LowConfidence bool   `json:"lowConfidence"`
	// Message, on an answer with no items because nothing matched the
	// question well, says so in words a person reads (NoMatch).
	Message string `json:"message,omitempty"`
	Stats   Stats  `json:"stats"`
}

// NoMatch is the message of an answer that low confidence left empty:
// an empty answer beats a budget of guesses.
const NoMatch = "Nothing in the workspace matches this question well; try naming a symbol, file or error message."

// StillIndexing is the message of an empty answer while the workspace is
// still being indexed: not a verdict on the question.
const StillIndexing = "ctxls is still indexing this workspace and the files indexed so far hold nothing for this question; ask again when indexing is done."

// Item is one selected slice of the workspace.
type Item struct {
	ID       string `json:"id"`
	URI      string `json:"uri"`
	Path     string `json:"path"`
	Symbol   string `json:"symbol"`
	Kind     string `json:"kind"`
	Language string `json:"language"`
	Range    Range  `json:"range"`
	// SymbolRange, when the text holds lines around the item's symbol,
	// is where the symbol (from its doc comment) lies within Range: where
	// an editor opening the item puts the cursor.
	SymbolRange *Range `json:"symbolRange,omitempty"`
	Text        string `json:"text"`
	Truncated   bool   `json:"truncated"`
	// Paths lists every path of a context item whose identical content
	// several files hold, path first.
	Paths   []string          `json:"paths,omitempty"`
	Score   float64           `json:"score"`
	Reason  string            `json:"reason"`
	Signals map[string]Signal `json:"signals,omitempty"`
	// Strong, when the request names the item, its file or its scope
	// outright, is what that added to the fused score (extension).
	Strong *Strong `json:"strong,omitempty"`
	// LeadBonus, when the request has no active file, is what the size
	// of the symbol's lead in the word match (its lexical score above
	// the fifth's) added to the fused score (extension; absent for
	// nothing).
	LeadBonus float64 `json:"leadBonus,omitempty"`
	// Why is the evidence that put the item there, in one short sentence
	// for a person: "calls `Command.findSuggestions` at args.go:36".
	Why string `json:"why"`
	// Part, on items that hold parts of one symbol (they share its id),
	// is which part: Index (1-based, in line order) of Of.
	Part *Part `json:"part,omitempty"`
}

// Part is an item's place among the parts of one symbol.
type Part struct {
	Index int `json:"index"`
	Of    int `json:"of"`
}

// Signal is one source's opinion of an item: its rank in that source's list
// (1-based) and the source's own score.
type Signal struct {
	Rank  int     `json:"rank"`
	Score float64 `json:"score"`
	// TieFiles (extension): the files a tie at rank spreads over, whose
	// members share that rank's credit; omitted when the item takes it
	// whole.
	TieFiles int `json:"tieFiles,omitempty"`
}

// Strong is an item's strong-match bonus: what was added to its fused
// score and by what the request named: "name" (the symbol's), "stem" (its
// file's stem), "scope" (a commit-style scope naming the file's stem),
// "file" (the file, named outright), "folder" (a scope naming the file's
// folder) or "version" (a release whose previous version the symbol
// declares).
type Strong struct {
	Bonus float64 `json:"bonus"`
	By    string  `json:"by"`
}

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
	// History is what the history sources read.
	History History `json:"history"`
	// Weights says which fusion weights ranked the answer: the defaults,
	// or the set ctxls tune fitted to the folder's history, with how it
	// was judged.
	Weights Weights `json:"weights"`
	// Reembedded, from the LSP server only, is the number of symbols
	// re-tokenized and re-embedded since the indexes were built or loaded.
	Reembedded *int `json:"reembedded,omitempty"`
	// EditorState, from a shared daemon's MCP session only, is the editor
	// session whose active document and cursor the selection used because
	// the request named none; its unsaved edits are in the shared index.
	EditorState *EditorState `json:"editorState,omitempty"`
}

// EditorState is stats.editorState.
type EditorState struct {
	Session   int     `json:"session"`
	ActiveURI string  `json:"activeUri"`
	Line      *uint32 `json:"line,omitempty"` // 0-based cursor line, when the editor sent it
}

// History is stats.history.
type History struct {
	Ready   bool   `json:"ready"`
	Commits int    `json:"commits"`
	Head    string `json:"head,omitempty"`
	Reason  string `json:"reason,omitempty"`  // why there is none
	Partial string `json:"partial,omitempty"` // what a history lacks (a shallow clone's, a read in part), and why
}

// Weights is stats.weights.
type Weights struct {
	Set    string        `json:"set"`              // "default", "fitted", or "mixed" over folders
	Judged *WeightsJudge `json:"judged,omitempty"` // a fitted set's figures on its judging slice
	Fitted string        `json:"fitted,omitempty"` // when it was fitted (RFC 3339)
}

// WeightsJudge is stats.weights.judged: the fitted set and the defaults
// on the most recent commits, which the fit never saw.
type WeightsJudge struct {
	Cases         int     `json:"cases"`
	HitAt1        float64 `json:"hitAt1"`
	HitAt5        float64 `json:"hitAt5"`
	MRR           float64 `json:"mrr"`
	DefaultHitAt1 float64 `json:"defaultHitAt1"`
	DefaultHitAt5 float64 `json:"defaultHitAt5"`
	DefaultMRR    float64 `json:"defaultMrr"`
}

// SelectRequest turns a request into the workspace's: URIs become paths
// (item ids pass through), the cursor its line. An error is a
// *workspace.ParamError naming the wire field.
func SelectRequest(req *Request) (*workspace.SelectRequest, error) {
	out := &workspace.SelectRequest{
		Query: req.Query, History: req.History,
		Limit: req.Limit, MaxChars: req.MaxChars, MaxCharsPerItem: req.MaxCharsPerItem,
		MaxTokens: req.MaxTokens, TokenEncoding: req.TokenEncoding,
		Paths: req.Paths, ExcludePaths: req.ExcludePaths, Kinds: req.Kinds, MinScore: req.MinScore,
		Items: req.Items, IncludeItems: req.IncludeItems.kinds(), ItemShare: req.ItemShare,
		NoRetrieval: req.Retrieval != nil && !*req.Retrieval,
	}
	if req.ActiveURI != "" {
		p, err := PathFromURI(req.ActiveURI)
		if err != nil {
			return nil, &workspace.ParamError{Field: "activeUri", Msg: err.Error()}
		}
		out.Active = p
	}
	if req.Position != nil {
		out.Cursor = &workspace.Cursor{Line: req.Position.Line}
	}
	for i, ref := range req.Pinned {
		if workspace.IsItemID(ref) {
			out.Pinned = append(out.Pinned, ref)
			continue
		}
		p, err := PathFromURI(ref)
		if err != nil {
			return nil, &workspace.ParamError{Field: fmt.Sprintf("pinned[%d]", i), Msg: err.Error() + " (want a file:// URI or an item id)"}
		}
		out.Pinned = append(out.Pinned, p)
	}
	return out, nil
}

// FromSelection turns the workspace's answer into the wire's, with
// positions in UTF-8 bytes or UTF-16 code units.
func FromSelection(sel *workspace.Selection, utf8 bool) *Result {
	res := &Result{Items: make([]Item, 0, len(sel.Items)), UsedChars: sel.UsedChars, LowConfidence: sel.LowConfidence, Stats: stats(sel.Stats)}
	switch {
	case len(sel.Items) > 0:
	case !sel.Stats.Ready:
		res.Message = StillIndexing
	case sel.LowConfidence:
		res.Message = NoMatch
	}
	if sel.TokenEncoding != "" {
		used := sel.UsedTokens
		res.UsedTokens, res.TokenEncoding = &used, sel.TokenEncoding
	}
	for _, it := range sel.Items {
		var sig map[string]Signal
		if it.Signals != nil {
			sig = make(map[string]Signal, len(it.Signals))
			for name, s := range it.Signals {
				sig[name] = Signal(s)
			}
		}
		uri := ""
		if it.Abs != "" {
			uri = URIFromPath(it.Abs)
		}
		item := Item{
			ID: it.ID, URI: uri, Paths: it.Paths, Path: it.Path, Symbol: it.Symbol, Kind: it.Kind, Language: it.Language,
			Range: rangeOf(it.Span, it.StartLineText, it.EndLineText, utf8),
			Text:  it.Text, Truncated: it.Truncated, Score: it.Score, Reason: it.Reason, Signals: sig, Why: it.Why, LeadBonus: it.LeadBonus,
		}
		if it.Strong != nil {
			item.Strong = &Strong{Bonus: it.Strong.Bonus, By: it.Strong.By}
		}
		if it.Part != nil {
			item.Part = &Part{Index: it.Part.Index, Of: it.Part.Of}
		}
		if it.SymbolSpan != nil {
			r := rangeOf(*it.SymbolSpan, it.SymbolStartLineText, it.SymbolEndLineText, utf8)
			item.SymbolRange = &r
		}
		res.Items = append(res.Items, item)
	}
	return res
}

// rangeOf is a span's range, its byte columns converted with the lines it
// starts and ends on.
func rangeOf(sp workspace.Span, startLine, endLine []byte, utf8 bool) Range {
	return Range{
		Start: Position{Line: sp.StartLine, Character: Column(startLine, sp.StartCol, utf8)},
		End:   Position{Line: sp.EndLine, Character: Column(endLine, sp.EndCol, utf8)},
	}
}

// PathFromURI turns a file:// URI into a cleaned absolute path. A bare
// path and other schemes are an error: the workspace would take a bare
// string for a path relative to the first folder, which is right on the
// command line but not on the wire.
func PathFromURI(uri string) (string, error) {
	u, err := url.Parse(uri)
	if err != nil {
		if ue, ok := errors.AsType[*url.Error](err); ok {
			err = ue.Err // not "parse <uri>" again
		}
		return "", fmt.Errorf("malformed URI %q: %v", uri, err)
	}
	if u.Scheme == "" {
		return "", fmt.Errorf("%q is not a URI", uri)
	}
	if u.Scheme != "file" {
		return "", fmt.Errorf("unsupported URI scheme %q in %q (only file:// is supported)", u.Scheme, uri)
	}
	p := u.Path
	if runtime.GOOS == "windows" && len(p) > 2 && p[0] == '/' && p[2] == ':' {
		p = p[1:]
	}
	if p == "" {
		return "", fmt.Errorf("URI %q has no path", uri)
	}
	return filepath.Clean(filepath.FromSlash(p)), nil
}

// URIFromPath turns an absolute path into a file:// URI.
func URIFromPath(abs string) string {
	p := filepath.ToSlash(abs)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p
	}
	return (&url.URL{Scheme: "file", Path: p}).String()
}

func stats(st workspace.SelectStats) Stats {
	out := Stats{
		Ready: st.Ready, Files: st.Files, Symbols: st.Symbols, Candidates: st.Candidates, ElapsedMs: st.ElapsedMs,
		Embedder: st.Embedder, MerkleRoot: st.MerkleRoot, Refused: st.Refused,
		History: History{Ready: st.History.Ready, Commits: st.History.Commits, Head: st.History.Head, Reason: st.History.Reason, Partial: st.History.Partial},
		Weights: Weights{Set: st.Weights.Set, Fitted: st.Weights.Fitted},
	}
	if st.Weights.Set == "" {
		out.Weights.Set = "default"
	}
	if j := st.Weights.Judged; j != nil {
		out.Weights.Judged = &WeightsJudge{Cases: j.Cases, HitAt1: j.HitAt1, HitAt5: j.HitAt5, MRR: j.MRR,
			DefaultHitAt1: j.DefaultHitAt1, DefaultHitAt5: j.DefaultHitAt5, DefaultMRR: j.DefaultMRR}
	}
	return out
}

// Where is where an item stands, for a reader: "path:first-last  name"
// (1-based lines; wholeFile names an item of a whole file), or its id for
// an item with no file (a memory note, a tool).
func (it *Item) Where(wholeFile string) string {
	if it.Path == "" {
		return it.ID
	}
	name := it.Symbol
	if name == "" {
		name = wholeFile
	}
	return fmt.Sprintf("%s:%d-%d  %s", it.Path, it.Range.Start.Line+1, it.Range.LastLine()+1, name)
}
