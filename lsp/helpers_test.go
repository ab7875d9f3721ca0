package lsp

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
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"

	"github.com/ctxls/ctxls/lsp/wire"
	"github.com/ctxls/ctxls/workspace/testutil"
	"github.com/ctxls/ctxls/workspace/txtartest"
)

// ctxlsBin is the ctxls binary built once by TestMain for the subprocess
// tests.
var ctxlsBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "ctxls-lsp-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	ctxlsBin = filepath.Join(dir, "ctxls")
	build := exec.Command("go", "build", "-o", ctxlsBin, "../cmd/ctxls")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building ctxls:", err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// testTimeout bounds every wait of a test on the server.
const testTimeout = 60 * time.Second

// writeFixture writes the txtar archive testdata/name into a fresh
// temporary directory and returns that directory.
func writeFixture(t testing.TB, name string) string {
	t.Helper()
	return txtartest.DirFromFile(t, filepath.Join("testdata", name))
}

func writeFile(t testing.TB, path, text string) {
	t.Helper()
	txtartest.WriteFile(t, path, []byte(text))
}

func readFile(t testing.TB, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// uri is the file URI of root/rel.
func uri(root, rel string) string {
	return wire.URIFromPath(filepath.Join(root, filepath.FromSlash(rel)))
}

// message is a message the server sent to the client.
type message struct {
	Method string
	Params json.RawMessage
	Call   bool // a request (it was answered with null)
}

// client drives a server as an editor would, over a jsonrpc2 connection.
// Requests from the server are answered with a null result; every message
// from the server is recorded.
type client struct {
	t    testing.TB
	conn jsonrpc2.Conn

	mu   sync.Mutex
	msgs []message
	news chan struct{} // signalled on every recorded message

	readyTimeout time.Duration // how long waitReady waits; 0 is testTimeout

	done chan struct{} // closed when the server ends
	err  error         // the server's outcome (pipe) once done is closed
	code int           // the process's exit code (subprocess) once done is closed
	pid  int           // the subprocess's id (processClient)
}

func newClient(t testing.TB, rwc io.ReadWriteCloser) *client {
	c := &client{t: t, news: make(chan struct{}, 1), done: make(chan struct{})}
	c.conn = jsonrpc2.NewConn(jsonrpc2.NewStream(rwc))
	c.conn.Go(context.Background(), func(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
		_, isCall := req.(*jsonrpc2.Call)
		c.mu.Lock()
		c.msgs = append(c.msgs, message{Method: req.Method(), Params: append(json.RawMessage(nil), req.Params()...), Call: isCall})
		c.mu.Unlock()
		select {
		case c.news <- struct{}{}:
		default:
		}
		return reply(ctx, nil, nil)
	})
	return c
}

// pipeClient starts a Server on one end of a net.Pipe and returns a client
// on the other. setup, when not nil, adjusts the server before it serves.
func pipeClient(t testing.TB, setup func(*Server)) *client {
	t.Helper()
	srvEnd, cliEnd := net.Pipe()
	srv := New(Options{Version: "test", Log: newTestLog(t), LogLevel: slog.LevelDebug})
	if setup != nil {
		setup(srv)
	}
	c := newClient(t, cliEnd)
	go func() {
		c.err = srv.Serve(context.Background(), srvEnd)
		close(c.done)
	}()
	t.Cleanup(func() {
		c.conn.Close()
		c.wait()
	})
	return c
}

// processClient starts the ctxls binary with args and returns a client on
// its stdin and stdout; stderr collects its standard error.
func processClient(t testing.TB, stderr io.Writer, args ...string) *client {
	t.Helper()
	cmd := exec.Command(ctxlsBin, args...)
	cmd.Stderr = stderr
	stdin, stdout := testutil.Start(t, cmd)
	c := newClient(t, procPipes{stdout, stdin})
	c.pid = cmd.Process.Pid
	go func() {
		err := cmd.Wait()
		c.code = cmd.ProcessState.ExitCode()
		c.err = err
		close(c.done)
	}()
	t.Cleanup(func() {
		select {
		case <-c.done:
		case <-time.After(testTimeout):
			cmd.Process.Kill()
			<-c.done
		}
	})
	return c
}

// procPipes joins a process's stdout (read) and stdin (write).
type procPipes struct {
	r io.ReadCloser
	w io.WriteCloser
}

func (p procPipes) Read(b []byte) (int, error)  { return p.r.Read(b) }
func (p procPipes) Write(b []byte) (int, error) { return p.w.Write(b) }
func (p procPipes) Close() error                { return errors.Join(p.w.Close(), p.r.Close()) }

// testLog collects the server's log and shows it when the test fails. It
// outlives the test: a late line after the end is kept, not reported.
type testLog struct {
	testutil.SyncBuffer
}

// newTestLog returns a log that is printed if t fails.
func newTestLog(t testing.TB) *testLog {
	l := &testLog{}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("server log:\n%s", l)
		}
	})
	return l
}

// wait waits for the server to end.
func (c *client) wait() {
	c.t.Helper()
	select {
	case <-c.done:
	case <-time.After(testTimeout):
		c.t.Fatal("the server did not end")
	}
}

// call sends a request and decodes its result into result (when not nil).
func (c *client) call(method string, params, result any) error {
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	var raw json.RawMessage
	if _, err := c.conn.Call(ctx, method, params, &raw); err != nil {
		return err
	}
	if result != nil && len(raw) > 0 {
		if err := json.Unmarshal(raw, result); err != nil {
			return fmt.Errorf("decoding the result of %s: %v", method, err)
		}
	}
	return nil
}

// mustCall is call failing the test on error.
func (c *client) mustCall(method string, params, result any) {
	c.t.Helper()
	if err := c.call(method, params, result); err != nil {
		c.t.Fatalf("%s: %v", method, err)
	}
}

func (c *client) notify(method string, params any) {
	c.t.Helper()
	if err := c.conn.Notify(context.Background(), method, params); err != nil {
		c.t.Fatalf("%s: %v", method, err)
	}
}

// rpcCode is the JSON-RPC error code of err, or 0.
func rpcCode(err error) jsonrpc2.Code {
	var e *jsonrpc2.Error
	if errors.As(err, &e) {
		return e.Code
	}
	return 0
}

// messages returns the messages the server sent with method.
func (c *client) messages(method string) []message {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []message
	for _, m := range c.msgs {
		if m.Method == method {
			out = append(out, m)
		}
	}
	return out
}

// waitMessage waits for a message from the server for which match is true.
func (c *client) waitMessage(what string, match func(message) bool) message {
	c.t.Helper()
	deadline := time.After(testTimeout)
	for {
		c.mu.Lock()
		for _, m := range c.msgs {
			if match(m) {
				c.mu.Unlock()
				return m
			}
		}
		c.mu.Unlock()
		select {
		case <-c.news:
		case <-deadline:
			c.t.Fatalf("no %s from the server", what)
		}
	}
}

// caps are client capabilities for initialize.
type caps struct {
	progress  bool // window.workDoneProgress
	watch     bool // workspace.didChangeWatchedFiles.dynamicRegistration
	encodings []string
	cacheDir  string // initializationOptions.cacheDir; "" is "off"
}

func (k caps) json() map[string]any {
	return map[string]any{
		"window":    map[string]any{"workDoneProgress": k.progress},
		"workspace": map[string]any{"didChangeWatchedFiles": map[string]any{"dynamicRegistration": k.watch}},
		"general":   map[string]any{"positionEncodings": k.encodings},
	}
}

// initResult is the part of InitializeResult the tests read.
type initResult struct {
	Capabilities struct {
		PositionEncoding string `json:"positionEncoding"`
		TextDocumentSync struct {
			OpenClose bool `json:"openClose"`
			Change    int  `json:"change"`
		} `json:"textDocumentSync"`
		Workspace struct {
			WorkspaceFolders struct {
				Supported           bool `json:"supported"`
				ChangeNotifications bool `json:"changeNotifications"`
			} `json:"workspaceFolders"`
		} `json:"workspace"`
		Experimental map[string]any `json:"experimental"`
	} `json:"capabilities"`
	ServerInfo struct {
		Name    string `json:"name"`
		Version string `json:"version"`
	} `json:"serverInfo"`
}

// initialize runs initialize for one folder, with persistence off unless
// k names a cache dir.
func (c *client) initialize(root string, k caps) initResult {
	c.t.Helper()
	var res initResult
	cache := k.cacheDir
	if cache == "" {
		cache = "off"
	}
	c.mustCall("initialize", map[string]any{
		"processId":             nil,
		"rootUri":               wire.URIFromPath(root),
		"capabilities":          k.json(),
		"initializationOptions": map[string]any{"cacheDir": cache},
	}, &res)
	return res
}

// start initializes the server on root, sends initialized and waits for
// the first index.
func (c *client) start(root string, k caps) initResult {
	c.t.Helper()
	res := c.initialize(root, k)
	c.notify("initialized", map[string]any{})
	c.waitReady()
	return res
}

// result is the contextSelect result as the tests read it.
type result struct {
	Items         []wire.Item `json:"items"`
	UsedChars     int         `json:"usedChars"`
	LowConfidence bool        `json:"lowConfidence"`
	Message       string      `json:"message"`
	Stats         struct {
		wire.Stats
		Reembedded *int `json:"reembedded"`
	} `json:"stats"`
}

// find returns the position of the item for symbol in path, or -1.
func (r *result) find(path, symbol string) int {
	for i, it := range r.Items {
		if it.Path == path && it.Symbol == symbol {
			return i
		}
	}
	return -1
}

func (r *result) String() string {
	var b strings.Builder
	for i, it := range r.Items {
		fmt.Fprintf(&b, "\n  %d. %s %s (%s, %.4f)", i+1, it.Path, it.Symbol, it.Reason, it.Score)
	}
	return b.String()
}

// selectq runs contextSelect.
func (c *client) selectq(params map[string]any) (*result, error) {
	var res result
	if err := c.call("workspace/contextSelect", params, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

func (c *client) mustSelect(params map[string]any) *result {
	c.t.Helper()
	res, err := c.selectq(params)
	if err != nil {
		c.t.Fatalf("contextSelect %v: %v", params, err)
	}
	return res
}

// waitReady polls contextSelect until the first index is built.
func (c *client) waitReady() {
	c.t.Helper()
	wait := c.readyTimeout
	if wait == 0 {
		wait = testTimeout
	}
	deadline := time.Now().Add(wait)
	for {
		res := c.mustSelect(map[string]any{"query": "ready"})
		if res.Stats.Ready {
			return
		}
		if time.Now().After(deadline) {
			c.t.Fatal("the index never became ready")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// shutdownExit ends the session cleanly.
func (c *client) shutdownExit() {
	c.t.Helper()
	c.mustCall("shutdown", nil, nil)
	c.notify("exit", nil)
	c.wait()
}

// rawClient speaks JSON-RPC byte by byte, for what a well-behaved client
// library cannot send: chosen ids (strings, floats), malformed messages.
// It answers the server's requests with null and records responses by id.
type rawClient struct {
	t  testing.TB
	w  io.Writer
	wm sync.Mutex

	mu        sync.Mutex
	responses map[string][]rawMessage // id key → responses, in arrival order
	notes     []rawMessage
	changed   *sync.Cond
	readErr   error
}

// rawMessage is any message from the server.
type rawMessage struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func newRawClient(t testing.TB, rwc io.ReadWriter) *rawClient {
	c := &rawClient{t: t, w: rwc, responses: map[string][]rawMessage{}}
	c.changed = sync.NewCond(&c.mu)
	go c.readLoop(bufio.NewReader(rwc))
	return c
}

// rawPipe starts a Server on a net.Pipe and returns a raw client for it.
func rawPipe(t testing.TB, setup func(*Server)) (*rawClient, <-chan error) {
	t.Helper()
	srvEnd, cliEnd := net.Pipe()
	srv := New(Options{Version: "test", Log: newTestLog(t), LogLevel: slog.LevelDebug})
	if setup != nil {
		setup(srv)
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(context.Background(), srvEnd) }()
	t.Cleanup(func() {
		cliEnd.Close()
		select {
		case <-done:
		case <-time.After(testTimeout):
			t.Error("the server did not end")
		}
	})
	return newRawClient(t, cliEnd), done
}

func (c *rawClient) readLoop(r *bufio.Reader) {
	for {
		body, err := readFrame(r)
		if err != nil {
			c.mu.Lock()
			c.readErr = err
			c.changed.Broadcast()
			c.mu.Unlock()
			return
		}
		var m rawMessage
		if err := json.Unmarshal(body, &m); err != nil {
			c.mu.Lock()
			c.readErr = fmt.Errorf("the server sent invalid JSON %q: %v", body, err)
			c.changed.Broadcast()
			c.mu.Unlock()
			return
		}
		switch {
		case m.Method != "" && m.ID != nil:
			c.sendBytes([]byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":null}`, m.ID)))
		case m.Method != "":
			c.mu.Lock()
			c.notes = append(c.notes, m)
			c.mu.Unlock()
		default:
			key := "null"
			if k, ok := idKey(m.ID); ok {
				key = k
			}
			c.mu.Lock()
			c.responses[key] = append(c.responses[key], m)
			c.changed.Broadcast()
			c.mu.Unlock()
		}
	}
}

// readFrame reads one Content-Length framed body.
func readFrame(r *bufio.Reader) ([]byte, error) {
	length := -1
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return nil, err
		}
		line = strings.TrimSpace(line)
		if line == "" {
			break
		}
		if v, ok := strings.CutPrefix(line, "Content-Length:"); ok {
			if length, err = strconv.Atoi(strings.TrimSpace(v)); err != nil {
				return nil, err
			}
		}
	}
	if length < 0 {
		return nil, errors.New("no Content-Length")
	}
	body := make([]byte, length)
	_, err := io.ReadFull(r, body)
	return body, err
}

// sendBytes writes one framed body.
func (c *rawClient) sendBytes(body []byte) {
	c.wm.Lock()
	defer c.wm.Unlock()
	fmt.Fprintf(c.w, "Content-Length: %d\r\n\r\n%s", len(body), body)
}

// send writes a request (id not nil) or a notification with raw params.
func (c *rawClient) send(id any, method string, params string) {
	msg := map[string]any{"jsonrpc": "2.0", "method": method}
	if id != nil {
		msg["id"] = id
	}
	if params != "" {
		msg["params"] = json.RawMessage(params)
	}
	b, err := json.Marshal(msg)
	if err != nil {
		c.t.Fatalf("marshaling %s: %v", method, err)
	}
	c.sendBytes(b)
}

// response waits for the response to the request with id (its JSON text).
func (c *rawClient) response(id string) rawMessage {
	c.t.Helper()
	key, ok := idKey([]byte(id))
	if !ok {
		key = "null"
	}
	timer := time.AfterFunc(testTimeout, func() {
		c.mu.Lock()
		c.readErr = fmt.Errorf("timed out waiting for the response to %s", id)
		c.changed.Broadcast()
		c.mu.Unlock()
	})
	defer timer.Stop()
	c.mu.Lock()
	defer c.mu.Unlock()
	for len(c.responses[key]) == 0 {
		if c.readErr != nil {
			c.t.Fatalf("waiting for the response to %s: %v", id, c.readErr)
		}
		c.changed.Wait()
	}
	return c.responses[key][0]
}

// responseCount is how many responses arrived for id so far.
func (c *rawClient) responseCount(id string) int {
	key, _ := idKey([]byte(id))
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.responses[key])
}

// initialize initializes the server on root with persistence off, sends
// initialized and waits until the first index is ready.
func (c *rawClient) start(root string) {
	c.t.Helper()
	c.send(0, "initialize", fmt.Sprintf(`{"rootUri":%q,"capabilities":{},"initializationOptions":{"cacheDir":"off"}}`, wire.URIFromPath(root)))
	if r := c.response("0"); r.Error != nil {
		c.t.Fatalf("initialize: %s", r.Error.Message)
	}
	c.send(nil, "initialized", "{}")
	for i := 0; ; i++ {
		id := fmt.Sprintf(`"ready-%d"`, i)
		c.send(json.RawMessage(id), "workspace/contextSelect", `{"query":"ready"}`)
		r := c.response(id)
		var res result
		if r.Error != nil || json.Unmarshal(r.Result, &res) != nil {
			c.t.Fatalf("contextSelect: %+v", r)
		}
		if res.Stats.Ready {
			return
		}
		if i > 5000 {
			c.t.Fatal("the index never became ready")
		}
		time.Sleep(10 * time.Millisecond)
	}
}
