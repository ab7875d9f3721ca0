package symbolindex

import (
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/symbolindex/embed"
	"github.com/ctxls/ctxls/symbolindex/parse"
	"github.com/ctxls/ctxls/symbolindex/tokenize"
)

// ixPrepare parses and embeds one file, as the indexer's workers do.
func ixPrepare(t testing.TB, p *parse.Parser, emb embed.Embedder, path, src string) *FileDoc {
	t.Helper()
	d, err := Prepare(p, emb, path, []byte(src), int64(len(src)), 0, nil)
	if err != nil {
		t.Fatalf("Prepare(%s): %v", path, err)
	}
	return d
}

// ixSlotOf returns the slot of the symbol named qualified in path.
func ixSlotOf(t testing.TB, ix *Index, path, qualified string) uint32 {
	t.Helper()
	fs, ok := ix.FileSlot(path)
	if !ok {
		t.Fatalf("%s not indexed", path)
	}
	for _, s := range ix.FileSymbols(fs) {
		if ref, _ := ix.Symbol(s); ref.Qualified == qualified {
			return s
		}
	}
	t.Fatalf("%s::%s not indexed", path, qualified)
	return 0
}

// ixSymbols lists "path::qualified kind L<start>-<end>" for every indexed
// symbol, sorted: the index's content without its slot numbering.
func ixSymbols(ix *Index) []string {
	var out []string
	for _, p := range ix.Paths() {
		fs, _ := ix.FileSlot(p)
		for _, s := range ix.FileSymbols(fs) {
			ref, _ := ix.Symbol(s)
			out = append(out, fmt.Sprintf("%s::%s %s L%d-%d %016x", p, ref.Qualified, ref.Kind, ref.Range.StartLine, ref.Range.EndLine, ix.LeafHash(s)))
		}
	}
	sort.Strings(out)
	return out
}

// ixLexical runs a symbol search and names the hits "path::qualified score",
// sorted by name: equal indexes give equal lists whatever their slots.
func ixLexical(ix *Index, query string) []string {
	var q []QueryTerm
	for _, t := range tokenize.QueryTerms(query) {
		q = append(q, QueryTerm{Term: t, Weight: 1})
	}
	var buf SearchBuffer
	var out []string
	for _, h := range ix.SearchSymbols(q, 1000, nil, &buf) {
		ref, _ := ix.Symbol(h.Doc)
		out = append(out, fmt.Sprintf("%s::%s %.4f", ref.Path, ref.Qualified, h.Score))
	}
	for _, h := range ix.SearchFiles(q, 1000, nil, &buf) {
		out = append(out, fmt.Sprintf("file %s %.4f", ix.FilePath(h.Doc), h.Score))
	}
	sort.Strings(out)
	return out
}

// ixSemantic ranks symbols by cosine with query and names the hits.
func ixSemantic(t testing.TB, ix *Index, query string) []string {
	t.Helper()
	vs, err := ix.Embedder().Embed([]string{query})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, h := range ix.SearchVectors(vs[0], 1000, nil, nil) {
		ref, _ := ix.Symbol(h.Slot)
		out = append(out, fmt.Sprintf("%s::%s %.4f", ref.Path, ref.Qualified, h.Score))
	}
	sort.Strings(out)
	return out
}

const ixAccounts = `package bank

// Account holds a balance in cents.
type Account struct {
	Balance int64
}

// Deposit adds money to the account.
func (a *Account) Deposit(cents int64) {
	a.Balance += cents
}

// Withdraw takes money out, refusing to overdraw.
func (a *Account) Withdraw(cents int64) bool {
	if cents > a.Balance {
		return false
	}
	a.Balance -= cents
	return true
}

// Interest computes a month of interest.
func Interest(balance int64, rate float64) int64 {
	return int64(float64(balance) * rate / 12)
}
`

// TestPrepareAsksKnownOncePerSymbol: Prepare asks whether the index holds
// each of a file's leaves once (the workspace's Known takes the folder's
// lock and walks the file's symbols each time).
func TestPrepareAsksKnownOncePerSymbol(t *testing.T) {
	p := parse.NewParser()
	defer p.Close()
	emb := embed.NewHashEmbedder(embed.DefaultHashDim)
	ix := NewIndex(emb)
	const path = "bank/account.go"
	ix.Put(ixPrepare(t, p, emb, path, ixAccounts))
	asked := map[string]int{}
	known := func(key string, hash uint64) bool {
		asked[key]++
		return ix.Has(path, key, hash)
	}
	d, err := Prepare(p, emb, path, []byte(ixAccounts), int64(len(ixAccounts)), 0, known)
	if err != nil {
		t.Fatal(err)
	}
	if len(asked) != 4 {
		t.Errorf("asked of %d leaves, want the 4 of the file: %v", len(asked), asked)
	}
	for key, n := range asked {
		if n != 1 {
			t.Errorf("asked %d times whether %q is known, want once", n, key)
		}
	}
	if changed := ix.Put(d); len(changed) != 0 {
		t.Errorf("Put of the unchanged file returned %v, want none", changed)
	}
}

func TestIndexPutReembedsOnlyChangedSymbols(t *testing.T) {
	p := parse.NewParser()
	defer p.Close()
	emb := embed.NewHashEmbedder(embed.DefaultHashDim)
	ix := NewIndex(emb)
	const path = "bank/account.go"

	fresh := ix.Put(ixPrepare(t, p, emb, path, ixAccounts))
	if len(fresh) != 4 || ix.Symbols() != 4 || ix.Reembedded != 4 {
		t.Fatalf("first Put: %d fresh slots, %d symbols, %d re-embedded; want 4", len(fresh), ix.Symbols(), ix.Reembedded)
	}
	fs, _ := ix.FileSlot(path)
	before := slices.Clone(ix.FileSymbols(fs))
	deposit := ixSlotOf(t, ix, path, "Account.Deposit")
	withdraw := ixSlotOf(t, ix, path, "Account.Withdraw")
	depositVec := ix.Vectors().Get(deposit, nil)
	withdrawVec := ix.Vectors().Get(withdraw, nil)
	root := ix.Tree().RootHex()

	// Edit Withdraw's body: exactly that symbol is re-embedded, in its slot.
	edited := strings.Replace(ixAccounts, "return false", "return overdraftRefused", 1)
	changed := ix.Put(ixPrepare(t, p, emb, path, edited))
	if !slices.Equal(changed, []uint32{withdraw}) {
		t.Errorf("Put after editing Withdraw returned slots %v, want [%d]", changed, withdraw)
	}
	if ix.Reembedded != 5 {
		t.Errorf("re-embedded %d in all, want 5", ix.Reembedded)
	}
	if got := ix.FileSymbols(fs); !slices.Equal(got, before) {
		t.Errorf("slots moved: %v, were %v", got, before)
	}
	if got := ix.Vectors().Get(deposit, nil); !slices.Equal(got, depositVec) {
		t.Error("Deposit's vector changed though Deposit did not")
	}
	if got := ix.Vectors().Get(withdraw, nil); slices.Equal(got, withdrawVec) {
		t.Error("Withdraw's vector did not change with its body")
	}
	if ix.Tree().RootHex() == root {
		t.Error("the Merkle root did not change")
	}
	if hits := ixLexical(ix, "overdraftRefused"); len(hits) == 0 || !strings.HasPrefix(hits[0], path+"::Account.Withdraw ") {
		t.Errorf("the new body is not searchable: %q", hits)
	}

	// Re-indenting and moving everything down changes no symbol's content:
	// nothing is re-embedded, but the ranges follow the text.
	moved := strings.Replace(edited, "package bank\n", "package bank\n\n\n", 1)
	moved = strings.Replace(moved, "\ta.Balance += cents", "\t\ta.Balance  +=  cents", 1)
	if changed := ix.Put(ixPrepare(t, p, emb, path, moved)); len(changed) != 0 {
		t.Errorf("Put after whitespace changes returned %v, want none", changed)
	}
	if ref, _ := ix.Symbol(deposit); ref.Range.StartLine != 10 {
		t.Errorf("Deposit's range %+v not moved to line 10", ref.Range)
	}

	// A new function gets a new slot; the others keep theirs.
	added := moved + "\n// Close freezes the account.\nfunc (a *Account) Close() {}\n"
	changed = ix.Put(ixPrepare(t, p, emb, path, added))
	closeSlot := ixSlotOf(t, ix, path, "Account.Close")
	if !slices.Equal(changed, []uint32{closeSlot}) || slices.Contains(before, closeSlot) {
		t.Errorf("Put after adding Close returned %v (Close is slot %d, old slots %v)", changed, closeSlot, before)
	}

	// Renaming a function drops the old name.
	renamed := strings.Replace(added, "func Interest(", "func MonthlyInterest(", 1)
	changed = ix.Put(ixPrepare(t, p, emb, path, renamed))
	if len(changed) != 1 || len(ix.Named("Interest")) != 0 || len(ix.Named("monthlyinterest")) != 1 || ix.Symbols() != 5 {
		t.Errorf("rename: changed %v, Named(Interest) %v, Named(MonthlyInterest) %v, %d symbols",
			changed, ix.Named("Interest"), ix.Named("MonthlyInterest"), ix.Symbols())
	}
}

// ixPaths are the files the property test edits: several directories, so
// that the Merkle tree has folders to update, and several languages.
var ixPaths = []string{
	"main.go", "cmd/run/run.go", "internal/store/store.go", "internal/store/cache.go",
	"internal/api/handler.go", "web/app.ts", "tools/report.py", "docs/guide.md",
}

var ixWords = []string{"alpha", "bravo", "cache", "delta", "entry", "fetch", "guard", "index", "merge", "parse", "query", "retry"}

// ixRandomFile writes a random file for path: a few definitions drawn from
// a small pool of names and bodies, so that edits often keep, change, add
// or remove some of a file's symbols.
func ixRandomFile(r *rand.Rand, path string) string {
	var b strings.Builder
	n := 1 + r.IntN(4)
	used := map[string]bool{}
	word := func() string { return ixWords[r.IntN(len(ixWords))] }
	switch {
	case strings.HasSuffix(path, ".go"):
		b.WriteString("package p\n")
		for range n {
			name := strings.ToUpper(word()[:1]) + word()[1:] + word()
			if used[name] {
				continue
			}
			used[name] = true
			fmt.Fprintf(&b, "\n// %s does %s.\nfunc %s(x int) int {\n\treturn x + %d // %s\n}\n", name, word(), name, r.IntN(3), word())
		}
	case strings.HasSuffix(path, ".ts"):
		for range n {
			name := word() + "Handler"
			if used[name] {
				continue
			}
			used[name] = true
			fmt.Fprintf(&b, "export function %s(x: number): number {\n  return x * %d; // %s\n}\n\n", name, r.IntN(3), word())
		}
	case strings.HasSuffix(path, ".py"):
		fmt.Fprintf(&b, "class %sReport:\n", strings.ToUpper(word()[:1]))
		for range n {
			name := word()
			if used[name] {
				continue
			}
			used[name] = true
			fmt.Fprintf(&b, "    def %s(self):\n        return %d  # %s\n\n", name, r.IntN(3), word())
		}
	default:
		b.WriteString("# Guide\n")
		for range n {
			name := word()
			if used[name] {
				continue
			}
			used[name] = true
			fmt.Fprintf(&b, "\n## %s\n\nHow to %s the %s.\n", name, word(), word())
		}
	}
	return b.String()
}

func TestIndexIncrementalEqualsFresh(t *testing.T) {
	p := parse.NewParser()
	defer p.Close()
	emb := embed.NewHashEmbedder(embed.DefaultHashDim)
	for seed := range uint64(50) {
		r := rand.New(rand.NewPCG(seed, 0x1dea))
		ix := NewIndex(emb)
		final := map[string]string{}
		batch := false
		for op := range 18 {
			path := ixPaths[r.IntN(len(ixPaths))]
			switch k := r.IntN(10); {
			case k < 2:
				if had := ix.Remove(path); had != (final[path] != "") {
					t.Fatalf("seed %d op %d: Remove(%s) = %v", seed, op, path, had)
				}
				delete(final, path)
			case k == 2 && !batch:
				ix.BeginBatch()
				batch = true
			case k == 3 && batch:
				if err := ix.EndBatch(); err != nil {
					t.Fatal(err)
				}
				batch = false
			default:
				src := ixRandomFile(r, path)
				ix.Put(ixPrepare(t, p, emb, path, src))
				final[path] = src
			}
		}
		if batch {
			if err := ix.EndBatch(); err != nil {
				t.Fatal(err)
			}
		}

		// A fresh index of the final files, put in a shuffled order.
		fresh := NewIndex(emb)
		paths := make([]string, 0, len(final))
		for p := range final {
			paths = append(paths, p)
		}
		sort.Strings(paths)
		r.Shuffle(len(paths), func(i, j int) { paths[i], paths[j] = paths[j], paths[i] })
		for _, path := range paths {
			fresh.Put(ixPrepare(t, p, emb, path, final[path]))
		}

		if got, want := ix.Tree().RootHex(), fresh.Tree().RootHex(); got != want {
			t.Errorf("seed %d: incremental root %s, fresh root %s", seed, got, want)
		}
		if ix.Files() != fresh.Files() || ix.Symbols() != fresh.Symbols() {
			t.Errorf("seed %d: incremental %d files %d symbols, fresh %d files %d symbols", seed, ix.Files(), ix.Symbols(), fresh.Files(), fresh.Symbols())
		}
		if got, want := ixSymbols(ix), ixSymbols(fresh); !slices.Equal(got, want) {
			t.Errorf("seed %d: symbols differ:\nincremental %q\nfresh       %q", seed, got, want)
		}
		for _, q := range []string{"cache merge", "retry handler", "guide parse", "alpha bravo delta"} {
			if got, want := ixLexical(ix, q), ixLexical(fresh, q); !slices.Equal(got, want) {
				t.Errorf("seed %d: %q: lexical results differ:\nincremental %q\nfresh       %q", seed, q, got, want)
			}
		}
		for _, w := range ixWords {
			if len(ix.Named(w)) != len(fresh.Named(w)) {
				t.Errorf("seed %d: Named(%s): %d incremental, %d fresh", seed, w, len(ix.Named(w)), len(fresh.Named(w)))
			}
		}
		if t.Failed() {
			return
		}
	}
}

func TestIndexRemove(t *testing.T) {
	p := parse.NewParser()
	defer p.Close()
	emb := embed.NewHashEmbedder(embed.DefaultHashDim)
	ix := NewIndex(emb)
	empty := ix.Tree().RootHex()
	ix.Put(ixPrepare(t, p, emb, "bank/account.go", ixAccounts))
	if ix.Remove("bank/missing.go") {
		t.Error("Remove of a file never indexed reported true")
	}
	if !ix.Remove("bank/account.go") || ix.Files() != 0 || ix.Symbols() != 0 {
		t.Fatalf("after Remove: %d files, %d symbols", ix.Files(), ix.Symbols())
	}
	if hits := ixLexical(ix, "deposit withdraw"); len(hits) != 0 {
		t.Errorf("removed symbols still found: %q", hits)
	}
	if hits := ixSemantic(t, ix, "deposit money"); len(hits) != 0 {
		t.Errorf("removed vectors still found: %q", hits)
	}
	if len(ix.Named("Deposit")) != 0 {
		t.Error("removed name still in the name table")
	}
	if ix.Tree().RootHex() != empty {
		t.Errorf("root %s after removing everything, empty root %s", ix.Tree().RootHex(), empty)
	}
	// Freed slots are reused.
	ix.Put(ixPrepare(t, p, emb, "bank/account.go", ixAccounts))
	for _, s := range ix.FileSymbols(0) {
		if s >= 4 {
			t.Errorf("slot %d allocated while 4 were free", s)
		}
	}
}

func TestIndexSemanticFindsSymbol(t *testing.T) {
	p := parse.NewParser()
	defer p.Close()
	emb := embed.NewHashEmbedder(embed.DefaultHashDim)
	ix := NewIndex(emb)
	ix.Put(ixPrepare(t, p, emb, "bank/account.go", ixAccounts))
	vs, _ := emb.Embed([]string{"withdraw money refusing to overdraw"})
	hits := ix.SearchVectors(vs[0], 2, nil, nil)
	if len(hits) != 2 || hits[0].Slot != ixSlotOf(t, ix, "bank/account.go", "Account.Withdraw") || math.IsNaN(float64(hits[0].Score)) {
		t.Errorf("semantic search: %+v", hits)
	}
}

// BenchmarkNamedLoaded looks names and references up in an index loaded
// from its cache file, with one file put since (so both the segments'
// tables and the maps answer).
func BenchmarkNamedLoaded(b *testing.B) {
	p := parse.NewParser()
	defer p.Close()
	emb := embed.NewHashEmbedder(embed.DefaultHashDim)
	ix := NewIndex(emb)
	for i := range 50 {
		ix.Put(ixPrepare(b, p, emb, fmt.Sprintf("bank/a%02d.go", i), ixAccounts))
	}
	path := filepath.Join(b.TempDir(), "index")
	if err := ix.Save(path); err != nil {
		b.Fatal(err)
	}
	loaded, err := LoadIndex(path, emb)
	if err != nil {
		b.Fatal(err)
	}
	loaded.Put(ixPrepare(b, p, emb, "bank/z.go", ixAccounts))
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if len(loaded.Named("deposit")) != 51 || len(loaded.Referencing("int64")) != 51 {
			b.Fatal("wrong counts")
		}
	}
}
