package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctxls/ctxls/lsp/jsonfront"
	"github.com/ctxls/ctxls/lsp/wire"
	"github.com/ctxls/ctxls/workspace/testutil"
)

func sleepBriefly() { time.Sleep(10 * time.Millisecond) }

// slowSelects makes every select whose query starts with "slow" block until
// it is cancelled, and reports each one that starts on entered.
func slowSelects(entered chan<- string) func(*Server) {
	return func(s *Server) {
		s.beforeSelect = func(ctx context.Context, req *wire.Request) {
			if !strings.HasPrefix(req.Query, "slow") {
				return
			}
			entered <- req.Query
			select {
			case <-ctx.Done():
			case <-time.After(testTimeout):
			}
		}
	}
}

// TestCancelRequest: a long select is cancelled by $/cancelRequest with a
// numeric or a string id, answers RequestCancelled, and other requests go
// on meanwhile.
func TestCancelRequest(t *testing.T) {
	root := writeFixture(t, "shop.txtar")
	entered := make(chan string, 4)
	c, _ := rawPipe(t, slowSelects(entered))
	c.start(root)

	for _, id := range []string{`17`, `"select-a"`} {
		c.send(json.RawMessage(id), "workspace/contextSelect", `{"query":"slow one"}`)
		select {
		case <-entered:
		case <-time.After(testTimeout):
			t.Fatal("the slow select never started")
		}
		// Another request is answered while the slow one waits.
		fast := fmt.Sprintf(`"fast-%s"`, strings.Trim(id, `"`))
		c.send(json.RawMessage(fast), "workspace/contextSelect", `{"query":"reserve stock"}`)
		if r := c.response(fast); r.Error != nil {
			t.Fatalf("a select concurrent with a slow one failed: %s", r.Error.Message)
		}
		if n := c.responseCount(id); n != 0 {
			t.Fatalf("the slow select %s answered before it was cancelled", id)
		}
		c.send(nil, "$/cancelRequest", fmt.Sprintf(`{"id":%s}`, id))
		r := c.response(id)
		if r.Error == nil || r.Error.Code != -32800 {
			t.Errorf("cancelled request %s answered %+v, want RequestCancelled (-32800)", id, r)
		}
	}
	// Cancelling what is finished or unknown is harmless.
	c.send(nil, "$/cancelRequest", `{"id":17}`)
	c.send(nil, "$/cancelRequest", `{"id":{"odd":true}}`)
	c.send(json.RawMessage(`99`), "workspace/contextSelect", `{"query":"reserve stock"}`)
	if r := c.response(`99`); r.Error != nil {
		t.Errorf("select after cancellations: %s", r.Error.Message)
	}
	for _, id := range []string{`17`, `"select-a"`} {
		if n := c.responseCount(id); n != 1 {
			t.Errorf("request %s got %d responses, want exactly 1", id, n)
		}
	}
}

// TestMalformedRequests sends 1,000 random bad requests and notifications:
// each request gets the right error code, the server survives, and a valid
// select afterwards still works.
func TestMalformedRequests(t *testing.T) {
	root := writeFixture(t, "shop.txtar")
	c, done := rawPipe(t, nil)
	c.start(root)
	active := uri(root, "cart/cart.go")
	c.send(nil, "textDocument/didOpen", fmt.Sprintf(`{"textDocument":{"uri":%q,"version":1,"text":%q}}`, active, readFile(t, filepath.Join(root, "cart/cart.go"))))

	type bad struct {
		method string
		params string
		code   int    // 0: a notification, no response
		field  string // the message must name it
	}
	values := []string{`"x"`, `true`, `[]`, `{}`, `null`, `-1`, `1e20`, `3.5`, `"file:///nowhere"`, `[1,2]`, `{"line":"a"}`}
	gen := []func(r *rand.Rand) bad{
		func(r *rand.Rand) bad {
			return bad{fmt.Sprintf("workspace/%c%d", 'a'+r.Intn(26), r.Intn(1000)), `{}`, -32601, ""}
		},
		func(r *rand.Rand) bad { return bad{"textDocument/definition", `{"position":{"line":1}}`, -32601, ""} },
		func(r *rand.Rand) bad {
			return bad{"workspace/contextSelect", `{"query":"cart","limit":` + pick(r, `"8"`, `true`, `[]`, `{}`, `3.5`, `1e20`) + `}`, -32602, "limit"}
		},
		func(r *rand.Rand) bad {
			return bad{"workspace/contextSelect", `{"query":"cart","limit":` + pick(r, `-1`, `101`, `1000000`, `2147483647`) + `}`, -32602, "limit"}
		},
		func(r *rand.Rand) bad {
			return bad{"workspace/contextSelect", pick(r, `{}`, `{"query":""}`, `{"query":"   "}`, `{"limit":3}`, `null`), -32602, "query"}
		},
		func(r *rand.Rand) bad {
			return bad{"workspace/contextSelect", `{"query":` + pick(r, `5`, `true`, `["a"]`, `{}`) + `}`, -32602, "query"}
		},
		func(r *rand.Rand) bad {
			return bad{"workspace/contextSelect", pick(r, `[1,2]`, `5`, `"query"`, `true`), -32602, "params"}
		},
		func(r *rand.Rand) bad {
			return bad{"workspace/contextSelect", `{"query":"cart","activeUri":` + pick(r, `"http://example.com/a.go"`, `"file:///elsewhere/x.go"`, `"::::"`, `"file://"`, `"ftp:x"`) + `}`, -32602, "activeUri"}
		},
		func(r *rand.Rand) bad {
			return bad{"workspace/contextSelect", `{"query":"cart","activeUri":` + pick(r, `5`, `[]`, `{}`) + `}`, -32602, "activeUri"}
		},
		func(r *rand.Rand) bad {
			return bad{"workspace/contextSelect", `{"query":"cart","pinned":[` + pick(r, `"https://x/y"`, `"file:///elsewhere/y.go"`, `"::::"`, `"cart/cart.go"`) + `]}`, -32602, "pinned"}
		},
		func(r *rand.Rand) bad {
			return bad{"workspace/contextSelect", `{"query":"cart","pinned":` + pick(r, `"a"`, `[1]`, `{}`) + `}`, -32602, "pinned"}
		},
		func(r *rand.Rand) bad {
			return bad{"workspace/contextSelect", `{"query":"cart","position":` + pick(r, `{"line":-1,"character":0}`, `{"line":"a"}`, `"1:2"`, `{"line":1e12,"character":0}`, `{"line":1,"character":-3}`) + `}`, -32602, "position"}
		},
		func(r *rand.Rand) bad {
			return bad{"workspace/contextSelect", `{"query":"cart","maxChars":` + pick(r, `-5`, `"many"`, `1e30`) + `}`, -32602, "maxChars"}
		},
		func(r *rand.Rand) bad {
			return bad{"workspace/contextSelect", `{"query":"cart","maxCharsPerItem":` + pick(r, `-1`, `false`) + `}`, -32602, "maxCharsPerItem"}
		},
		func(r *rand.Rand) bad {
			return bad{"workspace/contextSelect", `{"query":"cart","minScore":` + pick(r, `-0.5`, `"high"`) + `}`, -32602, "minScore"}
		},
		func(r *rand.Rand) bad {
			return bad{"workspace/contextSelect", `{"query":"cart","kinds":` + pick(r, `["gizmo"]`, `"function"`, `[1]`) + `}`, -32602, "kinds"}
		},
		func(r *rand.Rand) bad {
			return bad{"workspace/contextSelect", `{"query":"cart","paths":` + pick(r, `["[abc"]`, `"src"`, `[{}]`) + `}`, -32602, "paths"}
		},
		func(r *rand.Rand) bad {
			return bad{"workspace/contextSelect", `{"query":"cart","history":` + pick(r, `"earlier"`, `[1,2]`, `{}`) + `}`, -32602, "history"}
		},
		func(r *rand.Rand) bad {
			return bad{"workspace/contextSelect", `{"query":"cart","explain":` + pick(r, `"yes"`, `1`) + `}`, -32602, "explain"}
		},
		func(r *rand.Rand) bad {
			return bad{"initialize", `{"capabilities":{}}`, -32600, "initialize"}
		},
		// Notifications with garbage: no answer, no harm.
		func(r *rand.Rand) bad {
			return bad{"textDocument/didChange", fmt.Sprintf(`{"textDocument":{"uri":%q,"version":%d},"contentChanges":[{"range":{"start":{"line":%d,"character":%d},"end":{"line":%d,"character":%d}},"text":"zz"}]}`,
				active, r.Intn(100), r.Intn(5000)-10, r.Intn(100000), r.Intn(5000), r.Intn(10)), 0, ""}
		},
		func(r *rand.Rand) bad {
			return bad{pick(r, "textDocument/didOpen", "textDocument/didChange", "textDocument/didClose", "textDocument/didSave", "ctxls/didFocus", "workspace/didChangeWatchedFiles", "workspace/didChangeWorkspaceFolders", "workspace/didChangeConfiguration"),
				pick(r, `{"textDocument":{"uri":`+pick(r, values...)+`}}`, `{"uri":`+pick(r, values...)+`,"position":`+pick(r, values...)+`}`, `{"changes":[{"uri":"file:///x","type":9}]}`,
					`{"event":{"added":[{"uri":"file:///does/not/exist"}]}}`, `{"settings":{"ctxls":{"limit":"x"}}}`, `[]`, `7`, `{"textDocument":{"uri":"file:///etc/passwd","text":5}}`), 0, ""}
		},
	}

	r := rand.New(rand.NewSource(42))
	var ids []string
	want := map[string]bad{}
	for i := 0; i < 1000; i++ {
		b := gen[r.Intn(len(gen))](r)
		if b.code == 0 {
			c.send(nil, b.method, b.params)
			continue
		}
		id := fmt.Sprint(i + 1000)
		if r.Intn(2) == 0 {
			id = fmt.Sprintf(`"m-%d"`, i)
		}
		c.send(json.RawMessage(id), b.method, b.params)
		ids = append(ids, id)
		want[id] = b
	}
	for _, id := range ids {
		b := want[id]
		resp := c.response(id)
		if resp.Error == nil {
			t.Errorf("%s %s: answered a result, want error %d", b.method, b.params, b.code)
			continue
		}
		if resp.Error.Code != b.code {
			t.Errorf("%s %s: error %d %q, want %d", b.method, b.params, resp.Error.Code, resp.Error.Message, b.code)
		}
		if b.field != "" && !strings.Contains(resp.Error.Message, b.field) {
			t.Errorf("%s %s: message %q does not name %s", b.method, b.params, resp.Error.Message, b.field)
		}
	}
	for _, id := range ids {
		if n := c.responseCount(id); n != 1 {
			t.Errorf("request %s got %d responses", id, n)
		}
	}

	select {
	case err := <-done:
		t.Fatalf("the server ended: %v", err)
	default:
	}
	c.send(json.RawMessage(`"final"`), "workspace/contextSelect", `{"query":"reserve stock for an order"}`)
	resp := c.response(`"final"`)
	var res result
	if resp.Error != nil || json.Unmarshal(resp.Result, &res) != nil {
		t.Fatalf("a valid select after the garbage: %+v", resp)
	}
	if res.find("inventory/stock.go", "Stock.ReserveStock") < 0 {
		t.Errorf("ReserveStock not selected after the garbage:%s", &res)
	}
}

func pick(r *rand.Rand, options ...string) string { return options[r.Intn(len(options))] }

// frame is body with a Content-Length header of len(body)+extra bytes.
func frame(body string, extra int) string {
	return fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body)+extra, body)
}

// selectBody is a valid contextSelect request with id (JSON text).
func selectBody(id string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"workspace/contextSelect","params":{"query":"reserve stock"}}`
}

// deepBody is a request whose params nest n arrays deep.
func deepBody(id string, n int) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"workspace/contextSelect","params":` + strings.Repeat("[", n) + strings.Repeat("]", n) + `}`
}

// want is one reply a broken input must get: its id (JSON text; "null"
// for none), its code (0: a result) and words its message must hold.
type want struct {
	id   string
	code int
	says string
}

type frontCase struct {
	name  string
	raw   string // written as it is
	wants []want
	big   bool // too slow for the in-process server under -race
}

// frontCases are broken inputs of every kind: each is answered, and the
// server goes on.
func frontCases() []frontCase {
	deepObjects := strings.Repeat(`{"a":`, 200_000) + "1" + strings.Repeat("}", 200_000)
	big := `{"jsonrpc":"2.0","id":"big","method":"workspace/contextSelect","params":{"query":"` + strings.Repeat("a", jsonfront.MaxMessageBytes) + `"}}`
	return []frontCase{
		{name: "3,000,000 arrays deep", raw: frame(deepBody(`"deep3m"`, 3_000_000), 0),
			wants: []want{{`"deep3m"`, -32600, "nests deeper than 1000 levels"}}},
		{name: "1,001 arrays deep", raw: frame(deepBody(`1001`, 1001), 0),
			wants: []want{{`1001`, -32600, "nests deeper than 1000 levels"}}},
		{name: "objects deep, the id after them", raw: frame(`{"jsonrpc":"2.0","method":"workspace/contextSelect","params":`+deepObjects+`,"id":"after-deep"}`, 0),
			wants: []want{{`"after-deep"`, -32600, "nests deeper"}}},
		{name: "version 1.0 and deep", raw: frame(`{"jsonrpc":"1.0","id":77,"method":"x","params":`+strings.Repeat("[", 5000)+strings.Repeat("]", 5000)+`}`, 0),
			wants: []want{{`77`, -32600, "nests deeper"}}},
		{name: "deep and cut short", raw: frame(`{"jsonrpc":"2.0","id":"cut-deep","method":"x","params":`+strings.Repeat("[", 4000), 0),
			wants: []want{{`"cut-deep"`, -32600, "nests deeper"}}},
		{name: "Content-Length 50 too long", raw: frame(selectBody("31"), 50) + frame(selectBody("32"), 0),
			wants: []want{{`31`, -32700, "Content-Length"}, {`32`, 0, ""}}},
		{name: "Content-Length 500 too long, two frames swallowed", raw: frame(selectBody(`"a31"`), 500) + frame(selectBody("33"), 0) + frame(`{"jsonrpc":"2.0","id":34,"method":"shutdown2"}`, 0) + frame(selectBody("35"), 0),
			wants: []want{{`"a31"`, -32700, "longer than the message"}, {`33`, 0, ""}, {`34`, -32601, ""}, {`35`, 0, ""}}},
		{name: "Content-Length too long, cut in a string", raw: frame(`{"jsonrpc":"2.0","id":36,"method":"workspace/contextSelect","params":{"query":"res`, 40) + frame(selectBody("37"), 0),
			wants: []want{{`36`, -32700, "Content-Length"}, {`37`, 0, ""}}},
		{name: "Content-Length 99999999999", raw: "Content-Length: 99999999999\r\n\r\n" + selectBody("38") + frame(selectBody("39"), 0),
			wants: []want{{`38`, -32700, "Content-Length 99999999999 is longer"}, {`39`, 0, ""}}},
		{name: "Content-Length 10 too short", raw: frame(selectBody("41"), -10) + frame(selectBody("42"), 0),
			wants: []want{{`41`, -32700, "parse error"}, {`42`, 0, ""}}},
		{name: "Content-Length cuts the next header", raw: "Content-Length: 5\r\n\r\n" + frame(selectBody("43"), 0),
			wants: []want{{`null`, -32700, "parse error"}, {`43`, 0, ""}}},
		{name: "a junk header line", raw: "hello world\r\n" + frame(selectBody("51"), 0),
			wants: []want{{`null`, -32700, "outside any Content-Length frame"}, {`51`, 0, ""}}},
		{name: "junk lines between frames", raw: "GET / HTTP/1.1\r\n\x00\x01\x02\r\n{}\r\n\r\n" + frame(selectBody("52"), 0),
			wants: []want{{`null`, -32700, "outside any Content-Length frame"}, {`52`, 0, ""}}},
		{name: "no Content-Length", raw: "Content-Type: application/vscode-jsonrpc\r\n\r\n" + selectBody("61") + frame(selectBody("62"), 0),
			wants: []want{{`61`, -32700, "outside any Content-Length frame"}, {`62`, 0, ""}}},
		{name: "Content-Length abc", raw: "Content-Length: abc\r\n\r\n" + selectBody("71") + frame(selectBody("72"), 0),
			wants: []want{{`71`, -32700, `invalid Content-Length "abc"`}, {`72`, 0, ""}}},
		{name: "Content-Length 0", raw: "Content-Length: 0\r\n\r\n" + frame(selectBody("73"), 0),
			wants: []want{{`null`, -32700, `invalid Content-Length "0"`}, {`73`, 0, ""}}},
		{name: "10 MB of junk, no newline", raw: strings.Repeat("junk\x00", 2<<20) + frame(selectBody("74"), 0),
			wants: []want{{`null`, -32700, "outside any Content-Length frame"}, {`74`, 0, ""}}},
		{name: "blank lines", raw: "\r\n\r\n\n\r\n" + frame(selectBody("75"), 0),
			wants: []want{{`75`, 0, ""}}},
		{name: "over the size bound", raw: frame(big, 0), big: true,
			wants: []want{{`"big"`, -32600, "larger than 64 MiB"}}},
		{name: "cut JSON", raw: frame(`{"jsonrpc":"2.0","id":5,"method":`, 0), wants: []want{{`5`, -32700, "parse error"}}},
		{name: "not JSON", raw: frame(`not json at all`, 0), wants: []want{{`null`, -32700, "parse error"}}},
		{name: "open brace", raw: frame(`{`, 0), wants: []want{{`null`, -32700, "parse error"}}},
		{name: "NUL bytes", raw: frame("\x00\x00\x00\x00", 0), wants: []want{{`null`, -32700, "byte 0x00"}}},
		{name: "null", raw: frame(`null`, 0), wants: []want{{`null`, -32600, "must be a JSON object"}}},
		{name: "a number", raw: frame(`5`, 0), wants: []want{{`null`, -32600, "must be a JSON object"}}},
		{name: "an empty array", raw: frame(`[]`, 0), wants: []want{{`null`, -32600, "must be a JSON object"}}},
		{name: "a batch", raw: frame(`[`+selectBody("81")+`,`+selectBody("82")+`]`, 0), wants: []want{{`null`, -32600, "must be a JSON object"}}},
		{name: "two objects", raw: frame(selectBody("83")+selectBody("84"), 0), wants: []want{{`83`, -32700, "more than one JSON value"}}},
		{name: "version 1.0", raw: frame(`{"jsonrpc":"1.0","id":6,"method":"workspace/contextSelect","params":{"query":"x"}}`, 0), wants: []want{{`6`, -32600, "invalid request"}}},
		{name: "fractional id", raw: frame(`{"jsonrpc":"2.0","id":1.5,"method":"workspace/contextSelect","params":{"query":"x"}}`, 0), wants: []want{{`1.5`, -32600, "invalid request"}}},
		{name: "object id", raw: frame(`{"jsonrpc":"2.0","id":{"a":1},"method":"workspace/contextSelect"}`, 0), wants: []want{{`null`, -32600, "invalid request"}}},
		{name: "numeric method", raw: frame(`{"jsonrpc":"2.0","method":7}`, 0), wants: []want{{`null`, -32600, "invalid request"}}},
	}
}

// frontServer is a server under test and how to write to it raw.
type frontServer struct {
	c     *rawClient
	ended func() error // non-nil once the server has ended
}

func (f frontServer) write(t *testing.T, raw string) {
	f.c.wm.Lock()
	defer f.c.wm.Unlock()
	if _, err := io.WriteString(f.c.w, raw); err != nil {
		t.Fatalf("writing to the server: %v (ended: %v)", err, f.ended())
	}
}

// pipeServer is a Server in this process, on a net.Pipe.
func pipeServer(t *testing.T) frontServer {
	c, done := rawPipe(t, nil)
	var err error
	ended := false
	return frontServer{c, func() error {
		if !ended {
			select {
			case err = <-done:
				ended = true
			default:
				return nil
			}
		}
		if err == nil {
			err = errors.New("ended")
		}
		return err
	}}
}

// processServer is `ctxls serve` as a subprocess, on OS pipes.
func processServer(t *testing.T) frontServer {
	cmd := exec.Command(ctxlsBin, "serve")
	stderr := newTestLog(t)
	cmd.Stderr = stderr
	stdin, stdout := testutil.Start(t, cmd)
	done := make(chan struct{})
	var werr error
	go func() { werr = cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		stdin.Close()
		select {
		case <-done:
		case <-time.After(testTimeout):
			cmd.Process.Kill()
			<-done
		}
	})
	return frontServer{newRawClient(t, procPipes{stdout, stdin}), func() error {
		select {
		case <-done:
			return fmt.Errorf("ctxls serve exited: %v; stderr:\n%s", werr, stderr)
		default:
			return nil
		}
	}}
}

// TestFront: every broken input is answered with the right error, echoing
// its id where one is readable, and the next request is answered, in the
// server in this process (on a net.Pipe) and in `ctxls serve` (on OS
// pipes).
func TestFront(t *testing.T) {
	root := writeFixture(t, "shop.txtar")
	for _, mode := range []string{"pipe", "process"} {
		t.Run(mode, func(t *testing.T) {
			srv := pipeServer
			if mode == "process" {
				srv = processServer
			}
			f := srv(t)
			f.c.start(root)
			for i, tc := range frontCases() {
				if tc.big && mode == "pipe" {
					continue // 64 MiB through the race detector is slow; the process case has it
				}
				f.write(t, tc.raw)
				after := fmt.Sprintf(`"after-%d"`, i)
				f.write(t, frame(selectBody(after), 0))
				if r := f.c.response(after); r.Error != nil {
					t.Fatalf("%s: the next request failed: %s", tc.name, r.Error.Message)
				}
				if err := f.ended(); err != nil {
					t.Fatalf("%s: the server ended: %v", tc.name, err)
				}
				nulls := 0
				for _, w := range tc.wants {
					key := mustKey(w.id)
					if key == "null" {
						nulls++
					}
					r := f.c.response(w.id)
					switch {
					case w.code == 0 && r.Error != nil:
						t.Errorf("%s: request %s failed: %s", tc.name, w.id, r.Error.Message)
					case w.code != 0 && (r.Error == nil || r.Error.Code != w.code || !strings.Contains(r.Error.Message, w.says)):
						t.Errorf("%s: reply to %s is %+v, want error %d saying %q", tc.name, w.id, r.Error, w.code, w.says)
					}
					if key != "null" {
						if n := f.c.responseCount(w.id); n != 1 {
							t.Errorf("%s: %d replies to %s, want 1", tc.name, n, w.id)
						}
					}
				}
				f.c.mu.Lock()
				if got := len(f.c.responses["null"]); got != nulls {
					t.Errorf("%s: %d replies with a null id, want %d: %+v", tc.name, got, nulls, f.c.responses["null"])
				}
				delete(f.c.responses, "null")
				f.c.mu.Unlock()
			}
		})
	}
}

// TestDeepBeforeInitialize: a message nesting 3,000,000 arrays deep before
// initialize is answered, and initialize then works.
func TestDeepBeforeInitialize(t *testing.T) {
	root := writeFixture(t, "shop.txtar")
	f := processServer(t)
	f.write(t, frame(deepBody(`"deep"`, 3_000_000), 0))
	if r := f.c.response(`"deep"`); r.Error == nil || r.Error.Code != -32600 || !strings.Contains(r.Error.Message, "deeper than 1000") {
		t.Fatalf("the deep message got %+v", r.Error)
	}
	f.c.start(root)
	f.write(t, frame(selectBody(`"next"`), 0))
	if r := f.c.response(`"next"`); r.Error != nil {
		t.Fatalf("a select after the deep message failed: %s", r.Error.Message)
	}
}

func mustKey(id string) string {
	if k, ok := idKey([]byte(id)); ok {
		return k
	}
	return "null"
}

func TestIDKey(t *testing.T) {
	for _, tc := range []struct {
		raw  string
		key  string
		keys bool
	}{
		{`17`, "n:17", true},
		{`17.0`, "n:17", true},
		{`"17"`, "s:17", true},
		{`"abc"`, "s:abc", true},
		{`1.5`, "", false},
		{`{"x":1}`, "", false},
		{`null`, "", false},
	} {
		key, ok := idKey([]byte(tc.raw))
		if key != tc.key || ok != tc.keys {
			t.Errorf("idKey(%s) = %q, %v; want %q, %v", tc.raw, key, ok, tc.key, tc.keys)
		}
	}
}
