package heuristics

import "testing"

func TestCategoryOf(t *testing.T) {
	for _, tc := range []struct {
		path, lang string
		want       Category
	}{
		{"workspace/select.go", "go", 0},
		{"workspace/select_test.go", "go", Test},
		{"tests/conftest.py", "python", Test},
		{"src/app.spec.ts", "typescript", Test},
		{"src/main/java/FooTests.java", "java", Test},
		{"test_parse.py", "python", Test},
		{"testdata/case.md", "markdown", Test | Docs},
		{"docs/guide.md", "markdown", Docs},
		{"NOTES.txt", "text", Docs},
		{".github/workflows/ci.yml", "yaml", Config},
		{"Dockerfile", "dockerfile", Config},
		{"scripts/lint", "shell", Config},
		{"index.d.ts", "typescript", 0}, // a declaration file is code (Asks.DeclarationPrior)
		{"contest/entry.go", "go", 0},   // "contest" is not "test"
		{"attestation.go", "go", 0},
	} {
		if got := CategoryOf(tc.path, tc.lang); got != tc.want {
			t.Errorf("CategoryOf(%q, %q) = %b, want %b", tc.path, tc.lang, got, tc.want)
		}
	}
}

func TestAsksFor(t *testing.T) {
	for _, tc := range []struct {
		query string
		want  Asks
	}{
		{"rename the parser", Asks{}},
		{"fix the flaky test in CI", Asks{Tests: true, Config: true}},
		{"docs: clarify the README", Asks{Docs: true}},
		{"Bump eslint to v9", Asks{Config: true}},
		{"testing", Asks{Tests: true}},
		{"contest results", Asks{}}, // whole words only
		{"fix(types): add missing types for mergeConfig", Asks{Types: true}},
		{"updated interceptor use type definition", Asks{Types: true}},
	} {
		if got := AsksFor(tc.query); got != tc.want {
			t.Errorf("AsksFor(%q) = %+v, want %+v", tc.query, got, tc.want)
		}
	}
}

// A test is discounted as a test even when it is also documentation, and
// asking lifts only the kind asked for.
func TestAsksPrior(t *testing.T) {
	if got := (Asks{Docs: true}).Prior(Test | Docs); got != TestPrior {
		t.Errorf("docs asked, testdata markdown: prior %v, want TestPrior %v", got, TestPrior)
	}
	if got := (Asks{Tests: true}).Prior(Test | Docs); got != AskedPrior {
		t.Errorf("tests asked, testdata markdown: prior %v, want AskedPrior %v", got, AskedPrior)
	}
	if got := (Asks{Tests: true}).Prior(Config); got != ConfigPrior {
		t.Errorf("tests asked, config file: prior %v, want ConfigPrior %v", got, ConfigPrior)
	}
	if got := (Asks{}).Prior(0); got != 1 {
		t.Errorf("code: prior %v, want 1", got)
	}
}

// No word asks for two kinds: AsksFor's sets are disjoint, as the switch
// they replace was.
func TestAsksWordsDisjoint(t *testing.T) {
	for w := range testWords {
		if docWords[w] || configWords[w] {
			t.Errorf("%q is in two word sets", w)
		}
	}
	for w := range docWords {
		if configWords[w] {
			t.Errorf("%q is in two word sets", w)
		}
	}
}

// BenchmarkCategoryOf is what an index spends per file it puts or loads.
func BenchmarkCategoryOf(b *testing.B) {
	paths := []string{"workspace/select.go", "workspace/select_test.go", "src/components/cart/Cart.spec.tsx", "docs/guide.md", ".github/workflows/ci.yml"}
	langs := []string{"go", "go", "tsx", "markdown", "yaml"}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		CategoryOf(paths[i%len(paths)], langs[i%len(langs)])
	}
}
