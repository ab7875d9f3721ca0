package workspace

import (
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/heuristics"
)

// withoutSource turns one source off for the test.
func withoutSource(t *testing.T, src heuristics.Source) {
	old := heuristics.Weights
	heuristics.Weights[src] = 0
	t.Cleanup(func() { heuristics.Weights = old })
}

// firstOther is the first file of an answer other than active, and its
// item's signals.
func firstOther(sel *Selection, active string) (string, map[string]Signal) {
	for _, it := range sel.Items {
		if it.Path != active {
			return it.Path, it.Signals
		}
	}
	return "", nil
}

// wantFirstOther checks that want is the answer's first file other than
// active, led by signal at rank 1; why says what brings it.
func wantFirstOther(t *testing.T, sel *Selection, active, want, signal, why string) {
	t.Helper()
	if got, sig := firstOther(sel, active); got != want {
		t.Errorf("first other file %q, want %s (%s):%s", got, want, why, selString(sel))
	} else if s, ok := sig[signal]; !ok || s.Rank != 1 {
		t.Errorf("%s: %s signal %+v (present %v), want rank 1", want, signal, s, ok)
	}
}

// TestCoHistory: with core/a.go open, a request worded like the one past
// commit that changed it together with feed/b.go brings feed/b.go first,
// though store/c.go changed with it four times as often and a commit
// worded the same way changed store/c.go and sink/d.go; without the
// source, store/c.go comes first.
func TestCoHistory(t *testing.T) {
	r := newHistRepo(t)
	files := func(v map[string]string) map[string]string {
		return map[string]string{
			"core/a.go":  goFuncs("core", []string{"Alpha", "Beta"}, map[string]string{"Alpha": v["a"]}),
			"feed/b.go":  goFuncs("feed", []string{"Gamma", "Delta"}, map[string]string{"Gamma": v["b"]}),
			"store/c.go": goFuncs("store", []string{"Kappa", "Lambda"}, map[string]string{"Kappa": v["c"]}),
			"sink/d.go":  goFuncs("sink", []string{"Sigma", "Omega"}, map[string]string{"Sigma": v["d"]}),
		}
	}
	v := map[string]string{"a": "0", "b": "0", "c": "0", "d": "0"}
	r.commit("initial import", files(v))
	for i, n := range []string{"1", "2", "3", "4"} {
		v["a"], v["c"] = n, n
		r.commit("tidy the books, part "+n, files(v))
		if i == 1 {
			v["a"], v["b"] = "7", "7"
			r.commit("retry the upload when the server times out", files(v))
			v["c"], v["d"] = "8", "8"
			r.commit("retry the upload when the proxy times out", files(v))
		}
	}
	active := "core/a.go"
	req := &SelectRequest{Query: "retry the upload when the connection times out", Active: filepath.Join(r.dir, "core", "a.go"), Limit: 8, IncludeItems: CodeOnly()}
	ws := histWorkspace(t, r.dir)
	sel := selDo(t, ws, req)
	wantFirstOther(t, sel, active, "feed/b.go", "cohistory", "changed with core/a.go in the commit worded like this")
	withoutSource(t, heuristics.SrcCoHistory)
	ws = histWorkspace(t, r.dir)
	if got, _ := firstOther(selDo(t, ws, req), active); got == "feed/b.go" {
		t.Errorf("without the cohistory source feed/b.go still comes first: the test shows nothing")
	}
}

// TestNeighbours: with a file open and no cursor, the request's words
// pick the function it is about (Reconcile), and the function that one
// calls, in another file, comes before the one its neighbour (Export)
// calls, which the reference graph of the whole file ranks the same (and
// the embedder's noise puts first without the source); with the cursor
// in Export, the other way round.
func TestNeighbours(t *testing.T) {
	r := newHistRepo(t)
	r.commit("initial import", map[string]string{
		"core/books.go": "package core\n\nimport (\n\t\"example.com/m/areport\"\n\t\"example.com/m/zledger\"\n)\n\n" +
			"// Reconcile matches the accounts against the bank.\nfunc Reconcile() int {\n\treturn areport.Vxk(1)\n}\n\n" +
			"// Export writes the books out.\nfunc Export() int {\n\treturn zledger.Wqz(2)\n}\n",
		"zledger/append.go":  "package zledger\n\n// Wqz is step wqz.\nfunc Wqz(n int) int {\n\treturn n + 1\n}\n",
		"areport/render.go":  "package areport\n\n// Vxk is step vxk.\nfunc Vxk(n int) int {\n\treturn n + 1\n}\n",
		"misc/unrelated.go":  "package misc\n\n// Noop does nothing.\nfunc Noop() {}\n",
		"misc/unrelated2.go": "package misc\n\n// Noop2 does nothing either.\nfunc Noop2() {}\n",
	})
	active := "core/books.go"
	abs := filepath.Join(r.dir, "core", "books.go")
	ask := func(ws *Workspace, cursor *Cursor) (string, *Selection) {
		sel := selDo(t, ws, &SelectRequest{Query: "reconcile the accounts twice a day", Active: abs, Cursor: cursor, Limit: 8, IncludeItems: CodeOnly()})
		got, _ := firstOther(sel, active)
		return got, sel
	}
	ws := histWorkspace(t, r.dir)
	_, sel := ask(ws, nil)
	wantFirstOther(t, sel, active, "areport/render.go", "neighbour", "Reconcile calls Vxk")
	// Export is lines 14-17 (0-based 13-16).
	if got, sel := ask(ws, &Cursor{Line: 14}); got != "zledger/append.go" {
		t.Errorf("with the cursor in Export, first other file %q, want zledger/append.go (Export calls Wqz):%s", got, selString(sel))
	}
	withoutSource(t, heuristics.SrcNeighbour)
	ws = histWorkspace(t, r.dir)
	if got, _ := ask(ws, nil); got == "areport/render.go" {
		t.Errorf("without the neighbour source areport/render.go still comes first: the test shows nothing")
	}
}

// TestSiblings: with middleware/static.go open, its platform variant
// static_other.go, which shares no word with the request, comes before a
// file beside it that the request's words match, and its why says so;
// static_test.go and statistics.go are no siblings. Without the source,
// the match comes first.
func TestSiblings(t *testing.T) {
	r := newHistRepo(t)
	r.commit("initial import", map[string]string{
		"middleware/static.go": "package middleware\n\n// Static serves the files of a directory.\nfunc Static(root string) error {\n\treturn openIgnorable(root)\n}\n\n" +
			"// StaticWithConfig serves files with options.\nfunc StaticWithConfig(root string, browse bool) error {\n\treturn Static(root)\n}\n",
		"middleware/static_other.go": "//go:build !windows\n\npackage middleware\n\n// openIgnorable reports whether an error may be passed over.\nfunc openIgnorable(p string) error {\n\treturn nil\n}\n",
		"middleware/static_test.go":  "package middleware\n\nimport \"testing\"\n\nfunc TestStatic(t *testing.T) {\n\t_ = Static(\"x\")\n}\n",
		"middleware/statistics.go":   "package middleware\n\n// Count counts requests.\nfunc Count() int {\n\treturn 1\n}\n",
		"middleware/proxy.go":        "package middleware\n\n// Proxy forwards requests that reach beyond the root to another server.\nfunc Proxy(target string) error {\n\treturn nil\n}\n",
	})
	active := "middleware/static.go"
	req := &SelectRequest{Query: "reject paths that climb beyond the root", Active: filepath.Join(r.dir, "middleware", "static.go"), Limit: 8, IncludeItems: CodeOnly()}
	wantSiblingFirst(t, r.dir, req, active, "middleware/static_other.go", "static.go's variant", "named like static.go, the file you have open")
}

// TestSiblingsTestsByConvention: a file whose name merely holds "test"
// (latest.go) has siblings like any other (latest_windows.go), while a
// test open has none: its code is its test partner's business, and the
// tests beside it are not its parts.
func TestSiblingsTestsByConvention(t *testing.T) {
	r := newHistRepo(t)
	r.commit("initial import", map[string]string{
		"release/latest.go":             "package release\n\n// Latest finds the newest release of a channel.\nfunc Latest(channel string) string {\n\treturn lookup(channel)\n}\n",
		"release/latest_windows.go":     "//go:build windows\n\npackage release\n\n// lookup reads the channel's newest release from the registry.\nfunc lookup(channel string) string {\n\treturn channel\n}\n",
		"release/latest_test.go":        "package release\n\nimport \"testing\"\n\nfunc TestLatest(t *testing.T) {\n\t_ = Latest(\"stable\")\n}\n",
		"release/latest_helper_test.go": "package release\n\n// stableChannel is the channel the tests ask for.\nconst stableChannel = \"stable\"\n",
	})
	ws := histWorkspace(t, r.dir)
	siblingsOf := func(active string) []string {
		req := &SelectRequest{Query: "read the newest release of a channel", Active: filepath.Join(r.dir, filepath.FromSlash(active)), Limit: 8, IncludeItems: CodeOnly()}
		var got []string
		for _, it := range selDo(t, ws, req).Items {
			if _, ok := it.Signals["sibling"]; ok && !slices.Contains(got, it.Path) {
				got = append(got, it.Path)
			}
		}
		return got
	}
	if got := siblingsOf("release/latest.go"); !slices.Equal(got, []string{"release/latest_windows.go"}) {
		t.Errorf("latest.go's siblings %q, want [release/latest_windows.go]", got)
	}
	if got := siblingsOf("release/latest_test.go"); len(got) != 0 {
		t.Errorf("with a test open, items with a sibling signal: %q, want none", got)
	}
}

// TestCoChangeBroadCommits: with core/ledger.go open, feed/b.go, which
// changed with it once in a commit of two files, comes before store/c.go,
// which changed with it in four broad commits of sixteen files: a commit
// spreads its vote over its files (1/n), so a change of many files says
// less of each pair in it than one of two. Spread by the square root, as
// before, store/c.go came first.
func TestCoChangeBroadCommits(t *testing.T) {
	r := newHistRepo(t)
	files := map[string]string{}
	body := func(p, v string) string {
		return fmt.Sprintf("package %s\n\n// Step%s is one step.\nfunc Step%s() int {\n\treturn %s\n}\n", path.Base(path.Dir(p)), v, v, v)
	}
	all := []string{"core/ledger.go", "feed/b.go", "store/c.go"}
	for i := range 14 {
		all = append(all, fmt.Sprintf("pad%02d/p.go", i))
	}
	for _, p := range all {
		files[p] = body(p, "0")
	}
	for i := range 45 { // the import touches more files than a commit may and count
		p := fmt.Sprintf("more%02d/m.go", i)
		files[p] = body(p, "0")
	}
	r.commit("initial import", files)
	change := func(msg, v string, paths ...string) {
		m := map[string]string{}
		for _, p := range paths {
			m[p] = body(p, v)
		}
		r.commit(msg, m)
	}
	change("tidy the ledger and the feed", "1", "core/ledger.go", "feed/b.go")
	broad := slices.DeleteFunc(slices.Clone(all), func(p string) bool { return p == "feed/b.go" }) // 16 files
	for i, v := range []string{"2", "3", "4", "5"} {
		change(fmt.Sprintf("sweep %d", i), v, broad...)
	}
	active := "core/ledger.go"
	req := &SelectRequest{Query: "carry on with this", Active: filepath.Join(r.dir, "core", "ledger.go"), Limit: 8, IncludeItems: CodeOnly()}
	sel := selDo(t, histWorkspace(t, r.dir), req)
	if got, _ := firstOther(sel, active); got != "feed/b.go" {
		t.Errorf("first other file %q, want feed/b.go (changed with ledger.go alone; the others only in broad commits):%s", got, selString(sel))
	}
}

// TestNamesakes: with sansio/app.py open and its template_filter named in
// the request, blueprints.py, whose app_template_filter extends that name
// and shares few of the request's words, comes first among the other
// files, before a module the request's words match better, and its why
// names both names; the test of template_filter is no namesake. Without
// the source, the better word match comes first.
func TestNamesakes(t *testing.T) {
	r := newHistRepo(t)
	r.commit("initial import", map[string]string{
		"sansio/app.py": "class App:\n    def template_filter(self, name=None):\n        \"\"\"Register a function as a filter of the templates.\"\"\"\n        def decorator(f):\n            self.add_template_filter(f, name=name)\n            return f\n        return decorator\n\n" +
			"    def add_template_filter(self, f, name=None):\n        self.jinja_env.filters[name or f.__name__] = f\n",
		"sansio/blueprints.py": "class Blueprint:\n    def app_template_filter(self, name=None):\n        \"\"\"Register a function for every rendering of the application.\"\"\"\n        def decorator(f):\n            self.record_once(lambda s: s.app.add_template_filter(f, name=name))\n            return f\n        return decorator\n",
		"sansio/parens.py":     "def strip_parens(text):\n    \"\"\"Use a template without parens: strip the parens of a filter call.\"\"\"\n    return text.replace(\"()\", \"\")\n",
		"tests/test_app.py":    "def test_template_filter():\n    assert True\n",
	})
	active := "sansio/app.py"
	req := &SelectRequest{Query: "use template_filter without parens", Active: filepath.Join(r.dir, "sansio", "app.py"), Limit: 8, IncludeItems: CodeOnly()}
	wantSiblingFirst(t, r.dir, req, active, "sansio/blueprints.py", "app_template_filter extends template_filter", "defines `app_template_filter`, named like `template_filter` of the file you have open")
}

// wantSiblingFirst checks that the sibling source puts want first among
// the files other than the active one, with a why holding why, and gives
// no other file a sibling signal; and that without the source want is
// not first (else the case shows nothing).
func wantSiblingFirst(t *testing.T, dir string, req *SelectRequest, active, want, label, why string) {
	t.Helper()
	sel := selDo(t, histWorkspace(t, dir), req)
	wantFirstOther(t, sel, active, want, "sibling", label)
	for _, it := range sel.Items {
		if it.Path == want && !strings.Contains(it.Why, why) {
			t.Errorf("%s's why %q does not say %q", want, it.Why, why)
		}
		if _, ok := it.Signals["sibling"]; ok && it.Path != want {
			t.Errorf("%s has a sibling signal: only %s is the sibling", it.Path, want)
		}
	}
	withoutSource(t, heuristics.SrcSibling)
	if got, _ := firstOther(selDo(t, histWorkspace(t, dir), req), active); got == want {
		t.Errorf("without the sibling source %s still comes first: the test shows nothing", want)
	}
}

// TestActiveCodeKeepsConfigPrior: with web/request.go open, a request
// that asks for configuration in general words ("add config and docs for
// request limits") gets the code that changed with the open file
// (app/defaults.go) before the settings file that changed with it too and
// holds all the request's words: "config" lifts configuration only when no
// code file is open. The settings file stays in the answer, and without a
// file open it still comes before the code.
func TestActiveCodeKeepsConfigPrior(t *testing.T) {
	r := newHistRepo(t)
	request := "package web\n\n// Request is an incoming request with its body limits.\ntype Request struct {\n\tMaxContentLength int\n\tMaxFormParts     int\n}\n\n" +
		"// maxContentLength is the largest body the request accepts.\nfunc (r *Request) maxContentLength() int { return r.MaxContentLength }\n"
	defaults := "package app\n\n// DefaultBodySize is the max content length an app starts with.\nconst DefaultBodySize = 1 << 20\n"
	limits := "# the request limits: max content length and max form parts of a request\n[request.limits]\nmax_content_length = 1000000\nmax_form_parts = 1000\n"
	r.commit("initial import", map[string]string{
		"web/request.go":  request,
		"app/defaults.go": defaults,
		"limits.toml":     limits,
		"docs/limits.md":  "# Request limits\n\nThe request limits are the max content length and the max form parts of a\nrequest: set the limits in the config.\n",
	})
	r.commit("tune the request body", map[string]string{"web/request.go": request + "// v2\n", "limits.toml": limits + "# v2\n"})
	r.commit("body size default", map[string]string{"web/request.go": request + "// v3\n", "app/defaults.go": defaults + "// v3\n"})
	const q = "add config and docs for request limits: max content length and max form parts"
	ws := histWorkspace(t, r.dir)
	sel := selDo(t, ws, &SelectRequest{Query: q, Active: filepath.Join(r.dir, "web", "request.go"), Limit: 8, IncludeItems: CodeOnly()})
	if got, _ := firstOther(sel, "web/request.go"); got != "app/defaults.go" {
		t.Errorf("with web/request.go open, first other file %q, want app/defaults.go:%s", got, selString(sel))
	}
	if !slices.Contains(selFiles(sel), "limits.toml") {
		t.Errorf("with web/request.go open, limits.toml is not in the answer:%s", selString(sel))
	}
	cold := selDo(t, ws, &SelectRequest{Query: q, Limit: 8, IncludeItems: CodeOnly()})
	if files := selFiles(cold); slices.Index(files, "limits.toml") < 0 || slices.Index(files, "limits.toml") > slices.Index(files, "app/defaults.go") {
		t.Errorf("with no file open, want limits.toml before app/defaults.go:%s", selString(cold))
	}
}
