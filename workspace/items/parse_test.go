package items

import (
	"slices"
	"testing"
)

func TestFrontMatter(t *testing.T) {
	for _, tc := range []struct {
		src, body, desc, include string
		globs                    []string
	}{
		{"plain\n", "plain\n", "", IncludeManual, nil},
		{"---\ndescription: \"SQL migrations\"\nglobs: db/**, *.sql\nalwaysApply: false\n---\nbody\n", "body\n", "SQL migrations", IncludeAlways, []string{"db/**", "*.sql"}},
		{"---\nalwaysApply: true\nglobs:\n  - a/**\n---\nx\n", "x\n", "", IncludeAlways, []string{"a/**"}},
		{"---\ndescription: d\n---\nx\n", "x\n", "d", IncludeAgent, nil},
		{"---\napplyTo: '**/*.ts'\n---\nx\n", "x\n", "", IncludeAlways, []string{"**/*.ts"}},
		{"---\ninclude: manual\ndescription: d\n---\nx\n", "x\n", "d", IncludeManual, nil},
		{"---\nglobs: [a/**, \"b/*\"]\n---\nx\n", "x\n", "", IncludeAlways, []string{"a/**", "b/*"}},
		{"---\nno closing line\n", "---\nno closing line\n", "", IncludeManual, nil},
		// Commas inside braces, brackets or quotes do not split a glob.
		{"---\nglobs: src/*.{ts,tsx}, docs/[a,b]*\n---\nx\n", "x\n", "", IncludeAlways, []string{"src/*.{ts,tsx}", "docs/[a,b]*"}},
		{"---\nglobs: [\"*.{ts,tsx}\", don't/**]\n---\nx\n", "x\n", "", IncludeAlways, []string{"*.{ts,tsx}", "don't/**"}},
	} {
		fm, _, body := frontMatter([]byte(tc.src))
		globs := append(fm.listN("globs", -1), fm.listN("applyTo", -1)...)
		inc := includeMode(fm, IncludeManual, fm.str("description"), len(globs) > 0)
		if string(body) != tc.body || fm.str("description") != tc.desc || inc != tc.include || !slices.Equal(globs, tc.globs) {
			t.Errorf("%q: body %q desc %q include %s globs %q", tc.src, body, fm.str("description"), inc, globs)
		}
	}
	for rel, want := range map[string]string{
		".cursor/rules/db-migrations.mdc":          "db-migrations",
		".github/instructions/api.instructions.md": "api",
		".cursorrules":                    "cursorrules",
		"web/AGENTS.md":                   "web/AGENTS",
		".github/copilot-instructions.md": "copilot-instructions",
	} {
		if got := ruleName(rel); got != want {
			t.Errorf("ruleName(%s) = %s, want %s", rel, got, want)
		}
	}
}
