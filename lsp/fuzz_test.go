package lsp

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"go.lsp.dev/jsonrpc2"

	"github.com/ctxls/ctxls/lsp/jsonfront"
)

// fuzzConn is a connection whose input is fixed bytes and whose output is
// discarded.
type fuzzConn struct{ io.Reader }

func (fuzzConn) Write(p []byte) (int, error) { return len(p), nil }
func (fuzzConn) Close() error                { return nil }

// finalFrame is a valid request FuzzFraming appends to every input.
const finalFrame = "Content-Length: 57\r\n\r\n{\"jsonrpc\":\"2.0\",\"id\":\"fuzz-final\",\"method\":\"fuzz/final\"}"

// FuzzFraming: any byte stream read as LSP base-protocol frames, followed
// by a valid request, gives messages, never a panic or a hang, never an
// error before the end of the input, and the valid request at the end:
// whatever came before (bodies shorter or longer than their
// Content-Length, junk lines, nesting past the bound), the stream finds the
// next header again.
func FuzzFraming(f *testing.F) {
	deep := strings.Repeat("[", jsonfront.MaxDepth+5)
	for _, s := range []string{
		"Content-Length: 2\r\n\r\n{}",
		"Content-Length: 52\r\n\r\n{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"shutdown\"}       ",
		"Content-Length: 10\r\nContent-Type: application/vscode-jsonrpc\r\n\r\n[1,2,3,4]\n",
		"Content-Length: -1\r\n\r\n", "Content-Length: 99999999999\r\n\r\n", "content-length:3\n\n{}}",
		"Content-Length: 40\r\n\r\n{\"jsonrpc\":\"2.0\",\"id\":{},\"method\":1}",
		"\r\n\r\n", "Content-Length 5\r\n\r\nhello", "Content-Length: 5\r\n\r\nhel",
		"Content-Length: 100\r\n\r\n{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"x\"}",
		"Content-Length: 100\r\n\r\n{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"x",
		"Content-Length: 20\r\n\r\n{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"x\"}",
		"Content-Length: 3\r\n\r\n", "Content-Length: 3\r\n\r\n{\"\\u",
		"junk line\r\nmore junk", "Content-Length: 12", "Content-Length: 1", "Content-Type: x\r\n\r\n{\"id\":4}",
		"Content-Length: 5000\r\n\r\n" + deep, "Content-Length: 5000\r\n\r\n{\"id\":1,\"p\":" + deep + "\"",
		"\x00\x00\x00", strings.Repeat("x", 10000),
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		in := append(append([]byte(nil), data...), finalFrame...)
		s := newStream(fuzzConn{bytes.NewReader(in)})
		defer s.Close()
		var last jsonrpc2.Message
		for range len(in) + 1 {
			msg, _, err := s.Read(context.Background())
			if err == nil {
				last = msg
				continue
			}
			if !isEOF(err) {
				t.Fatalf("Read failed before the end of the input: %v", err)
			}
			req, ok := last.(*jsonrpc2.Call)
			if !ok || req.Method() != "fuzz/final" || req.ID() != jsonrpc2.NewStringID("fuzz-final") {
				t.Fatalf("the valid request at the end was not read; the last message was %#v", last)
			}
			return
		}
		t.Fatal("more messages than bytes")
	})
}

// FuzzRequests: any request or notification, with any params, leaves the
// server answering: a contextSelect sent after it gets a result.
func FuzzRequests(f *testing.F) {
	root := f.TempDir()
	writeFile(f, filepath.Join(root, "main.go"), "package main\n\n// Run starts the service.\nfunc Run() {}\n")
	for _, s := range []struct{ method, params string }{
		{"workspace/contextSelect", `{"query":"run the service","limit":3,"maxChars":500,"activeUri":"file:///x.go","position":{"line":1,"character":2}}`},
		{"workspace/contextSelect", `{"query":"x","pinned":["sym:main.go::Run","file:main.go","file:///etc/passwd"],"paths":["**/*.go"],"kinds":["function"]}`},
		{"workspace/contextSelect", `{"query":"","history":["a","b"],"minScore":1e308,"maxCharsPerItem":-1}`},
		{"textDocument/didOpen", `{"textDocument":{"uri":"` + uri(root, "main.go") + `","languageId":"go","version":1,"text":"package main\n"}}`},
		{"textDocument/didChange", `{"textDocument":{"uri":"` + uri(root, "main.go") + `","version":2},"contentChanges":[{"range":{"start":{"line":9,"character":99},"end":{"line":0,"character":0}},"text":"x"}]}`},
		{"textDocument/didClose", `{"textDocument":{"uri":"` + uri(root, "../../etc/passwd") + `"}}`},
		{"workspace/didChangeWatchedFiles", `{"changes":[{"uri":"` + uri(root, "main.go") + `","type":3},{"uri":"file:///","type":1}]}`},
		{"workspace/didChangeWorkspaceFolders", `{"event":{"added":[{"uri":"file:///nonexistent","name":"x"}],"removed":[]}}`},
		{"workspace/didChangeConfiguration", `{"settings":{"ctxls":{"maxFileBytes":-5,"exclude":["["]}}}`},
		{"ctxls/didFocus", `{"uri":"` + uri(root, "main.go") + `","position":{"line":-1,"character":1e9}}`},
		{"$/cancelRequest", `{"id":"probe"}`},
		{"initialize", `{}`},
		{"workspace/contextSelect", `[1,2,3]`},
		{"unknown/method", `null`},
	} {
		f.Add(s.method, []byte(s.params))
	}
	f.Fuzz(func(t *testing.T, method string, params []byte) {
		if method == "shutdown" || method == "exit" {
			return // they end the session, as they must
		}
		c, _ := rawPipe(t, nil)
		c.start(root)
		raw := json.RawMessage(params)
		if !json.Valid(params) {
			raw, _ = json.Marshal(string(params))
		}
		c.send(nil, method, string(raw))
		c.send(json.RawMessage(`"fuzz"`), method, string(raw))
		c.send(json.RawMessage(`"probe"`), "workspace/contextSelect", `{"query":"run the service"}`)
		if r := c.response(`"probe"`); r.Error != nil {
			t.Fatalf("after %s %s, contextSelect failed: %s", method, params, r.Error.Message)
		}
		c.response(`"fuzz"`)
	})
}
