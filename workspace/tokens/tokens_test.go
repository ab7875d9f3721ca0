package tokens

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	tiktoken "github.com/pkoukk/tiktoken-go"
)

// whole counts text in one piece with tiktoken-go, as a model's API would.
func whole(t *testing.T, name, text string) int {
	t.Helper()
	enc := tiktokens[name]
	if enc == nil {
		var err error
		if enc, err = tiktoken.GetEncoding(name); err != nil {
			t.Fatal(err)
		}
		tiktokens[name] = enc
	}
	return len(enc.Encode(text, nil, nil))
}

var tiktokens = map[string]*tiktoken.Tiktoken{}

// TestCountIsTheWholeTextsCount: counting by chunks of lines gives exactly
// the tokens of the whole text, on this repository's code and docs and on
// random texts made of the pieces where a chunk boundary could go wrong
// (line breaks before whitespace, slashes, blank lines, "\r\n", Unicode
// spaces and letters, numbers, contractions).
func TestCountIsTheWholeTextsCount(t *testing.T) {
	var texts []string
	for _, pat := range []string{"../*.go", "../../docs/*.md", "../../editors/vscode/src/*.ts", "../../symbolindex/*.go"} {
		files, err := filepath.Glob(pat)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files[:min(len(files), 8)] {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			texts = append(texts, string(b))
		}
	}
	if len(texts) < 20 {
		t.Fatalf("only %d files to count", len(texts))
	}
	parts := []string{"\n", "\n", "\n", "\r\n", " ", "  ", "\t", "/", "//", "}", "{", "(", ")", "a", "The", "func", "'s", "'LL",
		"123", "4567", "\u00a0", "\u3000", "é", "日本", "  \n", "\n\n", "\n \n", "\n/", "\n\t/", "x", "—", "🙂", "<|endoftext|>", ".", "#", "\x85", "\v", "\f"}
	r := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		var b strings.Builder
		for range 1 + r.IntN(60) {
			b.WriteString(parts[r.IntN(len(parts))])
		}
		texts = append(texts, b.String())
	}
	for _, name := range Names {
		e, err := Get(name)
		if err != nil {
			t.Fatal(err)
		}
		chunked := 0
		for _, text := range texts {
			if split(text) < len(text) {
				chunked++
			}
			if got, want := e.Count(text), whole(t, name, text); got != want {
				t.Errorf("%s: %d tokens by chunks, %d whole, in %q", name, got, want, text[:min(len(text), 200)])
			}
		}
		if chunked < len(texts)/4 {
			t.Errorf("%s: only %d of %d texts were cut into chunks", name, chunked, len(texts))
		}
	}
}

func TestUnknownEncoding(t *testing.T) {
	if _, err := Get("p50k_base"); err == nil || !strings.Contains(err.Error(), "o200k_base or cl100k_base") {
		t.Errorf("want an error naming the encodings, got %v", err)
	}
	if e, err := Get(""); err != nil || e.Name() != Default {
		t.Errorf(`Get(""): %v, %v`, e, err)
	}
}
