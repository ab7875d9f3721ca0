// Command archcheck checks the module's structure against the limits of
// issue 21: no package has more than 15 non-test files or more than 10
// arrows between its files that run back up, and no non-test function is
// longer than 80 lines.
//
//	go run ./scripts/archcheck [-v] [dir]
//
// It walks the module from its root (the nearest go.mod above dir, default
// the working directory), skipping node_modules, testdata, vendor, editors/
// and hidden directories, and parses every package directory's non-test
// files with go/parser alone (no type checking).
//
// The file graph: file A → file B when A names something B declares at top
// level (a type, func, var or const; names that a local declaration shadows
// do not count, as go/parser resolves them), and when A selects x.M where M
// is the name of a method that B declares (without types, every file that
// declares a method M counts). Arrows that run back up are those left after
// ordering the files of each strongly connected component with the
// Eades–Lin–Smyth heuristic for a minimum feedback arc set.
//
// It prints one line per package over a limit and a summary line, and exits
// with status 1 when any limit is exceeded.
package main

import (
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"
)

// The limits of issue 21.
const (
	maxFiles      = 15
	maxBackArrows = 10
	maxFuncLines  = 80
)

// function is one non-test function or method declaration.
type function struct {
	File  string // base name
	Line  int    // line of the func keyword
	Name  string // "Name" or "Recv.Name"
	Lines int    // from the func line to the closing brace, inclusive
}

// arrow is one file → file reference inside a package.
type arrow struct{ From, To string }

func (a arrow) String() string { return a.From + " → " + a.To }

// pkgReport holds one package directory's figures.
type pkgReport struct {
	Dir        string // slash-separated, relative to the module root; "." for the root
	Files      int    // non-test .go files
	Arrows     []arrow
	BackArrows []arrow
	Funcs      []function // every function, longest first
}

// longFuncs returns the functions over the line limit, longest first.
func (p *pkgReport) longFuncs() []function {
	var out []function
	for _, f := range p.Funcs {
		if f.Lines > maxFuncLines {
			out = append(out, f)
		}
	}
	return out
}

func (p *pkgReport) over() bool {
	return p.Files > maxFiles || len(p.BackArrows) > maxBackArrows || len(p.longFuncs()) > 0
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run is the command: it returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	flags := flag.NewFlagSet("archcheck", flag.ContinueOnError)
	flags.SetOutput(stderr)
	verbose := flags.Bool("v", false, "print every package's figures")
	if err := flags.Parse(args); err != nil {
		return 2
	}
	start := "."
	if flags.NArg() > 0 {
		start = flags.Arg(0)
	}
	root, err := moduleRoot(start)
	if err != nil {
		fmt.Fprintln(stderr, "archcheck:", err)
		return 2
	}
	reports, err := check(root)
	if err != nil {
		fmt.Fprintln(stderr, "archcheck:", err)
		return 2
	}
	if *verbose {
		printFigures(stdout, reports)
	}
	over := 0
	for _, p := range reports {
		if p.over() {
			over++
			fmt.Fprintln(stdout, overLine(p))
		}
	}
	if over > 0 {
		fmt.Fprintf(stdout, "archcheck: %d of %d packages over a limit (files %d, back arrows %d, function lines %d)\n",
			over, len(reports), maxFiles, maxBackArrows, maxFuncLines)
		return 1
	}
	fmt.Fprintf(stdout, "archcheck: %d packages within the limits (files %d, back arrows %d, function lines %d)\n",
		len(reports), maxFiles, maxBackArrows, maxFuncLines)
	return 0
}

// moduleRoot returns the nearest directory at or above dir holding a go.mod.
func moduleRoot(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for d := abs; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d, nil
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("no go.mod at or above %s", abs)
		}
	}
}

// check walks the module at root and reports every package directory.
func check(root string) ([]*pkgReport, error) {
	var reports []*pkgReport
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		if path != root && skipDir(root, path, d.Name()) {
			return filepath.SkipDir
		}
		p, err := checkDir(root, path)
		if err != nil {
			return err
		}
		if p != nil {
			reports = append(reports, p)
		}
		return nil
	})
	return reports, err
}

func skipDir(root, path, name string) bool {
	switch name {
	case "node_modules", "testdata", "vendor":
		return true
	}
	if strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") {
		return true
	}
	if name == "editors" && filepath.Dir(path) == root {
		return true
	}
	// A nested module is not part of this one.
	_, err := os.Stat(filepath.Join(path, "go.mod"))
	return err == nil
}

// checkDir reports the package in dir, or nil when dir holds no non-test Go
// file. Files excluded by a "//go:build ignore" line are not in the package.
func checkDir(root, dir string) (*pkgReport, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	fset := token.NewFileSet()
	files := map[string]*ast.File{}
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.ParseComments)
		if err != nil {
			return nil, err
		}
		if !ignored(f) {
			files[name] = f
		}
	}
	if len(files) == 0 {
		return nil, nil
	}
	rel, err := filepath.Rel(root, dir)
	if err != nil {
		return nil, err
	}
	p := &pkgReport{Dir: filepath.ToSlash(rel), Files: len(files)}
	p.Funcs = functions(fset, files)
	p.Arrows = fileGraph(files)
	p.BackArrows = backArrows(p.Arrows)
	return p, nil
}

// ignored reports whether f carries the build constraint "ignore".
func ignored(f *ast.File) bool {
	for _, g := range f.Comments {
		if g.Pos() > f.Package {
			break
		}
		for _, c := range g.List {
			if strings.TrimSpace(c.Text) == "//go:build ignore" {
				return true
			}
		}
	}
	return false
}

// functions lists the function declarations with a body, longest first.
func functions(fset *token.FileSet, files map[string]*ast.File) []function {
	var out []function
	for name, f := range files {
		for _, decl := range f.Decls {
			fd, ok := decl.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			start := fset.Position(fd.Pos()).Line
			end := fset.Position(fd.End()).Line
			out = append(out, function{File: name, Line: start, Name: funcName(fd), Lines: end - start + 1})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Lines != b.Lines {
			return a.Lines > b.Lines
		}
		if a.File != b.File {
			return a.File < b.File
		}
		return a.Line < b.Line
	})
	return out
}

func funcName(fd *ast.FuncDecl) string {
	if fd.Recv == nil || len(fd.Recv.List) == 0 {
		return fd.Name.Name
	}
	return recvType(fd.Recv.List[0].Type) + "." + fd.Name.Name
}

// recvType names a receiver's base type: *T, T[P] and *T[P] are all T.
func recvType(e ast.Expr) string {
	for {
		switch t := e.(type) {
		case *ast.StarExpr:
			e = t.X
		case *ast.IndexExpr:
			e = t.X
		case *ast.IndexListExpr:
			e = t.X
		case *ast.ParenExpr:
			e = t.X
		case *ast.Ident:
			return t.Name
		default:
			return "?"
		}
	}
}

// declarations maps the package's top-level names and method names to the
// files that declare them.
func declarations(files map[string]*ast.File) (names, methods map[string][]string) {
	names, methods = map[string][]string{}, map[string][]string{}
	for file, f := range files {
		for _, decl := range f.Decls {
			switch d := decl.(type) {
			case *ast.FuncDecl:
				if d.Recv != nil {
					methods[d.Name.Name] = append(methods[d.Name.Name], file)
				} else if d.Name.Name != "init" {
					names[d.Name.Name] = append(names[d.Name.Name], file)
				}
			case *ast.GenDecl:
				for _, spec := range d.Specs {
					for _, id := range specNames(spec) {
						if id.Name != "_" {
							names[id.Name] = append(names[id.Name], file)
						}
					}
				}
			}
		}
	}
	return names, methods
}

func specNames(spec ast.Spec) []*ast.Ident {
	switch s := spec.(type) {
	case *ast.TypeSpec:
		return []*ast.Ident{s.Name}
	case *ast.ValueSpec:
		return s.Names
	}
	return nil
}

// fileGraph returns the arrows between the package's files, sorted.
func fileGraph(files map[string]*ast.File) []arrow {
	names, methods := declarations(files)
	set := map[arrow]bool{}
	add := func(from string, to []string) {
		for _, t := range to {
			if t != from {
				set[arrow{from, t}] = true
			}
		}
	}
	for file, f := range files {
		// Identifiers go/parser could not resolve inside the file are
		// package-level names from other files, imports or predeclared.
		for _, id := range f.Unresolved {
			add(file, names[id.Name])
		}
		ast.Inspect(f, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if ok && !qualifier(sel.X, names) && !slices.Contains(methods[sel.Sel.Name], file) {
				// Without types x.M is any file's method M; a file
				// that declares an M itself is taken to call its own
				// (Lexical.Has in lexical.go, not Index.Has).
				add(file, methods[sel.Sel.Name])
			}
			return true
		})
	}
	arrows := make([]arrow, 0, len(set))
	for a := range set {
		arrows = append(arrows, a)
	}
	sortArrows(arrows)
	return arrows
}

// qualifier reports whether x in x.M is an imported package's name: an
// identifier resolved neither in its file nor at package level.
func qualifier(x ast.Expr, names map[string][]string) bool {
	id, ok := x.(*ast.Ident)
	return ok && id.Obj == nil && len(names[id.Name]) == 0
}

func sortArrows(arrows []arrow) {
	sort.Slice(arrows, func(i, j int) bool {
		if arrows[i].From != arrows[j].From {
			return arrows[i].From < arrows[j].From
		}
		return arrows[i].To < arrows[j].To
	})
}

// backArrows orders the files of every strongly connected component of more
// than one file with the Eades–Lin–Smyth heuristic and returns the arrows
// that go from a later file to an earlier one.
func backArrows(arrows []arrow) []arrow {
	var back []arrow
	for _, comp := range components(arrows) {
		if len(comp) < 2 {
			continue
		}
		in := map[string]bool{}
		for _, f := range comp {
			in[f] = true
		}
		var inner []arrow
		for _, a := range arrows {
			if in[a.From] && in[a.To] {
				inner = append(inner, a)
			}
		}
		pos := map[string]int{}
		for i, f := range eadesOrder(comp, inner) {
			pos[f] = i
		}
		for _, a := range inner {
			if pos[a.From] > pos[a.To] {
				back = append(back, a)
			}
		}
	}
	sortArrows(back)
	return back
}

// components returns the strongly connected components (Tarjan).
func components(arrows []arrow) [][]string {
	succ := map[string][]string{}
	nodes := map[string]bool{}
	for _, a := range arrows {
		succ[a.From] = append(succ[a.From], a.To)
		nodes[a.From], nodes[a.To] = true, true
	}
	order := sortedKeys(nodes)
	index, low, onStack := map[string]int{}, map[string]int{}, map[string]bool{}
	var stack []string
	var comps [][]string
	var visit func(v string)
	visit = func(v string) {
		index[v], low[v] = len(index), len(index)
		stack = append(stack, v)
		onStack[v] = true
		for _, w := range succ[v] {
			if _, seen := index[w]; !seen {
				visit(w)
				low[v] = min(low[v], low[w])
			} else if onStack[w] {
				low[v] = min(low[v], index[w])
			}
		}
		if low[v] != index[v] {
			return
		}
		var comp []string
		for {
			w := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			onStack[w] = false
			comp = append(comp, w)
			if w == v {
				break
			}
		}
		sort.Strings(comp)
		comps = append(comps, comp)
	}
	for _, v := range order {
		if _, seen := index[v]; !seen {
			visit(v)
		}
	}
	return comps
}

// eadesOrder orders nodes so that few arrows run backwards: sinks go to the
// end, sources to the front, and otherwise the node with the largest
// out-degree minus in-degree goes to the front. Ties go to the first name.
func eadesOrder(nodes []string, arrows []arrow) []string {
	left := map[string]bool{}
	for _, n := range nodes {
		left[n] = true
	}
	degree := func(n string) (in, out int) {
		for _, a := range arrows {
			if a.From == n && left[a.To] {
				out++
			}
			if a.To == n && left[a.From] {
				in++
			}
		}
		return in, out
	}
	var front, back []string
	take := func(n string) { delete(left, n) }
	for len(left) > 0 {
		if n, ok := find(left, func(n string) bool { _, out := degree(n); return out == 0 }); ok {
			back = append([]string{n}, back...)
			take(n)
			continue
		}
		if n, ok := find(left, func(n string) bool { in, _ := degree(n); return in == 0 }); ok {
			front = append(front, n)
			take(n)
			continue
		}
		best, bestDelta := "", 0
		for _, n := range sortedKeys(left) {
			in, out := degree(n)
			if best == "" || out-in > bestDelta {
				best, bestDelta = n, out-in
			}
		}
		front = append(front, best)
		take(best)
	}
	return append(front, back...)
}

// find returns the first node, by name, for which ok holds.
func find(nodes map[string]bool, ok func(string) bool) (string, bool) {
	for _, n := range sortedKeys(nodes) {
		if ok(n) {
			return n, true
		}
	}
	return "", false
}

func sortedKeys(m map[string]bool) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// overLine is the one line naming what a package exceeds.
func overLine(p *pkgReport) string {
	var parts []string
	if p.Files > maxFiles {
		parts = append(parts, fmt.Sprintf("%d non-test files (limit %d)", p.Files, maxFiles))
	}
	if n := len(p.BackArrows); n > maxBackArrows {
		list := make([]string, n)
		for i, a := range p.BackArrows {
			list[i] = a.String()
		}
		parts = append(parts, fmt.Sprintf("%d back arrows (limit %d): %s", n, maxBackArrows, strings.Join(list, ", ")))
	}
	if long := p.longFuncs(); len(long) > 0 {
		list := make([]string, len(long))
		for i, f := range long {
			list[i] = fmt.Sprintf("%s:%d %s %d", f.File, f.Line, f.Name, f.Lines)
		}
		parts = append(parts, fmt.Sprintf("%d functions over %d lines: %s", len(long), maxFuncLines, strings.Join(list, ", ")))
	}
	return p.Dir + ": " + strings.Join(parts, "; ")
}

// printFigures prints a table of every package's figures.
func printFigures(w io.Writer, reports []*pkgReport) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "package\tfiles\tarrows\tback\tlongest\t")
	for _, p := range reports {
		longest := "-"
		if len(p.Funcs) > 0 {
			f := p.Funcs[0]
			longest = fmt.Sprintf("%d %s:%d %s", f.Lines, f.File, f.Line, f.Name)
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%s\t\n", p.Dir, p.Files, len(p.Arrows), len(p.BackArrows), longest)
	}
	tw.Flush()
}
