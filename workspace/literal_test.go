package workspace

import (
	"fmt"
	"strings"
	"testing"
)

// kvstore is a small Go package whose words point at its alias,
// replacement and interface code (without the literal source the holders
// of `interface{}` rank 7th and 8th), while `interface{}`, which no index holds (the
// tokenizer drops punctuation), is written in two other files only.
const kvstore = `
-- go.mod --
module example.com/kvstore

go 1.22
-- alias.go --
package kvstore

// Alias maps an alias key to the key it stands for; replace an alias
// with its key before every lookup, so the alias reads as the key.
type Alias struct {
	keys map[string]string
}

// Replace replaces the alias with the key it stands for, or keeps it.
func (a *Alias) Replace(alias string) string {
	if k, ok := a.keys[alias]; ok {
		return k
	}
	return alias
}

// ReplaceAll replaces every alias in keys, reading each alias once.
func (a *Alias) ReplaceAll(keys []string) []string {
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = a.Replace(k)
	}
	return out
}
-- store.go --
package kvstore

// Store holds the values by key.
type Store struct {
	values map[string]interface{}
}

// Get returns the value stored under key.
func (s *Store) Get(key string) interface{} { return s.values[key] }
-- codec.go --
package kvstore

import "encoding/json"

// Decode turns bytes into a value.
func Decode(b []byte) (interface{}, error) {
	var v interface{}
	err := json.Unmarshal(b, &v)
	return v, err
}
-- iface.go --
package kvstore

// Interface is the interface of any store: any value with Get and Put,
// replaced with another Interface in tests.
type Interface interface {
	Get(key string) any
	Put(key string, v any)
}

// WithInterface returns any Interface wrapped with an alias, the
// interface every replacement store implements.
func WithInterface(i Interface, a *Alias) Interface { return i }
-- swap.go --
package kvstore

// SwapAny replaces any alias with the interface of any other store: any
// replacement reads as the alias, and the interface replaced with any.
func SwapAny(i Interface, alias string) Interface { return i }

// SwapReplace replaces the alias, any alias, with any interface.
func SwapReplace(i Interface) Interface { return i }
-- rename.go --
package kvstore

// RenameAny replaces any alias with the interface of any other store: any
// replacement reads as the alias, and the interface replaced with any.
func RenameAny(i Interface, alias string) Interface { return i }

// RenameReplace replaces the alias, any alias, with any interface.
func RenameReplace(i Interface) Interface { return i }
-- wrap.go --
package kvstore

// WrapAny replaces any alias with the interface of any other store: any
// replacement reads as the alias, and the interface replaced with any.
func WrapAny(i Interface, alias string) Interface { return i }

// WrapReplace replaces the alias, any alias, with any interface.
func WrapReplace(i Interface) Interface { return i }
-- cast.go --
package kvstore

// CastAny replaces any alias with the interface of any other store: any
// replacement reads as the alias, and the interface replaced with any.
func CastAny(i Interface, alias string) Interface { return i }

// CastReplace replaces the alias, any alias, with any interface.
func CastReplace(i Interface) Interface { return i }
-- limits.go --
package kvstore

// MaxKeys is the most keys a store holds.
const MaxKeys = 1 << 20
`

// A literal of code the request removes ("Replace interface{} with any")
// brings the files holding it, which its words do not find, ahead of the
// files its words match; one the request introduces brings nothing.
func TestSelectRemovedLiteralFindsItsFiles(t *testing.T) {
	ws, _ := selOpen(t, kvstore, Options{})
	rank := func(res *Selection, path string) int {
		for i, it := range res.Items {
			if strings.HasPrefix(it.ID, "sym:"+path+"::") {
				return i + 1
			}
		}
		return len(res.Items) + 1
	}
	res := selDo(t, ws, &SelectRequest{Query: "Replace interface{} with any\nThe alias any reads better.", Limit: 10})
	for _, p := range []string{"store.go", "codec.go"} {
		if r := rank(res, p); r > 2 {
			t.Errorf("%s, which holds interface{}, ranks %d: %q", p, r, selIDs(res))
		}
	}
	if it := selFind(res, "sym:codec.go::Decode"); it == nil || !strings.Contains(it.Why, "`interface{}`") {
		t.Errorf("Decode's why does not name the literal: %+v", it)
	}
	// Introduced, not removed: the files that hold it are not the change's.
	res = selDo(t, ws, &SelectRequest{Query: "Replace the alias with interface{}\nThe alias any reads better.", Limit: 10})
	for _, it := range res.Items {
		if it.Signals["literal"].Rank > 0 {
			t.Errorf("%s ranked by a literal the request introduces", it.ID)
		}
	}
}

// A change, a conversion, a move or a rename starts from what is there:
// "Change interface{} to any" brings the files holding interface{} as
// "Replace" does, and what it changes to counts for nothing.
func TestSelectChangedLiteralFindsItsFiles(t *testing.T) {
	ws, _ := selOpen(t, kvstore, Options{})
	for _, q := range []string{"Change interface{} to any\nThe alias any reads better.", "Switch from interface{} to any\nThe alias any reads better."} {
		res := selDo(t, ws, &SelectRequest{Query: q, Limit: 10})
		for _, p := range []string{"store.go", "codec.go"} {
			if it := selFind(res, "sym:"+p+"::"+map[string]string{"store.go": "Store", "codec.go": "Decode"}[p]); it == nil || it.Signals["literal"].Rank == 0 {
				t.Errorf("%q: %s, which holds interface{}, has no literal rank: %q", q, p, selIDs(res))
			}
		}
		if ids := selIDs(res); len(ids) < 2 || !strings.HasPrefix(ids[0], "sym:store.go::") && !strings.HasPrefix(ids[0], "sym:codec.go::") {
			t.Errorf("%q: a holder of interface{} is not first: %q", q, ids)
		}
	}
	res := selDo(t, ws, &SelectRequest{Query: "Change the alias default to interface{}\nThe alias any reads better.", Limit: 10})
	for _, it := range res.Items {
		if it.Signals["literal"].Rank > 0 {
			t.Errorf("%s ranked by a literal the request changes to", it.ID)
		}
	}
}

// handlers is a package where twelve handlers check `err != nil` and one
// decoder, also a handler's, returns `interface{}`.
func handlers() string {
	var b strings.Builder
	b.WriteString("-- go.mod --\nmodule example.com/handlers\n\ngo 1.22\n")
	for i := range 12 {
		fmt.Fprintf(&b, "-- h%02d.go --\npackage handlers\n\n// Handle%02d is a handler of requests.\nfunc Handle%02d(run func() error) error {\n\tif err := run(); err != nil {\n\t\treturn err\n\t}\n\treturn nil\n}\n", i, i, i)
	}
	b.WriteString("-- decode.go --\npackage handlers\n\n// DecodeBody is the handler's decoder of request bodies.\nfunc DecodeBody(b []byte) interface{} {\n\treturn string(b)\n}\n")
	return b.String()
}

// A literal too many files hold (`err != nil`) is dropped alone: the
// specific one written beside it in the request still counts.
func TestSelectRemovedLiteralCommonOneDroppedAlone(t *testing.T) {
	ws, _ := selOpen(t, handlers(), Options{})
	res := selDo(t, ws, &SelectRequest{Query: "Remove `err != nil` and interface{} from the request handlers", Limit: 20})
	it := selFind(res, "sym:decode.go::DecodeBody")
	if it == nil || it.Signals["literal"].Rank == 0 {
		t.Fatalf("DecodeBody, the one holder of interface{}, is not ranked by the literal: %+v", it)
	}
	for _, it := range res.Items {
		if it.Signals["literal"].Rank > 0 && it.ID != "sym:decode.go::DecodeBody" {
			t.Errorf("%s ranked by `err != nil`, which 12 files hold", it.ID)
		}
	}
}

// legacy is a file whose first two functions each call one of two legacy
// calls, after twelve steps (long enough that a symbol's text is not its
// file's), and a third calls neither.
var legacy = func() string {
	var b strings.Builder
	b.WriteString("-- go.mod --\nmodule example.com/legacy\n\ngo 1.22\n-- legacy.go --\npackage legacy\n")
	for _, f := range []struct{ name, doc, call string }{
		{"Open", "opens the store the legacy way", "legacyOpen()"},
		{"Close", "closes the store the legacy way", "legacyClose()"},
		{"Keep", "keeps the store", ""},
	} {
		fmt.Fprintf(&b, "\n// %s %s.\nfunc %s() {\n", f.name, f.doc, f.name)
		for i := range 12 {
			fmt.Fprintf(&b, "\tstep%d := %d\n\t_ = step%d\n", i, i, i)
		}
		if f.call != "" {
			fmt.Fprintf(&b, "\t%s\n", f.call)
		}
		b.WriteString("}\n")
	}
	b.WriteString("-- old.go --\npackage legacy\n\nfunc legacyOpen()  {}\nfunc legacyClose() {}\n")
	return b.String()
}()

// Each symbol's why names the literal it holds itself; a symbol that holds
// none is said to be in a file that holds one.
func TestSelectRemovedLiteralWhyNamesItsOwn(t *testing.T) {
	ws, _ := selOpen(t, legacy, Options{})
	res := selDo(t, ws, &SelectRequest{Query: "Remove the legacyOpen() and legacyClose() calls from the store", Limit: 20})
	for id, want := range map[string]string{
		"sym:legacy.go::Open":  "holds `legacyOpen()`",
		"sym:legacy.go::Close": "holds `legacyClose()`",
	} {
		it := selFind(res, id)
		if it == nil || !strings.Contains(it.Why, want) || strings.Contains(it.Why, "its file holds") {
			t.Errorf("%s's why does not say it %s: %+v in %q", id, want, it, selIDs(res))
		}
	}
	if it := selFind(res, "sym:legacy.go::Keep"); it != nil && it.Signals["literal"].Rank > 0 && !strings.Contains(it.Why, "its file holds `legacyOpen()`") {
		t.Errorf("Keep's why does not say its file holds the literal: %q", it.Why)
	}
}

// stores is a package of 240 store openers, whose words match a request
// better than those of the one file that writes its literal, zeta.go.
func stores() string {
	var b strings.Builder
	b.WriteString("-- go.mod --\nmodule example.com/stores\n\ngo 1.22\n")
	for i := range 240 {
		fmt.Fprintf(&b, "-- s%03d.go --\npackage stores\n\n// Open%03d opens the store: the store opener calls open on the store, true to the store.\nfunc Open%03d() { store.open(false) }\n", i, i, i)
	}
	b.WriteString("-- zeta.go --\npackage stores\n\n")
	for i := range 300 {
		fmt.Fprintf(&b, "func f%d() int { return %d }\n", i, i)
	}
	b.WriteString("\n// Begin begins.\nfunc Begin() {\n\tstore.open(true)\n}\n")
	return b.String()
}

// The file the user works in is scanned for the literal first, though the
// other sources' 200 files come before it in their lists.
func TestSelectRemovedLiteralPointedFilesFirst(t *testing.T) {
	ws, root := selOpen(t, stores(), Options{})
	res := selDo(t, ws, &SelectRequest{Query: "Remove the store.open(true) call from the store opener", Active: selPath(root, "zeta.go"), Cursor: &Cursor{Line: 304}, Limit: 20})
	if it := selFind(res, "sym:zeta.go::Begin"); it == nil || it.Signals["literal"].Rank == 0 {
		t.Errorf("Begin, at the cursor, which writes store.open(true), is not ranked by the literal: %+v in %q", it, selIDs(res))
	}
}

// An open document's unsaved text is the one scanned, not the disk's; and
// a request written with Windows line ends finds its literal.
func TestSelectRemovedLiteralUnsavedAndCRLF(t *testing.T) {
	ws, root := selOpen(t, legacy, Options{})
	res := selDo(t, ws, &SelectRequest{Query: "Remove legacyOpen()\r\nIt leaks the store", Limit: 20})
	if it := selFind(res, "sym:legacy.go::Open"); it == nil || it.Signals["literal"].Rank == 0 {
		t.Errorf("Open, which calls legacyOpen(), is not ranked by the literal of a CRLF request: %+v", it)
	}
	// In the editor, Keep calls legacyClose() and Close no longer does.
	selEdit(t, ws, root, "legacy.go", func(disk string) string {
		return strings.Replace(strings.Replace(disk, "\tlegacyClose()\n", "\tstep99 := 99\n\t_ = step99\n", 1), "func Keep() {\n", "func Keep() {\n\tlegacyClose()\n", 1)
	})
	res = selDo(t, ws, &SelectRequest{Query: "Remove the legacyClose() calls from the store", Limit: 20})
	if it := selFind(res, "sym:legacy.go::Keep"); it == nil || it.Signals["literal"].Rank == 0 || !strings.Contains(it.Why, "holds `legacyClose()`") {
		t.Errorf("Keep, which calls legacyClose() in the unsaved text, is not ranked by the literal: %+v in %q", it, selIDs(res))
	}
	if it := selFind(res, "sym:legacy.go::Close"); it != nil && strings.Contains(it.Why, "holds `legacyClose()`") && !strings.Contains(it.Why, "its file holds") {
		t.Errorf("Close is said to hold legacyClose(), which only its text on disk does: %q", it.Why)
	}
}

// BenchmarkSelectCommonLiteral: a request removing a literal 230 files
// hold (`err != nil`), whose search stops at the 11th.
func BenchmarkSelectCommonLiteral(b *testing.B) {
	var a strings.Builder
	a.WriteString("-- go.mod --\nmodule example.com/handlers\n\ngo 1.22\n")
	for i := range 230 {
		fmt.Fprintf(&a, "-- h%03d.go --\npackage handlers\n\n// Handle%03d is a handler of requests.\nfunc Handle%03d(run func() error) error {\n", i, i, i)
		for range 20 {
			a.WriteString("\tif err := run(); err != nil {\n\t\treturn err\n\t}\n")
		}
		a.WriteString("\treturn nil\n}\n")
	}
	ws, _ := selOpen(b, a.String(), Options{})
	// The same request without its literal is what the scan adds to.
	for name, q := range map[string]string{"literal": "Remove the `err != nil` checks from the request handlers", "words": "Remove the checks from the request handlers"} {
		b.Run(name, func(b *testing.B) {
			req := &SelectRequest{Query: q, Limit: 10}
			for range b.N {
				selDo(b, ws, req)
			}
		})
	}
}

// A request naming a long flag ("clarify --exec positional argument
// handling") is about the place that declares it (`"exec"` given to the
// flag parser), which the stem of a package of that name (exec/) would
// otherwise outrank.
func TestSelectFlagDeclarationLeads(t *testing.T) {
	ws, _ := selOpen(t, `
-- exec/exec.go --
package exec

// Command is a command template run for each search result, its
// positional arguments filled with the result's path.
type Command struct{ Args []string }

// Expand fills the positional argument placeholders with path.
func (c Command) Expand(path string) []string {
	out := make([]string, len(c.Args))
	for i, a := range c.Args {
		if a == "{}" {
			a = path
		}
		out[i] = a
	}
	return out
}
-- cli/options.go --
package cli

import "flag"

// Options are the parsed command line.
type Options struct {
	Exec  string
	Depth int
}

// Parse reads the command line into Options.
func Parse(args []string) Options {
	var o Options
	fs := flag.NewFlagSet("find", flag.ExitOnError)
	fs.StringVar(&o.Exec, "exec", "", "run a command for each search result")
	fs.IntVar(&o.Depth, "max-depth", 0, "descend at most this many levels")
	fs.Parse(args)
	return o
}
`, Options{})
	res := selDo(t, ws, &SelectRequest{Query: "docs: clarify --exec positional argument handling"})
	if files := selFiles(res); len(files) == 0 || files[0] != "cli/options.go" {
		t.Errorf("want cli/options.go, which declares --exec, first, got %q", files)
	}
	if it := selFind(res, "sym:cli/options.go::Parse"); it == nil || !strings.Contains(it.Why, "declaring a flag") {
		t.Errorf("want Parse's why to say it declares the flag, got %+v", it)
	}
}

// clapOpts is a Rust command line declared the clap-derive way: each long
// flag is a field of Opts (`--full-path` is `pub full_path: bool`), with
// no literal naming it; Opts is longer than an item's cap.
func clapOpts() string {
	var b strings.Builder
	b.WriteString("-- src/cli.rs --\nuse clap::Parser;\n\n/// The command line.\n#[derive(Parser)]\npub struct Opts {\n")
	for _, f := range []string{"hidden", "no_ignore", "case_sensitive", "ignore_case", "glob", "regex", "fixed_strings", "absolute_path", "list_details", "follow", "full_path", "null_separator", "max_depth", "min_depth", "prune", "max_results"} {
		fmt.Fprintf(&b, "    /// Changes how the full path of each entry is searched, or its path shown.\n    #[arg(long, hide_short_help = true)]\n    pub %s: bool,\n\n", f)
	}
	b.WriteString("}\n")
	b.WriteString(`-- src/walk.rs --
/// The string a pattern is matched against: the entry's path, made
/// absolute, or its file name.
pub fn search_str_for_entry(path: &str, absolute: bool) -> String {
    if absolute {
        return format!("/{}", path);
    }
    path.rsplit('/').next().unwrap_or(path).to_string()
}
`)
	return b.String()
}

// A request naming a long flag that a clap-derive struct declares as a
// field (`--full-path`: `pub full_path: bool`) is about that struct, and
// the item shows the field, not the struct's first lines.
func TestSelectFlagFieldDeclarationLeads(t *testing.T) {
	ws, _ := selOpen(t, clapOpts(), Options{})
	res := selDo(t, ws, &SelectRequest{Query: "docs: drop accidental --full-path edits from the path PR"})
	if files := selFiles(res); len(files) == 0 || files[0] != "src/cli.rs" {
		t.Fatalf("want src/cli.rs, which declares --full-path, first, got %q", files)
	}
	it := res.Items[0]
	// The why quotes the field as the code writes it, without the
	// spaces the lookup puts around it.
	if !strings.Contains(it.Text, "pub full_path: bool") || !strings.Contains(it.Why, "holds `full_path:`, a field or option named like a flag your request names") {
		t.Errorf("want the first item to show the full_path field and say it is named like the flag, got %q (why %q)", it.Text, it.Why)
	}
}

// A flag's field form holds only where a field or an option is declared:
// a function's typed parameter or a local's type named like the flag
// (Rust's `fn f(full_path: bool)`, `let full_path: bool`, Python's
// `def f(self, full_path: bool)`, TypeScript's `function f(full_path:
// boolean)`) declares nothing, and the literal source neither ranks their
// symbols for it nor says they hold it; the struct's field still leads.
func TestSelectFlagFieldOnlyDeclarations(t *testing.T) {
	ws, _ := selOpen(t, clapOpts()+`-- src/search.rs --
/// Whether a search matches the whole path.
pub fn search_full(pattern: &str, full_path: bool) -> bool {
    let full_path: bool = full_path || pattern.contains('/');
    full_path
}
-- scripts/search.py --
def search_full(pattern, full_path: bool = False):
    return full_path or "/" in pattern
-- web/search.ts --
export function searchFull(pattern: string, full_path: boolean): boolean {
  return full_path || pattern.includes('/');
}
`, Options{})
	res := selDo(t, ws, &SelectRequest{Query: "docs: drop accidental --full-path edits from the path PR"})
	if files := selFiles(res); len(files) == 0 || files[0] != "src/cli.rs" {
		t.Fatalf("want src/cli.rs, which declares --full-path, first, got %q", files)
	}
	for _, it := range res.Items {
		if it.Path != "src/cli.rs" && strings.Contains(it.Why, "full_path:") {
			t.Errorf("%s: why %q, but it declares no field full_path", it.ID, it.Why)
		}
	}
}
