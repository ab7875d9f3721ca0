package parse

import (
	"fmt"
	"strings"
	"testing"
)

// section is an expected text section.
type section struct {
	qualified          string
	startLine, endLine uint32
	sig                string
}

func parseText(t *testing.T, name, src string) *ParsedFile {
	t.Helper()
	p := NewParser()
	defer p.Close()
	pf, err := p.Parse(name, []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	checkInvariants(t, []byte(src), pf)
	for _, s := range pf.Symbols {
		if s.Kind != KindModule {
			t.Errorf("%s: kind %v, want module", s.Qualified, s.Kind)
		}
		if s.Doc != "" {
			t.Errorf("%s: doc %q, want none", s.Qualified, s.Doc)
		}
		if strings.TrimSpace(src[s.StartByte:s.EndByte]) == "" {
			t.Errorf("%s: empty section", s.Qualified)
		}
	}
	if len(pf.Refs) != 0 {
		t.Errorf("text file has refs %v", pf.Refs)
	}
	return pf
}

func checkSections(t *testing.T, pf *ParsedFile, want []section) {
	t.Helper()
	if len(pf.Symbols) != len(want) {
		t.Errorf("got %d sections %v, want %d", len(pf.Symbols), qualifiedNames(pf.Symbols), len(want))
	}
	for i, w := range want {
		if i >= len(pf.Symbols) {
			break
		}
		s := pf.Symbols[i]
		if s.Qualified != w.qualified || s.Range.StartLine != w.startLine || s.Range.EndLine != w.endLine || s.Signature != w.sig {
			t.Errorf("section %d = %q lines %d-%d sig %q; want %q lines %d-%d sig %q",
				i, s.Qualified, s.Range.StartLine, s.Range.EndLine, s.Signature, w.qualified, w.startLine, w.endLine, w.sig)
		}
	}
}

func TestSectionMarkdown(t *testing.T) {
	src := `A tool that selects context.

# ctxls

Intro.

## Install

Run the installer.

` + "```sh" + `
# not a heading: a shell comment
make install
` + "```" + `

### From source

~~~
## also not a heading
~~~

#### Details stay inside

Usage
-----

Use it.

# FAQ ##
`
	pf := parseText(t, "docs/README.md", src)
	if pf.Language != LangMarkdown {
		t.Errorf("Language = %q", pf.Language)
	}
	checkSections(t, pf, []section{
		{"README.md", 0, 0, "A tool that selects context."},
		{"ctxls", 2, 26, "# ctxls"},
		{"ctxls > Install", 6, 21, "## Install"},
		{"ctxls > Install > From source", 15, 21, "### From source"},
		{"ctxls > Usage", 23, 26, "Usage"},
		{"FAQ", 28, 28, "# FAQ ##"},
	})
	if n := pf.Symbols[3].Name; n != "From source" {
		t.Errorf("Name = %q, want the heading text", n)
	}
}

func TestSectionMarkdownFrontMatterAndCRLF(t *testing.T) {
	src := "---\r\ntitle: Guide\r\n---\r\n\r\n# Guide\r\n\r\nText.\r\n\r\n## Setup  \r\nSteps.\r\n"
	pf := parseText(t, "guide.md", src)
	checkSections(t, pf, []section{
		{"guide.md", 0, 2, "---"},
		{"Guide", 4, 9, "# Guide"},
		{"Guide > Setup", 8, 9, "## Setup"},
	})
	for _, s := range pf.Symbols {
		if strings.HasSuffix(src[:s.EndByte], "\r") {
			t.Errorf("%s ends in a carriage return", s.Qualified)
		}
	}
}

func TestSectionMarkdownWithoutHeadings(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 30; i++ {
		fmt.Fprintf(&b, "Paragraph %d line one.\nLine two.\nLine three.\n\n", i)
	}
	pf := parseText(t, "NOTES.md", b.String())
	if len(pf.Symbols) < 2 || pf.Symbols[0].Qualified != "NOTES.md:1" {
		t.Fatalf("got %v, want windows named after the file", qualifiedNames(pf.Symbols))
	}
	checkCoverage(t, b.String(), pf)
}

func TestSectionYAML(t *testing.T) {
	var long strings.Builder
	long.WriteString("jobs:\n")
	for i := 0; i < 50; i++ {
		fmt.Fprintf(&long, "  job%d:\n    run: make step%d\n", i, i)
	}
	src := `# CI settings.
name: ci
on:
  push:
    branches: [main]
env:
  GOFLAGS: -mod=mod
  CGO_ENABLED: "1"
  LEVEL: debug
  MORE: x

# The jobs.
` + long.String()
	pf := parseText(t, ".github/workflows/ci.yml", src)
	checkSections(t, pf, []section{
		{"name", 0, 4, "# CI settings."}, // name + on merged: 5 lines
		{"env", 5, 9, "env:"},
		{"jobs", 11, 90, "# The jobs."}, // 103 lines: split
		{"jobs:92", 91, 112, "job39:"},
	})
	checkCoverage(t, src, pf)
}

func TestSectionTOML(t *testing.T) {
	src := `title = "demo"
owner = "me"

[package]
name = "demo"
version = "0.1.0"
edition = "2021"
authors = [
  "me",
]

[dependencies]
serde = "1"

[[bin]]
name = "demo"
path = "src/main.rs"
`
	pf := parseText(t, "Cargo.toml", src)
	checkSections(t, pf, []section{
		{"title", 0, 9, `title = "demo"`},          // root keys merged with [package]
		{"dependencies", 11, 16, "[dependencies]"}, // merged with [[bin]]
	})
	checkCoverage(t, src, pf)
}

func TestSectionJSON(t *testing.T) {
	src := `{
  "name": "demo",
  "version": "1.0.0",
  "scripts": {
    "build": "tsc",
    "test": "jest",
    "lint": "eslint ."
  },
  "dependencies": {
    "react": "^18",
    "react-dom": "^18",
    "zod": "^3"
  }
}
`
	pf := parseText(t, "package.json", src)
	checkSections(t, pf, []section{
		{"name", 0, 7, "{"},
		{"dependencies", 8, 13, `"dependencies": {`},
	})
	checkCoverage(t, src, pf)

	// Arrays and JSON with comments are cut into windows, not rejected.
	for name, src := range map[string]string{
		"list.json":      "[\n  1,\n  2\n]\n",
		"tsconfig.json":  "{\n  // comment\n  \"compilerOptions\": {}\n}\n",
		"truncated.json": "{\n  \"a\": [1, 2,\n",
	} {
		pf := parseText(t, name, src)
		if len(pf.Symbols) != 1 || pf.Symbols[0].Qualified != name+":1" {
			t.Errorf("%s: got %v, want one window", name, qualifiedNames(pf.Symbols))
		}
	}
}

func TestSectionMakefile(t *testing.T) {
	src := `GO ?= go
BIN := ctxls
VERSION ::= 1.0

# Build the binary.
.PHONY: build
build:
	$(GO) build -o $(BIN) ./cmd/ctxls

test: build
	$(GO) test ./...

%.o: %.c
	cc -c $<
`
	pf := parseText(t, "Makefile", src)
	checkSections(t, pf, []section{
		{"Makefile:1", 0, 2, "GO ?= go"},
		{"build", 4, 7, "# Build the binary."},
		{"test", 9, 10, "test: build"},
		{"%.o", 12, 13, "%.o: %.c"},
	})
	checkCoverage(t, src, pf)
}

func TestSectionWindows(t *testing.T) {
	var b strings.Builder
	b.WriteString("#!/bin/sh\nset -eu\n\n")
	for i := 0; i < 25; i++ {
		fmt.Fprintf(&b, "step%d() {\n  echo %d\n  run %d\n  check %d\n  done %d\n}\n\n", i, i, i, i, i)
	}
	fmt.Fprintf(&b, "%s\n", strings.Repeat("long_line_without_blank\n", 130))
	src := b.String()
	for _, name := range []string{"scripts/deploy.sh", "Dockerfile", "notes.txt"} {
		pf := parseText(t, name, src)
		base := name[strings.LastIndexByte(name, '/')+1:]
		for _, s := range pf.Symbols {
			if want := fmt.Sprintf("%s:%d", base, s.Range.StartLine+1); s.Qualified != want || s.Name != want {
				t.Errorf("%s: section named %q/%q, want %q", name, s.Name, s.Qualified, want)
			}
			if n := s.Range.EndLine - s.Range.StartLine + 1; n > windowMaxLines {
				t.Errorf("%s: window %s has %d lines, more than %d", name, s.Qualified, n, windowMaxLines)
			}
		}
		// Blocks of 7 lines merge into windows of 40 to 60 lines.
		if s := pf.Symbols[0]; s.Range.StartLine != 0 || s.Range.EndLine+1 < windowMinLines {
			t.Errorf("%s: first window lines %d-%d, want about %d-%d lines", name, s.Range.StartLine, s.Range.EndLine, windowMinLines, windowMaxLines)
		}
		checkCoverage(t, src, pf)
	}
}

// checkCoverage checks that every non-blank line of a sectioned file lies
// in exactly one section (for files whose sections do not nest).
func checkCoverage(t *testing.T, src string, pf *ParsedFile) {
	t.Helper()
	lines := strings.Split(src, "\n")
	count := make([]int, len(lines))
	for _, s := range pf.Symbols {
		for l := s.Range.StartLine; l <= s.Range.EndLine; l++ {
			count[l]++
		}
	}
	for i, l := range lines {
		if strings.TrimSpace(l) != "" && count[i] != 1 {
			t.Errorf("line %d %q is in %d sections", i, l, count[i])
		}
	}
}

func FuzzSectionText(f *testing.F) {
	f.Add("# A\n\n```\n# b\n```\n## C\ntext\n---\n", uint8(0))
	f.Add("a: 1\n# c\nb:\n  - x\n", uint8(1))
	f.Add("x = 1\n[t]\ny = [\n]\n", uint8(2))
	f.Add("{\"a\": {\"b\": [1, 2]}, \"c\": 3}", uint8(3))
	f.Add(".PHONY: a\na: b\n\tcmd\nX := 1\n", uint8(4))
	f.Add("\n\n\r\nline\r\n", uint8(5))
	names := []string{"f.md", "f.yaml", "f.toml", "f.json", "Makefile", "f.txt"}
	f.Fuzz(func(t *testing.T, src string, which uint8) {
		name := names[int(which)%len(names)]
		p := NewParser()
		defer p.Close()
		pf, err := p.Parse(name, []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		checkInvariants(t, []byte(src), pf)
		for _, s := range pf.Symbols {
			if strings.TrimSpace(src[s.StartByte:s.EndByte]) == "" {
				t.Errorf("%s: empty section", s.Qualified)
			}
		}
	})
}
