package parse

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"strings"
	"sync"
	"unicode/utf8"

	sitter "github.com/smacker/go-tree-sitter"
	"github.com/smacker/go-tree-sitter/c"
	"github.com/smacker/go-tree-sitter/cpp"
	"github.com/smacker/go-tree-sitter/csharp"
	"github.com/smacker/go-tree-sitter/golang"
	"github.com/smacker/go-tree-sitter/java"
	"github.com/smacker/go-tree-sitter/javascript"
	"github.com/smacker/go-tree-sitter/php"
	"github.com/smacker/go-tree-sitter/python"
	"github.com/smacker/go-tree-sitter/ruby"
	"github.com/smacker/go-tree-sitter/rust"
	"github.com/smacker/go-tree-sitter/typescript/tsx"
	"github.com/smacker/go-tree-sitter/typescript/typescript"
)

// Language names that DetectLanguage returns and ParsedFile.Language holds.
const (
	LangGo         = "go"
	LangTypeScript = "typescript"
	LangTSX        = "tsx"
	LangJavaScript = "javascript"
	LangPython     = "python"
	LangRust       = "rust"
	LangJava       = "java"
	LangC          = "c"
	LangCPP        = "cpp"
	LangCSharp     = "csharp"
	LangRuby       = "ruby"
	LangPHP        = "php"

	LangMarkdown   = "markdown"
	LangYAML       = "yaml"
	LangTOML       = "toml"
	LangJSON       = "json"
	LangShell      = "shell"
	LangDockerfile = "dockerfile"
	LangMakefile   = "makefile"
	LangText       = "text"
)

// IsCodeLanguage reports whether lang is parsed with a tree-sitter grammar
// (as opposed to being cut into text sections).
func IsCodeLanguage(lang string) bool {
	return codeLang(lang) != nil
}

//go:embed queries/*.scm
var queryFiles embed.FS

// commentStyle says how doc comments are written in a language.
type commentStyle uint8

const (
	commentSlashes     commentStyle = iota // "//" lines and /* */ blocks
	commentHash                            // "#" lines (Ruby)
	commentSlashesHash                     // both (PHP)
	commentNone                            // doc comes from elsewhere (Python docstrings)
)

// langSpec describes one tree-sitter language. Its fields are fixed at
// package initialization; the compiled query is built once per process (on
// first use) and is read-only afterwards, so one langSpec is shared by all
// Parsers.
type langSpec struct {
	name     string
	grammar  func() *sitter.Language
	queries  []string // file names under queries/, concatenated
	comments commentStyle
	// attrLines are line prefixes that may sit between a doc comment and
	// the definition it documents (Rust attributes).
	attrLines []string
	// sigFirstLine limits signatures to the definition's first line
	// (Ruby: comments may sit between a class line and its body).
	sigFirstLine bool
	// docTags strips XML tags from doc comments (C# <summary>).
	docTags bool

	once     sync.Once
	compiled *compiledQuery
	err      error
}

// compiledQuery is a language's grammar with its compiled symbols query,
// and, compiled on first use by ParseEdit, the same query for running on
// one top-level node at a time (see topQuery).
type compiledQuery struct {
	queryInfo
	lang *sitter.Language
	src  []byte // the query source, for topQuery

	topOnce sync.Once
	top     *topQuery
	topErr  error
}

// queryInfo is one compiled query with what the extractor needs to read its
// matches: the role of each capture and the text predicates of each pattern.
type queryInfo struct {
	query *sitter.Query
	roles []captureRole // indexed by capture id
	// preds are the #eq? / #not-eq? predicates of each pattern (indexed by
	// pattern), which tree-sitter leaves to the caller; nil for patterns
	// without any.
	preds [][]textPred
}

// textPred is a compiled #eq? or #not-eq? predicate comparing a capture's
// text with a string, or a #test-call? or #not-test-call? one looking it
// up in a set of names (set, when not nil).
type textPred struct {
	capture uint32
	value   string
	set     map[string]bool
	negate  bool
}

// jsTestCalls are the functions of JavaScript's test frameworks (mocha's
// BDD and TDD interfaces, jest, jasmine, vitest, node:test) by their role,
// which the predicate (#test-call? @_fn "role") looks up ("any": all of
// them): a suite ("describe") is a module qualifying the cases inside it,
// a case ("it") a function, and a hook ("beforeEach") no symbol. The x and
// f variants skip or focus one; their member forms (describe.only,
// it.skip) are matched by the queries (jstests.scm).
var jsTestCalls = map[string]string{
	"describe": "suite", "xdescribe": "suite", "fdescribe": "suite",
	"context": "suite", "xcontext": "suite", "suite": "suite",
	"it": "case", "xit": "case", "fit": "case",
	"test": "case", "xtest": "case", "specify": "case", "xspecify": "case",
	"before": "hook", "after": "hook", "beforeEach": "hook", "afterEach": "hook",
	"beforeAll": "hook", "afterAll": "hook",
	"setup": "hook", "teardown": "hook", "suiteSetup": "hook", "suiteTeardown": "hook",
}

// testCallSet is the set of jsTestCalls of a role, or of all for "any".
func testCallSet(role string) (map[string]bool, error) {
	set := map[string]bool{}
	for name, r := range jsTestCalls {
		if role == "any" || r == role {
			set[name] = true
		}
	}
	if len(set) == 0 {
		return nil, fmt.Errorf("no test calls of the role %q", role)
	}
	return set, nil
}

// accept reports whether a match satisfies its pattern's text predicates.
func (qi *queryInfo) accept(m *sitter.QueryMatch, src []byte) bool {
	if int(m.PatternIndex) >= len(qi.preds) {
		return true
	}
	for _, p := range qi.preds[m.PatternIndex] {
		eq := false
		for _, c := range m.Captures {
			if c.Index == p.capture {
				s, e := c.Node.StartByte(), c.Node.EndByte()
				if e <= uint32(len(src)) && s <= e {
					text := src[s:e]
					eq = p.set == nil && string(text) == p.value || p.set != nil && p.set[string(text)]
				}
				break
			}
		}
		if eq == p.negate {
			return false
		}
	}
	return true
}

// captureRole is what a capture name in a query means to the extractor.
type captureRole struct {
	role    uint8
	defKind defKind // for roleDef
}

// Capture roles. Query files name their captures:
//
//	@def.<kind>       a definition node (kinds: see defKinds)
//	@name             its name
//	@body             its body (the signature ends where it starts)
//	@receiver         a Go method receiver type
//	@wrap, @wrapped   an export statement / decorated definition / template
//	                  (wrap) whose inner definition (wrapped) it extends
//	@groupwrap, @groupwrapped  same, unless the wrapper groups several
//	                  definitions in parentheses (Go "type ( ... )")
//	@doc              a Python docstring statement
//	@ref              an identifier the file uses
//	@_<anything>      a node only predicates look at ((#eq? @_p "prototype"))
const (
	roleIgnore uint8 = iota
	roleDef
	roleName
	roleBody
	roleReceiver
	roleWrap
	roleWrapped
	roleGroupWrap
	roleGroupWrapped
	roleDoc
	roleRef
)

// defKind is the kind a query assigns a definition; most map directly to a
// Kind, some are refined by the extractor.
type defKind uint8

const (
	defFunction   defKind = iota // becomes a method inside a class-like scope
	defMethod                    // always a method
	defClass                     // class-like kinds qualify what they contain
	defStruct                    //
	defInterface                 //
	defEnum                      //
	defModule                    //
	defImpl                      // Rust impl block: qualifies, is not a symbol
	defType                      //
	defConst                     //
	defVar                       //
	defUpperConst                // Python module assignment: const if UPPER_CASE
	defJSFunc                    // JS/TS top-level declaration of a function value
	defJSVar                     // JS/TS top-level const/let/var declaration
	defProto                     // C/C++ declaration without a body
)

var defKinds = map[string]defKind{
	"function":   defFunction,
	"method":     defMethod,
	"class":      defClass,
	"struct":     defStruct,
	"interface":  defInterface,
	"enum":       defEnum,
	"module":     defModule,
	"impl":       defImpl,
	"type":       defType,
	"const":      defConst,
	"var":        defVar,
	"upperconst": defUpperConst,
	"jsfunc":     defJSFunc,
	"jsvar":      defJSVar,
	"proto":      defProto,
}

// classLike reports whether definitions of kind k qualify the names of the
// definitions they contain.
func (k defKind) classLike() bool {
	return k.methodScope() || k == defModule
}

// methodScope reports whether functions defined directly in a definition
// of kind k are its methods.
func (k defKind) methodScope() bool {
	switch k {
	case defClass, defStruct, defInterface, defEnum, defImpl:
		return true
	}
	return false
}

// functionLike reports whether definitions nested in one of kind k are
// local (not symbols).
func (k defKind) functionLike() bool {
	switch k {
	case defFunction, defMethod, defJSFunc, defProto:
		return true
	}
	return false
}

// kind is the symbol kind of a definition that is not refined by context.
func (k defKind) kind() Kind {
	switch k {
	case defFunction, defJSFunc:
		return KindFunction
	case defMethod:
		return KindMethod
	case defClass:
		return KindClass
	case defStruct:
		return KindStruct
	case defInterface:
		return KindInterface
	case defEnum:
		return KindEnum
	case defModule:
		return KindModule
	case defType:
		return KindType
	case defConst, defUpperConst:
		return KindConst
	case defVar, defJSVar:
		return KindVar
	}
	return KindUnknown
}

var codeLangs = [...]*langSpec{
	{name: LangGo, grammar: golang.GetLanguage, queries: []string{"go.scm"}},
	{name: LangTypeScript, grammar: typescript.GetLanguage, queries: []string{"typescript.scm", "jsmodule.scm", "jstests.scm"}},
	{name: LangTSX, grammar: tsx.GetLanguage, queries: []string{"typescript.scm", "jsx.scm", "jsmodule.scm", "jstests.scm"}},
	{name: LangJavaScript, grammar: javascript.GetLanguage, queries: []string{"javascript.scm", "jsmodule.scm", "jstests.scm"}},
	{name: LangPython, grammar: python.GetLanguage, queries: []string{"python.scm"}, comments: commentNone},
	{name: LangRust, grammar: rust.GetLanguage, queries: []string{"rust.scm"}, attrLines: []string{"#["}},
	{name: LangJava, grammar: java.GetLanguage, queries: []string{"java.scm"}},
	{name: LangC, grammar: c.GetLanguage, queries: []string{"c.scm"}},
	{name: LangCPP, grammar: cpp.GetLanguage, queries: []string{"cpp.scm"}},
	{name: LangCSharp, grammar: csharp.GetLanguage, queries: []string{"csharp.scm"}, attrLines: []string{"["}, docTags: true},
	{name: LangRuby, grammar: ruby.GetLanguage, queries: []string{"ruby.scm"}, comments: commentHash, sigFirstLine: true},
	{name: LangPHP, grammar: php.GetLanguage, queries: []string{"php.scm"}, comments: commentSlashesHash, attrLines: []string{"#["}},
}

// codeLang returns the spec of a tree-sitter language, or nil.
func codeLang(name string) *langSpec {
	for _, l := range codeLangs {
		if l.name == name {
			return l
		}
	}
	return nil
}

// compile returns the language's compiled query, compiling it on first use.
func (l *langSpec) compile() (*compiledQuery, error) {
	l.once.Do(func() {
		l.compiled, l.err = compileQuery(l)
	})
	return l.compiled, l.err
}

func compileQuery(l *langSpec) (*compiledQuery, error) {
	var src []byte
	for _, name := range l.queries {
		b, err := queryFiles.ReadFile("queries/" + name)
		if err != nil {
			return nil, fmt.Errorf("symbols query for %s: %w", l.name, err)
		}
		src = append(append(src, b...), '\n')
	}
	lang := l.grammar()
	qi, err := newQueryInfo(src, lang)
	if err != nil {
		return nil, fmt.Errorf("symbols query %v for %s: %w", l.queries, l.name, err)
	}
	return &compiledQuery{queryInfo: qi, lang: lang, src: src}, nil
}

// newQueryInfo compiles a query and reads the roles of its captures and the
// predicates of its patterns.
func newQueryInfo(src []byte, lang *sitter.Language) (queryInfo, error) {
	q, err := sitter.NewQuery(src, lang)
	if err != nil {
		return queryInfo{}, fmt.Errorf("compile: %w", err)
	}
	qi := queryInfo{query: q, roles: make([]captureRole, q.CaptureCount())}
	for i := range qi.roles {
		name := q.CaptureNameForId(uint32(i))
		r, ok := parseCaptureName(name)
		if !ok {
			q.Close()
			return queryInfo{}, fmt.Errorf("unknown capture @%s", name)
		}
		qi.roles[i] = r
	}
	for i := range q.PatternCount() {
		for _, steps := range q.PredicatesForPattern(i) {
			p, err := compilePredicate(q, steps)
			if err != nil {
				q.Close()
				return queryInfo{}, fmt.Errorf("pattern %d: %w", i, err)
			}
			if qi.preds == nil {
				qi.preds = make([][]textPred, q.PatternCount())
			}
			qi.preds[i] = append(qi.preds[i], p)
		}
	}
	return qi, nil
}

// compilePredicate reads one predicate: only (#eq? @capture "text"),
// (#not-eq? @capture "text"), (#test-call? @capture "role") and
// (#not-test-call? @capture "role") are supported.
func compilePredicate(q *sitter.Query, steps []sitter.QueryPredicateStep) (textPred, error) {
	if len(steps) == 0 || steps[0].Type != sitter.QueryPredicateStepTypeString {
		return textPred{}, errors.New("malformed predicate")
	}
	op := q.StringValueForId(steps[0].ValueId)
	base, negate := strings.CutPrefix(op, "not-")
	if (base != "eq?" && base != "test-call?") || len(steps) != 4 ||
		steps[1].Type != sitter.QueryPredicateStepTypeCapture || steps[2].Type != sitter.QueryPredicateStepTypeString {
		return textPred{}, fmt.Errorf("unsupported predicate #%s (only #eq? and #test-call?, or their #not-, of a capture and a string are)", op)
	}
	p := textPred{capture: steps[1].ValueId, value: q.StringValueForId(steps[2].ValueId), negate: negate}
	if base == "test-call?" {
		set, err := testCallSet(p.value)
		if err != nil {
			return textPred{}, err
		}
		p.set = set
	}
	return p, nil
}

func parseCaptureName(name string) (captureRole, bool) {
	if strings.HasPrefix(name, "_") {
		return captureRole{role: roleIgnore}, true // only for predicates
	}
	if k, ok := strings.CutPrefix(name, "def."); ok {
		dk, ok := defKinds[k]
		return captureRole{role: roleDef, defKind: dk}, ok
	}
	switch name {
	case "name":
		return captureRole{role: roleName}, true
	case "body":
		return captureRole{role: roleBody}, true
	case "receiver":
		return captureRole{role: roleReceiver}, true
	case "wrap":
		return captureRole{role: roleWrap}, true
	case "wrapped":
		return captureRole{role: roleWrapped}, true
	case "groupwrap":
		return captureRole{role: roleGroupWrap}, true
	case "groupwrapped":
		return captureRole{role: roleGroupWrapped}, true
	case "doc":
		return captureRole{role: roleDoc}, true
	case "ref":
		return captureRole{role: roleRef}, true
	}
	return captureRole{}, false
}

// Language detection tables.
var (
	extLanguages = map[string]string{
		".go": LangGo,
		".ts": LangTypeScript, ".mts": LangTypeScript, ".cts": LangTypeScript,
		".tsx": LangTSX,
		".js":  LangJavaScript, ".mjs": LangJavaScript, ".cjs": LangJavaScript, ".jsx": LangJavaScript,
		".py": LangPython, ".pyi": LangPython, ".pyw": LangPython,
		".rs":   LangRust,
		".java": LangJava,
		".c":    LangC, ".h": LangC,
		".cc": LangCPP, ".cpp": LangCPP, ".cxx": LangCPP, ".c++": LangCPP,
		".hpp": LangCPP, ".hh": LangCPP, ".hxx": LangCPP, ".h++": LangCPP, ".ipp": LangCPP, ".tpp": LangCPP,
		".cs": LangCSharp,
		".rb": LangRuby, ".rake": LangRuby, ".gemspec": LangRuby, ".ru": LangRuby,
		".php": LangPHP, ".phtml": LangPHP,

		".md": LangMarkdown, ".markdown": LangMarkdown, ".mdx": LangMarkdown,
		".yaml": LangYAML, ".yml": LangYAML,
		".toml": LangTOML,
		".json": LangJSON, ".jsonc": LangJSON, ".json5": LangJSON,
		".sh": LangShell, ".bash": LangShell, ".zsh": LangShell, ".ksh": LangShell, ".fish": LangShell,
		".dockerfile": LangDockerfile,
		".mk":         LangMakefile, ".mak": LangMakefile,

		".txt": LangText, ".rst": LangText, ".adoc": LangText, ".org": LangText, ".tex": LangText,
		".cfg": LangText, ".ini": LangText, ".conf": LangText, ".properties": LangText, ".env.example": LangText,
		".sql": LangText, ".proto": LangText, ".graphql": LangText, ".gql": LangText,
		".css": LangText, ".scss": LangText, ".sass": LangText, ".less": LangText,
		".html": LangText, ".htm": LangText, ".xml": LangText, ".xsd": LangText, ".xsl": LangText,
		".gradle": LangText, ".kt": LangText, ".kts": LangText, ".swift": LangText, ".scala": LangText,
		".lua": LangText, ".ex": LangText, ".exs": LangText, ".erl": LangText, ".hs": LangText,
		".ml": LangText, ".clj": LangText, ".dart": LangText, ".r": LangText, ".pl": LangText,
		".pm": LangText, ".vue": LangText, ".svelte": LangText, ".groovy": LangText, ".tf": LangText,
		".hcl": LangText, ".nix": LangText, ".cmake": LangText, ".bat": LangText, ".ps1": LangText,
		".el": LangText, ".vim": LangText, ".zig": LangText, ".nim": LangText, ".jl": LangText,
	}
	nameLanguages = map[string]string{
		"dockerfile":     LangDockerfile,
		"containerfile":  LangDockerfile,
		"makefile":       LangMakefile,
		"gnumakefile":    LangMakefile,
		"rakefile":       LangRuby,
		"gemfile":        LangRuby,
		"podfile":        LangRuby,
		"vagrantfile":    LangRuby,
		"brewfile":       LangRuby,
		"jenkinsfile":    LangText,
		"procfile":       LangText,
		"cmakelists.txt": LangText,
		".env.example":   LangText,
		".gitignore":     LangText,
		".dockerignore":  LangText,
		".editorconfig":  LangText,
		".bashrc":        LangShell,
		".zshrc":         LangShell,
		".profile":       LangShell,
	}
	// noiseNames are files we never index: lock files and other generated
	// listings that only add noise, and secrets.
	noiseNames = map[string]bool{
		"go.sum": true, "go.work.sum": true, "package-lock.json": true, "npm-shrinkwrap.json": true,
		"yarn.lock": true, "pnpm-lock.yaml": true, "bun.lockb": true, "cargo.lock": true,
		"composer.lock": true, "gemfile.lock": true, "poetry.lock": true, "pipfile.lock": true,
		"podfile.lock": true, "packages.lock.json": true, "flake.lock": true, "mix.lock": true,
		"pubspec.lock": true, "uv.lock": true, ".env": true, ".ds_store": true,
	}
	// noiseExts are binary, media, archive and generated formats.
	noiseExts = map[string]bool{
		".png": true, ".jpg": true, ".jpeg": true, ".gif": true, ".bmp": true, ".ico": true,
		".webp": true, ".tif": true, ".tiff": true, ".psd": true, ".svg": true, ".avif": true,
		".pdf": true, ".zip": true, ".gz": true, ".tgz": true, ".bz2": true, ".xz": true,
		".zst": true, ".7z": true, ".rar": true, ".tar": true, ".jar": true, ".war": true,
		".whl": true, ".egg": true, ".exe": true, ".dll": true, ".so": true, ".dylib": true,
		".a": true, ".o": true, ".obj": true, ".lib": true, ".class": true, ".pyc": true,
		".pyo": true, ".wasm": true, ".bin": true, ".dat": true, ".db": true, ".sqlite": true,
		".mp3": true, ".mp4": true, ".wav": true, ".ogg": true, ".avi": true, ".mov": true,
		".mkv": true, ".flac": true, ".webm": true, ".ttf": true, ".otf": true, ".woff": true,
		".woff2": true, ".eot": true, ".lock": true, ".sum": true, ".map": true, ".pb": true,
		".onnx": true, ".pt": true, ".h5": true, ".npy": true, ".npz": true, ".parquet": true,
		".pkl": true, ".iso": true, ".dmg": true, ".deb": true, ".rpm": true, ".csv": true,
		".tsv": true, ".log": true, ".min.js": true, ".min.css": true, ".snap": true,
	}
)

// DetectLanguage names the language of a file from its path (extension or
// well-known name) and, for files without a telling name, its first bytes
// (a "#!" line; binary content). It returns "" for files that are not
// indexed at all: binaries, media, archives, lock files and secrets.
func DetectLanguage(path string, head []byte) string {
	base := path
	if i := strings.LastIndexAny(base, `/\`); i >= 0 {
		base = base[i+1:]
	}
	lower := strings.ToLower(base)
	if lower == "" || noiseNames[lower] {
		return ""
	}
	if l, ok := nameLanguages[lower]; ok {
		return l
	}
	if strings.HasPrefix(lower, "dockerfile.") || strings.HasSuffix(lower, ".dockerfile") {
		return LangDockerfile
	}
	// Longest extensions first: ".min.js" before ".js", ".env.example".
	if i := strings.IndexByte(lower[1:], '.'); i >= 0 {
		for ext := lower[i+1:]; ext != ""; {
			if noiseExts[ext] {
				return ""
			}
			if l, ok := extLanguages[ext]; ok {
				return l
			}
			j := strings.IndexByte(ext[1:], '.')
			if j < 0 {
				break
			}
			ext = ext[j+1:]
		}
	}
	if l := shebangLanguage(head); l != "" {
		return l
	}
	if isBinary(head) {
		return ""
	}
	return LangText
}

// shebangLanguage maps a "#!" first line to a language, or "".
func shebangLanguage(head []byte) string {
	if !bytes.HasPrefix(head, []byte("#!")) {
		return ""
	}
	line := head[2:]
	if i := bytes.IndexByte(line, '\n'); i >= 0 {
		line = line[:i]
	}
	fields := strings.Fields(string(line))
	if len(fields) == 0 {
		return LangText
	}
	interp := fields[0]
	if strings.HasSuffix(interp, "/env") && len(fields) > 1 {
		interp = fields[1]
		if interp == "-S" && len(fields) > 2 {
			interp = fields[2]
		}
	}
	if i := strings.LastIndexByte(interp, '/'); i >= 0 {
		interp = interp[i+1:]
	}
	switch {
	case strings.HasPrefix(interp, "python"):
		return LangPython
	case interp == "node" || interp == "nodejs" || interp == "deno" || interp == "bun":
		return LangJavaScript
	case strings.HasPrefix(interp, "ruby"):
		return LangRuby
	case strings.HasPrefix(interp, "php"):
		return LangPHP
	case interp == "sh" || interp == "bash" || interp == "zsh" || interp == "dash" || interp == "ksh" || interp == "ash" || interp == "fish":
		return LangShell
	case strings.HasPrefix(interp, "make"):
		return LangMakefile
	}
	return LangText
}

// isBinary reports whether head looks like binary data: a NUL byte or
// invalid UTF-8 (ignoring a rune cut at the end of head).
func isBinary(head []byte) bool {
	if len(head) > 8000 {
		head = head[:8000]
	}
	if bytes.IndexByte(head, 0) >= 0 {
		return true
	}
	for len(head) > 0 {
		r, size := utf8.DecodeRune(head)
		if r == utf8.RuneError && size == 1 {
			return len(head) >= utf8.UTFMax // a rune cut by the head limit is fine
		}
		head = head[size:]
	}
	return false
}
