package pipeline

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// A pasted literal is cut, at a rune, for its why.
func TestShortLiteral(t *testing.T) {
	long := strings.Repeat("é", 100) + "()"
	got := shortLiteral(long)
	if len(got) > 64 || !utf8.ValidString(got) || !strings.HasSuffix(got, "…") {
		t.Errorf("shortLiteral(%d bytes) = %q", len(long), got)
	}
	if got := shortLiteral("interface{}"); got != "interface{}" {
		t.Errorf("shortLiteral(interface{}) = %q", got)
	}
}
