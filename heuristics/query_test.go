package heuristics

import (
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// eq compares two string lists, treating nil and empty alike.
func eq(a, b []string) bool { return len(a) == 0 && len(b) == 0 || slices.Equal(a, b) }

func TestAnalyzeCommitShapes(t *testing.T) {
	tests := []struct {
		text                string
		sentences           []string
		words, idents, path []string
		vague               float64
	}{
		{
			text:      "cmd/compile: fix crash when inlining generic closures",
			sentences: []string{"cmd/compile: fix crash when inlining generic closures"},
			words:     []string{"cmd", "compile", "crash", "inlining", "generic", "closures"},
			path:      []string{"cmd/compile"},
		},
		{
			text:      "Add `--dry-run` flag to deploy.sh and document it in README.md",
			sentences: []string{"Add `--dry-run` flag to deploy.sh and document it in README.md"},
			words:     []string{"add", "dry", "run", "flag", "deploy", "document", "readme"},
			idents:    []string{"--dry-run"},
			path:      []string{"deploy.sh", "README.md"},
		},
		{text: "fix that", sentences: []string{"fix that"}, vague: 1},
		{text: "now do the same for the other one", sentences: []string{"now do the same for the other one"}, vague: 1},
		{text: "why?", sentences: []string{"why"}, vague: 1},
		{text: "Please fix it again, thanks!", sentences: []string{"Please fix it again, thanks"}, vague: 1},
		{
			text:      "Server.Start should retry on EADDRINUSE",
			sentences: []string{"Server.Start should retry on EADDRINUSE"},
			words:     []string{"server", "start", "retry", "eaddrinuse"},
			idents:    []string{"Server.Start", "EADDRINUSE"},
		},
		{
			text:      "parse_config() ignores env overrides",
			sentences: []string{"parse_config() ignores env overrides"},
			words:     []string{"parse", "config", "ignores", "env", "overrides"},
			idents:    []string{"parse_config"},
		},
		{
			text:      "lsp: debounce didChange before reindexing",
			sentences: []string{"lsp: debounce didChange before reindexing"},
			words:     []string{"lsp", "debounce", "change", "reindexing"}, // "did" is a stop word
			idents:    []string{"didChange"},
			path:      []string{"lsp"},
		},
		{
			text:      "net/http, net/url: reject hosts with brackets\n\nThe parser accepted them. Fixes #1234.",
			sentences: []string{"net/http, net/url: reject hosts with brackets", "The parser accepted them", "Fixes #1234"},
			words:     []string{"net", "http", "url", "reject", "hosts", "brackets", "parser", "accepted"},
			path:      []string{"net/http", "net/url"},
		},
		{
			text:      "feat(workspace): watch .gitignore changes",
			sentences: []string{"feat(workspace): watch .gitignore changes"},
			words:     []string{"workspace", "watch", "gitignore", "changes"},
			path:      []string{"workspace", ".gitignore"},
		},
		{
			text:      "the timeout is wrong",
			sentences: []string{"the timeout is wrong"},
			words:     []string{"timeout", "wrong"},
			vague:     0.5,
		},
		{
			text:      "add a unique-args validator",
			sentences: []string{"add a unique-args validator"},
			words:     []string{"add", "unique", "args", "validator"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			q := Analyze(tt.text)
			if q.Text != tt.text {
				t.Errorf("Text = %q", q.Text)
			}
			if !eq(q.Sentences, tt.sentences) {
				t.Errorf("Sentences = %q, want %q", q.Sentences, tt.sentences)
			}
			if !eq(q.Words, tt.words) {
				t.Errorf("Words = %q, want %q", q.Words, tt.words)
			}
			if !eq(q.Identifiers, tt.idents) {
				t.Errorf("Identifiers = %q, want %q", q.Identifiers, tt.idents)
			}
			if !eq(q.Paths, tt.path) {
				t.Errorf("Paths = %q, want %q", q.Paths, tt.path)
			}
			if q.Vagueness != tt.vague {
				t.Errorf("Vagueness = %v, want %v", q.Vagueness, tt.vague)
			}
		})
	}
}

func TestAnalyzeSentences(t *testing.T) {
	tests := []struct {
		name, text string
		want       []string
	}{
		{"terminators", "It breaks. Why? Fix it! Also this; and that", []string{"It breaks", "Why", "Fix it", "Also this", "and that"}},
		{"dotted names stay whole", "Server.Start calls os.ReadFile. Then it stops.", []string{"Server.Start calls os.ReadFile", "Then it stops"}},
		{"paths and versions", "Edit lsp/server.go and bump v1.2.3. Done.", []string{"Edit lsp/server.go and bump v1.2.3", "Done"}},
		{"abbreviations", "Use a flag, e.g. --fast, i.e. skip it. Next one", []string{"Use a flag, e.g. --fast, i.e. skip it", "Next one"}},
		{"etc. before lower case", "caches, indexes etc. are rebuilt. Then exit", []string{"caches, indexes etc. are rebuilt", "Then exit"}},
		{"etc. ending a sentence", "caches, indexes etc. Then exit", []string{"caches, indexes etc", "Then exit"}},
		{"newlines and blank lines", "first line\r\n\r\nsecond line\nthird", []string{"first line", "second line", "third"}},
		{"bullets", "Changes:\n- parse the header\n* validate it\n  + nested item\n1. numbered\n2) other\n• dot\n- [x] done task", []string{"Changes:", "parse the header", "validate it", "nested item", "numbered", "other", "dot", "done task"}},
		{"inline bullet", "one • two", []string{"one", "two"}},
		{"code span not split", "Run `go test ./... ; echo ok.` now. Then stop", []string{"Run `go test ./... ; echo ok.` now", "Then stop"}},
		{"ellipsis and quotes", `He said "stop." Then... nothing`, []string{`He said "stop`, "Then", "nothing"}},
		{"closing paren after period", "(See the docs.) Then go", []string{"(See the docs", "Then go"}},
		{"url query", "Open http://x.dev/a?b=1 now", []string{"Open http://x.dev/a?b=1 now"}},
		{"code fence skipped", "Fails here:\n```go\nx := f(). y\n```\nAfter", []string{"Fails here:", "After"}},
		{"only punctuation", "... ? - ;", nil},
		{"empty", "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Analyze(tt.text).Sentences; !eq(got, tt.want) {
				t.Errorf("Sentences(%q) = %q, want %q", tt.text, got, tt.want)
			}
		})
	}
}

func TestAnalyzeIdentifiers(t *testing.T) {
	tests := []struct {
		text string
		want []string
	}{
		{"camelCase and PascalCase names like getUserName and HTTPServer", []string{"camelCase", "PascalCase", "getUserName", "HTTPServer"}},
		{"snake_case and SCREAMING_CASE and __init__", []string{"snake_case", "SCREAMING_CASE", "__init__"}},
		{"Server.Start and os.ReadFile and a.b.Cee", []string{"Server.Start", "os.ReadFile", "a.b.Cee"}},
		{"Type::method, std::vector<int> and Foo#bar", []string{"Type.method", "std.vector", "Foo.bar"}},
		{"call foo() then bar(x, y) and println!(x) and List[int]", []string{"foo", "bar", "println", "List"}},
		{"(parse_config()) fails", []string{"parse_config"}},
		{"the `timeout` field and `Server.Stop()` and `Type::new`", []string{"timeout", "Server.Stop", "Type.new"}},
		{"pass --dry-run or -v", []string{"--dry-run", "-v"}},
		{"with --root=DIR and CGO_ENABLED=0 but timeout=5s", []string{"--root", "CGO_ENABLED"}},
		{"returns ENOENT or SIGTERM", []string{"ENOENT", "SIGTERM"}},
		{"utf8Decode is slow", []string{"utf8Decode"}},
		{"Server's lock", nil},
		{"Server.Start's retry loop", []string{"Server.Start"}},
		// Not identifiers: plain words, capitalized words, acronyms and their
		// plurals, shouting, abbreviations, domains, brands, numbers.
		{"The Server handles HTTP and JSON", nil},
		{"URLs and IDs and APIs", nil},
		{"IMPORTANT: this is BROKEN", nil},
		{"e.g. this, i.e. that", nil},
		{"see example.com or pkg.go.dev", nil},
		{"GitHub and JavaScript on macOS", nil},
		{"ints like -1 and 3.14 and 42", nil},
		{"file(s) changed", nil},
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			if got := Analyze(tt.text).Identifiers; !eq(got, tt.want) {
				t.Errorf("Identifiers(%q) = %q, want %q", tt.text, got, tt.want)
			}
		})
	}
}

func TestAnalyzePaths(t *testing.T) {
	tests := []struct {
		text string
		want []string
	}{
		{"edit lsp/server.go and ./cmd/ctxls/main.go", []string{"lsp/server.go", "cmd/ctxls/main.go"}},
		{"see `workspace/folder.go` and 'x.go' and \"y.ts\",", []string{"workspace/folder.go", "x.go", "y.ts"}},
		{"README.md, Foo.tsx, Dockerfile, Makefile and the README", []string{"README.md", "Foo.tsx", "Dockerfile", "Makefile", "README"}},
		{"update go.mod and go.sum, not math.sum", []string{"go.mod", "go.sum"}},
		{"ignore .gitignore, .npmrc and .env", []string{".gitignore", ".npmrc", ".env"}},
		{"panic at server.go:42:7 and index.ts#L10-L20", []string{"server.go", "index.ts"}},
		{"everything under src/app/ and /etc/hosts", []string{"src/app", "/etc/hosts"}},
		{"runtime/pprof: add labels", []string{"runtime/pprof"}},
		{"lsp, workspace: share Config", []string{"lsp", "workspace"}},
		{"fix(merkle)!: change leaf hash", []string{"merkle"}},
		// Not paths.
		{"and/or, I/O, true/false, w/o, either/or", nil},
		{"on 12/05/2024", nil},
		{"see https://github.com/ctxls/ctxls/issues/1 and www.example.com/a", nil},
		{"Server.Start and os.ReadFile and v1.2.3 and e.g. this", nil},
		{"Node.js and Vue.js apps", nil},
		{"process.env is read", nil},
		{"note: labels are not packages", nil},
		{"Summary: capitalized labels neither", nil},
		{"error: cannot find package", nil},
		{"feat: conventional type without scope", nil},
		{"Subject line\nthird: a lowercase label in the body", nil},
		{"Subject line\n- cmd/go: slash prefixes count anywhere", []string{"cmd/go"}},
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			if got := Analyze(tt.text).Paths; !eq(got, tt.want) {
				t.Errorf("Paths(%q) = %q, want %q", tt.text, got, tt.want)
			}
		})
	}
}

func TestAnalyzeWords(t *testing.T) {
	tests := []struct {
		text string
		want []string
	}{
		{"Parse the config, then validate the config", []string{"parse", "config", "validate"}},
		{"don't let's it's can't you could please make", nil},
		{"the user's session isn't saved", []string{"user", "session", "saved"}},
		{"getUserName and HTTPServer and XMLHttpRequest", []string{"get", "user", "name", "http", "server", "xml", "request"}},
		{"timeout of 500ms after 3 retries in v2.0.1", []string{"timeout", "500ms", "retries"}},
		{"Café naïve façade", []string{"café", "naïve", "façade"}},
		{"x y z", nil},
		{"reverts 3f2a1b9 at +0x1d, not deadbeef", []string{"reverts", "deadbeef"}},
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			if got := Analyze(tt.text).Words; !eq(got, tt.want) {
				t.Errorf("Words(%q) = %q, want %q", tt.text, got, tt.want)
			}
		})
	}
}

// TestCommitHashesAndHexNumbers: a word that may be a commit hash is 7 to
// 40 lower-case hex digits with a digit and a letter; a query drops it from
// its words, as it drops other hex numbers (6 digits and up, 0x…, in any
// case), and keeps words of hex letters (deadbeef, cafe, facade).
func TestCommitHashesAndHexNumbers(t *testing.T) {
	tests := []struct {
		w          string
		hash, num  bool
		inQueryOut bool // Analyze drops it from Words
	}{
		{"2f64f68", true, true, true}, // 7: git's shortest
		{"1490e6b", true, true, true},
		{"2f64f6", false, true, true}, // 6: a number (a colour), not a hash
		{"ff0000", false, true, true},
		{"facade", false, false, false},
		{"a1b2c3d4e5f60718293a4b5c6d7e8f9012345678", true, true, true},   // 40
		{"a1b2c3d4e5f60718293a4b5c6d7e8f90123456789", false, true, true}, // 41
		{"1234567", false, true, true},                                   // all digits: a number
		{"deadbeef", false, false, false},                                // no digit: a word
		{"cafe", false, false, false},
		{"cafe123", true, true, true},
		{"2F64F68", false, false, true},  // upper case: no hash (git never writes it), a number once lowered
		{"2f64g68", false, false, false}, // not hex
		{"0x1d", false, true, true},
		{"0xff", false, true, true},
		{"0x", false, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.w, func(t *testing.T) {
			if got := IsCommitHash(tt.w); got != tt.hash {
				t.Errorf("IsCommitHash(%q) = %v, want %v", tt.w, got, tt.hash)
			}
			if got := isHexNumber(tt.w); got != tt.num {
				t.Errorf("isHexNumber(%q) = %v, want %v", tt.w, got, tt.num)
			}
			words := Analyze("see " + tt.w).Words
			if got := !slices.Contains(words, strings.ToLower(tt.w)); got != tt.inQueryOut {
				t.Errorf("Analyze(%q).Words = %q: dropped %v, want %v", "see "+tt.w, words, got, tt.inQueryOut)
			}
		})
	}
}

// TestASCIIBytes: IsASCIILetter and IsASCIIDigit take the bytes of UTF-8
// text one by one; no byte of a multi-byte rune (é, ٣) is a letter or digit.
func TestASCIIBytes(t *testing.T) {
	for c := 0; c < 256; c++ {
		r := rune(c)
		letter := c < utf8.RuneSelf && unicode.IsLetter(r)
		digit := c < utf8.RuneSelf && unicode.IsDigit(r)
		if IsASCIILetter(byte(c)) != letter || IsASCIIDigit(byte(c)) != digit {
			t.Errorf("byte %#x: letter %v digit %v, want %v %v", c, IsASCIILetter(byte(c)), IsASCIIDigit(byte(c)), letter, digit)
		}
	}
}

func TestAnalyzeVagueness(t *testing.T) {
	tests := []struct {
		text string
		want float64
	}{
		{"", 1},
		{"fix that", 1},
		{"why?", 1},
		{"do the same for the timeout", 0.75},
		{"the timeout is wrong", 0.5},
		{"retry budget exhausted", 0.25},
		{"retry budget exhausted silently", 0},
		{"fix parseFoo", 0},
		{"fix Foo", 0.75}, // a capitalized word is not an identifier
		{"same for main.go", 0},
		{"what about `x`", 0},
	}
	prev := 2.0
	for _, tt := range tests[:7] { // these grow by one content word each
		if v := Analyze(tt.text).Vagueness; v > prev {
			t.Errorf("Vagueness(%q) = %v rose above %v with more content words", tt.text, v, prev)
		} else {
			prev = v
		}
	}
	for _, tt := range tests {
		if got := Analyze(tt.text).Vagueness; got != tt.want {
			t.Errorf("Vagueness(%q) = %v, want %v", tt.text, got, tt.want)
		}
	}
}

// FuzzAnalyze checks the invariants of Analyze on arbitrary text: no panic,
// trimmed non-empty sentences, lowercase unique words, unique identifiers
// and paths, vagueness in [0,1].
func FuzzAnalyze(f *testing.F) {
	for _, s := range []string{
		"cmd/compile: fix crash when inlining generic closures",
		"Add `--dry-run` flag to deploy.sh and document it in README.md",
		"now do the same for the other one", "`unclosed code", "``", "a``b`c`",
		"feat(: x", "(((", ")))", ":", ": ", "x:", "./", "/", "#L", "a.go:", "…", "\xff\xfe", "v", "1.", "'s",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		q := Analyze(s)
		for _, x := range q.Sentences {
			if x == "" || strings.TrimSpace(x) != x {
				t.Errorf("sentence %q is empty or untrimmed", x)
			}
		}
		for _, w := range q.Words {
			if w != strings.ToLower(w) || strings.IndexFunc(w, unicode.IsSpace) >= 0 {
				t.Errorf("word %q is not a lowercase word", w)
			}
		}
		for _, l := range [][]string{q.Words, q.Identifiers, q.Paths} {
			for i, x := range l {
				if x == "" || slices.Contains(l[:i], x) {
					t.Errorf("empty or repeated entry %q in %q", x, l)
				}
			}
		}
		if !(q.Vagueness >= 0 && q.Vagueness <= 1) {
			t.Errorf("Vagueness = %v", q.Vagueness)
		}
	})
}

var benchCommit = `workspace: debounce reindexing after didChange bursts

Typing in a large file queued one reindex per keystroke, so Select saw a
stale snapshot for seconds. Coalesce edits per document with a 50ms timer
and cancel the pending parse when newer text arrives (see lsp/server.go).`

func BenchmarkAnalyze(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		Analyze(benchCommit)
	}
}
