package replay

import (
	"regexp"
	"strings"

	"github.com/ctxls/ctxls/symbolindex/parse"
	"github.com/ctxls/ctxls/workspace"
)

var (
	// trailerLine is a "Key-Name: value" line of a message's last
	// paragraph (Signed-off-by, Co-authored-by, Reviewed-by, Change-Id…).
	trailerLine = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9-]*:\s`)
	// issueRef is "Fixes #12", "closes owner/repo#3", "(#123)" and "#123".
	issueRef = regexp.MustCompile(`(?i)\b(?:fix(?:e[sd])?|close[sd]?|resolve[sd]?|refs?|see)\s*:?\s+(?:[\w.-]+/[\w.-]+)?#\d+|\(\s*#\d+\s*\)|(?:[\w.-]+/[\w.-]+)?#\d+`)
	url      = regexp.MustCompile(`https?://\S+`)
	blanks   = regexp.MustCompile(`[ \t]+`)
	// mergePR is GitHub's "Merge pull request #12 from owner/branch".
	mergePR = regexp.MustCompile(`(?i)^merge (?:pull request|branch) .*$`)
)

// CleanMessage turns a commit message into the request a developer would
// have typed: trailers, issue and pull-request references and URLs go,
// and so do lines left empty by that.
func CleanMessage(msg string) string {
	paras := strings.Split(strings.ReplaceAll(strings.TrimSpace(msg), "\r\n", "\n"), "\n\n")
	// The last paragraph is trailers when every line of it is one.
	if n := len(paras); n > 1 {
		all := true
		for _, l := range strings.Split(paras[n-1], "\n") {
			if !trailerLine.MatchString(strings.TrimSpace(l)) {
				all = false
				break
			}
		}
		if all {
			paras = paras[:n-1]
		}
	}
	var lines []string
	for _, p := range paras {
		for _, l := range strings.Split(p, "\n") {
			l = strings.TrimSpace(l)
			if strings.HasPrefix(strings.ToLower(l), "signed-off-by:") || strings.HasPrefix(strings.ToLower(l), "co-authored-by:") || mergePR.MatchString(l) {
				continue
			}
			l = url.ReplaceAllString(l, "")
			l = issueRef.ReplaceAllString(l, "")
			l = strings.TrimSpace(blanks.ReplaceAllString(l, " "))
			l = strings.TrimLeft(strings.TrimRight(l, " :-("), " :")
			if l != "" {
				lines = append(lines, l)
			}
		}
	}
	return strings.Join(lines, "\n")
}

// goldFile reports whether a file a commit modified counts as part of the
// answer: source code, not a test, documentation, vendored, generated or a
// lock file.
func goldFile(path string, content []byte) bool {
	lang := parse.DetectLanguage(path, content[:min(len(content), 512)])
	if !parse.IsCodeLanguage(lang) {
		return false
	}
	lower := "/" + strings.ToLower(path)
	for _, dir := range []string{"/test/", "/tests/", "/__tests__/", "/testdata/", "/testing/", "/spec/", "/fixtures/",
		"/vendor/", "/node_modules/", "/third_party/", "/thirdparty/", "/docs/", "/doc/", "/examples/", "/example/", "/benchmarks/", "/bench/"} {
		if strings.Contains(lower, dir) {
			return false
		}
	}
	base := lower[strings.LastIndexByte(lower, '/')+1:]
	stem := base
	if i := strings.IndexByte(stem, '.'); i > 0 {
		stem = stem[:i]
	}
	if strings.HasPrefix(base, "test_") || strings.HasSuffix(stem, "_test") || strings.HasSuffix(stem, "_tests") ||
		strings.Contains(base, ".test.") || strings.Contains(base, ".spec.") || strings.HasSuffix(stem, "test") && strings.HasSuffix(base, ".java") ||
		strings.HasSuffix(stem, "tests") || base == "conftest.py" {
		return false
	}
	return workspace.ClassifyContent(path, content) == ""
}

// mentions reports whether the message names one of the gold files (its
// base name or path) or a symbol whose lines the commit changed.
func mentions(msg string, gold []Gold, symbols map[string][]parse.Symbol) (file, symbol bool) {
	lower := strings.ToLower(msg)
	words := map[string]bool{}
	for _, w := range wordRE.FindAllString(msg, -1) {
		words[w] = true
	}
	for _, g := range gold {
		base := g.Path[strings.LastIndexByte(g.Path, '/')+1:]
		if strings.Contains(lower, strings.ToLower(base)) || strings.Contains(lower, strings.ToLower(g.Path)) {
			file = true
		}
		for _, s := range symbols[g.Path] {
			if len(s.Name) < 3 || !words[s.Name] {
				continue
			}
			for _, h := range g.Hunks {
				if int(s.Range.StartLine)+1 <= h.End && h.Start <= int(s.Range.EndLine)+1 {
					symbol = true
				}
			}
		}
	}
	return file, symbol
}

var wordRE = regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]*`)
