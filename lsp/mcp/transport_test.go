package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/ctxls/ctxls/lsp/jsonfront"
	"github.com/ctxls/ctxls/workspace/testutil"
)

// reply is a message from the server.
type reply struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  json.RawMessage `json:"result"`
	Error   *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// mcpProcess is `ctxls mcp` as a subprocess, spoken to line by line.
type mcpProcess struct {
	t      *testing.T
	stdin  io.WriteCloser
	stderr *bytes.Buffer
	done   chan struct{}
	err    error // the exit, once done is closed

	mu      sync.Mutex
	changed *sync.Cond
	replies map[string][]reply // by id (compact JSON text)
	bad     error              // a line on stdout that is not a JSON-RPC message
}

func startMCP(t *testing.T, root string) *mcpProcess {
	t.Helper()
	return startMCPArgs(t, "--root", root, "--cache-dir", "off")
}

// startMCPArgs starts `ctxls mcp` with args.
func startMCPArgs(t *testing.T, args ...string) *mcpProcess {
	t.Helper()
	cmd := exec.Command(testutil.Binary(t), append([]string{"mcp"}, args...)...)
	p := &mcpProcess{t: t, stderr: &bytes.Buffer{}, done: make(chan struct{}), replies: map[string][]reply{}}
	p.changed = sync.NewCond(&p.mu)
	cmd.Stderr = p.stderr
	var stdout io.ReadCloser
	p.stdin, stdout = testutil.Start(t, cmd)
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			var r reply
			p.mu.Lock()
			if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
				p.bad = fmt.Errorf("stdout has a line that is not JSON: %q", sc.Text())
			} else if r.ID != nil || r.Error != nil {
				key := idText(r.ID)
				p.replies[key] = append(p.replies[key], r)
			}
			p.changed.Broadcast()
			p.mu.Unlock()
		}
		p.err = cmd.Wait()
		p.mu.Lock()
		close(p.done)
		p.changed.Broadcast()
		p.mu.Unlock()
	}()
	t.Cleanup(func() {
		p.stdin.Close()
		select {
		case <-p.done:
		case <-time.After(testTimeout):
			cmd.Process.Kill()
			<-p.done
		}
	})
	return p
}

// idText is an id as compact JSON text; "null" when absent.
func idText(raw json.RawMessage) string {
	var b bytes.Buffer
	if len(raw) == 0 || json.Compact(&b, raw) != nil {
		return "null"
	}
	return b.String()
}

func (p *mcpProcess) write(s string) {
	p.t.Helper()
	if _, err := io.WriteString(p.stdin, s); err != nil {
		p.t.Fatalf("writing to ctxls mcp: %v (%s)", err, p.exited())
	}
}

func (p *mcpProcess) exited() string {
	select {
	case <-p.done:
		return fmt.Sprintf("it exited: %v; stderr:\n%s", p.err, p.stderr)
	default:
		return "it is running"
	}
}

// reply waits for the reply to id (JSON text).
func (p *mcpProcess) reply(id string) reply {
	p.t.Helper()
	timer := time.AfterFunc(testTimeout, func() {
		p.mu.Lock()
		p.bad = fmt.Errorf("timed out waiting for the reply to %s", id)
		p.changed.Broadcast()
		p.mu.Unlock()
	})
	defer timer.Stop()
	p.mu.Lock()
	defer p.mu.Unlock()
	for len(p.replies[id]) == 0 {
		if p.bad != nil {
			p.t.Fatalf("waiting for the reply to %s: %v (%s)", id, p.bad, p.exited())
		}
		select {
		case <-p.done:
			p.t.Fatalf("waiting for the reply to %s: %s", id, p.exited())
		default:
		}
		p.changed.Wait()
	}
	return p.replies[id][0]
}

func (p *mcpProcess) count(id string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.replies[id])
}

// initializeLine and initializedLine open a session, as lines.
const (
	initializeLine  = `{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}` + "\n"
	initializedLine = `{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n"
)

func (p *mcpProcess) initialize() {
	p.t.Helper()
	p.write(initializeLine)
	if r := p.reply(`"init"`); r.Error != nil {
		p.t.Fatalf("initialize: %s", r.Error.Message)
	}
	p.write(initializedLine)
}

// statusCall is a valid tools/call of index_status with id (JSON text).
func statusCall(id string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"index_status","arguments":{}}}`
}

type lineWant struct {
	id   string // JSON text; "null" for none
	code int    // 0: a result
	says string
}

type lineCase struct {
	name  string
	line  string // written as it is (with its newline, if any)
	wants []lineWant
}

func deepLine(id string, n int) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":` + strings.Repeat("[", n) + strings.Repeat("]", n) + "}\n"
}

func lineCases() []lineCase {
	return []lineCase{
		{"not json", "not json\n", []lineWant{{"null", -32700, "parse error"}}},
		{"open brace", "{\n", []lineWant{{"null", -32700, "parse error"}}},
		{"null", "null\n", []lineWant{{"null", -32600, "must be a JSON object"}}},
		{"empty array", "[]\n", []lineWant{{"null", -32600, "batches are not supported"}}},
		{"a number", "5\n", []lineWant{{"null", -32600, "must be a JSON object"}}},
		{"a string", "\"tools/list\"\n", []lineWant{{"null", -32600, "must be a JSON object"}}},
		{"a batch", "[" + statusCall(`"b1"`) + "," + statusCall(`"b2"`) + "]\n", []lineWant{{"null", -32600, "batches are not supported"}}},
		{"two objects on a line", statusCall(`"two1"`) + statusCall(`"two2"`) + "\n", []lineWant{{`"two1"`, -32700, "more than one JSON value"}}},
		{"NUL bytes", "\x00\x00\x00\n", []lineWant{{"null", -32700, "byte 0x00"}}},
		{"NUL in a request", `{"jsonrpc":"2.0","id":"nul","method":"tools/call",` + "\x00}\n", []lineWant{{`"nul"`, -32700, "byte 0x00"}}},
		{"10 MB of junk", strings.Repeat("junk ", 2<<20) + "\n", []lineWant{{"null", -32700, "parse error"}}},
		{"10 MB of spaces", strings.Repeat(" ", 10<<20) + "\n", nil},
		{"3 MB of junk", strings.Repeat("x", 3<<20) + "\n", []lineWant{{"null", -32700, "parse error"}}},
		{"a 6 MB request", `{"jsonrpc":"2.0","id":"huge","method":"tools/call","params":{"name":"select_context","arguments":{"query":"` + strings.Repeat("a", 6<<20) + "\"}}}\n",
			[]lineWant{{`"huge"`, -32600, "larger than 4 MiB"}}},
		{"an object id", `{"jsonrpc":"2.0","id":{"a":1},"method":"tools/list"}` + "\n", []lineWant{{"null", -32600, "invalid request"}}},
		{"a fractional id", `{"jsonrpc":"2.0","id":1.5,"method":"tools/list"}` + "\n", []lineWant{{"1.5", -32600, "id must be a string or an integer"}}},
		{"version 1.0", `{"jsonrpc":"1.0","id":"v1","method":"tools/list"}` + "\n", []lineWant{{`"v1"`, -32600, "invalid request"}}},
		{"a numeric method", `{"jsonrpc":"2.0","id":"m5","method":5}` + "\n", []lineWant{{`"m5"`, -32600, "invalid request"}}},
		{"cut short", `{"jsonrpc":"2.0","id":"cut","method":"tools/call","params":{"name":` + "\n", []lineWant{{`"cut"`, -32700, "parse error"}}},
		{"3,000,000 arrays deep", deepLine(`"deep3m"`, 3_000_000), []lineWant{{`"deep3m"`, -32600, "nests deeper than 1000 levels"}}},
		{"1,001 arrays deep", deepLine(`1001`, 1001), []lineWant{{`1001`, -32600, "nests deeper than 1000 levels"}}},
		{"objects deep, the id after them", `{"jsonrpc":"2.0","method":"tools/call","params":` + strings.Repeat(`{"a":`, 100_000) + "1" + strings.Repeat("}", 100_000) + `,"id":"late"}` + "\n",
			[]lineWant{{`"late"`, -32600, "nests deeper"}}},
		{"blank lines", "\n\r\n   \n\t\n", nil},
		{"a response nobody asked for", `{"jsonrpc":"2.0","id":"stray","result":{}}` + "\n", nil},
		{"an unknown method", `{"jsonrpc":"2.0","id":"unknown","method":"no/such"}` + "\n", []lineWant{{`"unknown"`, -32601, ""}}},
		{"CRLF", statusCall(`"crlf"`) + "\r\n", []lineWant{{`"crlf"`, 0, ""}}},
		{"no newline, then a request", "garbage" + statusCall(`"glued"`) + "\n", []lineWant{{"null", -32700, "parse error"}}},
	}
}

// TestLineTransport: after every malformed line `ctxls mcp` answers the
// JSON-RPC error the line deserves (echoing its id where one is readable)
// and answers the next request; the session never ends.
func TestLineTransport(t *testing.T) {
	p := startMCP(t, fixture(t, "shop"))
	// Before initialize, a bad line is answered too.
	p.write("not json\n")
	if r := p.reply("null"); r.Error == nil || r.Error.Code != -32700 {
		t.Fatalf("a bad line before initialize got %+v", r)
	}
	p.mu.Lock()
	delete(p.replies, "null")
	p.mu.Unlock()
	p.initialize()
	for i, tc := range lineCases() {
		p.write(tc.line)
		after := fmt.Sprintf(`"after-%d"`, i)
		p.write(statusCall(after) + "\n")
		if r := p.reply(after); r.Error != nil {
			t.Fatalf("%s: the next request failed: %s", tc.name, r.Error.Message)
		}
		nulls := 0
		for _, w := range tc.wants {
			if w.id == "null" {
				nulls++
				continue
			}
			r := p.reply(w.id)
			checkReply(t, tc.name, w, r)
			if n := p.count(w.id); n != 1 {
				t.Errorf("%s: %d replies to %s, want 1", tc.name, n, w.id)
			}
		}
		p.mu.Lock()
		nullReplies := p.replies["null"]
		delete(p.replies, "null")
		p.mu.Unlock()
		if len(nullReplies) != nulls {
			t.Errorf("%s: %d replies with a null id, want %d: %+v", tc.name, len(nullReplies), nulls, nullReplies)
		}
		for _, w := range tc.wants {
			if w.id == "null" && len(nullReplies) > 0 {
				checkReply(t, tc.name, w, nullReplies[0])
				nullReplies = nullReplies[1:]
			}
		}
	}
	p.stdin.Close()
	<-p.done
	if p.err != nil {
		t.Errorf("ctxls mcp ended with %v at the end of its input; stderr:\n%s", p.err, p.stderr)
	}
}

func checkReply(t *testing.T, name string, w lineWant, r reply) {
	t.Helper()
	switch {
	case w.code == 0 && r.Error != nil:
		t.Errorf("%s: request %s failed: %s", name, w.id, r.Error.Message)
	case w.code != 0 && (r.Error == nil || r.Error.Code != w.code || !strings.Contains(r.Error.Message, w.says)):
		t.Errorf("%s: reply to %s is %+v, want error %d saying %q", name, w.id, r.Error, w.code, w.says)
	}
}

// TestLineTransportWritesWhole: error replies and the SDK's replies,
// written at once from two goroutines, are whole lines.
func TestLineTransportWritesWhole(t *testing.T) {
	var lines bytes.Buffer
	pr, pw := io.Pipe()
	conn, err := (&LineTransport{Reader: pr, Writer: &lines}).Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	go func() {
		for i := range 200 {
			fmt.Fprintf(pw, "bad line %d\n{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"ping\"}\n", i, i)
		}
		pw.Close()
	}()
	var wg sync.WaitGroup
	for {
		msg, err := conn.Read(context.Background())
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		req := msg.(*jsonrpc.Request)
		wg.Go(func() {
			if err := conn.Write(context.Background(), &jsonrpc.Response{ID: req.ID, Result: json.RawMessage(`{}`)}); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	var errs, results int
	for _, line := range strings.Split(strings.TrimSuffix(lines.String(), "\n"), "\n") {
		var r reply
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("a written line is not one message: %q", line)
		}
		if r.Error != nil {
			errs++
		} else {
			results++
		}
	}
	if errs != 200 || results != 200 {
		t.Errorf("%d error replies and %d results, want 200 of each", errs, results)
	}
}

// FuzzLineTransport: whatever the lines, reading them gives messages and
// then the end of the input, never another error; every error line written
// is one JSON-RPC error reply; and a valid request after them (on a line of
// its own) is read.
func FuzzLineTransport(f *testing.F) {
	for _, s := range []string{
		"not json\n", "{\n", "null\n[]\n5\n", "[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]\n",
		"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}\n",
		"\x00\x00\n", "{\"jsonrpc\":\"2.0\",\"id\":{},\"method\":\"ping\"}\n", "{\"jsonrpc\":\"2.0\",\"id\":1.5,\"method\":\"ping\"}\n",
		"{\"jsonrpc\":\"1.0\",\"id\":\"x\",\"method\":\"ping\"}\n", "\r\n\n  \n", "{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{}}\n",
		"{\"jsonrpc\":\"2.0\",\"id\":\"d\",\"params\":" + strings.Repeat("[", jsonfront.MaxDepth+1) + "\n",
		"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n", "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"\"}\n",
		strings.Repeat("y", 70000) + "\n", "no newline at the end",
	} {
		f.Add([]byte(s))
	}
	const final = `{"jsonrpc":"2.0","id":"fuzz-final","method":"fuzz/final"}`
	f.Fuzz(func(t *testing.T, data []byte) {
		in := append(append(append([]byte(nil), data...), '\n'), final...)
		var out bytes.Buffer
		conn, _ := (&LineTransport{Reader: bytes.NewReader(in), Writer: &out}).Connect(context.Background())
		defer conn.Close()
		var last jsonrpc.Message
		for range len(in) + 2 {
			msg, err := conn.Read(context.Background())
			if err == nil {
				last = msg
				// Answered, as the SDK does, or the end of the input
				// waits for the answer.
				if req, ok := msg.(*jsonrpc.Request); ok && req.ID.IsValid() {
					conn.Write(context.Background(), &jsonrpc.Response{ID: req.ID, Result: json.RawMessage(`{}`)})
				}
				continue
			}
			if !errors.Is(err, io.EOF) {
				t.Fatalf("Read failed before the end of the input: %v", err)
			}
			if req, ok := last.(*jsonrpc.Request); !ok || req.Method != "fuzz/final" || req.ID.Raw() != "fuzz-final" {
				t.Fatalf("the valid request at the end was not read; the last message was %#v", last)
			}
			for line := range bytes.Lines(out.Bytes()) {
				if bytes.Contains(line, []byte(`"result":{}`)) {
					continue // our answer
				}
				var r reply
				if err := json.Unmarshal(line, &r); err != nil || r.JSONRPC != "2.0" || r.ID == nil || r.Error == nil || r.Error.Message == "" {
					t.Fatalf("a written line is not a JSON-RPC error reply: %q", line)
				}
			}
			return
		}
		t.Fatal("more messages than bytes")
	})
}

// TestEndOfInputAnswersFirst: a client that writes its requests and closes
// stdin at once (`... | ctxls mcp`) gets every answer before the exit.
func TestEndOfInputAnswersFirst(t *testing.T) {
	p := startMCP(t, fixture(t, "shop"))
	p.write(initializeLine + initializedLine +
		"not json\n" + `{"jsonrpc":"2.0","id":"ping","method":"ping"}` + "\n" +
		`{"jsonrpc":"2.0","id":"select","method":"tools/call","params":{"name":"select_context","arguments":{"query":"coupon"}}}` + "\n")
	p.stdin.Close()
	<-p.done
	if p.err != nil {
		t.Fatalf("ctxls mcp: %v; stderr:\n%s", p.err, p.stderr)
	}
	for _, id := range []string{`"init"`, "null", `"ping"`, `"select"`} {
		if n := p.count(id); n != 1 {
			t.Errorf("%d replies to %s before the exit, want 1", n, id)
		}
	}
}
