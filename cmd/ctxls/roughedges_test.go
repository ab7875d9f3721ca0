package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/lsp/wire"
)

// TestBadFlagIsOneLine: an unknown flag or a bad value is one line naming
// the flag as typed and pointing at -h, not the whole usage.
func TestBadFlagIsOneLine(t *testing.T) {
	root := cliTree(t, cliApp)
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"select", "--root", root, "--bogus", "parse config"}, []string{"select: unknown flag --bogus", "(see ctxls select -h)"}},
		{[]string{"select", "--root", root, "-bogus=1", "parse config"}, []string{"unknown flag -bogus", "ctxls select -h"}},
		{[]string{"select", "--root", root, "--min-score", "abc", "parse config"}, []string{"--min-score", `"abc"`, "want a number", "ctxls select -h"}},
		{[]string{"select", "--root", root, "parse config", "--limit"}, []string{"--limit needs a value"}},
		{[]string{"select", "--root", root, "--json=maybe", "parse config"}, []string{"--json", "true or false"}},
		{[]string{"index", "--root", root, "--bogus"}, []string{"index: unknown flag --bogus", "ctxls index -h"}},
		{[]string{"replay", "--root", root, "--commits", "x"}, []string{"--commits", "want a whole number", "ctxls replay -h"}},
		{[]string{"eval", "--bogus"}, []string{"unknown flag --bogus", "ctxls eval -h"}},
		{[]string{"mcp", "--bogus"}, []string{"unknown flag --bogus", "ctxls mcp -h"}},
		{[]string{"serve", "--bogus"}, []string{"unknown flag --bogus", "ctxls serve -h"}},
		{[]string{"memory", "list", "--bogus"}, []string{"unknown flag --bogus", "ctxls memory list -h"}},
	} {
		cliUsageError(t, c.args, c.want...)
	}
	// -h still prints the usage, and succeeds.
	code, _, stderr := cliRun(t, "index", "-h")
	if code != 0 || !strings.Contains(stderr, "-max-file-bytes") {
		t.Errorf("index -h: exit %d, stderr %q", code, stderr)
	}
}

// TestListingRangeIsTheText: the lines the readable listing gives for an
// item are exactly the lines of the text it prints, also when the text
// ends with its last line's newline (a whole small file).
func TestListingRangeIsTheText(t *testing.T) {
	root := cliTree(t, cliApp)
	code, stdout, stderr := cliRun(t, "select", "--root", root, "--cache-dir", "off", "--limit", "10", "--pin", "docs/guide.md", "parse config server start cart")
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	header := regexp.MustCompile(`^\d+\. (\S+):(\d+)-(\d+)  `)
	var where string
	var first, last, lines int
	check := func() {
		if where != "" && last-first+1 != lines {
			t.Errorf("%s:%d-%d lists %d lines, its text has %d", where, first, last, last-first+1, lines)
		}
	}
	items := 0
	for _, l := range strings.Split(stdout, "\n") {
		if m := header.FindStringSubmatch(l); m != nil {
			check()
			items++
			where, lines = m[1], 0
			first, _ = strconv.Atoi(m[2])
			last, _ = strconv.Atoi(m[3])
		} else if strings.HasPrefix(l, "   | ") && l != "   | …" {
			lines++
		}
	}
	check()
	if items < 3 || !strings.Contains(stdout, "1. docs/guide.md:1-5  (file)") {
		t.Errorf("want docs/guide.md (5 lines, pinned) first among several items:\n%s", stdout)
	}
}

// TestSelectWarnsOnUnindexedActive: --active naming a file the index does
// not hold, and --line past the end of the file, are said on stderr, one
// line each; the selection still runs.
func TestSelectWarnsOnUnindexedActive(t *testing.T) {
	root := cliTree(t, cliApp+"-- .gitignore --\n*.log\n-- debug.log --\nstarting server\n")
	if err := os.WriteFile(filepath.Join(root, "logo.bin"), []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--active", "logo.bin"}, "ctxls: warning: --active logo.bin: not indexed (binary)"},
		{[]string{"--active", "debug.log"}, "ctxls: warning: --active debug.log: not indexed (left out by .gitignore or an exclude)"},
		{[]string{"--active", "lsp/server.go", "--line", "99999"}, "ctxls: warning: --line 99999: past the end of lsp/server.go (19 lines)"},
	} {
		args := append([]string{"select", "--root", root, "--cache-dir", "off", "--limit", "2"}, c.args...)
		code, stdout, stderr := cliRun(t, append(args, "start the server")...)
		if code != 0 || !strings.Contains(stdout, "2 items") {
			t.Errorf("%v: exit %d, stdout %q", c.args, code, stdout)
		}
		if !strings.HasPrefix(stderr, c.want) || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%v: stderr %q, want one line starting %q", c.args, stderr, c.want)
		}
	}
	// No warning for an indexed file and a line inside it.
	_, _, stderr := cliRun(t, "select", "--root", root, "--cache-dir", "off", "--active", "lsp/server.go", "--line", "19", "start the server")
	if stderr != "" {
		t.Errorf("a warning for an indexed active file and its last line: %q", stderr)
	}
}

// TestRequestWithoutEvidenceIsLowConfidence: "make it better" with no
// history, active file or pin has nothing to point at; however well its
// one generic word matches, the answer says so. The same words after a
// conversation that says what "it" is are no such request.
func TestRequestWithoutEvidenceIsLowConfidence(t *testing.T) {
	root := cliTree(t, cliApp+`-- rank/better.go --
package rank

// better reports whether score a should rank above score b.
func better(a, b float64) bool { return a > b }
`)
	lowConfidence := func(args ...string) bool {
		t.Helper()
		code, stdout, stderr := cliRun(t, append([]string{"select", "--root", root, "--cache-dir", "off", "--json"}, args...)...)
		var res wire.Result
		if code != 0 || json.Unmarshal([]byte(stdout), &res) != nil {
			t.Fatalf("%v: exit %d, stderr %q", args, code, stderr)
		}
		return res.LowConfidence
	}
	if !lowConfidence("make it better") {
		t.Error(`"make it better", alone: not flagged lowConfidence`)
	}
	if lowConfidence("--history", "parseConfig should reject unknown keys with the line number", "make it better") {
		t.Error(`"make it better" after a turn naming parseConfig: flagged lowConfidence`)
	}
}

// TestIndexNamesSkippedFiles: the files indexing read and the files it
// reports agree, or the listing says what the difference is; with -v the
// skipped files are named with their reason.
func TestIndexNamesSkippedFiles(t *testing.T) {
	root := cliTree(t, cliApp+"-- go.sum --\nexample.com/a v1.0.0 h1:abc=\n")
	if err := os.WriteFile(filepath.Join(root, "tools", "data.txt"), append([]byte("header\x00"), make([]byte, 64)...), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := cliRun(t, "index", "--root", root, "--cache-dir", "off", "-v")
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	if !strings.Contains(stdout, "files       5 (5 parsed, 0 from cache; 6 read, 1 of them skipped)") {
		t.Errorf("the files line does not account for the files read:\n%s", stdout)
	}
	if !strings.Contains(stderr, "total=6") {
		t.Errorf("progress does not count the 6 files read:\n%s", stderr)
	}
	for _, want := range []string{`msg=skipped`, `path=go.sum reason="unsupported type"`, `path=tools/data.txt reason=binary`} {
		if !strings.Contains(stderr, want) {
			t.Errorf("-v does not say %s:\n%s", want, stderr)
		}
	}
	// Without -v, on a pipe: nothing on stderr.
	if _, _, stderr := cliRun(t, "index", "--root", root, "--cache-dir", "off"); stderr != "" {
		t.Errorf("index without -v wrote %q", stderr)
	}
}

// replayRepo is a git repository with a few commits, each changing one
// source file: cases for the cold and vague scenarios, none for active.
func replayRepo(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatal("git is needed for the replay tests")
	}
	root := cliTree(t, cliApp)
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...)
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q")
	git("add", ".")
	git("commit", "-q", "-m", "first")
	edit := func(rel, old, new, msg string) {
		p := filepath.Join(root, rel)
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(strings.Replace(string(b), old, new, 1)), 0o644); err != nil {
			t.Fatal(err)
		}
		git("commit", "-q", "-am", msg)
	}
	edit("internal/config/config.go", `"localhost:8080"`, `"localhost:9090"`, "config: parseConfig defaults to port 9090")
	edit("lsp/server.go", "return err", "return fmt.Errorf(\"listen: %w\", err)", "Server.Start wraps the listen error")
	return root
}

// TestReplayReadable: a scenario with no cases says so rather than print
// zeros, the legend explains every column and split, and progress stays
// off a pipe unless -v asks for it.
func TestReplayReadable(t *testing.T) {
	root := replayRepo(t)
	code, stdout, stderr := cliRun(t, "replay", "--root", root, "--commits", "5", "--cache-dir", "off")
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	if stderr != "" {
		t.Errorf("replay without -v, not on a terminal, wrote %q", stderr)
	}
	if !regexp.MustCompile(`(?m)^active   all                0  no cases$`).MatchString(stdout) {
		t.Errorf("the active scenario, without cases, should say so:\n%s", stdout)
	}
	if regexp.MustCompile(`(?m)^active .* 0\.00`).MatchString(stdout) {
		t.Errorf("zeros printed for a scenario without cases:\n%s", stdout)
	}
	if !regexp.MustCompile(`(?m)^cold     all                2  `).MatchString(stdout) {
		t.Errorf("want 2 cold cases:\n%s", stdout)
	}
	for _, col := range []string{"hit@1", "hit@5", "rec@5", "MRR", "hunks", "names gold", "names nothing", "first right"} {
		if strings.Count(stdout, col) < 2 { // in the header or a row, and in the legend
			t.Errorf("%s is not explained:\n%s", col, stdout)
		}
	}
	_, _, stderr = cliRun(t, "replay", "--root", root, "--commits", "5", "--cache-dir", "off", "-v")
	if !strings.Contains(stderr, "replaying commit 1/3 ") || !strings.Contains(stderr, "replaying commit 3/3 ") || strings.Contains(stderr, "\r") {
		t.Errorf("replay -v, not on a terminal: want a plain line per commit, got %q", stderr)
	}
}
