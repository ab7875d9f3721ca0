package symbolindex

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/ctxls/ctxls/symbolindex/embed"
	"github.com/ctxls/ctxls/symbolindex/parse"
	"github.com/ctxls/ctxls/symbolindex/tokenize"
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

// BenchmarkIndexSearch is one select's searches of an index (the lexical
// symbol and file searches and the semantic one, as deep as the pipeline
// asks): this module's own sources, plus 60 copies of one small file under
// other paths, whose symbols and files score alike (vendored or generated
// copies), so that the k kept are decided among equal scores.
func BenchmarkIndexSearch(b *testing.B) {
	paths, srcs, pfs := prepareBenchFiles(b)
	emb := embed.NewHashEmbedder(embed.DefaultHashDim)
	ix := NewIndex(emb)
	for i := range pfs {
		d, err := PrepareParsed(pfs[i], emb, paths[i], srcs[i], int64(len(srcs[i])), 0, nil)
		if err != nil {
			b.Fatal(err)
		}
		ix.Put(d)
	}
	p := parse.NewParser()
	defer p.Close()
	for i := range 60 {
		ix.Put(ixPrepare(b, p, emb, fmt.Sprintf("vendor/bank%02d/account.go", (i*37)%60), ixAccounts))
	}
	var queries [][]QueryTerm
	var vecs [][]float32
	for _, s := range []string{"withdraw from the account balance", "search the index for a symbol", "load the cache file", "deposit money"} {
		var q []QueryTerm
		for _, t := range tokenize.QueryTerms(s) {
			q = append(q, QueryTerm{Term: t, Weight: 1})
		}
		v, err := emb.Embed([]string{s})
		if err != nil {
			b.Fatal(err)
		}
		queries, vecs = append(queries, q), append(vecs, v[0])
	}
	var buf SearchBuffer
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		q := queries[i%len(queries)]
		ix.SearchSymbols(q, 300, nil, &buf)
		ix.SearchSymbols(q, 50, nil, &buf)
		ix.SearchFiles(q, 60, nil, &buf)
		ix.SearchVectors(vecs[i%len(vecs)], 100, nil, nil)
		i++
	}
}
