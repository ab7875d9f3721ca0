package symbolindex

import (
	"bufio"
	"encoding/binary"
	"encoding/gob"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/cespare/xxhash/v2"
)

// cacheVersion changes whenever the on-disk layout or anything that feeds it
// (parsing, tokenizing, hashing) changes, so that an old cache is rebuilt
// instead of trusted.
const cacheVersion = 2

// cacheMagic starts every cache file.
const cacheMagic = "ctxls-index"

// ErrCacheMismatch says a cache file was written by another version of
// ctxls or with another embedder. It is not corruption: the index is simply
// rebuilt.
var ErrCacheMismatch = errors.New("cache written by another version or embedder")

type cacheHeader struct {
	Magic    string
	Version  int
	Embedder string
	Dim      int
}

type cacheFile struct {
	Path      string
	Language  string
	Hash      uint64
	Size      int64
	ModTime   int64
	Refs      []string
	FileTerms DocTerms
	Symbols   []cacheSymbol
}

type cacheSymbol struct {
	Sym   Symbol
	Key   string
	Hash  uint64
	Terms DocTerms
	Vec   []int8
	Scale float32
}

// Save writes the index to path atomically: it writes a temporary file in the
// same directory and renames it over path, so a crash mid-write leaves the
// previous cache intact. The file ends with an xxhash64 of everything before
// it, so that a damaged cache is detected instead of trusted.
func (ix *Index) Save(path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("save index: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("save index: %w", err)
	}
	defer os.Remove(tmp.Name()) // no-op after a successful rename
	w := bufio.NewWriterSize(tmp, 1<<20)
	sum := xxhash.New()
	if err := ix.encode(io.MultiWriter(w, sum)); err != nil {
		tmp.Close()
		return fmt.Errorf("save index %s: %w", path, err)
	}
	if _, err := w.Write(binary.LittleEndian.AppendUint64(nil, sum.Sum64())); err != nil {
		tmp.Close()
		return fmt.Errorf("save index %s: %w", path, err)
	}
	if err := w.Flush(); err != nil {
		tmp.Close()
		return fmt.Errorf("save index %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("save index %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("save index: %w", err)
	}
	return nil
}

func (ix *Index) encode(w io.Writer) error {
	enc := gob.NewEncoder(w)
	if err := enc.Encode(cacheHeader{Magic: cacheMagic, Version: cacheVersion, Embedder: ix.emb.ID(), Dim: ix.emb.Dim()}); err != nil {
		return err
	}
	if err := enc.Encode(len(ix.files)); err != nil {
		return err
	}
	vec := make([]float32, 0, ix.emb.Dim())
	for _, p := range ix.Paths() {
		fe := &ix.fileTab[ix.files[p]]
		cf := cacheFile{
			Path: fe.Path, Language: fe.Language, Hash: fe.Hash, Size: fe.Size, ModTime: fe.ModTime,
			Refs:      fe.Refs,
			FileTerms: ix.flex.Export(ix.files[p]),
			Symbols:   make([]cacheSymbol, len(fe.Slots)),
		}
		for i, s := range fe.Slots {
			e := &ix.syms[s]
			vec = ix.vecs.Get(s, vec[:0])
			q, scale := quantize(vec)
			cf.Symbols[i] = cacheSymbol{Sym: e.Sym, Key: e.Key, Hash: e.Hash, Terms: ix.lex.Export(s), Vec: q, Scale: scale}
		}
		if err := enc.Encode(&cf); err != nil {
			return err
		}
	}
	return nil
}

func quantize(v []float32) ([]int8, float32) {
	var m float32
	for _, x := range v {
		if x < 0 {
			x = -x
		}
		if x > m {
			m = x
		}
	}
	q := make([]int8, len(v))
	if m == 0 {
		return q, 0
	}
	scale := m / 127
	for i, x := range v {
		r := x / scale
		if r >= 0 {
			r += 0.5
		} else {
			r -= 0.5
		}
		q[i] = int8(r)
	}
	return q, scale
}

// LoadIndex reads an index saved by Save. It returns ErrCacheMismatch (wrapped)
// when the file was written by another cache version or embedder, and another
// error when it is unreadable or corrupt; either way the caller rebuilds.
func LoadIndex(path string, emb Embedder) (*Index, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	ix, err := decodeIndex(bufio.NewReaderSize(f, 1<<20), emb)
	if err != nil {
		return nil, fmt.Errorf("load index %s: %w", path, err)
	}
	return ix, nil
}

// hashReader hands gob the bytes of r, hashing them on the way. It is an
// io.ByteReader, so gob reads through it without buffering ahead: after the
// last file, r is positioned exactly at the checksum.
type hashReader struct {
	r   *bufio.Reader
	sum *xxhash.Digest
	one [1]byte
}

func (h *hashReader) Read(p []byte) (int, error) {
	n, err := h.r.Read(p)
	h.sum.Write(p[:n])
	return n, err
}

func (h *hashReader) ReadByte() (byte, error) {
	b, err := h.r.ReadByte()
	if err == nil {
		h.one[0] = b
		h.sum.Write(h.one[:])
	}
	return b, err
}

func decodeIndex(br *bufio.Reader, emb Embedder) (ix *Index, err error) {
	// A corrupt gob stream can make the decoder panic on absurd lengths;
	// a cache must never take the process down.
	defer func() {
		if p := recover(); p != nil {
			ix, err = nil, fmt.Errorf("corrupt cache: %v", p)
		}
	}()
	hr := &hashReader{r: br, sum: xxhash.New()}
	dec := gob.NewDecoder(hr)
	var h cacheHeader
	if err := dec.Decode(&h); err != nil {
		return nil, fmt.Errorf("corrupt cache header: %w", err)
	}
	if h.Magic != cacheMagic {
		return nil, errors.New("not a ctxls index")
	}
	if h.Version != cacheVersion || h.Embedder != emb.ID() || h.Dim != emb.Dim() {
		return nil, fmt.Errorf("%w (version %d, embedder %s; want version %d, embedder %s)",
			ErrCacheMismatch, h.Version, h.Embedder, cacheVersion, emb.ID())
	}
	var n int
	if err := dec.Decode(&n); err != nil {
		return nil, fmt.Errorf("corrupt cache: %w", err)
	}
	ix = NewIndex(emb)
	ix.BeginBatch()
	vec := make([]float32, emb.Dim())
	for i := 0; i < n; i++ {
		var cf cacheFile
		if err := dec.Decode(&cf); err != nil {
			return nil, fmt.Errorf("corrupt cache: file %d of %d: %w", i+1, n, err)
		}
		d := &FileDoc{
			Path: cf.Path, Hash: cf.Hash, Size: cf.Size, ModTime: cf.ModTime,
			Parsed:    &ParsedFile{Language: cf.Language, Refs: cf.Refs, Symbols: make([]Symbol, len(cf.Symbols))},
			Keys:      make([]string, len(cf.Symbols)),
			Hashes:    make([]uint64, len(cf.Symbols)),
			Vecs:      make([][]float32, len(cf.Symbols)),
			SymTerms:  make([]DocTerms, len(cf.Symbols)),
			FileTerms: cf.FileTerms,
		}
		for j := range cf.Symbols {
			cs := &cf.Symbols[j]
			if len(cs.Vec) != emb.Dim() {
				return nil, fmt.Errorf("corrupt cache: %s: vector of %d, want %d", cf.Path, len(cs.Vec), emb.Dim())
			}
			for k, q := range cs.Vec {
				vec[k] = float32(q) * cs.Scale
			}
			d.Parsed.Symbols[j] = cs.Sym
			d.Keys[j] = cs.Key
			d.Hashes[j] = cs.Hash
			d.Vecs[j] = append([]float32(nil), vec...)
			d.SymTerms[j] = cs.Terms
		}
		ix.Put(d)
	}
	var trailer [8]byte
	if _, err := io.ReadFull(br, trailer[:]); err != nil {
		return nil, fmt.Errorf("corrupt cache: checksum: %w", err)
	}
	if binary.LittleEndian.Uint64(trailer[:]) != hr.sum.Sum64() {
		return nil, errors.New("corrupt cache: checksum mismatch")
	}
	if _, err := br.ReadByte(); err != io.EOF {
		return nil, errors.New("corrupt cache: data after the checksum")
	}
	if err := ix.EndBatch(); err != nil {
		return nil, fmt.Errorf("corrupt cache: %w", err)
	}
	ix.Compact()
	ix.Reembedded = 0
	return ix, nil
}
