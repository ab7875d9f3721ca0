package lsp

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/ctxls/ctxls/lsp/wire"
	"github.com/ctxls/ctxls/workspace"
)

// initialize answers the initialize request: it builds the configuration
// from initializationOptions, negotiates the position encoding, creates the
// workspace with its folders and advertises the server's capabilities.
func (s *Server) initialize(params json.RawMessage) (any, error) {
	s.mu.Lock()
	state := s.state
	s.mu.Unlock()
	if state != stateNew {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidRequest, "initialize: the server is already initialized")
	}
	var p initializeParams
	if err := decodeParams(params, &p); err != nil {
		return nil, err
	}
	cfg, err := initialConfig(p.InitializationOptions)
	if err != nil {
		return nil, err
	}
	utf8 := slices.Contains(p.Capabilities.General.PositionEncodings, encodingUTF8)
	var ws *workspace.Workspace
	if s.opts.Workspace != nil {
		if ws, err = s.opts.Workspace(initialRoots(&p), cfg); err != nil {
			return nil, invalidParams("%v", err)
		}
	}
	shared := ws != nil
	if !shared {
		// A server of its own serves one editor: while a folder's cache
		// loads at start-up there is little else to do, and the process's
		// memory limit still bounds the heap, so the load runs without
		// collections. A folder added later loads the same way while the
		// others serve (a second or two at a million symbols, bounded by
		// the limit); the shared daemon, serving other clients, does not.
		ws, err = workspace.New(cfg, workspace.Options{Logger: s.log, Warn: s.warnUser, HoldGC: workspace.HoldCollector})
		if err != nil {
			return nil, invalidParams("initializationOptions: %v", err)
		}
		for _, root := range initialRoots(&p) {
			if _, err := ws.AddFolder(root); err != nil {
				s.warnUser(fmt.Sprintf("ctxls: cannot use workspace folder %s: %v", root, err))
			}
		}
	}

	s.mu.Lock()
	s.ws, s.caps, s.utf8, s.state, s.sharedWS = ws, p.Capabilities, utf8, stateRunning, shared
	s.mu.Unlock()

	res := initializeResult{ServerInfo: serverInfo{Name: "ctxls", Version: s.opts.Version}}
	caps := &res.Capabilities
	caps.PositionEncoding = encodingUTF16
	if utf8 {
		caps.PositionEncoding = encodingUTF8
	}
	caps.TextDocumentSync.OpenClose = true
	caps.TextDocumentSync.Change = int(protocol.TextDocumentSyncKindIncremental)
	caps.Workspace.WorkspaceFolders.Supported = true
	caps.Workspace.WorkspaceFolders.ChangeNotifications = true
	caps.Experimental = map[string]any{"contextSelect": true, "contextItems": true, "contextMemory": true}
	s.log.Debug("initialized", "folders", len(ws.Folders()), "positionEncoding", caps.PositionEncoding)
	return res, nil
}

// initialConfig is the default configuration with initializationOptions
// merged on top; a bad option is InvalidParams naming it.
func initialConfig(opts json.RawMessage) (workspace.Config, error) {
	cfg := workspace.DefaultConfig()
	opts = bytes.TrimSpace(opts)
	if len(opts) > 0 && opts[0] != '{' && !bytes.Equal(opts, []byte("null")) {
		return cfg, invalidParams("initializationOptions: expected an object, got %s", workspace.JSONKind(opts))
	}
	if err := cfg.MergeJSON(opts); err != nil {
		return cfg, invalidParams("initializationOptions.%v", err)
	}
	if err := cfg.Validate(); err != nil {
		return cfg, invalidParams("initializationOptions.%v", err)
	}
	return cfg, nil
}

// initialRoots lists the workspace folders as paths: workspaceFolders,
// else rootUri, else rootPath.
func initialRoots(p *initializeParams) []string {
	var uris []string
	switch {
	case len(p.WorkspaceFolders) > 0:
		for _, f := range p.WorkspaceFolders {
			uris = append(uris, f.URI)
		}
	case p.RootURI != "":
		uris = append(uris, p.RootURI)
	case p.RootPath != "":
		return []string{p.RootPath}
	}
	var roots []string
	for _, u := range uris {
		path, err := wire.PathFromURI(u)
		if err != nil {
			path = u // AddFolder's error names it
		}
		roots = append(roots, path)
	}
	return roots
}

// notification applies a notification on the read loop. Notifications
// cannot be answered: problems are logged.
func (s *Server) notification(method string, params json.RawMessage) {
	defer s.recoverPanic(method, nil)
	switch method {
	case protocol.MethodCancelRequest:
		s.cancelRequest(params)
		return
	case protocol.MethodExit:
		s.exit()
		return
	}
	s.mu.Lock()
	state, ws := s.state, s.ws
	s.mu.Unlock()
	if state != stateRunning {
		s.log.Debug("ignoring notification outside a running session", "method", method)
		return
	}
	var err error
	switch method {
	case protocol.MethodInitialized:
		s.didInitialize()
	case protocol.MethodTextDocumentDidOpen, protocol.MethodTextDocumentDidChange, protocol.MethodTextDocumentDidSave,
		protocol.MethodTextDocumentDidClose, methodDidFocus:
		err = s.documentNotification(ws, method, params)
	case protocol.MethodWorkspaceDidChangeWatchedFiles:
		var p didChangeWatchedFilesParams
		if err = decodeParams(params, &p); err == nil {
			err = s.filesChanged(ws, &p)
		}
	case protocol.MethodWorkspaceDidChangeWorkspaceFolders:
		var p didChangeWorkspaceFoldersParams
		if err = decodeParams(params, &p); err == nil {
			s.foldersChanged(ws, &p)
		}
	case protocol.MethodWorkspaceDidChangeConfiguration:
		var p didChangeConfigurationParams
		if err = decodeParams(params, &p); err == nil {
			s.configurationChanged(ws, p.Settings)
		}
	default:
		s.log.Debug("ignoring unknown notification", "method", method)
	}
	if err != nil {
		s.log.Warn("notification not applied", "method", method, "err", err)
	}
}

// documentNotification applies a notification about one document: opened,
// changed, saved, closed or focused.
func (s *Server) documentNotification(ws *workspace.Workspace, method string, params json.RawMessage) error {
	var err error
	switch method {
	case protocol.MethodTextDocumentDidOpen:
		var p didOpenParams
		if err = decodeParams(params, &p); err == nil {
			err = s.document(p.TextDocument.URI, func(path string) error {
				if err := ws.DidOpen(path, p.TextDocument.Version, p.TextDocument.Text); err != nil {
					return err
				}
				s.observe("open", p.TextDocument.URI, path, nil)
				return nil
			})
		}
	case protocol.MethodTextDocumentDidChange:
		var p didChangeParams
		if err = decodeParams(params, &p); err == nil {
			utf8 := s.positionsUTF8()
			edit := func(text []byte) ([]byte, error) { return wire.ApplyChanges(text, p.ContentChanges, utf8) }
			err = s.document(p.TextDocument.URI, func(path string) error {
				if err := ws.DidChange(path, p.TextDocument.Version, edit); err != nil {
					return err
				}
				s.observe("change", p.TextDocument.URI, path, nil)
				return nil
			})
		}
	case protocol.MethodTextDocumentDidSave:
		var p textDocumentParams
		if err = decodeParams(params, &p); err == nil {
			err = s.document(p.TextDocument.URI, ws.DidSave)
		}
	case protocol.MethodTextDocumentDidClose:
		var p textDocumentParams
		if err = decodeParams(params, &p); err == nil {
			err = s.document(p.TextDocument.URI, func(path string) error {
				if err := ws.DidClose(path); err != nil {
					return err
				}
				s.observe("close", p.TextDocument.URI, path, nil)
				return nil
			})
		}
	case methodDidFocus:
		var p didFocusParams
		if err = decodeParams(params, &p); err == nil {
			var cursor *workspace.Cursor
			var line *uint32
			if p.Position != nil {
				cursor, line = &workspace.Cursor{Line: p.Position.Line}, &p.Position.Line
			}
			err = s.document(p.URI, func(path string) error {
				if err := ws.DidFocus(path, cursor); err != nil {
					return err
				}
				s.observe("focus", p.URI, path, line)
				return nil
			})
		}
	}
	return err
}

// document runs fn for the path of a document URI. Documents that are not
// files in the workspace folders (untitled buffers, files of other
// projects) are ignored: editors send them routinely.
func (s *Server) document(uri string, fn func(path string) error) error {
	if uri == "" {
		return errors.New("uri: missing")
	}
	if u, err := url.Parse(uri); err != nil || u.Scheme != "file" {
		s.log.Debug("ignoring a document that is not a file", "uri", uri)
		return nil
	}
	path, err := wire.PathFromURI(uri)
	if err != nil {
		return err
	}
	err = fn(path)
	if errors.Is(err, workspace.ErrOutside) {
		s.log.Debug("ignoring a document outside the workspace folders", "uri", uri)
		return nil
	}
	return err
}

// didInitialize starts the session's background work once the client is
// ready for server-initiated requests.
func (s *Server) didInitialize() {
	s.mu.Lock()
	first := !s.initialized
	s.initialized = true
	caps := s.caps
	s.mu.Unlock()
	if !first {
		return
	}
	if s.shared() {
		// The daemon indexes and watches the shared workspace; the
		// session reports when it is ready.
		s.spawn(func() { s.followShared("ctxls-index-shared") })
		return
	}
	if caps.Workspace.DidChangeWatchedFiles.DynamicRegistration {
		s.spawn(s.registerWatchers)
	}
	s.idx.schedule(s)
}

// registerWatchers asks the client to report every file change in the
// workspace folders.
func (s *Server) registerWatchers() {
	err := s.client.RegisterCapability(s.work, &protocol.RegistrationParams{Registrations: []protocol.Registration{{
		ID:     "ctxls-watched-files",
		Method: protocol.MethodWorkspaceDidChangeWatchedFiles,
		RegisterOptions: protocol.DidChangeWatchedFilesRegistrationOptions{
			Watchers: []protocol.FileSystemWatcher{{GlobPattern: "**/*"}},
		},
	}}})
	if err != nil && s.work.Err() == nil {
		s.log.Warn("the client refused to watch files; changes on disk are seen only when files are opened", "err", err)
	}
}

// filesChanged applies workspace/didChangeWatchedFiles.
func (s *Server) filesChanged(ws *workspace.Workspace, p *didChangeWatchedFilesParams) error {
	events := make([]workspace.FileEvent, 0, len(p.Changes))
	var bad error // the first URI that names no path
	for i, c := range p.Changes {
		switch c.Type {
		case fileCreated, fileChanged, fileDeleted:
		default:
			return fmt.Errorf("changes[%d].type: must be 1 (created), 2 (changed) or 3 (deleted), got %d", i, c.Type)
		}
		if u, err := url.Parse(c.URI); err != nil || u.Scheme != "file" {
			s.log.Debug("ignoring a change to something that is not a file", "uri", c.URI)
			continue
		}
		path, err := wire.PathFromURI(c.URI)
		if err != nil {
			bad = cmp.Or(bad, fmt.Errorf("changes[%d].uri: %w", i, err))
			continue
		}
		events = append(events, workspace.FileEvent{Path: path, Deleted: c.Type == fileDeleted})
	}
	s.log.Debug("files changed on disk", "events", len(events))
	return cmp.Or(ws.FilesChanged(events), bad)
}

// foldersChanged applies workspace/didChangeWorkspaceFolders; added folders
// are indexed in the background.
func (s *Server) foldersChanged(ws *workspace.Workspace, p *didChangeWorkspaceFoldersParams) {
	if s.shared() {
		s.warnUser("ctxls: the shared daemon keeps the folders this session started with; restart ctxls (or use --remote=off) to change them")
		return
	}
	for _, f := range p.Event.Removed {
		path, err := wire.PathFromURI(f.URI)
		if err != nil {
			s.log.Warn("cannot remove workspace folder", "uri", f.URI, "err", err)
			continue
		}
		if !ws.RemoveFolder(path) {
			s.log.Debug("removed folder was not a workspace folder", "uri", f.URI)
		}
	}
	added := 0
	for _, f := range p.Event.Added {
		path, err := wire.PathFromURI(f.URI)
		if err == nil {
			_, err = ws.AddFolder(path)
		}
		if err != nil {
			s.warnUser(fmt.Sprintf("ctxls: cannot use workspace folder %s: %v", f.URI, err))
			continue
		}
		added++
	}
	if added > 0 {
		s.idx.schedule(s)
	}
}

// configurationChanged applies workspace/didChangeConfiguration. The
// settings are settings.ctxls, or the settings object itself when it has
// no "ctxls" key.
func (s *Server) configurationChanged(ws *workspace.Workspace, settings json.RawMessage) {
	settings = bytes.TrimSpace(settings)
	if len(settings) == 0 || bytes.Equal(settings, []byte("null")) {
		return
	}
	if s.shared() {
		s.warnUser("ctxls: the shared daemon's workspace keeps the settings it started with (initializationOptions); restart ctxls (or use --remote=off) to change them")
		return
	}
	var outer map[string]json.RawMessage
	if json.Unmarshal(settings, &outer) == nil {
		if own, ok := outer["ctxls"]; ok {
			settings = own
		}
	}
	cfg := ws.Config()
	if err := cfg.MergeJSON(settings); err != nil {
		s.warnUser(fmt.Sprintf("ctxls: ignoring the new settings: %v", err))
		return
	}
	reindex, err := ws.SetConfig(cfg)
	if err != nil {
		s.warnUser(fmt.Sprintf("ctxls: ignoring the new settings: %v", err))
		return
	}
	s.log.Debug("configuration changed", "reindex", reindex)
	if reindex {
		s.idx.schedule(s)
	}
}

// contextSelect answers workspace/contextSelect: a bad request is
// InvalidParams naming the field, a cancelled one RequestCancelled.
func (s *Server) contextSelect(ctx context.Context, params json.RawMessage) (any, error) {
	ws := s.workspace()
	var req wire.Request
	if err := decodeParams(params, &req); err != nil {
		return nil, err
	}
	if s.beforeSelect != nil {
		s.beforeSelect(ctx, &req)
	}
	if ctx.Err() != nil {
		return nil, errCancelled()
	}
	res, err := wire.Select(ctx, ws, &req, wire.Options{UTF8: s.positionsUTF8(), Reembedded: true})
	if pe, ok := errors.AsType[*workspace.ParamError](err); ok {
		return nil, invalidParams("%s", pe.Error())
	}
	if err != nil && ctx.Err() != nil {
		return nil, errCancelled()
	}
	if err != nil {
		return nil, err
	}
	s.log.Debug("selected", "items", len(res.Items), "candidates", res.Stats.Candidates, "ms", res.Stats.ElapsedMs)
	return res, nil
}

func errCancelled() *jsonrpc2.Error {
	return jsonrpc2.NewError(protocol.CodeRequestCancelled, "request cancelled")
}

// memory answers workspace/contextRemember, workspace/contextForget and
// workspace/contextMemory.
func (s *Server) memory(method string, params json.RawMessage) (any, error) {
	ws := s.workspace()
	var res any
	var err error
	switch method {
	case methodRemember:
		var p wire.RememberParams
		if err = decodeParams(params, &p); err != nil {
			return nil, err
		}
		var req *workspace.NoteRequest
		if req, err = wire.NoteRequest(&p); err == nil {
			var n workspace.Note
			if n, err = ws.Remember(*req); err == nil {
				res = wire.FromNote(n)
			}
		}
	case methodForget:
		var p wire.ForgetParams
		if err = decodeParams(params, &p); err != nil {
			return nil, err
		}
		var ok bool
		if ok, err = ws.Forget(p.ID); err == nil {
			res = wire.ForgetResult{Forgotten: ok}
		}
	default:
		res = wire.FromNotes(ws.Memories())
	}
	if pe, ok := errors.AsType[*workspace.ParamError](err); ok {
		return nil, invalidParams("%s", pe.Error())
	}
	return res, err
}
