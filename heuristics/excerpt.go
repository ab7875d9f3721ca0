package heuristics

import (
	"strconv"
	"strings"
)

// ExcerptContext is how many lines before the first matched line of a
// window an excerpt keeps: enough to show the statement a matched line is in.
const ExcerptContext = 2

// Excerpt is the part of an item's text that fits its cap.
type Excerpt struct {
	// Text is what the item shows: either a head of the full text, or its
	// first line, an elision marker line and a window further down.
	Text string
	// First and Last are the lines of the full text (0-based) that the
	// excerpt claims: the lines Text holds after its last marker line (all
	// of Text when it has none). Last's line may be cut short.
	First, Last int
	// Cut reports whether anything was left out.
	Cut bool
	// Elided is how many lines the marker stands for (0: no marker).
	Elided int
}

// Excerpt cuts s to at most n bytes, keeping the lines that matched the
// query. hits[i] is the weight of line i of s (how much of the query it
// matches; nil or all zero: none matched). When s fits, it is whole. When
// the matched lines beyond what a head of s would show outweigh those in
// the head, the excerpt is s's first line (the declaration), a marker
// line marker(k) standing for the k lines left out, and the window of
// lines, starting ExcerptContext lines before a matched line, that holds
// the most matched weight in what is left of n. Otherwise it is the head,
// cut as TruncateText cuts. n ≤ 0 gives "".
func ExcerptOf(s string, n int, hits []float64, marker func(elided int) string) Excerpt {
	if len(s) <= n {
		return Excerpt{Text: s, Last: strings.Count(s, "\n")}
	}
	head, _ := TruncateText(s, n)
	best := Excerpt{Text: head, Last: strings.Count(head, "\n"), Cut: true}
	if n <= 0 || len(hits) == 0 {
		return best
	}
	lines := strings.SplitAfter(s, "\n")
	headLast := best.Last
	headWeight := 0.0
	for i := 0; i <= headLast && i < len(hits); i++ {
		headWeight += hits[i]
	}
	prefix := strings.TrimRight(lines[0], "\r\n")
	bestWeight := headWeight
	for h := headLast + 1; h < len(lines) && h < len(hits); h++ {
		if hits[h] <= 0 || h > 0 && hits[h-1] > 0 && h-1 > headLast {
			continue // a window starting at an earlier matched line holds this one
		}
		start := max(h-ExcerptContext, 1)
		elided := start - 1
		if elided == 0 {
			continue // no gap: the head is this window
		}
		mark := marker(elided)
		room := n - len(prefix) - len(mark) - 2
		if room <= 0 {
			break
		}
		used, w, last := 0, 0.0, start-1
		for i := start; i < len(lines) && used+len(lines[i]) <= room; i++ {
			used += len(lines[i])
			if i < len(hits) {
				w += hits[i]
			}
			last = i
		}
		if last < h || w <= bestWeight {
			continue
		}
		window := strings.Join(lines[start:last+1], "")
		window = strings.TrimRight(window, "\n")
		window = strings.TrimSuffix(window, "\r")
		bestWeight = w
		best = Excerpt{Text: prefix + "\n" + mark + "\n" + window, First: start, Last: last, Cut: true, Elided: elided}
	}
	return best
}

// ElisionMarker is the marker line for k elided lines, as a comment of the
// language where it has one: "// … 40 lines …".
func ElisionMarker(lang string, k int) string {
	body := "… " + strconv.Itoa(k) + " lines …"
	if k == 1 {
		body = "… 1 line …"
	}
	switch lang {
	case "python", "ruby", "yaml", "toml", "shell", "dockerfile", "makefile":
		return "# " + body
	case "markdown":
		return "<!-- " + body + " -->"
	case "text", "json":
		return body
	}
	return "// " + body
}
