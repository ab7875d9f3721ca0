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

func TestCopyName(t *testing.T) {
	for in, want := range map[string]string{
		"src/main/java14/r/Support": "src/main/java/r/Support",
		"src/main/java/r/Support":   "src/main/java/r/Support",
		"v2/flag":                   "v/flag",
		"lib/python3.8/site":        "lib/python3.8/site",
		"src/http2/server":          "src/http/server",
		"docs/releases/1.2.0":       "docs/releases/1.2.0",
		"pkg/sha256":                "pkg/sha256",
		"a1b/x":                     "a1b/x",
		"examples/case12/index":     "examples/case/index",
		"Makefile":                  "Makefile",
	} {
		if got := copyName(in); got != want {
			t.Errorf("copyName(%q) = %q, want %q", in, got, want)
		}
	}
}
