package pipeline

import (
	"slices"

	"github.com/ctxls/ctxls/heuristics"
)

// fitTokens fills a token budget (maxTokens). Counting is costly (a BPE
// tokenizer reads well under a megabyte a second), so the entries are
// packed by characters, at the budget maxTokens makes at charsPerToken
// (within the request's own maxChars), and only the chosen texts are
// counted, each once per request:
//
//   - when they hold well under maxTokens (less than 90%) and the
//     character budget, not the limit or the per-item cap, was what
//     stopped them, they are packed once more at the budget their own
//     ratio of characters to tokens makes, and counted again (texts
//     already counted are not);
//   - then, while they hold more than maxTokens, the last item (the
//     lowest-ranked; pinned and required ones come first) is cut to the
//     tokens left, at line boundaries as the character budget cuts
//     (excerpt, heuristics.TruncateText), or left out when fewer tokens
//     are left than the smallest cut the character budget makes holds
//     (MinTruncatedChars at charsPerToken).
//
// Both bounds hold: the texts total at most maxTokens tokens and, when
// the request gives maxChars, at most maxChars characters. The texts'
// tokens are kept in p.tok.fitted: the answer's usedTokens.
func fitTokens(p *plan, q *query, sur *surroundings, base []packEntry, srcs map[string][]byte) ([]Selected, int) {
	t := &p.tok
	budget := p.maxChars
	var (
		items   []Selected
		entries []packEntry
		packed  []heuristics.Packed
		used    int
		total   int
	)
	for pass := 0; pass < 2; pass++ {
		pp := *p
		pp.maxChars = budget
		entries = slices.Clone(base)
		packed = packSpend(&pp, sur, entries)
		items, used = build(q, entries, packed, srcs)
		total = 0
		for i := range items {
			total += t.count(items[i].Text)
		}
		bound := used >= budget*9/10 && (t.charCap == 0 || budget < t.charCap)
		if total == 0 || total >= t.max*9/10 || !bound {
			break
		}
		next := int(int64(used) * int64(t.max) / int64(total))
		if t.charCap > 0 {
			next = min(next, t.charCap)
		}
		if next <= budget {
			break
		}
		budget = next
	}
	// The smallest cut: the character budget's (MinTruncatedChars, or the
	// per-item cap when smaller), in tokens at the guessed ratio.
	minCut := int(float64(min(heuristics.MinTruncatedChars, p.perItem)) / charsPerToken)
	for total > t.max && len(items) > 0 {
		i := len(items) - 1
		text := items[i].Text
		n := t.count(text)
		want := t.max - (total - n) // the tokens left for the last item
		total -= n
		used -= len(text)
		items = items[:i]
		if want < max(minCut, 1) {
			continue
		}
		// Guess the length from the item's own ratio, and shorten the
		// guess by the ratio the cut text shows until it fits.
		pk := packed[i]
		chars := len(text) * want / n
		for try := 0; try < 6 && chars > 0; try++ {
			pk.Len, pk.Truncated = chars, true
			it := buildItem(q, &entries[pk.Index], pk, srcs)
			if k := t.count(it.Text); k <= want {
				items = append(items, it)
				total += k
				used += len(it.Text)
				break
			} else {
				chars = min(chars-1, chars*want/k)
			}
		}
	}
	t.fitted = total
	return items, used
}
