package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"runtime/debug"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.uber.org/zap"

	"github.com/ctxls/ctxls/lsp/wire"
	"github.com/ctxls/ctxls/workspace"
)

// Methods that go.lsp.dev/protocol does not name.
const (
	methodContextSelect = "workspace/contextSelect"
	methodDidFocus      = "ctxls/didFocus"
	methodRemember      = "workspace/contextRemember"
	methodForget        = "workspace/contextForget"
	methodMemory        = "workspace/contextMemory"
)

// ErrExitWithoutShutdown is returned by Serve when the client sent exit
// without a shutdown request first; the process should exit with status 1.
var ErrExitWithoutShutdown = errors.New("exit notification received without a prior shutdown request")

// Options configure a Server.
type Options struct {
	// Version is reported to the client in serverInfo.
	Version string
	// Log receives the server's log as text lines (stderr for ctxls serve);
	// nil discards it. Records from info up are also sent to the client as
	// window/logMessage.
	Log io.Writer
	// LogLevel is the lowest level written to Log. The zero value is info.
	LogLevel slog.Level
	// Workspace, when set, supplies the session's workspace for the
	// folders and configuration of initialize instead of a new one: the
	// shared daemon's (package daemon), which its owner indexes and
	// watches. The session then neither indexes it nor changes its
	// folders or configuration.
	Workspace func(roots []string, cfg workspace.Config) (*workspace.Workspace, error)
	// OnDocument, when set, is told every document event the session
	// applied, on the read loop: the daemon keeps each session's open
	// documents, active file and cursor.
	OnDocument func(DocumentEvent)
}

// DocumentEvent is a document notification the session applied.
type DocumentEvent struct {
	Kind string  // "open", "change", "close" or "focus"
	Path string  // the document's path
	URI  string  // its URI as the client sent it
	Line *uint32 // focus: the cursor's 0-based line, when sent
}

// observe tells Options.OnDocument about an applied document event.
func (s *Server) observe(kind, uri, path string, line *uint32) {
	if s.opts.OnDocument != nil {
		s.opts.OnDocument(DocumentEvent{Kind: kind, Path: path, URI: uri, Line: line})
	}
}

// shared reports whether the workspace is supplied (Options.Workspace).
func (s *Server) shared() bool { return s.opts.Workspace != nil }

// lifecycle is where a session is in initialize → shutdown → exit.
type lifecycle int

const (
	stateNew      lifecycle = iota // waiting for initialize
	stateRunning                   // initialize answered
	stateShutdown                  // shutdown answered; only exit is accepted
)

// Server is one LSP session. Serve reads messages on the connection's read
// loop: notifications (document sync, focus, configuration) are applied
// there, in order, so a request sent after an edit sees it; requests that
// may take time (contextSelect) run in their own goroutine and can be
// cancelled with $/cancelRequest while other messages proceed. Background
// work (indexing, registration with the client) runs in goroutines that
// Serve waits for before it returns.
//
// mu guards the lifecycle state, the workspace pointer and the client's
// capabilities; the workspace guards its own state.
type Server struct {
	opts Options
	log  *slog.Logger

	// Set by Serve before the read loop starts.
	conn       jsonrpc2.Conn
	client     protocol.Client
	stream     *stream
	bg         context.Context    // ends when Serve returns
	cancelBg   context.CancelFunc //
	work       context.Context    // background work; ends at shutdown
	cancelWork context.CancelFunc //
	exitCh     chan error
	clientUp   atomic.Bool // the client may be sent log messages

	spawnMu  sync.Mutex
	stopping bool
	wg       sync.WaitGroup

	mu          sync.Mutex
	state       lifecycle
	initialized bool
	ws          *workspace.Workspace
	caps        clientCapabilities
	utf8        bool // positions count UTF-8 bytes, not UTF-16 code units

	warnMu sync.Mutex
	warned map[string]bool

	reqMu    sync.Mutex
	inflight map[string]context.CancelFunc // request id key → cancel

	idx indexer

	// beforeSelect, when a test sets it, runs at the start of every
	// contextSelect with the request's context: test plumbing to make a
	// request slow or failing on purpose.
	beforeSelect func(ctx context.Context, req *wire.Request)
	// indexHook, when a test sets it, sees every indexing progress report
	// before the client does: test plumbing to hold an index half built.
	indexHook func(workspace.Progress)
}

// New returns a server ready to Serve one connection.
func New(opts Options) *Server {
	s := &Server{
		opts:     opts,
		exitCh:   make(chan error, 1),
		warned:   make(map[string]bool),
		inflight: make(map[string]context.CancelFunc),
	}
	var local slog.Handler = slog.DiscardHandler
	if opts.Log != nil {
		local = slog.NewTextHandler(opts.Log, &slog.HandlerOptions{Level: opts.LogLevel})
	}
	s.log = slog.New(teeHandler{local: local, mirror: &mirrorHandler{send: s.sendLog}})
	return s
}

// Serve speaks LSP on rwc until the client sends exit, closes the stream,
// or ctx ends. It returns nil after shutdown and exit and at end of input,
// ErrExitWithoutShutdown after an exit without shutdown, ctx's error when
// ctx ends, and the stream's error when reading fails. A Server serves one
// connection.
func (s *Server) Serve(ctx context.Context, rwc io.ReadWriteCloser) error {
	s.bg, s.cancelBg = context.WithCancel(ctx)
	s.work, s.cancelWork = context.WithCancel(s.bg)
	s.stream = newStream(rwc)
	s.conn = jsonrpc2.NewConn(s.stream)
	s.client = protocol.ClientDispatcher(s.conn, zap.NewNop())
	s.clientUp.Store(true)
	s.conn.Go(s.bg, s.handle)

	var err error
	select {
	case err = <-s.exitCh:
	case <-s.conn.Done():
		if err = s.conn.Err(); isEOF(err) {
			err = nil
		} else if err != nil {
			err = fmt.Errorf("reading from the client: %w", err)
		}
	case <-ctx.Done():
		err = ctx.Err()
	}

	s.spawnMu.Lock()
	s.stopping = true
	s.spawnMu.Unlock()
	s.clientUp.Store(false)
	s.cancelBg()
	s.wg.Wait()
	flushCtx, cancel := context.WithTimeout(context.Background(), time.Second)
	s.stream.flush(flushCtx)
	cancel()
	_ = s.conn.Close()
	return err
}

// isEOF reports whether a read error is the end of the input: the client
// closed the stream.
func isEOF(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrClosedPipe) || errors.Is(err, io.ErrUnexpectedEOF)
}

// spawn runs fn in a goroutine that Serve waits for; it reports false when
// Serve is already stopping.
func (s *Server) spawn(fn func()) bool {
	s.spawnMu.Lock()
	defer s.spawnMu.Unlock()
	if s.stopping {
		return false
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		fn()
	}()
	return true
}

// sendLog forwards a log line to the client as window/logMessage.
func (s *Server) sendLog(typ protocol.MessageType, msg string) {
	if !s.clientUp.Load() {
		return
	}
	_ = s.client.LogMessage(context.Background(), &protocol.LogMessageParams{Type: typ, Message: msg})
}

// warnUser tells the user, once per message, about a problem they must act
// on (a missing model, unusable settings): window/showMessage and the log.
func (s *Server) warnUser(msg string) {
	s.warnMu.Lock()
	seen := s.warned[msg]
	s.warned[msg] = true
	s.warnMu.Unlock()
	if seen {
		return
	}
	s.log.Warn(msg)
	if s.clientUp.Load() {
		_ = s.client.ShowMessage(context.Background(), &protocol.ShowMessageParams{Type: protocol.MessageTypeWarning, Message: msg})
	}
}

// workspace returns the session's workspace, nil before initialize.
func (s *Server) workspace() *workspace.Workspace {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ws
}

// positionsUTF8 reports whether the session's positions count UTF-8
// bytes (negotiated at initialize) rather than UTF-16 code units.
func (s *Server) positionsUTF8() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.utf8
}

// handle is the connection's handler: it runs on the read loop, so it never
// blocks on the client. Every message is answered exactly once (the reply
// of a notification writes nothing). It always returns nil: an error would
// make the connection close itself.
func (s *Server) handle(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
	method := req.Method()
	reply = s.replyOnce(reply, method)
	call, isCall := req.(*jsonrpc2.Call)
	if !isCall {
		s.notification(method, req.Params())
		_ = reply(ctx, nil, nil)
		return nil
	}

	s.mu.Lock()
	state := s.state
	s.mu.Unlock()
	var refuse *jsonrpc2.Error
	switch {
	case method == protocol.MethodInitialize:
		s.syncRequest(ctx, reply, method, func() (any, error) { return s.initialize(req.Params()) })
	case state == stateNew:
		refuse = jsonrpc2.Errorf(jsonrpc2.ServerNotInitialized, "%s: the server is not initialized (send initialize first)", method)
	case state == stateShutdown:
		refuse = jsonrpc2.Errorf(jsonrpc2.InvalidRequest, "%s: the server is shut down (only exit is accepted)", method)
	case method == protocol.MethodShutdown:
		s.syncRequest(ctx, reply, method, s.shutdown)
	case method == methodContextSelect:
		s.asyncRequest(call, reply, method, func(ctx context.Context) (any, error) {
			return s.contextSelect(ctx, req.Params())
		})
	case method == methodRemember, method == methodForget, method == methodMemory:
		// On the read loop, so that a select sent after a note sees it.
		s.syncRequest(ctx, reply, method, func() (any, error) { return s.memory(method, req.Params()) })
	default:
		refuse = jsonrpc2.Errorf(jsonrpc2.MethodNotFound, "method not found: %q", method)
	}
	if refuse != nil {
		s.log.Debug("request refused", "method", method, "code", refuse.Code)
		_ = reply(ctx, nil, refuse)
	}
	return nil
}

// replyOnce guards reply so that a second reply is logged, not sent.
func (s *Server) replyOnce(reply jsonrpc2.Replier, method string) jsonrpc2.Replier {
	var done atomic.Bool
	return func(ctx context.Context, result any, err error) error {
		if !done.CompareAndSwap(false, true) {
			s.log.Error("suppressed a second reply", "method", method)
			return nil
		}
		return reply(ctx, result, err)
	}
}

// syncRequest answers a request on the read loop.
func (s *Server) syncRequest(ctx context.Context, reply jsonrpc2.Replier, method string, fn func() (any, error)) {
	defer s.recoverPanic(method, reply)
	res, err := fn()
	s.respond(ctx, reply, method, res, err)
}

// asyncRequest answers a request in its own goroutine, cancellable by
// $/cancelRequest with its id.
func (s *Server) asyncRequest(call *jsonrpc2.Call, reply jsonrpc2.Replier, method string, fn func(context.Context) (any, error)) {
	ctx, cancel := context.WithCancel(s.bg)
	id := call.ID()
	raw, _ := (&id).MarshalJSON()
	key, keyed := idKey(raw)
	if keyed {
		s.reqMu.Lock()
		s.inflight[key] = cancel
		s.reqMu.Unlock()
	}
	started := s.spawn(func() {
		defer func() {
			if keyed {
				s.reqMu.Lock()
				delete(s.inflight, key)
				s.reqMu.Unlock()
			}
			cancel()
		}()
		defer s.recoverPanic(method, reply)
		res, err := fn(ctx)
		s.respond(ctx, reply, method, res, err)
	})
	if !started {
		cancel()
		_ = reply(ctx, nil, jsonrpc2.NewError(protocol.CodeRequestCancelled, "the server is exiting"))
	}
}

// respond sends a result or an error. Results are encoded here with
// encoding/json, so the wire shape is exactly the one the structs declare.
func (s *Server) respond(ctx context.Context, reply jsonrpc2.Replier, method string, res any, err error) {
	if err != nil {
		var rpcErr *jsonrpc2.Error
		if !errors.As(err, &rpcErr) {
			rpcErr = jsonrpc2.Errorf(jsonrpc2.InternalError, "%s: %v", method, err)
		}
		if rpcErr.Code == jsonrpc2.InternalError {
			s.log.Error("request failed", "method", method, "err", rpcErr.Message)
		} else {
			s.log.Debug("request refused", "method", method, "code", rpcErr.Code, "err", rpcErr.Message)
		}
		_ = reply(ctx, nil, rpcErr)
		return
	}
	data, merr := json.Marshal(res)
	if merr != nil {
		s.log.Error("encoding a result", "method", method, "err", merr)
		_ = reply(ctx, nil, jsonrpc2.Errorf(jsonrpc2.InternalError, "%s: encoding the result: %v", method, merr))
		return
	}
	_ = reply(ctx, json.RawMessage(data), nil)
}

// recoverPanic turns a panic in a handler into a logged error and, for a
// request, an InternalError reply; the server keeps running.
func (s *Server) recoverPanic(method string, reply jsonrpc2.Replier) {
	r := recover()
	if r == nil {
		return
	}
	s.log.Error("panic in handler", "method", method, "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
	if reply != nil {
		_ = reply(context.Background(), nil, jsonrpc2.Errorf(jsonrpc2.InternalError, "%s: internal error: %v", method, r))
	}
}

// idKey normalises a JSON-RPC id (a string or an integer, which JSON
// decodes as a float64) to a map key; other forms have no key.
func idKey(raw []byte) (string, bool) {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return "", false
	}
	switch x := v.(type) {
	case string:
		return "s:" + x, true
	case float64:
		if x != math.Trunc(x) || math.IsInf(x, 0) {
			return "", false
		}
		return "n:" + strconv.FormatFloat(x, 'f', -1, 64), true
	}
	return "", false
}

// cancelRequest handles $/cancelRequest: the request's context is
// cancelled and it answers RequestCancelled. Unknown or finished ids are
// ignored, as LSP asks.
func (s *Server) cancelRequest(params json.RawMessage) {
	var p cancelParams
	if err := decodeParams(params, &p); err != nil {
		s.log.Debug("ignoring malformed $/cancelRequest", "err", err)
		return
	}
	key, ok := idKey(p.ID)
	if !ok {
		s.log.Debug("ignoring $/cancelRequest with an id that is neither a string nor an integer", "id", string(p.ID))
		return
	}
	s.reqMu.Lock()
	cancel := s.inflight[key]
	s.reqMu.Unlock()
	if cancel != nil {
		cancel()
	}
}

// exit handles the exit notification: Serve returns at once.
func (s *Server) exit() {
	s.mu.Lock()
	clean := s.state == stateShutdown
	s.mu.Unlock()
	var err error
	if !clean {
		err = ErrExitWithoutShutdown
	}
	select {
	case s.exitCh <- err:
	default:
	}
}

// shutdown answers the shutdown request: background work stops and every
// further request is refused until exit.
func (s *Server) shutdown() (any, error) {
	s.mu.Lock()
	s.state = stateShutdown
	s.mu.Unlock()
	s.cancelWork()
	s.log.Debug("shut down")
	return nil, nil
}
