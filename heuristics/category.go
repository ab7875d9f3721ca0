package heuristics

import (
	"path"
	"strings"
)

// Category is what kind of file a path holds, as far as ranking cares: a
// set of flags, since a file can be more than one (testdata/case.md is a
// test and documentation). The zero Category is ordinary code. Files that
// are generated or vendored are not indexed at all (workspace/discover.go
// skips them), so they have no flag here.
type Category uint8

const (
	// Test: a test, by its name or a directory of tests (IsTestPath).
	Test Category = 1 << iota
	// Docs: prose (IsDocLanguage).
	Docs
	// Config: a configuration or build file (IsConfigLanguage).
	Config
)

// Has reports whether c has every flag of f.
func (c Category) Has(f Category) bool { return c&f == f && f != 0 }

// CategoryOf is the category of a file from its slash-separated path
// relative to its folder and its language (a name symbolindex's
// DetectLanguage returns). It depends on nothing else, so an index computes
// it once when the file is indexed.
func CategoryOf(relPath, lang string) Category {
	var c Category
	if IsTestPath(relPath) {
		c |= Test
	}
	if IsDocLanguage(lang) {
		c |= Docs
	}
	if IsConfigLanguage(lang) {
		c |= Config
	}
	return c
}

// IsDeclarationPath reports whether a path holds only type declarations
// of code written elsewhere: a TypeScript declaration file (.d.ts, .d.cts,
// .d.mts) or a Python stub (.pyi). It restates every name of a library's
// API, so a request's words match it wherever they match the code; what a
// change fixes or adds is in the code.
func IsDeclarationPath(relPath string) bool {
	base := path.Base(relPath)
	return strings.HasSuffix(base, ".pyi") || strings.HasSuffix(base, ".d.ts") || strings.HasSuffix(base, ".d.cts") || strings.HasSuffix(base, ".d.mts")
}

// IsTestPath reports whether a path is a test by the common conventions:
// a name ending _test, _spec, .test, .spec, Test or Tests, or starting
// test_; or a directory named test, tests, __tests__, spec, testdata or
// testing on the way to it.
func IsTestPath(relPath string) bool {
	base := path.Base(relPath)
	stem := strings.TrimSuffix(base, path.Ext(base))
	switch {
	case strings.HasSuffix(stem, "_test"), strings.HasSuffix(stem, "_spec"),
		strings.HasPrefix(stem, "test_"),
		strings.HasSuffix(stem, ".test"), strings.HasSuffix(stem, ".spec"),
		strings.HasSuffix(stem, "Test"), strings.HasSuffix(stem, "Tests"):
		return true
	}
	for dirs := path.Dir(relPath); dirs != ""; {
		var dir string
		dir, dirs, _ = strings.Cut(dirs, "/")
		switch dir {
		case "test", "tests", "__tests__", "spec", "testdata", "testing":
			return true
		}
	}
	return false
}

// IsDocLanguage reports whether lang is prose: Markdown or plain text.
func IsDocLanguage(lang string) bool {
	return lang == "markdown" || lang == "text"
}

// IsConfigLanguage reports whether lang is a configuration or build file:
// manifests, CI workflows, lint settings, Dockerfiles, Makefiles, and
// shell scripts (scripts/lint, gradlew, a devcontainer's setup: the
// tooling that builds, checks and releases the code, as a Makefile is).
// The names are symbolindex's (LangYAML, LangTOML, LangJSON,
// LangDockerfile, LangMakefile, LangShell); a test there holds them equal.
func IsConfigLanguage(lang string) bool {
	switch lang {
	case "yaml", "toml", "json", "dockerfile", "makefile", "shell":
		return true
	}
	return false
}

// Asks is which kinds of file a query asks for, so that they are
// discounted less (AskedPrior instead of TestPrior, DocPrior or
// ConfigPrior).
type Asks struct {
	Tests, Docs, Config, Types bool
}

// Words that make a query ask for tests, documentation or configuration
// (builds, CI, dependencies, manifests, deployment). A query's words are
// its runs of ASCII letters, lowercased.
var (
	testWords = wordSet("test", "tests", "testing", "spec", "specs", "coverage", "flaky", "benchmark", "fixture", "fixtures")
	docWords  = wordSet("doc", "docs", "document", "documentation", "readme", "documented", "changelog", "guide", "tutorial", "markdown")
	// configWords are the most often needed: a configuration change is
	// asked for in the words of the tool ("bump", "eslint", "helm").
	configWords = wordSet("config", "configuration", "ci", "workflow", "workflows", "action", "actions", "yaml", "yml", "json", "toml",
		"dependency", "dependencies", "deps", "bump", "upgrade", "package", "manifest", "build", "makefile", "docker", "dockerfile",
		"lint", "linter", "eslint", "ruff", "pipeline", "setting", "settings",
		"deploy", "deployment", "deployed", "kubernetes", "k8s", "helm", "chart", "production", "staging", "environment", "env", "port")
	// typeWords ask for the types a declaration file declares.
	typeWords = wordSet("type", "types", "typing", "typings", "typed", "typescript", "ts", "dts", "pyi", "stub", "stubs",
		"definition", "definitions", "declaration", "declarations", "interface", "interfaces", "generic", "generics", "signature", "signatures")
)

func wordSet(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}

// AsksFor reports whether a query is about tests, documentation or
// configuration.
func AsksFor(query string) Asks {
	var a Asks
	for _, w := range strings.FieldsFunc(strings.ToLower(query), func(r rune) bool {
		return !(r >= 'a' && r <= 'z')
	}) {
		a.Tests = a.Tests || testWords[w]
		a.Docs = a.Docs || docWords[w]
		a.Config = a.Config || configWords[w]
		a.Types = a.Types || typeWords[w]
	}
	return a
}

// Prior is the multiplier of a candidate's fused score for its file's
// category: a test is discounted as a test even when it is also docs or
// configuration, and what the query asks for is discounted less.
func (a Asks) Prior(c Category) float64 {
	switch {
	case c.Has(Test):
		if a.Tests {
			return AskedPrior
		}
		return TestPrior
	case c.Has(Docs):
		if a.Docs {
			return AskedPrior
		}
		return DocPrior
	case c.Has(Config):
		if a.Config {
			return AskedPrior
		}
		return ConfigPrior
	}
	return 1
}

// DeclarationPrior is the multiplier of a candidate's fused score for a
// file of type declarations (IsDeclarationPath): DeclarationPrior unless
// the query asks for types, 1 otherwise (and for any other file).
func (a Asks) DeclarationPrior(relPath string) float64 {
	if a.Types || !IsDeclarationPath(relPath) {
		return 1
	}
	return DeclarationPrior
}
