package daemon_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ctxls/ctxls/lsp/daemon"
	"github.com/ctxls/ctxls/workspace/testutil"
)

// env is a test's private home: a short directory (socket paths are
// limited to about 100 bytes) with the cache and runtime directories.
type env struct {
	dir    string
	socket string
	vars   []string
}

func newEnv(t *testing.T) *env {
	t.Helper()
	dir, err := os.MkdirTemp("", "c24")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	run := filepath.Join(dir, "run")
	if err := os.Mkdir(run, 0o700); err != nil {
		t.Fatal(err)
	}
	socket := filepath.Join(run, "ctxls", daemon.SocketName(daemon.BuildOf(testutil.Binary(t))))
	return &env{dir: dir, socket: socket, vars: append(os.Environ(),
		"XDG_CACHE_HOME="+filepath.Join(dir, "cache"), "XDG_RUNTIME_DIR="+run, "CTXLS_REMOTE=")}
}

// command is the ctxls binary with args in the test's environment.
func (e *env) command(t *testing.T, args ...string) *exec.Cmd {
	cmd := exec.Command(testutil.Binary(t), args...)
	cmd.Env = e.vars
	return cmd
}

// start starts the ctxls binary with args, its standard error to stderr,
// and returns its stdin and stdout.
func (e *env) start(t *testing.T, stderr io.Writer, args ...string) (*exec.Cmd, io.WriteCloser, io.Reader) {
	t.Helper()
	cmd := e.command(t, args...)
	cmd.Stderr = stderr
	stdin, out := testutil.Start(t, cmd)
	return cmd, stdin, out
}

// startDaemon starts `ctxls daemon` on the test's socket and waits until
// it answers; it is stopped when the test ends.
func (e *env) startDaemon(t *testing.T, idle string) (exited <-chan struct{}, log *testutil.SyncBuffer) {
	t.Helper()
	cmd := e.command(t, "daemon", "--socket", e.socket, "--idle", idle, "--log-level", "debug")
	log = &testutil.SyncBuffer{}
	cmd.Stderr = log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
		}
		// A daemon built with -race (CTXLS_BIN) reports its races here.
		if strings.Contains(log.String(), "DATA RACE") {
			t.Errorf("the daemon raced:\n%s", log.String())
		}
	})
	e.waitServing(t)
	return done, log
}

// waitServing waits until the daemon answers on the socket.
func (e *env) waitServing(t *testing.T) daemon.Status {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		c, err := daemon.Connect(e.socket)
		if err == nil {
			st, err := c.Status()
			c.Close()
			if err == nil {
				return st
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the daemon does not answer on %s: %v", e.socket, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// fixture is a small Go repository.
func fixture(t *testing.T, e *env) string {
	t.Helper()
	root := filepath.Join(e.dir, "repo")
	files := map[string]string{
		"go.mod": "module example.com/shop\n\ngo 1.22\n",
		"cart.go": `package shop

// Total sums the prices of the items in the cart.
func Total(prices []int) int {
	sum := 0
	for _, p := range prices {
		sum += p
	}
	return sum
}
`,
		"users.go": `package shop

// User is a customer account.
type User struct {
	Name  string
	Email string
}

// Greeting is the line the shop shows a signed-in user.
func Greeting(u User) string { return "Hello, " + u.Name }
`,
		"stock.go": `package shop

// Reserve takes n units of an article out of the stock.
func Reserve(stock map[string]int, article string, n int) bool {
	if stock[article] < n {
		return false
	}
	stock[article] -= n
	return true
}
`,
	}
	for name, text := range files {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(root, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// lspClient is `ctxls serve` as a subprocess, spoken to in LSP framing.
type lspClient struct {
	t      *testing.T
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	mu     sync.Mutex
	cond   *sync.Cond
	resp   map[int]json.RawMessage
	errs   map[int]string
	next   int
	done   chan struct{}
	stderr *testutil.SyncBuffer
}

func (e *env) startLSP(t *testing.T, args ...string) *lspClient {
	t.Helper()
	c := &lspClient{t: t, resp: map[int]json.RawMessage{}, errs: map[int]string{}, done: make(chan struct{}), stderr: &testutil.SyncBuffer{}}
	c.cond = sync.NewCond(&c.mu)
	var out io.Reader
	c.cmd, c.stdin, out = e.start(t, c.stderr, append([]string{"serve"}, args...)...)
	go func() {
		r := bufio.NewReader(out)
		for {
			length := -1
			for {
				line, err := r.ReadString('\n')
				if err != nil {
					c.mu.Lock()
					close(c.done)
					c.cond.Broadcast()
					c.mu.Unlock()
					return
				}
				line = strings.TrimSpace(line)
				if line == "" {
					break
				}
				if v, ok := strings.CutPrefix(line, "Content-Length:"); ok {
					length, _ = strconv.Atoi(strings.TrimSpace(v))
				}
			}
			body := make([]byte, length)
			if _, err := io.ReadFull(r, body); err != nil {
				continue
			}
			var m struct {
				ID     *int                      `json:"id"`
				Method string                    `json:"method"`
				Result json.RawMessage           `json:"result"`
				Error  *struct{ Message string } `json:"error"`
			}
			if json.Unmarshal(body, &m) != nil || m.ID == nil || m.Method != "" {
				continue
			}
			c.mu.Lock()
			if m.Error != nil {
				c.errs[*m.ID] = m.Error.Message
			}
			c.resp[*m.ID] = m.Result
			c.cond.Broadcast()
			c.mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		c.stdin.Close()
		c.cmd.Process.Kill()
		c.cmd.Wait()
	})
	return c
}

func (c *lspClient) send(method string, id int, params any) {
	c.t.Helper()
	m := map[string]any{"jsonrpc": "2.0", "method": method, "params": params}
	if id > 0 {
		m["id"] = id
	}
	body, _ := json.Marshal(m)
	if _, err := fmt.Fprintf(c.stdin, "Content-Length: %d\r\n\r\n%s", len(body), body); err != nil {
		c.t.Fatalf("writing to ctxls serve: %v", err)
	}
}

func (c *lspClient) call(method string, params any) json.RawMessage {
	c.t.Helper()
	c.next++
	id := c.next
	c.send(method, id, params)
	c.mu.Lock()
	defer c.mu.Unlock()
	timeout := time.AfterFunc(60*time.Second, func() { c.mu.Lock(); c.cond.Broadcast(); c.mu.Unlock() })
	defer timeout.Stop()
	start := time.Now()
	for {
		if r, ok := c.resp[id]; ok {
			if msg := c.errs[id]; msg != "" {
				c.t.Fatalf("%s: %s", method, msg)
			}
			return r
		}
		select {
		case <-c.done:
			c.t.Fatalf("ctxls serve ended before answering %s; stderr:\n%s", method, c.stderr.String())
		default:
		}
		if time.Since(start) > 60*time.Second {
			c.t.Fatalf("no answer to %s", method)
		}
		c.cond.Wait()
	}
}

// mcpClient is `ctxls mcp` as a subprocess, spoken to line by line.
type mcpClient struct {
	t      *testing.T
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	lines  chan []byte
	stderr *testutil.SyncBuffer
	next   int
}

func (e *env) startMCP(t *testing.T, args ...string) *mcpClient {
	t.Helper()
	c := &mcpClient{t: t, lines: make(chan []byte, 64), stderr: &testutil.SyncBuffer{}}
	var out io.Reader
	c.cmd, c.stdin, out = e.start(t, c.stderr, append([]string{"mcp"}, args...)...)
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			c.lines <- append([]byte(nil), sc.Bytes()...)
		}
		close(c.lines)
	}()
	t.Cleanup(func() {
		c.stdin.Close()
		c.cmd.Process.Kill()
		c.cmd.Wait()
	})
	c.call("initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "test", "version": "1"}})
	c.notify("notifications/initialized", map[string]any{})
	return c
}

func (c *mcpClient) notify(method string, params any) {
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": method, "params": params})
	c.stdin.Write(append(body, '\n'))
}

func (c *mcpClient) call(method string, params any) json.RawMessage {
	c.t.Helper()
	c.next++
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": c.next, "method": method, "params": params})
	if _, err := c.stdin.Write(append(body, '\n')); err != nil {
		c.t.Fatalf("writing to ctxls mcp: %v", err)
	}
	timeout := time.After(60 * time.Second)
	for {
		select {
		case line, ok := <-c.lines:
			if !ok {
				c.t.Fatalf("ctxls mcp ended before answering %s; stderr:\n%s", method, c.stderr.String())
			}
			var m struct {
				ID     *int                      `json:"id"`
				Result json.RawMessage           `json:"result"`
				Error  *struct{ Message string } `json:"error"`
			}
			if json.Unmarshal(line, &m) != nil || m.ID == nil || *m.ID != c.next {
				continue
			}
			if m.Error != nil {
				c.t.Fatalf("%s: %s", method, m.Error.Message)
			}
			return m.Result
		case <-timeout:
			c.t.Fatalf("no answer to %s; stderr:\n%s", method, c.stderr.String())
		}
	}
}

// toolResult is what select_context answers.
type toolResult struct {
	Content []struct {
		Text string `json:"text"`
	} `json:"content"`
	Structured struct {
		Items []struct {
			Path    string                     `json:"path"`
			Symbol  string                     `json:"symbol"`
			Reason  string                     `json:"reason"`
			Signals map[string]json.RawMessage `json:"signals"`
		} `json:"items"`
		Stats struct {
			EditorState *struct {
				Session   int    `json:"session"`
				ActiveURI string `json:"activeUri"`
			} `json:"editorState"`
		} `json:"stats"`
	} `json:"structuredContent"`
	IsError bool `json:"isError"`
}

func (c *mcpClient) selectContext(args map[string]any) toolResult {
	c.t.Helper()
	raw := c.call("tools/call", map[string]any{"name": "select_context", "arguments": args})
	var r toolResult
	if err := json.Unmarshal(raw, &r); err != nil {
		c.t.Fatalf("select_context answer: %v\n%s", err, raw)
	}
	if r.IsError {
		c.t.Fatalf("select_context failed: %s", raw)
	}
	return r
}

func fileURI(p string) string { return "file://" + filepath.ToSlash(p) }

// unsaved is cart.go as the editor holds it: a function that is on no disk.
const unsaved = `package shop

// Total sums the prices of the items in the cart.
func Total(prices []int) int {
	sum := 0
	for _, p := range prices {
		sum += p
	}
	return sum
}

// ApplyVoucher takes a voucher's percentage off a total.
func ApplyVoucher(total int, percent int) int {
	return total - total*percent/100
}
`

// openEditor starts `ctxls serve --remote=SOCKET`, opens cart.go, edits
// it without saving (a new function, ApplyVoucher) and puts the cursor
// in that function; it returns once the daemon applied all of it.
func openEditor(t *testing.T, e *env, root string) *lspClient {
	t.Helper()
	ed := e.startLSP(t, "--remote="+e.socket)
	ed.call("initialize", map[string]any{"processId": os.Getpid(), "rootUri": fileURI(root), "capabilities": map[string]any{}})
	ed.send("initialized", 0, map[string]any{})
	cart := filepath.Join(root, "cart.go")
	disk, _ := os.ReadFile(cart)
	ed.send("textDocument/didOpen", 0, map[string]any{"textDocument": map[string]any{"uri": fileURI(cart), "languageId": "go", "version": 1, "text": string(disk)}})
	ed.send("textDocument/didChange", 0, map[string]any{"textDocument": map[string]any{"uri": fileURI(cart), "version": 2},
		"contentChanges": []any{map[string]any{"text": unsaved}}})
	ed.send("ctxls/didFocus", 0, map[string]any{"uri": fileURI(cart), "position": map[string]any{"line": 13, "character": 2}})
	// A request after the notifications: answered once they are applied.
	ed.call("workspace/contextSelect", map[string]any{"query": "voucher"})
	return ed
}

// TestAgentSeesEditorState is the end to end case: an editor's
// LSP session and an agent's MCP session share one daemon; the agent's
// select_context, naming no file, gets the function the editor added
// without saving, under the editor's cursor, with the recent-edit
// evidence, and says whose state it used.
func TestAgentSeesEditorState(t *testing.T) {
	e := newEnv(t)
	root := fixture(t, e)
	e.startDaemon(t, "1m")
	ed := openEditor(t, e, root)
	if s := ed.stderr.String(); strings.Contains(s, "warning") {
		t.Fatalf("the editor's ctxls did not use the daemon:\n%s", s)
	}

	agent := e.startMCP(t, "--remote="+e.socket, "--root", root)
	r := agent.selectContext(map[string]any{"query": "why does this fail"})
	if len(r.Structured.Items) == 0 {
		t.Fatalf("no items: %+v", r)
	}
	top := r.Structured.Items[0]
	if top.Symbol != "ApplyVoucher" || top.Path != "cart.go" {
		t.Fatalf("first item is %s in %s, want the unsaved ApplyVoucher in cart.go; items: %+v", top.Symbol, top.Path, r.Structured.Items)
	}
	if _, ok := top.Signals["edit"]; !ok {
		t.Errorf("ApplyVoucher has no recent-edit signal: %v", top.Signals)
	}
	if top.Reason != "active" {
		t.Errorf("ApplyVoucher's reason is %q, want active (the editor's cursor is in it)", top.Reason)
	}
	es := r.Structured.Stats.EditorState
	if es == nil || es.ActiveURI != fileURI(filepath.Join(root, "cart.go")) || es.Session == 0 {
		t.Fatalf("stats.editorState = %+v, want the editor session with cart.go active", es)
	}
	last := r.Content[len(r.Content)-1].Text
	if !strings.Contains(last, fmt.Sprintf("editor session %d", es.Session)) {
		t.Errorf("the result's text does not say whose state it used: %q", last)
	}

	// With its own active file, the agent's request is its own.
	r = agent.selectContext(map[string]any{"query": "reserve stock", "activeFile": "stock.go"})
	if r.Structured.Stats.EditorState != nil {
		t.Errorf("a request naming its active file used the editor's state: %+v", r.Structured.Stats.EditorState)
	}

	// The editor crashes: its unsaved function leaves the index with it.
	ed.cmd.Process.Kill()
	ed.cmd.Wait()
	deadline := time.Now().Add(20 * time.Second)
	for {
		r = agent.selectContext(map[string]any{"query": "ApplyVoucher voucher percentage"})
		found := false
		for _, it := range r.Structured.Items {
			found = found || it.Symbol == "ApplyVoucher"
		}
		if !found && r.Structured.Stats.EditorState == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after the editor crashed, its unsaved ApplyVoucher or its state is still served: %+v", r.Structured)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestSessionWithNoFolder: an editor that opens no folder at initialize
// and adds one later gets a workspace of its own in the daemon, indexed
// when the folder comes, instead of an error.
func TestSessionWithNoFolder(t *testing.T) {
	e := newEnv(t)
	root := fixture(t, e)
	e.startDaemon(t, "1m")
	ed := e.startLSP(t, "--remote="+e.socket)
	ed.call("initialize", map[string]any{"processId": nil, "capabilities": map[string]any{}})
	ed.send("initialized", 0, map[string]any{})
	ed.send("workspace/didChangeWorkspaceFolders", 0, map[string]any{"event": map[string]any{
		"added": []any{map[string]any{"uri": fileURI(root), "name": "shop"}}, "removed": []any{}}})
	deadline := time.Now().Add(20 * time.Second)
	for {
		var res struct {
			Items []struct{ Symbol string }
		}
		json.Unmarshal(ed.call("workspace/contextSelect", map[string]any{"query": "reserve stock"}), &res)
		if len(res.Items) > 0 && res.Items[0].Symbol == "Reserve" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the added folder never answered: %+v; stderr:\n%s", res, ed.stderr.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	if s := ed.stderr.String(); strings.Contains(s, "warning") {
		t.Errorf("the session warned:\n%s", s)
	}
}

// TestSocketIsPrivate: the socket is 0600 in a 0700 directory, and a
// client refuses a directory open to others, working in its own process
// after one warning.
func TestSocketIsPrivate(t *testing.T) {
	e := newEnv(t)
	root := fixture(t, e)
	e.startDaemon(t, "1m")
	for path, want := range map[string]os.FileMode{e.socket: 0o600, filepath.Dir(e.socket): 0o700} {
		fi, err := os.Lstat(path)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != want {
			t.Errorf("%s has mode %04o, want %04o", path, fi.Mode().Perm(), want)
		}
	}
	if err := os.Chmod(filepath.Dir(e.socket), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := e.command(t, "select", "--remote="+e.socket, "--root", root, "reserve stock")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("select: %v\n%s", err, stderr.String())
	}
	if n := strings.Count(stderr.String(), "warning"); n != 1 || !strings.Contains(stderr.String(), "open to other users; refusing it") {
		t.Errorf("stderr should be one warning that the directory is open to others:\n%s", stderr.String())
	}
	if !strings.Contains(string(out), "Reserve") {
		t.Errorf("the in-process fallback did not select Reserve:\n%s", out)
	}
}

// TestAnotherBuildIsRefused: a daemon of another build of ctxls (an
// upgrade left it running) never answers this build's clients: named
// by its path it refuses them, and they work in their own process;
// --remote=auto finds this build's own socket and starts a daemon there.
func TestAnotherBuildIsRefused(t *testing.T) {
	e := newEnv(t)
	root := fixture(t, e)
	other := filepath.Join(e.dir, "ctxls-other")
	build := exec.Command("go", "build", "-ldflags=-X main.version=0.0.0-other", "-o", other, "github.com/ctxls/ctxls/cmd/ctxls")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building another ctxls: %v\n%s", err, out)
	}
	if daemon.BuildOf(other) == daemon.BuildOf(testutil.Binary(t)) {
		t.Fatal("the other binary has this one's build")
	}
	oldSocket := filepath.Join(filepath.Dir(e.socket), daemon.SocketName(daemon.BuildOf(other)))
	if oldSocket == e.socket {
		t.Fatal("two builds share one socket name")
	}
	old := exec.Command(other, "daemon", "--socket", oldSocket, "--idle", "1m")
	old.Env = e.vars
	if err := old.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { old.Process.Signal(syscall.SIGTERM); old.Wait() })
	deadline := time.Now().Add(20 * time.Second)
	for _, err := os.Stat(oldSocket); err != nil; _, err = os.Stat(oldSocket) {
		if time.Now().After(deadline) {
			t.Fatalf("the other daemon never listened: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}

	cmd := e.command(t, "select", "--remote="+oldSocket, "--root", root, "reserve stock")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("select: %v\n%s", err, stderr.String())
	}
	if !strings.Contains(stderr.String(), "another build of ctxls") || !strings.Contains(stderr.String(), "working in this process") {
		t.Errorf("stderr should say the daemon is another build and the select ran here:\n%s", stderr.String())
	}
	if !strings.Contains(string(out), "Reserve") {
		t.Errorf("the in-process answer has no Reserve:\n%s", out)
	}

	cmd = e.command(t, "select", "--remote=auto", "--root", root, "reserve stock")
	stderr.Reset()
	cmd.Stderr = &stderr
	if out, err = cmd.Output(); err != nil || stderr.Len() > 0 || !strings.Contains(string(out), "Reserve") {
		t.Fatalf("select --remote=auto: %v\nstderr: %s\n%s", err, stderr.String(), out)
	}
	st := e.waitServing(t)
	t.Cleanup(func() { syscall.Kill(st.PID, syscall.SIGTERM) })
	if st.PID == old.Process.Pid || st.Build != daemon.BuildOf(testutil.Binary(t)) {
		t.Errorf("--remote=auto reached pid %d of build %s; want a daemon of this build (%s), not the other's (pid %d)",
			st.PID, st.Build, daemon.BuildOf(testutil.Binary(t)), old.Process.Pid)
	}
}

// TestConcurrentAutoStartsOneDaemon: two clients with --remote=auto
// starting at once leave one daemon, which both used.
func TestConcurrentAutoStartsOneDaemon(t *testing.T) {
	e := newEnv(t)
	root := fixture(t, e)
	var wg sync.WaitGroup
	outs := make([]string, 2)
	errs := make([]string, 2)
	for i := range 2 {
		wg.Go(func() {
			cmd := e.command(t, "select", "--remote=auto", "--root", root, "reserve stock")
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			outs[i], errs[i] = string(out), stderr.String()
			if err != nil {
				errs[i] += err.Error()
			}
		})
	}
	wg.Wait()
	st := e.waitServing(t)
	t.Cleanup(func() {
		syscall.Kill(st.PID, syscall.SIGTERM)
		for range 200 {
			if syscall.Kill(st.PID, 0) != nil {
				return
			}
			time.Sleep(25 * time.Millisecond)
		}
	})
	for i := range 2 {
		if errs[i] != "" || !strings.Contains(outs[i], "Reserve") {
			t.Errorf("client %d: stderr %q, output:\n%s", i, errs[i], outs[i])
		}
	}
	log, _ := os.ReadFile(filepath.Join(e.dir, "cache", "ctxls", "daemon.log"))
	if n := strings.Count(string(log), "daemon listening"); n != 1 {
		t.Errorf("%d daemons listened, want 1; log:\n%s", n, log)
	}
	if len(st.Workspaces) != 1 {
		t.Errorf("the daemon holds %d workspaces, want the one both clients shared: %v", len(st.Workspaces), st.Workspaces)
	}
}

// TestTwoDaemonsRace: two daemons started at once on one socket: one
// serves, the other exits saying so.
func TestTwoDaemonsRace(t *testing.T) {
	e := newEnv(t)
	cmds := make([]*exec.Cmd, 2)
	logs := make([]*testutil.SyncBuffer, 2)
	done := make([]chan struct{}, 2)
	for i := range 2 {
		cmds[i] = e.command(t, "daemon", "--socket", e.socket, "--idle", "1m")
		logs[i] = &testutil.SyncBuffer{}
		cmds[i].Stderr = logs[i]
		done[i] = make(chan struct{})
	}
	for i := range 2 {
		if err := cmds[i].Start(); err != nil {
			t.Fatal(err)
		}
		go func() { cmds[i].Wait(); close(done[i]) }()
		t.Cleanup(func() { cmds[i].Process.Signal(syscall.SIGTERM); <-done[i] })
	}
	st := e.waitServing(t)
	var exited int
	select {
	case <-done[0]:
		exited = 0
	case <-done[1]:
		exited = 1
	case <-time.After(20 * time.Second):
		t.Fatalf("both daemons still run; logs:\n%s\n%s", logs[0].String(), logs[1].String())
	}
	if !strings.Contains(logs[exited].String(), "another ctxls daemon is running") {
		t.Errorf("the daemon that exited did not say why:\n%s", logs[exited].String())
	}
	if st.PID != cmds[1-exited].Process.Pid {
		t.Errorf("the socket is served by pid %d, want the daemon that stayed, %d", st.PID, cmds[1-exited].Process.Pid)
	}
}

// TestClientCrashMidRequest: a client that drops its connection in the
// middle of a request, or is killed while waiting for an answer, leaves
// the daemon serving the others.
func TestClientCrashMidRequest(t *testing.T) {
	e := newEnv(t)
	root := fixture(t, e)
	e.startDaemon(t, "1m")

	// Half a message, then gone.
	conn, err := net.Dial("unix", e.socket)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(conn, "Content-Length: 500\r\n\r\n{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ctxls/select\",\"params\":{\"roots\":[")
	conn.Close()

	// An agent killed while its select_context is in flight.
	agent := e.startMCP(t, "--remote="+e.socket, "--root", root)
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 99, "method": "tools/call",
		"params": map[string]any{"name": "select_context", "arguments": map[string]any{"query": "reserve stock"}}})
	agent.stdin.Write(append(body, '\n'))
	agent.cmd.Process.Kill()
	agent.cmd.Wait()

	cmd := e.command(t, "select", "--remote="+e.socket, "--root", root, "greeting for a user")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil || stderr.Len() > 0 || !strings.Contains(string(out), "Greeting") {
		t.Fatalf("after the crashes the daemon did not answer: %v, stderr %q, output:\n%s", err, stderr.String(), out)
	}
	if st := e.waitServing(t); st.Sessions != 0 {
		t.Errorf("the crashed sessions are still counted: %d", st.Sessions)
	}
}

// TestIdleShutdown: a daemon without sessions for its idle time exits and
// removes its socket.
func TestIdleShutdown(t *testing.T) {
	e := newEnv(t)
	root := fixture(t, e)
	exited, log := e.startDaemon(t, "300ms")
	sel := e.command(t, "select", "--remote="+e.socket, "--root", root, "reserve stock")
	if out, err := sel.CombinedOutput(); err != nil || !strings.Contains(string(out), "Reserve") {
		t.Fatalf("select: %v\n%s", err, out)
	}
	select {
	case <-exited:
		if !strings.Contains(log.String(), "no session for the idle time") {
			t.Errorf("the daemon exited, but not for being idle:\n%s", log.String())
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the daemon did not exit after its idle time")
	}
	if _, err := os.Lstat(e.socket); !os.IsNotExist(err) {
		t.Errorf("the socket is left behind: %v", err)
	}
}
