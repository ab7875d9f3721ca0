package embed

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/symbolindex/embed/onnxtest"
)

// wpTestVocab loads the onnxtest vocabulary through vocab.txt.
func wpTestVocab(t testing.TB) *WordPiece {
	t.Helper()
	dir := t.TempDir()
	if err := onnxtest.WriteVocab(dir); err != nil {
		t.Fatal(err)
	}
	wp, err := LoadVocab(dir)
	if err != nil {
		t.Fatalf("LoadVocab: %v", err)
	}
	return wp
}

// wpIDs maps tokens to their ids in the onnxtest vocabulary (its line
// numbers), independently of the tokenizer.
func wpIDs(t testing.TB, tokens ...string) []int64 {
	t.Helper()
	vocab := onnxtest.Vocab()
	ids := make([]int64, len(tokens))
	for i, tok := range tokens {
		id := slices.Index(vocab, tok)
		if id < 0 {
			t.Fatalf("test vocabulary has no %q", tok)
		}
		ids[i] = int64(id)
	}
	return ids
}

func TestWordPieceEncode(t *testing.T) {
	wp := wpTestVocab(t)
	cases := []struct {
		text string
		want []string // between [CLS] and [SEP]
	}{
		{"", nil},
		{"   \t\n ", nil},
		{"parse config", []string{"parse", "config"}},
		{"HTTP Request", []string{"http", "request"}},
		{"Café", []string{"cafe"}},
		{"naïve RÉSUMÉ", []string{"naive", "resume"}},
		{"Cafe\u0301", []string{"cafe"}}, // combining acute accent (Mn) dropped
		{"parse(config);", []string{"parse", "(", "config", ")", ";"}},
		{"a.b-c", []string{"a", ".", "[UNK]", "-", "[UNK]"}},
		{"config—server", []string{"config", "[UNK]", "server"}}, // em dash is punctuation, not in vocab
		{"unaffable", []string{"un", "##aff", "##able"}},
		{"handlers", []string{"handler", "##s"}},
		{"handles", []string{"handle", "##s"}},
		{"parser", []string{"parse", "##r"}},
		{"parsing", []string{"[UNK]"}}, // no split covers it
		{"xyzzy config", []string{"[UNK]", "config"}},
		{"中文test", []string{"中", "文", "test"}},
		{"日本 字", []string{"日", "本", "字"}},
		{"te\u200bst\x00 run\u0007", []string{"test", "run"}},    // format and control chars dropped
		{"run\u00a0test\u3000go", []string{"run", "test", "go"}}, // Unicode spaces split
		{"s3", []string{"[UNK]"}},
		{"http2", []string{"http", "##2"}},
	}
	for _, c := range cases {
		got := wp.Encode(c.text)
		want := wpIDs(t, append(append([]string{"[CLS]"}, c.want...), "[SEP]")...)
		if !slices.Equal(got, want) {
			t.Errorf("Encode(%q) = %v, want %v (%v)", c.text, got, want, c.want)
		}
	}
}

func TestWordPieceLongWords(t *testing.T) {
	wp := wpTestVocab(t)
	// 100 runes is still a word: "a" then 99 "##a".
	got := wp.Encode(strings.Repeat("a", 100))
	want := wpIDs(t, "[CLS]", "a")
	for range 99 {
		want = append(want, wpIDs(t, "##a")...)
	}
	want = append(want, wpIDs(t, "[SEP]")...)
	if !slices.Equal(got, want) {
		t.Errorf("100 a's: got %d ids %v", len(got), got[:min(len(got), 6)])
	}
	// 101 runes is [UNK], even though it could be split.
	got = wp.Encode(strings.Repeat("a", 101) + " go")
	if want := wpIDs(t, "[CLS]", "[UNK]", "go", "[SEP]"); !slices.Equal(got, want) {
		t.Errorf("101 a's: got %v, want %v", got, want)
	}
}

func TestWordPieceTruncation(t *testing.T) {
	wp := wpTestVocab(t)
	test := wpIDs(t, "test")[0]
	got := wp.Encode(strings.Repeat("test ", 300))
	if len(got) != 256 {
		t.Fatalf("len = %d, want 256 (default MaxTokens)", len(got))
	}
	cls, sep := wpIDs(t, "[CLS]")[0], wpIDs(t, "[SEP]")[0]
	if got[0] != cls || got[255] != sep {
		t.Errorf("truncated encoding must keep [CLS] first and [SEP] last: %v … %v", got[:2], got[254:])
	}
	for i, id := range got[1:255] {
		if id != test {
			t.Fatalf("id %d = %d, want test (%d)", i+1, id, test)
		}
	}
	// A word's pieces are cut at the limit too.
	wp.MaxTokens = 4
	got = wp.Encode("unaffable config")
	if want := wpIDs(t, "[CLS]", "un", "##aff", "[SEP]"); !slices.Equal(got, want) {
		t.Errorf("MaxTokens 4: got %v, want %v", got, want)
	}
	wp.MaxTokens = 1 // counts as 2
	if got, want := wp.Encode("config"), wpIDs(t, "[CLS]", "[SEP]"); !slices.Equal(got, want) {
		t.Errorf("MaxTokens 1: got %v, want %v", got, want)
	}
}

func TestWordPieceAppendEncodeReusesBuffer(t *testing.T) {
	wp := wpTestVocab(t)
	buf := wp.AppendEncode(nil, "parse config")
	buf = wp.AppendEncode(buf, "server")
	want := wpIDs(t, "[CLS]", "parse", "config", "[SEP]", "[CLS]", "server", "[SEP]")
	if !slices.Equal(buf, want) {
		t.Errorf("got %v, want %v", buf, want)
	}
}

// wpWriteTokenizerJSON writes a tokenizer.json with the given normalizer
// JSON ("" for none).
func wpWriteTokenizerJSON(t *testing.T, normalizer string) string {
	t.Helper()
	dir := t.TempDir()
	if normalizer == "" {
		normalizer = "null"
	}
	data := `{"version":"1.0","normalizer":` + normalizer + `,
	"model":{"type":"WordPiece","unk_token":"[UNK]","continuing_subword_prefix":"##","max_input_chars_per_word":100,
	"vocab":{"[PAD]":0,"[UNK]":1,"[CLS]":2,"[SEP]":3,"Café":4,"cafe":5,"##s":6,"Cafe":7}}}`
	if err := os.WriteFile(filepath.Join(dir, "tokenizer.json"), []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestWordPieceTokenizerJSON(t *testing.T) {
	cases := []struct {
		name, normalizer string
		want             []int64
	}{
		{"no normalizer is uncased", "", []int64{2, 5, 6, 3}},
		{"bert uncased", `{"type":"BertNormalizer","clean_text":true,"handle_chinese_chars":true,"strip_accents":null,"lowercase":true}`, []int64{2, 5, 6, 3}},
		{"bert cased", `{"type":"BertNormalizer","strip_accents":null,"lowercase":false}`, []int64{2, 4, 6, 3}},
		{"lowercase keeping accents", `{"type":"BertNormalizer","strip_accents":false,"lowercase":true}`, []int64{2, 1, 3}},
		{"cased without accents", `{"type":"Sequence","normalizers":[{"type":"NFD"},{"type":"StripAccents"}]}`, []int64{2, 7, 6, 3}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			wp, err := LoadVocab(wpWriteTokenizerJSON(t, c.normalizer))
			if err != nil {
				t.Fatalf("LoadVocab: %v", err)
			}
			if got := wp.Encode("Cafés"); !slices.Equal(got, c.want) {
				t.Errorf("Encode(Cafés) = %v, want %v", got, c.want)
			}
			if wp.Size() != 8 {
				t.Errorf("Size = %d, want 8", wp.Size())
			}
		})
	}
}

func TestWordPieceLoadErrors(t *testing.T) {
	write := func(t *testing.T, name, data string) string {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	cases := []struct {
		name string
		dir  func(t *testing.T) string
		want []string
	}{
		{"no files", func(t *testing.T) string { return t.TempDir() }, []string{"no vocab.txt or tokenizer.json in"}},
		{"vocab without UNK", func(t *testing.T) string { return write(t, "vocab.txt", "[PAD]\n[CLS]\n[SEP]\nhello\n") }, []string{"vocab.txt", "no [UNK] token"}},
		{"vocab without SEP", func(t *testing.T) string { return write(t, "vocab.txt", "[PAD]\n[UNK]\n[CLS]\n") }, []string{"no [SEP] token"}},
		{"bad json", func(t *testing.T) string { return write(t, "tokenizer.json", "{not json") }, []string{"tokenizer.json", "not a tokenizer.json"}},
		{"bpe model", func(t *testing.T) string {
			return write(t, "tokenizer.json", `{"model":{"type":"BPE","vocab":{"a":0}}}`)
		}, []string{"tokenizer.json", `"BPE" is not WordPiece`}},
		{"empty vocab", func(t *testing.T) string { return write(t, "tokenizer.json", `{"model":{"type":"WordPiece"}}`) }, []string{"model.vocab is missing"}},
		{"negative id", func(t *testing.T) string {
			return write(t, "tokenizer.json", `{"model":{"type":"WordPiece","vocab":{"[UNK]":-3}}}`)
		}, []string{"out of range"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := c.dir(t)
			_, err := LoadVocab(dir)
			if err == nil {
				t.Fatal("LoadVocab succeeded")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
		})
	}
}

func FuzzWordPieceEncode(f *testing.F) {
	for _, s := range []string{"", "Café parse(config)", "中文test", strings.Repeat("ab ", 200), "\xff\xfe bad utf8", "a\u0301\u0302\u0303"} {
		f.Add(s, 16)
	}
	wp := wpTestVocab(f)
	f.Fuzz(func(t *testing.T, text string, maxTokens int) {
		w := *wp
		w.MaxTokens = maxTokens % 600
		ids := w.Encode(text)
		limit := w.MaxTokens
		if limit <= 0 {
			limit = 256
		}
		limit = max(limit, 2)
		if len(ids) < 2 || len(ids) > limit {
			t.Fatalf("len %d outside 2..%d", len(ids), limit)
		}
		if ids[0] != w.cls || ids[len(ids)-1] != w.sep {
			t.Fatalf("encoding not framed by [CLS] … [SEP]: %v", ids)
		}
		for _, id := range ids {
			if id < 0 || id >= int64(w.Size()) {
				t.Fatalf("id %d outside the vocabulary", id)
			}
		}
	})
}

func BenchmarkWordPieceEncode(b *testing.B) {
	wp := wpTestVocab(b)
	text := strings.Repeat("func (s *Server) handleRequest(ctx context.Context, req *http.Request) error { return s.router.Route(req) } ", 4)
	var buf []int64
	var scratch wpScratch // as the ONNX embedder holds it
	tokens := 0
	for b.Loop() {
		buf = wp.appendEncode(buf[:0], text, &scratch)
		tokens += len(buf)
	}
	b.ReportMetric(float64(tokens)/b.Elapsed().Seconds(), "tokens/s")
}
