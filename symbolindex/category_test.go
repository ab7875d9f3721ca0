package symbolindex

import (
	"testing"

	"github.com/ctxls/ctxls/heuristics"
)

// heuristics names the languages of docs and configuration files by the
// strings DetectLanguage returns; they must stay the same strings.
func TestCategoryLanguages(t *testing.T) {
	docs := map[string]bool{LangMarkdown: true, LangText: true}
	config := map[string]bool{LangYAML: true, LangTOML: true, LangJSON: true, LangDockerfile: true, LangMakefile: true}
	for _, lang := range []string{LangGo, LangTypeScript, LangTSX, LangJavaScript, LangPython, LangRust, LangJava, LangC,
		LangCPP, LangCSharp, LangRuby, LangPHP, LangMarkdown, LangYAML, LangTOML, LangJSON, LangShell, LangDockerfile,
		LangMakefile, LangText} {
		if got := heuristics.IsDocLanguage(lang); got != docs[lang] {
			t.Errorf("IsDocLanguage(%q) = %v, want %v", lang, got, docs[lang])
		}
		if got := heuristics.IsConfigLanguage(lang); got != config[lang] {
			t.Errorf("IsConfigLanguage(%q) = %v, want %v", lang, got, config[lang])
		}
	}
	for path, lang := range map[string]string{"README.md": LangMarkdown, "ci.yml": LangYAML, "Cargo.toml": LangTOML,
		"package.json": LangJSON, "Dockerfile": LangDockerfile, "Makefile": LangMakefile, "notes.txt": LangText} {
		if got := DetectLanguage(path, nil); got != lang {
			t.Errorf("DetectLanguage(%q) = %q, want %q", path, got, lang)
		}
	}
}
