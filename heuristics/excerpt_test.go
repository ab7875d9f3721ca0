package heuristics

import (
	"strings"
	"testing"
)

func excerptMarker(k int) string { return ElisionMarker("go", k) }

func TestExcerptKeepsMatchedLines(t *testing.T) {
	var b strings.Builder
	b.WriteString("func long() {\n")
	for i := range 40 {
		b.WriteString("\tstep()  // filler line\n")
		if i == 30 {
			b.WriteString("\treturn errUnknownKey\n")
		}
	}
	b.WriteString("}")
	s := b.String()
	lines := strings.Split(s, "\n")
	hits := make([]float64, len(lines))
	at := 32 // "return errUnknownKey"
	hits[at] = 2

	ex := ExcerptOf(s, 300, hits, excerptMarker)
	if !ex.Cut || len(ex.Text) > 300 {
		t.Fatalf("excerpt of %d chars, cut %v", len(ex.Text), ex.Cut)
	}
	if !strings.HasPrefix(ex.Text, "func long() {\n// … ") || !strings.Contains(ex.Text, "return errUnknownKey") {
		t.Errorf("excerpt does not keep the declaration, a marker and the matched line:\n%s", ex.Text)
	}
	if ex.First != at-ExcerptContext || ex.Elided != ex.First-1 {
		t.Errorf("first claimed line %d (elided %d), want %d (%d)", ex.First, ex.Elided, at-ExcerptContext, at-ExcerptContext-1)
	}
	// The claimed lines are exactly what follows the marker.
	after := ex.Text[strings.Index(ex.Text, " lines …\n")+len(" lines …\n"):]
	if want := strings.Join(lines[ex.First:ex.Last+1], "\n"); after != want {
		t.Errorf("text after the marker:\n%q\nwant lines %d..%d:\n%q", after, ex.First, ex.Last, want)
	}
	if !strings.Contains(ex.Text, "// … 29 lines …") {
		t.Errorf("marker does not count the elided lines:\n%s", ex.Text)
	}

	// Nothing matched, or the match is in the head: the head, cut at a line.
	for _, h := range [][]float64{nil, make([]float64, len(lines))} {
		ex = ExcerptOf(s, 300, h, excerptMarker)
		if ex.First != 0 || ex.Elided != 0 || !strings.HasPrefix(s, ex.Text) || ex.Last != strings.Count(ex.Text, "\n") {
			t.Errorf("unmatched excerpt: first %d, last %d, elided %d, text %q", ex.First, ex.Last, ex.Elided, ex.Text)
		}
	}
	// A text that fits is whole.
	if ex = ExcerptOf(s, len(s), hits, excerptMarker); ex.Cut || ex.Text != s || ex.Last != len(lines)-1 {
		t.Errorf("whole text: cut %v, last %d", ex.Cut, ex.Last)
	}
}

func TestElisionMarkerSpeaksTheLanguage(t *testing.T) {
	for lang, want := range map[string]string{
		"go": "// … 40 lines …", "python": "# … 40 lines …", "markdown": "<!-- … 40 lines … -->", "text": "… 40 lines …",
	} {
		if got := ElisionMarker(lang, 40); got != want {
			t.Errorf("%s: %q, want %q", lang, got, want)
		}
	}
	if got := ElisionMarker("rust", 1); got != "// … 1 line …" {
		t.Errorf("one line: %q", got)
	}
}
