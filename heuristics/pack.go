package heuristics

import (
	"strings"
	"unicode/utf8"
)

// MinTruncatedChars is the smallest remainder of the budget worth filling
// with a truncated item; a smaller remainder is left for later, smaller
// items. When the per-item cap is smaller, the cap is used instead.
const MinTruncatedChars = 300

// PackItem is one candidate text for Pack.
type PackItem struct {
	// Len is the length of the item's text in bytes of UTF-8 (the unit of
	// maxChars on the wire); a negative Len counts as 0. Pack only decides
	// lengths: the caller cuts the text, with TruncateText, at a rune
	// boundary.
	Len int
	// Shared, Required and Extra are for PackShare: the item counts
	// against the share of the budget kept for items other than code, a
	// required one is not held to that share, and an extra one does not
	// count against the limit.
	Shared, Required, Extra bool
}

// Packed is one item chosen by Pack.
type Packed struct {
	// Index is the item's position in the input.
	Index int
	// Len is the number of bytes of the item's text to include.
	Len int
	// Truncated is true when Len is less than the item's length.
	Truncated bool
}

// Pack chooses, greedily in input order, which items fill a budget of
// maxChars bytes, at most limit of them. Each item is first capped at
// maxCharsPerItem bytes (no cap when maxCharsPerItem ≤ 0). An item that does
// not fit in what is left is cut to the remainder when the remainder is at
// least min(MinTruncatedChars, maxCharsPerItem); otherwise it is skipped and
// packing goes on, since a smaller later item may still fit. It returns the
// chosen items in input order and the bytes used. limit ≤ 0 or maxChars < 0
// choose nothing.
func Pack(items []PackItem, limit, maxChars, maxCharsPerItem int) (out []Packed, used int) {
	return PackShare(items, limit, maxChars, maxCharsPerItem, -1)
}

// TruncateText cuts s to at most n bytes at a rune boundary and reports
// whether it cut anything. When the last line break before the cut lies in
// the last 20% of n, it cuts there instead (dropping the line break and a
// preceding "\r"), so the text ends with a whole line. n ≤ 0 gives "".
func TruncateText(s string, n int) (string, bool) {
	if len(s) <= n {
		return s, false
	}
	if n <= 0 {
		return "", true
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	if nl := strings.LastIndexByte(s[:cut], '\n'); nl >= 0 && 5*nl >= 4*n {
		cut = nl
		if cut > 0 && s[cut-1] == '\r' {
			cut--
		}
	}
	return s[:cut], true
}

// PackShare is Pack with a second budget inside the first: the items marked
// Shared (context items other than code) may use at most shareChars of
// maxChars between them. An item marked Required (a rule that applies
// always, an item the request named) counts against the share but is not
// held to it, so that it is never left out for the share's sake; it is
// still held to maxChars. An item marked Extra (a context item beside the
// code) does not count against limit: limit bounds the code.
// shareChars < 0 means no share.
func PackShare(items []PackItem, limit, maxChars, maxCharsPerItem, shareChars int) (out []Packed, used int) {
	minCut := MinTruncatedChars
	if maxCharsPerItem > 0 {
		minCut = min(minCut, maxCharsPerItem)
	}
	left, shareLeft, counted := maxChars, shareChars, 0
	for i, it := range items {
		if left < 0 {
			break
		}
		if counted >= limit && !it.Extra {
			continue
		}
		n, cut := max(it.Len, 0), false
		if maxCharsPerItem > 0 && n > maxCharsPerItem {
			n, cut = maxCharsPerItem, true
		}
		room := left
		if it.Shared && !it.Required && shareChars >= 0 {
			room = min(room, max(shareLeft, 0))
		}
		if n > room {
			if room < minCut {
				continue
			}
			n, cut = room, true
		}
		out = append(out, Packed{Index: i, Len: n, Truncated: cut})
		if !it.Extra {
			counted++
		}
		left -= n
		used += n
		if it.Shared {
			shareLeft -= n
		}
	}
	return out, used
}
