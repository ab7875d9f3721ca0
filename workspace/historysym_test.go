package workspace

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/heuristics"
	"github.com/ctxls/ctxls/workspace/history"
)

// goFuncs is a Go file of the named functions, each five lines long and
// saying nothing of what history says of it; body[name] replaces a body.
func goFuncs(pkg string, names []string, body map[string]string) string {
	return paddedFuncs(pkg, names, body, 0)
}

// paddedFuncs is goFuncs with pad more lines in each body.
func paddedFuncs(pkg string, names []string, body map[string]string, pad int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "package %s\n", pkg)
	for _, n := range names {
		v := body[n]
		if v == "" {
			v = "0"
		}
		fmt.Fprintf(&b, "\n// %s is step %s.\nfunc %s() int {\n\tx := %s\n%s\treturn x\n}\n", n, strings.ToLower(n), n, v,
			strings.Repeat("\tx = x*3 + 1 // keep the ledger balanced\n", pad))
	}
	return b.String()
}

// withSymbolHistory turns the symbol-level history sources on, at the
// weights they were measured at, for the test.
func withSymbolHistory(t *testing.T) {
	old := heuristics.Weights
	heuristics.Weights[heuristics.SrcPastSymbol] = heuristics.SymbolHistoryWeights[0]
	heuristics.Weights[heuristics.SrcCoChangeSymbol] = heuristics.SymbolHistoryWeights[1]
	t.Cleanup(func() { heuristics.Weights = old })
}

var ledgerFuncs = []string{"Open", "Post", "Settle", "Close", "Audit"}

// ledger: one file of five functions; a past commit about double charges
// changed Settle, two others changed Open and Audit.
func ledger(t *testing.T) *histRepo {
	r := newHistRepo(t)
	r.commit("initial import", map[string]string{
		"ledger/book.go": paddedFuncs("ledger", ledgerFuncs, nil, 40),
		"users/login.go": "package users\n\n// Login checks a password.\nfunc Login(name, password string) bool { return false }\n",
	})
	r.commit("customers were charged twice when the payment provider retried", map[string]string{
		"ledger/book.go": paddedFuncs("ledger", ledgerFuncs, map[string]string{"Settle": "1"}, 40),
	})
	r.commit("keep the opening balance in the book", map[string]string{
		"ledger/book.go": paddedFuncs("ledger", ledgerFuncs, map[string]string{"Settle": "1", "Open": "2"}, 40),
	})
	r.commit("count the entries of the yearly report", map[string]string{
		"ledger/book.go": paddedFuncs("ledger", ledgerFuncs, map[string]string{"Settle": "1", "Open": "2", "Audit": "3"}, 40),
	})
	return r
}

// TestPastSymbols: a request worded like a past commit lifts, within the
// file that commit changed, the function it changed above the file's
// other functions, though no word of the request is in the file. (At its
// weight the source ties with the embedder's first rank, which breaks ties:
// a function the embedder puts first may stay ahead of it.)
func TestPastSymbols(t *testing.T) {
	withSymbolHistory(t)
	r := ledger(t)
	ws := histWorkspace(t, r.dir)
	sel := selDo(t, ws, &SelectRequest{Query: "a customer got charged twice after the provider retried", Limit: 5, IncludeItems: CodeOnly()})
	found := false
	for _, it := range sel.Items {
		if it.Path != "ledger/book.go" || it.Symbol == "" {
			continue
		}
		if it.Symbol == "Settle" {
			found = true
			if _, ok := it.Signals["pastsymbol"]; !ok {
				t.Errorf("Settle has no pastsymbol signal: %+v", it.Signals)
			}
			break
		}
		if s, ok := it.Signals["semantic"]; !ok || s.Rank != 1 {
			t.Errorf("%s, with no evidence of its own, comes before Settle:%s", it.Symbol, selString(sel))
		}
	}
	if !found {
		t.Fatalf("Settle, changed by the double-charge fix, is not in the answer:%s", selString(sel))
	}
}

// TestCoChangedSymbols: the function under the cursor pulls in, of
// another file, the function that changed with it rather than the one
// that changed with its neighbour (at the level of files, the other file
// changed with the active one as often either way).
func TestCoChangedSymbols(t *testing.T) {
	withSymbolHistory(t)
	r := newHistRepo(t)
	main, other := []string{"Alpha", "Beta"}, []string{"Epsilon", "Gamma"}
	r.commit("initial import", map[string]string{
		"core/a.go": goFuncs("core", main, nil),
		"feed/b.go": goFuncs("feed", other, nil),
	})
	// Beta changes with Gamma, Alpha with Epsilon, three times each.
	beta, alpha := "0", "0"
	for i := range 3 {
		beta = fmt.Sprint(10 + i)
		r.commit("step "+beta, map[string]string{
			"core/a.go": goFuncs("core", main, map[string]string{"Beta": beta, "Alpha": alpha}),
			"feed/b.go": goFuncs("feed", other, map[string]string{"Gamma": beta, "Epsilon": alpha}),
		})
		alpha = fmt.Sprint(20 + i)
		r.commit("tune "+alpha, map[string]string{
			"core/a.go": goFuncs("core", main, map[string]string{"Beta": beta, "Alpha": alpha}),
			"feed/b.go": goFuncs("feed", other, map[string]string{"Gamma": beta, "Epsilon": alpha}),
		})
	}
	ws := histWorkspace(t, r.dir)
	active := filepath.Join(r.dir, "core", "a.go")
	firstOf := func(line uint32) (string, *Selection) {
		sel := selDo(t, ws, &SelectRequest{Query: "what else has to change with this", Active: active, Cursor: &Cursor{Line: line}, Limit: 6, IncludeItems: CodeOnly()})
		for _, it := range sel.Items {
			if it.Path == "feed/b.go" {
				return it.Symbol, sel
			}
		}
		return "", sel
	}
	// Alpha is lines 4-7 (0-based 3-6) of core/a.go, Beta 10-13 (9-12).
	if got, sel := firstOf(10); got != "Gamma" {
		t.Errorf("with the cursor in Beta, the first of feed/b.go is %q, want Gamma (changed with it):%s", got, selString(sel))
	} else if _, ok := sel.Items[rankOf(sel, "feed/b.go")-1].Signals["cochangesymbol"]; !ok {
		t.Errorf("Gamma has no cochangesymbol signal")
	}
	if got, sel := firstOf(4); got != "Epsilon" {
		t.Errorf("with the cursor in Alpha, the first of feed/b.go is %q, want Epsilon:%s", got, selString(sel))
	}
}

// cachedHistWorkspace is histWorkspace with a cache directory and a log.
func cachedHistWorkspace(t *testing.T, root, cache string, log *bytes.Buffer) *Workspace {
	t.Helper()
	cfg := DefaultConfig()
	cfg.CacheDir = cache
	ws, err := New(cfg, Options{Logger: slog.New(slog.NewTextHandler(log, nil))})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ws.AddFolder(root); err != nil {
		t.Fatal(err)
	}
	if _, err := ws.Index(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	return ws
}

// readOf is how many commits the folder's last history load read from git.
func readOf(t *testing.T, ws *Workspace) (read, commits int) {
	t.Helper()
	f := ws.Folders()[0]
	f.mu.RLock()
	defer f.mu.RUnlock()
	if f.hist == nil {
		t.Fatalf("no history: %s", f.histReason)
	}
	return f.hist.Read, f.hist.Len()
}

// TestHistoryCache: a restart reads no commit again; a restart after new
// commits reads only those, and so does a HEAD move while serving; a
// damaged cache is said once and replaced.
func TestHistoryCache(t *testing.T) {
	r := ledger(t)
	cache := t.TempDir()
	var log bytes.Buffer
	ws := cachedHistWorkspace(t, r.dir, cache, &log)
	if read, n := readOf(t, ws); read != 4 || n != 4 {
		t.Fatalf("first start: read %d commits, has %d; want 4, 4", read, n)
	}
	file := folderCacheFile(cache, r.dir, ".hist")
	if _, err := os.Stat(file); err != nil {
		t.Fatalf("no history cache: %v", err)
	}
	ws = cachedHistWorkspace(t, r.dir, cache, &log)
	if read, n := readOf(t, ws); read != 0 || n != 4 {
		t.Errorf("restart at the same HEAD: read %d commits, has %d; want 0, 4", read, n)
	}
	r.commit("settle in the book's currency", map[string]string{"ledger/book.go": paddedFuncs("ledger", ledgerFuncs, map[string]string{"Settle": "5"}, 40)})
	ws = cachedHistWorkspace(t, r.dir, cache, &log)
	if read, n := readOf(t, ws); read != 1 || n != 5 {
		t.Errorf("restart after a commit: read %d commits, has %d; want 1, 5", read, n)
	}
	// HEAD moves while serving.
	r.commit("close the book at midnight", map[string]string{"ledger/book.go": paddedFuncs("ledger", ledgerFuncs, map[string]string{"Settle": "5", "Close": "6"}, 40)})
	ws.loadHistory(context.Background())
	if read, n := readOf(t, ws); read != 1 || n != 6 {
		t.Errorf("HEAD moved while serving: read %d commits, has %d; want 1, 6", read, n)
	}
	if back, err := history.LoadCache(file, r.dir, history.Options{}); err != nil || back.Len() != 6 {
		t.Errorf("the cache was not brought to the new HEAD: %v", err)
	}
	if strings.Contains(log.String(), "level=WARN") {
		t.Fatalf("warnings with a sound cache:\n%s", log.String())
	}
	os.WriteFile(file, bytes.Repeat([]byte("garbage "), 100), 0o600)
	ws = cachedHistWorkspace(t, r.dir, cache, &log)
	if read, n := readOf(t, ws); read != 6 || n != 6 {
		t.Errorf("after a damaged cache: read %d commits, has %d; want 6, 6", read, n)
	}
	data, _ := os.ReadFile(file)
	data[len(data)-3] ^= 0xff
	os.WriteFile(file, data, 0o600)
	log.Reset()
	ws = cachedHistWorkspace(t, r.dir, cache, &log)
	if read, _ := readOf(t, ws); read != 6 {
		t.Errorf("after a damaged cache: read %d commits, want 6", read)
	}
	if n := strings.Count(log.String(), "level=WARN"); n != 1 || !strings.Contains(log.String(), "history cache") {
		t.Errorf("a damaged cache: %d warnings, want one naming the history cache:\n%s", n, log.String())
	}
	if _, err := history.LoadCache(file, r.dir, history.Options{}); err != nil {
		t.Errorf("the damaged cache was not replaced: %v", err)
	}
}
