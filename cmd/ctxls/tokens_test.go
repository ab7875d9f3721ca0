package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	tiktoken "github.com/pkoukk/tiktoken-go"
	tiktoken_loader "github.com/pkoukk/tiktoken-go-loader"

	"github.com/ctxls/ctxls/lsp/wire"
	"github.com/ctxls/ctxls/workspace/txtartest"
)

// textTokens counts each item's text with tiktoken-go and sums them.
func textTokens(t *testing.T, encoding string, items []wire.Item) int {
	t.Helper()
	tiktoken.SetBpeLoader(tiktoken_loader.NewOfflineLoader())
	enc, err := tiktoken.GetEncoding(encoding)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, it := range items {
		n += len(enc.Encode(it.Text, nil, nil))
	}
	return n
}

// TestSelectMaxTokens: `ctxls select --max-tokens N` answers items whose
// texts total at most N tokens (counted here by the tokenizer) and fill
// at least half of them; --max-chars bounds them too only when given (its
// default does not); the readable listing says the tokens used.
func TestSelectMaxTokens(t *testing.T) {
	root := txtartest.DirFromFile(t, filepath.Join("..", "..", "testdata", "workspaces", "shop.txtar"))
	sel := func(args ...string) wire.Result {
		t.Helper()
		args = append([]string{"select", "--root", root, "--cache-dir", "off", "--json"}, args...)
		code, stdout, stderr := cliRun(t, append(args, "apply a coupon discount to the cart total at checkout")...)
		if code != 0 || stderr != "" {
			t.Fatalf("ctxls %q: exit %d, stderr %q", args, code, stderr)
		}
		var res wire.Result
		if err := json.Unmarshal([]byte(stdout), &res); err != nil {
			t.Fatalf("output is not a result object: %v", err)
		}
		return res
	}
	for _, tc := range []struct {
		args  []string
		max   int
		enc   string
		chars int // a --max-chars given; 0 if none
	}{
		{[]string{"--max-tokens", "400"}, 400, "o200k_base", 0},
		{[]string{"--max-tokens", "400", "--token-encoding", "cl100k_base"}, 400, "cl100k_base", 0},
		// More tokens than the default 12,000 characters hold: without
		// --max-chars the token budget alone bounds the answer.
		{[]string{"--max-tokens", "6000", "--limit", "30"}, 6000, "o200k_base", 0},
		{[]string{"--max-tokens", "6000", "--limit", "30", "--max-chars", "5000"}, 6000, "o200k_base", 5000},
	} {
		res := sel(tc.args...)
		got := textTokens(t, tc.enc, res.Items)
		if res.UsedTokens == nil || *res.UsedTokens != got || res.TokenEncoding != tc.enc {
			t.Errorf("%q: usedTokens %v in %q, counted %d", tc.args, res.UsedTokens, res.TokenEncoding, got)
		}
		if got > tc.max {
			t.Errorf("%q: %d tokens over the budget of %d", tc.args, got, tc.max)
		}
		switch {
		case tc.chars > 0:
			if res.UsedChars > tc.chars || res.UsedChars < tc.chars/2 {
				t.Errorf("%q: %d chars, want between %d and %d", tc.args, res.UsedChars, tc.chars/2, tc.chars)
			}
		case got < tc.max/2:
			t.Errorf("%q: only %d tokens of %d used", tc.args, got, tc.max)
		}
		if tc.max == 6000 && tc.chars == 0 && res.UsedChars <= 12000 {
			t.Errorf("%q: %d chars; the default --max-chars bounded a token budget", tc.args, res.UsedChars)
		}
	}

	code, stdout, stderr := cliRun(t, "select", "--root", root, "--cache-dir", "off", "--max-tokens", "300", "coupon", "discount")
	if code != 0 || !strings.Contains(stdout, " tokens (o200k_base);") {
		t.Errorf("the listing does not say the tokens used (exit %d, stderr %q):\n%s", code, stderr, stdout)
	}
	cliUsageError(t, []string{"select", "--root", root, "--cache-dir", "off", "--max-tokens", "300", "--token-encoding", "gpt2", "coupon"},
		"--token-encoding", `"gpt2"`, "o200k_base or cl100k_base")
	cliUsageError(t, []string{"select", "--root", root, "--cache-dir", "off", "--max-tokens", "-3", "coupon"}, "--max-tokens", "-3")
}
