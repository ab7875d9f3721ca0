package heuristics

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
