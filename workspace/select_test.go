package workspace

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/ctxls/ctxls/heuristics"
	"github.com/ctxls/ctxls/workspace/txtartest"
)

// selApp is a small multi-language workspace: Go, TypeScript, Python and
// Markdown, with two same-named helpers (formatAmount) in different
// directories.
const selApp = `
-- go.mod --
module example.com/app

go 1.22
-- cmd/app/main.go --
package main

import (
	"fmt"
	"os"

	"example.com/app/internal/config"
	"example.com/app/lsp"
)

// main loads the configuration and starts the language server.
func main() {
	cfg, err := config.Load(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	srv := lsp.NewServer(cfg.Addr)
	if err := srv.Start(); err != nil {
		os.Exit(1)
	}
}
-- internal/config/config.go --
package config

import (
	"fmt"
	"os"
	"strings"
)

// Config is the application configuration.
type Config struct {
	Addr    string
	Timeout int
	Debug   bool
}

// Load reads the configuration file at path.
func Load(path string) (*Config, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("load config: %w", err)
	}
	return parseConfig(string(b))
}

// parseConfig parses key = value lines into a Config, rejecting unknown keys.
func parseConfig(text string) (*Config, error) {
	cfg := &Config{Addr: "localhost:8080", Timeout: 30}
	for i, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		key, value, ok := strings.Cut(line, "=")
		if !ok {
			return nil, fmt.Errorf("line %d: missing '='", i+1)
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

import (
	"errors"
	"net"
)

// Server accepts language-server connections on a TCP address.
type Server struct {
	addr string
	ln   net.Listener
}

// NewServer returns a server that will listen on addr.
func NewServer(addr string) *Server {
	return &Server{addr: addr}
}

// Start opens the listener and begins accepting connections.
func (s *Server) Start() error {
	if s.ln != nil {
		return errors.New("server already started")
	}
	ln, err := net.Listen("tcp", s.addr)
	if err != nil {
		return err
	}
	s.ln = ln
	go s.acceptLoop()
	return nil
}

// Stop closes the listener.
func (s *Server) Stop() error {
	if s.ln == nil {
		return nil
	}
	return s.ln.Close()
}

func (s *Server) acceptLoop() {
	for {
		conn, err := s.ln.Accept()
		if err != nil {
			return
		}
		conn.Close()
	}
}
-- billing/format.go --
package billing

import "fmt"

// formatAmount renders cents as a price with a currency sign.
func formatAmount(cents int64) string {
	return fmt.Sprintf("$%d.%02d", cents/100, cents%100)
}
-- billing/invoice.go --
package billing

// Invoice is a bill sent to a customer.
type Invoice struct {
	Number string
	Lines  []Line
}

// Line is one invoice line.
type Line struct {
	Description string
	Cents       int64
}

// Total sums the invoice lines.
func (inv *Invoice) Total() int64 {
	var sum int64
	for _, l := range inv.Lines {
		sum += l.Cents
	}
	return sum
}

// Summary describes the invoice for an email.
func (inv *Invoice) Summary() string {
	return inv.Number + ": " + formatAmount(inv.Total())
}
-- shipping/format.go --
package shipping

import "fmt"

// formatAmount renders a parcel weight in grams as kilograms.
func formatAmount(grams int64) string {
	return fmt.Sprintf("%d.%03d kg", grams/1000, grams%1000)
}
-- shipping/parcel.go --
package shipping

// Parcel is one box handed to the carrier.
type Parcel struct {
	Grams int64
	Zip   string
}

// Label prints the parcel's shipping label.
func (p Parcel) Label() string {
	return p.Zip + " " + formatAmount(p.Grams)
}
-- web/src/cart.ts --
export interface CartItem {
  sku: string;
  quantity: number;
  priceCents: number;
}

// CartStore keeps the shopping cart in memory.
export class CartStore {
  private items: CartItem[] = [];

  add(item: CartItem): void {
    const existing = this.items.find((i) => i.sku === item.sku);
    if (existing) {
      existing.quantity += item.quantity;
      return;
    }
    this.items.push(item);
  }

  totalCents(): number {
    return this.items.reduce((sum, i) => sum + i.quantity * i.priceCents, 0);
  }
}

export function emptyCart(): CartStore {
  return new CartStore();
}
-- tools/report.py --
"""Monthly sales reports."""

import csv


class ReportWriter:
    """Writes sales rows to a CSV report."""

    def __init__(self, path):
        self.path = path

    def write(self, rows):
        with open(self.path, "w", newline="") as f:
            writer = csv.writer(f)
            for row in rows:
                writer.writerow(row)


def monthly_totals(rows):
    """Sum the sales per month."""
    totals = {}
    for month, amount in rows:
        totals[month] = totals.get(month, 0) + amount
    return totals
-- docs/guide.md --
# Guide

How to run the app.

## Installation

Download the release archive and unpack it into your PATH.

## Configuration

The configuration file holds "key = value" lines: "addr" sets the listen
address and "debug" turns on verbose logging.
`

// selAppFiles is the number of files of selApp.
const selAppFiles = 11

// selWriteTree writes the files of a txtar archive under root.
func selWriteTree(t testing.TB, root, archive string) {
	t.Helper()
	txtartest.Write(t, root, txtar.Parse([]byte(archive)))
}

// selOpen writes archive into a fresh directory and indexes it with the
// default configuration and no cache. It returns the workspace and its root
// (symlinks resolved, as the workspace names it).
func selOpen(t testing.TB, archive string, opts Options) (*Workspace, string) {
	t.Helper()
	cfg := DefaultConfig()
	cfg.CacheDir = CacheDirOff
	return selOpenConfig(t, archive, cfg, opts)
}

func selOpenConfig(t testing.TB, archive string, cfg Config, opts Options) (*Workspace, string) {
	t.Helper()
	dir := t.TempDir()
	selWriteTree(t, dir, archive)
	ws, err := New(cfg, opts)
	if err != nil {
		t.Fatal(err)
	}
	f, err := ws.AddFolder(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ws.Index(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	return ws, f.Root
}

// selDo runs a request that must succeed.
func selDo(t testing.TB, ws *Workspace, req *SelectRequest) *Selection {
	t.Helper()
	res, err := ws.Select(context.Background(), req)
	if err != nil {
		t.Fatalf("Select(%q): %v", req.Query, err)
	}
	return res
}

// selPath is the absolute path of rel in root.
func selPath(root, rel string) string {
	return filepath.Join(root, filepath.FromSlash(rel))
}

// selEdit opens rel in the editor with its text on disk changed by edit,
// as an unsaved change of the user's.
func selEdit(t testing.TB, ws *Workspace, root, rel string, edit func(string) string) {
	t.Helper()
	path := selPath(root, rel)
	disk, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := ws.DidOpen(path, 1, edit(string(disk))); err != nil {
		t.Fatal(err)
	}
}

func selIDs(res *Selection) []string {
	ids := make([]string, len(res.Items))
	for i, it := range res.Items {
		ids[i] = it.ID
	}
	return ids
}

// selFind returns the item with id, or nil.
func selFind(res *Selection, id string) *Selected {
	for i := range res.Items {
		if res.Items[i].ID == id {
			return &res.Items[i]
		}
	}
	return nil
}

// selFirst asserts that the first item has id.
func selFirst(t *testing.T, res *Selection, id string) {
	t.Helper()
	if len(res.Items) == 0 || res.Items[0].ID != id {
		t.Errorf("first item: want %s, got %q", id, selIDs(res))
	}
}

// selMarker matches an elision marker line.
var selMarker = regexp.MustCompile(`(?m)^(// |# )?… \d+ lines? …$`)

// selSlice returns the part of src in a span of lines and byte columns.
func selSlice(t *testing.T, src []byte, sp Span) string {
	t.Helper()
	offset := func(line, col uint32) int {
		lines := bytes.SplitAfter(src, []byte{'\n'})
		if int(line) >= len(lines) {
			t.Fatalf("span %v: line %d past the end", sp, line)
		}
		return len(bytes.Join(lines[:line], nil)) + int(col)
	}
	start, end := offset(sp.StartLine, sp.StartCol), offset(sp.EndLine, sp.EndCol)
	if end < start || end > len(src) {
		t.Fatalf("span %v is not a slice of the text", sp)
	}
	return string(src[start:end])
}

var (
	selHex16  = regexp.MustCompile(`^[0-9a-f]{16}$`)
	selKindOK = map[string]bool{"function": true, "method": true, "class": true, "struct": true, "interface": true,
		"type": true, "enum": true, "const": true, "var": true, "module": true, "file": true}
	selReasonOK = map[string]bool{ReasonPinned: true, ReasonActive: true, ReasonRetrieved: true, ReasonExpanded: true}
)

// selCheckItems asserts the invariants every result must keep, whatever the
// query: well-formed ids, URIs, paths, kinds and ranges, texts that are the
// document's slice for the range (capped), sorted scores and a budget kept.
func selCheckItems(t *testing.T, root string, req *SelectRequest, res *Selection) {
	t.Helper()
	limit, maxChars, perItem := req.Limit, req.MaxChars, req.MaxCharsPerItem
	if limit == 0 {
		limit = DefaultLimit
	}
	if maxChars == 0 {
		maxChars = DefaultMaxChars
	}
	if perItem == 0 {
		perItem = DefaultMaxCharsPerItem
	}
	if len(res.Items) > limit {
		t.Errorf("%d items, limit %d", len(res.Items), limit)
	}
	used := 0
	seen := map[string][]Span{}
	lines := map[string][]Span{} // by path: no line is given twice
	for i, it := range res.Items {
		for _, sp := range lines[it.Path] {
			if sp.StartLine <= it.Span.EndLine && it.Span.StartLine <= sp.EndLine {
				t.Errorf("item %d (%s): lines %d-%d overlap an earlier item's %d-%d", i, it.ID, it.Span.StartLine, it.Span.EndLine, sp.StartLine, sp.EndLine)
			}
		}
		lines[it.Path] = append(lines[it.Path], it.Span)
		// Several items may share an id only as parts of one symbol (a
		// window of the lead's neighbourhood holding the start of a symbol
		// whose own item holds the rest): never the same lines twice.
		for _, sp := range seen[it.ID] {
			if sp.StartLine <= it.Span.EndLine && it.Span.StartLine <= sp.EndLine {
				t.Errorf("item %d: id %s again, over lines %d-%d already given (%d-%d)", i, it.ID, it.Span.StartLine, it.Span.EndLine, sp.StartLine, sp.EndLine)
			}
		}
		seen[it.ID] = append(seen[it.ID], it.Span)
		if strings.Contains(it.Path, `\`) || strings.HasPrefix(it.Path, "/") || strings.Contains(it.Path, "..") || it.Path == "" {
			t.Errorf("item %d: path %q is not a relative slash path", i, it.Path)
		}
		wantID := "file:" + it.Path
		if it.Symbol != "" {
			wantID = "sym:" + it.Path + "::" + it.Symbol
		}
		if it.ID != wantID {
			t.Errorf("item %d: id %q, want %q (symbol %q)", i, it.ID, wantID, it.Symbol)
		}
		if (it.Kind == "file") != (it.Symbol == "") {
			t.Errorf("item %d (%s): kind %q with symbol %q", i, it.ID, it.Kind, it.Symbol)
		}
		if want := selPath(root, it.Path); it.Abs != want {
			t.Errorf("item %d: path %q, want %q", i, it.Abs, want)
		}
		if !selKindOK[it.Kind] {
			t.Errorf("item %d (%s): unknown kind %q", i, it.ID, it.Kind)
		}
		if it.Language == "" {
			t.Errorf("item %d (%s): no language", i, it.ID)
		}
		if !selReasonOK[it.Reason] {
			t.Errorf("item %d (%s): unknown reason %q", i, it.ID, it.Reason)
		}
		if i > 0 && it.Score > res.Items[i-1].Score {
			t.Errorf("item %d (%s): score %v above the previous item's %v", i, it.ID, it.Score, res.Items[i-1].Score)
		}
		if it.Score <= 0 || math.IsNaN(it.Score) {
			t.Errorf("item %d (%s): score %v", i, it.ID, it.Score)
		}
		src, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(it.Path)))
		if err != nil {
			t.Fatalf("item %d: %v", i, err)
		}
		lines := uint32(bytes.Count(src, []byte{'\n'}))
		if it.Span.StartLine > it.Span.EndLine || it.Span.EndLine > lines {
			t.Errorf("item %d (%s): span %v outside the file's 0-based lines 0..%d", i, it.ID, it.Span, lines)
		}
		if !bytes.HasPrefix(src[len(bytes.Join(bytes.SplitAfter(src, []byte{'\n'})[:it.Span.StartLine], nil)):], it.StartLineText) {
			t.Errorf("item %d (%s): StartLineText %q is not its first line", i, it.ID, it.StartLineText)
		}
		// The range is exactly the lines the text holds after its last
		// elision marker line, if it has one; before a marker is context
		// (the enclosing type's header, the symbol's first line).
		full, claimed := selSlice(t, src, it.Span), it.Text
		if m := selMarker.FindAllStringIndex(it.Text, -1); m != nil {
			claimed = it.Text[m[len(m)-1][1]+1:]
		}
		if claimed != full {
			t.Errorf("item %d (%s): text differs from the file's slice %v:\n got %q\nwant %q", i, it.ID, it.Span, claimed, full)
		}
		if sp := it.SymbolSpan; sp != nil {
			inside := (sp.StartLine > it.Span.StartLine || sp.StartLine == it.Span.StartLine && sp.StartCol >= it.Span.StartCol) &&
				(sp.EndLine < it.Span.EndLine || sp.EndLine == it.Span.EndLine && sp.EndCol <= it.Span.EndCol)
			if !inside || *sp == it.Span || it.Symbol == "" {
				t.Errorf("item %d (%s): symbol span %v, range %v: want a part of the range, for a symbol's item", i, it.ID, *sp, it.Span)
			}
		}
		if len(it.Text) > perItem {
			t.Errorf("item %d (%s): text of %d chars, per-item cap %d", i, it.ID, len(it.Text), perItem)
		}
		for name, s := range it.Signals {
			if s.Rank < 1 {
				t.Errorf("item %d (%s): signal %s has rank %d", i, it.ID, name, s.Rank)
			}
		}
		used += len(it.Text)
	}
	if res.UsedChars != used {
		t.Errorf("usedChars %d, sum of the texts %d", res.UsedChars, used)
	}
	if used > maxChars {
		t.Errorf("usedChars %d above maxChars %d", used, maxChars)
	}
}

func TestSelectResultFields(t *testing.T) {
	ws, root := selOpen(t, selApp, Options{})
	f := ws.Folders()[0]
	f.mu.RLock()
	var st IndexStats
	describe(f.idx, &st)
	f.mu.RUnlock()
	req := &SelectRequest{Query: "parseConfig rejects unknown keys in the configuration", MaxChars: 1200, MaxCharsPerItem: 400, Limit: 6}
	res := selDo(t, ws, req)
	selCheckItems(t, root, req, res)
	if len(res.Items) < 2 {
		t.Fatalf("want several items, got %q", selIDs(res))
	}
	first := res.Items[0]
	if first.ID != "sym:internal/config/config.go::parseConfig" || first.Symbol != "parseConfig" ||
		first.Kind != "function" || first.Language != "go" || first.Reason != ReasonRetrieved {
		t.Errorf("first item: %+v", first)
	}
	// parseConfig's doc comment is line 24 (0-based); the function runs
	// to line 46, past 400 chars, so the item is its head: the doc comment
	// matches the query best. The range ends where the text does.
	if first.Span.StartLine != 24 || first.Span.StartCol != 0 || first.Span.EndLine >= 46 || first.Span.EndLine < 30 {
		t.Errorf("parseConfig span %+v, want 24:0 to a line in 30..45", first.Span)
	}
	if !first.Truncated || len(first.Text) > 400 || !strings.HasPrefix(first.Text, "// parseConfig parses key = value lines into a Config, rejecting unknown keys.\nfunc parseConfig(text string)") {
		t.Errorf("parseConfig: truncated %v, %d chars, text %.40q", first.Truncated, len(first.Text), first.Text)
	}
	if res.UsedChars == 0 || res.UsedChars > 1200 {
		t.Errorf("usedChars %d", res.UsedChars)
	}
	if res.LowConfidence {
		t.Error("lowConfidence for a query naming a function")
	}
	s := res.Stats
	if !s.Ready || s.Files != selAppFiles || s.Symbols != st.Symbols || s.Symbols < 20 || s.Candidates < len(res.Items) || s.ElapsedMs < 0 {
		t.Errorf("stats %+v (index: %d files, %d symbols)", s, st.Files, st.Symbols)
	}
	if s.Embedder != "hash-384" {
		t.Errorf("embedder %q, want hash-384", s.Embedder)
	}
	if !selHex16.MatchString(s.MerkleRoot) || s.MerkleRoot != st.MerkleRoot {
		t.Errorf("merkleRoot %q, want the index's %q (16 hex digits)", s.MerkleRoot, st.MerkleRoot)
	}
}

func TestSelectLimit(t *testing.T) {
	ws, root := selOpen(t, selApp, Options{})
	for _, limit := range []int{1, 3, 100} {
		req := &SelectRequest{Query: "invoice total and parcel label formatting", Limit: limit}
		res := selDo(t, ws, req)
		selCheckItems(t, root, req, res)
		if want := min(limit, 8); limit < 8 && len(res.Items) != want {
			t.Errorf("limit %d: %d items", limit, len(res.Items))
		}
	}
	res := selDo(t, ws, &SelectRequest{Query: "invoice total and parcel label formatting"})
	if len(res.Items) != DefaultLimit {
		t.Errorf("default limit: %d items, want %d", len(res.Items), DefaultLimit)
	}
}

func TestSelectBudget(t *testing.T) {
	ws, root := selOpen(t, selApp, Options{})
	for _, b := range []struct{ max, per int }{{300, 1500}, {1000, 120}, {50, 50}, {12000, 1}} {
		req := &SelectRequest{Query: "server listener start stop connections", MaxChars: b.max, MaxCharsPerItem: b.per}
		res := selDo(t, ws, req)
		selCheckItems(t, root, req, res)
		if len(res.Items) == 0 {
			t.Errorf("maxChars %d, per item %d: no items", b.max, b.per)
		}
	}
}

func TestSelectPinned(t *testing.T) {
	ws, root := selOpen(t, selApp, Options{})
	req := &SelectRequest{
		Query:  "parseConfig rejects unknown keys",
		Pinned: []string{selPath(root, "tools/report.py"), "sym:web/src/cart.ts::CartStore.totalCents"},
	}
	res := selDo(t, ws, req)
	selCheckItems(t, root, req, res)
	ids := selIDs(res)
	if len(ids) < 3 || ids[0] != "file:tools/report.py" || ids[1] != "sym:web/src/cart.ts::CartStore.totalCents" {
		t.Fatalf("pinned items not first, in order: %q", ids)
	}
	for _, it := range res.Items[:2] {
		if it.Reason != ReasonPinned {
			t.Errorf("%s: reason %q, want pinned", it.ID, it.Reason)
		}
	}
	src, _ := os.ReadFile(filepath.Join(root, "tools", "report.py"))
	if res.Items[0].Text != string(src) || res.Items[0].Kind != "file" || res.Items[0].Language != "python" {
		t.Errorf("pinned file item: kind %q, language %q, text %q", res.Items[0].Kind, res.Items[0].Language, res.Items[0].Text)
	}
	if res.Items[1].Kind != "method" || !strings.HasPrefix(res.Items[1].Text, "totalCents()") {
		t.Errorf("pinned method item: kind %q, text %q", res.Items[1].Kind, res.Items[1].Text)
	}
	if ids[2] != "sym:internal/config/config.go::parseConfig" {
		t.Errorf("the best retrieved item should follow the pinned ones: %q", ids)
	}
	for _, it := range res.Items[2:] {
		if it.Reason == ReasonPinned {
			t.Errorf("%s: reason pinned, but it was not pinned", it.ID)
		}
	}
}

func TestSelectPathFilters(t *testing.T) {
	ws, root := selOpen(t, selApp, Options{})
	q := "format amount total label"
	req := &SelectRequest{Query: q, Paths: []string{"billing/**"}, Limit: 20}
	res := selDo(t, ws, req)
	selCheckItems(t, root, req, res)
	if len(res.Items) == 0 {
		t.Fatal("paths billing/**: no items")
	}
	for _, it := range res.Items {
		if !strings.HasPrefix(it.Path, "billing/") {
			t.Errorf("paths billing/**: got %s", it.ID)
		}
	}

	req = &SelectRequest{Query: q, ExcludePaths: []string{"**/*.go"}, Limit: 20}
	res = selDo(t, ws, req)
	selCheckItems(t, root, req, res)
	if len(res.Items) == 0 {
		t.Fatal("excludePaths **/*.go: no items")
	}
	for _, it := range res.Items {
		if strings.HasSuffix(it.Path, ".go") {
			t.Errorf("excludePaths **/*.go: got %s", it.ID)
		}
	}

	req = &SelectRequest{Query: q, Paths: []string{"{billing,shipping}/*.go"}, ExcludePaths: []string{"**/format.go"}, Limit: 20}
	res = selDo(t, ws, req)
	selCheckItems(t, root, req, res)
	if len(res.Items) == 0 {
		t.Fatal("paths and excludePaths together: no items")
	}
	for _, it := range res.Items {
		if it.Path != "billing/invoice.go" && it.Path != "shipping/parcel.go" {
			t.Errorf("paths {billing,shipping}/*.go minus **/format.go: got %s", it.ID)
		}
	}
}

func TestSelectKinds(t *testing.T) {
	ws, root := selOpen(t, selApp, Options{})
	req := &SelectRequest{Query: "server start invoice total cart", Kinds: []string{"method"}, Limit: 20}
	res := selDo(t, ws, req)
	selCheckItems(t, root, req, res)
	if len(res.Items) < 3 {
		t.Fatalf("kinds [method]: %q", selIDs(res))
	}
	for _, it := range res.Items {
		if it.Kind != "method" {
			t.Errorf("kinds [method]: got %s (%s)", it.ID, it.Kind)
		}
	}
	req = &SelectRequest{Query: "configuration installation", Kinds: []string{"module", "struct"}, Limit: 20}
	res = selDo(t, ws, req)
	selCheckItems(t, root, req, res)
	kinds := map[string]bool{}
	for _, it := range res.Items {
		kinds[it.Kind] = true
	}
	if !kinds["module"] || !kinds["struct"] || len(kinds) != 2 {
		t.Errorf("kinds [module struct]: got kinds %v in %q", kinds, selIDs(res))
	}
}

func TestSelectMinScore(t *testing.T) {
	ws, root := selOpen(t, selApp, Options{})
	q := "parseConfig rejects unknown keys"
	all := selDo(t, ws, &SelectRequest{Query: q, Limit: 20})
	if len(all.Items) < 4 {
		t.Fatalf("want several items, got %q", selIDs(all))
	}
	// A threshold between the first and the last item's score.
	threshold := (all.Items[0].Score + all.Items[len(all.Items)-1].Score) / 2
	req := &SelectRequest{Query: q, Limit: 20, MinScore: threshold}
	res := selDo(t, ws, req)
	selCheckItems(t, root, req, res)
	if len(res.Items) == 0 || len(res.Items) >= len(all.Items) {
		t.Fatalf("minScore %v: %d items of %d", threshold, len(res.Items), len(all.Items))
	}
	selFirst(t, res, all.Items[0].ID)
	for _, it := range res.Items {
		if it.Score < threshold {
			t.Errorf("minScore %v: kept %s with score %v", threshold, it.ID, it.Score)
		}
	}
	// Pinned items stay whatever their score.
	res = selDo(t, ws, &SelectRequest{Query: q, MinScore: 100, Pinned: []string{"file:docs/guide.md"}})
	if ids := selIDs(res); !slices.Equal(ids, []string{"file:docs/guide.md"}) {
		t.Errorf("minScore 100 with a pin: got %q, want only the pinned file", ids)
	}
}

// selItem runs a request, checks its items and returns the one with id,
// failing the test when it is missing.
func selItem(t *testing.T, ws *Workspace, root string, req *SelectRequest, id string) (*Selected, *Selection) {
	t.Helper()
	res := selDo(t, ws, req)
	selCheckItems(t, root, req, res)
	it := selFind(res, id)
	if it == nil {
		t.Fatalf("%s missing: %q", id, selIDs(res))
	}
	return it, res
}

func TestSelectSignals(t *testing.T) {
	ws, root := selOpen(t, selApp, Options{})
	it, res := selItem(t, ws, root, &SelectRequest{Query: "parseConfig rejects unknown keys"}, "sym:internal/config/config.go::parseConfig")
	for _, name := range []string{"lexical", "mention"} {
		if s, ok := it.Signals[name]; !ok || s.Rank != 1 || s.Score <= 0 {
			t.Errorf("parseConfig: signal %s = %+v (present %v), want rank 1 and a positive score; all: %v", name, s, ok, it.Signals)
		}
	}
	for _, it := range res.Items {
		if len(it.Signals) == 0 {
			t.Errorf("%s: no signals with explain", it.ID)
		}
		for name := range it.Signals {
			if !slices.Contains(heuristics.SourceNames[:], name) {
				t.Errorf("%s: unknown signal %q", it.ID, name)
			}
		}
	}
}

func TestSelectNamedSymbolFirst(t *testing.T) {
	ws, root := selOpen(t, selApp, Options{})
	for _, c := range []struct{ query, want string }{
		{"parseConfig should accept a timeout key", "sym:internal/config/config.go::parseConfig"},
		{"Server.Start fails when called twice", "sym:lsp/server.go::Server.Start"},
		{"CartStore.totalCents ignores discounts", "sym:web/src/cart.ts::CartStore.totalCents"},
		{"monthly_totals should skip empty rows", "sym:tools/report.py::monthly_totals"},
	} {
		req := &SelectRequest{Query: c.query}
		res := selDo(t, ws, req)
		selCheckItems(t, root, req, res)
		selFirst(t, res, c.want)
	}
}

func TestSelectPathMention(t *testing.T) {
	ws, root := selOpen(t, selApp, Options{})
	req := &SelectRequest{Query: "lsp/server.go: log accept errors"}
	res := selDo(t, ws, req)
	selCheckItems(t, root, req, res)
	n := 0
	for _, it := range res.Items {
		if it.Path == "lsp/server.go" {
			n += strings.Count(it.Text, "\nfunc ")
		}
	}
	if len(res.Items) == 0 || res.Items[0].Path != "lsp/server.go" || n < 2 {
		t.Errorf("a query naming lsp/server.go should bring its functions first: %q", selIDs(res))
	}
}

func TestSelectLowConfidence(t *testing.T) {
	ws, _ := selOpen(t, selApp, Options{})
	res := selDo(t, ws, &SelectRequest{Query: "zxqv blorf quux wibblewobble"})
	if !res.LowConfidence {
		t.Errorf("gibberish: lowConfidence false; items %q", selIDs(res))
	}
	res = selDo(t, ws, &SelectRequest{Query: "parseConfig rejects unknown keys"})
	if res.LowConfidence {
		t.Error("a query naming a function: lowConfidence true")
	}
	res = selDo(t, ws, &SelectRequest{Query: "monthly sales report csv writer"})
	if res.LowConfidence {
		t.Errorf("a query in plain words that match: lowConfidence true; items %q", selIDs(res))
	}
}

// TestSelectNoEvidenceNoItem: when nothing matches a query well, the answer
// keeps only the candidates something points at besides a faint likeness
// to the query (the embedder's), so an off-topic question gets few items
// or none, not a budget of noise; one that matches keeps its full answer.
func TestSelectNoEvidenceNoItem(t *testing.T) {
	ws, root := selOpen(t, selApp, Options{})
	for _, query := range []string{"zxqv blorf quux wibblewobble", "bake a sourdough loaf with rye flour", "the migration routes of arctic terns"} {
		req := &SelectRequest{Query: query}
		res := selDo(t, ws, req)
		selCheckItems(t, root, req, res)
		if !res.LowConfidence {
			t.Errorf("%q: lowConfidence false", query)
		}
		for _, it := range res.Items {
			evidence := it.Signals["semantic"].Score >= heuristics.SemanticConfidence
			for name := range it.Signals {
				evidence = evidence || name != "semantic" && name != "file" && name != "locality"
			}
			if !evidence && it.Reason == ReasonRetrieved {
				t.Errorf("%q: %s has no evidence but a likeness of %.2f: %q", query, it.ID, it.Signals["semantic"].Score, selIDs(res))
			}
		}
		if len(res.Items) > 3 {
			t.Errorf("%q: %d items of noise: %q", query, len(res.Items), selIDs(res))
		}
	}
	if res := selDo(t, ws, &SelectRequest{Query: "monthly sales report csv writer"}); len(res.Items) != DefaultLimit {
		t.Errorf("a query that matches: %d items, want the limit of %d", len(res.Items), DefaultLimit)
	}
}

func TestSelectHistory(t *testing.T) {
	ws, root := selOpen(t, selApp, Options{})
	request := "parseConfig rejects unknown keys in the configuration"
	direct := selDo(t, ws, &SelectRequest{Query: request})
	selFirst(t, direct, "sym:internal/config/config.go::parseConfig")

	vague := selDo(t, ws, &SelectRequest{Query: "fix that"})
	if len(vague.Items) > 0 && vague.Items[0].ID == direct.Items[0].ID {
		t.Logf("note: 'fix that' alone already finds %s", direct.Items[0].ID)
	}
	req := &SelectRequest{Query: "fix that", History: []string{"how do I run the app?", request}}
	follow := selDo(t, ws, req)
	selCheckItems(t, root, req, follow)
	selFirst(t, follow, direct.Items[0].ID)
	if follow.LowConfidence {
		t.Error("a follow-up whose history names the function: lowConfidence true")
	}
}

func TestSelectActivePosition(t *testing.T) {
	ws, root := selOpen(t, selApp, Options{})
	// Line 16 (0-based) is inside Invoice.Total.
	req := &SelectRequest{Query: "also apply the tax rate", Active: selPath(root, "billing/invoice.go"), Cursor: &Cursor{Line: 16}}
	res := selDo(t, ws, req)
	selCheckItems(t, root, req, res)
	it := selFind(res, "sym:billing/invoice.go::Invoice.Total")
	if it == nil {
		t.Fatalf("the symbol under the cursor is missing: %q", selIDs(res))
	}
	if it.Reason != ReasonActive {
		t.Errorf("Invoice.Total: reason %q, want active", it.Reason)
	}
	if _, ok := it.Signals["active"]; !ok {
		t.Errorf("Invoice.Total: no active signal in %v", it.Signals)
	}
	for _, other := range res.Items {
		if other.Reason == ReasonActive && other.ID != it.ID {
			t.Errorf("%s: reason active, but the cursor is not in it", other.ID)
		}
	}
}

func TestSelectLocalitySeparatesSameNames(t *testing.T) {
	ws, root := selOpen(t, selApp, Options{})
	for _, c := range []struct{ active, want string }{
		{"billing/invoice.go", "sym:billing/format.go::formatAmount"},
		{"shipping/parcel.go", "sym:shipping/format.go::formatAmount"},
	} {
		req := &SelectRequest{Query: "formatAmount rounds wrongly", Active: selPath(root, c.active)}
		res := selDo(t, ws, req)
		selCheckItems(t, root, req, res)
		selFirst(t, res, c.want)
	}
}

func TestSelectBadParams(t *testing.T) {
	ws, root := selOpen(t, selApp, Options{})
	outside := filepath.Join(t.TempDir(), "x.go")
	for _, c := range []struct {
		name  string
		req   SelectRequest
		field string
	}{
		{"empty query", SelectRequest{Query: ""}, "query"},
		{"blank query", SelectRequest{Query: " \t\n "}, "query"},
		{"limit -1", SelectRequest{Query: "q", Limit: -1}, "limit"},
		{"limit 101", SelectRequest{Query: "q", Limit: 101}, "limit"},
		{"negative maxChars", SelectRequest{Query: "q", MaxChars: -1}, "maxChars"},
		{"negative maxCharsPerItem", SelectRequest{Query: "q", MaxCharsPerItem: -5}, "maxCharsPerItem"},
		{"negative minScore", SelectRequest{Query: "q", MinScore: -0.1}, "minScore"},
		{"NaN minScore", SelectRequest{Query: "q", MinScore: math.NaN()}, "minScore"},
		{"unknown kind", SelectRequest{Query: "q", Kinds: []string{"function", "funktion"}}, "kinds[1]"},
		{"malformed glob", SelectRequest{Query: "q", Paths: []string{"src/[a-"}}, "paths"},
		{"malformed exclude glob", SelectRequest{Query: "q", ExcludePaths: []string{"{a,b"}}, "excludePaths"},
		{"URI for active", SelectRequest{Query: "q", Active: "http://example.com/billing/invoice.go"}, "active"},
		{"active outside", SelectRequest{Query: "q", Active: outside}, "active"},
		{"pinned outside", SelectRequest{Query: "q", Pinned: []string{selPath(root, "billing/format.go"), outside}}, "pinned[1]"},
		{"pinned URI", SelectRequest{Query: "q", Pinned: []string{"ftp://host/x.go"}}, "pinned[0]"},
	} {
		t.Run(c.name, func(t *testing.T) {
			res, err := ws.Select(context.Background(), &c.req)
			var pe *ParamError
			if !errors.As(err, &pe) {
				t.Fatalf("got result %v, error %v; want a *ParamError", res, err)
			}
			if pe.Field != c.field || !strings.HasPrefix(err.Error(), c.field+": ") || pe.Msg == "" {
				t.Errorf("error %q names field %q, want %q", err, pe.Field, c.field)
			}
		})
	}
	// The workspace still answers after bad requests.
	selFirst(t, selDo(t, ws, &SelectRequest{Query: "parseConfig"}), "sym:internal/config/config.go::parseConfig")
}

func TestSelectCancelled(t *testing.T) {
	ws, _ := selOpen(t, selApp, Options{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := ws.Select(ctx, &SelectRequest{Query: "parseConfig"}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled select: err %v, want context.Canceled", err)
	}
}

// selNumClones is the number of files of selClones.
const selNumClones = 16

// selClones is a workspace of many files holding the same helper, so that
// only a deterministic index tells them apart in the same order each time.
func selClones() string {
	var b strings.Builder
	for i := range selNumClones {
		fmt.Fprintf(&b, "-- pkg/p%02d/retry.go --\npackage p%02d\n\n// retryDelay doubles the delay after each failed attempt.\nfunc retryDelay(attempt int) int {\n\treturn 100 << attempt // p%02d\n}\n", i, i, i)
		// The first file takes longest to parse, so that parallel workers
		// finish the others before it.
		for j := range max(0, 150-i*50) {
			fmt.Fprintf(&b, "\nfunc unrelated%d(x int) int { return x * %d }\n", j, j)
		}
	}
	return b.String()
}

func TestSelectDeterministicAcrossBuilds(t *testing.T) {
	archive := selClones()
	var first []string
	for run := range 3 {
		ws, _ := selOpen(t, archive, Options{})
		got := selIDs(selDo(t, ws, &SelectRequest{Query: "retry delay doubles after a failed attempt"}))
		if run == 0 {
			first = got
			continue
		}
		if !slices.Equal(got, first) {
			t.Fatalf("build %d answers differently from build 0:\n got %q\nwant %q", run, got, first)
		}
	}
}

// TestSelectMemberCarriesTypeHeader: a method's item shows the class it
// belongs to (declaration and fields) before an elision marker, and its
// range claims only the method's lines; a method right after the header
// starts at the class instead. A second method of the same class does not
// repeat the header.
func TestSelectMemberCarriesTypeHeader(t *testing.T) {
	ws, root := selOpen(t, selApp, Options{})
	it, res := selItem(t, ws, root, &SelectRequest{Query: "CartStore totalCents reduce the items to a total"}, "sym:web/src/cart.ts::CartStore.totalCents")
	want := "// CartStore keeps the shopping cart in memory.\nexport class CartStore {\n  private items: CartItem[] = [];\n// … 10 lines …\n  totalCents(): number {"
	if !strings.HasPrefix(it.Text, want) {
		t.Errorf("totalCents text:\n%s\nwant it to start with the class header and a marker:\n%s", it.Text, want)
	}
	// The range claims the method and what follows it, not the header
	// (the marker stands for the lines between).
	if it.Span.StartLine != 19 || it.Span.EndLine < 21 {
		t.Errorf("totalCents span %+v, want it to start at line 19 and hold the method (to line 21)", it.Span)
	}
	if add := selFind(res, "sym:web/src/cart.ts::CartStore.add"); add != nil && strings.Contains(add.Text, "class CartStore") {
		t.Errorf("the second member repeats the header:\n%s", add.Text)
	}

	// The first member follows the header: its item is the class's head.
	add, _ := selItem(t, ws, root, &SelectRequest{Query: "CartStore add an item, merging quantities of the same sku"}, "sym:web/src/cart.ts::CartStore.add")
	if add.Span.StartLine > 6 ||
		!strings.Contains(add.Text, "// CartStore keeps the shopping cart in memory.\nexport class CartStore {\n  private items: CartItem[] = [];\n\n  add(item: CartItem): void {") {
		t.Errorf("add: %+v", add)
	}
}

// TestSelectTypeHeaderWithLongDoc: a type whose doc comment alone is
// longer than the header's bound gives its declaration and fields, not a
// cut comment.
func TestSelectTypeHeaderWithLongDoc(t *testing.T) {
	doc := strings.Repeat(" * The ledger keeps every posting of every account, in order.\n", 12)
	ws, root := selOpen(t, "-- src/Ledger.java --\npackage shop;\n\n/**\n"+doc+" */\npublic class Ledger {\n    private final long openingCents;\n\n    public Ledger(long openingCents) {\n        this.openingCents = openingCents;\n    }\n\n    public long balanceCents() {\n        return openingCents;\n    }\n}\n", Options{})
	it, _ := selItem(t, ws, root, &SelectRequest{Query: "ledger balanceCents"}, "sym:src/Ledger.java::Ledger.balanceCents")
	if !strings.HasPrefix(it.Text, "public class Ledger {\n    private final long openingCents;\n// … ") {
		t.Errorf("balanceCents text:\n%s", it.Text)
	}
}

// TestSelectClassYieldsOneMemberInItsPlace: a class that ranks high but
// loses to its own members in the collapse gives its place to one member;
// the others keep their own scores, so the file ranked next still comes
// among the first items rather than after every method of the class.
func TestSelectClassYieldsOneMemberInItsPlace(t *testing.T) {
	var b strings.Builder
	b.WriteString("-- billing/invoice.py --\nclass Invoice:\n    \"\"\"An invoice: lines, taxes and a total.\"\"\"\n\n")
	for _, m := range []string{"add_line", "remove_line", "tax", "discount", "currency", "due_date", "render", "send"} {
		fmt.Fprintf(&b, "    def %s(self, value):\n        self.%s_value = value\n        return self\n\n", m, m)
	}
	b.WriteString("-- billing/refunds.py --\ndef refund_invoice(invoice, amount):\n    \"\"\"Refund part of an invoice.\"\"\"\n    return invoice.total - amount\n")
	b.WriteString("-- billing/ledger.py --\ndef post_invoice(ledger, invoice):\n    \"\"\"Post an invoice to the ledger.\"\"\"\n    ledger.append(invoice)\n")
	ws, root := selOpen(t, b.String(), Options{})
	req := &SelectRequest{Query: "the invoice: lines, taxes and a total", Limit: 6}
	res := selDo(t, ws, req)
	selCheckItems(t, root, req, res)
	files := map[string]bool{}
	for _, it := range res.Items[:min(4, len(res.Items))] {
		files[it.Path] = true
	}
	if len(files) < 3 {
		t.Errorf("the first four items hold %d files, want the three that mention invoices: %q", len(files), selIDs(res))
	}
}
