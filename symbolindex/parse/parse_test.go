package parse

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"
)

// want is an expected symbol, found by its qualified name.
type want struct {
	qualified          string
	kind               Kind
	startLine, endLine uint32
	sig, doc           string
}

var parseCases = []struct {
	file   string
	lang   string
	want   []want
	absent []string // qualified names that must not be symbols
	refs   []string // identifiers that must be among the refs
}{
	{
		file: "server.go", lang: LangGo,
		want: []want{
			{"DefaultAddr", KindConst, 10, 10, `const DefaultAddr = ":8080"`, "DefaultAddr is where Start listens when no address is given."},
			{"MaxConns", KindConst, 13, 16, "const (", "Limits on connections."},
			{"errClosed", KindVar, 18, 18, `var errClosed = fmt.Errorf("server closed")`, ""},
			{"Server", KindStruct, 22, 26, "type Server[T any] struct", "Server serves requests for one site.\nIt is safe for concurrent use."},
			{"Handler", KindInterface, 30, 32, "Handler interface", "Handler handles one request."},
			{"ID", KindType, 33, 33, "ID int", ""},
			{"Alias", KindType, 34, 34, "Alias = string", ""},
			{"Server.Start", KindMethod, 41, 47, "func (s *Server[T]) Start(ctx context.Context) error", "Start listens on the server's address\nand blocks until ctx is done."},
			{"Server.Addr", KindMethod, 49, 49, "func (s Server[T]) Addr() string", ""},
			{"New", KindFunction, 52, 55, "func New[T any](addr string, handler http.Handler) *Server[T]", "New returns a Server for addr."},
		},
		absent: []string{"MaxIdle", "done"},
		refs:   []string{"Errorf", "ListenAndServe", "Context", "Request"},
	},
	{
		file: "shapes.py", lang: LangPython,
		want: []want{
			{"MAX_SIDES", KindConst, 4, 4, "MAX_SIDES = 12", ""},
			{"Point", KindClass, 8, 28, "@dataclass(frozen=True) class Point", "A point in the plane."},
			{"Point.norm", KindMethod, 15, 22, "@property def norm(self) -> float", "Distance from the origin."},
			{"Point.Meta", KindClass, 24, 28, "class Meta", ""},
			{"Point.Meta.describe", KindMethod, 27, 28, "def describe(self)", ""},
			{"fetch_shape", KindFunction, 31, 35, `async def fetch_shape(client, shape_id: int) -> "Point"`, "Fetch one shape\nby id."},
		},
		absent: []string{"default_color", "square", "Point.norm.square"},
		refs:   []string{"dataclass", "sqrt", "property"},
	},
	{
		file: "widget.ts", lang: LangTypeScript,
		want: []want{
			{"WidgetOptions", KindInterface, 3, 6, "export interface WidgetOptions", "Options for a Widget."},
			{"Size", KindType, 8, 8, "export type Size = 'sm' | 'md' | 'lg';", ""},
			{"Color", KindEnum, 10, 13, "export enum Color", ""},
			{"Widget", KindClass, 18, 32, "export class Widget extends Emitter", "A Widget renders itself into a container."},
			{"Widget.constructor", KindMethod, 21, 24, "constructor(opts: WidgetOptions)", ""},
			{"Widget.render", KindMethod, 27, 29, "render(el: HTMLElement): void", "Renders into el."},
			{"Widget.create", KindMethod, 31, 31, "static create = (id: string) =>", ""},
			{"DEFAULT_SIZE", KindConst, 34, 34, "export const DEFAULT_SIZE = 3;", ""},
			{"formatSize", KindFunction, 37, 40, "export const formatSize = (s: Size): string =>", "Formats a size for display."},
			{"mount", KindFunction, 42, 44, "export function mount(w: Widget, el: HTMLElement)", ""},
		},
		absent: []string{"upper", "helpers", "formatSize.upper"},
		refs:   []string{"Emitter", "HTMLElement", "appendChild"},
	},
	{
		file: "App.tsx", lang: LangTSX,
		want: []want{
			{"Props", KindType, 2, 2, "type Props = { title: string };", ""},
			{"Greeting", KindFunction, 5, 7, "export function Greeting({ title }: Props)", "Greeting shows a title."},
			{"Counter", KindFunction, 10, 13, "export const Counter = () =>", "Counter counts clicks."},
			{"App", KindFunction, 15, 22, "export default function App(): JSX.Element", ""},
		},
		absent: []string{"n", "setN"},
		refs:   []string{"useState", "Element"},
	},
	{
		file: "list.jsx", lang: LangJavaScript,
		want: []want{
			{"loadItems", KindFunction, 3, 6, "export async function loadItems(list)", "Loads items into the list."},
			{"ItemList", KindClass, 8, 16, "export class ItemList extends React.Component", ""},
			{"ItemList.handleClick", KindMethod, 9, 11, "handleClick = (item) =>", ""},
			{"ItemList.render", KindMethod, 13, 15, "render()", ""},
			{"Item", KindFunction, 18, 20, "function Item({ item, onClick })", ""},
			{"config", KindConst, 22, 22, "const config = { retries: 3 };", ""},
			{"counter", KindVar, 23, 23, "let counter = 0;", ""},
		},
		absent: []string{"items"},
		refs:   []string{"fetchItems", "Component", "onSelect"},
	},
	{
		file: "reply.js", lang: LangJavaScript,
		want: []want{
			{"eos", KindConst, 2, 2, "const eos = require('node:stream').finished", ""},
			{"CONTENT_TYPE", KindConst, 5, 8, "const CONTENT_TYPE =", ""},
			{"Reply", KindFunction, 11, 16, "function Reply (res, request, log)", "Reply wraps the raw response of one request."},
			{"Reply.redirect", KindMethod, 26, 31, "Reply.prototype.redirect = function (url, code)", "Sends a redirect to url, with code (302 unless given)."},
			{"Reply.header", KindMethod, 33, 36, "Reply.prototype.header = function (key, value = '')", ""},
			{"Reply.then", KindMethod, 38, 40, "Reply.prototype.then = async function (fulfilled, rejected)", ""},
			{"serialize", KindFunction, 45, 47, "function serialize (context, data, statusCode)", "serialize turns a payload into the response body."},
			{"buildReply", KindFunction, 50, 57, "module.exports.buildReply = function (R)", "buildReply makes a Reply subclass for one server."},
			{"isReply", KindFunction, 59, 59, "exports.isReply = (value) =>", ""},
			{"onSend", KindFunction, 64, 66, "onSend (reply, payload)", "onSend runs the onSend hooks."},
			{"onError", KindFunction, 67, 69, "onError: function (reply, err)", ""},
			{"res", KindConst, 74, 74, "const res = Object.create(null)", "A module object's methods, as in express: res.send is a method of res."},
			{"res.send", KindMethod, 76, 78, "res.send = function send (body)", ""},
		},
		// Aliases, property descriptors, locals and plain values are not
		// methods.
		absent: []string{"Reply.status", "Reply.sent", "sent", "_Reply.local", "local", "limits", "Reply.code"},
		refs:   []string{"finished", "toLowerCase", "stringify"},
	},
	{
		file: "lib.rs", lang: LangRust,
		want: []want{
			{"Point", KindStruct, 6, 9, "pub struct Point", "A point in 2D.\nCoordinates are integers."},
			{"Shape", KindEnum, 12, 15, "pub enum Shape", "Shapes we know."},
			{"Area", KindInterface, 18, 20, "pub trait Area", "Things with an area."},
			{"Area.area", KindMethod, 19, 19, "fn area(&self) -> f64;", ""},
			{"Point.new", KindMethod, 24, 27, "pub fn new(x: i64, y: i64) -> Self", "Creates a point."},
			{"Point.fmt", KindMethod, 31, 33, "fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result", ""},
			{"Registry", KindType, 36, 36, "pub type Registry = HashMap<String, Point>;", ""},
			{"ORIGIN", KindConst, 37, 37, "pub const ORIGIN: Point = Point { x: 0, y: 0 };", ""},
			{"COUNTER", KindVar, 38, 38, "static mut COUNTER: u32 = 0;", ""},
			{"tests", KindModule, 40, 42, "mod tests", ""},
			{"tests.check", KindFunction, 41, 41, "fn check()", ""},
		},
		absent: []string{"helper", "Point.helper", "Point.new.helper"},
		refs:   []string{"HashMap", "Formatter", "write"},
	},
	{
		file: "Repository.java", lang: LangJava,
		want: []want{
			{"Repository", KindClass, 10, 31, "@Deprecated public class Repository<T> implements Store<T>", "An in-memory repository.\n\n@param <T> the item type"},
			{"Repository.Repository", KindMethod, 15, 16, "public Repository()", "Creates an empty repository."},
			{"Repository.find", KindMethod, 19, 22, "@Override public T find(String id)", "Finds an item by id."},
			{"Repository.Entry", KindClass, 24, 28, "static class Entry", ""},
			{"Repository.Entry.touch", KindMethod, 25, 25, "void touch()", ""},
			{"Repository.Entry.State", KindEnum, 27, 27, "enum State", ""},
			{"Repository.Entry.State.fresh", KindMethod, 27, 27, "boolean fresh()", ""},
			{"Repository.Pair", KindClass, 30, 30, "record Pair(String key, T value)", ""},
			{"Store", KindInterface, 33, 35, "interface Store<T>", ""},
			{"Store.find", KindMethod, 34, 34, "T find(String id);", ""},
		},
		refs: []string{"HashMap", "Override", "Deprecated"},
	},
	{
		file: "Tool.cs", lang: LangCSharp,
		want: []want{
			{"Tool", KindClass, 6, 23, "[Serializable] public class Tool : IDisposable", "A tool that runs jobs."},
			{"Tool.Tool", KindMethod, 9, 9, "public Tool(string name)", ""},
			{"Tool.RunAsync", KindMethod, 15, 15, "public async Task<int> RunAsync(int n)", "Runs the job.\nHow many times."},
			{"Tool.Options", KindClass, 17, 20, "public class Options", ""},
			{"Tool.Options.Validate", KindMethod, 19, 19, "public void Validate()", ""},
			{"Tool.Dispose", KindMethod, 22, 22, "public void Dispose()", ""},
			{"IShape", KindInterface, 25, 25, "public interface IShape", ""},
			{"IShape.Area", KindMethod, 25, 25, "double Area();", ""},
			{"Vec", KindStruct, 27, 27, "public struct Vec", ""},
			{"Color", KindEnum, 29, 29, "public enum Color", ""},
			{"Person", KindClass, 31, 31, "public record Person(string First, string Last);", ""},
		},
		absent: []string{"Acme.Tools.Tool", "Tools.Tool"},
		refs:   []string{"IDisposable", "Task", "FromResult"},
	},
	{
		file: "shape.cpp", lang: LangCPP,
		want: []want{
			{"Shape", KindClass, 6, 22, "class Shape", "A shape with sides."},
			{"Shape.area", KindMethod, 12, 12, "virtual double area() const = 0;", "Area of the shape."},
			{"Shape.sides", KindMethod, 14, 14, "int sides() const", ""},
			{"Shape.Cache", KindStruct, 16, 18, "struct Cache", ""},
			{"Box", KindClass, 24, 30, "template <typename T> class Box", ""},
			{"Box.get", KindMethod, 32, 35, "template <typename T> T Box<T>::get() const", ""},
			{"Shape.Shape", KindMethod, 38, 38, "Shape::Shape(int sides) : sides_(sides)", "Builds a shape."},
			{"Shape.~Shape", KindMethod, 40, 40, "Shape::~Shape()", ""},
			{"make_shapes", KindFunction, 42, 46, "std::vector<Shape*> make_shapes(int n)", ""},
		},
		absent: []string{"geo.Shape", "geo"},
		refs:   []string{"vector", "reserve"},
	},
	{
		file: "list.c", lang: LangC,
		want: []want{
			{"LIST_MAX", KindConst, 2, 2, "#define LIST_MAX 128", ""},
			{"SQUARE", KindFunction, 3, 3, "#define SQUARE(x) ((x) * (x))", ""},
			{"node", KindStruct, 6, 9, "struct node", "A singly linked list node."},
			{"node_t", KindType, 11, 11, "typedef struct node node_t;", ""},
			{"number", KindStruct, 13, 13, "union number", ""},
			{"color", KindEnum, 15, 15, "enum color", ""},
			{"list_len", KindFunction, 20, 20, "int list_len(const node_t *head);", ""},
			{"list_push", KindFunction, 25, 30, "node_t *list_push(node_t *head, int value)", "Pushes value in front of head and returns the new head."},
		},
		refs: []string{"malloc"},
	},
	{
		file: "greeter.rb", lang: LangRuby,
		want: []want{
			{"Greeter", KindModule, 3, 22, "module Greeter", "Greetings for people."},
			{"Greeter.Person", KindClass, 5, 16, "class Person < Base", "A person who can be greeted."},
			{"Greeter.Person.greet", KindMethod, 9, 11, "def greet(other)", "Says hello to other."},
			{"Greeter.Person.create", KindMethod, 13, 15, "def self.create(name)", ""},
			{"Greeter.Admin.Role", KindClass, 18, 19, "class Admin::Role", ""},
			{"Greeter.shout", KindFunction, 21, 21, "def shout(text); text.upcase; end", ""},
			{"main", KindFunction, 24, 26, "def main", ""},
		},
		refs: []string{"Base", "attr_reader", "upcase"},
	},
	{
		file: "User.php", lang: LangPHP,
		want: []want{
			{"User", KindClass, 8, 22, "final class User extends Model implements HasName", "A registered user."},
			{"User.fullName", KindMethod, 13, 16, "public function fullName(): string", "The full name."},
			{"User.make", KindMethod, 18, 21, "public static function make(array $attrs): static", ""},
			{"HasName", KindInterface, 24, 27, "interface HasName", ""},
			{"HasName.fullName", KindMethod, 26, 26, "public function fullName(): string;", ""},
			{"Notifiable", KindClass, 29, 32, "trait Notifiable", ""},
			{"Notifiable.notify", KindMethod, 31, 31, "public function notify(string $msg): void", ""},
			{"Suit", KindEnum, 34, 37, "enum Suit: string", ""},
			{"make_user", KindFunction, 40, 43, "function make_user(array $a): User", "Builds a user."},
		},
		absent: []string{"App.Models.User"},
		refs:   []string{"Model", "strtoupper"},
	},
}

func readTestdata(t testing.TB, name string) []byte {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("testdata", "parse", name))
	if err != nil {
		t.Fatal(err)
	}
	return src
}

func TestParseLanguages(t *testing.T) {
	p := NewParser()
	defer p.Close()
	for _, tc := range parseCases {
		t.Run(tc.file, func(t *testing.T) {
			src := readTestdata(t, tc.file)
			pf, err := p.Parse(tc.file, src)
			if err != nil {
				t.Fatal(err)
			}
			if pf.Language != tc.lang {
				t.Errorf("Language = %q, want %q", pf.Language, tc.lang)
			}
			if pf.SyntaxErrors {
				t.Errorf("SyntaxErrors = true for a valid file")
			}
			checkInvariants(t, src, pf)
			byQual := make(map[string]Symbol)
			for _, s := range pf.Symbols {
				if _, dup := byQual[s.Qualified]; !dup {
					byQual[s.Qualified] = s
				}
			}
			for _, w := range tc.want {
				s, ok := byQual[w.qualified]
				if !ok {
					t.Errorf("missing symbol %q; have %v", w.qualified, qualifiedNames(pf.Symbols))
					continue
				}
				if wantName := lastSegment(w.qualified); s.Name != wantName {
					t.Errorf("%s: Name = %q, want %q", w.qualified, s.Name, wantName)
				}
				if s.Kind != w.kind {
					t.Errorf("%s: Kind = %v, want %v", w.qualified, s.Kind, w.kind)
				}
				if s.Range.StartLine != w.startLine || s.Range.EndLine != w.endLine {
					t.Errorf("%s: lines %d-%d, want %d-%d", w.qualified, s.Range.StartLine, s.Range.EndLine, w.startLine, w.endLine)
				}
				if s.Signature != w.sig {
					t.Errorf("%s: Signature = %q, want %q", w.qualified, s.Signature, w.sig)
				}
				if s.Doc != w.doc {
					t.Errorf("%s: Doc = %q, want %q", w.qualified, s.Doc, w.doc)
				}
			}
			if len(pf.Symbols) != len(tc.want) {
				t.Errorf("got %d symbols %v, want %d", len(pf.Symbols), qualifiedNames(pf.Symbols), len(tc.want))
			}
			for _, a := range tc.absent {
				if _, ok := byQual[a]; ok {
					t.Errorf("%q must not be a symbol", a)
				}
			}
			refs := make(map[string]bool)
			for _, r := range pf.Refs {
				refs[r] = true
			}
			for _, r := range tc.refs {
				if !refs[r] {
					t.Errorf("ref %q missing from %v", r, pf.Refs)
				}
			}
		})
	}
}

func lastSegment(q string) string {
	return q[strings.LastIndexByte(q, '.')+1:]
}

func qualifiedNames(syms []Symbol) []string {
	out := make([]string, len(syms))
	for i, s := range syms {
		out[i] = s.Qualified
	}
	return out
}

// checkInvariants checks what must hold for every parse result: ranges
// agree with byte offsets and lie within the source, symbols are in source
// order, limits hold, refs are distinct and exclude defined names.
func checkInvariants(t *testing.T, src []byte, pf *ParsedFile) {
	t.Helper()
	defined := make(map[string]bool)
	var prevStart uint32
	lineStart := []int{0} // computed independently of the parser's table
	for i, c := range src {
		if c == '\n' {
			lineStart = append(lineStart, i+1)
		}
	}
	positionOf := func(off uint32) [2]uint32 {
		line := sort.Search(len(lineStart), func(i int) bool { return lineStart[i] > int(off) }) - 1
		return [2]uint32{uint32(line), off - uint32(lineStart[line])}
	}
	validUTF8 := utf8.Valid(src)
	for i, s := range pf.Symbols {
		defined[s.Name] = true
		if s.Name == "" || s.Qualified == "" {
			t.Errorf("symbol %d has an empty name: %+v", i, s)
		}
		if s.Kind == KindUnknown || s.Kind > KindFile {
			t.Errorf("%s: bad kind %v", s.Qualified, s.Kind)
		}
		if s.StartByte >= s.EndByte || int(s.EndByte) > len(src) {
			t.Errorf("%s: bytes [%d,%d) outside source of %d bytes or empty", s.Qualified, s.StartByte, s.EndByte, len(src))
			continue
		}
		if got := positionOf(s.StartByte); got != [2]uint32{s.Range.StartLine, s.Range.StartCol} {
			t.Errorf("%s: range start %d:%d, bytes say %d:%d", s.Qualified, s.Range.StartLine, s.Range.StartCol, got[0], got[1])
		}
		if got := positionOf(s.EndByte); got != [2]uint32{s.Range.EndLine, s.Range.EndCol} {
			t.Errorf("%s: range end %d:%d, bytes say %d:%d", s.Qualified, s.Range.EndLine, s.Range.EndCol, got[0], got[1])
		}
		if i > 0 && s.StartByte < prevStart {
			t.Errorf("%s: symbols out of source order", s.Qualified)
		}
		prevStart = s.StartByte
		if len(s.Signature) > maxSignatureBytes || len(s.Doc) > maxDocBytes {
			t.Errorf("%s: signature (%d) or doc (%d) too long", s.Qualified, len(s.Signature), len(s.Doc))
		}
		if validUTF8 && (!utf8.ValidString(s.Signature) || !utf8.ValidString(s.Doc)) {
			t.Errorf("%s: signature or doc is not valid UTF-8", s.Qualified)
		}
	}
	if len(pf.Refs) > maxRefs {
		t.Errorf("%d refs, cap is %d", len(pf.Refs), maxRefs)
	}
	seen := make(map[string]bool)
	for _, r := range pf.Refs {
		switch {
		case seen[r]:
			t.Errorf("ref %q repeated", r)
		case len(r) < minRefLen:
			t.Errorf("ref %q is too short", r)
		case defined[r]:
			t.Errorf("ref %q is a name the file defines", r)
		}
		seen[r] = true
	}
}

func TestParseSyntaxErrors(t *testing.T) {
	cases := []struct {
		file string
		src  string
		want []string
	}{
		{"broken.go", `package x

func Good() int { return 1 }

func Broken() {
	x :=
	if x == {
	}
}

type Config struct{ Name string }

func AlsoGood() {}
`, []string{"Good", "Broken", "Config", "AlsoGood"}},
		{"broken.py", `def ok():
    return 1

def broken(:
    pass

class Fine:
    def method(self):
        return 2
`, []string{"ok", "Fine", "Fine.method"}},
		{"broken.ts", `export function first(): number { return 1; }
const = ;
export class Later { run() {} }
`, []string{"first", "Later", "Later.run"}},
	}
	p := NewParser()
	defer p.Close()
	for _, tc := range cases {
		t.Run(tc.file, func(t *testing.T) {
			pf, err := p.Parse(tc.file, []byte(tc.src))
			if err != nil {
				t.Fatal(err)
			}
			if !pf.SyntaxErrors {
				t.Error("SyntaxErrors = false for a broken file")
			}
			checkInvariants(t, []byte(tc.src), pf)
			have := make(map[string]bool)
			for _, s := range pf.Symbols {
				have[s.Qualified] = true
			}
			for _, w := range tc.want {
				if !have[w] {
					t.Errorf("symbol %q not recovered; have %v", w, qualifiedNames(pf.Symbols))
				}
			}
		})
	}
}

func TestParseEmptyAndDefinitionlessFiles(t *testing.T) {
	p := NewParser()
	defer p.Close()
	for _, name := range []string{"empty.go", "empty.py", "empty.ts", "empty.md", "empty.yaml", "empty.txt"} {
		for _, src := range []string{"", "\n\n  \n"} {
			pf, err := p.Parse(name, []byte(src))
			if err != nil {
				t.Fatalf("%s %q: %v", name, src, err)
			}
			if len(pf.Symbols) != 0 || len(pf.Refs) != 0 {
				t.Errorf("%s %q: got symbols %v refs %v, want none", name, src, qualifiedNames(pf.Symbols), pf.Refs)
			}
		}
	}

	// A script without definitions is one file symbol spanning it.
	src := "#!/usr/bin/env python3\nimport sys\nprint(sys.argv)\n\n"
	pf, err := p.Parse("tools/run.py", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	checkInvariants(t, []byte(src), pf)
	if len(pf.Symbols) != 1 {
		t.Fatalf("got %v, want one file symbol", qualifiedNames(pf.Symbols))
	}
	s := pf.Symbols[0]
	if s.Kind != KindFile || s.Name != "run.py" || s.StartByte != 0 || int(s.EndByte) != len(strings.TrimSpace(src)) {
		t.Errorf("file symbol = %+v", s)
	}
	if s.Signature != "#!/usr/bin/env python3" {
		t.Errorf("file symbol signature = %q", s.Signature)
	}
}

// generatedGo returns a Go file with n functions and n/4 types.
func generatedGo(n int) []byte {
	var b bytes.Buffer
	b.WriteString("// Code generated for tests. DO NOT EDIT.\n\npackage gen\n\nimport \"fmt\"\n\n")
	for i := 0; i < n; i++ {
		if i%4 == 0 {
			fmt.Fprintf(&b, "// Record%d holds generated state.\ntype Record%d struct {\n\tID   int\n\tName string\n}\n\n", i, i)
			fmt.Fprintf(&b, "// Describe%d formats the record.\nfunc (r *Record%d) Describe%d() string {\n\treturn fmt.Sprintf(\"%%d:%%s\", r.ID, r.Name)\n}\n\n", i, i, i)
			continue
		}
		fmt.Fprintf(&b, "// Compute%d adds up its inputs.\nfunc Compute%d(a, b int) int {\n\tif a > b {\n\t\treturn a - b + %d\n\t}\n\tfor i := 0; i < b; i++ {\n\t\ta += i\n\t}\n\treturn a + b\n}\n\n", i, i, i)
	}
	return b.Bytes()
}

// generatedTS returns a TypeScript file of about the given size.
func generatedTS(n int) []byte {
	var b bytes.Buffer
	b.WriteString("import { Base } from './base';\n\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, `/** Options for service %d. */
export interface Options%d {
  name: string;
  retries?: number;
}

/** Service%d talks to the backend. */
export class Service%d extends Base {
  constructor(private readonly opts: Options%d) {
    super();
  }

  async fetch(id: string): Promise<string> {
    const res = await this.client.get('/items/' + id);
    return res.body.toString();
  }
}

export const make%d = (o: Options%d) => new Service%d(o);

`, i, i, i, i, i, i, i, i)
	}
	return b.Bytes()
}

func TestParseLargeGeneratedFile(t *testing.T) {
	const size = 2 << 20
	n := (size/(len(generatedGo(100))/100) + 100) &^ 3 // a multiple of 4: ends with a Compute function
	src := generatedGo(n)
	if len(src) < size {
		t.Fatalf("generated only %d bytes", len(src))
	}
	p := NewParser()
	defer p.Close()
	pf, err := p.Parse("gen.go", src)
	if err != nil {
		t.Fatal(err)
	}
	if pf.SyntaxErrors {
		t.Error("SyntaxErrors on a valid generated file")
	}
	types := (n + 3) / 4
	if want := n + types; len(pf.Symbols) != want {
		t.Errorf("%d bytes: got %d symbols, want %d", len(src), len(pf.Symbols), want)
	}
	last := pf.Symbols[len(pf.Symbols)-1]
	if last.Name != fmt.Sprintf("Compute%d", n-1) || last.Doc != fmt.Sprintf("Compute%d adds up its inputs.", n-1) {
		t.Errorf("last symbol = %+v", last)
	}
	checkInvariants(t, src, pf)
}

// TestParseCommonJSTypeScript checks the prototype and CommonJS export
// forms in TypeScript (and in JavaScript, for the forms reply.js lacks), and
// the look-alikes that must not become symbols.
func TestParseCommonJSTypeScript(t *testing.T) {
	src := []byte(`// Router matches paths to handlers.
export function Router(this: any, opts: Options) {
  this.routes = [];
}

/** on registers a handler. */
Router.prototype.on = function (method: string, path: string, handler: Handler) {
  this.routes.push({ method, path, handler });
};

Router.prototype.find = (path: string): Handler | undefined => undefined;
Router.prototype.version = 2;
Router.prototype.off = Router.prototype.on;
router.exports.notAnExport = function () {};
exports.count = 0;

exports.createRouter = (opts: Options) => new (Router as any)(opts);
module.exports.defaults = function* defaults() {
  yield 1;
};
module.exports = {
  // matches reports whether a path matches.
  matches(path: string): boolean {
    return path.length > 0;
  },
  normalize: (path: string) => path.toLowerCase(),
  limit: 10,
};
// app.listen starts the server.
app.listen = function listen(port: number) {
  return port;
};
`)
	p := NewParser()
	defer p.Close()
	pf, err := p.Parse("router.ts", src)
	if err != nil {
		t.Fatal(err)
	}
	if pf.SyntaxErrors {
		t.Error("SyntaxErrors on valid TypeScript")
	}
	checkInvariants(t, src, pf)
	want := []struct {
		qualified string
		kind      Kind
		doc       string
	}{
		{"Router", KindFunction, "Router matches paths to handlers."},
		{"Router.on", KindMethod, "on registers a handler."},
		{"Router.find", KindMethod, ""},
		{"createRouter", KindFunction, ""},
		{"defaults", KindFunction, ""},
		{"matches", KindFunction, "matches reports whether a path matches."},
		{"normalize", KindFunction, ""},
		{"app.listen", KindMethod, "app.listen starts the server."},
	}
	if len(pf.Symbols) != len(want) {
		t.Fatalf("symbols %v, want %d", qualifiedNames(pf.Symbols), len(want))
	}
	for i, w := range want {
		s := pf.Symbols[i]
		if s.Qualified != w.qualified || s.Kind != w.kind || s.Doc != w.doc {
			t.Errorf("symbol %d = %s %v %q, want %s %v %q", i, s.Qualified, s.Kind, s.Doc, w.qualified, w.kind, w.doc)
		}
	}

	// The same forms in plain JavaScript.
	js := []byte("function Store() {}\nStore.prototype.get = function* (k) { yield k }\nexports.open = async function () {}\nmodule.exports = { close () {} }\n")
	pf, err = p.Parse("store.js", js)
	if err != nil {
		t.Fatal(err)
	}
	if got := qualifiedNames(pf.Symbols); !reflect.DeepEqual(got, []string{"Store", "Store.get", "open", "close"}) {
		t.Errorf("store.js: symbols %v", got)
	}
}

func TestParseRefs(t *testing.T) {
	src := []byte(`package x

type Store struct{}

func (s *Store) Get(k string) (Value, error) {
	v, err := lookup(k)
	if err != nil {
		return Value{}, fmt.Errorf("get: %w", err)
	}
	s.Get(k)
	return decode(v), nil
}
`)
	p := NewParser()
	defer p.Close()
	pf, err := p.Parse("x.go", src)
	if err != nil {
		t.Fatal(err)
	}
	checkInvariants(t, src, pf)
	got := strings.Join(pf.Refs, " ")
	// In order of first use; Store/Get are defined here; "x", "v", "k" are
	// too short; local variables are not references.
	if want := "string Value error lookup Errorf decode"; got != want {
		t.Errorf("Refs = %q, want %q", got, want)
	}
}

func TestParseRefsCap(t *testing.T) {
	var b strings.Builder
	b.WriteString("package x\n\nfunc F() {\n")
	for i := 0; i < maxRefs+500; i++ {
		fmt.Fprintf(&b, "\tcall%d()\n", i)
	}
	b.WriteString("}\n")
	p := NewParser()
	defer p.Close()
	pf, err := p.Parse("x.go", []byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	if len(pf.Refs) != maxRefs || pf.Refs[0] != "call0" || pf.Refs[maxRefs-1] != fmt.Sprintf("call%d", maxRefs-1) {
		t.Errorf("got %d refs (%q..%q), want the first %d", len(pf.Refs), pf.Refs[0], pf.Refs[len(pf.Refs)-1], maxRefs)
	}
}

func TestDetectLanguage(t *testing.T) {
	cases := []struct {
		path string
		head string
		want string
	}{
		{"cmd/main.go", "", LangGo},
		{"src/app.ts", "", LangTypeScript},
		{"src/app.mts", "", LangTypeScript},
		{"src/app.cts", "", LangTypeScript},
		{"types/index.d.ts", "", LangTypeScript},
		{"src/App.tsx", "", LangTSX},
		{"src/app.js", "", LangJavaScript},
		{"src/app.mjs", "", LangJavaScript},
		{"src/app.cjs", "", LangJavaScript},
		{"src/App.jsx", "", LangJavaScript},
		{"pkg/mod.py", "", LangPython},
		{"src/lib.rs", "", LangRust},
		{"src/Main.java", "", LangJava},
		{"src/list.c", "", LangC},
		{"include/list.h", "", LangC},
		{"src/a.cc", "", LangCPP},
		{"src/a.cpp", "", LangCPP},
		{"src/a.cxx", "", LangCPP},
		{"include/a.hpp", "", LangCPP},
		{"include/a.hh", "", LangCPP},
		{"include/a.hxx", "", LangCPP},
		{"src/Tool.cs", "", LangCSharp},
		{"lib/a.rb", "", LangRuby},
		{"Rakefile", "", LangRuby},
		{"Gemfile", "", LangRuby},
		{"src/User.php", "", LangPHP},
		{"README.md", "", LangMarkdown},
		{"docs/guide.markdown", "", LangMarkdown},
		{"docs/page.mdx", "", LangMarkdown},
		{".github/workflows/ci.yml", "", LangYAML},
		{"config.yaml", "", LangYAML},
		{"Cargo.toml", "", LangTOML},
		{"package.json", "", LangJSON},
		{"tsconfig.json", "", LangJSON},
		{"scripts/build.sh", "", LangShell},
		{"scripts/x.bash", "", LangShell},
		{"scripts/x.zsh", "", LangShell},
		{"Dockerfile", "", LangDockerfile},
		{"build/Dockerfile.dev", "", LangDockerfile},
		{"images/app.dockerfile", "", LangDockerfile},
		{"Containerfile", "", LangDockerfile},
		{"Makefile", "", LangMakefile},
		{"GNUmakefile", "", LangMakefile},
		{"rules.mk", "", LangMakefile},
		{"notes.txt", "", LangText},
		{"docs/index.rst", "", LangText},
		{"setup.cfg", "", LangText},
		{"php.ini", "", LangText},
		{"nginx.conf", "", LangText},
		{".env.example", "", LangText},
		{"schema.sql", "", LangText},
		{"api.proto", "", LangText},
		{"schema.graphql", "", LangText},
		{"style.css", "", LangText},
		{"style.scss", "", LangText},
		{"index.html", "", LangText},
		{"pom.xml", "", LangText},
		{"build.gradle", "", LangText},
		{"gradle.properties", "", LangText},
		{"LICENSE", "Copyright 2024", LangText},
		{"bin/tool", "#!/usr/bin/env python3\nimport sys\n", LangPython},
		{"bin/tool", "#!/bin/bash\nset -e\n", LangShell},
		{"bin/tool", "#!/usr/bin/env node\n", LangJavaScript},
		{"bin/tool", "#!/usr/bin/ruby\n", LangRuby},
		{"bin/tool", "\x7fELF\x02\x01\x01\x00\x00", ""},
		{"go.sum", "", ""},
		{"package-lock.json", "", ""},
		{"web/yarn.lock", "", ""},
		{"Cargo.lock", "", ""},
		{"pnpm-lock.yaml", "", ""},
		{".env", "SECRET=1", ""},
		{"logo.png", "", ""},
		{"photo.JPG", "", ""},
		{"dist.tar.gz", "", ""},
		{"font.woff2", "", ""},
		{"dist/app.min.js", "", ""},
		{"dist/app.js.map", "", ""},
		{"data.unknownext", "plain words", LangText},
		{"blob.unknownext", "\x00\x01\x02", ""},
		{`C:\src\Main.java`, "", LangJava},
		{"", "", ""},
		{"src/", "", ""},
	}
	for _, tc := range cases {
		if got := DetectLanguage(tc.path, []byte(tc.head)); got != tc.want {
			t.Errorf("DetectLanguage(%q, %q) = %q, want %q", tc.path, tc.head, got, tc.want)
		}
	}
}

func TestParseUnsupportedAndClosed(t *testing.T) {
	p := NewParser()
	_, err := p.Parse("assets/logo.png", []byte("\x89PNG\r\n"))
	if !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), "assets/logo.png") {
		t.Errorf("Parse(png) error = %v, want ErrUnsupported naming the file", err)
	}
	_, err = p.ParseLanguage(context.Background(), "x.cob", "cobol", []byte("x"))
	if err == nil || !strings.Contains(err.Error(), `"cobol"`) {
		t.Errorf("ParseLanguage(cobol) error = %v, want one naming the language", err)
	}
	p.Close()
	if _, err := p.Parse("x.go", []byte("package x\n")); err == nil || !strings.Contains(err.Error(), "closed") {
		t.Errorf("Parse after Close error = %v, want parser is closed", err)
	}
	p.Close() // a second Close is harmless
}

func TestParseCancelled(t *testing.T) {
	p := NewParser()
	defer p.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := p.ParseContext(ctx, "gen.go", generatedGo(200))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error = %v, want context.Canceled", err)
	}
	// The parser still works, from a clean state.
	src := readTestdata(t, "server.go")
	pf, err := p.Parse("server.go", src)
	if err != nil {
		t.Fatal(err)
	}
	if len(pf.Symbols) != len(parseCases[0].want) {
		t.Errorf("after a cancelled parse: got %v", qualifiedNames(pf.Symbols))
	}
}

// TestParseConcurrent runs one Parser per goroutine over all fixtures: the
// shared compiled queries must give every goroutine the same result.
func TestParseConcurrent(t *testing.T) {
	files := make(map[string][]byte)
	want := make(map[string]*ParsedFile)
	ref := NewParser()
	for _, tc := range parseCases {
		files[tc.file] = readTestdata(t, tc.file)
		pf, err := ref.Parse(tc.file, files[tc.file])
		if err != nil {
			t.Fatal(err)
		}
		want[tc.file] = pf
	}
	ref.Close()

	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p := NewParser()
			defer p.Close()
			for round := 0; round < 3; round++ {
				for name, src := range files {
					pf, err := p.Parse(name, src)
					if err != nil {
						errs <- err
						return
					}
					if !reflect.DeepEqual(pf, want[name]) {
						errs <- fmt.Errorf("%s: concurrent result differs", name)
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(readTestdata(f, "server.go")), false)
	f.Add([]byte(readTestdata(f, "shapes.py")), true)
	f.Add([]byte("package x\nfunc (r *T[K, V]) M() {}\ntype ( A struct{}; B = int )\n"), false)
	f.Add([]byte("func ( {\n// doc\nconst (\n"), false)
	f.Add([]byte("@decorator\nclass A:\n    '''doc'''\n    def f(self): pass\nX = 1\n"), true)
	f.Add([]byte("def f(:\n  \"\"\"unterminated\n"), true)
	f.Add([]byte("/*/ */\n//\n\xff\xfe func"), false)
	f.Fuzz(func(t *testing.T, src []byte, python bool) {
		name := "fuzz.go"
		if python {
			name = "fuzz.py"
		}
		p := NewParser()
		defer p.Close()
		pf, err := p.Parse(name, src)
		if err != nil {
			t.Fatal(err)
		}
		checkInvariants(t, src, pf)
	})
}

func BenchmarkParseGo(b *testing.B) {
	src := generatedGo(180) // about 2,000 lines
	benchmarkParse(b, "gen.go", src)
}

func BenchmarkParseTS(b *testing.B) {
	src := generatedTS(100) // about 2,000 lines
	benchmarkParse(b, "gen.ts", src)
}

func benchmarkParse(b *testing.B, name string, src []byte) {
	p := NewParser()
	defer p.Close()
	if _, err := p.Parse(name, src); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := p.Parse(name, src); err != nil {
			b.Fatal(err)
		}
	}
}

// TestParseTestBlocks: in JavaScript and TypeScript test files, describe
// blocks are modules named by their string, qualifying the it and test
// cases inside them; a call with a computed name or no callback is not a
// symbol, and neither is anything local to a case.
func TestParseTestBlocks(t *testing.T) {
	src := []byte(`const assert = require('node:assert')

describe('res.send(body)', function () {
  it('should send a string', function (done) {
    function local () {}
    done()
  })

  context('when body is null', () => {
    test('should send ""', async () => {
      assert.ok(true)
    })
  })

  it(name, function () {})
  it('is pending')
})
`)
	p := NewParser()
	defer p.Close()
	for _, file := range []string{"res.send.test.js", "res.send.test.ts"} {
		pf, err := p.Parse(file, src)
		if err != nil {
			t.Fatal(err)
		}
		checkInvariants(t, src, pf)
		var got []string
		for _, s := range pf.Symbols {
			got = append(got, fmt.Sprintf("%s %v %d-%d", s.Qualified, s.Kind, s.Range.StartLine, s.Range.EndLine))
		}
		want := []string{
			"assert const 0-0",
			"res.send(body) module 2-16",
			"res.send(body).should send a string function 3-6",
			"res.send(body).when body is null module 8-12",
			"res.send(body).when body is null.should send \"\" function 9-11",
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: symbols\n%s\nwant\n%s", file, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
}

// A module's main function written as an expression (axios's adapters:
// export default guard && function httpAdapter (config) {…}, six hundred
// lines) or defined by a top-level call (express's defineGetter(req,
// 'host', function host () {…})) is a symbol: its lines were in none, so
// no item could be ranked for them or cut around the request's words.
func TestParseModuleFunctionExpressions(t *testing.T) {
	p := NewParser()
	defer p.Close()
	cases := []struct {
		path, src string
		want      []string // qualified name and 1-based lines of the long symbols
	}{
		{"http.js", "import http from 'http';\n\nconst isHttpAdapterSupported = typeof process !== 'undefined';\n\nexport default isHttpAdapterSupported && function httpAdapter(config) {\n  const proxy = config.proxy;\n  return request(proxy);\n};\n",
			[]string{"httpAdapter 5-8"}},
		{"xhr.js", "const isXHRAdapterSupported = typeof XMLHttpRequest !== 'undefined';\n\nexport default isXHRAdapterSupported && function (config) {\n  return new XMLHttpRequest(config);\n}\n",
			[]string{"default 3-5"}},
		{"fetch.ts", "const isFetchSupported: boolean = typeof fetch === 'function';\n\nexport default isFetchSupported && (async (config: Config) => {\n  const response = await fetch(config.url);\n  return response.body;\n});\n",
			[]string{"default 3-6"}},
		{"request.js", "var req = Object.create(http.IncomingMessage.prototype);\n\ndefineGetter(req, 'host', function host(){\n  var val = this.get('X-Forwarded-Host');\n  return val || undefined;\n});\n\ndescribe('req', function suite() {\n  it('reads the host', function host() {\n    assert(req.host);\n  });\n});\n",
			[]string{"host 3-6", "req 8-12", "req.reads the host 9-11"}},
	}
	for _, c := range cases {
		pf := parseClean(t, p, c.path, c.src)
		var got []string
		for _, s := range pf.Symbols {
			if s.Range.EndLine > s.Range.StartLine {
				got = append(got, fmt.Sprintf("%s %d-%d", s.Qualified, s.Range.StartLine+1, s.Range.EndLine+1))
			}
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: symbols %q, want %q", c.path, got, c.want)
		}
	}
}

// TestParseTestFrameworkCalls: the test frameworks' other calls are test
// suites and cases too, not functions a top-level call defines: mocha's
// xdescribe and specify, jasmine's fdescribe, fit and xit, the member
// forms (describe.only, it.skip, test.concurrent.only) qualify and name
// like describe and it; a hook
// (before, afterAll) is no symbol, named callback or not. Before, a named
// callback made a top-level xdescribe or before a function named after
// it, and the cases inside it local to that function.
func TestParseTestFrameworkCalls(t *testing.T) {
	mocha := `'use strict'

var express = require('../')

xdescribe('app.router', function router () {
  before(function setup () {
    this.app = express()
  })

  it('should restore req.params', function restore (done) {
    done()
  })

  specify('decodes the path', function () {
    assert.ok(true)
  })
})

describe.only('res.json(obj)', function () {
  beforeEach(function reset () {})

  it.skip('should respond with json', function () {
    assert.ok(true)
  })
})

before(function start () {
  server.listen(3000)
})
`
	jest := `import { expect } from '@jest/globals';

describe.skip('add', () => {
  test(` + "`returns ${expected}`" + `, () => {
    expect(add(1, 1)).toBe(expected);
  });

  test.concurrent.only('sums two numbers', async () => {
    expect(await add(1, 2)).toBe(3);
  });
});

fdescribe('focus', () => {
  fit('runs alone', () => {
    expect(true).toBe(true);
  });

  xit('is skipped', function skipped() {
    expect(false).toBe(true);
  });
});

afterAll(function cleanup() {
  jest.resetAllMocks();
});
`
	p := NewParser()
	defer p.Close()
	cases := []struct {
		path, src string
		want      []string // qualified name, kind and 1-based lines
	}{
		{"test/app.router.js", mocha, []string{
			"express var 3-3",
			"app.router module 5-17",
			"app.router.should restore req.params function 10-12",
			"app.router.decodes the path function 14-16",
			"res.json(obj) module 19-25",
			"res.json(obj).should respond with json function 22-24",
		}},
		{"test/app.router.ts", mocha, nil}, // the same in TypeScript
		{"src/add.test.ts", jest, []string{
			"add module 3-11",
			"add.sums two numbers function 8-10",
			"focus module 13-21",
			"focus.runs alone function 14-16",
			"focus.is skipped function 18-20",
		}},
		{"src/add.test.tsx", jest, nil},
	}
	var want []string
	for _, c := range cases {
		if c.want != nil {
			want = c.want
		}
		pf := parseClean(t, p, c.path, c.src)
		var got []string
		for _, s := range pf.Symbols {
			got = append(got, fmt.Sprintf("%s %v %d-%d", s.Qualified, s.Kind, s.Range.StartLine+1, s.Range.EndLine+1))
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: symbols\n%s\nwant\n%s", c.path, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
}

// parseClean parses src as path and fails the test on an error, a syntax
// error or a broken invariant (checkInvariants).
func parseClean(t *testing.T, p *Parser, path, src string) *ParsedFile {
	t.Helper()
	pf, err := p.Parse(path, []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if pf.SyntaxErrors {
		t.Errorf("%s: syntax errors", path)
	}
	checkInvariants(t, []byte(src), pf)
	return pf
}
