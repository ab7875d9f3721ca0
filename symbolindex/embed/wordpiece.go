package embed

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// wpDefaultMaxTokens is the default cap on an encoding's length, [CLS] and
// [SEP] included.
const wpDefaultMaxTokens = 256

// wpMaxWordRunes is BERT's max_input_chars_per_word: longer words become
// [UNK].
const wpMaxWordRunes = 100

// WordPiece is the BERT tokenizer the ONNX embedder feeds its model with:
// BERT's basic tokenization (text cleaning, CJK splitting, lowercasing,
// accent stripping, whitespace and punctuation splitting) followed by
// greedy longest-match-first WordPiece over a vocabulary.
//
// A WordPiece is read-only after loading and safe for concurrent use; set
// MaxTokens before sharing it.
type WordPiece struct {
	// MaxTokens caps the length of an encoding, [CLS] and [SEP] included;
	// longer texts are truncated. 0 means 256; values below 2 count as 2.
	MaxTokens int

	start        map[string]int32 // word-initial pieces
	cont         map[string]int32 // continuation pieces, without their "##" prefix
	size         int              // 1 + the largest id
	lower        bool             // lowercase the text
	stripAccents bool             // NFD, then drop nonspacing marks (Mn)
	maxWordRunes int
	unk          int64
	cls          int64
	sep          int64
	pad          int64
}

// LoadVocab loads the WordPiece vocabulary of a BERT model directory:
// tokenizer.json (Hugging Face format, whose normalizer says whether the
// model is cased) if present, else vocab.txt (one token per line, id = line
// number, uncased).
func LoadVocab(dir string) (*WordPiece, error) {
	tj := filepath.Join(dir, "tokenizer.json")
	data, err := os.ReadFile(tj)
	if err == nil {
		w, err := wpFromTokenizerJSON(data)
		if err != nil {
			return nil, fmt.Errorf("vocab %s: %w", tj, err)
		}
		return w, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("vocab: %w", err)
	}
	vt := filepath.Join(dir, "vocab.txt")
	f, err := os.Open(vt)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("no vocab.txt or tokenizer.json in %s", dir)
	}
	if err != nil {
		return nil, fmt.Errorf("vocab: %w", err)
	}
	defer f.Close()
	var tokens []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64*1024), 1024*1024)
	for sc.Scan() {
		tokens = append(tokens, strings.TrimRight(sc.Text(), "\r"))
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("vocab %s: %w", vt, err)
	}
	w, err := wpNew(func(yield func(string, int) bool) {
		for i, t := range tokens {
			if !yield(t, i) {
				return
			}
		}
	}, "##", "[UNK]", true, true)
	if err != nil {
		return nil, fmt.Errorf("vocab %s: %w", vt, err)
	}
	return w, nil
}

// wpTokenizerJSON is the part of a Hugging Face tokenizer.json we read.
type wpTokenizerJSON struct {
	Normalizer *wpNormalizerJSON `json:"normalizer"`
	Model      struct {
		Type     string         `json:"type"`
		Unk      string         `json:"unk_token"`
		Prefix   *string        `json:"continuing_subword_prefix"`
		MaxChars int            `json:"max_input_chars_per_word"`
		Vocab    map[string]int `json:"vocab"`
	} `json:"model"`
}

// wpNormalizerJSON is a tokenizer.json normalizer: BertNormalizer,
// Lowercase, StripAccents, NFD or a Sequence of them.
type wpNormalizerJSON struct {
	Type         string             `json:"type"`
	Lowercase    *bool              `json:"lowercase"`
	StripAccents *bool              `json:"strip_accents"`
	Normalizers  []wpNormalizerJSON `json:"normalizers"`
}

// casing reports whether n lowercases and strips accents.
func (n *wpNormalizerJSON) casing() (lower, strip bool) {
	switch n.Type {
	case "BertNormalizer":
		lower = n.Lowercase == nil || *n.Lowercase
		strip = lower
		if n.StripAccents != nil {
			strip = *n.StripAccents
		}
	case "Lowercase":
		lower = true
	case "StripAccents":
		strip = true
	case "Sequence":
		for i := range n.Normalizers {
			l, s := n.Normalizers[i].casing()
			lower, strip = lower || l, strip || s
		}
	}
	return lower, strip
}

func wpFromTokenizerJSON(data []byte) (*WordPiece, error) {
	var tj wpTokenizerJSON
	if err := json.Unmarshal(data, &tj); err != nil {
		return nil, fmt.Errorf("not a tokenizer.json: %w", err)
	}
	if tj.Model.Type != "" && tj.Model.Type != "WordPiece" {
		return nil, fmt.Errorf("model type %q is not WordPiece (only BERT-style models are supported)", tj.Model.Type)
	}
	if len(tj.Model.Vocab) == 0 {
		return nil, errors.New("model.vocab is missing or empty")
	}
	lower, strip := true, true // uncased unless the normalizer says otherwise
	if tj.Normalizer != nil {
		lower, strip = tj.Normalizer.casing()
	}
	prefix := "##"
	if tj.Model.Prefix != nil {
		prefix = *tj.Model.Prefix
	}
	unk := tj.Model.Unk
	if unk == "" {
		unk = "[UNK]"
	}
	w, err := wpNew(func(yield func(string, int) bool) {
		for t, id := range tj.Model.Vocab {
			if !yield(t, id) {
				return
			}
		}
	}, prefix, unk, lower, strip)
	if err != nil {
		return nil, err
	}
	if tj.Model.MaxChars > 0 {
		w.maxWordRunes = tj.Model.MaxChars
	}
	return w, nil
}

// wpNew builds a WordPiece from (token, id) pairs; a continuation piece is
// a token starting with prefix.
func wpNew(tokens func(yield func(string, int) bool), prefix, unk string, lower, strip bool) (*WordPiece, error) {
	w := &WordPiece{
		start:        make(map[string]int32),
		cont:         make(map[string]int32),
		lower:        lower,
		stripAccents: strip,
		maxWordRunes: wpMaxWordRunes,
		pad:          0,
	}
	var err error
	tokens(func(t string, id int) bool {
		if id < 0 || id > 1<<30 {
			err = fmt.Errorf("token %q has id %d out of range", t, id)
			return false
		}
		if prefix != "" && strings.HasPrefix(t, prefix) && len(t) > len(prefix) {
			w.cont[t[len(prefix):]] = int32(id)
		} else {
			w.start[t] = int32(id)
		}
		w.size = max(w.size, id+1)
		return true
	})
	if err != nil {
		return nil, err
	}
	special := func(name string) (int64, error) {
		id, ok := w.start[name]
		if !ok {
			return 0, fmt.Errorf("no %s token in the vocabulary", name)
		}
		return int64(id), nil
	}
	if w.unk, err = special(unk); err != nil {
		return nil, err
	}
	if w.cls, err = special("[CLS]"); err != nil {
		return nil, err
	}
	if w.sep, err = special("[SEP]"); err != nil {
		return nil, err
	}
	if id, ok := w.start["[PAD]"]; ok {
		w.pad = int64(id)
	}
	return w, nil
}

// Size is the vocabulary size: one more than the largest token id.
func (w *WordPiece) Size() int { return w.size }

// Encode returns the token ids of text: [CLS], its pieces, [SEP],
// truncated to MaxTokens.
func (w *WordPiece) Encode(text string) []int64 {
	return w.AppendEncode(nil, text)
}

// AppendEncode appends the encoding of text (as Encode) to dst, so that a
// caller can reuse one buffer for many texts.
func (w *WordPiece) AppendEncode(dst []int64, text string) []int64 {
	var scratch wpScratch
	return w.appendEncode(dst, text, &scratch)
}

// wpScratch holds the buffers of an encoding, for a caller that encodes
// many texts in turn to reuse.
type wpScratch struct {
	word []byte // the word being collected
	dec  []byte // one rune's canonical decomposition
	enc  [utf8.UTFMax]byte
}

// appendEncode is AppendEncode with the caller's scratch buffers.
func (w *WordPiece) appendEncode(dst []int64, text string, s *wpScratch) []int64 {
	maxTokens := w.MaxTokens
	if maxTokens <= 0 {
		maxTokens = wpDefaultMaxTokens
	}
	maxTokens = max(maxTokens, 2)
	e := wpEncoder{w: w, dst: append(dst, w.cls), word: s.word[:0]}
	e.limit = len(e.dst) + maxTokens - 2 // room left for [SEP]
	for _, r := range text {
		if len(e.dst) >= e.limit {
			break
		}
		if r == 0 || r == utf8.RuneError || wpIsControl(r) {
			continue
		}
		if wpIsWhitespace(r) {
			e.flush()
			continue
		}
		cjk := wpIsCJK(r)
		if cjk {
			e.flush()
		}
		if w.lower {
			r = unicode.ToLower(r)
		}
		if r < utf8.RuneSelf || !w.stripAccents {
			e.add(r)
		} else {
			n := utf8.EncodeRune(s.enc[:], r)
			s.dec = norm.NFD.Append(s.dec[:0], s.enc[:n]...)
			for _, d := range string(s.dec) {
				if !unicode.Is(unicode.Mn, d) {
					e.add(d)
				}
			}
		}
		if cjk {
			e.flush()
		}
	}
	e.flush()
	s.word = e.word
	if cap(s.word) > 4096 { // one giant word; do not keep its buffer
		s.word = nil
	}
	if len(e.dst) > e.limit {
		e.dst = e.dst[:e.limit]
	}
	return append(e.dst, w.sep)
}

// wpEncoder is the state of one AppendEncode: the ids so far and the
// word being collected.
type wpEncoder struct {
	w     *WordPiece
	dst   []int64
	word  []byte
	limit int // the most ids before [SEP]
}

// flush ends the current word and appends its pieces.
func (e *wpEncoder) flush() {
	if len(e.word) > 0 && len(e.dst) < e.limit {
		e.dst = e.w.appendPieces(e.dst, e.word)
	}
	e.word = e.word[:0]
}

// add adds a normalized rune to the current word; a punctuation rune is a
// word of its own.
func (e *wpEncoder) add(r rune) {
	if wpIsPunct(r) {
		e.flush()
		e.word = utf8.AppendRune(e.word, r)
		e.flush()
		return
	}
	e.word = utf8.AppendRune(e.word, r)
}

// appendPieces appends the WordPiece split of one word: greedy longest
// match first, continuation pieces after the first; a word with a part
// that matches nothing, or longer than maxWordRunes, is one [UNK].
func (w *WordPiece) appendPieces(dst []int64, word []byte) []int64 {
	if utf8.RuneCount(word) > w.maxWordRunes {
		return append(dst, w.unk)
	}
	mark := len(dst)
	for start := 0; start < len(word); {
		end := len(word)
		id := int32(-1)
		for end > start {
			var ok bool
			if start == 0 {
				id, ok = w.start[string(word[start:end])]
			} else {
				id, ok = w.cont[string(word[start:end])]
			}
			if ok {
				break
			}
			id = -1
			_, size := utf8.DecodeLastRune(word[start:end])
			end -= size
		}
		if id < 0 {
			return append(dst[:mark], w.unk)
		}
		dst = append(dst, int64(id))
		start = end
	}
	return dst
}

// wpIsControl reports a control or format character, which BERT drops
// (tab, newline and carriage return are whitespace instead).
func wpIsControl(r rune) bool {
	switch r {
	case '\t', '\n', '\r':
		return false
	}
	return unicode.Is(unicode.C, r)
}

// wpIsWhitespace reports a character BERT splits words on.
func wpIsWhitespace(r rune) bool {
	switch r {
	case ' ', '\t', '\n', '\r':
		return true
	}
	return r > utf8.RuneSelf && unicode.IsSpace(r)
}

// wpIsPunct reports a character BERT makes a word of its own: any ASCII
// non-alphanumeric symbol, or Unicode punctuation (P*).
func wpIsPunct(r rune) bool {
	if r >= 33 && r <= 47 || r >= 58 && r <= 64 || r >= 91 && r <= 96 || r >= 123 && r <= 126 {
		return true
	}
	return r > utf8.RuneSelf && unicode.IsPunct(r)
}

// wpIsCJK reports a CJK ideograph, which BERT tokenizes one character at a
// time (Hangul and kana are not in these blocks and stay words).
func wpIsCJK(r rune) bool {
	return r >= 0x4E00 && r <= 0x9FFF ||
		r >= 0x3400 && r <= 0x4DBF ||
		r >= 0x20000 && r <= 0x2A6DF ||
		r >= 0x2A700 && r <= 0x2B73F ||
		r >= 0x2B740 && r <= 0x2B81F ||
		r >= 0x2B820 && r <= 0x2CEAF ||
		r >= 0xF900 && r <= 0xFAFF ||
		r >= 0x2F800 && r <= 0x2FA1F
}
