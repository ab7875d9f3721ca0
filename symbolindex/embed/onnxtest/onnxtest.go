// Package onnxtest writes a tiny BERT-shaped ONNX model and its WordPiece
// vocabulary, so that the ONNX embedder can be tested and benchmarked
// against the real ONNX Runtime without downloading a model.
//
// The model has the inputs and output of a sentence-transformers export
// (input_ids, attention_mask, token_type_ids → last_hidden_state) but its
// "encoder" is only an embedding lookup: the hidden state of a token is
// WordEmbeddings[id] + TypeEmbeddings[type]. Tests recompute the tables
// here and so know the exact vector the runtime must produce.
package onnxtest

import (
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"

	"google.golang.org/protobuf/encoding/protowire"
)

// Default option values.
const (
	DefaultDim        = 384
	DefaultSeed       = 1
	DefaultOutputName = "last_hidden_state"
)

// ModelOptions shapes the generated model. The zero value gives a 384-d
// model with all three BERT inputs and a last_hidden_state output.
type ModelOptions struct {
	// Dim is the hidden size d of the output [batch, seq, d] (default 384).
	Dim int
	// Seed selects the pseudo-random embedding values (default 1); two
	// seeds give two different model files.
	Seed uint64
	// OutputName names the graph output (default "last_hidden_state").
	OutputName string
	// NoTokenTypes leaves out the token_type_ids input and the token-type
	// embedding, as some exports do.
	NoTokenTypes bool
	// SymbolicDim declares the output's last dimension by name instead of
	// size, so a loader must run the model to learn it.
	SymbolicDim bool
}

func (o ModelOptions) withDefaults() ModelOptions {
	if o.Dim == 0 {
		o.Dim = DefaultDim
	}
	if o.Seed == 0 {
		o.Seed = DefaultSeed
	}
	if o.OutputName == "" {
		o.OutputName = DefaultOutputName
	}
	return o
}

// Token ids of the special tokens in Vocab.
const (
	PadID  = 0
	UnkID  = 1
	ClsID  = 2
	SepID  = 3
	MaskID = 4
)

// vocabWords are the ordinary entries after the special tokens and the
// ASCII punctuation: code-ish words, continuation pieces, a few accented
// and CJK entries.
var vocabWords = strings.Fields(`
0 1 2 3 4 5 6 7 8 9
a an the of to in on for with and or not is are be by as at from this that it
add get set new make read write open close load save find list map key value
parse config server client request response http https url path file dir
error errors handle handler route router token tokenize index search query
rank score vector embed embedding model cache store hash tree node leaf root
string int bool byte bytes func function method class struct interface type
return import package module var const if else loop range test bench run
start stop init update delete remove insert select merge split join sort
json yaml toml xml text line word name id user auth login session cookie
db sql table row column schema migrate log debug info warn trace span
go python rust java script ts js py rs
un cafe resume naive over
##s ##es ##ed ##ing ##er ##ers ##ly ##ion ##ions ##able ##ment ##ness ##ize
##r ##e ##a ##i ##o ##u ##n ##t ##x ##y ##z ##aff ##ff
##config ##server ##request ##handler ##s3 ##2 ##0 ##1
中 文 字 日 本
`)

// Vocab returns the vocabulary the model is written with; a token's id is
// its index. It starts with [PAD] [UNK] [CLS] [SEP] [MASK], then the ASCII
// punctuation characters, then words and ## continuation pieces.
func Vocab() []string {
	v := []string{"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"}
	for c := byte('!'); c <= '~'; c++ {
		if c >= '0' && c <= '9' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' {
			continue
		}
		v = append(v, string(c))
	}
	return append(v, vocabWords...)
}

// WordEmbeddings returns the model's token embedding table for o,
// row-major: the row of token id is [id*Dim : (id+1)*Dim].
func WordEmbeddings(o ModelOptions) []float32 {
	o = o.withDefaults()
	return table(len(Vocab())*o.Dim, o.Seed)
}

// TypeEmbeddings returns the model's token-type embedding table for o,
// two rows of Dim values (type 0 and type 1); nil with NoTokenTypes.
func TypeEmbeddings(o ModelOptions) []float32 {
	o = o.withDefaults()
	if o.NoTokenTypes {
		return nil
	}
	return table(2*o.Dim, o.Seed^0x9e3779b97f4a7c15)
}

// Hidden returns the hidden state the model computes for one token of
// type 0: WordEmbeddings[id] + TypeEmbeddings[0], added in float32 as the
// runtime does.
func Hidden(o ModelOptions, id int64) []float32 {
	o = o.withDefaults()
	words := WordEmbeddings(o)
	types := TypeEmbeddings(o)
	h := make([]float32, o.Dim)
	copy(h, words[int(id)*o.Dim:int(id+1)*o.Dim])
	if types != nil {
		for i := range h {
			h[i] += types[i]
		}
	}
	return h
}

// table returns n deterministic values in [-1, 1) from a splitmix64
// stream, so that no two rows are alike and none is zero.
func table(n int, seed uint64) []float32 {
	out := make([]float32, n)
	s := seed
	for i := range out {
		s += 0x9e3779b97f4a7c15
		z := s
		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
		z = (z ^ (z >> 27)) * 0x94d049bb133111eb
		z ^= z >> 31
		out[i] = float32(z>>40)/float32(1<<23) - 1
	}
	return out
}

// WriteModel writes model.onnx and vocab.txt into dir (created if
// needed).
func WriteModel(dir string, o ModelOptions) error {
	o = o.withDefaults()
	if o.Dim < 1 {
		return fmt.Errorf("onnxtest: dim %d must be positive", o.Dim)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("onnxtest: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "model.onnx"), Model(o), 0o644); err != nil {
		return fmt.Errorf("onnxtest: write model: %w", err)
	}
	return WriteVocab(dir)
}

// WriteVocab writes vocab.txt (Vocab, one token per line) into dir.
func WriteVocab(dir string) error {
	data := strings.Join(Vocab(), "\n") + "\n"
	if err := os.WriteFile(filepath.Join(dir, "vocab.txt"), []byte(data), 0o644); err != nil {
		return fmt.Errorf("onnxtest: write vocab: %w", err)
	}
	return nil
}

// ONNX enum values used below (onnx.proto).
const (
	onnxFloat    = 1 // TensorProto.DataType FLOAT
	onnxInt64    = 7 // TensorProto.DataType INT64
	irVersion    = 8
	opsetVersion = 17
)

// Model returns the serialized ONNX ModelProto for o.
func Model(o ModelOptions) []byte {
	o = o.withDefaults()
	vocab := int64(len(Vocab()))
	dim := int64(o.Dim)

	var g []byte // GraphProto
	wordOut := o.OutputName
	if !o.NoTokenTypes {
		wordOut = "word_hidden"
	}
	g = protowire.AppendTag(g, 1, protowire.BytesType) // node
	g = protowire.AppendBytes(g, node("Gather", "gather_words", []string{"word_embeddings", "input_ids"}, wordOut))
	if !o.NoTokenTypes {
		g = protowire.AppendTag(g, 1, protowire.BytesType)
		g = protowire.AppendBytes(g, node("Gather", "gather_types", []string{"token_type_embeddings", "token_type_ids"}, "type_hidden"))
		g = protowire.AppendTag(g, 1, protowire.BytesType)
		g = protowire.AppendBytes(g, node("Add", "add", []string{"word_hidden", "type_hidden"}, o.OutputName))
	}
	g = protowire.AppendTag(g, 2, protowire.BytesType) // name
	g = protowire.AppendString(g, "onnxtest-bert")
	g = protowire.AppendTag(g, 5, protowire.BytesType) // initializer
	g = protowire.AppendBytes(g, floatTensor("word_embeddings", []int64{vocab, dim}, WordEmbeddings(o)))
	if !o.NoTokenTypes {
		g = protowire.AppendTag(g, 5, protowire.BytesType)
		g = protowire.AppendBytes(g, floatTensor("token_type_embeddings", []int64{2, dim}, TypeEmbeddings(o)))
	}
	inputs := []string{"input_ids", "attention_mask"}
	if !o.NoTokenTypes {
		inputs = append(inputs, "token_type_ids")
	}
	for _, name := range inputs {
		g = protowire.AppendTag(g, 11, protowire.BytesType) // input
		g = protowire.AppendBytes(g, valueInfo(name, onnxInt64, dimSpec{name: "batch"}, dimSpec{name: "sequence"}))
	}
	if o.SymbolicDim {
		// Declaring the tables as overridable initializers of unknown
		// width keeps shape inference from deriving the output's size.
		g = protowire.AppendTag(g, 11, protowire.BytesType)
		g = protowire.AppendBytes(g, valueInfo("word_embeddings", onnxFloat, dimSpec{size: vocab}, dimSpec{name: "hidden"}))
		if !o.NoTokenTypes {
			g = protowire.AppendTag(g, 11, protowire.BytesType)
			g = protowire.AppendBytes(g, valueInfo("token_type_embeddings", onnxFloat, dimSpec{size: 2}, dimSpec{name: "hidden"}))
		}
	}
	g = protowire.AppendTag(g, 12, protowire.BytesType) // output
	hidden := dimSpec{size: dim}
	if o.SymbolicDim {
		hidden = dimSpec{name: "hidden"}
	}
	g = protowire.AppendBytes(g, valueInfo(o.OutputName, onnxFloat, dimSpec{name: "batch"}, dimSpec{name: "sequence"}, hidden))

	var opset []byte // OperatorSetIdProto: default domain ""
	opset = protowire.AppendTag(opset, 2, protowire.VarintType)
	opset = protowire.AppendVarint(opset, opsetVersion)

	// The ModelProto.
	var m []byte
	m = protowire.AppendTag(m, 1, protowire.VarintType) // ir_version
	m = protowire.AppendVarint(m, irVersion)
	m = protowire.AppendTag(m, 2, protowire.BytesType) // producer_name
	m = protowire.AppendString(m, "ctxls-onnxtest")
	m = protowire.AppendTag(m, 7, protowire.BytesType) // graph
	m = protowire.AppendBytes(m, g)
	m = protowire.AppendTag(m, 8, protowire.BytesType) // opset_import
	m = protowire.AppendBytes(m, opset)
	return m
}

// node encodes a NodeProto with no attributes.
func node(op, name string, inputs []string, output string) []byte {
	var b []byte
	for _, in := range inputs {
		b = protowire.AppendTag(b, 1, protowire.BytesType)
		b = protowire.AppendString(b, in)
	}
	b = protowire.AppendTag(b, 2, protowire.BytesType)
	b = protowire.AppendString(b, output)
	b = protowire.AppendTag(b, 3, protowire.BytesType)
	b = protowire.AppendString(b, name)
	b = protowire.AppendTag(b, 4, protowire.BytesType)
	b = protowire.AppendString(b, op)
	return b
}

// floatTensor encodes a TensorProto holding values as raw little-endian
// float32 data.
func floatTensor(name string, dims []int64, values []float32) []byte {
	var b []byte
	for _, d := range dims {
		b = protowire.AppendTag(b, 1, protowire.VarintType)
		b = protowire.AppendVarint(b, uint64(d))
	}
	b = protowire.AppendTag(b, 2, protowire.VarintType)
	b = protowire.AppendVarint(b, onnxFloat)
	b = protowire.AppendTag(b, 8, protowire.BytesType)
	b = protowire.AppendString(b, name)
	raw := make([]byte, 4*len(values))
	for i, v := range values {
		binary.LittleEndian.PutUint32(raw[4*i:], math.Float32bits(v))
	}
	b = protowire.AppendTag(b, 9, protowire.BytesType)
	return protowire.AppendBytes(b, raw)
}

// dimSpec is one dimension of a tensor type: a symbolic name, or a fixed
// size when name is empty.
type dimSpec struct {
	name string
	size int64
}

// valueInfo encodes a ValueInfoProto for a tensor of element type elem.
func valueInfo(name string, elem uint64, dims ...dimSpec) []byte {
	var shape []byte // TensorShapeProto
	for _, d := range dims {
		var dim []byte // TensorShapeProto.Dimension
		if d.name != "" {
			dim = protowire.AppendTag(dim, 2, protowire.BytesType)
			dim = protowire.AppendString(dim, d.name)
		} else {
			dim = protowire.AppendTag(dim, 1, protowire.VarintType)
			dim = protowire.AppendVarint(dim, uint64(d.size))
		}
		shape = protowire.AppendTag(shape, 1, protowire.BytesType)
		shape = protowire.AppendBytes(shape, dim)
	}
	var tensor []byte // TypeProto.Tensor
	tensor = protowire.AppendTag(tensor, 1, protowire.VarintType)
	tensor = protowire.AppendVarint(tensor, elem)
	tensor = protowire.AppendTag(tensor, 2, protowire.BytesType)
	tensor = protowire.AppendBytes(tensor, shape)
	var typ []byte // TypeProto
	typ = protowire.AppendTag(typ, 1, protowire.BytesType)
	typ = protowire.AppendBytes(typ, tensor)
	var b []byte
	b = protowire.AppendTag(b, 1, protowire.BytesType)
	b = protowire.AppendString(b, name)
	b = protowire.AppendTag(b, 2, protowire.BytesType)
	return protowire.AppendBytes(b, typ)
}
