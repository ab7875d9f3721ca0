package symbolindex

import (
	"errors"
	"fmt"
	"os"

	"github.com/ctxls/ctxls/symbolindex/cachefile"
	"github.com/ctxls/ctxls/symbolindex/embed"
)

// StreamWriter writes the cache file of a new index while it is built: the
// files, put in path order, are indexed a segment's worth at a time and
// each segment is written as soon as it is full, so that a cold build holds
// one segment of files in the heap instead of the whole index before its
// first save. The file it writes holds the same segments as Save of an
// index built from the same files (the same grouping, slots and bytes);
// only the header's reserved room differs, since the number of segments is
// known at the end. LoadIndex maps it once Finish has renamed it into
// place.
type StreamWriter struct {
	path     string
	emb      embed.Embedder
	f        *os.File
	maxFiles int // files the header has room for (a segment has at least one)

	cur      *Index // the files of the segment being filled
	curSyms  int
	last     string
	files    int
	embedded int

	table             []segEntry
	dict              dictBuilder
	off, end          uint64
	fileBase, symBase uint32
}

// NewStreamWriter starts writing an index of at most maxFiles files with
// embedder emb to a temporary file beside path.
func NewStreamWriter(path string, emb embed.Embedder, maxFiles int) (*StreamWriter, error) {
	if !hostLittleEndian {
		return nil, errors.New("stream index: the cache format needs a little-endian machine")
	}
	f, err := cachefile.CreateIndexTemp(path)
	if err != nil {
		return nil, fmt.Errorf("stream index: %w", err)
	}
	off := uint64(alignUp(headerLen(emb, maxFiles), pageSize))
	return &StreamWriter{path: path, emb: emb, f: f, maxFiles: maxFiles, off: off, end: off}, nil
}

// Put adds one prepared file. Files must come in increasing path order
// (as strings.Compare orders them), each once.
func (w *StreamWriter) Put(d *FileDoc) error {
	if w.files > 0 && d.Path <= w.last {
		return fmt.Errorf("stream index: %s put after %s: files must come in path order", d.Path, w.last)
	}
	if w.files >= w.maxFiles {
		return fmt.Errorf("stream index: more than the %d files announced", w.maxFiles)
	}
	n := len(d.Parsed.Symbols)
	if w.cur != nil && segFull(w.cur.Files(), w.curSyms, n) {
		if err := w.flush(); err != nil {
			return err
		}
	}
	if w.cur == nil {
		w.cur = NewIndex(w.emb)
		w.cur.BeginBatch() // its Merkle tree is never needed: the load builds one
	}
	w.embedded += len(w.cur.Put(d))
	w.curSyms += n
	w.last = d.Path
	w.files++
	return nil
}

// Embedded is the number of symbols tokenized and embedded so far.
func (w *StreamWriter) Embedded() int { return w.embedded }

// flush writes the segment being filled.
func (w *StreamWriter) flush() error {
	g := segGroup{files: w.cur.filesByPath(), nsyms: w.curSyms}
	sw := &segWriter{ix: w.cur, dict: &w.dict}
	n, sum, body, err := writeSegment(w.f, int64(w.off), sw.segment(g, w.fileBase, w.symBase))
	if err != nil {
		return fmt.Errorf("stream index %s: %w", w.path, err)
	}
	w.table = append(w.table, segEntry{Off: w.off, Len: n, Sum: sum, Body: body,
		FileBase: w.fileBase, NFiles: uint32(len(g.files)), SymBase: w.symBase, NSyms: uint32(g.nsyms)})
	w.end = w.off + n
	w.off += uint64(alignUp(int(n), pageSize))
	w.fileBase += uint32(len(g.files))
	w.symBase = uint32(alignUp(int(w.symBase)+g.nsyms, vecChunk))
	w.cur, w.curSyms = nil, 0
	return nil
}

// Finish writes the last segment and the header and renames the file over
// path. The writer is done either way; on error the temporary file is
// removed.
func (w *StreamWriter) Finish() error {
	err := func() error {
		if w.cur != nil {
			if err := w.flush(); err != nil {
				return err
			}
		}
		dict, err := w.dict.write(w.f, w.end)
		if err != nil {
			return err
		}
		if err := writeHeader(w.f, w.emb, w.table, dict, w.fileBase, w.symBase); err != nil {
			return err
		}
		if err := w.f.Close(); err != nil {
			return err
		}
		return os.Rename(w.f.Name(), w.path)
	}()
	if err != nil {
		w.Abort()
		return fmt.Errorf("stream index %s: %w", w.path, err)
	}
	return nil
}

// Abort gives up: the temporary file is removed and path left as it was.
func (w *StreamWriter) Abort() {
	w.f.Close()
	os.Remove(w.f.Name())
	w.cur = nil
}
