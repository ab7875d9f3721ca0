package embed

import (
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/ctxls/ctxls/symbolindex/embed/onnxtest"
)

// The ONNX Runtime environment is process-wide, so every runtime test
// loads the one library onnxTestLibrary finds.
var onnxTestLib struct {
	once sync.Once
	path string
	err  error
}

// onnxTestLibrary returns the runtime library for the tests, or skips the
// test when there is none, unless CTXLS_REQUIRE_ONNX=1 (CI) makes that a
// failure.
func onnxTestLibrary(t testing.TB) string {
	t.Helper()
	onnxTestLib.once.Do(func() {
		onnxTestLib.path, onnxTestLib.err = FindONNXRuntime("")
	})
	if onnxTestLib.err != nil {
		msg := fmt.Sprintf("ONNX Runtime not available: %v\n"+
			"Fetch it with scripts/fetch-onnxruntime.sh (or set CTXLS_ORT_LIB=/path/to/libonnxruntime.so) to run this test.",
			onnxTestLib.err)
		if os.Getenv("CTXLS_REQUIRE_ONNX") == "1" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return onnxTestLib.path
}

// onnxTestModel writes a test model into a fresh directory.
func onnxTestModel(t testing.TB, o onnxtest.ModelOptions) string {
	t.Helper()
	dir := t.TempDir()
	if err := onnxtest.WriteModel(dir, o); err != nil {
		t.Fatal(err)
	}
	return dir
}

// onnxTestEmbedder opens an embedder on dir with the test library.
func onnxTestEmbedder(t testing.TB, dir string, o ONNXOptions) *ONNXEmbedder {
	t.Helper()
	o.ModelDir = dir
	o.LibraryPath = onnxTestLibrary(t)
	e, err := NewONNXEmbedder(o)
	if err != nil {
		t.Fatalf("NewONNXEmbedder: %v", err)
	}
	t.Cleanup(func() {
		if err := e.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return e
}

// onnxExpected computes, in Go, the vector the test model must yield for
// the given tokens: the mean of their hidden states, L2-normalized.
func onnxExpected(t testing.TB, o onnxtest.ModelOptions, tokens ...string) []float64 {
	t.Helper()
	var sum []float64
	for _, id := range wpIDs(t, tokens...) {
		h := onnxtest.Hidden(o, id)
		if sum == nil {
			sum = make([]float64, len(h))
		}
		for i, x := range h {
			sum[i] += float64(x)
		}
	}
	var norm float64
	for i := range sum {
		sum[i] /= float64(len(tokens))
		norm += sum[i] * sum[i]
	}
	norm = math.Sqrt(norm)
	for i := range sum {
		sum[i] /= norm
	}
	return sum
}

// onnxAssertClose fails when got and want differ by more than tol in any
// component.
func onnxAssertClose(t testing.TB, what string, got []float32, want []float64, tol float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: dim %d, want %d", what, len(got), len(want))
	}
	for i := range got {
		if d := math.Abs(float64(got[i]) - want[i]); d > tol {
			t.Fatalf("%s: component %d = %v, want %v (off by %g)", what, i, got[i], want[i], d)
		}
	}
}

func onnxAsFloat64(v []float32) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = float64(x)
	}
	return out
}

func TestONNXExactVectors(t *testing.T) {
	var o onnxtest.ModelOptions
	e := onnxTestEmbedder(t, onnxTestModel(t, o), ONNXOptions{})
	if e.Dim() != 384 {
		t.Errorf("Dim = %d, want 384", e.Dim())
	}
	if !regexp.MustCompile(`^onnx-384-[0-9a-f]{16}$`).MatchString(e.ID()) {
		t.Errorf("ID = %q, want onnx-384-<16 hex digits>", e.ID())
	}
	texts := []string{"parse config", "Café SERVER!", "", "unaffable http2 request"}
	tokens := [][]string{
		{"[CLS]", "parse", "config", "[SEP]"},
		{"[CLS]", "cafe", "server", "!", "[SEP]"},
		{"[CLS]", "[SEP]"},
		{"[CLS]", "un", "##aff", "##able", "http", "##2", "request", "[SEP]"},
	}
	vecs, err := e.Embed(texts)
	if err != nil {
		t.Fatalf("Embed: %v", err)
	}
	if len(vecs) != len(texts) {
		t.Fatalf("%d vectors for %d texts", len(vecs), len(texts))
	}
	for i, v := range vecs {
		onnxAssertClose(t, fmt.Sprintf("Embed(%q)", texts[i]), v, onnxExpected(t, o, tokens[i]...), 1e-5)
		var norm float64
		for _, x := range v {
			norm += float64(x) * float64(x)
		}
		if math.Abs(norm-1) > 1e-5 {
			t.Errorf("|Embed(%q)|² = %v, want 1", texts[i], norm)
		}
	}
	if got, err := e.Embed(nil); err != nil || len(got) != 0 {
		t.Errorf("Embed(nil) = %v, %v; want no vectors, no error", got, err)
	}
}

func TestONNXBatchEqualsSingles(t *testing.T) {
	dir := onnxTestModel(t, onnxtest.ModelOptions{})
	words := strings.Fields("parse config server http request handler token index search rank vector cache")
	var texts []string
	for i := range 75 {
		// Texts of 1 to 40 words, in no order of length.
		n := 1 + (i*17)%40
		var b strings.Builder
		for j := range n {
			b.WriteString(words[(i+j)%len(words)])
			b.WriteByte(' ')
		}
		texts = append(texts, b.String())
	}
	for _, batch := range []int{32, 5, 1} {
		e := onnxTestEmbedder(t, dir, ONNXOptions{BatchSize: batch})
		all, err := e.Embed(texts)
		if err != nil {
			t.Fatalf("batch %d: Embed: %v", batch, err)
		}
		for i, text := range texts {
			single, err := e.Embed([]string{text})
			if err != nil {
				t.Fatalf("Embed(%q): %v", text, err)
			}
			onnxAssertClose(t, fmt.Sprintf("batch %d, text %d", batch, i), all[i], onnxAsFloat64(single[0]), 1e-6)
		}
	}
}

func TestONNXPaddingDoesNotChangeVector(t *testing.T) {
	var o onnxtest.ModelOptions
	e := onnxTestEmbedder(t, onnxTestModel(t, o), ONNXOptions{})
	long := strings.Repeat("server request ", 60)
	// "parse" runs padded to the long text's length, next to it; the
	// [PAD] embedding is not zero, so pooling over padding would show.
	vecs, err := e.Embed([]string{long, "parse", long})
	if err != nil {
		t.Fatalf("Embed: %v", err)
	}
	onnxAssertClose(t, "padded text", vecs[1], onnxExpected(t, o, "[CLS]", "parse", "[SEP]"), 1e-5)
}

func TestONNXTruncatesLongTexts(t *testing.T) {
	var o onnxtest.ModelOptions
	e := onnxTestEmbedder(t, onnxTestModel(t, o), ONNXOptions{MaxTokens: 8})
	vecs, err := e.Embed([]string{"parse config server http request handler token index search rank"})
	if err != nil {
		t.Fatalf("Embed: %v", err)
	}
	want := onnxExpected(t, o, "[CLS]", "parse", "config", "server", "http", "request", "handler", "[SEP]")
	onnxAssertClose(t, "truncated", vecs[0], want, 1e-5)
}

func TestONNXModelVariants(t *testing.T) {
	variants := map[string]onnxtest.ModelOptions{
		// Without token_type_ids and with another output name: the
		// embedder feeds only the declared inputs and takes the first
		// output.
		"no token types": {Dim: 16, NoTokenTypes: true, OutputName: "embeddings"},
		// The hidden size is not declared: the embedder runs the model
		// once to learn it.
		"symbolic dim": {Dim: 16, SymbolicDim: true},
	}
	for name, o := range variants {
		t.Run(name, func(t *testing.T) {
			e := onnxTestEmbedder(t, onnxTestModel(t, o), ONNXOptions{IntraOpThreads: 1})
			if e.Dim() != 16 || !strings.HasPrefix(e.ID(), "onnx-16-") {
				t.Errorf("Dim %d, ID %q; want 16, onnx-16-…", e.Dim(), e.ID())
			}
			vecs, err := e.Embed([]string{"search index"})
			if err != nil {
				t.Fatalf("Embed: %v", err)
			}
			onnxAssertClose(t, name, vecs[0], onnxExpected(t, o, "[CLS]", "search", "index", "[SEP]"), 1e-5)
		})
	}
}

func TestONNXTokenizerJSONModel(t *testing.T) {
	// tokenizer.json wins over vocab.txt: this one is cased, so "Config"
	// is [UNK] (id 1) while vocab.txt would lowercase it to config.
	o := onnxtest.ModelOptions{Dim: 8}
	dir := onnxTestModel(t, o)
	tj := `{"normalizer":{"type":"BertNormalizer","lowercase":false},"model":{"type":"WordPiece","vocab":{"[PAD]":0,"[UNK]":1,"[CLS]":2,"[SEP]":3}}}`
	if err := os.WriteFile(filepath.Join(dir, "tokenizer.json"), []byte(tj), 0o644); err != nil {
		t.Fatal(err)
	}
	e := onnxTestEmbedder(t, dir, ONNXOptions{})
	vecs, err := e.Embed([]string{"Config"})
	if err != nil {
		t.Fatalf("Embed: %v", err)
	}
	onnxAssertClose(t, "tokenizer.json", vecs[0], onnxExpected(t, o, "[CLS]", "[UNK]", "[SEP]"), 1e-5)
}

func TestONNXHuggingFaceLayout(t *testing.T) {
	// A Hugging Face checkout: tokenizer files at the top, the export in
	// onnx/model.onnx.
	o := onnxtest.ModelOptions{Dim: 8}
	dir := onnxTestModel(t, o)
	if err := os.Mkdir(filepath.Join(dir, "onnx"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(dir, "model.onnx"), filepath.Join(dir, "onnx", "model.onnx")); err != nil {
		t.Fatal(err)
	}
	e := onnxTestEmbedder(t, dir, ONNXOptions{})
	vecs, err := e.Embed([]string{"go test"})
	if err != nil {
		t.Fatalf("Embed: %v", err)
	}
	onnxAssertClose(t, "onnx/model.onnx", vecs[0], onnxExpected(t, o, "[CLS]", "go", "test", "[SEP]"), 1e-5)
}

func TestONNXIDFollowsModelFile(t *testing.T) {
	a := onnxTestEmbedder(t, onnxTestModel(t, onnxtest.ModelOptions{Dim: 8, Seed: 1}), ONNXOptions{})
	same := onnxTestEmbedder(t, onnxTestModel(t, onnxtest.ModelOptions{Dim: 8, Seed: 1}), ONNXOptions{})
	other := onnxTestEmbedder(t, onnxTestModel(t, onnxtest.ModelOptions{Dim: 8, Seed: 2}), ONNXOptions{})
	if a.ID() != same.ID() {
		t.Errorf("same model file, different IDs: %q, %q", a.ID(), same.ID())
	}
	if a.ID() == other.ID() {
		t.Errorf("different model files, same ID %q", a.ID())
	}
}

func TestONNXQueryCache(t *testing.T) {
	e := onnxTestEmbedder(t, onnxTestModel(t, onnxtest.ModelOptions{Dim: 8}), ONNXOptions{})
	first, err := e.Embed([]string{"parse config"})
	if err != nil {
		t.Fatal(err)
	}
	want := append([]float32(nil), first[0]...)
	first[0][0] = 42 // the caller owns its vectors; the cache keeps its own copy
	for range 3 {
		again, err := e.Embed([]string{"parse config"})
		if err != nil {
			t.Fatal(err)
		}
		onnxAssertClose(t, "cached query", again[0], onnxAsFloat64(want), 0)
	}
	// More distinct queries than the cache holds evict the oldest; asked
	// again, cached or evicted, each still gets its own vector.
	n := onnxQueryCacheSize + 10
	for i := range n {
		if _, err := e.Embed([]string{fmt.Sprintf("query %d", i)}); err != nil {
			t.Fatal(err)
		}
	}
	for _, i := range []int{0, 5, 9, 10, n / 2, n - 2, n - 1, 0} {
		q := fmt.Sprintf("query %d", i)
		v, err := e.Embed([]string{q})
		if err != nil {
			t.Fatal(err)
		}
		direct, err := e.Embed([]string{q, "x"}) // two texts: never cached
		if err != nil {
			t.Fatal(err)
		}
		onnxAssertClose(t, q, v[0], onnxAsFloat64(direct[0]), 1e-6)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Embed([]string{"parse config"}); err == nil || !strings.Contains(err.Error(), "closed") {
		t.Errorf("Embed after Close: err = %v, want an error saying the embedder is closed", err)
	}
}

func TestONNXConcurrentEmbed(t *testing.T) {
	var o onnxtest.ModelOptions
	e := onnxTestEmbedder(t, onnxTestModel(t, o), ONNXOptions{BatchSize: 4})
	want := onnxExpected(t, o, "[CLS]", "rank", "vector", "[SEP]")
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := range 8 {
		wg.Go(func() {
			for i := range 20 {
				texts := []string{"rank vector"}
				if (g+i)%2 == 0 {
					texts = append(texts, "cache store hash tree", "rank vector")
				}
				vecs, err := e.Embed(texts)
				if err != nil {
					errs <- err
					return
				}
				for j, v := range vecs {
					if texts[j] != "rank vector" {
						continue
					}
					for k := range v {
						if math.Abs(float64(v[k])-want[k]) > 1e-5 {
							errs <- fmt.Errorf("goroutine %d: component %d = %v, want %v", g, k, v[k], want[k])
							return
						}
					}
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestONNXSetupErrors(t *testing.T) {
	model := onnxTestModel(t, onnxtest.ModelOptions{Dim: 8})
	noVocab := onnxTestModel(t, onnxtest.ModelOptions{Dim: 8})
	if err := os.Remove(filepath.Join(noVocab, "vocab.txt")); err != nil {
		t.Fatal(err)
	}
	empty := t.TempDir()
	cases := []struct {
		name string
		o    ONNXOptions
		want []string
	}{
		{"no model dir", ONNXOptions{}, []string{"onnx: no model dir", "--model"}},
		{"missing dir", ONNXOptions{ModelDir: filepath.Join(empty, "nope")}, []string{"onnx: model dir", "nope"}},
		{"missing model", ONNXOptions{ModelDir: empty}, []string{"onnx: model dir " + empty + ": model.onnx not found (download all-MiniLM-L6-v2 as ONNX: see README)"}},
		{"missing vocab", ONNXOptions{ModelDir: noVocab}, []string{"onnx: no vocab.txt or tokenizer.json in " + noVocab}},
		{"missing library", ONNXOptions{ModelDir: model, LibraryPath: filepath.Join(empty, "libonnxruntime.so")},
			[]string{"onnx: runtime library: ", filepath.Join(empty, "libonnxruntime.so"), "no such file", "scripts/fetch-onnxruntime.sh", "CTXLS_ORT_LIB"}},
		{"bad batch", ONNXOptions{ModelDir: model, BatchSize: -1}, []string{"batch size -1"}},
		{"bad max tokens", ONNXOptions{ModelDir: model, MaxTokens: 1000}, []string{"max tokens 1000 out of range 2..512"}},
		{"bad threads", ONNXOptions{ModelDir: model, IntraOpThreads: -2}, []string{"intra-op threads -2"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e, err := NewONNXEmbedder(c.o)
			if err == nil {
				e.Close()
				t.Fatal("NewONNXEmbedder succeeded")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
		})
	}
}

func TestONNXBadModel(t *testing.T) {
	dir := onnxTestModel(t, onnxtest.ModelOptions{Dim: 8})
	model := filepath.Join(dir, "model.onnx")
	if err := os.WriteFile(model, []byte("not a protobuf"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := NewONNXEmbedder(ONNXOptions{ModelDir: dir, LibraryPath: onnxTestLibrary(t)})
	if err == nil || !strings.Contains(err.Error(), "onnx: model "+model+": load: ") {
		t.Errorf("corrupt model: err = %v, want one naming %s", err, model)
	}
}

func TestONNXSecondLibraryFails(t *testing.T) {
	dir := onnxTestModel(t, onnxtest.ModelOptions{Dim: 8})
	onnxTestEmbedder(t, dir, ONNXOptions{}) // the runtime is loaded now
	other := filepath.Join(t.TempDir(), "libonnxruntime.so")
	if err := os.WriteFile(other, []byte("another library"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := NewONNXEmbedder(ONNXOptions{ModelDir: dir, LibraryPath: other})
	if err == nil || !strings.Contains(err.Error(), "already loaded") || !strings.Contains(err.Error(), other) || !strings.Contains(err.Error(), "restart") {
		t.Errorf("second library: err = %v, want one naming it, saying another is already loaded and to restart", err)
	}
}

// TestONNXBadLibrary loads a file that is not a shared library. The runtime
// can be loaded only once per process, so the attempt runs in a child
// process: this test binary, re-run with CTXLS_ONNX_TEST_CHILD_LIB set.
func TestONNXBadLibrary(t *testing.T) {
	if lib := os.Getenv("CTXLS_ONNX_TEST_CHILD_LIB"); lib != "" {
		_, err := NewONNXEmbedder(ONNXOptions{ModelDir: os.Getenv("CTXLS_ONNX_TEST_CHILD_MODEL"), LibraryPath: lib})
		fmt.Printf("CHILD ERROR: %v\n", err)
		return
	}
	dir := onnxTestModel(t, onnxtest.ModelOptions{Dim: 8})
	bad := filepath.Join(t.TempDir(), "libonnxruntime.so")
	if err := os.WriteFile(bad, []byte("this is not an ELF file\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestONNXBadLibrary$", "-test.v")
	cmd.Env = append(os.Environ(), "CTXLS_ONNX_TEST_CHILD_LIB="+bad, "CTXLS_ONNX_TEST_CHILD_MODEL="+dir)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	for _, w := range []string{"CHILD ERROR: onnx: runtime library: ", bad, "not a loadable ONNX Runtime library", "scripts/fetch-onnxruntime.sh"} {
		if !strings.Contains(string(out), w) {
			t.Errorf("child output does not mention %q:\n%s", w, out)
		}
	}
}

func TestONNXOldRuntimeHint(t *testing.T) {
	// What onnxruntime_go v1.27.0 returns when the library lacks C API 24.
	err := ortExplainInitError("/usr/lib/libonnxruntime.so", fmt.Errorf("Platform-specific initialization failed: %w",
		fmt.Errorf("Error setting ORT API base: 2")))
	for _, w := range []string{"/usr/lib/libonnxruntime.so is too old", ">= 1.24", "scripts/fetch-onnxruntime.sh", "ORT API base: 2"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not mention %q", err, w)
		}
	}
}

func TestONNXFindRuntime(t *testing.T) {
	names := ortLibNames("linux")
	touch := func(path string) string {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	root := t.TempDir()
	versioned := touch(filepath.Join(root, "versioned", "libonnxruntime.so.1.24.3"))
	touch(filepath.Join(root, "versioned", "libonnxruntime.so.1.20.0"))
	plain := touch(filepath.Join(root, "plain", "libonnxruntime.so"))
	touch(filepath.Join(root, "plain", "libonnxruntime.so.1"))
	emptyDir := filepath.Join(root, "empty")
	if err := os.MkdirAll(emptyDir, 0o755); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(root, "missing.so")

	cases := []struct {
		name          string
		explicit, env string
		dirs          []string
		want          string   // the path found, or
		errs          []string // what the error must say
	}{
		{name: "explicit file", explicit: versioned, env: plain, want: versioned},
		{name: "explicit dir", explicit: filepath.Join(root, "versioned"), want: versioned},
		{name: "explicit missing", explicit: missing, env: plain, errs: []string{missing, "--ort-lib", "no such file", "scripts/fetch-onnxruntime.sh", "CTXLS_ORT_LIB"}},
		{name: "explicit dir without library", explicit: emptyDir, errs: []string{emptyDir, "holds no libonnxruntime.so"}},
		{name: "env file", env: versioned, dirs: []string{filepath.Join(root, "plain")}, want: versioned},
		{name: "env missing", env: missing, dirs: []string{filepath.Join(root, "plain")}, errs: []string{missing, "from CTXLS_ORT_LIB", "no such file"}},
		{name: "search order", dirs: []string{emptyDir, filepath.Join(root, "plain"), filepath.Join(root, "versioned")}, want: plain},
		{name: "search versioned", dirs: []string{emptyDir, filepath.Join(root, "versioned")}, want: versioned},
		{name: "nothing found", dirs: []string{emptyDir, filepath.Join(root, "nope")},
			errs: []string{"no ONNX Runtime library", emptyDir, filepath.Join(root, "nope"), "scripts/fetch-onnxruntime.sh", "--ort-lib", "CTXLS_ORT_LIB"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := ortFind(c.explicit, c.env, c.dirs, names)
			if c.errs == nil {
				if err != nil || got != c.want {
					t.Errorf("got %q, %v; want %q", got, err, c.want)
				}
				return
			}
			if err == nil {
				t.Fatalf("found %q, want an error", got)
			}
			for _, w := range c.errs {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
		})
	}
}

// onnxBenchModel returns the model directory to benchmark: the real model
// in $CTXLS_BENCH_MODEL_DIR if set, else a generated test model. To
// benchmark all-MiniLM-L6-v2:
//
//	CTXLS_BENCH_MODEL_DIR=/path/to/all-MiniLM-L6-v2-onnx \
//	  go test -run '^$' -bench ONNX ./symbolindex/embed/
func onnxBenchModel(b *testing.B) string {
	if dir := os.Getenv("CTXLS_BENCH_MODEL_DIR"); dir != "" {
		return dir
	}
	return onnxTestModel(b, onnxtest.ModelOptions{})
}

// onnxBenchSymbols returns n symbol texts of the kind the index embeds:
// a signature, a doc line and a few lines of body.
func onnxBenchSymbols(n int) []string {
	texts := make([]string, n)
	for i := range texts {
		texts[i] = fmt.Sprintf("func (s *Server) handleRequest%d(ctx context.Context, req *http.Request) error\n"+
			"// handleRequest%d parses the config and routes the request to its handler.\n"+
			"cfg, err := parseConfig(req.Body)\nif err != nil { return fmt.Errorf(\"parse config: %%w\", err) }\n"+
			"%s", i, i, strings.Repeat("s.router.Route(req, cfg)\n", i%8))
	}
	return texts
}

func BenchmarkONNXEmbed(b *testing.B) {
	dir := onnxBenchModel(b)
	e := onnxTestEmbedder(b, dir, ONNXOptions{BatchSize: 32})
	texts := onnxBenchSymbols(256)
	for b.Loop() {
		if _, err := e.Embed(texts); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(texts)*b.N)/b.Elapsed().Seconds(), "symbols/s")
}

func BenchmarkONNXQuery(b *testing.B) {
	dir := onnxBenchModel(b)
	e := onnxTestEmbedder(b, dir, ONNXOptions{})
	b.Run("cached", func(b *testing.B) {
		q := []string{"where is the request handler configured"}
		if _, err := e.Embed(q); err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			if _, err := e.Embed(q); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("uncached", func(b *testing.B) {
		// More distinct queries than the cache holds, cycled: every
		// call misses.
		queries := make([][]string, 4*onnxQueryCacheSize)
		for i := range queries {
			queries[i] = []string{fmt.Sprintf("where is request handler %d configured", i)}
		}
		i := 0
		for b.Loop() {
			if _, err := e.Embed(queries[i%len(queries)]); err != nil {
				b.Fatal(err)
			}
			i++
		}
	})
}
