package glob

import (
	"strings"
	"testing"
)

func TestGlobMatch(t *testing.T) {
	tests := []struct {
		pattern string
		yes     []string
		no      []string
	}{
		// No "/": the base name (or any directory name) at any depth.
		{"*.go", []string{"main.go", "a/b/c.go", "./x.go"}, []string{"main.gox", "go", "a/main.go.txt"}},
		{"node_modules", []string{"node_modules", "a/node_modules/x/y.js"}, []string{"node_modules2/x", "a/node_module"}},
		{"?.go", []string{"a.go", "dir/é.go"}, []string{"ab.go", ".go"}},
		// With "/": anchored at the root.
		{"src/*.go", []string{"src/a.go"}, []string{"a/src/a.go", "src/x/a.go.txt", "src/a.js"}},
		{"/main.go", []string{"main.go"}, []string{"cmd/main.go"}},
		// "**" is zero or more segments.
		{"**/*_test.go", []string{"a_test.go", "x/y/a_test.go"}, []string{"x/y/a.go", "x/a_test.go.txt"}},
		{"a/**/b", []string{"a/b", "a/x/b", "a/x/y/b", "a/x/b/c.go"}, []string{"b", "x/a/b", "a/bb"}},
		{"**", []string{"a", "a/b/c"}, nil},
		{"a**b/c", []string{"ab/c", "axxb/c"}, []string{"a/b/c"}},
		// A directory matches everything under it.
		{"gen/", []string{"gen", "gen/x.go", "gen/x/y.go", "a/gen/x.go"}, []string{"generated/x.go", "a/gen.go"}},
		{"docs/**", []string{"docs/a.md", "docs/x/y.md"}, []string{"mydocs/a.md", "x/docs/a.md"}},
		{"**/testdata", []string{"testdata/x", "a/testdata/b/c.txt"}, []string{"a/testdata2/x"}},
		// Classes.
		{"file[0-9].txt", []string{"file1.txt", "d/file9.txt"}, []string{"filea.txt", "file10.txt"}},
		{"[!a-c]*.go", []string{"d.go", "zz.go"}, []string{"a.go", "cat.go"}},
		{"[^a-c]*.go", []string{"d.go"}, []string{"b.go"}},
		{"[]x].md", []string{"].md", "x.md"}, []string{"y.md"}},
		{"[é-ë]", []string{"ê"}, []string{"e"}},
		// Alternation, nested and spanning "/".
		{"*.{go,rs}", []string{"a.go", "b/c.rs"}, []string{"a.py"}},
		{"{src,lib}/**/*.ts", []string{"src/a.ts", "lib/x/y.ts"}, []string{"test/a.ts"}},
		{"{a/b,c}.txt", []string{"a/b.txt", "c.txt", "x/c.txt"}, []string{"a/x.txt", "x/a/b.txt"}},
		{"x.{a,{b,c}}", []string{"x.a", "x.c"}, []string{"x.d"}},
		{"{,x}y", []string{"y", "xy"}, []string{"zy"}},
		// Escapes.
		{`\*.go`, []string{"*.go"}, []string{"a.go"}},
		{`a\{b\}`, []string{"a{b}"}, []string{"ab"}},
		{"[{]x", []string{"{x"}, []string{"x"}},
		// Star does not cross "/".
		{"a/*", []string{"a/b", "a/b/c"}, []string{"a"}},
		{"a*/c", []string{"ab/c"}, []string{"a/b/c"}},
	}
	for _, tc := range tests {
		g, err := Compile(tc.pattern)
		if err != nil {
			t.Errorf("Compile(%q): %v", tc.pattern, err)
			continue
		}
		for _, p := range tc.yes {
			if !g.Match(p) {
				t.Errorf("%q should match %q", tc.pattern, p)
			}
		}
		for _, p := range tc.no {
			if g.Match(p) {
				t.Errorf("%q should not match %q", tc.pattern, p)
			}
		}
	}
}

func TestGlobBacktracking(t *testing.T) {
	// Patterns that defeat a naive greedy matcher.
	g := mustGlob(t, "a/**/b/**/c.go")
	for _, p := range []string{"a/b/c.go", "a/b/b/c.go", "a/x/b/y/b/z/c.go", "a/b/x/b/c.go"} {
		if !g.Match(p) {
			t.Errorf("%q should match %q", g, p)
		}
	}
	if g.Match("a/b/x/c.gox") || g.Match("a/c.go") {
		t.Errorf("%q matched a path without b/ or c.go", g)
	}
	g = mustGlob(t, "*ab*ab*c")
	if !g.Match("xabyabababzc") || g.Match("xabyabz") {
		t.Errorf("%q: wrong answer on a backtracking case", g)
	}
}

func TestCompileGlobErrors(t *testing.T) {
	tests := []struct{ pattern, want string }{
		{"", "empty pattern"},
		{"a[bc", `unclosed "["`},
		{"a[]", `unclosed "["`},
		{"{a,b", `unclosed "{"`},
		{"a}b", `unmatched "}"`},
		{`a\`, `trailing "\"`},
		{"[z-a]", "bad range"},
		{"/", "matches nothing"},
		{strings.Repeat("{a,b}", 11), "alternatives"},
	}
	for _, tc := range tests {
		_, err := Compile(tc.pattern)
		if err == nil {
			t.Errorf("Compile(%q) succeeded, want error %q", tc.pattern, tc.want)
			continue
		}
		if !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), `"`+strings.ReplaceAll(tc.pattern, `\`, `\\`)+`"`) {
			t.Errorf("Compile(%q) error %q, want it to quote the pattern and say %q", tc.pattern, err, tc.want)
		}
	}
}

func TestGlobSet(t *testing.T) {
	s, err := CompileSet([]string{"**/*_test.go", "docs/**"})
	if err != nil {
		t.Fatal(err)
	}
	if s.Len() != 2 {
		t.Errorf("Len = %d, want 2", s.Len())
	}
	for p, want := range map[string]bool{"a/b_test.go": true, "docs/x.md": true, "a/b.go": false, "x/docs/a.md": false} {
		if got := s.MatchAny(p); got != want {
			t.Errorf("MatchAny(%q) = %v, want %v", p, got, want)
		}
	}
	var empty *Set
	if empty.MatchAny("a.go") || empty.Len() != 0 {
		t.Error("nil Set should match nothing")
	}
	_, err = CompileSet([]string{"ok/**", "bad["})
	if err == nil || !strings.Contains(err.Error(), `"bad["`) {
		t.Errorf("CompileSet error = %v, want it to name \"bad[\"", err)
	}
}

func TestGlobMatchDoesNotAllocate(t *testing.T) {
	s, err := CompileSet([]string{"**/*_test.go", "{src,lib}/**/gen/*.{pb,gen}.go", "node_modules", "file[0-9]?.txt"})
	if err != nil {
		t.Fatal(err)
	}
	paths := []string{"a/b/c/d_test.go", "src/x/y/gen/z.pb.go", "lib/a/node_modules/b.js", "deep/er/file12.txt", "nothing/here.go"}
	allocs := testing.AllocsPerRun(100, func() {
		for _, p := range paths {
			s.MatchAny(p)
		}
	})
	if allocs != 0 {
		t.Errorf("MatchAny allocates %v times per run, want 0", allocs)
	}
}

func mustGlob(t testing.TB, pattern string) *Glob {
	t.Helper()
	g, err := Compile(pattern)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func BenchmarkGlobSetMatchAny(b *testing.B) {
	s, err := CompileSet([]string{"**/*_test.go", "{src,lib}/**/gen/*.{pb,gen}.go", "node_modules", "docs/", "*.min.js"})
	if err != nil {
		b.Fatal(err)
	}
	paths := []string{"internal/server/handler/handler.go", "src/x/y/gen/z.pb.go", "web/static/app.min.js", "README.md"}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		s.MatchAny(paths[i%len(paths)])
	}
}
