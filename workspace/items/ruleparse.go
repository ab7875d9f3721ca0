package items

import (
	"bytes"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/cespare/xxhash/v2"

	"github.com/ctxls/ctxls/symbolindex/parse"
	"github.com/ctxls/ctxls/workspace/glob"
)

// This file turns one rule file's text into a context item (rules.go
// finds the files).

// ParseRule parses the text src of the rule file rel (abs) of the folder
// root: its front matter, its globs within their bounds, its include mode.
// It is nil when the body is empty, and nil with refused when the rule is
// over a bound of budget. scope, when not "", is the glob of the directory
// a nested rule file applies to.
func ParseRule(root, rel, abs string, src []byte, dflt, scope string, budget *Budget, warn *Warner) (it *Item, refused bool) {
	if len(bytes.TrimSpace(src)) == 0 {
		return nil, false
	}
	if budget.Bytes+len(src) > MaxFolderRuleBytes {
		warn.Once(fmt.Sprintf("ctxls: rule file %s is past MaxFolderRuleBytes (%d bytes of rules in %s); skipped", abs, MaxFolderRuleBytes, root))
		return nil, true
	}
	fm, bodyLine, body := frontMatter(src)
	if len(bytes.TrimSpace(body)) == 0 {
		return nil, false
	}
	it = &Item{Kind: ItemRule, Root: root, Paths: []string{rel}, Lang: parse.LangMarkdown, Text: string(body)}
	it.Name = ruleName(rel)
	if n := fm.str("name"); n != "" {
		it.Name = n
	}
	it.Description = fm.str("description")
	// One past the bound is enough to know it is over.
	globs := fm.listN("globs", MaxRuleGlobs+1)
	globs = append(globs, fm.listN("applyTo", MaxRuleGlobs+1-len(globs))...)
	if scope != "" && len(globs) == 0 {
		globs = []string{scope}
	}
	if len(globs) > 0 {
		kept, alts := ruleGlobs(abs, globs, warn)
		if budget.Alts+alts > MaxFolderGlobAlternatives {
			warn.Once(fmt.Sprintf("ctxls: rule file %s is past MaxFolderGlobAlternatives (%d glob alternatives in the rules of %s); skipped",
				abs, MaxFolderGlobAlternatives, root))
			return nil, true
		}
		if len(kept) == 0 { // scoped, but every glob was dropped
			return nil, true
		}
		it.Globs = glob.SetOf(kept...)
		budget.Alts += alts
	}
	budget.Files++
	budget.Bytes += len(src)
	it.Include = includeMode(fm, dflt, it.Description, it.Globs != nil)
	it.Match = it.Name + "\n" + it.Description
	if it.Description == "" {
		it.Match += "\n" + it.Text
	}
	it.Span = parse.Range{StartLine: uint32(bodyLine)}
	end := parse.EndRange(src)
	it.Span.EndLine, it.Span.EndCol = end.EndLine, end.EndCol
	it.StartLine, it.EndLine = parse.LineAt(src, it.Span.StartLine), parse.LineAt(src, it.Span.EndLine)
	return it, false
}

// ruleGlobs are the globs of the rule file abs within the bounds on one
// rule's globs, compiled, with the number of alternatives they expand to.
// What is dropped is told in one warning for the file.
func ruleGlobs(abs string, globs []string, warn *Warner) ([]*glob.Glob, int) {
	var kept []*glob.Glob
	var dropped []string
	alts := 0
	for i, g := range globs {
		if len(kept) == MaxRuleGlobs {
			dropped = append(dropped, fmt.Sprintf("it lists more than MaxRuleGlobs (%d) globs: only the first %d are used", MaxRuleGlobs, MaxRuleGlobs))
			break
		}
		if len(g) > MaxRuleGlobBytes {
			dropped = append(dropped, fmt.Sprintf("glob %d is %d bytes, over MaxRuleGlobBytes (%d): dropped", i+1, len(g), MaxRuleGlobBytes))
			continue
		}
		c, err := glob.Compile(g)
		if err != nil {
			dropped = append(dropped, fmt.Sprintf("glob %d: %v: dropped", i+1, err))
			continue
		}
		if alts+c.Alternatives() > MaxRuleGlobAlternatives {
			dropped = append(dropped, fmt.Sprintf("glob %d brings its globs' {a,b} alternatives over MaxRuleGlobAlternatives (%d): only the %d before it are used",
				i+1, MaxRuleGlobAlternatives, len(kept)))
			break
		}
		alts += c.Alternatives()
		kept = append(kept, c)
	}
	if len(dropped) > 0 {
		if len(kept) == 0 {
			dropped = append(dropped, "no glob is left: the rule is skipped")
		}
		warn.Once(fmt.Sprintf("ctxls: rule file %s: %s", abs, strings.Join(dropped, "; ")))
	}
	return kept, alts
}

// ruleName is the name a rule file is asked for by: its base name without
// the rule suffixes (".cursor/rules/db-migrations.mdc" is "db-migrations");
// a nested AGENTS.md or CLAUDE.md keeps its directory ("api/AGENTS").
func ruleName(rel string) string {
	base := path.Base(rel)
	for _, suf := range []string{".instructions.md", ".mdc", ".md"} {
		if b, ok := strings.CutSuffix(base, suf); ok && b != "" {
			base = b
			break
		}
	}
	base = strings.TrimPrefix(base, ".")
	if dir := path.Dir(rel); dir != "." && slices.Contains(ScopedRuleNames, path.Base(rel)) {
		return dir + "/" + base
	}
	return base
}

// includeMode is a rule's include mode from its front matter: an explicit
// "include", else alwaysApply, else globs (always, within their scope),
// else the description (agent), else the source's default.
func includeMode(fm fields, dflt, description string, scoped bool) string {
	switch inc := fm.str("include"); inc {
	case IncludeAlways, IncludeManual, IncludeAgent:
		return inc
	}
	always, set := fm.bool("alwaysApply")
	switch {
	case set && always:
		return IncludeAlways
	case scoped:
		return IncludeAlways
	case set && description != "":
		return IncludeAgent
	case set:
		return IncludeManual
	case dflt == IncludeAlways:
		return IncludeAlways
	case description != "":
		return IncludeAgent
	}
	return IncludeManual
}

// Collapse merges the rules of one folder with identical text into
// the first of them, which lists every path; its name and include mode
// stand for all.
func Collapse(items []*Item) []*Item {
	byText := map[uint64]*Item{}
	out := items[:0]
	for _, it := range items {
		h := xxhash.Sum64String(strings.TrimSpace(it.Text))
		if first, ok := byText[h]; ok {
			first.Paths = append(first.Paths, it.Paths...)
			continue
		}
		byText[h] = it
		out = append(out, it)
	}
	return out
}
