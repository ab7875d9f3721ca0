package symbolindex

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/ctxls/ctxls/symbolindex/embed"
	"github.com/ctxls/ctxls/symbolindex/parse"
)

// prepareBenchFiles parses this module's own Go sources (the symbolindex
// and workspace packages) once, for the benchmarks of what a cold index
// does with a parsed file.
func prepareBenchFiles(b *testing.B) (paths []string, srcs [][]byte, pfs []*parse.ParsedFile) {
	b.Helper()
	var names []string
	for _, pat := range []string{"*.go", "../workspace/*.go", "parse/*.go", "tokenize/*.go"} {
		m, err := filepath.Glob(pat)
		if err != nil {
			b.Fatal(err)
		}
		names = append(names, m...)
	}
	p := parse.NewParser()
	defer p.Close()
	for _, name := range names {
		src, err := os.ReadFile(name)
		if err != nil {
			b.Fatal(err)
		}
		pf, err := p.ParseContext(context.Background(), name, src)
		if err != nil {
			b.Fatal(err)
		}
		paths, srcs, pfs = append(paths, filepath.ToSlash(name)), append(srcs, src), append(pfs, pf)
	}
	return paths, srcs, pfs
}

// BenchmarkPrepareParsed is the Go-side work of a cold index after the
// parse, per file: leaf keys, tokenizing the symbols and the file, and
// the hash embedder's vectors.
func BenchmarkPrepareParsed(b *testing.B) {
	paths, srcs, pfs := prepareBenchFiles(b)
	emb := embed.NewHashEmbedder(embed.DefaultHashDim)
	b.ReportAllocs()
	for b.Loop() {
		for i := range pfs {
			if _, err := PrepareParsed(pfs[i], emb, paths[i], srcs[i], int64(len(srcs[i])), 0, nil); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkPut is the writer's side of a cold index: every file's
// prepared document put into a new index.
func BenchmarkPut(b *testing.B) {
	paths, srcs, pfs := prepareBenchFiles(b)
	emb := embed.NewHashEmbedder(embed.DefaultHashDim)
	docs := make([]*FileDoc, len(pfs))
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		for i := range pfs {
			d, err := PrepareParsed(pfs[i], emb, paths[i], srcs[i], int64(len(srcs[i])), 0, nil)
			if err != nil {
				b.Fatal(err)
			}
			docs[i] = d
		}
		b.StartTimer()
		ix := NewIndex(emb)
		for _, d := range docs {
			ix.Put(d)
		}
	}
}
