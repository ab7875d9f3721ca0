package parse

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// editCorpus are real files of the project (the VS Code extension, the
// JSON-RPC demo client, the workspace's document handling), a CommonJS
// module in the style of fastify's lib/reply.js, and the parse fixtures of
// the other languages, repeated (but their first line, a package, using or
// <?php line) to make files with enough top-level nodes for islands. Where
// islands are false, they cannot apply: most of extension.ts is one class,
// and a piece of a PHP file does not parse without its <?php.
var editCorpus = []struct {
	file, path string
	repeat     int
	islands    bool
}{
	{"../../../workspace/documents.go", "documents.go", 1, true},
	{"../../../editors/vscode/src/extension.ts", "extension.ts", 1, false},
	{"../../../editors/jsonrpc-demo.py", "jsonrpc_demo.py", 1, true},
	{"parse/reply.js", "reply.js", 3, true},
	{"parse/App.tsx", "App.tsx", 3, true},
	{"parse/lib.rs", "lib.rs", 3, true},
	{"parse/shape.cpp", "shape.cpp", 3, true},
	{"parse/list.c", "list.c", 4, true},
	{"parse/greeter.rb", "greeter.rb", 4, true},
	{"parse/Repository.java", "Repository.java", 4, true},
	{"parse/Tool.cs", "Tool.cs", 4, true},
	{"parse/User.php", "User.php", 4, false},
}

// readCorpus reads a file under testdata (or, through "../../..", one of the
// project's own sources), repeated but its first line.
func readCorpus(t testing.TB, file string, repeat int) []byte {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("testdata", filepath.FromSlash(file)))
	if err != nil {
		t.Fatal(err)
	}
	rest := src[bytes.IndexByte(src, '\n')+1:]
	for range repeat - 1 {
		src = append(append(src, '\n'), rest...)
	}
	return src
}

// randomEdit changes text the way an editor session does: typing in a
// name, typing and deleting lines, pasting and moving blocks, the
// keystrokes that upset a parse (an opening brace or quote, a comment
// opener), and fixing them: back to good, the last text without syntax
// errors, or to the original. It returns the new text and a description for failure
// messages.
func randomEdit(rng *rand.Rand, text, good, orig []byte) ([]byte, string) {
	at := func() int { return rng.IntN(len(text) + 1) }
	lineStart := func(i int) int { return bytes.LastIndexByte(text[:i], '\n') + 1 }
	lineEnd := func(i, lines int) int {
		for ; lines > 0 && i < len(text); lines-- {
			if e := bytes.IndexByte(text[i:], '\n'); e >= 0 {
				i += e + 1
			} else {
				i = len(text)
			}
		}
		return i
	}
	replace := func(start, end int, with string) []byte {
		out := make([]byte, 0, len(text)-(end-start)+len(with))
		out = append(out, text[:start]...)
		out = append(out, with...)
		return append(out, text[end:]...)
	}
	switch k := rng.IntN(40); {
	case k < 2:
		return bytes.Clone(orig), "undo everything"
	case k < 12:
		return bytes.Clone(good), "fix"
	case k < 16: // typing in a name
		for range 20 {
			if i := at(); i > 0 && isIdentByte(text[i-1]) {
				w := []string{"x", "Retry", "_2"}[rng.IntN(3)]
				return replace(i, i, w), fmt.Sprintf("type %q at %d", w, i)
			}
		}
		return text, "nothing"
	case k < 20: // typing a line
		words := []string{"\tcount += 1\n", "    x = 1\n", "\n", "// note\n", "\treturn nil\n", "  let y = 2;\n"}
		w := words[rng.IntN(len(words))]
		i := lineStart(at())
		return replace(i, i, w), fmt.Sprintf("type %q at %d", w, i)
	case k < 23: // deleting a few bytes
		i := at()
		j := min(len(text), i+1+rng.IntN(12))
		return replace(i, j, ""), fmt.Sprintf("delete %d-%d %q", i, j, text[i:j])
	case k < 26: // deleting lines
		i := lineStart(at())
		j := lineEnd(i, 1+rng.IntN(4))
		return replace(i, j, ""), fmt.Sprintf("delete lines %d-%d", i, j)
	case k < 30: // paste lines elsewhere
		i := lineStart(at())
		j := lineEnd(i, 1+rng.IntN(20))
		d := lineStart(at())
		return replace(d, d, string(text[i:j])), fmt.Sprintf("paste lines %d-%d at %d", i, j, d)
	case k < 33: // move lines: a moved function
		i := lineStart(at())
		j := lineEnd(i, 1+rng.IntN(30))
		piece := string(text[i:j])
		cut := replace(i, j, "")
		d := bytes.LastIndexByte(cut[:rng.IntN(len(cut)+1)], '\n') + 1
		out := make([]byte, 0, len(text))
		out = append(append(append(out, cut[:d]...), piece...), cut[d:]...)
		return out, fmt.Sprintf("move lines %d-%d to %d", i, j, d)
	default: // the keystrokes that change the structure
		marks := []string{"{", "}", "(", ")", "[", "\"", "'", "`", "/*", "*/", "//", "#", `"""`, ":", ";", "\n}\n", "function f() {", "class C {", "def f():\n    ", "func f() {"}
		m := marks[rng.IntN(len(marks))]
		i := at()
		return replace(i, i, m), fmt.Sprintf("type %q at %d", m, i)
	}
}

// TestParseEditMatchesParse is the property ParseEdit stands on: after any
// sequence of edits, its result is exactly what Parse gives for the same
// text, broken text included. It also checks that the sequences exercise
// what makes ParseEdit fast: valid text with most top-level nodes reused.
func TestParseEditMatchesParse(t *testing.T) {
	seeds, steps := 3, 60
	if testing.Short() {
		seeds, steps = 1, 40
	}
	ctx := context.Background()
	for _, c := range editCorpus {
		orig := readCorpus(t, c.file, c.repeat)
		t.Run(c.path, func(t *testing.T) {
			inc, full := NewParser(), NewParser()
			defer inc.Close()
			defer full.Close()
			if pf, err := full.Parse(c.path, orig); err != nil || pf.SyntaxErrors {
				t.Fatalf("the original text does not parse cleanly: %v", err)
			}
			reused, islands := 0, 0
			for seed := range seeds {
				rng := rand.New(rand.NewPCG(uint64(seed), 7))
				text, good := orig, orig
				var dt *DocTree
				var history []string
				for step := 0; step <= steps; step++ {
					what := "open"
					if step > 0 {
						text, what = randomEdit(rng, text, good, orig)
					}
					history = append(history, what)
					got, next, err := inc.ParseEdit(ctx, c.path, dt, text)
					if err != nil {
						t.Fatalf("seed %d step %d (%s): %v", seed, step, what, err)
					}
					dt = next
					want, err := full.Parse(c.path, text)
					if err != nil {
						t.Fatal(err)
					}
					if !reflect.DeepEqual(got, want) {
						t.Fatalf("seed %d step %d: ParseEdit differs from Parse after %s\n%s",
							seed, step, strings.Join(history[max(0, len(history)-5):], "; "), diffParsed(got, want))
					}
					if !got.SyntaxErrors {
						good = text
						if dt.requeried < len(dt.recs.tops)/2 {
							reused++
						}
					}
					if dt.island {
						islands++
					}
				}
				dt.Close()
			}
			t.Logf("%d of %d edits gave valid text with most top-level nodes reused, %d re-parsed an island", reused, seeds*steps, islands)
			if reused < seeds*steps/10 || c.islands && islands < seeds*steps/40 {
				t.Errorf("only %d of %d edits gave valid text with most top-level nodes reused, %d re-parsed an island", reused, seeds*steps, islands)
			}
		})
	}
}

// diffParsed describes the first difference between two parse results.
func diffParsed(got, want *ParsedFile) string {
	if got.SyntaxErrors != want.SyntaxErrors {
		return fmt.Sprintf("SyntaxErrors %v, want %v", got.SyntaxErrors, want.SyntaxErrors)
	}
	for i := range max(len(got.Symbols), len(want.Symbols)) {
		switch {
		case i >= len(got.Symbols):
			return fmt.Sprintf("missing symbol %+v", want.Symbols[i])
		case i >= len(want.Symbols):
			return fmt.Sprintf("extra symbol %+v", got.Symbols[i])
		case got.Symbols[i] != want.Symbols[i]:
			return fmt.Sprintf("symbol %d:\n got %+v\nwant %+v", i, got.Symbols[i], want.Symbols[i])
		}
	}
	if !reflect.DeepEqual(got.Refs, want.Refs) {
		return fmt.Sprintf("refs:\n got %v\nwant %v", got.Refs, want.Refs)
	}
	return fmt.Sprintf("got %+v\nwant %+v", got, want)
}

// TestParseEditRequeriesOnlyTheEditedFunction checks that an edit inside
// one function of a large file runs the symbols query over that function
// alone, and that the file's other symbols come out unchanged but moved.
func TestParseEditRequeriesOnlyTheEditedFunction(t *testing.T) {
	p := NewParser()
	defer p.Close()
	ctx := context.Background()
	src := generatedGo(180)
	pf0, dt, err := p.ParseEdit(ctx, "gen.go", nil, src)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { dt.Close() }()
	if dt.requeried != len(dt.recs.tops) {
		t.Errorf("first parse queried %d of %d top-level nodes", dt.requeried, len(dt.recs.tops))
	}

	// Grow the body of Compute101 by a line: everything after it moves.
	at := bytes.Index(src, []byte("\t\treturn a - b + 101\n")) + 2
	edited := append(append(append([]byte(nil), src[:at]...), "a++\n\t\t"...), src[at:]...)
	pf, dt2, err := p.ParseEdit(ctx, "gen.go", dt, edited)
	dt = dt2
	if err != nil {
		t.Fatal(err)
	}
	if dt.requeried > 2 {
		t.Errorf("an edit inside one function re-queried %d top-level nodes", dt.requeried)
	}
	if len(pf.Symbols) != len(pf0.Symbols) {
		t.Fatalf("%d symbols after the edit, %d before", len(pf.Symbols), len(pf0.Symbols))
	}
	for i, s := range pf.Symbols {
		before := pf0.Symbols[i]
		shift := uint32(0)
		if before.StartByte > uint32(at) {
			shift = uint32(len("a++\n\t\t"))
		}
		if s.Qualified != before.Qualified || s.StartByte != before.StartByte+shift || s.Doc != before.Doc {
			t.Fatalf("symbol %d: %+v, was %+v", i, s, before)
		}
	}
	want, _ := p.Parse("gen.go", edited)
	if !reflect.DeepEqual(pf, want) {
		t.Errorf("differs from Parse: %s", diffParsed(pf, want))
	}

	// The same text again: nothing to parse or query.
	if _, dt2, err = p.ParseEdit(ctx, "gen.go", dt, edited); err != nil {
		t.Fatal(err)
	}
	dt = dt2
	if dt.requeried != 0 {
		t.Errorf("unchanged text re-queried %d nodes", dt.requeried)
	}

	// Typing on, in other functions, each edit is an island of its own.
	text := edited
	for _, n := range []int{7, 150, 101, 3} {
		at := bytes.Index(text, fmt.Appendf(nil, "\t\treturn a - b + %d\n", n)) + len("\t\treturn a")
		text = append(append(append([]byte(nil), text[:at]...), 'x'), text[at:]...)
		pf, dt2, err = p.ParseEdit(ctx, "gen.go", dt, text)
		dt = dt2
		if err != nil {
			t.Fatal(err)
		}
		if !dt.island || dt.requeried > 2 {
			t.Errorf("edit in Compute%d: island %v, re-queried %d top-level nodes", n, dt.island, dt.requeried)
		}
		if want, _ := p.Parse("gen.go", text); !reflect.DeepEqual(pf, want) {
			t.Errorf("edit in Compute%d differs from Parse: %s", n, diffParsed(pf, want))
		}
	}
}

// TestParseEditLifecycle covers what an editor session throws at a
// DocTree: a rename to another language, a doc file, an unsupported file,
// a cancelled parse, use after Close.
func TestParseEditLifecycle(t *testing.T) {
	p := NewParser()
	defer p.Close()
	ctx := context.Background()
	goSrc := readTestdata(t, "server.go")
	pySrc := readTestdata(t, "shapes.py")

	_, dt, err := p.ParseEdit(ctx, "server.go", nil, goSrc)
	if err != nil || dt == nil {
		t.Fatalf("ParseEdit = %v, %v", dt, err)
	}
	// Renamed to Python (a new language): a fresh tree, the right symbols.
	pf, dt, err := p.ParseEdit(ctx, "shapes.py", dt, pySrc)
	if err != nil {
		t.Fatal(err)
	}
	if want, _ := p.Parse("shapes.py", pySrc); !reflect.DeepEqual(pf, want) {
		t.Errorf("after a language change: %s", diffParsed(pf, want))
	}
	// A Markdown file is sectioned, with no tree to keep.
	pf, dt, err = p.ParseEdit(ctx, "README.md", dt, []byte("# Title\n\nSome text.\n"))
	if err != nil || dt != nil || pf.Language != LangMarkdown || len(pf.Symbols) == 0 {
		t.Fatalf("markdown: %+v, tree %v, err %v", pf, dt, err)
	}
	// An unsupported file is an error wrapping ErrUnsupported.
	_, dt, err = p.ParseEdit(ctx, "logo.png", nil, []byte("\x89PNG"))
	if !errors.Is(err, ErrUnsupported) || dt != nil {
		t.Errorf("png: tree %v, err %v", dt, err)
	}

	// A cancelled parse reports the cancellation and closes the old tree;
	// the next call starts afresh.
	_, dt, err = p.ParseEdit(ctx, "gen.go", nil, generatedGo(20))
	if err != nil {
		t.Fatal(err)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	old := dt
	_, dt, err = p.ParseEdit(cancelled, "gen.go", dt, generatedGo(400))
	if !errors.Is(err, context.Canceled) || dt != nil || old.tree != nil {
		t.Fatalf("cancelled: tree %v (old open: %v), err %v", dt, old.tree != nil, err)
	}
	pf, dt, err = p.ParseEdit(ctx, "gen.go", old, goSrc[:0:0])
	if err != nil || len(pf.Symbols) != 0 {
		t.Fatalf("after Close: %+v, %v", pf, err)
	}
	dt.Close()
	dt.Close() // harmless
	var none *DocTree
	none.Close()
}

func TestUnwrapRootPatterns(t *testing.T) {
	out, rootOnly, err := unwrapRootPatterns([]byte(`; comment (program (x))
(program [(a) (b)] @def.jsvar)
(function_declaration name: (identifier) @name) @def.function
"(program" @ref
(program (c (d) @name (#eq? @name "program")) @def.const)`), "program")
	if err != nil {
		t.Fatal(err)
	}
	if want := []bool{true, false, false, true}; !reflect.DeepEqual(rootOnly, want) {
		t.Errorf("rootOnly = %v, want %v", rootOnly, want)
	}
	if bytes.Contains(out[len("; comment (program (x))"):], []byte("(program ")) {
		t.Errorf("root wrapper left in:\n%s", out)
	}

	for _, bad := range []string{
		`(program (a) @def.var (b) @def.var)`,
		`(program (a))`,
		`(program (a) @def.var) @all`,
		`(program body: (a) @def.var)`,
		`(program . (a) @def.var)`,
		`(program (a)* @def.var)`,
		`(x (program (a) @def.var))`,
		`(_ (a) @def.var)`,
		`((comment) (function) @def.function)`,
		`(program (a) @def.var`,
	} {
		if _, _, err := unwrapRootPatterns([]byte(bad), "program"); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}

	// Every language's query has a top-level form.
	for _, spec := range codeLangs {
		cq, err := spec.compile()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := cq.topQuery(); err != nil {
			t.Errorf("%s: %v", spec.name, err)
		}
	}
}

func TestDiffEdit(t *testing.T) {
	for _, tc := range []struct {
		old, src               string
		start, oldEnd, newEnd  uint32
		startRow, newEndRow    uint32
		startCol, oldEndColumn uint32
	}{
		{"abc\ndef\n", "abc\ndXef\n", 5, 5, 6, 1, 1, 1, 1},
		{"abc\ndef\n", "abc\n", 4, 8, 4, 1, 1, 0, 0},
		{"", "x", 0, 0, 1, 0, 0, 0, 0},
		{"aaaa", "aaaaa", 4, 4, 5, 0, 0, 4, 4},
		{strings.Repeat("x", 200) + "\n" + strings.Repeat("y", 200), strings.Repeat("x", 200) + "\nz\n" + strings.Repeat("y", 200), 201, 201, 203, 1, 2, 0, 0},
	} {
		e := diffEdit([]byte(tc.old), []byte(tc.src))
		if e.StartIndex != tc.start || e.OldEndIndex != tc.oldEnd || e.NewEndIndex != tc.newEnd ||
			e.StartPoint.Row != tc.startRow || e.NewEndPoint.Row != tc.newEndRow ||
			e.StartPoint.Column != tc.startCol || e.OldEndPoint.Column != tc.oldEndColumn {
			t.Errorf("diffEdit(%.20q, %.20q) = %+v", tc.old, tc.src, e)
		}
	}
}

// BenchmarkParseEdit is one keystroke in the body of one function of a
// 2,000-line Go file (the edit of lsp's BenchmarkEditToFreshIndex), parsed
// with ParseEdit; BenchmarkParseGo is the same file parsed from scratch.
func BenchmarkParseEdit(b *testing.B) {
	for _, tc := range []struct {
		name, path string
		src        []byte
		target     string
		offset     int // where in target to type an x
	}{
		{"go", "gen.go", generatedGo(180), "\t\treturn a - b + 101\n", len("\t\treturn a")},
		{"ts", "gen.ts", generatedTS(100), "res.body.toString();\n  }\n}\n\nexport const make51 ", 1},
	} {
		b.Run(tc.name, func(b *testing.B) {
			p := NewParser()
			defer p.Close()
			ctx := context.Background()
			at := bytes.Index(tc.src, []byte(tc.target))
			if at < 0 {
				b.Fatal("no edit target")
			}
			at += tc.offset
			texts := [2][]byte{tc.src, append(append(append([]byte(nil), tc.src[:at]...), 'x'), tc.src[at:]...)}
			_, dt, err := p.ParseEdit(ctx, tc.path, nil, tc.src)
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(len(tc.src)))
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				if _, dt, err = p.ParseEdit(ctx, tc.path, dt, texts[(i+1)%2]); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			dt.Close()
		})
	}
}
