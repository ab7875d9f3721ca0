// Package daemon is ctxls's shared daemon: one process per user that keeps
// one live index per set of workspace folders and configuration, shared by
// every client that attaches to it on a Unix socket (the editor's LSP
// server, an agent's MCP server, ctxls select), as gopls does with
// -remote=auto.
//
// Trust model: one user, one socket, nothing across users. The socket is
// in a directory of mode 0700 owned by the user, and is itself 0600; the
// daemon and its clients refuse a directory or socket that is another
// user's or open to others, and it never listens on TCP. Every client is
// the same user, so sessions see each other's state by design: an agent's
// selection may use an editor's open documents and cursor.
//
// Sessions: each connection is one session. An LSP session's open
// documents, active file and cursor are its own, tracked by the daemon;
// the unsaved text of all sessions on one workspace is one shared overlay
// (the workspace's documents: the last writer wins, as two editors on one
// file would). When a session ends, cleanly or not, the documents it had
// open and no other session has are closed, so the index returns to the
// disk's text.
package daemon

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/ctxls/ctxls/lsp"
	"github.com/ctxls/ctxls/lsp/mcp"
	"github.com/ctxls/ctxls/lsp/wire"
	"github.com/ctxls/ctxls/workspace"
)

// DefaultIdle is how long a daemon with no session waits before it exits.
const DefaultIdle = 10 * time.Minute

// ErrRunning is returned by Serve when another daemon holds the socket.
var ErrRunning = errors.New("another ctxls daemon is running on this socket")

// Options configure a daemon.
type Options struct {
	Socket  string        // the socket's path; "" is DefaultSocket
	Idle    time.Duration // exit after this long without a session; 0 is DefaultIdle
	Version string
	Log     io.Writer // the daemon's log; nil discards it
	Level   slog.Level
}

// Daemon serves sessions on a socket.
type Daemon struct {
	opts Options
	log  *slog.Logger
	bg   context.Context

	mu       sync.Mutex
	spaces   map[string]*shared
	sessions map[int]*session
	nextID   int
	idle     *time.Timer
	stop     context.CancelFunc
}

// shared is one workspace and its index, shared by the sessions over the
// same folders and configuration.
type shared struct {
	key     string
	roots   []string
	ws      *workspace.Workspace
	indexed chan struct{}  // closed when the first index ends
	open    map[string]int // document path → sessions that have it open

	// Set when the first index ends; guarded by Daemon.mu.
	stats    []workspace.IndexStats
	indexErr error
}

// session is one client connection.
type session struct {
	id int

	// Guarded by Daemon.mu.
	kind       string
	sh         *shared         // nil until attached (an LSP session: until initialize)
	docs       map[string]bool // paths open in this session
	activeURI  string
	line       *uint32
	lastActive time.Time
}

// Serve runs the daemon until ctx ends or it has been idle for
// Options.Idle. It returns ErrRunning when another daemon holds the
// socket; two daemons started at once settle on one by a lock file
// beside the socket.
func Serve(ctx context.Context, opts Options) error {
	if opts.Socket == "" {
		var err error
		if opts.Socket, err = DefaultSocket(); err != nil {
			return err
		}
	}
	if opts.Idle <= 0 {
		opts.Idle = DefaultIdle
	}
	ln, unlock, err := listen(opts.Socket)
	if err != nil {
		return err
	}
	defer unlock()

	logw := opts.Log
	if logw == nil {
		logw = io.Discard
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	d := &Daemon{
		opts: opts, bg: ctx, stop: cancel,
		log:      slog.New(slog.NewTextHandler(logw, &slog.HandlerOptions{Level: opts.Level})),
		spaces:   map[string]*shared{},
		sessions: map[int]*session{},
	}
	d.log.Info("daemon listening", "socket", opts.Socket, "pid", os.Getpid(), "idle", opts.Idle)
	d.mu.Lock()
	d.armIdle()
	d.mu.Unlock()

	var wg sync.WaitGroup
	go func() {
		<-ctx.Done()
		ln.Close()
	}()
	for {
		conn, err := ln.Accept()
		if err != nil {
			if ctx.Err() != nil {
				break
			}
			d.log.Error("accept", "err", err)
			time.Sleep(10 * time.Millisecond)
			continue
		}
		wg.Go(func() { d.serveConn(conn) })
	}
	ln.Close()
	wg.Wait()
	d.log.Info("daemon stopped")
	return nil
}

// listen takes the socket at path: its directory private, the lock beside
// it held (unlock releases it), ErrRunning when a daemon answers there, a
// stale socket removed, and the new one created 0600 with no moment when
// others may connect.
func listen(path string) (ln net.Listener, unlock func(), err error) {
	dir := filepath.Dir(path)
	if err := prepareDir(dir); err != nil {
		return nil, nil, err
	}
	running := func() bool {
		c, err := net.DialTimeout("unix", path, time.Second)
		if err == nil {
			c.Close()
		}
		return err == nil
	}
	unlock, err = lockFile(filepath.Join(dir, filepath.Base(path)+".lock"), running)
	if err != nil {
		return nil, nil, err
	}
	fail := func(err error) (net.Listener, func(), error) {
		unlock()
		return nil, nil, err
	}
	if running() {
		return fail(ErrRunning)
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fail(fmt.Errorf("removing the stale socket %s: %v", path, err))
	}
	old := syscall.Umask(0o177)
	l, err := net.Listen("unix", path)
	syscall.Umask(old)
	if err != nil {
		return fail(fmt.Errorf("listening on %s: %v", path, err))
	}
	l.(*net.UnixListener).SetUnlinkOnClose(true)
	if err := os.Chmod(path, 0o600); err != nil {
		l.Close()
		return fail(err)
	}
	return l, unlock, nil
}

// armIdle starts the idle timer when no session is left. Caller holds mu.
func (d *Daemon) armIdle() {
	if len(d.sessions) > 0 {
		if d.idle != nil {
			d.idle.Stop()
			d.idle = nil
		}
		return
	}
	if d.idle == nil {
		d.idle = time.AfterFunc(d.opts.Idle, func() {
			d.mu.Lock()
			defer d.mu.Unlock()
			if len(d.sessions) == 0 {
				d.log.Info("no session for the idle time; exiting", "idle", d.opts.Idle)
				d.stop()
			}
		})
	}
}

// serveConn serves one connection: its first message says what it is.
func (d *Daemon) serveConn(conn net.Conn) {
	defer conn.Close()
	s := d.addSession()
	defer d.endSession(s)
	defer func() {
		if r := recover(); r != nil {
			d.log.Error("panic in a session", "session", s.id, "panic", fmt.Sprint(r))
		}
	}()
	r := bufio.NewReader(conn)
	first := true
	for {
		m, err := readMessage(r)
		if err != nil {
			if !errors.Is(err, io.EOF) {
				d.log.Debug("session ended", "session", s.id, "err", err)
			}
			return
		}
		if first && m.Method == MethodAttach {
			var p AttachParams
			if err := json.Unmarshal(m.Params, &p); err != nil {
				d.reply(conn, m, nil, fmt.Errorf("%s: %v", MethodAttach, err))
				return
			}
			if err := sameBuild(p.Build); err != nil {
				d.reply(conn, m, nil, err)
				return
			}
			d.attach(s, p, m, conn, r)
			return
		}
		first = false
		switch m.Method {
		case MethodSelect:
			var p SelectParams
			if err := json.Unmarshal(m.Params, &p); err != nil {
				d.reply(conn, m, nil, fmt.Errorf("%s: %v", MethodSelect, err))
				continue
			}
			if err := sameBuild(p.Build); err != nil {
				d.reply(conn, m, nil, err)
				continue
			}
			res, err := d.selectOnce(&p)
			d.reply(conn, m, res, err)
		case MethodStatus:
			d.reply(conn, m, d.status(), nil)
		default:
			d.reply(conn, m, nil, fmt.Errorf("method not found: %q", m.Method))
		}
	}
}

// sameBuild refuses a client of another build of ctxls (one that gave its
// build: every client of this version does).
func sameBuild(client string) error {
	if client == "" || client == Build() {
		return nil
	}
	return &rpcError{Code: codeOtherBuild, Message: fmt.Sprintf("this daemon is another build of ctxls (%s; yours is %s): use --remote=auto, which finds or starts a daemon of your build", Build(), client)}
}

func (d *Daemon) reply(w io.Writer, req *message, res any, err error) {
	if req.ID == nil {
		return
	}
	out := &message{ID: req.ID}
	var re *rpcError
	if errors.As(err, &re) {
		out.Error = re
	} else if err != nil {
		out.Error = &rpcError{Code: -32603, Message: err.Error()}
	} else if out.Result, err = json.Marshal(res); err != nil {
		out.Error = &rpcError{Code: -32603, Message: err.Error()}
	}
	_ = writeMessage(w, out)
}

// attach serves an LSP or MCP session on the rest of the stream.
func (d *Daemon) attach(s *session, p AttachParams, m *message, conn net.Conn, r *bufio.Reader) {
	d.mu.Lock()
	s.kind = p.Kind
	d.mu.Unlock()
	d.log.Info("session attached", "session", s.id, "kind", p.Kind, "client", p.PID)
	rw := struct {
		io.Reader
		io.Writer
		io.Closer
	}{r, conn, conn}
	switch p.Kind {
	case KindLSP:
		d.reply(conn, m, AttachResult{Session: s.id, PID: os.Getpid()}, nil)
		srv := lsp.New(lsp.Options{
			Version: d.opts.Version, Log: d.logWriter(), LogLevel: d.opts.Level,
			Workspace: func(roots []string, cfg workspace.Config) (*workspace.Workspace, error) {
				if len(roots) == 0 {
					// Nothing to share: the session keeps a workspace of
					// its own, whose folders it adds later.
					d.log.Info("session has no workspace folder; it keeps its own workspace", "session", s.id)
					return nil, nil
				}
				sh, err := d.space(roots, cfg)
				if err == nil {
					d.mu.Lock()
					s.sh = sh
					d.mu.Unlock()
				}
				if sh == nil {
					return nil, err
				}
				return sh.ws, err
			},
			OnDocument: func(ev lsp.DocumentEvent) { d.document(s, ev) },
		})
		err := srv.Serve(d.bg, rw)
		d.log.Info("session ended", "session", s.id, "err", err)
	case KindMCP:
		cfg, err := configOf(p.Config)
		var sh *shared
		if err == nil {
			sh, err = d.space(p.Roots, cfg)
		}
		if err != nil {
			d.reply(conn, m, nil, err)
			return
		}
		d.mu.Lock()
		s.sh = sh
		d.mu.Unlock()
		srv, err := mcp.New(mcp.Options{
			Version: d.opts.Version, Roots: sh.roots, Config: cfg, Log: d.log.With("session", s.id),
			Workspace: sh.ws, Indexed: sh.indexed,
			EditorState: func() (mcp.EditorState, bool) { return d.editorState(sh) },
			IndexStatus: func() ([]workspace.IndexStats, error) {
				d.mu.Lock()
				defer d.mu.Unlock()
				return sh.stats, sh.indexErr
			},
		})
		if err != nil {
			d.reply(conn, m, nil, err)
			return
		}
		d.reply(conn, m, AttachResult{Session: s.id, PID: os.Getpid()}, nil)
		err = srv.Run(d.bg, &mcp.LineTransport{Reader: r, Writer: conn})
		d.log.Info("session ended", "session", s.id, "err", err)
	default:
		d.reply(conn, m, nil, fmt.Errorf("%s: unknown kind %q (want %q or %q)", MethodAttach, p.Kind, KindLSP, KindMCP))
	}
}

func (d *Daemon) logWriter() io.Writer {
	if d.opts.Log == nil {
		return io.Discard
	}
	return d.opts.Log
}

// configOf is a client's configuration: the defaults with its JSON on top.
func configOf(raw json.RawMessage) (workspace.Config, error) {
	cfg := workspace.DefaultConfig()
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &cfg); err != nil {
			return cfg, fmt.Errorf("config: %v", err)
		}
	}
	return cfg, cfg.Validate()
}

// space is the shared workspace of roots and cfg, built, indexed and
// watched on first use.
func (d *Daemon) space(roots []string, cfg workspace.Config) (*shared, error) {
	if len(roots) == 0 {
		return nil, errors.New("no workspace folder")
	}
	abs := make([]string, 0, len(roots))
	for _, r := range roots {
		a, err := filepath.Abs(r)
		if err != nil {
			return nil, err
		}
		if real, err := filepath.EvalSymlinks(a); err == nil {
			a = real
		}
		abs = append(abs, a)
	}
	slices.Sort(abs)
	abs = slices.Compact(abs)
	cj, _ := json.Marshal(cfg)
	key := strings.Join(abs, "\x00") + "\x00" + string(cj)

	d.mu.Lock()
	defer d.mu.Unlock()
	if sh := d.spaces[key]; sh != nil {
		return sh, nil
	}
	ws, err := workspace.New(cfg, workspace.Options{Logger: d.log})
	if err != nil {
		return nil, err
	}
	for _, r := range abs {
		if _, err := ws.AddFolder(r); err != nil {
			return nil, err
		}
	}
	sh := &shared{key: key, roots: abs, ws: ws, indexed: make(chan struct{}), open: map[string]int{}}
	d.spaces[key] = sh
	go func() {
		start := time.Now()
		stats, err := ws.Index(d.bg, nil)
		d.mu.Lock()
		sh.stats, sh.indexErr = stats, err
		d.mu.Unlock()
		close(sh.indexed)
		files := 0
		for _, st := range stats {
			files += st.Files
		}
		d.log.Info("indexed", "roots", abs, "files", files, "ms", time.Since(start).Milliseconds(), "err", err)
		if err != nil {
			return
		}
		if err := ws.Watch(d.bg, 0, nil); err != nil && d.bg.Err() == nil {
			d.log.Warn("cannot watch the workspace files", "roots", abs, "err", err)
		}
	}()
	return sh, nil
}

// selectOnce answers MethodSelect on the shared workspace, after its first
// index.
func (d *Daemon) selectOnce(p *SelectParams) (*wire.Result, error) {
	cfg, err := configOf(p.Config)
	if err != nil {
		return nil, err
	}
	sh, err := d.space(p.Roots, cfg)
	if err != nil {
		return nil, err
	}
	select {
	case <-sh.indexed:
	case <-d.bg.Done():
		return nil, d.bg.Err()
	}
	if p.Request == nil {
		return nil, errors.New("request: missing")
	}
	res, err := wire.Select(d.bg, sh.ws, p.Request, wire.Options{})
	if pe, ok := errors.AsType[*workspace.ParamError](err); ok {
		return nil, &rpcError{Code: -32602, Message: pe.Field + ": " + pe.Msg}
	}
	return res, err
}

func (d *Daemon) addSession() *session {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.nextID++
	s := &session{id: d.nextID, docs: map[string]bool{}}
	d.sessions[s.id] = s
	d.armIdle()
	return s
}

// endSession forgets a session: the documents it alone had open are
// closed, so their disk text is indexed again.
func (d *Daemon) endSession(s *session) {
	d.mu.Lock()
	delete(d.sessions, s.id)
	var closing []string
	sh := s.sh
	if sh != nil {
		for path := range s.docs {
			if s.sh.open[path]--; s.sh.open[path] <= 0 {
				delete(s.sh.open, path)
				closing = append(closing, path)
			}
		}
	}
	d.armIdle()
	d.mu.Unlock()
	for _, path := range closing {
		if err := sh.ws.DidClose(path); err != nil {
			d.log.Debug("closing a document of an ended session", "session", s.id, "path", path, "err", err)
		}
	}
	if len(closing) > 0 {
		d.log.Info("closed the documents of an ended session", "session", s.id, "documents", len(closing))
	}
}

// document tracks an LSP session's documents, active file and cursor.
func (d *Daemon) document(s *session, ev lsp.DocumentEvent) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if s.sh == nil {
		return
	}
	switch ev.Kind {
	case "open":
		if !s.docs[ev.Path] {
			s.docs[ev.Path] = true
			s.sh.open[ev.Path]++
		}
	case "close":
		if s.docs[ev.Path] {
			delete(s.docs, ev.Path)
			if s.sh.open[ev.Path]--; s.sh.open[ev.Path] <= 0 {
				delete(s.sh.open, ev.Path)
			}
		}
		if s.activeURI == ev.URI {
			s.activeURI, s.line = "", nil
		}
		return
	}
	if s.activeURI != ev.URI || ev.Line != nil {
		s.line = ev.Line
	}
	s.activeURI, s.lastActive = ev.URI, time.Now()
}

// editorState is the most recently active LSP session on sh that has an
// active document.
func (d *Daemon) editorState(sh *shared) (mcp.EditorState, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	var best *session
	for _, s := range d.sessions {
		if s.kind == KindLSP && s.sh == sh && s.activeURI != "" && (best == nil || s.lastActive.After(best.lastActive)) {
			best = s
		}
	}
	if best == nil {
		return mcp.EditorState{}, false
	}
	st := mcp.EditorState{Session: best.id, ActiveURI: best.activeURI}
	if best.line != nil {
		l := *best.line
		st.Line = &l
	}
	return st, true
}

func (d *Daemon) status() Status {
	d.mu.Lock()
	defer d.mu.Unlock()
	st := Status{PID: os.Getpid(), Version: d.opts.Version, Build: Build(), Sessions: len(d.sessions) - 1} // not counting the asker
	for _, sh := range d.spaces {
		st.Workspaces = append(st.Workspaces, strings.Join(sh.roots, ","))
	}
	slices.Sort(st.Workspaces)
	return st
}
