package pipeline

import "testing"

func TestTwinName(t *testing.T) {
	for in, want := range map[string]string{
		"index.d.ts":             "index.d",
		"lib/index.d.cts":        "lib/index.d",
		"lib/index.ts":           "lib/index",
		"app/user.component.ts":  "app/user.component",
		"app/user.service.ts":    "app/user.service",
		"docs/releases/1.2.0.md": "docs/releases/1.2.0",
		"docs/releases/1.3.0.md": "docs/releases/1.3.0",
		"pkg/foo.pyi":            "pkg/foo.pyi",
		"pkg/foo.py":             "pkg/foo",
		"shell/completion.bash":  "shell/completion",
		"shell/completion.zsh":   "shell/completion",
		"src/app.py":             "src/app",
		".github/.eslintrc.json": ".github/.eslintrc",
		"Makefile":               "Makefile",
		"a/.env":                 "a/.env",
		"native/fasttok.h":       "native/fasttok.h",
		"native/fasttok.c":       "native/fasttok",
	} {
		if got := twinName(in); got != want {
			t.Errorf("twinName(%q) = %q, want %q", in, got, want)
		}
	}
}
