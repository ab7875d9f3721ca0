package tokenize

import (
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

func tokTermsOf(text string) []string {
	var out []string
	Terms(text, func(t string) { out = append(out, t) })
	return out
}

func TestTermsSplitsIdentifiers(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"parseConfig", []string{"pars", "config", "parseconfig"}},
		{"ParseConfig", []string{"pars", "config", "parseconfig"}},
		{"HTTPServer", []string{"http", "serv", "httpserver"}},
		{"myHTTPServer", []string{"my", "http", "serv", "myhttpserver"}},
		{"IOError", []string{"io", "error", "ioerror"}},
		{"parseJSON2Go", []string{"pars", "json", "go", "parsejson2go"}},
		{"URLs", []string{"url"}},
		{"IDsForUsers", []string{"id", "user", "idsforusers"}},
		{"snake_case_name", []string{"snak", "cas", "nam", "snakecasename"}},
		{"MAX_RETRY_COUNT", []string{"max", "retri", "count", "maxretrycount"}},
		{"__init__", []string{"init"}},
		{"kebab-case", []string{"kebab", "cas", "kebabcase"}},
		{"--max-chars", []string{"max", "char", "maxchars"}},
		// Digits: split from letters, single digits dropped, the joined
		// identifier kept; "-" does not join numbers.
		{"utf8", []string{"utf", "utf8"}},
		{"sha256sum", []string{"sha", "256", "sum", "sha256sum"}},
		{"v2", []string{"v2"}},
		{"2024-01-02", []string{"2024", "01", "02"}},
		{"x - y", nil},
		// Paths and dotted names are separate words.
		{"lsp/server.go", []string{"lsp", "serv", "go"}},
		{"os.ReadFile", []string{"os", "read", "fil", "readfile"}},
		// Unicode letters: lowercased, split at case changes, not stemmed.
		{"größeBerechnen", []string{"größe", "berechnen", "größeberechnen"}},
		{"ÉcoleNormale", []string{"école", "normal", "écolenormale"}},
		{"数据库Server", []string{"数据库", "serv", "数据库server"}},
		// Syntax words everyone writes are not terms.
		{"if err != nil { return err }", nil},
		{"the func returns", nil},
		{"returnValue", []string{"valu", "returnvalue"}},
		// Invalid UTF-8 separates words.
		{"ab\xffcd", []string{"ab", "cd"}},
		{"a b c", nil},
	} {
		if got := tokTermsOf(tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("Terms(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestTermsLengthLimits(t *testing.T) {
	w40 := strings.Repeat("abcdefghij", 4) // 40 letters, no stemmable suffix
	if got := tokTermsOf(w40); !slices.Equal(got, []string{w40}) {
		t.Errorf("40-letter word: got %q", got)
	}
	if got := tokTermsOf(w40 + "k"); got != nil {
		t.Errorf("41-letter word: got %q, want nothing", got)
	}
	// Parts of a long identifier survive; the joined form does not.
	long := strings.Repeat("Segment", 8) // 56 letters in 8 parts
	got := tokTermsOf(long)
	if len(got) != 8 || got[0] != "segment" {
		t.Errorf("Terms(%q) = %q, want 8 × segment", long, got)
	}
	// 40 runes of a two-byte letter are kept, 41 are not.
	u40 := strings.Repeat("é", 40)
	if got := tokTermsOf(u40); !slices.Equal(got, []string{u40}) {
		t.Errorf("40 × é: got %q", got)
	}
	if got := tokTermsOf(u40 + "é"); got != nil {
		t.Errorf("41 × é: got %q", got)
	}
}

func tokStemOf(w string) string {
	got := tokTermsOf(w)
	if len(got) != 1 {
		return "<" + strings.Join(got, ",") + ">"
	}
	return got[0]
}

func TestStemmerFamiliesMeet(t *testing.T) {
	for _, family := range [][]string{
		{"validator", "validate", "validation", "validates", "validated", "validating", "validators", "valid"},
		{"parsing", "parsed", "parser", "parse", "parses", "parsers"},
		{"index", "indexes", "indexing", "indexed", "indexer"},
		{"embed", "embeds", "embedded", "embedding", "embeddings", "embedder"},
		{"configure", "configured", "configuration", "configuring"},
		{"select", "selection", "selector", "selected"},
		{"handler", "handle", "handles", "handled", "handling"},
		{"query", "queries", "queried", "querying"},
		{"copy", "copies", "copied", "copying"},
		{"order", "ordered", "ordering", "orders"},
		{"run", "runs", "running", "runner"},
		{"buffer", "buffered", "buffering", "buffers"},
		{"format", "formats", "formatted", "formatting", "formatter"},
		{"execute", "execution", "executor"},
		{"iterator", "iterate", "iteration"},
		{"process", "processes", "processing", "processed", "processor"},
		{"controller", "controlled", "control"},
		{"option", "options", "opts"},
		{"user", "users"},
		{"use", "used", "uses", "using"},
		{"class", "classes"},
		{"status", "statuses"},
		{"alias", "aliases"},
		{"api", "apis"},
		{"cpu", "cpus"},
		{"match", "matches", "matched", "matching"},
		// Decided on purpose: the server serves.
		{"server", "serve", "serving", "servers"},
	} {
		want := tokStemOf(family[0])
		for _, w := range family[1:] {
			if got := tokStemOf(w); got != want {
				t.Errorf("stem(%q) = %q, want %q like stem(%q)", w, got, want, family[0])
			}
		}
	}
}

func TestStemmerKeepsWordsApart(t *testing.T) {
	for _, pair := range [][2]string{
		{"user", "use"},
		{"format", "form"},
		{"token", "tokenize"},
		{"status", "state"},
		{"string", "str"},
		{"thing", "th"},
		{"process", "proc"},
		{"embed", "emb"},
		{"speed", "spe"},
		{"class", "clas"},
		{"bias", "bia"},
		{"delete", "delegate"},
		{"call", "cal"},
	} {
		if a, b := tokStemOf(pair[0]), tokStemOf(pair[1]); a == b {
			t.Errorf("stem(%q) = stem(%q) = %q, want them apart", pair[0], pair[1], a)
		}
	}
	// Words that must come out unchanged.
	for _, w := range []string{"class", "status", "process", "string", "thing", "speed", "need", "alias", "embed", "access"} {
		if got := tokStemOf(w); got != w {
			t.Errorf("stem(%q) = %q, want it unchanged", w, got)
		}
	}
}

func TestQueryTermsDropsFillerAndDuplicates(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"Please fix the handleRequest bug when parsing config files, and add a new validator. It doesn't work!",
			[]string{"handl", "request", "handlerequest", "bug", "pars", "config", "fil", "valid"}},
		{"parse parsing parser Parse", []string{"pars"}},
		// Generic verbs are dropped only as standalone words.
		{"useState", []string{"use", "stat", "usestate"}},
		{"fixTypo fix typo", []string{"fix", "typo", "fixtypo"}},
		{"update the allowed handlers", []string{"handl"}},
		{"how do I make it faster?", []string{"fast"}},
		{"", nil},
		{"the a an of", nil},
	} {
		if got := QueryTerms(tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("QueryTerms(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestQueryTermsMatchDocumentTerms checks that a query written the way code
// is written finds the document terms.
func TestQueryTermsMatchDocumentTerms(t *testing.T) {
	doc := map[string]bool{}
	Terms("func (s *Server) handleUniqueArgsValidator(args []string) error", func(t string) { doc[t] = true })
	for _, q := range []string{"unique args validation", "HandleUniqueArgsValidator", "server validates arguments"} {
		matched := 0
		terms := QueryTerms(q)
		for _, term := range terms {
			if doc[term] {
				matched++
			}
		}
		if matched < 2 {
			t.Errorf("query %q (terms %q) matches %d document terms, want ≥ 2", q, terms, matched)
		}
	}
}

func TestTokenizerDoesNotAllocatePerTerm(t *testing.T) {
	text := strings.Repeat("func (s *HTTPServer) parseConfig(path string) (*Config, error) { return loadYAMLFile(path) } ", 20)
	var s Scratch
	n := 0
	emit := func([]byte) bool { n++; return true }
	allocs := testing.AllocsPerRun(20, func() { s.Run(text, modeQuery, emit) })
	if allocs != 0 {
		t.Errorf("tokenizer run allocates %.0f times, want 0", allocs)
	}
	if n == 0 {
		t.Fatal("no terms emitted")
	}
}

func TestTermsStopEarly(t *testing.T) {
	var s Scratch
	var got []string
	s.Run("alpha beta gamma delta", ModeDoc, func(b []byte) bool {
		got = append(got, string(b))
		return len(got) < 2
	})
	if !slices.Equal(got, []string{"alpha", "beta"}) {
		t.Errorf("got %q, want the first two terms only", got)
	}
}

func FuzzTerms(f *testing.F) {
	for _, s := range []string{"parseJSON2Go", "HTTPServer_v2-beta", "größeBerechnen", "\xff\xfe", "ǅemal", "İstanbulİ", "a_-_b", strings.Repeat("Ab", 50)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		Terms(text, func(term string) {
			if !utf8.ValidString(term) {
				t.Fatalf("term %q is not valid UTF-8", term)
			}
			if n := utf8.RuneCountInString(term); n < 2 || n > tokMaxRunes {
				t.Fatalf("term %q has %d runes", term, n)
			}
			for _, r := range term {
				if unicode.ToLower(r) != r || !(unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r)) {
					t.Fatalf("term %q holds %q", term, r)
				}
			}
		})
		QueryTerms(text)
	})
}

// TestRunAtGivesIdentifierStarts checks that RunAt yields Run's terms,
// each with the offset where its identifier starts.
func TestRunAtGivesIdentifierStarts(t *testing.T) {
	text := "  parse_configV2(HTTPServers, send-message) // ünïcode_word x"
	var want []string
	var s Scratch
	s.Run(text, ModeDoc, func(b []byte) bool { want = append(want, string(b)); return true })
	var got []string
	var at []int
	s.RunAt(text, ModeDoc, func(b []byte, i int) bool {
		got, at = append(got, string(b)), append(at, i)
		return true
	})
	if !slices.Equal(got, want) {
		t.Fatalf("RunAt terms %q, Run's %q", got, want)
	}
	starts := map[string]string{"pars": "parse_configV2", "config": "parse_configV2",
		"parseconfigv2": "parse_configV2", "http": "HTTPServers", "serv": "HTTPServers", "httpservers": "HTTPServers",
		"send": "send-message", "messag": "send-message", "sendmessage": "send-message", "word": "ünïcode_word", "ünïcode": "ünïcode_word"}
	for i, term := range got {
		ident, ok := starts[term]
		if !ok {
			continue
		}
		if !strings.HasPrefix(text[at[i]:], ident) {
			t.Errorf("term %q at %d (%q), want the start of %q", term, at[i], text[at[i]:], ident)
		}
		delete(starts, term)
	}
	if len(starts) > 0 {
		t.Errorf("terms not seen: %v (got %q)", starts, got)
	}
}

// IdentBoundary says where an identifier Run reads may start afresh: not
// inside one, nor after a byte that may join its parts.
func TestIdentBoundary(t *testing.T) {
	for _, c := range []struct {
		text string
		at   int
		want bool
	}{
		{"Cart.Total", 5, true},
		{"pkg::parse", 5, true},
		{"a b", 2, true},
		{"Naïve", 0, true},
		{"x→Name", len("x→"), true},
		{"FooBar", 3, false},
		{"read_all", 5, false},
		{"send-message", 5, false},
		{"ÜnïcodeNaïve", len("Ünïcode"), false},
		{"v2x", 2, false},
	} {
		if got := IdentBoundary(c.text, c.at); got != c.want {
			t.Errorf("IdentBoundary(%q, %d) = %v, want %v", c.text, c.at, got, c.want)
		}
	}
}
