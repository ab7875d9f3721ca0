package heuristics

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestPack(t *testing.T) {
	items := func(lens ...int) []PackItem {
		out := make([]PackItem, len(lens))
		for i, n := range lens {
			out[i] = PackItem{Len: n}
		}
		return out
	}
	tests := []struct {
		name                        string
		items                       []PackItem
		limit, maxChars, maxPerItem int
		want                        []Packed
		used                        int
	}{
		{
			name:  "everything fits",
			items: items(100, 200, 300), limit: 8, maxChars: 12000, maxPerItem: 1500,
			want: []Packed{{0, 100, false}, {1, 200, false}, {2, 300, false}}, used: 600,
		},
		{
			name:  "per-item cap truncates",
			items: items(4000, 200), limit: 8, maxChars: 12000, maxPerItem: 1500,
			want: []Packed{{0, 1500, true}, {1, 200, false}}, used: 1700,
		},
		{
			name:  "last item cut to a large enough remainder",
			items: items(1000, 1000), limit: 8, maxChars: 1500, maxPerItem: 1500,
			want: []Packed{{0, 1000, false}, {1, 500, true}}, used: 1500,
		},
		{
			name:  "small remainder skips the big item, a later small one fits",
			items: items(1400, 1000, 50, 60), limit: 8, maxChars: 1500, maxPerItem: 1500,
			want: []Packed{{0, 1400, false}, {2, 50, false}}, used: 1450,
		},
		{
			// The threshold is min(300, 100) = 100, and a capped item is at
			// most 100, so it either fits whole or the remainder is too small.
			name:  "a per-item cap below the threshold never cuts to the remainder",
			items: items(100, 100, 100), limit: 8, maxChars: 250, maxPerItem: 100,
			want: []Packed{{0, 100, false}, {1, 100, false}}, used: 200,
		},
		{
			name:  "remainder just below the threshold",
			items: items(700, 500), limit: 8, maxChars: 999, maxPerItem: 1500,
			want: []Packed{{0, 700, false}}, used: 700,
		},
		{
			name:  "remainder exactly at the threshold",
			items: items(700, 500), limit: 8, maxChars: 1000, maxPerItem: 1500,
			want: []Packed{{0, 700, false}, {1, 300, true}}, used: 1000,
		},
		{
			name:  "limit stops packing",
			items: items(10, 10, 10, 10), limit: 2, maxChars: 12000, maxPerItem: 1500,
			want: []Packed{{0, 10, false}, {1, 10, false}}, used: 20,
		},
		{
			name:  "no per-item cap when it is zero",
			items: items(5000), limit: 8, maxChars: 12000, maxPerItem: 0,
			want: []Packed{{0, 5000, false}}, used: 5000,
		},
		{
			name:  "empty and negative lengths cost nothing",
			items: items(0, -5, 10), limit: 8, maxChars: 10, maxPerItem: 100,
			want: []Packed{{0, 0, false}, {1, 0, false}, {2, 10, false}}, used: 10,
		},
		{name: "zero limit", items: items(10), limit: 0, maxChars: 100, maxPerItem: 100},
		{name: "negative budget", items: items(10), limit: 8, maxChars: -1, maxPerItem: 100},
		{name: "no items", limit: 8, maxChars: 100, maxPerItem: 100},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, used := Pack(tt.items, tt.limit, tt.maxChars, tt.maxPerItem)
			if !(len(got) == 0 && len(tt.want) == 0) && !slices.Equal(got, tt.want) || used != tt.used {
				t.Errorf("Pack = %v, %d; want %v, %d", got, used, tt.want, tt.used)
			}
			if used > max(tt.maxChars, 0) {
				t.Errorf("used %d exceeds the budget %d", used, tt.maxChars)
			}
		})
	}
}

func TestTruncateText(t *testing.T) {
	tenLines := strings.Repeat("123456789\n", 10) // 100 bytes
	tests := []struct {
		name   string
		s      string
		n      int
		want   string
		wantOK bool
	}{
		{"short text unchanged", "hello", 10, "hello", false},
		{"exact length unchanged", "hello", 5, "hello", false},
		{"plain cut", "hello world", 5, "hello", true},
		{"newline in the last 20% is preferred", tenLines, 95, strings.Repeat("123456789\n", 8) + "123456789", true},
		{"newline too early is ignored", "line one\n" + strings.Repeat("x", 50), 40, "line one\n" + strings.Repeat("x", 31), true},
		{"CRLF cut drops the CR too", strings.Repeat("abcdefgh\r\n", 3), 23, "abcdefgh\r\nabcdefgh", true},
		{"never splits a rune", "héllo", 2, "h", true},
		{"never splits a 4-byte rune", "ab😀cd", 5, "ab", true},
		{"zero budget", "abc", 0, "", true},
		{"negative budget", "abc", -3, "", true},
		{"empty text", "", 0, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := TruncateText(tt.s, tt.n)
			if got != tt.want || ok != tt.wantOK {
				t.Errorf("TruncateText(%q, %d) = %q, %v; want %q, %v", tt.s, tt.n, got, ok, tt.want, tt.wantOK)
			}
			if len(got) > max(tt.n, 0) && ok {
				t.Errorf("result is %d bytes, over %d", len(got), tt.n)
			}
			if !utf8.ValidString(got) {
				t.Errorf("result %q is not valid UTF-8", got)
			}
		})
	}
}
