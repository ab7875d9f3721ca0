package workspace

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	tiktoken "github.com/pkoukk/tiktoken-go"
	tiktoken_loader "github.com/pkoukk/tiktoken-go-loader"

	"github.com/ctxls/ctxls/workspace/config"
	"github.com/ctxls/ctxls/workspace/txtartest"
)

// tokCount counts the tokens of texts with tiktoken-go itself, apart from
// the workspace's tokens package: each text alone, summed, as maxTokens
// is defined.
func tokCount(t *testing.T, encoding string, texts []string) int {
	t.Helper()
	enc := tokTiktokens[encoding]
	if enc == nil {
		tiktoken.SetBpeLoader(tiktoken_loader.NewOfflineLoader())
		var err error
		if enc, err = tiktoken.GetEncoding(encoding); err != nil {
			t.Fatal(err)
		}
		tokTiktokens[encoding] = enc
	}
	n := 0
	for _, s := range texts {
		n += len(enc.Encode(s, nil, nil))
	}
	return n
}

var tokTiktokens = map[string]*tiktoken.Tiktoken{}

func selTexts(res *Selection) []string {
	out := make([]string, len(res.Items))
	for i, it := range res.Items {
		out[i] = it.Text
	}
	return out
}

// tokOpenShop indexes the shop workspace of the golden cases (49 files).
func tokOpenShop(t *testing.T) (*Workspace, string) {
	t.Helper()
	dir := txtartest.DirFromFile(t, filepath.Join("..", "testdata", "workspaces", "shop.txtar"))
	cfg := DefaultConfig()
	cfg.CacheDir = CacheDirOff
	ws, err := New(cfg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	f, err := ws.AddFolder(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ws.Index(t.Context(), nil); err != nil {
		t.Fatal(err)
	}
	return ws, f.Root
}

// TestSelectMaxTokens: the items' texts total at most maxTokens tokens of
// the named encoding, counted by the tokenizer, and fill at least half of
// it; usedTokens is their count. Every item keeps the invariants (a text
// cut to the budget is still exactly the lines its range names).
func TestSelectMaxTokens(t *testing.T) {
	ws, root := tokOpenShop(t)
	for _, enc := range []string{"", "o200k_base", "cl100k_base"} {
		for _, max := range []int{120, 400, 1500} {
			req := &SelectRequest{Query: "apply a coupon discount to the cart total at checkout", MaxTokens: max, TokenEncoding: enc}
			res := selDo(t, ws, req)
			name := enc
			if name == "" {
				name = "o200k_base"
			}
			got := tokCount(t, name, selTexts(res))
			if got > max || got < max/2 {
				t.Errorf("%s, maxTokens %d: the texts hold %d tokens, want between %d and %d", name, max, got, max/2, max)
			}
			if res.UsedTokens != got || res.TokenEncoding != name {
				t.Errorf("%s, maxTokens %d: usedTokens %d in %q, counted %d", name, max, res.UsedTokens, res.TokenEncoding, got)
			}
			selCheckItems(t, root, req, res)
		}
	}
}

// TestSelectMaxTokensAndMaxChars: with both budgets, both hold; the
// smaller one is the one that binds.
func TestSelectMaxTokensAndMaxChars(t *testing.T) {
	ws, root := tokOpenShop(t)
	q := "apply a coupon discount to the cart total at checkout"
	for _, tc := range []struct{ tokens, chars int }{{2000, 1500}, {300, 20000}} {
		req := &SelectRequest{Query: q, MaxTokens: tc.tokens, MaxChars: tc.chars}
		res := selDo(t, ws, req)
		got := tokCount(t, "o200k_base", selTexts(res))
		if got > tc.tokens || res.UsedChars > tc.chars {
			t.Errorf("maxTokens %d, maxChars %d: %d tokens, %d chars", tc.tokens, tc.chars, got, res.UsedChars)
		}
		// Half of the binding budget is used.
		if tokBound := float64(tc.tokens)*3.4 < float64(tc.chars); tokBound && got < tc.tokens/2 || !tokBound && res.UsedChars < tc.chars/2 {
			t.Errorf("maxTokens %d, maxChars %d: only %d tokens, %d chars used", tc.tokens, tc.chars, got, res.UsedChars)
		}
		selCheckItems(t, root, req, res)
	}
	// Without maxTokens nothing is counted, and tokenEncoding alone
	// counts the same answer without bounding it.
	plain := selDo(t, ws, &SelectRequest{Query: q})
	counted := selDo(t, ws, &SelectRequest{Query: q, TokenEncoding: "cl100k_base"})
	if plain.TokenEncoding != "" || plain.UsedTokens != 0 {
		t.Errorf("a request without a token budget was counted: %d tokens in %q", plain.UsedTokens, plain.TokenEncoding)
	}
	if strings.Join(selTexts(plain), "\x00") != strings.Join(selTexts(counted), "\x00") {
		t.Errorf("tokenEncoding alone changed the answer: %q, then %q", selIDs(plain), selIDs(counted))
	}
	if want := tokCount(t, "cl100k_base", selTexts(counted)); counted.UsedTokens != want || counted.TokenEncoding != "cl100k_base" {
		t.Errorf("tokenEncoding alone: usedTokens %d in %q, counted %d", counted.UsedTokens, counted.TokenEncoding, want)
	}
}

// tokDense is code with far fewer characters per token than the guess
// packing starts from (tables of small numbers: ", 7" is three tokens), so
// that the first packing holds about three times the budget and the last
// items must be cut or left out.
var tokDense = func() string {
	var b strings.Builder
	b.WriteString("-- tables/tables.go --\npackage tables\n")
	for f := range 6 {
		fmt.Fprintf(&b, "\n// Weights%d is the weight table of the rate shaper, stage %d.\nfunc Weights%d() []int {\n\treturn []int{\n", f, f, f)
		for l := range 14 {
			b.WriteString("\t\t")
			for k := range 12 {
				fmt.Fprintf(&b, "%d, ", (f*7+l*3+k)%10)
			}
			b.WriteString("\n")
		}
		b.WriteString("\t}\n}\n")
	}
	return b.String()
}()

func TestSelectMaxTokensDenseText(t *testing.T) {
	ws, root := selOpen(t, tokDense, Options{})
	for _, max := range []int{200, 500, 900} {
		req := &SelectRequest{Query: "weight table of the rate shaper", MaxTokens: max}
		res := selDo(t, ws, req)
		got := tokCount(t, "o200k_base", selTexts(res))
		if got > max || got < max/2 {
			t.Errorf("maxTokens %d: the texts hold %d tokens (%d chars in %d items), want between %d and %d", max, got, res.UsedChars, len(res.Items), max/2, max)
		}
		if float64(res.UsedChars) > 2*float64(max) {
			t.Errorf("maxTokens %d: %d chars; these tables hold under 2 characters a token", max, res.UsedChars)
		}
		selCheckItems(t, root, req, res)
	}
}

// TestSelectTokenParamErrors: a bad maxTokens or an unknown encoding is a
// ParamError that names the field and, for the encoding, the ones known.
func TestSelectTokenParamErrors(t *testing.T) {
	ws, _ := selOpen(t, tokDense, Options{})
	for _, tc := range []struct {
		req   SelectRequest
		field string
		want  []string
	}{
		{SelectRequest{Query: "weights", MaxTokens: -5}, "maxTokens", []string{"-5"}},
		{SelectRequest{Query: "weights", MaxTokens: config.MaxMaxTokens + 1}, "maxTokens", []string{"16777216"}},
		{SelectRequest{Query: "weights", MaxTokens: 500, TokenEncoding: "gpt2"}, "tokenEncoding", []string{`"gpt2"`, "o200k_base", "cl100k_base"}},
		{SelectRequest{Query: "weights", TokenEncoding: "O200K_BASE"}, "tokenEncoding", []string{"o200k_base"}},
	} {
		_, err := ws.Select(t.Context(), &tc.req)
		var pe *ParamError
		if !errors.As(err, &pe) || pe.Field != tc.field {
			t.Errorf("%+v: want a ParamError for %s, got %v", tc.req, tc.field, err)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(pe.Msg, w) {
				t.Errorf("%+v: error %q does not mention %s", tc.req, err, w)
			}
		}
	}
}
