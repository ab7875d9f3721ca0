package pipeline

import (
	"math"

	"github.com/ctxls/ctxls/heuristics"
	"github.com/ctxls/ctxls/symbolindex/parse"
	"github.com/ctxls/ctxls/workspace/items"
	"github.com/ctxls/ctxls/workspace/snapshot"
)

// selected turns an item into a result item with its text cut to n bytes.
func (it *contextItem) selected(n int, cut bool) Selected {
	text, trunc := heuristics.TruncateText(it.Text, n)
	sel := Selected{
		ID: it.ID(), Symbol: it.Name, Kind: it.Kind, Language: it.Lang, Text: text, Truncated: trunc || cut,
		Score: round4(it.fused), Reason: it.reason, Span: it.Span, StartLineText: it.StartLine, EndLineText: it.EndLine,
	}
	if it.rank > 0 {
		sel.Signals = map[string]Signal{heuristics.SourceNames[heuristics.SrcItem]: {Rank: it.rank, Score: round4(it.score)}}
	}
	if len(it.Paths) > 0 {
		sel.Paths = it.Paths
	}
	if it.Kind == items.ItemRule {
		sel.Path, sel.Abs = it.Paths[0], snapshot.JoinRoot(it.Root, it.Paths[0])
	}
	return sel
}

// build turns the packed entries into items, one per entry, in order, and
// returns them with their texts' total length.
func build(q *query, entries []packEntry, packed []heuristics.Packed, srcs map[string][]byte) ([]Selected, int) {
	items := make([]Selected, 0, len(packed))
	used := 0 // the texts as cut (an excerpt may come out shorter than its share)
	for _, pk := range packed {
		it := buildItem(q, &entries[pk.Index], pk, srcs)
		used += len(it.Text)
		items = append(items, it)
	}
	return items, used
}

// buildItem is the item of one packed entry, its text cut to pk.Len.
func buildItem(q *query, e *packEntry, pk heuristics.Packed, srcs map[string][]byte) Selected {
	if it := e.item; it != nil {
		sel := it.selected(pk.Len, pk.Truncated)
		sel.Why = e.why
		return sel
	}
	c := e.cand
	// A type header goes first when it leaves the member room.
	prefix, room := e.prefix, pk.Len
	if prefix != "" && room-len(prefix) < min(heuristics.MinTruncatedChars, len(e.text)) {
		prefix = ""
	}
	room -= len(prefix)
	ex := excerpt(e.text, room, q, c.lang)
	text := prefix + ex.Text
	src := srcs[snapshot.JoinRoot(c.folder.Root, c.path)]
	r := claimedRange(e.rng, ex)
	it := Selected{
		Abs:           snapshot.JoinRoot(c.folder.Root, c.path),
		Path:          c.path,
		Symbol:        c.sym.Qualified,
		Kind:          c.sym.Kind.String(),
		Language:      c.lang,
		Span:          Span{StartLine: r.StartLine, StartCol: r.StartCol, EndLine: r.EndLine, EndCol: r.EndCol},
		StartLineText: parse.LineAt(src, r.StartLine),
		EndLineText:   parse.LineAt(src, r.EndLine),
		Text:          text,
		Truncated:     ex.Cut || e.cut || c.head, // a file head is never the whole file
		Score:         round4(c.fused),
		Reason:        c.reason,
		Signals:       signals(c),
		Why:           e.why,
	}
	if b := beyond(e, r, prefix); b != "" {
		it.Why += ", with " + b
	}
	it.ID = itemID(c)
	if c.slot == noSlot || c.sym.Kind == parse.KindFile {
		it.Symbol = ""
	} else if sr, ok := r.Intersect(c.sym.Range); ok && sr != r {
		it.SymbolSpan = &Span{StartLine: sr.StartLine, StartCol: sr.StartCol, EndLine: sr.EndLine, EndCol: sr.EndCol}
		it.SymbolStartLineText, it.SymbolEndLineText = parse.LineAt(src, sr.StartLine), parse.LineAt(src, sr.EndLine)
	}
	return it
}

// itemID is the wire id of a candidate: "sym:<path>::<qualified>" or
// "file:<path>".
func itemID(c *cand) string {
	if c.slot == noSlot || c.sym.Kind == parse.KindFile {
		return FormatItemID(c.path, "")
	}
	return FormatItemID(c.path, c.sym.Qualified)
}

func signals(c *cand) map[string]Signal {
	out := make(map[string]Signal, heuristics.NumSources)
	for src := range heuristics.NumSources {
		if c.ranks[src] > 0 {
			out[heuristics.SourceNames[src]] = Signal{Rank: int(c.ranks[src]), Score: round4(float64(c.scores[src]))}
		}
	}
	return out
}

func round4(x float64) float64 { return math.Round(x*1e4) / 1e4 }
