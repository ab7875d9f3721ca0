package symbolindex

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/heuristics"
	"github.com/ctxls/ctxls/symbolindex/embed"
	"github.com/ctxls/ctxls/symbolindex/parse"
)

// heuristics names the languages of docs and configuration files by the
// strings DetectLanguage returns; they must stay the same strings.
func TestCategoryLanguages(t *testing.T) {
	docs := map[string]bool{parse.LangMarkdown: true, parse.LangText: true}
	config := map[string]bool{parse.LangYAML: true, parse.LangTOML: true, parse.LangJSON: true, parse.LangDockerfile: true, parse.LangMakefile: true, parse.LangShell: true}
	for _, lang := range []string{parse.LangGo, parse.LangTypeScript, parse.LangTSX, parse.LangJavaScript, parse.LangPython, parse.LangRust, parse.LangJava, parse.LangC,
		parse.LangCPP, parse.LangCSharp, parse.LangRuby, parse.LangPHP, parse.LangMarkdown, parse.LangYAML, parse.LangTOML, parse.LangJSON, parse.LangShell, parse.LangDockerfile,
		parse.LangMakefile, parse.LangText} {
		if got := heuristics.IsDocLanguage(lang); got != docs[lang] {
			t.Errorf("IsDocLanguage(%q) = %v, want %v", lang, got, docs[lang])
		}
		if got := heuristics.IsConfigLanguage(lang); got != config[lang] {
			t.Errorf("IsConfigLanguage(%q) = %v, want %v", lang, got, config[lang])
		}
	}
	for path, lang := range map[string]string{"README.md": parse.LangMarkdown, "ci.yml": parse.LangYAML, "Cargo.toml": parse.LangTOML,
		"package.json": parse.LangJSON, "Dockerfile": parse.LangDockerfile, "Makefile": parse.LangMakefile, "notes.txt": parse.LangText} {
		if got := parse.DetectLanguage(path, nil); got != lang {
			t.Errorf("DetectLanguage(%q) = %q, want %q", path, got, lang)
		}
	}
}

// An index classifies each file once, when it is put or loaded from the
// cache, and every symbol of the file carries the class.
func TestFileCategoryStored(t *testing.T) {
	files := map[string]heuristics.Category{
		"pay/charge.go":            0,
		"pay/charge_test.go":       heuristics.Test,
		"docs/guide.md":            heuristics.Docs,
		"testdata/case.md":         heuristics.Test | heuristics.Docs,
		".github/workflows/ci.yml": heuristics.Config,
	}
	srcs := map[string]string{
		".go":  "package pay\n\n// Charge charges a card.\nfunc Charge(cents int) error { return nil }\n",
		".md":  "# Guide\n\n## Setup\n\nRun the installer.\n",
		".yml": "name: ci\non: push\njobs:\n  test:\n    runs-on: ubuntu-latest\n",
	}
	p := parse.NewParser()
	defer p.Close()
	emb := embed.NewHashEmbedder(embed.DefaultHashDim)
	ix := NewIndex(emb)
	for path := range files {
		ix.Put(ixPrepare(t, p, emb, path, srcs[path[strings.LastIndex(path, "."):]]))
	}
	check := func(what string, ix *Index) {
		t.Helper()
		for path, want := range files {
			f, ok := ix.FileSlot(path)
			if !ok {
				t.Fatalf("%s: %s not indexed", what, path)
			}
			if got := ix.FileCategory(f); got != want {
				t.Errorf("%s: FileCategory(%s) = %b, want %b", what, path, got, want)
			}
			for _, s := range ix.FileSymbols(f) {
				if ref, _ := ix.Symbol(s); ref.Category != want {
					t.Errorf("%s: symbol %s of %s has category %b, want %b", what, ref.Name, path, ref.Category, want)
				}
			}
		}
	}
	check("built", ix)
	cache := filepath.Join(t.TempDir(), "index.idx")
	if err := ix.Save(cache); err != nil {
		t.Fatal(err)
	}
	loaded, err := LoadIndex(cache, embed.NewHashEmbedder(embed.DefaultHashDim))
	if err != nil {
		t.Fatal(err)
	}
	check("loaded", loaded)
}
