// Package tokens counts the tokens of a text in a model's BPE encoding,
// offline: the encodings' ranks ship inside the binary
// (github.com/pkoukk/tiktoken-go-loader), so counting never reaches the
// network. An encoding is loaded once per process, the first time a
// request names it (loading o200k_base takes a few hundred milliseconds),
// and shared by every request after.
//
// Counting is slow (tiktoken-go's pre-tokenizer reads about a megabyte a
// second), and the texts a selection counts are slices of the same files
// again and again, so a text is counted in chunks of whole lines, each
// counted once per process: the count of a text is the sum of its
// chunks' counts, exactly (see split).
package tokens

import (
	"fmt"
	"strings"
	"sync"

	"github.com/cespare/xxhash/v2"

	tiktoken "github.com/pkoukk/tiktoken-go"
	tiktoken_loader "github.com/pkoukk/tiktoken-go-loader"
)

// Default is the encoding a request that names none is counted in: the
// one of current models (GPT-4o and later).
const Default = "o200k_base"

// Names are the encodings a request may name, Default first.
var Names = []string{"o200k_base", "cl100k_base"}

func init() {
	tiktoken.SetBpeLoader(tiktoken_loader.NewOfflineLoader())
}

// Encoding is one BPE encoding, loaded on first use.
type Encoding struct {
	name string
	once sync.Once
	tk   *tiktoken.Tiktoken
	err  error

	mu     sync.Mutex
	chunks map[uint64]uint32 // a chunk's count, by its hash
}

// maxChunks bounds the counts kept (about 2 MB); when full they are all
// dropped and counting starts again.
const maxChunks = 1 << 16

var encodings = func() map[string]*Encoding {
	m := make(map[string]*Encoding, len(Names))
	for _, n := range Names {
		m[n] = &Encoding{name: n}
	}
	return m
}()

// Known reports whether name is one of Names.
func Known(name string) bool { return encodings[name] != nil }

// Get returns the encoding called name ("" is Default), loading it the
// first time. An unknown name is an error that lists Names.
func Get(name string) (*Encoding, error) {
	if name == "" {
		name = Default
	}
	e := encodings[name]
	if e == nil {
		return nil, fmt.Errorf("unknown encoding %q (want %s)", name, strings.Join(Names, " or "))
	}
	e.once.Do(func() {
		e.tk, e.err = tiktoken.GetEncoding(name)
		if e.err != nil {
			e.err = fmt.Errorf("loading encoding %s: %v", name, e.err)
		}
	})
	if e.err != nil {
		return nil, e.err
	}
	return e, nil
}

// Name is the encoding's name.
func (e *Encoding) Name() string { return e.name }

// Count is the number of tokens of text, as ordinary text: a special
// token's spelling ("<|endoftext|>") in it counts as the characters it is
// made of, as a model's API counts a message's content.
func (e *Encoding) Count(text string) int {
	n := 0
	for text != "" {
		k := split(text)
		n += e.chunk(text[:k])
		text = text[k:]
	}
	return n
}

// chunk counts one chunk, or finds its count.
func (e *Encoding) chunk(c string) int {
	h := xxhash.Sum64String(c)
	e.mu.Lock()
	n, ok := e.chunks[h]
	e.mu.Unlock()
	if ok {
		return int(n)
	}
	n = uint32(len(e.tk.EncodeOrdinary(c)))
	e.mu.Lock()
	if e.chunks == nil || len(e.chunks) >= maxChunks {
		e.chunks = make(map[uint64]uint32, 1024)
	}
	e.chunks[h] = n
	e.mu.Unlock()
	return int(n)
}

// ResetCache drops the counts kept, so that the next texts are counted
// from scratch (for measuring what counting costs).
func (e *Encoding) ResetCache() {
	e.mu.Lock()
	e.chunks = nil
	e.mu.Unlock()
}

// split is the length of text's first chunk: up to and including the first
// line break after which the encodings' pre-tokenizers (the regular
// expressions that cut a text into the pieces BPE merges within) always
// start a new piece, or all of text. BPE never merges across pieces and
// the pattern looks only ahead, so a text's tokens are its chunks' tokens.
//
// Both patterns (o200k_base and cl100k_base) hold a line break only in
// three kinds of piece: a run of whitespace through its last line break
// (\s*[\r\n]+, tried before the other whitespace pieces), a run of
// punctuation with the line breaks (and, in o200k_base, slashes) right
// after it, and whitespace pieces, which the first kind precedes. So a
// piece ends right after a "\n" when what follows it on its line is spaces
// or tabs, then a printable ASCII character other than "/": not a line
// break, not whitespace up to one, not a slash. That is where split cuts.
func split(text string) int {
	for i := 0; i < len(text); i++ {
		if text[i] != '\n' {
			continue
		}
		j := i + 1
		for j < len(text) && (text[j] == ' ' || text[j] == '\t') {
			j++
		}
		if j < len(text) && text[j] > ' ' && text[j] < 0x7f && text[j] != '/' {
			return i + 1
		}
	}
	return len(text)
}
