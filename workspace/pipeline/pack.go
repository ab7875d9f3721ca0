package pipeline

import (
	"math"
	"slices"
	"strings"

	"github.com/ctxls/ctxls/heuristics"
	"github.com/ctxls/ctxls/workspace/config"
	"github.com/ctxls/ctxls/workspace/tokens"
)

// packSpend packs the entries into the character budget, then spends what
// the answer left on widening them (surround.go) and packs again.
func packSpend(p *plan, sur *surroundings, entries []packEntry) []heuristics.Packed {
	packed, packedChars := packEntries(p, entries)
	if left := min(p.maxChars, config.DefaultMaxChars) - packedChars; left > 0 && sur.spend(p, entries, packed, left) {
		packed, _ = packEntries(p, entries)
	}
	return packed
}

// packEntries decides which entries fill the budget and how much of each.
func packEntries(p *plan, entries []packEntry) ([]heuristics.Packed, int) {
	in := make([]heuristics.PackItem, len(entries))
	for i, e := range entries {
		in[i] = e.packItem(p)
	}
	return heuristics.PackShare(in, p.limit, p.maxChars, p.perItem, p.shareChars())
}

// packItem is an entry's part in the budget: items other than code count
// against the share, and do not count against the limit; the named items
// and the unscoped always rules are not held to the share (a scoped rule,
// which the code brought in, is).
func (e packEntry) packItem(p *plan) heuristics.PackItem {
	if it := e.item; it != nil {
		required := it.reason == ReasonManual || it.reason == ReasonAlways && it.Globs == nil
		return heuristics.PackItem{Len: len(e.text), Shared: true, Extra: true, Required: required}
	}
	return heuristics.PackItem{Len: len(e.prefix) + len(e.text), Shared: p.sharedDoc(e.cand)}
}

// charsPerToken is the first guess at how many bytes of code a token
// holds, which turns maxTokens into a character budget to pack by before
// the chosen texts are counted (o200k_base and cl100k_base both average
// about 3.4 on this repository's Go; a guess on the high side errs
// towards trimming the last item rather than leaving budget unused).
const charsPerToken = 3.5

// tokenBudget is a request's token budget and the encoding it counts in.
type tokenBudget struct {
	max     int    // 0: no token budget
	name    string // the encoding's name; "" when nothing is counted
	charCap int    // the request's own maxChars; 0 when it gives none
	enc     *tokens.Encoding
	// fitted is the tokens of the texts fitTokens chose, which it counts
	// as it fits them: with a token budget, the answer is not counted
	// again.
	fitted int
}

// validateTokens checks the request's token fields and, with a token
// budget, sets the character budget packing starts from: maxTokens at
// charsPerToken, within the request's own maxChars. It does not load the
// encoding (loadEncoding does, outside the workspace's lock).
func (p *plan) validateTokens(req *SelectRequest) error {
	if req.MaxTokens < 0 || req.MaxTokens > config.MaxMaxTokens {
		return ParamErr("maxTokens", "must be between 1 and %d (0: no token budget), got %d", config.MaxMaxTokens, req.MaxTokens)
	}
	if req.TokenEncoding != "" && !tokens.Known(req.TokenEncoding) {
		return ParamErr("tokenEncoding", "unknown encoding %q (want %s)", req.TokenEncoding, strings.Join(tokens.Names, " or "))
	}
	if req.MaxTokens == 0 && req.TokenEncoding == "" {
		return nil
	}
	p.tok = tokenBudget{max: req.MaxTokens, name: req.TokenEncoding, charCap: req.MaxChars}
	if p.tok.name == "" {
		p.tok.name = tokens.Default
	}
	if p.tok.max > 0 {
		est := int(math.Ceil(float64(p.tok.max) * charsPerToken))
		if p.tok.charCap > 0 {
			est = min(est, p.tok.charCap)
		}
		p.maxChars = est
	}
	return nil
}

// loadEncoding loads the encoding the request counts in, once per
// process.
func (p *plan) loadEncoding() error {
	if p.tok.name == "" || p.tok.enc != nil {
		return nil
	}
	enc, err := tokens.Get(p.tok.name)
	if err != nil {
		return err
	}
	p.tok.enc = enc
	return nil
}

// count is the tokens of text.
func (t *tokenBudget) count(text string) int { return t.enc.Count(text) }

// usedTokens is the tokens of the items' texts, each counted alone, and
// the encoding; 0 and "" when the request counts none.
func (p *plan) usedTokens(items []Selected) (int, string) {
	if p.tok.enc == nil {
		return 0, ""
	}
	if p.tok.max > 0 {
		return p.tok.fitted, p.tok.name
	}
	n := 0
	for i := range items {
		n += p.tok.count(items[i].Text)
	}
	return n, p.tok.name
}

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

// pack fits the entries into the budget, items other than code within
// their share, and turns them into items, in order (render.go). A code
// text over its share is cut to an excerpt that keeps the lines matching
// the query (heuristics.ExcerptOf), and the item's range is exactly the
// lines its text holds after any elision marker.
func pack(p *plan, q *query, sur *surroundings, entries []packEntry, srcs map[string][]byte) ([]Selected, int) {
	if p.tok.max > 0 {
		return fitTokens(p, q, sur, entries, srcs)
	}
	return build(q, entries, packSpend(p, sur, entries), srcs)
}
