package embed

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/cespare/xxhash/v2"
	ort "github.com/yalue/onnxruntime_go"
)

// ONNXOptions configures the ONNX embedder. Zero fields take the defaults
// noted.
type ONNXOptions struct {
	// ModelDir holds model.onnx (a BERT-style sentence encoder such as
	// all-MiniLM-L6-v2; onnx/model.onnx as in a Hugging Face checkout also
	// works) and its vocabulary, vocab.txt or tokenizer.json.
	ModelDir string
	// LibraryPath is the ONNX Runtime shared library; "" finds it with
	// FindONNXRuntime.
	LibraryPath string
	// BatchSize is the number of texts run through the model at once
	// (default 32).
	BatchSize int
	// IntraOpThreads is the runtime's thread count for one inference
	// (0 = the runtime's default).
	IntraOpThreads int
	// MaxTokens caps a text's tokens, [CLS] and [SEP] included; longer
	// texts are truncated (default 256, at most 512).
	MaxTokens int
}

// Defaults of ONNXOptions and the size of the query cache.
const (
	onnxDefaultBatchSize = 32
	onnxMaxPositions     = 512 // BERT's position embeddings
	onnxQueryCacheSize   = 256
	onnxSortChunk        = 1024 // texts tokenized and length-sorted together
	onnxMaxCachedQuery   = 2048 // longer single texts are not cached
)

// The BERT inputs the embedder knows how to feed.
const (
	onnxInputIDs = iota
	onnxAttentionMask
	onnxTokenTypeIDs
	onnxNumInputs
)

// onnxInputName returns the model input name of an onnxInput* kind.
func onnxInputName(kind int) string {
	switch kind {
	case onnxInputIDs:
		return "input_ids"
	case onnxAttentionMask:
		return "attention_mask"
	case onnxTokenTypeIDs:
		return "token_type_ids"
	}
	return ""
}

// onnxInputKind returns the onnxInput* kind of a model input name, or -1.
func onnxInputKind(name string) int {
	for kind := range onnxNumInputs {
		if onnxInputName(kind) == name {
			return kind
		}
	}
	return -1
}

// ONNXEmbedder is the semantic embedder: a BERT-style sentence encoder
// (all-MiniLM-L6-v2, 384-d) run by ONNX Runtime, mean-pooled under the
// attention mask and L2-normalized, as sentence-transformers does.
//
// Concurrency: an ONNXEmbedder is safe for concurrent use. It owns one
// runtime session, reused by every call; a mutex lets one Embed call run
// the model at a time (the runtime parallelizes inside an inference, see
// IntraOpThreads). Single-text calls (queries) are answered from a small
// LRU cache when the text was embedded before, without taking that mutex.
type ONNXEmbedder struct {
	id        string
	dim       int
	batchSize int
	wp        *WordPiece
	inputs    []int  // the onnxInput* kinds the model declares, in session order
	output    string // the hidden-state output's name

	cache onnxLRU

	mu      sync.Mutex // guards everything below
	session *ort.DynamicAdvancedSession
	scratch wpScratch
	ids     []int64 // token ids of the current chunk, concatenated
	ends    []int   // ids[ends[i-1]:ends[i]] are text i's
	order   []int32 // chunk positions, sorted by token count
	in      [onnxNumInputs][]int64
	hidden  []float32 // the model output of one batch
	values  []ort.Value
}

var _ Embedder = (*ONNXEmbedder)(nil)

// NewONNXEmbedder loads the model in o.ModelDir into ONNX Runtime. The
// runtime library is loaded once per process; a later embedder asking for
// a different library fails. Close releases the model.
func NewONNXEmbedder(o ONNXOptions) (*ONNXEmbedder, error) {
	if err := o.fill(); err != nil {
		return nil, err
	}
	modelPath, modelHash, err := onnxFindModel(o.ModelDir)
	if err != nil {
		return nil, err
	}
	wp, err := LoadVocab(o.ModelDir)
	if err != nil {
		return nil, fmt.Errorf("onnx: %w", err)
	}
	wp.MaxTokens = o.MaxTokens

	lib, err := FindONNXRuntime(o.LibraryPath)
	if err != nil {
		return nil, fmt.Errorf("onnx: runtime library: %w", err)
	}
	if err := ortInit(lib); err != nil {
		return nil, fmt.Errorf("onnx: runtime library: %w", err)
	}

	e := &ONNXEmbedder{batchSize: o.BatchSize, wp: wp}
	inputNames, dim, err := e.inspect(modelPath)
	if err != nil {
		return nil, fmt.Errorf("onnx: model %s: %w", modelPath, err)
	}
	opts, err := ort.NewSessionOptions()
	if err != nil {
		return nil, fmt.Errorf("onnx: session options: %w", err)
	}
	defer opts.Destroy()
	if o.IntraOpThreads > 0 {
		if err := opts.SetIntraOpNumThreads(o.IntraOpThreads); err != nil {
			return nil, fmt.Errorf("onnx: intra-op threads: %w", err)
		}
	}
	// A sidecar shares the machine with the editor and the build: idle
	// runtime threads sleep instead of spinning for the next batch.
	if err := opts.AddSessionConfigEntry("session.intra_op.allow_spinning", "0"); err != nil {
		return nil, fmt.Errorf("onnx: session options: %w", err)
	}
	e.session, err = ort.NewDynamicAdvancedSession(modelPath, inputNames, []string{e.output}, opts)
	if err != nil {
		return nil, fmt.Errorf("onnx: model %s: load: %w", modelPath, err)
	}
	if dim <= 0 {
		if dim, err = e.probeDim(); err != nil {
			e.session.Destroy()
			return nil, fmt.Errorf("onnx: model %s: %w", modelPath, err)
		}
	}
	e.dim = dim
	e.id = fmt.Sprintf("onnx-%d-%016x", dim, modelHash)
	e.cache.init(onnxQueryCacheSize, dim)
	return e, nil
}

// fill gives the options left zero their defaults and checks them: sizes
// in range and a model directory that is one.
func (o *ONNXOptions) fill() error {
	if o.BatchSize == 0 {
		o.BatchSize = onnxDefaultBatchSize
	}
	if o.MaxTokens == 0 {
		o.MaxTokens = wpDefaultMaxTokens
	}
	switch {
	case o.BatchSize < 1:
		return fmt.Errorf("onnx: batch size %d must be positive", o.BatchSize)
	case o.MaxTokens < 2 || o.MaxTokens > onnxMaxPositions:
		return fmt.Errorf("onnx: max tokens %d out of range 2..%d", o.MaxTokens, onnxMaxPositions)
	case o.IntraOpThreads < 0:
		return fmt.Errorf("onnx: intra-op threads %d must not be negative", o.IntraOpThreads)
	}
	if o.ModelDir == "" {
		return errors.New("onnx: no model dir: set --model DIR (init option modelPath) to a directory with model.onnx and vocab.txt or tokenizer.json")
	}
	if st, err := os.Stat(o.ModelDir); err != nil || !st.IsDir() {
		if err == nil {
			err = errors.New("not a directory")
		}
		return fmt.Errorf("onnx: model dir %s: %w", o.ModelDir, err)
	}
	return nil
}

// onnxFindModel returns the path of the model in dir (model.onnx, or
// onnx/model.onnx: a Hugging Face checkout keeps the export there) and
// the hash of its bytes.
func onnxFindModel(dir string) (modelPath string, hash uint64, err error) {
	modelPath = filepath.Join(dir, "model.onnx")
	if _, err := os.Stat(modelPath); errors.Is(err, fs.ErrNotExist) {
		if alt := filepath.Join(dir, "onnx", "model.onnx"); onnxIsFile(alt) {
			modelPath = alt
		}
	}
	hash, err = onnxHashFile(modelPath)
	if errors.Is(err, fs.ErrNotExist) {
		return "", 0, fmt.Errorf("onnx: model dir %s: model.onnx not found (download all-MiniLM-L6-v2 as ONNX: see README)", dir)
	}
	if err != nil {
		return "", 0, fmt.Errorf("onnx: model %s: %w", modelPath, err)
	}
	return modelPath, hash, nil
}

// onnxIsFile reports whether path is an existing regular file.
func onnxIsFile(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.Mode().IsRegular()
}

// onnxHashFile returns the xxhash64 of a file's bytes.
func onnxHashFile(path string) (uint64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	h := xxhash.New()
	if _, err := io.Copy(h, f); err != nil {
		return 0, err
	}
	return h.Sum64(), nil
}

// inspect reads the model's inputs and outputs, records which BERT inputs
// it declares and which output carries the hidden states, and returns the
// input names in order and the hidden size (0 when the model leaves it
// symbolic).
func (e *ONNXEmbedder) inspect(modelPath string) ([]string, int, error) {
	opts, err := ort.NewSessionOptions()
	if err != nil {
		return nil, 0, fmt.Errorf("session options: %w", err)
	}
	defer opts.Destroy()
	// Reading the signature needs no optimized graph.
	if err := opts.SetGraphOptimizationLevel(ort.GraphOptimizationLevelDisableAll); err != nil {
		return nil, 0, fmt.Errorf("session options: %w", err)
	}
	ins, outs, err := ort.GetInputOutputInfoWithOptions(modelPath, opts)
	if err != nil {
		return nil, 0, fmt.Errorf("load: %w", err)
	}
	var names []string
	hasIDs := false
	for _, in := range ins {
		kind := onnxInputKind(in.Name)
		if kind < 0 {
			return nil, 0, fmt.Errorf("input %q is not one of %s (only BERT-style encoders are supported)", in.Name, "input_ids, attention_mask, token_type_ids")
		}
		if in.OrtValueType != ort.ONNXTypeTensor || in.DataType != ort.TensorElementDataTypeInt64 {
			return nil, 0, fmt.Errorf("input %q is %s; want an int64 tensor [batch, sequence]", in.Name, in.String())
		}
		hasIDs = hasIDs || kind == onnxInputIDs
		e.inputs = append(e.inputs, kind)
		names = append(names, in.Name)
	}
	if !hasIDs {
		return nil, 0, errors.New("no input_ids input (only BERT-style encoders are supported)")
	}
	if len(outs) == 0 {
		return nil, 0, errors.New("no outputs")
	}
	out := outs[0]
	for _, o := range outs {
		if o.Name == "last_hidden_state" {
			out = o
		}
	}
	if out.OrtValueType != ort.ONNXTypeTensor || out.DataType != ort.TensorElementDataTypeFloat || len(out.Dimensions) != 3 {
		return nil, 0, fmt.Errorf("output %q is %s; want a float tensor [batch, sequence, dim] (the encoder's last_hidden_state)", out.Name, out.String())
	}
	e.output = out.Name
	return names, int(max(out.Dimensions[2], 0)), nil
}

// probeDim runs the model once on an empty text to learn its hidden size.
func (e *ONNXEmbedder) probeDim() (int, error) {
	ids := e.wp.Encode("")
	shape := ort.NewShape(1, int64(len(ids)))
	inputs := make([]ort.Value, len(e.inputs))
	defer func() {
		for _, v := range inputs {
			if v != nil {
				v.Destroy()
			}
		}
	}()
	for i, kind := range e.inputs {
		data := make([]int64, len(ids))
		switch kind {
		case onnxInputIDs:
			copy(data, ids)
		case onnxAttentionMask:
			for j := range data {
				data[j] = 1
			}
		}
		t, err := ort.NewTensor(shape, data)
		if err != nil {
			return 0, fmt.Errorf("probe: %w", err)
		}
		inputs[i] = t
	}
	outputs := []ort.Value{nil}
	if err := e.session.Run(inputs, outputs); err != nil {
		return 0, fmt.Errorf("probe run: %w", err)
	}
	defer outputs[0].Destroy()
	s := outputs[0].GetShape()
	if len(s) != 3 || s[2] < 1 {
		return 0, fmt.Errorf("output %q has shape %v; want [batch, sequence, dim]", e.output, s)
	}
	return int(s[2]), nil
}

// ID identifies the model: "onnx-<dim>-<xxhash64 of model.onnx>".
func (e *ONNXEmbedder) ID() string { return e.id }

// Dim is the model's hidden size (384 for all-MiniLM-L6-v2).
func (e *ONNXEmbedder) Dim() int { return e.dim }

// Embed returns one L2-normalized vector per text. Texts are run in
// batches of BatchSize, grouped by token count to keep padding small.
func (e *ONNXEmbedder) Embed(texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	if len(texts) == 0 {
		return out, nil
	}
	dim := e.dim
	flat := make([]float32, len(texts)*dim)
	for i := range out {
		out[i] = flat[i*dim : (i+1)*dim : (i+1)*dim]
	}
	cacheable := len(texts) == 1 && len(texts[0]) <= onnxMaxCachedQuery
	if cacheable && e.cache.get(texts[0], flat) {
		return out, nil
	}

	e.mu.Lock()
	defer e.mu.Unlock()
	if e.session == nil {
		return nil, errors.New("onnx: embedder is closed")
	}
	for cs := 0; cs < len(texts); cs += onnxSortChunk {
		chunk := texts[cs:min(cs+onnxSortChunk, len(texts))]
		if err := e.embedChunk(chunk, flat[cs*dim:]); err != nil {
			return nil, err
		}
	}
	if cacheable {
		e.cache.put(texts[0], flat)
	}
	return out, nil
}

// embedChunk tokenizes chunk, sorts it by token count and runs it batch by
// batch, writing vector i to out[i*dim:]. e.mu is held.
func (e *ONNXEmbedder) embedChunk(chunk []string, out []float32) error {
	e.ids, e.ends = e.ids[:0], e.ends[:0]
	e.order = e.order[:0]
	for i, t := range chunk {
		e.ids = e.wp.appendEncode(e.ids, t, &e.scratch)
		e.ends = append(e.ends, len(e.ids))
		e.order = append(e.order, int32(i))
	}
	slices.SortStableFunc(e.order, func(a, b int32) int {
		return e.tokenCount(int(a)) - e.tokenCount(int(b))
	})
	for bs := 0; bs < len(e.order); bs += e.batchSize {
		batch := e.order[bs:min(bs+e.batchSize, len(e.order))]
		if err := e.runBatch(batch, out); err != nil {
			first := int(batch[0])
			return fmt.Errorf("onnx: embed %q: %w", onnxSnippet(chunk[first]), err)
		}
	}
	return nil
}

// tokenCount is the number of tokens of chunk text i.
func (e *ONNXEmbedder) tokenCount(i int) int {
	if i == 0 {
		return e.ends[0]
	}
	return e.ends[i] - e.ends[i-1]
}

// tokens returns the token ids of chunk text i.
func (e *ONNXEmbedder) tokens(i int) []int64 {
	start := 0
	if i > 0 {
		start = e.ends[i-1]
	}
	return e.ids[start:e.ends[i]]
}

// runBatch runs the texts at chunk positions batch through the model,
// padded to the longest, and writes their pooled, normalized vectors to
// out. e.mu is held.
func (e *ONNXEmbedder) runBatch(batch []int32, out []float32) error {
	b, seq, dim := len(batch), 0, e.dim
	for _, i := range batch {
		seq = max(seq, e.tokenCount(int(i)))
	}
	n := b * seq
	shape := ort.NewShape(int64(b), int64(seq))
	e.values = e.values[:0]
	defer func() {
		for _, v := range e.values {
			v.Destroy()
		}
		e.values = e.values[:0]
	}()
	for _, kind := range e.inputs {
		buf := onnxGrow(e.in[kind], n)
		e.in[kind] = buf
		for r, i := range batch {
			row := buf[r*seq : (r+1)*seq]
			ids := e.tokens(int(i))
			switch kind {
			case onnxInputIDs:
				copy(row, ids)
				for j := len(ids); j < seq; j++ {
					row[j] = e.wp.pad
				}
			case onnxAttentionMask:
				for j := range row {
					row[j] = int64(onnxBool(j < len(ids)))
				}
			case onnxTokenTypeIDs:
				clear(row)
			}
		}
		t, err := ort.NewTensor(shape, buf)
		if err != nil {
			return fmt.Errorf("input %s: %w", onnxInputName(kind), err)
		}
		e.values = append(e.values, t)
	}
	e.hidden = onnxGrow(e.hidden, n*dim)
	outT, err := ort.NewTensor(ort.NewShape(int64(b), int64(seq), int64(dim)), e.hidden)
	if err != nil {
		return fmt.Errorf("output: %w", err)
	}
	e.values = append(e.values, outT)
	if err := e.session.Run(e.values[:len(e.inputs)], e.values[len(e.inputs):]); err != nil {
		return err
	}

	// Mean pooling over the real tokens (attention mask 1), then L2 norm.
	for r, i := range batch {
		vec := out[int(i)*dim : (int(i)+1)*dim]
		clear(vec)
		count := e.tokenCount(int(i))
		for t := range count {
			h := e.hidden[(r*seq+t)*dim : (r*seq+t+1)*dim]
			for j, x := range h {
				vec[j] += x
			}
		}
		// Dividing by count first would not change the direction.
		Normalize(vec)
	}
	return nil
}

// Close releases the runtime session; later Embed calls fail. The runtime
// library stays loaded for the life of the process.
func (e *ONNXEmbedder) Close() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.cache.reset()
	if e.session == nil {
		return nil
	}
	err := e.session.Destroy()
	e.session = nil
	if err != nil {
		return fmt.Errorf("onnx: close: %w", err)
	}
	return nil
}

// onnxGrow returns buf resized to n, reallocating (to at least twice its
// capacity) only when it is too small.
func onnxGrow[T any](buf []T, n int) []T {
	if cap(buf) < n {
		return make([]T, n, max(n, 2*cap(buf)))
	}
	return buf[:n]
}

func onnxBool(b bool) int {
	if b {
		return 1
	}
	return 0
}

// onnxSnippet shortens a text for an error message.
func onnxSnippet(s string) string {
	if len(s) <= 40 {
		return s
	}
	cut := 40
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// onnxLRU caches the vectors of recent single-text (query) embeddings.
// Vectors live in one flat slice; entries form a doubly linked list by
// index, most recent first.
type onnxLRU struct {
	mu      sync.Mutex
	dim     int
	index   map[string]int32
	keys    []string
	prev    []int32
	next    []int32
	vecs    []float32
	head    int32 // most recently used, -1 when empty
	tail    int32 // least recently used
	entries int
}

func (c *onnxLRU) init(size, dim int) {
	c.dim = dim
	c.index = make(map[string]int32, size)
	c.keys = make([]string, size)
	c.prev = make([]int32, size)
	c.next = make([]int32, size)
	c.vecs = make([]float32, size*dim)
	c.head, c.tail, c.entries = -1, -1, 0
}

func (c *onnxLRU) reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	clear(c.index)
	c.head, c.tail, c.entries = -1, -1, 0
}

// get copies the cached vector of key into dst and reports whether there
// was one.
func (c *onnxLRU) get(key string, dst []float32) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	i, ok := c.index[key]
	if !ok {
		return false
	}
	c.unlink(i)
	c.pushFront(i)
	copy(dst, c.vecs[int(i)*c.dim:(int(i)+1)*c.dim])
	return true
}

// put stores a copy of vec under key, evicting the least recently used
// entry when full.
func (c *onnxLRU) put(key string, vec []float32) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.keys) == 0 {
		return
	}
	i, ok := c.index[key]
	switch {
	case ok:
		c.unlink(i)
	case c.entries < len(c.keys):
		i = int32(c.entries)
		c.entries++
	default:
		i = c.tail
		c.unlink(i)
		delete(c.index, c.keys[i])
	}
	if !ok {
		c.keys[i] = strings.Clone(key)
		c.index[c.keys[i]] = i
	}
	copy(c.vecs[int(i)*c.dim:(int(i)+1)*c.dim], vec)
	c.pushFront(i)
}

func (c *onnxLRU) unlink(i int32) {
	p, n := c.prev[i], c.next[i]
	if p >= 0 {
		c.next[p] = n
	} else {
		c.head = n
	}
	if n >= 0 {
		c.prev[n] = p
	} else {
		c.tail = p
	}
}

func (c *onnxLRU) pushFront(i int32) {
	c.prev[i], c.next[i] = -1, c.head
	if c.head >= 0 {
		c.prev[c.head] = i
	} else {
		c.tail = i
	}
	c.head = i
}
