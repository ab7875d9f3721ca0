package mcp

import (
	"strings"
	"testing"

	tiktoken "github.com/pkoukk/tiktoken-go"
	tiktoken_loader "github.com/pkoukk/tiktoken-go-loader"
)

// TestSelectContextMaxTokens: select_context with maxTokens answers items
// whose texts total at most that many tokens of the encoding (counted
// here by the tokenizer), at least half of them, says so in its summary,
// and names the argument of a bad encoding.
func TestSelectContextMaxTokens(t *testing.T) {
	root := fixture(t, "shop")
	cs := connect(t, root)
	waitReady(t, cs)
	tiktoken.SetBpeLoader(tiktoken_loader.NewOfflineLoader())
	for _, enc := range []string{"o200k_base", "cl100k_base"} {
		tk, err := tiktoken.GetEncoding(enc)
		if err != nil {
			t.Fatal(err)
		}
		for _, budget := range []int{250, 900} {
			res := call(t, cs, "select_context", map[string]any{"query": "expired coupon codes are still accepted at checkout", "maxTokens": budget, "tokenEncoding": enc})
			var out SelectOutput
			decode(t, res, &out)
			got := 0
			for _, it := range out.Items {
				got += len(tk.Encode(it.Text, nil, nil))
			}
			if got > budget || got < budget/2 {
				t.Errorf("%s, maxTokens %d: %d items hold %d tokens, want between %d and %d", enc, budget, len(out.Items), got, budget/2, budget)
			}
			if out.UsedTokens == nil || *out.UsedTokens != got || out.TokenEncoding != enc {
				t.Errorf("%s, maxTokens %d: usedTokens %v in %q, counted %d", enc, budget, out.UsedTokens, out.TokenEncoding, got)
			}
			if sum := text(res); !strings.Contains(sum, " tokens, "+enc+")") {
				t.Errorf("the summary does not say the tokens used:\n%s", sum[max(0, len(sum)-300):])
			}
		}
	}
	// The snake_case spellings agents use are the same arguments.
	tk, err := tiktoken.GetEncoding("cl100k_base")
	if err != nil {
		t.Fatal(err)
	}
	res := call(t, cs, "select_context", map[string]any{"query": "expired coupon codes are still accepted at checkout", "max_tokens": 300, "token_encoding": "cl100k_base"})
	var snake SelectOutput
	decode(t, res, &snake)
	got := 0
	for _, it := range snake.Items {
		got += len(tk.Encode(it.Text, nil, nil))
	}
	if got > 300 || got < 150 || snake.TokenEncoding != "cl100k_base" {
		t.Errorf("max_tokens 300, token_encoding cl100k_base: %d items hold %d tokens in %q", len(snake.Items), got, snake.TokenEncoding)
	}
	res = call(t, cs, "select_context", map[string]any{"query": "coupon", "maxTokens": 500, "tokenEncoding": "r50k_base"})
	if !res.IsError || !strings.Contains(text(res), "invalid argument tokenEncoding") || !strings.Contains(text(res), "o200k_base or cl100k_base") {
		t.Errorf("unknown encoding: want a tool error naming tokenEncoding and the encodings, got isError=%v %q", res.IsError, text(res))
	}
	res = call(t, cs, "select_context", map[string]any{"query": "coupon", "maxTokens": -1})
	if !res.IsError || !strings.Contains(text(res), "invalid argument maxTokens") {
		t.Errorf("negative maxTokens: want a tool error naming maxTokens, got isError=%v %q", res.IsError, text(res))
	}
}
