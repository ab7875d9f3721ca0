package replay

import (
	"bytes"
	"context"

	"github.com/ctxls/ctxls/symbolindex"
	"github.com/ctxls/ctxls/symbolindex/tokenize"
	"github.com/ctxls/ctxls/workspace"
)

// baselineHeadChars is how much of each file the baseline returns: plain
// retrieval over whole files hands a model the head of each file.
const baselineHeadChars = 3000

// baseline is plain BM25 over whole files (path and content), the
// yardstick every report stands beside. It knows nothing of the active
// file, the cursor or the history. It follows the tree incrementally:
// files whose content hash did not change are not tokenized again.
type baseline struct {
	lex  *symbolindex.Lexical
	docs map[string]baselineDoc // path → its doc
	free []uint32
	next uint32
	path []string // doc → path
	buf  symbolindex.SearchBuffer
}

type baselineDoc struct {
	id       uint32
	hash     uint64
	headLast int // the last line (1-based) the file's head reaches
}

func newBaseline() *baseline {
	return &baseline{lex: symbolindex.NewLexical(symbolindex.DefaultFileParams()), docs: map[string]baselineDoc{}}
}

// sync brings the baseline up to date with the tree at dir, discovered as
// ctxls discovers a workspace.
func (b *baseline) sync(ctx context.Context, dir string, read func(string) ([]byte, error)) error {
	files, _, err := workspace.Discover(ctx, dir, workspace.DiscoverOptions{})
	if err != nil {
		return err
	}
	seen := make(map[string]bool, len(files))
	for _, f := range files {
		seen[f.Path] = true
		if d, ok := b.docs[f.Path]; ok && d.hash == f.Hash {
			continue
		}
		src, err := read(f.Path)
		if err != nil {
			return err
		}
		b.remove(f.Path)
		id := b.alloc(f.Path)
		var fields [symbolindex.NumFields]string
		fields[symbolindex.FieldPath] = f.Path
		fields[symbolindex.FieldBody] = string(src)
		if err := b.lex.Add(id, fields); err != nil {
			return err
		}
		b.docs[f.Path] = baselineDoc{id: id, hash: f.Hash, headLast: bytes.Count(src[:min(len(src), baselineHeadChars)], []byte("\n")) + 1}
	}
	for p := range b.docs {
		if !seen[p] {
			b.remove(p)
		}
	}
	return nil
}

func (b *baseline) alloc(p string) uint32 {
	var id uint32
	if n := len(b.free); n > 0 {
		id, b.free = b.free[n-1], b.free[:n-1]
		b.path[id] = p
		return id
	}
	id = b.next
	b.next++
	b.path = append(b.path, p)
	return id
}

func (b *baseline) remove(p string) {
	if d, ok := b.docs[p]; ok {
		b.lex.Remove(d.id)
		b.free = append(b.free, d.id)
		delete(b.docs, p)
	}
}

// answer ranks the files for query and returns them as results: each the
// head of its file.
func (b *baseline) answer(query string, k int) []Item {
	var terms []symbolindex.QueryTerm
	for _, t := range tokenize.QueryTerms(query) {
		terms = append(terms, symbolindex.QueryTerm{Term: t, Weight: 1})
	}
	var out []Item
	for _, h := range b.lex.Search(terms, k, nil, &b.buf) {
		p := b.path[h.Doc]
		out = append(out, Item{Path: p, Start: 1, End: b.docs[p].headLast, Chars: baselineHeadChars})
	}
	return out
}
