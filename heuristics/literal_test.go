package heuristics

import (
	"bytes"
	"slices"
	"strings"
	"testing"
)

func TestRemovedLiterals(t *testing.T) {
	for _, c := range []struct {
		text string
		want []string
	}{
		{"Replace interface{} with any", []string{"interface{}"}},
		{"Remove unused type: ignore", []string{"type: ignore"}},
		{"fix: replace deprecated trimRight() with trimEnd()", []string{"trimRight()"}},
		{"Replace sort.Sort(ByOrder(...)) with slices.SortFunc", []string{"sort.Sort(ByOrder("}},
		{"lib: use req.socket over deprecated req.connection", []string{"req.connection"}},
		{"Deprecate `app=...` in favor of explicit `WSGITransport`", []string{"app="}},
		// Introduced, not removed.
		{"Use slices.Contains", nil},
		{"Use strings.Builder instead of concatenation", nil},
		{"Replace the loop with slices.Contains", nil},
		// A conventional prefix, prose punctuation and file names are no
		// literals of code.
		{"fix(uri): query binding bug", nil},
		{"refactor: drop per-entry lookups and the proxy's retries", nil},
		{"Remove setup.py and old/config.go", nil},
		// Line ends of Windows, prose's quotes, spaces and dashes, and an
		// ellipsis are no part of a literal.
		{"Remove legacyOpen()\r\nIt leaks", []string{"legacyOpen()"}},
		{"Replace \u201cinterface{}\u201d with any", []string{"interface{}"}},
		{"Replace \u2018trimRight()\u2019, with trimEnd()", []string{"trimRight()"}},
		{"Replace interface{}\u00a0with any", []string{"interface{}"}},
		{"Remove legacyOpen()\u2014it leaks", []string{"legacyOpen()"}},
		{"Replace sort.Sort(ByOrder(\u2026)) with slices.SortFunc", []string{"sort.Sort(ByOrder("}},
		// A dotted name whose last part is no extension is code.
		{"Remove the reads of self.data and req.body", []string{"self.data", "req.body"}},
		{"Remove x.get from the loop", []string{"x.get"}},
		{"fix: use github.com instead of google.com", nil},
		{"Remove the req.app lookups", []string{"req.app"}},
		// A pasted blob is no literal.
		{"Remove f(" + strings.Repeat("x", 300) + ") here", nil},
		// A backticked word is code, not a marker.
		{"Remove the `with` keyword and legacyOpen()", []string{"legacyOpen()"}},
		// "to" and "for" name a replacement's target, not after "remove".
		{"Remove deprecated calls to os.Exit()", []string{"os.Exit()"}},
		{"Drop the fallback for sort.Sort(", []string{"sort.Sort("}},
		{"Remove the old flag and replace trimRight() with trimEnd()", []string{"trimRight()"}},
		// A name and value are a pragma only backticked or ending the clause.
		{"Remove unused imports: this breaks lint", nil},
		{"Remove `type: ignore` comments", []string{"type: ignore"}},
		// A change, conversion, move or rename starts from what is there;
		// to, into and an arrow name where it goes.
		{"Change interface{} to any", []string{"interface{}"}},
		{"Change 'interface{}' to 'any' (#4308)", []string{"interface{}"}},
		{"Move tunnel_start_tls() to HTTPConnection (#609)", []string{"tunnel_start_tls()"}},
		{"Convert DataEvent.data from bytearray to bytes", []string{"DataEvent.data"}},
		{"Switch from std::sync::mpsc to crossbeam-channel", []string{"std::sync::mpsc"}},
		{"Renamed Context#Context => Context#StdContext", []string{"Context#Context"}},
		{"Rename `Command.Subcommands` :arrow_right: `Command.Commands`", []string{"Command.Subcommands"}},
		{"Change the default to os.Stdout", nil},
		{"Switch to explicit `typing.Optional` throughout", nil},
		{"Migrate the docs into docs.Build()", nil},
		// A pragma followed by a word naming pragmas, or by a pull
		// request's number, is still one; prose after a colon is not.
		{"Remove unneeded type: ignore comments", []string{"type: ignore"}},
		{"Remove unused type: ignore (#3038)", []string{"type: ignore"}},
		{"use # pragma: no cover instead of # pragma: nocover (#2471)", []string{"pragma: nocover"}},
		{"Remove unused imports: these lines break lint", nil},
		{"removed os: linux due to travis default", nil},
		// A clause ends the removal.
		{"Remove the old flag. Add cmd.Flags() to the help", nil},
	} {
		if got := RemovedLiterals(c.text); !slices.Equal(got, c.want) {
			t.Errorf("RemovedLiterals(%q) = %q, want %q", c.text, got, c.want)
		}
	}
}

// A blob of closing parentheses takes one pass, not one per parenthesis:
// this ends at once, where trimming them one count at a time took seconds.
func TestRemovedLiteralsBlob(t *testing.T) {
	blob := "Remove f(" + strings.Repeat(")", 160000)
	if got := RemovedLiterals(blob); got != nil {
		t.Errorf("RemovedLiterals(blob) = %q", got)
	}
	if got := RemovedLiterals("Remove " + strings.Repeat("(", 100) + "foo()" + strings.Repeat(")", 120) + "."); len(got) != 1 || strings.Count(got[0], ")") != strings.Count(got[0], "(") {
		t.Errorf("RemovedLiterals(nested) = %q", got)
	}
}

func TestFlagLiterals(t *testing.T) {
	for _, tc := range []struct {
		text string
		want []string
	}{
		{"docs: clarify --exec positional argument handling", []string{`"--exec"`, `"exec"`, " exec: "}},
		{"fix: --exact should conflict with --fix-strings", []string{`"--exact"`, `"exact"`, " exact: ", `"--fix-strings"`, `"fix-strings"`, `"fix_strings"`, " fix_strings: "}},
		{"Fix gutter display in --style=minimal", []string{`"--style"`, `"style"`, " style: "}},
		// The parser's own flags, one-letter flags, a flag only the body
		// names, and prose dashes name no declaration.
		{"fix: let --help flag take precedence over parse errors", nil},
		{"Remove the trailing white space in -C short option.", nil},
		{"Wrap bare Kitty graphics sequences\nwith --clear the screen", nil},
		{"a long--winded note -- and a dash", nil},
	} {
		if got := FlagLiterals(tc.text); !slices.Equal(got, tc.want) {
			t.Errorf("FlagLiterals(%q) = %q, want %q", tc.text, got, tc.want)
		}
	}
}

// A flag's field form (" exec: ") holds where a field or an option is
// declared, first in its line's code, and not where a local's type or a
// parameter's on the signature's line is written.
func TestIndexLiteralFlagField(t *testing.T) {
	lit := []byte(" exec: ")
	if !FlagField(string(lit)) || FlagField(`"exec"`) || FlagField(" a b: ") {
		t.Fatal("FlagField: want only the field form")
	}
	for _, tc := range []struct {
		lang, line string
		want       bool
	}{
		{"rust", "    pub exec: Option<CommandSet>,", true},
		{"rust", "    pub(crate) exec: bool,", true},
		{"rust", "    exec: bool,", true},
		{"rust", "        exec: None,", true}, // a struct literal's field
		{"rust", "    let exec: Option<Exec> = None;", false},
		{"rust", "    let mut exec: Vec<String> = vec![];", false},
		{"rust", "pub fn run(paths: &[PathBuf], exec: bool) -> Result<()> {", false},
		{"rust", "fn spawn(exec: &CommandSet) {", false},
		{"rust", "    // exec: run a command", false},
		{"go", "\tExec    string `long:\"exec\" description:\"run\"`", false}, // "exec" quoted holds it
		{"go", "\t\texec: true,", false},                                      // a tab, no space, before it: Go declares flags quoted
		{"go", "func run(exec: bool) {", false},
		{"python", "    exec: bool = False", true}, // a dataclass's field
		{"python", "def main(self, exec: bool = False):", false},
		{"python", "    def run(self, exec: str) -> None:", false},
		{"python", "    exec: str | None = Field(default=None)", true},
		{"typescript", "  exec: boolean;", true},
		{"typescript", "  private readonly exec: boolean;", true},
		{"typescript", "export function run(exec: boolean): void {", false},
		{"typescript", "const options = { exec: true };", false},
		{"typescript", "    case exec: return 1;", false},
		{"javascript", "  exec: false,", true}, // an option's key
		{"javascript", "let exec: number = 1;", false},
	} {
		text := []byte("x\n" + tc.line + "\n")
		if got := IndexLiteral(text, 0, lit, true) >= 0; got != tc.want {
			t.Errorf("%s: %q holds the field: %v, want %v", tc.lang, tc.line, got, tc.want)
		}
		if bytes.Contains(text, lit) && IndexLiteral(text, 0, lit, false) < 0 {
			t.Errorf("%s: %q: not the field form, want it found anywhere", tc.lang, tc.line)
		}
	}
	// The first place that counts, past those that do not.
	text := []byte("fn f(exec: bool) {}\nstruct O {\n    pub exec: bool,\n}\n")
	if got, want := IndexLiteral(text, 0, lit, true), bytes.Index(text, []byte("    pub exec"))+7; got != want {
		t.Errorf("IndexLiteral = %d, want %d", got, want)
	}
}
