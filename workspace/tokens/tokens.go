// Package tokens counts the tokens of a text in a model's BPE encoding,
// offline: the encodings' ranks ship inside the binary
// (github.com/pkoukk/tiktoken-go-loader), so counting never reaches the
// network. An encoding is loaded once per process, the first time a
// request names it (loading o200k_base takes a few hundred milliseconds),
// and shared by every request after.
package tokens

import (
	"fmt"
	"strings"
	"sync"

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
}

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
	if text == "" {
		return 0
	}
	return len(e.tk.EncodeOrdinary(text))
}
