package symbolindex

import (
	"context"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/symbolindex/embed"
	"github.com/ctxls/ctxls/symbolindex/parse"
)

// docTermMap is a document's terms as term → packed per-field counts.
func docTermMap(t *testing.T, dt DocTerms) map[string]uint32 {
	t.Helper()
	if len(dt.Terms) != len(dt.TFs) {
		t.Fatalf("%d terms but %d frequencies", len(dt.Terms), len(dt.TFs))
	}
	m := make(map[string]uint32, len(dt.Terms))
	for i, term := range dt.Terms {
		if _, dup := m[term]; dup {
			t.Fatalf("term %q appears twice", term)
		}
		m[term] = dt.TFs[i]
	}
	return m
}

// TestTokenizeDocMatchesAdd checks that TokenizeDoc, which indexing
// workers run with pooled scratch, yields what Lexical.Add indexes for the
// same fields: documents of over 1,000 distinct terms, which grow the term table past its
// first size, a term over 255 times in one field (the count saturates),
// a body past the term limit, and small documents in between, whose
// answers must not carry anything over from the large ones.
func TestTokenizeDocMatchesAdd(t *testing.T) {
	var big strings.Builder
	for i := range 3000 {
		fmt.Fprintf(&big, "parseWidget%d(config_%d) ", i, i%97)
	}
	big.WriteString(strings.Repeat("repeatedWord ", 300))
	docs := [][NumFields]string{
		{FieldName: "Server.handleRequest handleRequest", FieldPath: "net http server", FieldDoc: "func (s *Server) handleRequest(w ResponseWriter)\nhandles a request", FieldBody: "return s.mux.ServeHTTP(w, r)"},
		{FieldName: "big", FieldPath: "pkg big", FieldDoc: strings.Repeat("repeatedWord ", 300), FieldBody: big.String()},
		{FieldName: "x"},
		{},
		{FieldName: "Server.handleRequest handleRequest", FieldPath: "net http server", FieldDoc: "func (s *Server) handleRequest(w ResponseWriter)\nhandles a request", FieldBody: "return s.mux.ServeHTTP(w, r)"},
		{FieldName: "big", FieldPath: "pkg big", FieldDoc: strings.Repeat("repeatedWord ", 300), FieldBody: big.String()},
	}
	for i, fields := range docs {
		l := NewLexical(DefaultSymbolParams())
		if err := l.Add(7, fields); err != nil {
			t.Fatal(err)
		}
		want := l.Export(7)
		got := TokenizeDoc(fields)
		if got.Lens != want.Lens {
			t.Errorf("doc %d: field lengths %v, Add indexed %v", i, got.Lens, want.Lens)
		}
		if g, w := docTermMap(t, got), docTermMap(t, want); !maps.Equal(g, w) {
			t.Errorf("doc %d: %d terms differ from the %d Add indexed", i, len(g), len(w))
		}
		if i == 1 && len(got.Terms) < 1000 {
			t.Errorf("the large document has %d terms, want over 1000", len(got.Terms))
		}
		// The tokenized form indexes like Add.
		l2 := NewLexical(DefaultSymbolParams())
		if err := l2.addTokenized(7, got); err != nil {
			t.Fatal(err)
		}
		if g, w := docTermMap(t, l2.Export(7)), docTermMap(t, want); !maps.Equal(g, w) {
			t.Errorf("doc %d: the index of TokenizeDoc's terms differs from Add's", i)
		}
	}
}

// streamCheckFiles are the files TestPrepareStreamMatchesTokenizeDoc
// checks: this repository's sources and test data, code and prose in many
// languages. CTXLS_STREAM_CHECK_DIR adds a tree of one's own.
func streamCheckFiles(t *testing.T) []string {
	roots := []string{"..", "../testdata"}
	if dir := os.Getenv("CTXLS_STREAM_CHECK_DIR"); dir != "" {
		roots = append(roots, dir)
	}
	var files []string
	seen := map[string]bool{}
	for _, root := range roots {
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				if d.Name() == ".git" || d.Name() == "node_modules" {
					return filepath.SkipDir
				}
				return nil
			}
			abs, _ := filepath.Abs(p)
			if info, err := d.Info(); err == nil && info.Size() < 1<<20 && !seen[abs] {
				seen[abs] = true
				files = append(files, p)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return files
}

// TestPrepareStreamMatchesTokenizeDoc checks that PrepareParsed, which
// tokenizes a file once and cuts its symbols' bodies from that, gives every
// symbol and the file the terms TokenizeDoc gives their fields on their
// own, in the same order, with the same counts.
func TestPrepareStreamMatchesTokenizeDoc(t *testing.T) {
	p := parse.NewParser()
	defer p.Close()
	emb := embed.NewHashEmbedder(embed.DefaultHashDim)
	var nfiles, nsyms, streamed, cut int
	for _, name := range streamCheckFiles(t) {
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		pf, err := p.ParseContext(context.Background(), name, src)
		if err != nil {
			continue // not a language the parser reads
		}
		rel := filepath.ToSlash(name)
		d, err := PrepareParsed(pf, emb, rel, src, int64(len(src)), 0, nil)
		if err != nil {
			t.Fatal(err)
		}
		stream := useStream(pf.Symbols, src, nil)
		if stream {
			streamed++
		}
		pt := pathText(rel)
		for i := range pf.Symbols {
			if start, end := bodyRange(src, &pf.Symbols[i]); stream && cleanCut(src, start, end) {
				cut++
			}
			want := TokenizeDoc(symbolFields(pt, &pf.Symbols[i], src))
			if !reflect.DeepEqual(d.SymTerms[i], want) {
				t.Fatalf("%s: symbol %s: terms differ from TokenizeDoc's", name, pf.Symbols[i].Qualified)
			}
			checkVec(t, emb, d, pt, i, src)
			if sig := NameSig(pf.Symbols[i].Name); d.NameSigs[i] != sig {
				t.Fatalf("%s: symbol %s: name signature %x, NameSig's %x", name, pf.Symbols[i].Qualified, d.NameSigs[i], sig)
			}
		}
		var ff [NumFields]string
		ff[FieldPath], ff[FieldBody] = pt, string(src)
		if want := TokenizeDoc(ff); !reflect.DeepEqual(d.FileTerms, want) {
			t.Fatalf("%s: file terms differ from TokenizeDoc's", name)
		}
		nfiles++
		nsyms += len(pf.Symbols)
	}
	if nfiles < 100 || streamed < nfiles/2 {
		t.Fatalf("checked %d files (%d tokenized once), %d symbols: too few to say anything", nfiles, streamed, nsyms)
	}
	t.Logf("%d files (%d tokenized once), %d symbols (%d cut from the file's terms)", nfiles, streamed, nsyms, cut)
}

// TestPrepareStreamCutsMidIdentifier gives PrepareParsed symbols whose
// ranges start or end inside an identifier, a kebab-case word or an
// acronym's plural, where the file's terms are not the body's: each must
// still get the terms of its own text.
func TestPrepareStreamCutsMidIdentifier(t *testing.T) {
	long := strings.Repeat("abcdefghij ", 70) // 600 bytes in, the embedder's head ends inside a word
	src := []byte("parse_config(x)\nsend-message now\nHTTPServers run\nvalue2go end\n" + long + "\nlast_")
	at := func(s string) uint32 { return uint32(strings.Index(string(src), s)) }
	spans := [][2]uint32{
		{at("config"), at("(x)")},                // starts after "_"
		{at("send"), at("-message")},             // ends before "-"
		{at("message"), at(" now")},              // starts after "-"
		{at("HTTPServer"), at("s run")},          // ends before a plural "s"
		{at("value"), at("2go")},                 // ends between letters and digits
		{at("last"), uint32(len(src))},           // ends the file on "_"
		{0, uint32(len(src))},                    // the whole file
		{at("parse"), at("parse") + 3},           // inside one word
		{at("\nsend"), at(" now")},               // clean
		{at(long), at(long) + uint32(len(long))}, // a long body
	}
	pf := &parse.ParsedFile{Language: "text"}
	for i, sp := range spans {
		pf.Symbols = append(pf.Symbols, parse.Symbol{Name: fmt.Sprintf("s%d", i), Qualified: fmt.Sprintf("s%d", i), Kind: parse.KindFunction, StartByte: sp[0], EndByte: sp[1]})
	}
	emb := embed.NewHashEmbedder(embed.DefaultHashDim)
	d, err := PrepareParsed(pf, emb, "cut.txt", src, int64(len(src)), 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	pt := pathText("cut.txt")
	for i := range pf.Symbols {
		want := TokenizeDoc(symbolFields(pt, &pf.Symbols[i], src))
		if !reflect.DeepEqual(d.SymTerms[i], want) {
			t.Errorf("symbol %d %q: terms %v, want %v", i, body(src, &pf.Symbols[i]), d.SymTerms[i].Terms, want.Terms)
		}
		checkVec(t, emb, d, pt, i, src)
	}
}

// checkVec checks that symbol i's vector is the one the embedder gives its
// embedText, to the bit.
func checkVec(t *testing.T, emb embed.Embedder, d *FileDoc, pathText string, i int, src []byte) {
	t.Helper()
	sym := &d.Parsed.Symbols[i]
	want, err := emb.Embed([]string{embedText(pathText, sym, src)})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(d.Vecs[i], want[0]) {
		t.Fatalf("%s: symbol %d %s: vector differs from the embedder's of its text", d.Path, i, sym.Qualified)
	}
}

// The name signature PrepareParsed signs while it tokenizes the name
// field is NameSig's, where the name ends the field after a separator,
// is appended to it, or ends a longer identifier (then signed alone).
func TestNameSignedFromNameField(t *testing.T) {
	for _, c := range []struct{ field, name string }{
		{"Cart.Total", "Total"},
		{"GenZshCompletion", "GenZshCompletion"},
		{"pkg::parse_config_v2", "parse_config_v2"},
		{"Outer.inner handler", "handler"},
		{"FooBar", "Bar"},           // the end of one identifier: "bar" alone, no "foobar"
		{"send-message", "message"}, // kebab parts are one identifier's
		{"read_all", "all"},
		{"Ünïcode.Naïve", "Naïve"},
		{"Ünïcode→Naïve", "Naïve"}, // a separator beyond ASCII
		{"ÜnïcodeNaïve", "Naïve"},  // the end of one identifier
		{"x.", ""},
	} {
		ds := docScratchPool.Get()
		ds.begin()
		signed := ds.nameFrom(c.field, c.name)
		var f [NumFields]string
		f[FieldName] = c.field
		ds.fields(&f, NumFields)
		got := ds.nameSig()
		if want := NameSig(c.name); signed && got != want {
			t.Errorf("%q in %q: signed %x, NameSig %x", c.name, c.field, got, want)
		}
		if wantSigned := c.name != "" && c.field != "FooBar" && c.field != "send-message" && c.field != "read_all" && c.field != "ÜnïcodeNaïve"; signed != wantSigned {
			t.Errorf("%q in %q: signed from the field %v, want %v", c.name, c.field, signed, wantSigned)
		}
		if ds.sigFrom != -1 {
			t.Errorf("%q in %q: still signing after nameSig", c.name, c.field)
		}
		docScratchPool.Put(ds)
	}
}
