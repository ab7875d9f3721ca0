package symbolindex

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/ctxls/ctxls/symbolindex/embed"
	"github.com/ctxls/ctxls/symbolindex/parse"
)

// FuzzDecodeIndex: a damaged cache is an error, never a panic, a hang or
// an index that breaks later.
func FuzzDecodeIndex(f *testing.F) {
	emb := embed.NewHashEmbedder(32)
	ix := NewIndex(emb)
	p := parse.NewParser()
	defer p.Close()
	for i, src := range []string{"package a\n\n// Add adds.\nfunc Add(a, b int) int { return a + b }\n", "def greet(name):\n    return 'hi ' + name\n"} {
		path := []string{"a.go", "greet.py"}[i]
		pf, err := p.Parse(path, []byte(src))
		if err != nil {
			f.Fatal(err)
		}
		doc, err := PrepareParsed(pf, emb, path, []byte(src), int64(len(src)), 1, nil)
		if err != nil {
			f.Fatal(err)
		}
		ix.Put(doc)
	}
	path := filepath.Join(f.TempDir(), "seed.idx")
	if err := ix.Save(path); err != nil {
		f.Fatal(err)
	}
	valid, err := os.ReadFile(path)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(valid)
	f.Add(valid[:len(valid)/2])
	f.Add(append(append([]byte(nil), valid[:40]...), 0xff, 0xff, 0xff, 0xff, 0x7f))
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := decodeIndex(data, emb, nil)
		if err != nil {
			return
		}
		// A cache that decodes is one Save wrote: it answers like one.
		for _, p := range got.Paths() {
			if _, ok := got.State(p); !ok {
				t.Fatalf("%s listed but has no state", p)
			}
		}
		got.Tree().RootHex()
	})
}
