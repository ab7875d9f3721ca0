package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ctxls/ctxls/lsp/wire"
	"github.com/ctxls/ctxls/workspace"
	"github.com/ctxls/ctxls/workspace/eval"
	"github.com/ctxls/ctxls/workspace/testutil"
	"github.com/ctxls/ctxls/workspace/txtartest"
)

// cliApp is a small workspace for the command-line tests.
const cliApp = `
-- internal/config/config.go --
package config

import (
	"fmt"
	"strings"
)

// Config is the application configuration.
type Config struct {
	Addr  string
	Debug bool
}

// parseConfig parses key = value lines into a Config, rejecting unknown keys.
func parseConfig(text string) (*Config, error) {
	cfg := &Config{Addr: "localhost:8080"}
	for i, line := range strings.Split(text, "\n") {
		key, value, ok := strings.Cut(line, "=")
		if !ok {
			continue
		}
		switch strings.TrimSpace(key) {
		case "addr":
			cfg.Addr = strings.TrimSpace(value)
		case "debug":
			cfg.Debug = strings.TrimSpace(value) == "true"
		default:
			return nil, fmt.Errorf("line %d: unknown key %q", i+1, key)
		}
	}
	return cfg, nil
}
-- lsp/server.go --
package lsp

import "net"

// Server accepts language-server connections.
type Server struct {
	addr string
	ln   net.Listener
}

// Start opens the listener and begins accepting connections.
func (s *Server) Start() error {
	ln, err := net.Listen("tcp", s.addr)
	if err != nil {
		return err
	}
	s.ln = ln
	return nil
}
-- web/cart.ts --
export class CartStore {
  private items: string[] = [];

  add(sku: string): void {
    this.items.push(sku);
  }
}
-- tools/report.py --
def monthly_totals(rows):
    """Sum the sales per month."""
    return sum(rows)
-- docs/guide.md --
# Guide

## Installation

Unpack the release archive into your PATH.
`

// cliTree writes a txtar archive into a new directory and returns it.
func cliTree(t *testing.T, archive string) string {
	t.Helper()
	return txtartest.Dir(t, archive)
}

// cliRun runs one command line and returns its exit status and output. A
// command that does not finish in a minute is a hang, and fails the test.
func cliRun(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	done := make(chan int, 1)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { done <- run(ctx, args, strings.NewReader(""), &stdout, &stderr) }()
	select {
	case code := <-done:
		return code, stdout.String(), stderr.String()
	case <-time.After(time.Minute):
		cancel()
		t.Fatalf("ctxls %q did not finish", args)
		return 0, "", ""
	}
}

// cliUsageError asserts exit status 2 and one line on stderr containing
// each of want.
func cliUsageError(t *testing.T, args []string, want ...string) {
	t.Helper()
	code, stdout, stderr := cliRun(t, args...)
	if code != 2 {
		t.Errorf("ctxls %q: exit %d, want 2 (stderr %q)", args, code, stderr)
	}
	if strings.Count(stderr, "\n") != 1 || !strings.HasPrefix(stderr, "ctxls: ") {
		t.Errorf("ctxls %q: want one error line on stderr, got %q", args, stderr)
	}
	for _, w := range want {
		if !strings.Contains(stderr, w) {
			t.Errorf("ctxls %q: stderr %q does not mention %q", args, stderr, w)
		}
	}
	if stdout != "" {
		t.Errorf("ctxls %q: wrote %q to stdout on an error", args, stdout)
	}
}

func TestVersion(t *testing.T) {
	for _, arg := range []string{"version", "--version"} {
		code, stdout, stderr := cliRun(t, arg)
		if code != 0 || stdout != "ctxls "+version+"\n" || stderr != "" {
			t.Errorf("ctxls %s: exit %d, stdout %q, stderr %q", arg, code, stdout, stderr)
		}
	}
}

func TestHelp(t *testing.T) {
	for _, arg := range []string{"help", "-h", "--help"} {
		code, stdout, stderr := cliRun(t, arg)
		if code != 0 || stderr != "" {
			t.Errorf("ctxls %s: exit %d, stderr %q", arg, code, stderr)
		}
		for _, cmd := range []string{"Usage:", "select", "index", "eval", "version", "serve", "mcp"} {
			if !strings.Contains(stdout, cmd) {
				t.Errorf("ctxls %s: usage does not mention %q", arg, cmd)
			}
		}
	}
	code, _, stderr := cliRun(t, "select", "-h")
	if code != 0 || !strings.Contains(stderr, "usage: ctxls select") || !strings.Contains(stderr, "-max-chars-per-item") {
		t.Errorf("ctxls select -h: exit %d, stderr %q", code, stderr)
	}
}

func TestUnknownCommand(t *testing.T) {
	cliUsageError(t, []string{"frobnicate"}, `"frobnicate"`, "ctxls help")
	cliUsageError(t, []string{"--bogus"}, "--bogus")
}

func TestSelectBadUsage(t *testing.T) {
	root := cliTree(t, cliApp)
	missing := filepath.Join(t.TempDir(), "no-such-dir")
	file := filepath.Join(root, "tools", "report.py")
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"select", "--root", missing, "parse config"}, []string{missing, "no such directory"}},
		{[]string{"select", "--root", file, "parse config"}, []string{file, "not a directory"}},
		{[]string{"select", "--root", root}, []string{"query is required"}},
		{[]string{"select", "--root", root, "  ", "\t"}, []string{"query is required"}},
		{[]string{"select", "--root", root, "--limit", "-1", "parse config"}, []string{"--limit", "got -1"}},
		{[]string{"select", "--root", root, "--limit", "10000", "parse config"}, []string{"--limit", "got 10000"}},
		{[]string{"select", "--root", root, "--max-chars", "-3", "parse config"}, []string{"--max-chars"}},
		{[]string{"select", "--root", root, "--kind", "funktion", "parse config"}, []string{"--kind #1", "funktion"}},
		{[]string{"select", "--root", root, "--active", "http://example.com/a.go", "parse config"}, []string{"--active", "http"}},
		{[]string{"select", "--root", root, "--path", "src/[a", "parse config"}, []string{"--path", "src/[a"}},
		{[]string{"select", "--root", root, "--exclude", "{a,b", "--cache-dir", "off", "parse config"}, []string{"exclude[0]"}},
		{[]string{"select", "--root", root, "--embedder", "magic", "parse config"}, []string{"embedder", "magic"}},
	} {
		cliUsageError(t, c.args, c.want...)
	}
}

// TestSelectZeroMeansDefault: the CLI validates as the server does, where
// an absent (zero) limit or budget is the default.
func TestSelectZeroMeansDefault(t *testing.T) {
	root := cliTree(t, cliApp)
	run := func(args ...string) string {
		t.Helper()
		args = append([]string{"select", "--root", root, "--cache-dir", "off", "--json"}, args...)
		code, stdout, stderr := cliRun(t, append(args, "parseConfig", "rejects", "unknown", "keys")...)
		if code != 0 || stderr != "" {
			t.Fatalf("%q: exit %d, stderr %q", args, code, stderr)
		}
		var res wire.Result
		if err := json.Unmarshal([]byte(stdout), &res); err != nil {
			t.Fatal(err)
		}
		return fmt.Sprintf("%d items, %d chars", len(res.Items), res.UsedChars)
	}
	def := run()
	if got := run("--limit", "0", "--max-chars", "0", "--max-chars-per-item", "0"); got != def {
		t.Errorf("zeros gave %s, the defaults %s", got, def)
	}
}

func TestSelectJSON(t *testing.T) {
	root := cliTree(t, cliApp)
	code, stdout, stderr := cliRun(t, "select", "--root", root, "--cache-dir", "off", "--json", "--max-chars", "600", "--explain",
		"parseConfig", "rejects", "unknown", "keys")
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	var res wire.Result
	if err := json.Unmarshal([]byte(stdout), &res); err != nil {
		t.Fatalf("output is not a result object: %v\n%s", err, stdout)
	}
	if len(res.Items) == 0 || res.Items[0].ID != "sym:internal/config/config.go::parseConfig" {
		t.Fatalf("items %+v", res.Items)
	}
	if res.UsedChars == 0 || res.UsedChars > 600 || res.Stats.Embedder != "hash-384" || len(res.Stats.MerkleRoot) != 16 || res.Stats.Files != 5 || !res.Stats.Ready {
		t.Errorf("usedChars %d, stats %+v", res.UsedChars, res.Stats)
	}

	// Every field of the wire contract is present, by its JSON name.
	var raw struct {
		Items []map[string]json.RawMessage `json:"items"`
		Stats map[string]json.RawMessage   `json:"stats"`
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal([]byte(stdout), &raw); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(stdout), &top); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"items", "usedChars", "lowConfidence", "stats"} {
		if _, ok := top[k]; !ok {
			t.Errorf("result has no %q", k)
		}
	}
	for i, it := range raw.Items {
		for _, k := range []string{"id", "uri", "path", "symbol", "kind", "language", "range", "text", "truncated", "score", "reason", "signals"} {
			if _, ok := it[k]; !ok {
				t.Errorf("item %d has no %q", i, k)
			}
		}
	}
	for _, k := range []string{"ready", "files", "symbols", "candidates", "elapsedMs", "embedder", "merkleRoot"} {
		if _, ok := raw.Stats[k]; !ok {
			t.Errorf("stats has no %q", k)
		}
	}
}

// A release's version declaration that no source ranks, only the strong
// match found: --explain says so rather than an empty list of ranks, and
// its why says what it declares.
func TestSelectExplainsReleaseVersion(t *testing.T) {
	var tree strings.Builder
	tree.WriteString("-- gen/releases.go --\npackage gen\n")
	for i := range 120 {
		fmt.Fprintf(&tree, "\n// Release%d notes release %d.0.0 in the changelog.\nfunc Release%d() int { return %d }\n", i, i, i, i)
	}
	tree.WriteString("-- version.go --\npackage echo\n\nconst (\n\t// Version of Echo\n\tVersion = \"5.0.0-alpha\"\n)\n")
	root := cliTree(t, tree.String())
	code, stdout, stderr := cliRun(t, "select", "--root", root, "--cache-dir", "off", "--explain", "--limit", "10", "Changelog for v5.0.0 release")
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	for _, want := range []string{
		"version.go:1-6  Version  const\n   why: declares the version the release your request names replaces",
		"(retrieved): no source ranked it\n   strong match +",
		": the request names a release, and it declares the version\n",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
}

func TestSelectReadable(t *testing.T) {
	root := cliTree(t, cliApp)
	code, stdout, stderr := cliRun(t, "select", "--root", root, "--cache-dir", "off", "--explain", "--limit", "2", "parseConfig rejects unknown keys")
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	for _, want := range []string{
		"1. internal/config/config.go:1-32  parseConfig  function", // the whole small file: the lead takes in its surroundings
		"   why: ",
		"   | func parseConfig(text string) (*Config, error) {",
		// The strong-match bonus is part of the score the ranks alone do
		// not add up to: --explain shows it on its own line.
		"   strong match +",
		": the request spells the symbol's name\n",
		"2 items, ",
		"hash-384",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}

	// --active, --line and --pin reach the request.
	code, stdout, _ = cliRun(t, "select", "--root", root, "--cache-dir", "off", "--limit", "3",
		"--active", filepath.Join(root, "lsp", "server.go"), "--line", "12", "--pin", "file:docs/guide.md", "also log the address")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	if !strings.Contains(stdout, "1. docs/guide.md:1-5  (file)  file") || !strings.Contains(stdout, "2. lsp/server.go:1-19  Server.Start  method") ||
		!strings.Contains(stdout, "   why: pinned\n") || !strings.Contains(stdout, "   why: the code under your cursor") {
		t.Errorf("pinned file first, then the method under the cursor, each saying why; got:\n%s", stdout)
	}

	// A question nothing in the workspace answers gets no guesses, and
	// says what to try.
	code, stdout, _ = cliRun(t, "select", "--root", root, "--cache-dir", "off", "bake a sourdough loaf with rye flour")
	if code != 0 || !strings.HasPrefix(stdout, "Nothing in the workspace matches this question well; try naming a symbol, file or error message.\n0 items") {
		t.Errorf("off-topic question: exit %d, output:\n%s", code, stdout)
	}

	// A relative --active (and --pin) is relative to --root, wherever the
	// command runs; an error names the flag typed.
	code, stdout, stderr = cliRun(t, "select", "--root", root, "--cache-dir", "off", "--limit", "3",
		"--active", "lsp/server.go", "--line", "12", "--pin", "docs/guide.md", "also log the address")
	if code != 0 || !strings.Contains(stdout, "1. docs/guide.md:1-5  (file)  file") || !strings.Contains(stdout, "2. lsp/server.go:1-19  Server.Start  method") {
		t.Errorf("relative --active and --pin: exit %d, stderr %q, got:\n%s", code, stderr, stdout)
	}
	code, _, stderr = cliRun(t, "select", "--root", root, "--cache-dir", "off", "--active", "../elsewhere.go", "also log the address")
	if code != 2 || !strings.Contains(stderr, "ctxls: --active: ") || !strings.Contains(stderr, "outside the workspace folders") {
		t.Errorf("missing relative --active: exit %d, stderr %q", code, stderr)
	}
}

func TestIndexCountsSkippedFiles(t *testing.T) {
	root := cliTree(t, `
-- good.go --
package a

func Good() int { return 1 }
-- broken.go --
package a

func Broken( {

func AlsoGood() {}
`)
	// A binary file, a 50 MB file (sparse), an unreadable file and a
	// symlink loop.
	if err := os.WriteFile(filepath.Join(root, "blob.bin"), append([]byte("\x7fELF\x00\x01\x02"), bytes.Repeat([]byte{0, 0xff}, 2000)...), 0o644); err != nil {
		t.Fatal(err)
	}
	big, err := os.Create(filepath.Join(root, "big.txt"))
	if err != nil {
		t.Fatal(err)
	}
	big.Close()
	if err := os.Truncate(big.Name(), 50<<20); err != nil {
		t.Fatal(err)
	}
	locked := filepath.Join(root, "locked.txt")
	if err := os.WriteFile(locked, []byte("secret notes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(locked, 0); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(locked, 0o644) })
	if err := os.Symlink("b", filepath.Join(root, "a")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("a", filepath.Join(root, "b")); err != nil {
		t.Fatal(err)
	}
	// Whether the unreadable file can be read depends on who runs the test
	// (root reads everything): assert what is true.
	_, readErr := os.ReadFile(locked)
	readable := readErr == nil

	code, stdout, stderr := cliRun(t, "index", "--root", root, "--cache-dir", "off", "--json")
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	var st workspace.IndexStats
	if err := json.Unmarshal([]byte(stdout), &st); err != nil {
		t.Fatalf("%v\n%s", err, stdout)
	}
	wantSkips := map[string]int{"binary": 1, "too large": 1, "symlink loop": 2}
	wantFiles := 3
	if !readable {
		wantSkips["unreadable"] = 1
		wantFiles = 2
	}
	wantSkipped := 0
	for _, n := range wantSkips {
		wantSkipped += n
	}
	if st.Refused != 2 {
		t.Errorf("refused %d, want the 2 links of the loop", st.Refused)
	}
	if st.Files != wantFiles || st.Skipped != wantSkipped || len(st.SkipReasons) != len(wantSkips) {
		t.Errorf("files %d, skipped %d %v; want %d files, %d skipped %v (locked.txt readable: %v)", st.Files, st.Skipped, st.SkipReasons, wantFiles, wantSkipped, wantSkips, readable)
	}
	for r, n := range wantSkips {
		if st.SkipReasons[r] != n {
			t.Errorf("skipped as %q: %d, want %d", r, st.SkipReasons[r], n)
		}
	}
	if st.Languages["go"] != 2 {
		t.Errorf("languages %v: the file with syntax errors should be indexed as Go", st.Languages)
	}

	// The file with syntax errors is searchable: the parser recovers, and
	// AlsoGood comes back (inside the broken function that swallowed it).
	code, stdout, _ = cliRun(t, "select", "--root", root, "--cache-dir", "off", "--json", "AlsoGood")
	var res wire.Result
	if code != 0 || json.Unmarshal([]byte(stdout), &res) != nil || len(res.Items) == 0 ||
		res.Items[0].Path != "broken.go" || !strings.Contains(res.Items[0].Text, "func AlsoGood() {}") {
		t.Errorf("select AlsoGood: exit %d, %s", code, stdout)
	}

	// The readable listing says the same.
	code, stdout, _ = cliRun(t, "index", "--root", root, "--cache-dir", "off")
	if code != 0 || !strings.Contains(stdout, "skipped     ") || !strings.Contains(stdout, "symlink loop 2") || !strings.Contains(stdout, "too large 1") ||
		!strings.Contains(stdout, "refused     2, never read (symlink loop 2)") {
		t.Errorf("index: exit %d\n%s", code, stdout)
	}
}

func TestIndexUsesCache(t *testing.T) {
	root := cliTree(t, cliApp)
	cache := t.TempDir()
	var runs [2]workspace.IndexStats
	for i := range runs {
		code, stdout, stderr := cliRun(t, "index", "--root", root, "--cache-dir", cache, "--json")
		if code != 0 || json.Unmarshal([]byte(stdout), &runs[i]) != nil {
			t.Fatalf("run %d: exit %d, stderr %q, stdout %s", i, code, stderr, stdout)
		}
	}
	if runs[0].Parsed != 5 || runs[1].Parsed != 0 || runs[1].Reused != 5 || runs[0].MerkleRoot != runs[1].MerkleRoot {
		t.Errorf("first run %+v\nsecond run %+v\nwant everything reused the second time", runs[0], runs[1])
	}
	if filepath.Dir(runs[1].Cache) != cache {
		t.Errorf("cache %s not under %s", runs[1].Cache, cache)
	}
	cliUsageError(t, []string{"index", "--root", root, "stray"}, `"stray"`)
}

func TestEval(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "workspaces"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "workspaces", "tiny.txtar"), []byte(cliApp), 0o644); err != nil {
		t.Fatal(err)
	}
	golden := `{
  "workspace": "tiny",
  "cases": [
    {"name": "config-unknown-keys", "kind": "cold", "query": "reject unknown configuration keys",
     "expect": {"files": ["internal/config/config.go"], "symbols": ["internal/config/config.go::parseConfig"]}},
    {"name": "server-listen", "kind": "active", "query": "log the listen address", "active": "lsp/server.go",
     "expect": {"files": ["lsp/server.go"], "symbols": ["lsp/server.go::Server.Start"]}}
  ]
}
`
	if err := os.MkdirAll(filepath.Join(dir, "golden"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "golden", "tiny.json"), []byte(golden), 0o644); err != nil {
		t.Fatal(err)
	}
	basePath := filepath.Join(dir, "eval", "baseline.json")

	code, stdout, stderr := cliRun(t, "eval", dir)
	if code != 0 {
		t.Fatalf("eval without a baseline: exit %d, stderr %q", code, stderr)
	}
	for _, want := range []string{"hit1", "mrr", "tiny/config-unknown-keys", "tiny/server-listen", "macro (2 cases)"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("eval output lacks %q:\n%s", want, stdout)
		}
	}

	code, stdout, _ = cliRun(t, "eval", "--json", dir)
	var rep eval.Report
	if code != 0 || json.Unmarshal([]byte(stdout), &rep) != nil || len(rep.Cases) != 2 {
		t.Fatalf("eval --json: exit %d\n%s", code, stdout)
	}
	if rep.Macro.Hit5 != 1 {
		t.Errorf("tiny cases should be found in the top 5: %+v", rep.Cases)
	}

	code, _, stderr = cliRun(t, "eval", "--update", dir)
	if code != 0 || !strings.Contains(stderr, basePath) {
		t.Fatalf("eval --update: exit %d, stderr %q", code, stderr)
	}
	b, err := os.ReadFile(basePath)
	if err != nil {
		t.Fatal(err)
	}
	var base eval.Metrics
	if err := json.Unmarshal(b, &base); err != nil {
		t.Fatal(err)
	}
	if base != rep.Macro {
		t.Errorf("baseline %+v, want this run's macro %+v", base, rep.Macro)
	}
	if code, _, stderr := cliRun(t, "eval", dir); code != 0 {
		t.Errorf("eval against its own baseline: exit %d, stderr %q", code, stderr)
	}

	// A baseline the run cannot reach: exit 1, naming the metric.
	if base.Precision > 0.9 {
		t.Fatalf("precision@5 %v leaves no room above it", base.Precision)
	}
	base.Precision = 1
	b, _ = json.Marshal(base)
	if err := os.WriteFile(basePath, b, 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr = cliRun(t, "eval", dir)
	if code != 1 || !strings.Contains(stderr, "precision@5") || !strings.Contains(stderr, "below the baseline") {
		t.Errorf("eval below the baseline: exit %d, stderr %q", code, stderr)
	}

	if code, _, stderr := cliRun(t, "eval", filepath.Join(dir, "nowhere")); code == 0 || strings.Count(stderr, "\n") != 1 {
		t.Errorf("eval of a missing DIR: exit %d, stderr %q", code, stderr)
	}
	cliUsageError(t, []string{"eval", dir, dir}, "at most one DIR")
}

// TestIndexReadsHistory: in a git repository, ctxls index says how many
// commits the history sources read; outside one, and with
// --history-commits 0, it says why there is none; in a depth-1 clone, that
// it is a shallow clone's one commit.
func TestIndexReadsHistory(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatal("git is needed for the history sources' tests")
	}
	root := cliTree(t, cliApp)
	_, stdout, _ := cliRun(t, "index", "--root", root, "--cache-dir", "off")
	if !strings.Contains(stdout, "history     none (") || !strings.Contains(stdout, "not in a git repository") {
		t.Errorf("index outside a repository:\n%s", stdout)
	}
	for _, args := range [][]string{
		{"init", "-q"}, {"add", "."},
		{"-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "first"},
	} {
		cmd := exec.Command("git", args...)
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	_, stdout, _ = cliRun(t, "index", "--root", root, "--cache-dir", "off")
	if !strings.Contains(stdout, "history     1 commit to ") {
		t.Errorf("index of a repository with one commit:\n%s", stdout)
	}
	_, stdout, _ = cliRun(t, "index", "--root", root, "--cache-dir", "off", "--history-commits", "0")
	if !strings.Contains(stdout, "history     none (historyCommits is 0)") {
		t.Errorf("index with --history-commits 0:\n%s", stdout)
	}
	// A depth-1 clone: its one commit is its boundary, no change to count.
	clone := filepath.Join(t.TempDir(), "clone")
	for _, args := range [][]string{
		{"-C", root, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "--allow-empty", "-m", "second"},
		{"clone", "-q", "--depth", "1", "file://" + root, clone},
	} {
		if out, err := exec.Command("git", args...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	_, stdout, _ = cliRun(t, "index", "--root", clone, "--cache-dir", "off")
	if !strings.Contains(stdout, "history     none (a shallow clone: the history is its 1 commit ") || !strings.Contains(stdout, "git fetch --unshallow") {
		t.Errorf("index of a depth-1 clone:\n%s", stdout)
	}
}

// TestIndexHistoryLineSaysNoNoteWhenThereIsNone: a history with no
// commit and nothing known about why prints "none", not "none ()".
func TestIndexHistoryLineSaysNoNoteWhenThereIsNone(t *testing.T) {
	var buf bytes.Buffer
	printStats(&buf, workspace.IndexStats{})
	if !strings.Contains(buf.String(), "history     none\n") {
		t.Errorf("history line of empty stats:\n%s", buf.String())
	}
}

func TestMCPBadUsage(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "no-such-dir")
	cliUsageError(t, []string{"mcp", "--root", missing}, missing, "no such directory")
	cliUsageError(t, []string{"mcp", "extra"}, `"extra"`, "--root")
	cliUsageError(t, []string{"mcp", "--log-level", "loud"}, "--log-level")
	cliUsageError(t, []string{"mcp", "--embedder", "magic"}, "embedder", "magic")
}

// TestMCPStdio speaks MCP to `ctxls mcp` over its stdin and stdout, as an
// agent does: initialize, a tool call, and end of input once answered.
func TestMCPStdio(t *testing.T) {
	root := cliTree(t, cliApp)
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"select_context","arguments":{"query":"parse config","limit":200}}}`,
	}, "\n") + "\n"
	stdinR, stdinW := io.Pipe()
	stdout := &testutil.SyncBuffer{}
	var stderr bytes.Buffer
	done := make(chan int, 1)
	go func() {
		done <- run(context.Background(), []string{"mcp", "--root", root, "--cache-dir", "off"}, stdinR, stdout, &stderr)
	}()
	io.WriteString(stdinW, in)
	deadline := time.Now().Add(time.Minute)
	for strings.Count(stdout.String(), "\n") < 2 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	stdinW.Close()
	if code := <-done; code != 0 {
		t.Fatalf("exit %d, stderr %s", code, stderr.String())
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], `"serverInfo":{"name":"ctxls"`) {
		t.Fatalf("want the initialize result and one tool result on stdout, got:\n%s", stdout.String())
	}
	if !strings.Contains(lines[1], `"isError":true`) || !strings.Contains(lines[1], "invalid argument limit: must be between 1 and 100, got 200") {
		t.Errorf("want a tool error naming limit, got %s", lines[1])
	}
}

// TestSelectWarnsOnMissingActive: an --active file that does not exist
// (a typo, or an editor variable left unexpanded) is said on stderr; the
// selection still runs.
func TestSelectWarnsOnMissingActive(t *testing.T) {
	root := cliTree(t, cliApp)
	code, stdout, stderr := cliRun(t, "select", "--root", root, "--cache-dir", "off", "--limit", "2", "--active", filepath.Join(root, "%{buffer_name}"), "parse config")
	if code != 0 || !strings.Contains(stdout, "parseConfig") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if !strings.Contains(stderr, "warning: --active "+filepath.Join(root, "%{buffer_name}")+": no such file (an editor variable left unexpanded?)") {
		t.Errorf("no warning for a missing active file: %q", stderr)
	}
	_, _, stderr = cliRun(t, "select", "--root", root, "--cache-dir", "off", "--active", filepath.Join(root, "lsp", "server.go"), "parse config")
	if strings.Contains(stderr, "warning") {
		t.Errorf("a warning for an active file that exists: %q", stderr)
	}
}

func TestMemoryLimitIsHalfTheMachineWithAFloor(t *testing.T) {
	for _, c := range []struct {
		total uint64
		want  int64
	}{
		{24 << 30, 12 << 30},
		{1 << 30, 2 << 30}, // small machines keep 2 GiB
		{0, 2 << 30},       // unknown
	} {
		if got := memoryLimit(c.total); got != c.want {
			t.Errorf("memoryLimit(%d) = %d, want %d", c.total, got, c.want)
		}
	}
	if runtime.GOOS == "linux" && totalMemory() == 0 {
		t.Error("totalMemory found no memory on linux")
	}
}

// TestQuietStartGivesTheCollectorBack: a one-shot select does not collect
// while its memory is small, and collects as usual once it is not.
func TestQuietStartGivesTheCollectorBack(t *testing.T) {
	oldPercent := debug.SetGCPercent(100)
	oldLimit := debug.SetMemoryLimit(math.MaxInt64)
	t.Cleanup(func() {
		debug.SetGCPercent(oldPercent)
		debug.SetMemoryLimit(oldLimit)
	})
	read := func() (percent, limit uint64) {
		s := []metrics.Sample{{Name: "/gc/gogc:percent"}, {Name: "/gc/gomemlimit:bytes"}}
		metrics.Read(s)
		return s[0].Value.Uint64(), s[1].Value.Uint64()
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	quiet := int64(ms.Sys) + 64<<20
	quietStart(quiet, 77, 1<<40)
	if p, l := read(); p != math.MaxUint64 || l != uint64(quiet) { // off reads as -1
		t.Fatalf("held: GOGC %d, limit %d; want off and %d", p, l, quiet)
	}
	var keep [][]byte
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if p, l := read(); p == 77 && l == 1<<40 {
			runtime.KeepAlive(keep)
			return
		}
		if len(keep) < 4096 { // at most 256 MB over the bound
			keep = append(keep, make([]byte, 64<<10))
		} else {
			time.Sleep(time.Millisecond)
		}
	}
	p, l := read()
	t.Fatalf("past the bound: GOGC %d, limit %d; want 77 and %d", p, l, int64(1<<40))
}

// TestSelectExplainsTheLead: with no file open, a symbol far ahead of the
// word sources' fifth place shows its lead on a line of its own, larger
// than any the symbols behind it show.
func TestSelectExplainsTheLead(t *testing.T) {
	root := cliTree(t, `
-- money/round.go --
package money

// RoundCents rounds an amount of money to whole cents: half a cent goes
// to the even cent, so that rounding cents never drifts.
func RoundCents(amount float64) int64 { return int64(amount * 100) }
-- a/a.go --
package a

// Parse reads an amount.
func Parse(s string) float64 { return 0 }
-- b/b.go --
package b

// Sum adds amounts.
func Sum(xs []float64) float64 { return 0 }
-- c/c.go --
package c

// Scale multiplies an amount.
func Scale(x, f float64) float64 { return x * f }
-- d/d.go --
package d

// Neg negates an amount.
func Neg(x float64) float64 { return -x }
-- e/e.go --
package e

// Abs is the absolute amount.
func Abs(x float64) float64 { return x }
-- f/f.go --
package f

// Max is the larger amount.
func Max(x, y float64) float64 { return x }
`)
	code, stdout, stderr := cliRun(t, "select", "--root", root, "--cache-dir", "off", "--explain", "--limit", "8", "round an amount to the even cent")
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	const line = "\n   lead +"
	first, rest, _ := strings.Cut(stdout, "\n2. ")
	if !strings.HasPrefix(first, "1. money/round.go") || !strings.Contains(first, ": its word match is ahead of the source's fifth place by that much\n") {
		t.Fatalf("want RoundCents first with its lead explained; got:\n%s", stdout)
	}
	lead := func(s string) float64 {
		_, after, _ := strings.Cut(s, line)
		v, _ := strconv.ParseFloat(strings.TrimSuffix(strings.Fields(after)[0], ":"), 64)
		return v
	}
	top := lead(first)
	for _, part := range strings.Split(rest, line)[1:] {
		if v := lead(line + part); !(v < top/10) {
			t.Errorf("a symbol behind the first shows a lead of %v against the first's %v:\n%s", v, top, stdout)
		}
	}
}
