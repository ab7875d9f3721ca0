package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctxls/ctxls/lsp/wire"
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

// TestMalformedMessages: bodies that are not JSON-RPC messages are
// answered and skipped; the connection stays up.
func TestMalformedMessages(t *testing.T) {
	root := writeFixture(t, "shop.txtar")
	c, done := rawPipe(t, nil)
	c.start(root)
	for _, tc := range []struct {
		body   string
		id     string // the id the error must carry
		code   int
		answer bool
	}{
		{`{"jsonrpc":"2.0","id":5,"method":`, "null", -32700, true},
		{`not json at all`, "null", -32700, true},
		{`[1,2,3]`, "null", -32600, true},
		{`{"jsonrpc":"1.0","id":6,"method":"workspace/contextSelect","params":{"query":"x"}}`, "6", -32600, true},
		{`{"jsonrpc":"2.0","id":1.5,"method":"workspace/contextSelect","params":{"query":"x"}}`, "1.5", -32600, true},
		{`{"jsonrpc":"2.0","id":{"a":1},"method":"workspace/contextSelect"}`, "null", -32600, true},
		{`{"jsonrpc":"2.0","method":7}`, "null", -32600, true},
	} {
		c.sendBytes([]byte(tc.body))
		r := c.response(tc.id)
		c.mu.Lock()
		delete(c.responses, mustKey(tc.id))
		c.mu.Unlock()
		if r.Error == nil || r.Error.Code != tc.code {
			t.Errorf("body %s: answered %+v, want error %d", tc.body, r, tc.code)
		}
	}
	c.send(json.RawMessage(`"after"`), "workspace/contextSelect", `{"query":"reserve stock"}`)
	if r := c.response(`"after"`); r.Error != nil {
		t.Errorf("select after malformed messages: %s", r.Error.Message)
	}
	select {
	case err := <-done:
		t.Fatalf("the server ended: %v", err)
	default:
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
