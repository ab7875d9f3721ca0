package pipeline

import "testing"

func TestTwinName(t *testing.T) {
	for in, want := range map[string]string{
		"index.d.ts":             "index",
		"lib/index.d.cts":        "lib/index",
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
