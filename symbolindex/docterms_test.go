package symbolindex

import (
	"fmt"
	"maps"
	"strings"
	"testing"
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
