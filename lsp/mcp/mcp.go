// Package mcp serves ctxls over the Model Context Protocol, for agents
// (Claude Code, Cursor, Codex, Cline, Continue, Copilot agent mode) that
// call tools rather than speak LSP. It is an adapter: the requests become
// the wire's (lsp/wire), selected by the one call the LSP server and the
// command line make too (wire.Select), and the answers are the wire's result plus
// text a model reads well.
//
// Tools:
//
//   - select_context: ranked, budgeted code for a task;
//   - explain_selection: the same selection with why each item was picked;
//   - index_status: whether the index is ready, and what it holds.
//
// An MCP client sends no document or file notifications, so the server
// watches the folders itself (workspace.Watch).
package mcp

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ctxls/ctxls/heuristics"
	"github.com/ctxls/ctxls/lsp/wire"
	"github.com/ctxls/ctxls/workspace"
)

// Options configure a Server.
type Options struct {
	// Version is reported to the client in serverInfo.
	Version string
	// Roots are the workspace folders; at least one.
	Roots []string
	// Config is the index configuration.
	Config workspace.Config
	// Log receives the server's log (stderr for ctxls mcp); nil discards it.
	Log *slog.Logger
	// Warn is told the problems a user must act on; nil logs them.
	Warn func(msg string)
	// Debounce is how long the file watcher waits for the disk to be
	// quiet; 0 is workspace.DefaultWatchDebounce.
	Debounce time.Duration
	// ReadyWait bounds how long a selection that arrives before the
	// index is servable waits for it; 0 is DefaultReadyWait.
	ReadyWait time.Duration
	// Workspace, when set, is the workspace to serve instead of one built
	// over Roots: the shared daemon's (package daemon), which its owner
	// indexes and watches; Run does neither. Indexed is then closed when
	// its first index ends.
	Workspace *workspace.Workspace
	Indexed   <-chan struct{}
	// IndexStatus, with Workspace, reports its last complete index and
	// why indexing failed, for index_status.
	IndexStatus func() ([]workspace.IndexStats, error)
	// EditorState, when set, is asked for an editor's state when a
	// selection names no active file: the most recently active editor
	// session on the same workspace, its active document and cursor.
	EditorState func() (EditorState, bool)
}

// EditorState is an editor session's state a selection used.
type EditorState = wire.EditorState

// DefaultReadyWait is how long a selection waits for the first index
// before it answers from what is indexed so far.
const DefaultReadyWait = 10 * time.Second

// Server is an MCP server over one workspace.
type Server struct {
	opts Options
	ws   *workspace.Workspace
	log  *slog.Logger
	sdk  *sdk.Server

	mu       sync.Mutex
	progress map[string]workspace.Progress // by folder root, during indexing
	stats    []workspace.IndexStats        // the last complete index
	indexErr error                         // the last index failure
	watchErr error                         // why files are not watched
	// indexed is closed when the first Index returns, done or failed.
	indexed chan struct{}
}

// shared reports whether the workspace is supplied (Options.Workspace).
func (s *Server) shared() bool { return s.opts.Workspace != nil }

// indexDone is closed when the first index ends.
func (s *Server) indexDone() <-chan struct{} {
	if s.shared() && s.opts.Indexed != nil {
		return s.opts.Indexed
	}
	return s.indexed
}

// New builds the workspace over opts.Roots and the MCP server; nothing is
// indexed until Run. A root that is not a directory is an error naming it.
func New(opts Options) (*Server, error) {
	if len(opts.Roots) == 0 {
		return nil, fmt.Errorf("no workspace root")
	}
	log := opts.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	ws, indexed := opts.Workspace, make(chan struct{})
	if ws == nil {
		var err error
		if ws, err = workspace.New(opts.Config, workspace.Options{Logger: log, Warn: opts.Warn}); err != nil {
			return nil, err
		}
		for _, root := range opts.Roots {
			if _, err := ws.AddFolder(root); err != nil {
				return nil, err
			}
		}
	}
	s := &Server{opts: opts, ws: ws, log: log, progress: map[string]workspace.Progress{}, indexed: indexed}
	s.sdk = sdk.NewServer(&sdk.Implementation{Name: "ctxls", Title: "ctxls context selection", Version: opts.Version},
		&sdk.ServerOptions{Instructions: instructions, Capabilities: &sdk.ServerCapabilities{}})
	readOnly := &sdk.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: new(false)}
	sdk.AddTool(s.sdk, &sdk.Tool{
		Name:        "select_context",
		Title:       "Select code context",
		Description: selectDescription,
		Annotations: readOnly,
	}, s.selectContext)
	sdk.AddTool(s.sdk, &sdk.Tool{
		Name:        "explain_selection",
		Title:       "Explain a context selection",
		Description: explainDescription,
		Annotations: readOnly,
	}, s.explainSelection)
	sdk.AddTool(s.sdk, &sdk.Tool{
		Name:        "index_status",
		Title:       "ctxls index status",
		Description: statusDescription,
		Annotations: readOnly,
	}, s.indexStatus)
	return s, nil
}

const instructions = `ctxls indexes this workspace's code as symbols and selects the slices relevant to a task. ` +
	`Call select_context with the user's request (and the file they are in, if you know it) before reading files one by one: ` +
	`it returns ranked, budgeted code with the path and lines of each slice.`

const selectDescription = `Select the code most relevant to a task from the workspace: functions, methods, types, ` +
	`doc sections and config keys, ranked by a local index (BM25 over symbols and files, embeddings, names and paths ` +
	`in the request, the active file and cursor, recent edits, and the repository's history) and packed into a character budget. ` +
	`Returns one text block per item (path, lines, symbol, why it was picked, then the code) and the structured result. ` +
	`Use it before reading files one by one. Offline, read-only, answers in milliseconds.`

// explainDescription names the ranking sources as items' signals do.
var explainDescription = `The same selection as select_context, with each item's rank and score in every ranking source ` +
	`(` + strings.Join(heuristics.SourceNames[:], ", ") + `), to see why an item was or was not picked.`

const statusDescription = `Whether the workspace index is ready (or how far indexing has got), and per folder: files, symbols, ` +
	`languages, skipped and refused files, the embedder, the repository history read, and whether files are watched.`

// SelectInput are the arguments of select_context and explain_selection.
type SelectInput struct {
	Query         string   `json:"query" jsonschema:"the task or question in plain words, e.g. the user's request; names of functions, types or files in it count most"`
	History       []string `json:"history,omitempty" jsonschema:"earlier user messages of the conversation, oldest first, so that a follow-up like 'now fix that' finds what was discussed"`
	ActiveFile    string   `json:"activeFile,omitempty" jsonschema:"the file the user is looking at: a path relative to the (first) workspace root, an absolute path, or a file:// URI"`
	CursorLine    int      `json:"cursorLine,omitempty" jsonschema:"1-based line of the cursor in activeFile; the symbol there ranks first"`
	Limit         int      `json:"limit,omitempty" jsonschema:"maximum number of items, 1 to 100 (default 8)"`
	MaxChars      int      `json:"maxChars,omitempty" jsonschema:"character budget over the text of all items (default 12000; with maxTokens, only when given)"`
	MaxTokens     int      `json:"maxTokens,omitempty" jsonschema:"token budget over the text of all items, counted in tokenEncoding; give your context budget here rather than maxChars"`
	TokenEncoding string   `json:"tokenEncoding,omitempty" jsonschema:"the BPE encoding tokens are counted in: o200k_base (default) or cl100k_base"`
	// MaxTokensSnake and TokenEncodingSnake are the snake_case spellings
	// some agents use for the same arguments.
	MaxTokensSnake     int      `json:"max_tokens,omitempty" jsonschema:"the same as maxTokens"`
	TokenEncodingSnake string   `json:"token_encoding,omitempty" jsonschema:"the same as tokenEncoding"`
	Paths              []string `json:"paths,omitempty" jsonschema:"only select from paths matching these globs, relative to the root, e.g. internal/** or **/*.go"`
	Kinds              []string `json:"kinds,omitempty" jsonschema:"only select symbols of these kinds: function, method, class, struct, interface, type, enum, const, var, module or file"`
	Items              []string `json:"items,omitempty" jsonschema:"names of rules or tools of the workspace to include whatever their include mode, as @name in the query does (e.g. release-checklist)"`
	// IncludeItems is a pointer so that an absent argument means the default.
	IncludeItems *bool `json:"includeItems,omitempty" jsonschema:"false leaves out the workspace's rules, notes and tools and returns code only (default true)"`
}

// SelectOutput is the structured result: the wire's, with a note while the
// index is incomplete.
type SelectOutput struct {
	wire.Result
	// Indexing is set while the first index is being built: what share of
	// the files the result could see.
	Indexing string `json:"indexing,omitempty"`
}

// argFields maps the wire's field names, which the workspace's errors
// name, to the tool's arguments.
var argFields = map[string]string{"activeUri": "activeFile"}

// selectContext is the select_context tool.
func (s *Server) selectContext(ctx context.Context, req *sdk.CallToolRequest, in SelectInput) (*sdk.CallToolResult, *SelectOutput, error) {
	s.awaitReady(ctx, req)
	out, err := s.run(ctx, in)
	if err != nil {
		return nil, nil, err
	}
	res := &sdk.CallToolResult{}
	if out.Indexing != "" {
		res.Content = append(res.Content, &sdk.TextContent{Text: out.Indexing})
	}
	for i, it := range out.Items {
		res.Content = append(res.Content, &sdk.TextContent{Text: itemText(i, &it)})
	}
	res.Content = append(res.Content, &sdk.TextContent{Text: summary(&out.Result)})
	return res, out, nil
}

// explainSelection is the explain_selection tool.
func (s *Server) explainSelection(ctx context.Context, req *sdk.CallToolRequest, in SelectInput) (*sdk.CallToolResult, *SelectOutput, error) {
	s.awaitReady(ctx, req)
	out, err := s.run(ctx, in)
	if err != nil {
		return nil, nil, err
	}
	var b strings.Builder
	if out.Indexing != "" {
		b.WriteString(out.Indexing + "\n\n")
	}
	for i, it := range out.Items {
		fmt.Fprintf(&b, "%s\n   why: %s\n   ranked by: %s\n", header(i, &it), it.Why, signals(&it))
	}
	b.WriteString(summary(&out.Result))
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: b.String()}}}, out, nil
}

// readyPoll is how often awaitReady looks at the index.
const readyPoll = 10 * time.Millisecond

// awaitReady waits until the workspace is servable (workspace.Ready: a
// cache loaded, or the first index built, and the history looked for),
// the first index ends without it, ReadyWait passes or ctx ends, so that
// a call made right after connecting answers from the index rather than
// from the part read so far. A client that gave a progress token is sent
// how far indexing has got while it waits.
func (s *Server) awaitReady(ctx context.Context, req *sdk.CallToolRequest) {
	if s.ws.Ready() {
		return
	}
	wait := cmp.Or(s.opts.ReadyWait, DefaultReadyWait)
	deadline := time.NewTimer(wait)
	defer deadline.Stop()
	tick := time.NewTicker(readyPoll)
	defer tick.Stop()
	var token any
	if req != nil && req.Params != nil {
		token = req.Params.GetProgressToken()
	}
	sent := -1
	for !s.ws.Ready() {
		if pc := s.percent(); token != nil && req.Session != nil && pc != sent {
			sent = pc
			err := req.Session.NotifyProgress(ctx, &sdk.ProgressNotificationParams{ProgressToken: token, Progress: float64(pc), Total: 100,
				Message: fmt.Sprintf("ctxls is indexing (%d%% of files)", pc)})
			if err != nil {
				token = nil
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-s.indexDone():
			return
		case <-deadline.C:
			s.log.Info(fmt.Sprintf("a selection waited %s for the index and answers from what is indexed so far", wait))
			return
		case <-tick.C:
		}
	}
}

// run is one selection: the arguments become a wire request for the one
// service call the LSP server and the command line make too.
func (s *Server) run(ctx context.Context, in SelectInput) (*SelectOutput, error) {
	req, err := s.request(in)
	if err != nil {
		return nil, err
	}
	var editor *EditorState
	if req.ActiveURI == "" && s.opts.EditorState != nil {
		if st, ok := s.opts.EditorState(); ok {
			editor = &st
			req.ActiveURI = st.ActiveURI
			if st.Line != nil {
				req.Position = &wire.Position{Line: *st.Line}
			}
		}
	}
	res, err := wire.Select(ctx, s.ws, req, wire.Options{})
	if pe, ok := errors.AsType[*workspace.ParamError](err); ok {
		return nil, fmt.Errorf("invalid argument %s: %s", argName(pe.Field), pe.Msg)
	}
	if err != nil {
		return nil, err
	}
	out := &SelectOutput{Result: *res}
	out.Stats.EditorState = editor
	if !out.Stats.Ready {
		out.Indexing = fmt.Sprintf("ctxls is still indexing (%d%% of files); this answer covers only the files indexed so far. Call again shortly for a complete one.", s.percent())
	}
	return out, nil
}

// request is the wire request of the tool's arguments.
func (s *Server) request(in SelectInput) (*wire.Request, error) {
	if in.CursorLine < 0 {
		return nil, fmt.Errorf("invalid argument cursorLine: must be 1 or more, got %d", in.CursorLine)
	}
	req := &wire.Request{Query: in.Query, History: in.History, Limit: in.Limit, MaxChars: in.MaxChars, Paths: in.Paths, Kinds: in.Kinds, Items: in.Items,
		MaxTokens: cmp.Or(in.MaxTokens, in.MaxTokensSnake), TokenEncoding: cmp.Or(in.TokenEncoding, in.TokenEncodingSnake)}
	if in.IncludeItems != nil {
		req.IncludeItems = &wire.IncludeItems{All: in.IncludeItems}
	}
	if in.ActiveFile != "" {
		req.ActiveURI = s.fileURI(in.ActiveFile)
		if in.CursorLine > 0 {
			req.Position = &wire.Position{Line: uint32(in.CursorLine - 1)}
		}
	}
	return req, nil
}

// fileURI turns an activeFile argument into a file URI: a relative path is
// relative to the first root.
func (s *Server) fileURI(ref string) string {
	if strings.Contains(ref, "://") {
		return ref
	}
	if !filepath.IsAbs(ref) {
		ref = filepath.Join(s.ws.Folders()[0].Root, ref)
	}
	return wire.URIFromPath(filepath.Clean(ref))
}

// argName is the tool argument a wire field came from ("kinds[1]" stays).
func argName(field string) string {
	name, index, indexed := strings.Cut(field, "[")
	if a, ok := argFields[name]; ok {
		name = a
	}
	if indexed {
		return name + "[" + index
	}
	return name
}

// header is an item's first line: rank, path and lines, symbol, kind,
// and why it is there.
func header(i int, it *wire.Item) string {
	kind := it.Kind
	if it.Language != "" {
		kind += ", " + it.Language
	}
	return fmt.Sprintf("%d. %s (%s): %s", i+1, it.Where("(whole file)"), kind, it.Why)
}

// itemText is one item as a model reads it: the header, then the code
// fenced with its language.
func itemText(i int, it *wire.Item) string {
	var b strings.Builder
	b.WriteString(header(i, it))
	b.WriteString("\n```" + it.Language + "\n")
	b.WriteString(strings.TrimRight(it.Text, "\n"))
	if it.Truncated {
		b.WriteString("\n…")
	}
	b.WriteString("\n```")
	return b.String()
}

// signals lists an item's per-source ranks, best rank first (the scores
// are in the structured result).
func signals(it *wire.Item) string {
	names := make([]string, 0, len(it.Signals))
	for n := range it.Signals {
		names = append(names, n)
	}
	slices.SortFunc(names, func(a, b string) int {
		if d := it.Signals[a].Rank - it.Signals[b].Rank; d != 0 {
			return d
		}
		return strings.Compare(a, b)
	})
	parts := make([]string, 0, len(names))
	for _, n := range names {
		parts = append(parts, fmt.Sprintf("%s #%d", n, it.Signals[n].Rank))
	}
	if len(parts) == 0 {
		return "no ranking source (" + it.Reason + ")"
	}
	return strings.Join(parts, ", ")
}

// summary is the closing line of a selection.
func summary(r *wire.Result) string {
	conf := ""
	if r.LowConfidence {
		conf = "; low confidence: nothing matched the request well, so treat these as guesses"
	}
	switch {
	case len(r.Items) == 0 && !r.Stats.Ready:
		return "Nothing matched in the files indexed so far." + conf
	case r.Message != "":
		return r.Message
	case len(r.Items) == 0:
		return "No code matched the request." + conf
	}
	noun := "items"
	if len(r.Items) == 1 {
		noun = "item"
	}
	toks := ""
	if r.UsedTokens != nil {
		toks = fmt.Sprintf(" (%d tokens, %s)", *r.UsedTokens, r.TokenEncoding)
	}
	editor := ""
	if e := r.Stats.EditorState; e != nil {
		editor = fmt.Sprintf(" Used the state of editor session %d (active %s", e.Session, e.ActiveURI)
		if e.Line != nil {
			editor += fmt.Sprintf(", cursor line %d", *e.Line+1)
		}
		editor += ", its unsaved edits and recent-edit evidence)."
	}
	return fmt.Sprintf("%d %s, %d characters%s, from %d files and %d symbols indexed%s.%s",
		len(r.Items), noun, r.UsedChars, toks, r.Stats.Files, r.Stats.Symbols, conf, editor)
}
