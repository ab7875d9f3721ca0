package workspace

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ctxls/ctxls/heuristics"
	"github.com/ctxls/ctxls/workspace/snapshot"
)

// priorsApp has code, its test, a CI workflow and a settings file that all
// share the words of a request about uploads, and two adapters whose file
// names are commit scopes.
const priorsApp = `
-- storage/upload.go --
package storage

import "time"

// Upload sends a file to the bucket, retrying when the bucket times out.
func Upload(bucket, name string, data []byte) error {
	var err error
	for attempt := 0; attempt < 3; attempt++ {
		if err = put(bucket, name, data); err == nil {
			return nil
		}
		time.Sleep(time.Second)
	}
	return err
}

func put(bucket, name string, data []byte) error { return nil }
-- storage/upload_test.go --
package storage

import "testing"

// TestUploadRetry checks that an upload is retried when the bucket
// times out, and that the retry gives up after three attempts.
func TestUploadRetry(t *testing.T) {
	if err := Upload("bucket", "retry-timeout", nil); err != nil {
		t.Fatal(err)
	}
}
-- .github/workflows/upload.yml --
name: upload retry
on: push
jobs:
  upload:
    runs-on: ubuntu-latest
    steps:
      - name: upload to the bucket, retry when the bucket times out
        run: go run ./cmd/upload --retry 3 --timeout 30s
-- settings.yaml --
upload:
  bucket: artifacts
  retry: 3
  timeout: 30s
-- lib/adapters/fetch.js --
export default async function fetchAdapter(config) {
  const request = new Request(config.url, { method: config.method });
  return await globalThis.fetch(request);
}
-- lib/adapters/http.js --
// normalizeMethod capitalizes method names for the node adapter.
export function normalizeMethod(method) {
  return String(method).toUpperCase();
}

export default function httpAdapter(config) {
  return { method: normalizeMethod(config.method), url: config.url };
}
`

// selFiles is the distinct files of a selection, in rank order.
func selFiles(res *Selection) []string {
	var files []string
	for _, it := range res.Items {
		if !slices.Contains(files, it.Path) {
			files = append(files, it.Path)
		}
	}
	return files
}

// A request worded like the code's tests, CI workflow and settings still
// gets the code first: they share its words more often than they are what
// a change edits. Asking for them lifts them without putting them first.
func TestSelectPrefersCodeToTestsAndConfig(t *testing.T) {
	ws, _ := selOpen(t, priorsApp, Options{})
	for _, c := range []struct {
		query string
		also  string // a file that must still be among the first three
	}{
		{"retry the upload when the bucket times out", ""},
		{"retry the upload when the bucket times out, and test the retry", "storage/upload_test.go"},
		{"upload retry when the bucket times out: the ci workflow", ".github/workflows/upload.yml"},
		{"upload retry timeout for the bucket in the yaml settings", "settings.yaml"},
	} {
		files := selFiles(selDo(t, ws, &SelectRequest{Query: c.query}))
		if len(files) == 0 || files[0] != "storage/upload.go" {
			t.Errorf("%q: files %q, want storage/upload.go first", c.query, files)
		}
		if c.also != "" && !slices.Contains(files[:min(3, len(files))], c.also) {
			t.Errorf("%q: files %q, want %s among the first three", c.query, files, c.also)
		}
	}
}

// A commit-style scope ("fix(fetch): …", "fetch: …") names the file of
// that name, whatever its directory and extension: it ranks first among
// the files.
func TestSelectScopeNamesFile(t *testing.T) {
	ws, _ := selOpen(t, priorsApp, Options{})
	fileRank := func(q string) int {
		res := selDo(t, ws, &SelectRequest{Query: q})
		it := selFind(res, "sym:lib/adapters/fetch.js::fetchAdapter")
		if it == nil {
			t.Fatalf("%q: no fetchAdapter in %q", q, selIDs(res))
		}
		return it.Signals["file"].Rank
	}
	for _, q := range []string{"fix(fetch): capitalize HTTP method names", "fetch: capitalize HTTP method names"} {
		if r := fileRank(q); r != 1 {
			t.Errorf("%q: lib/adapters/fetch.js is file #%d, want #1", q, r)
		}
	}
	if r := fileRank("capitalize HTTP method names"); r == 1 {
		t.Errorf("without a scope lib/adapters/fetch.js is file #1: the fixture no longer tells the scope apart")
	}
}

// "who calls this" finds the callers in the target's own file too, though
// the reference index leaves out the names a file defines.
func TestSelectCallersInTheSameFile(t *testing.T) {
	ws, root := selOpen(t, `
-- tax/tax.go --
package tax

// computeTaxAmount is the tax on an amount in cents.
func computeTaxAmount(cents int) int {
	return cents * 20 / 100
}

// InvoiceTax is the tax of a whole invoice.
func InvoiceTax(lines []int) int {
	total := 0
	for _, l := range lines {
		total += computeTaxAmount(l)
	}
	return total
}
-- shop/checkout.go --
package shop

// Checkout charges the basket with its tax.
func Checkout(basket int) int {
	return basket + computeTaxAmount(basket)
}

// Greeting says hello.
func Greeting() string { return "hello" }
`, Options{})
	res := selDo(t, ws, &SelectRequest{Query: "who calls this", Active: filepath.Join(root, "tax/tax.go"), Cursor: &Cursor{Line: 3}})
	for _, id := range []string{"sym:tax/tax.go::InvoiceTax", "sym:shop/checkout.go::Checkout"} {
		it := selFind(res, id)
		if it == nil || it.Signals["graph"].Rank == 0 {
			t.Errorf("caller %s not found as a caller (graph signal): %q", id, selIDs(res))
		}
	}
}

// With room in the limit, the best file's head (its lines before the
// first symbol: package clause, imports) comes as a file item that says it
// is not the whole file.
func TestSelectFileHeadIsTruncated(t *testing.T) {
	// The function the query names lies far below the imports, beyond the
	// lead's neighbourhood (surround.go), which would hold them otherwise.
	var b strings.Builder
	b.WriteString("-- internal/config/config.go --\npackage config\n\nimport (\n\t\"fmt\"\n\t\"strings\"\n)\n\n")
	for i := range 80 {
		fmt.Fprintf(&b, "// step%d is one step of the pipeline.\nfunc step%d(s string) string {\n\treturn strings.TrimSpace(s) + %q\n}\n\n", i, i, fmt.Sprint(i))
	}
	b.WriteString("// parseConfig parses key = value lines, rejecting unknown keys.\nfunc parseConfig(text string) error {\n\treturn fmt.Errorf(\"unknown key in %q\", text)\n}\n")
	b.WriteString("-- internal/other/other.go --\npackage other\n\n// Other does something else.\nfunc Other() {}\n")
	ws, _ := selOpen(t, b.String(), Options{})
	res := selDo(t, ws, &SelectRequest{Query: "parseConfig rejects unknown keys in the configuration", Limit: 40})
	it := selFind(res, "file:internal/config/config.go")
	if it == nil {
		t.Fatalf("no head of the best file: %q", selIDs(res))
	}
	if !it.Truncated || it.Span.StartLine != 0 || !strings.HasPrefix(it.Text, "package config") || strings.Contains(it.Text, "func ") {
		t.Errorf("head item: truncated %v, lines %d-%d, text %q", it.Truncated, it.Span.StartLine, it.Span.EndLine, it.Text)
	}
}

// TestStaleWeightsFile: a weights file fitted by a ctxls that ranked with
// other sources is not used: the folder ranks with the defaults and the
// warning says to fit again.
func TestStaleWeightsFile(t *testing.T) {
	root := t.TempDir()
	selWriteTree(t, root, selApp)
	dir := t.TempDir()
	real, err := filepath.EvalSymlinks(root)
	if err != nil {
		t.Fatal(err)
	}
	fw := NewFittedWeights(real, heuristics.DefaultWeightSet(), time.Now())
	delete(fw.Weights, heuristics.SourceNames[len(heuristics.SourceNames)-1]) // a source this ctxls has and that one did not
	if err := WriteWeights(WeightsFile(dir, real), fw); err != nil {
		t.Fatal(err)
	}
	var warnings []string
	cfg := DefaultConfig()
	cfg.CacheDir = dir
	ws, err := New(cfg, Options{Warn: func(m string) { warnings = append(warnings, m) }})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ws.AddFolder(root); err != nil {
		t.Fatal(err)
	}
	stats, err := ws.Index(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if stats[0].Weights.Set != snapshot.WeightsDefault {
		t.Errorf("a stale weights file is in use: %+v", stats[0].Weights)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "another set of ranking sources") || !strings.Contains(warnings[0], "ctxls tune --root "+real) {
		t.Errorf("want one warning saying to run ctxls tune again, got %q", warnings)
	}
}

// With no file open, a test among the answer's first files brings the
// code it tests right after it: a request about tests ("Improve test
// coverage") finds the tests by their words, and the change, or what
// reading them needs, is the code under test.
func TestSelectTestedCodeFollowsItsTest(t *testing.T) {
	// Many functions of one file the embedder ranks before anything of
	// args.go, so that no source ranks args.go at all.
	var gen strings.Builder
	gen.WriteString("package gen\n")
	for i := range 120 {
		fmt.Fprintf(&gen, "\n// Step%d improves the coverage of test step %d.\nfunc Step%d() int { return %d }\n", i, i, i, i)
	}
	ws, _ := selOpen(t, "-- gen/coverage_steps.go --\n"+gen.String()+`
-- command.go --
package cli

// Command is one command of the application.
type Command struct{ Name string }

// Run runs the command with its arguments.
func (c *Command) Run(args []string) error { return nil }
-- command_test.go --
package cli

import "testing"

// TestCommandRun tests Run; improve the coverage of its error paths.
func TestCommandRun(t *testing.T) {
	if err := (&Command{Name: "x"}).Run(nil); err != nil {
		t.Fatal(err)
	}
}
-- report/coverage_report.go --
package report

// Summary prints the test coverage summary of a build.
func Summary(percent float64) string { return "coverage" }
-- help.go --
package cli

// ShowHelp prints the help of a command.
func ShowHelp(c *Command) string { return c.Name }
-- suggest.go --
package cli

// ImproveSuggestion improves the suggestion shown for a mistyped command.
func ImproveSuggestion(name string) string { return name }
-- args.go --
package cli

// Args are the positional values left after the flags.
type Args []string

// First is the first positional value, or "".
func (a Args) First() string {
	if len(a) == 0 {
		return ""
	}
	return a[0]
}
-- args_test.go --
package cli

import "testing"

// TestArgsFirst improves the coverage of First on an empty list.
func TestArgsFirst(t *testing.T) {
	if Args(nil).First() != "" {
		t.Fatal("want empty")
	}
}
-- testdata.go --
package cli

// TestData is the sample input a test of the application reads.
var TestData = []string{"a", "b"}
`, Options{})
	res := selDo(t, ws, &SelectRequest{Query: "Improve test coverage"})
	files := selFiles(res)
	i := slices.Index(files, "command_test.go")
	if i < 0 || i+1 >= len(files) || files[i+1] != "command.go" {
		t.Errorf("want command.go right after command_test.go, got %q", files)
	}
	// No source ranks args.go (the other file's steps fill the embedder's
	// list): the first of its symbols its test uses comes after the test
	// all the same.
	i = slices.Index(files, "args_test.go")
	if i < 0 || i+1 >= len(files) || files[i+1] != "args.go" {
		t.Errorf("want args.go right after args_test.go, got %q", files)
	}
	if it := selFind(res, "sym:args.go::Args"); it == nil || !strings.Contains(it.Why, "args_test.go tests") {
		t.Errorf("want Args, which TestArgsFirst uses, said to be what args_test.go tests, got %+v", it)
	}
}

// toolingApp is a Python library with the shell scripts that lint and
// release it, and a JavaScript library with its type declarations.
const toolingApp = `
-- scripts/lint --
#!/bin/sh -e
# Lint the package with the default line length.
# The default line length is 88: longer lines fail the lint.
ruff check --fix httpx tests
ruff format httpx tests --line-length 88
-- httpx/_decoders.py --
class LineDecoder:
    """Handles incrementally reading lines from text."""

    def decode(self, text: str) -> list[str]:
        return text.splitlines()
-- index.d.ts --
export interface AxiosProgressEvent {
  loaded: number;
  total?: number;
  progress?: number;
  event?: any;
}

export interface AxiosRequestConfig {
  onUploadProgress?: (progressEvent: AxiosProgressEvent) => void;
  onDownloadProgress?: (progressEvent: AxiosProgressEvent) => void;
}
-- lib/helpers/progressEventReducer.js --
// progressEventReducer emits a progress event for the bytes loaded so far.
export default function progressEventReducer(listener, total) {
  let loaded = 0;
  return (bytes) => {
    loaded += bytes;
    listener({ loaded, total, progress: total ? loaded / total : undefined });
  };
}
`

// A shell script that builds, lints or releases a library is tooling, as
// a Makefile is: it shares the words of a request about linting, and the
// change is to the library's code (the configuration prior, lifted when
// the request asks for configuration).
func TestSelectShellScriptIsTooling(t *testing.T) {
	ws, _ := selOpen(t, toolingApp, Options{})
	files := selFiles(selDo(t, ws, &SelectRequest{Query: "Use the default line length"}))
	if len(files) == 0 || files[0] != "httpx/_decoders.py" {
		t.Errorf("files %q, want httpx/_decoders.py before the lint script", files)
	}
	if !slices.Contains(files, "scripts/lint") {
		t.Errorf("files %q, want the lint script still in the answer", files)
	}
}

// A declaration file (.d.ts, .pyi) restates the library's API: a request
// about what the code does gets the code first, one about its types the
// declarations.
func TestSelectDeclarationFileAfterCode(t *testing.T) {
	ws, _ := selOpen(t, toolingApp, Options{})
	for q, want := range map[string]string{
		"fix(adapter): fix progress event emitting":         "lib/helpers/progressEventReducer.js",
		"fix(types): add the missing progress event fields": "index.d.ts",
	} {
		if files := selFiles(selDo(t, ws, &SelectRequest{Query: q})); len(files) == 0 || files[0] != want {
			t.Errorf("%q: files %q, want %s first", q, files, want)
		}
	}
}

// releaseScripts is a Go tool with the shell scripts that release and
// lint it.
const releaseScripts = `
-- scripts/release.sh --
#!/bin/sh
set -e
# Build every target and upload the archives.
for target in linux darwin windows; do
  GOOS=$target go build -o dist/tool-$target ./cmd
done
-- scripts/lint.sh --
#!/bin/sh
set -e
golangci-lint run ./...
-- cmd/main.go --
package main

// main builds the archive of every target the release script asks for.
func main() {
	build(targets())
}

func targets() []string { return []string{"linux", "darwin", "windows"} }

func build(ts []string) {}
`

// A shell script takes the configuration prior, but the literal source
// reads it as code: a request quoting a literal it removes from a script
// (` + "`set -e`" + `) gets the release script that holds it first, and says so.
func TestSelectShellScriptLiteralLeads(t *testing.T) {
	ws, _ := selOpen(t, releaseScripts, Options{})
	res := selDo(t, ws, &SelectRequest{Query: "Replace `set -e` with `set -eu` in the release script"})
	if files := selFiles(res); len(files) == 0 || files[0] != "scripts/release.sh" {
		t.Fatalf("files %q, want scripts/release.sh, which holds `set -e`, first", files)
	}
	if it := res.Items[0]; !strings.Contains(it.Why, "set -e") {
		t.Errorf("want the script's why to name the literal it holds, got %q", it.Why)
	}
}

// shellTool is a repository whose product is a shell script (nvm's
// nvm.sh), with its documentation and CI.
const shellTool = `
-- nvm.sh --
#!/usr/bin/env bash
# Node Version Manager

nvm_install_default_packages() {
  # Install the default global packages listed in default-packages
  local DEFAULT_PACKAGES
  DEFAULT_PACKAGES="$(nvm_get_default_packages)"
  echo "Installing default global packages from default-packages..."
  npm install -g $DEFAULT_PACKAGES
}

nvm_get_default_packages() {
  local NVM_DEFAULT_PACKAGE_FILE="${NVM_DIR}/default-packages"
  cat "$NVM_DEFAULT_PACKAGE_FILE"
}
-- README.md --
# nvm
## Default global packages from file while installing
If you have a default packages file, nvm installs the default global packages
listed in it every time you install a new version of node.
-- .github/workflows/tests.yml --
name: tests
on: [push]
jobs:
  install:
    runs-on: ubuntu-latest
    steps:
      - run: bash install.sh
`

// Where shell is all the code (no file of another code language in the
// folder), a script is the product, not tooling: nvm.sh before the README
// that documents it.
func TestSelectShellProductIsCode(t *testing.T) {
	ws, _ := selOpen(t, shellTool, Options{})
	files := selFiles(selDo(t, ws, &SelectRequest{Query: "default global packages are installed twice"}))
	if len(files) == 0 || files[0] != "nvm.sh" {
		t.Errorf("files %q, want nvm.sh first", files)
	}
}
