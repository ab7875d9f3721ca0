package lsp

import (
	"encoding/json"
	"io"
	"path/filepath"
	"strings"
	"testing"

	tiktoken "github.com/pkoukk/tiktoken-go"
	tiktoken_loader "github.com/pkoukk/tiktoken-go-loader"
	"go.lsp.dev/jsonrpc2"

	"github.com/ctxls/ctxls/workspace/txtartest"
)

// countTokens counts each text's tokens with tiktoken-go and sums them.
func countTokens(t *testing.T, encoding string, items []map[string]any) int {
	t.Helper()
	enc := tiktokens[encoding]
	if enc == nil {
		tiktoken.SetBpeLoader(tiktoken_loader.NewOfflineLoader())
		var err error
		if enc, err = tiktoken.GetEncoding(encoding); err != nil {
			t.Fatal(err)
		}
		tiktokens[encoding] = enc
	}
	n := 0
	for _, it := range items {
		n += len(enc.Encode(it["text"].(string), nil, nil))
	}
	return n
}

var tiktokens = map[string]*tiktoken.Tiktoken{}

// TestMaxTokensOverLSP: contextSelect with maxTokens, over the server's
// stdin and stdout, answers items whose texts total at most that many
// tokens of the encoding (counted here by the tokenizer) and fill at least
// half of it, with usedTokens and tokenEncoding beside usedChars; an
// unknown encoding is InvalidParams naming the field, and the server goes
// on answering.
func TestMaxTokensOverLSP(t *testing.T) {
	root := txtartest.DirFromFile(t, filepath.Join("..", "testdata", "workspaces", "shop.txtar"))
	c := processClient(t, io.Discard, "serve")
	defer c.shutdownExit()
	c.start(root, caps{})
	const q = "apply a coupon discount to the cart total at checkout"
	for _, tc := range []struct {
		max int
		enc string
	}{{300, ""}, {300, "cl100k_base"}, {1200, "o200k_base"}} {
		params := map[string]any{"query": q, "maxTokens": tc.max}
		if tc.enc != "" {
			params["tokenEncoding"] = tc.enc
		}
		var res map[string]any
		c.mustCall("workspace/contextSelect", params, &res)
		enc := tc.enc
		if enc == "" {
			enc = "o200k_base"
		}
		items := toMaps(t, res["items"])
		got := countTokens(t, enc, items)
		if got > tc.max || got < tc.max/2 {
			t.Errorf("maxTokens %d (%s): %d items hold %d tokens, want between %d and %d", tc.max, enc, len(items), got, tc.max/2, tc.max)
		}
		if res["usedTokens"] != float64(got) || res["tokenEncoding"] != enc {
			t.Errorf("maxTokens %d (%s): usedTokens %v, tokenEncoding %v; counted %d", tc.max, enc, res["usedTokens"], res["tokenEncoding"], got)
		}
		chars := 0
		for _, it := range items {
			chars += len(it["text"].(string))
		}
		if res["usedChars"] != float64(chars) {
			t.Errorf("maxTokens %d: usedChars %v, the texts hold %d", tc.max, res["usedChars"], chars)
		}
	}
	// Without a token budget nothing is counted and no token field is sent.
	var plain map[string]any
	c.mustCall("workspace/contextSelect", map[string]any{"query": q}, &plain)
	if _, ok := plain["usedTokens"]; ok {
		t.Errorf("a request without maxTokens got usedTokens %v", plain["usedTokens"])
	}

	err := c.call("workspace/contextSelect", map[string]any{"query": q, "maxTokens": 500, "tokenEncoding": "p50k"}, nil)
	if rpcCode(err) != jsonrpc2.InvalidParams || !strings.Contains(err.Error(), "tokenEncoding") || !strings.Contains(err.Error(), "o200k_base or cl100k_base") {
		t.Errorf("unknown encoding: want InvalidParams naming tokenEncoding and the encodings, got %v", err)
	}
	err = c.call("workspace/contextSelect", map[string]any{"query": q, "maxTokens": -1}, nil)
	if rpcCode(err) != jsonrpc2.InvalidParams || !strings.Contains(err.Error(), "maxTokens") {
		t.Errorf("negative maxTokens: want InvalidParams naming maxTokens, got %v", err)
	}
	if res := c.mustSelect(map[string]any{"query": q, "maxTokens": 200}); len(res.Items) == 0 {
		t.Error("no answer after the bad requests")
	}
}

func toMaps(t *testing.T, v any) []map[string]any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}
