package lsp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"

	"github.com/ctxls/ctxls/lsp/wire"
	"github.com/ctxls/ctxls/workspace"
	"github.com/ctxls/ctxls/workspace/testutil"
)

func TestInitializeAdvertisesCapabilities(t *testing.T) {
	root := writeFixture(t, "shop.txtar")
	c := pipeClient(t, nil)
	res := c.initialize(root, caps{})
	got := res.Capabilities
	if got.PositionEncoding != "utf-16" {
		t.Errorf("positionEncoding = %q, want utf-16 for a client that offers nothing", got.PositionEncoding)
	}
	if !got.TextDocumentSync.OpenClose || got.TextDocumentSync.Change != 2 {
		t.Errorf("textDocumentSync = %+v, want openClose and incremental (2)", got.TextDocumentSync)
	}
	if !got.Workspace.WorkspaceFolders.Supported || !got.Workspace.WorkspaceFolders.ChangeNotifications {
		t.Errorf("workspaceFolders = %+v, want supported with change notifications", got.Workspace.WorkspaceFolders)
	}
	if got.Experimental["contextSelect"] != true || got.Experimental["contextItems"] != true || got.Experimental["contextMemory"] != true {
		t.Errorf("experimental = %v, want contextSelect, contextItems and contextMemory: true", got.Experimental)
	}
	if res.ServerInfo.Name != "ctxls" || res.ServerInfo.Version != "test" {
		t.Errorf("serverInfo = %+v", res.ServerInfo)
	}
	c.shutdownExit()
	if c.err != nil {
		t.Errorf("Serve after shutdown and exit = %v, want nil", c.err)
	}
}

func TestLifecycleErrors(t *testing.T) {
	root := writeFixture(t, "shop.txtar")
	c := pipeClient(t, nil)

	err := c.call("workspace/contextSelect", map[string]any{"query": "cart"}, nil)
	if rpcCode(err) != jsonrpc2.ServerNotInitialized {
		t.Errorf("select before initialize: %v, want ServerNotInitialized", err)
	}
	c.initialize(root, caps{})
	if err := c.call("initialize", map[string]any{"capabilities": map[string]any{}}, nil); rpcCode(err) != jsonrpc2.InvalidRequest {
		t.Errorf("second initialize: %v, want InvalidRequest", err)
	}
	if err := c.call("textDocument/hover", map[string]any{}, nil); rpcCode(err) != jsonrpc2.MethodNotFound {
		t.Errorf("unknown method: %v, want MethodNotFound", err)
	}
	c.mustCall("shutdown", nil, nil)
	if err := c.call("workspace/contextSelect", map[string]any{"query": "cart"}, nil); rpcCode(err) != jsonrpc2.InvalidRequest {
		t.Errorf("select after shutdown: %v, want InvalidRequest", err)
	}
	c.notify("exit", nil)
	c.wait()
	if c.err != nil {
		t.Errorf("Serve = %v, want nil", c.err)
	}
}

func TestExitWithoutShutdown(t *testing.T) {
	root := writeFixture(t, "shop.txtar")
	c := pipeClient(t, nil)
	c.initialize(root, caps{})
	c.notify("exit", nil)
	c.wait()
	if !errors.Is(c.err, ErrExitWithoutShutdown) {
		t.Errorf("Serve = %v, want ErrExitWithoutShutdown", c.err)
	}
}

func TestEndOfInputIsCleanExit(t *testing.T) {
	root := writeFixture(t, "shop.txtar")
	c := pipeClient(t, nil)
	c.start(root, caps{})
	c.conn.Close()
	c.wait()
	if c.err != nil {
		t.Errorf("Serve at end of input = %v, want nil", c.err)
	}
}

// TestProcessExitCodes drives the real binary on stdin/stdout.
func TestProcessExitCodes(t *testing.T) {
	root := writeFixture(t, "shop.txtar")
	for _, tc := range []struct {
		name     string
		args     []string
		end      func(c *client)
		wantCode int
	}{
		{"shutdown then exit", nil, func(c *client) {
			c.mustCall("shutdown", nil, nil)
			c.notify("exit", nil)
		}, 0},
		{"exit without shutdown", []string{"serve"}, func(c *client) { c.notify("exit", nil) }, 1},
		{"end of input", []string{"serve", "--stdio"}, func(c *client) { c.conn.Close() }, 0},
		{"--stdio alone", []string{"--stdio"}, func(c *client) {
			c.mustCall("shutdown", nil, nil)
			c.notify("exit", nil)
		}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stderr testutil.SyncBuffer
			c := processClient(t, &stderr, tc.args...)
			c.start(root, caps{})
			res := c.mustSelect(map[string]any{"query": "reserve stock for an order"})
			if res.find("inventory/stock.go", "Stock.ReserveStock") < 0 {
				t.Errorf("ReserveStock not selected:%s", res)
			}
			// The client keeps stdin open: the server must exit on the
			// exit notification itself.
			tc.end(c)
			c.wait()
			if c.code != tc.wantCode {
				t.Errorf("exit code %d, want %d; stderr:\n%s", c.code, tc.wantCode, stderr.String())
			}
			// Neovim shows every stderr line as an error: at the default
			// level a normal session writes at most the indexing summary.
			for _, line := range strings.Split(strings.TrimSpace(stderr.String()), "\n") {
				if line == "" || strings.Contains(line, "indexed ") {
					continue
				}
				if tc.wantCode == 1 && strings.Contains(line, "without a prior shutdown") {
					continue
				}
				t.Errorf("unexpected stderr line at the default log level: %s", line)
			}
		})
	}
}

func TestProcessBadFlag(t *testing.T) {
	var stderr bytes.Buffer
	cmd := exec.Command(ctxlsBin, "serve", "--log-level", "chatty")
	cmd.Stderr = &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 2 {
		t.Fatalf("ctxls serve --log-level chatty: %v, want exit status 2", err)
	}
	if !strings.Contains(stderr.String(), "--log-level") {
		t.Errorf("stderr does not name the flag: %s", stderr.String())
	}
}

func TestProgressAndFileWatcherRegistration(t *testing.T) {
	root := writeFixture(t, "shop.txtar")
	c := pipeClient(t, nil)
	c.start(root, caps{progress: true, watch: true})

	create := c.waitMessage("window/workDoneProgress/create", func(m message) bool {
		return m.Method == "window/workDoneProgress/create" && m.Call
	})
	var cp struct {
		Token any `json:"token"`
	}
	if err := json.Unmarshal(create.Params, &cp); err != nil {
		t.Fatal(err)
	}
	token, ok := cp.Token.(string)
	if !ok || token == "" {
		t.Fatalf("progress token %s is not a string", create.Params)
	}

	// begin, at least one report with a percentage, then end; all on the
	// created token.
	c.waitMessage("$/progress end", func(m message) bool {
		return m.Method == "$/progress" && strings.Contains(string(m.Params), `"end"`)
	})
	var kinds []string
	maxPct := 0
	for _, m := range c.messages("$/progress") {
		var p struct {
			Token any `json:"token"`
			Value struct {
				Kind       string `json:"kind"`
				Percentage int    `json:"percentage"`
			} `json:"value"`
		}
		if err := json.Unmarshal(m.Params, &p); err != nil {
			t.Fatal(err)
		}
		if p.Token != token {
			t.Errorf("$/progress token %v, want %q", p.Token, token)
		}
		if len(kinds) == 0 || kinds[len(kinds)-1] != p.Value.Kind {
			kinds = append(kinds, p.Value.Kind)
		}
		maxPct = max(maxPct, p.Value.Percentage)
	}
	if strings.Join(kinds, ",") != "begin,report,end" {
		t.Errorf("progress kinds %v, want begin, report..., end", kinds)
	}
	if maxPct != 100 {
		t.Errorf("the last report says %d%%, want 100%%", maxPct)
	}

	reg := c.waitMessage("client/registerCapability", func(m message) bool { return m.Method == "client/registerCapability" })
	var rp struct {
		Registrations []struct {
			Method          string `json:"method"`
			RegisterOptions struct {
				Watchers []struct {
					GlobPattern string `json:"globPattern"`
				} `json:"watchers"`
			} `json:"registerOptions"`
		} `json:"registrations"`
	}
	if err := json.Unmarshal(reg.Params, &rp); err != nil {
		t.Fatal(err)
	}
	if len(rp.Registrations) != 1 || rp.Registrations[0].Method != "workspace/didChangeWatchedFiles" ||
		len(rp.Registrations[0].RegisterOptions.Watchers) != 1 || rp.Registrations[0].RegisterOptions.Watchers[0].GlobPattern != "**/*" {
		t.Errorf("registration %s, want a **/* watcher for workspace/didChangeWatchedFiles", reg.Params)
	}

	log := c.waitMessage("indexing summary in window/logMessage", func(m message) bool {
		return m.Method == "window/logMessage" && strings.Contains(string(m.Params), "indexed ")
	})
	if !strings.Contains(string(log.Params), " files, ") || !strings.Contains(string(log.Params), " symbols in ") {
		t.Errorf("summary %s, want \"indexed N files, M symbols in X ms\"", log.Params)
	}
}

func TestNoProgressOrRegistrationWithoutCapabilities(t *testing.T) {
	root := writeFixture(t, "shop.txtar")
	c := pipeClient(t, nil)
	c.start(root, caps{})
	c.shutdownExit()
	for _, method := range []string{"window/workDoneProgress/create", "$/progress", "client/registerCapability"} {
		if n := len(c.messages(method)); n > 0 {
			t.Errorf("the server sent %d %s to a client that did not declare support", n, method)
		}
	}
}

// TestNotReadyWhileIndexing holds the first index half way and selects.
func TestNotReadyWhileIndexing(t *testing.T) {
	root := writeFixture(t, "shop.txtar")
	halfway := make(chan struct{})
	release := make(chan struct{})
	var once sync.Once
	c := pipeClient(t, func(s *Server) {
		s.indexHook = func(p workspace.Progress) {
			if p.Done > 0 && p.Done < p.Total {
				once.Do(func() {
					close(halfway)
					<-release
				})
			}
		}
	})
	c.initialize(root, caps{progress: true})
	res := c.mustSelect(map[string]any{"query": "cart total"})
	if res.Stats.Ready {
		t.Errorf("ready before initialized (indexing has not started)")
	}
	c.notify("initialized", map[string]any{})
	select {
	case <-halfway:
	case <-time.After(testTimeout):
		t.Fatal("indexing never reported progress")
	}
	res = c.mustSelect(map[string]any{"query": "cart total"})
	close(release)
	if res.Stats.Ready {
		t.Errorf("ready while the first index is half built")
	}
	c.waitReady()
	res = c.mustSelect(map[string]any{"query": "cart total"})
	if res.find("cart/cart.go", "Cart.Total") != 0 {
		t.Errorf("Cart.Total is not first once ready:%s", res)
	}
}

func TestBadInitializationOptions(t *testing.T) {
	root := writeFixture(t, "shop.txtar")
	for _, tc := range []struct {
		opts string
		want string
	}{
		{`{"maxFileBytes": "big"}`, "initializationOptions.maxFileBytes"},
		{`{"embedder": "magic"}`, "initializationOptions.embedder"},
		{`{"exclude": "node_modules"}`, "initializationOptions.exclude"},
		{`"hash"`, "initializationOptions: expected an object"},
	} {
		c := pipeClient(t, nil)
		err := c.call("initialize", map[string]any{
			"rootUri":               wire.URIFromPath(root),
			"capabilities":          map[string]any{},
			"initializationOptions": json.RawMessage(tc.opts),
		}, nil)
		if rpcCode(err) != jsonrpc2.InvalidParams || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("initializationOptions %s: %v, want InvalidParams naming %s", tc.opts, err, tc.want)
		}
		// The session can still be initialized properly.
		c.start(root, caps{})
	}
}

func TestMissingModelWarnsOnce(t *testing.T) {
	root := writeFixture(t, "shop.txtar")
	c := pipeClient(t, nil)
	opts := map[string]any{"cacheDir": "off", "embedder": "onnx", "modelPath": t.TempDir()}
	c.mustCall("initialize", map[string]any{"rootUri": wire.URIFromPath(root), "capabilities": map[string]any{}, "initializationOptions": opts}, nil)
	c.notify("initialized", map[string]any{})
	c.waitReady()
	// The same settings again must not warn again.
	c.notify("workspace/didChangeConfiguration", map[string]any{"settings": map[string]any{"ctxls": opts}})
	c.waitReady()
	res := c.mustSelect(map[string]any{"query": "reserve stock"})
	if res.find("inventory/stock.go", "Stock.ReserveStock") < 0 {
		t.Errorf("the fallback embedder does not serve selections:%s", res)
	}
	var warnings []string
	for _, m := range c.messages("window/showMessage") {
		var p struct {
			Type    int    `json:"type"`
			Message string `json:"message"`
		}
		json.Unmarshal(m.Params, &p)
		if p.Type == 2 {
			warnings = append(warnings, p.Message)
		}
	}
	if len(warnings) != 1 {
		t.Fatalf("showMessage warnings %q, want exactly one about the model", warnings)
	}
}

func TestPanicInHandlerIsRecovered(t *testing.T) {
	root := writeFixture(t, "shop.txtar")
	c := pipeClient(t, func(s *Server) {
		s.beforeSelect = func(ctx context.Context, req *wire.Request) {
			if req.Query == "boom" {
				panic("kaboom")
			}
		}
	})
	c.start(root, caps{})
	err := c.call("workspace/contextSelect", map[string]any{"query": "boom"}, nil)
	if rpcCode(err) != jsonrpc2.InternalError {
		t.Fatalf("select that panics: %v, want InternalError", err)
	}
	res := c.mustSelect(map[string]any{"query": "reserve stock"})
	if res.find("inventory/stock.go", "Stock.ReserveStock") < 0 {
		t.Errorf("the server does not serve after a panic:%s", res)
	}
	c.shutdownExit()
	if c.err != nil {
		t.Errorf("Serve = %v", c.err)
	}
}
