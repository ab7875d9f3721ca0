package main

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// writeModule writes a module holding one package, p, with the given files.
func writeModule(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	files["go.mod"] = "module example.com/m\n\ngo 1.22\n"
	for name, text := range files {
		path := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// body returns n statement lines.
func body(n int) string {
	return strings.Repeat("\tx++\n", n)
}

func TestCycleAndLongFunction(t *testing.T) {
	root := writeModule(t, map[string]string{
		// a.go → b.go (type B), b.go → c.go (func c), c.go → a.go (method
		// call x.Run on A): one cycle, so one arrow runs back up.
		"p/a.go": "package p\n\ntype A struct{ b B }\n\nfunc (a *A) Run() int { return 1 }\n",
		"p/b.go": "package p\n\ntype B int\n\nfunc (B) get() int { return c() }\n",
		"p/c.go": "package p\n\nfunc c() int {\n\tvar x *A\n\treturn x.Run()\n}\n\n" +
			// 81 lines, from func to the closing brace.
			"func long() {\n\tx := 0\n" + body(78) + "}\n\n" +
			// 80 lines: at the limit, not over it.
			"func fits() {\n\tx := 0\n" + body(77) + "}\n",
		// A local B shadows the type in b.go: no arrow d.go → b.go.
		"p/d.go": "package p\n\nfunc d() int {\n\tB := 2\n\treturn B\n}\n",
		// Tests, testdata and node_modules are not counted.
		"p/a_test.go":              "package p\n\nfunc helper() {\n" + body(100) + "}\n",
		"p/testdata/x/x.go":        "package x\n",
		"node_modules/y/y.go":      "package y\n",
		"p/ignored.go":             "//go:build ignore\n\npackage main\n",
		"q/q.go":                   "package q\n",
		"editors/vscode/z/z.go":    "package z\n",
		"p/internal/r/r.go":        "package r\n",
		"p/internal/r/r_test.go":   "package r\n",
		"p/internal/r/readme.txt":  "not Go\n",
		"p/internal/empty/doc.txt": "no Go files here\n",
	})

	reports, err := check(root)
	if err != nil {
		t.Fatal(err)
	}
	var dirs []string
	var p *pkgReport
	for _, r := range reports {
		dirs = append(dirs, r.Dir)
		if r.Dir == "p" {
			p = r
		}
	}
	if want := []string{"p", "p/internal/r", "q"}; !reflect.DeepEqual(dirs, want) {
		t.Fatalf("packages = %v, want %v", dirs, want)
	}
	if p.Files != 4 {
		t.Errorf("p has %d non-test files, want 4", p.Files)
	}
	wantArrows := []arrow{{"a.go", "b.go"}, {"b.go", "c.go"}, {"c.go", "a.go"}}
	if !reflect.DeepEqual(p.Arrows, wantArrows) {
		t.Errorf("arrows = %v, want %v", p.Arrows, wantArrows)
	}
	if want := []arrow{{"c.go", "a.go"}}; !reflect.DeepEqual(p.BackArrows, want) {
		t.Errorf("back arrows = %v, want %v", p.BackArrows, want)
	}
	want := []function{{File: "c.go", Line: 8, Name: "long", Lines: 81}}
	if got := p.longFuncs(); !reflect.DeepEqual(got, want) {
		t.Errorf("functions over %d lines = %+v, want %+v", maxFuncLines, got, want)
	}

	var out, errOut bytes.Buffer
	if code := run([]string{root}, &out, &errOut); code != 1 {
		t.Fatalf("exit status %d, want 1; stdout:\n%s\nstderr:\n%s", code, &out, &errOut)
	}
	if !strings.Contains(out.String(), "p: 1 functions over 80 lines: c.go:8 long 81") {
		t.Errorf("output does not name the long function:\n%s", &out)
	}
}

func TestBackArrowsOverLimit(t *testing.T) {
	// Twelve files in a ring plus arrows back along it: f00 → f01 → ... →
	// f11 → f00, and every fNN also calls the previous file's function.
	files := map[string]string{}
	const n = 12
	for i := range n {
		next, prev := (i+1)%n, (i+n-1)%n
		files[name(i)] = "package p\n\nfunc " + fn(i) + "() { " + fn(next) + "(); " + fn(prev) + "() }\n"
	}
	root := writeModule(t, prefix(files, "p/"))
	reports, err := check(root)
	if err != nil {
		t.Fatal(err)
	}
	p := reports[0]
	if len(p.Arrows) != 2*n {
		t.Fatalf("%d arrows, want %d", len(p.Arrows), 2*n)
	}
	// Any order of a ring with arrows both ways leaves at least half of
	// them running back; the heuristic finds that minimum, n.
	if len(p.BackArrows) != n {
		t.Errorf("%d back arrows, want %d: %v", len(p.BackArrows), n, p.BackArrows)
	}
	var out bytes.Buffer
	if code := run([]string{root}, &out, &out); code != 1 {
		t.Fatalf("exit status %d, want 1:\n%s", code, &out)
	}
	if !strings.Contains(out.String(), "p: 12 back arrows (limit 10): ") {
		t.Errorf("output does not report the back arrows:\n%s", &out)
	}
}

func TestWithinLimits(t *testing.T) {
	root := writeModule(t, map[string]string{
		"p/a.go": "package p\n\nfunc a() { b() }\n",
		"p/b.go": "package p\n\nfunc b() {}\n",
	})
	var out bytes.Buffer
	if code := run([]string{"-v", root}, &out, &out); code != 0 {
		t.Fatalf("exit status %d, want 0:\n%s", code, &out)
	}
	if !strings.Contains(out.String(), "archcheck: 1 packages within the limits") {
		t.Errorf("no summary line:\n%s", &out)
	}
}

func name(i int) string { return fn(i) + ".go" }

func fn(i int) string { return "f" + string(rune('a'+i)) }

func prefix(files map[string]string, dir string) map[string]string {
	out := map[string]string{}
	for k, v := range files {
		out[dir+k] = v
	}
	return out
}
