package parse

import (
	"context"
	"path/filepath"
	"reflect"
	"testing"
	"unicode/utf8"
)

// fuzzSnippets are what a fuzzed edit types.
var fuzzSnippets = []string{"", "x", "\n", "}", "{", "(", ")", "func f() {\n}\n", "def g():\n    pass\n",
	"class C {}\n", "é", "😀", "\"", "'", "/*", "*/", "//", "#", "\t", "return 1\n", "import os\n"}

// FuzzParseEdit: any sequence of edits, parsed incrementally from the
// previous version's tree, gives exactly what a fresh parse of the same
// text gives. Each edit is three bytes of the input: where (a fraction of
// the text), how much to delete, what to type.
func FuzzParseEdit(f *testing.F) {
	corpus := []struct{ file, path string }{
		{"../../../workspace/documents.go", "documents.go"},
		{"../../../editors/jsonrpc-demo.py", "demo.py"},
		{"parse/App.tsx", "App.tsx"},
	}
	srcs := make([][]byte, len(corpus))
	for i, c := range corpus {
		srcs[i] = readCorpus(f, c.file, 1)
	}
	f.Add(uint8(0), []byte{10, 3, 7, 200, 0, 1})
	f.Add(uint8(1), []byte{128, 20, 8, 129, 0, 0, 250, 5, 9})
	f.Add(uint8(2), []byte{1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4})
	inc, full := NewParser(), NewParser()
	f.Cleanup(func() { inc.Close(); full.Close() })
	f.Fuzz(func(t *testing.T, which uint8, ops []byte) {
		c := corpus[int(which)%len(corpus)]
		text := append([]byte(nil), srcs[int(which)%len(corpus)]...)
		_, dt, err := inc.ParseEdit(context.Background(), c.path, nil, text)
		if err != nil {
			t.Fatal(err)
		}
		defer func() { dt.Close() }()
		for i := 0; i+3 <= len(ops) && i < 3*64; i += 3 {
			at := runeStart(text, int(ops[i])*len(text)/255)
			end := runeStart(text, min(len(text), at+int(ops[i+1]%48)))
			snippet := fuzzSnippets[int(ops[i+2])%len(fuzzSnippets)]
			text = append(append(append([]byte(nil), text[:at]...), snippet...), text[end:]...)
			got, next, err := inc.ParseEdit(context.Background(), c.path, dt, text)
			if err != nil {
				t.Fatal(err)
			}
			dt = next
			want, err := full.Parse(c.path, text)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%s, edit %d: ParseEdit differs from Parse\n%s", filepath.Base(c.file), i/3+1, diffParsed(got, want))
			}
		}
	})
}

// runeStart moves off back to the start of the rune it falls in.
func runeStart(b []byte, off int) int {
	for off > 0 && off < len(b) && !utf8.RuneStart(b[off]) {
		off--
	}
	return off
}
