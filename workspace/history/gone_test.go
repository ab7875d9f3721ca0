package history

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGoneWhereANameWasRemoved: a name a commit took out of a file is
// found where it was, with that commit, in the file that defined it (not
// the one that imported it); a name only moved (removed and
// added again in the same file) or still written is not; the cache and an
// extension after HEAD moves keep it, its lines followed to the new head.
func TestGoneWhereANameWasRemoved(t *testing.T) {
	r := newGitRepo(t)
	r.write("pkg/types.py", "import typing\n\nURLTypes = typing.Union[str, bytes]\nHeaderTypes = dict\nQueryParamTypes = dict\n")
	r.write("pkg/client.py", "from .types import HeaderTypes, URLTypes\n\nclass Client:\n    pass\n")
	r.commit("initial")
	r.write("pkg/types.py", "import typing\n\nHeaderTypes = dict\nQueryParamTypes = dict  # moved\n")
	r.write("pkg/client.py", "from .types import HeaderTypes\n\nclass Client:\n    pass\n")
	removal := r.commit("Drop the URL aliases")
	ctx := context.Background()
	h, err := loadDir(ctx, r.dir, "", Options{})
	if err != nil {
		t.Fatal(err)
	}
	check := func(what string, h *History, line int) {
		t.Helper()
		got := h.Gone("URLTypes")
		if len(got) != 1 || got[0].Path != "pkg/types.py" || got[0].Start > line || got[0].End < line {
			t.Fatalf("%s: Gone(URLTypes) = %+v, want pkg/types.py around line %d", what, got, line)
		}
		if why := h.GoneWhy("URLTypes", got[0]); !strings.Contains(why, removal[:7]) || !strings.Contains(why, "Drop the URL aliases") {
			t.Errorf("%s: why %q does not name the commit", what, why)
		}
		for _, still := range []string{"QueryParamTypes", "HeaderTypes", "Client"} {
			if g := h.Gone(still); len(g) != 0 {
				t.Errorf("%s: Gone(%s) = %+v: it is still there", what, still, g)
			}
		}
	}
	check("read", h, 3)

	cache := filepath.Join(t.TempDir(), "history")
	if err := h.Save(cache, r.dir); err != nil {
		t.Fatal(err)
	}
	back, err := LoadCache(cache, r.dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	check("from the cache", back, 3)

	// Two lines above the place move it down by two.
	r.write("pkg/types.py", "import typing\nimport os\nimport sys\n\nHeaderTypes = dict\nQueryParamTypes = dict  # moved\n")
	r.commit("imports")
	ext, err := back.extendDir(ctx, r.dir, "", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if ext.Read != 1 {
		t.Fatalf("the extension read %d commits, want 1", ext.Read)
	}
	check("extended", ext, 5)
}

// TestGoneDefinitionsPerLanguage: the file whose removed lines defined a
// name is where it is gone from, not one whose removed lines only used it:
// a Java method or field is named after its type ("public Response
// getBody()", "static final String BASE_URL"), a Rust item may be
// pub(crate), a TypeScript declaration is "export declare function", and
// a Rust path (Token::Text) uses a name, it does not define it.
func TestGoneDefinitionsPerLanguage(t *testing.T) {
	r := newGitRepo(t)
	r.write("src/token.rs", "pub(crate) enum Token {\n    Text(String),\n}\n\npub(crate) fn parse_token(s: &str) -> Token {\n    Token::Text(s.into())\n}\n\nfn keep() {}\n")
	r.write("src/render.rs", "use crate::token::Token;\n\nfn render() {\n    let t = parse_token(\"x\");\n    match t {\n        Token::Text(s) => s,\n    };\n}\n")
	r.write("src/main/Client.java", "package x;\n\nclass Client {\n    public static final String BASE_URL = \"x\";\n\n    public Response getBody() {\n        return null;\n    }\n\n    void keep() {}\n}\n")
	r.write("src/main/Caller.java", "package x;\n\nclass Caller {\n    String url = Client.BASE_URL;\n    Object body = client.getBody();\n    Response response;\n}\n")
	r.write("index.d.ts", "export declare function createInstance(config: Config): Instance;\nexport declare const VERSION: string;\n")
	r.write("lib/axios.js", "import { createInstance } from './core';\nconst axios = createInstance(defaults);\n")
	r.commit("initial")
	r.write("index.d.ts", "export declare const VERSION: string;\n")
	r.write("lib/axios.js", "const axios = {};\n")
	r.write("src/token.rs", "fn keep() {}\n")
	r.write("src/render.rs", "fn render() {\n}\n")
	r.write("src/main/Client.java", "package x;\n\nclass Client {\n    void keep() {}\n}\n")
	r.write("src/main/Caller.java", "package x;\n\nclass Caller {\n}\n")
	r.commit("Drop tokens and bodies")
	h, err := loadDir(context.Background(), r.dir, "", Options{})
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{
		"Token":       "src/token.rs",
		"parse_token": "src/token.rs",
		"BASE_URL":    "src/main/Client.java",
		"getBody":     "src/main/Client.java",
		// a TypeScript declaration
		"createInstance": "index.d.ts",
	} {
		got := h.Gone(name)
		if len(got) != 1 || got[0].Path != want {
			var ps []string
			for _, g := range got {
				ps = append(ps, g.Path)
			}
			t.Errorf("Gone(%s) = %v, want %s alone (the file that defined it)", name, ps, want)
		}
	}
}

// TestOlderCacheIsReadAgain: a cache an older version wrote (v1 without
// the removed names, v2 with their definitions marked by the older rule)
// is foreign, so the history is read again, not taken from it, and the
// log says why: another version wrote it (not another folder's).
func TestOlderCacheIsReadAgain(t *testing.T) {
	r := newGitRepo(t)
	r.write("a.py", "URLTypes = 1\n")
	r.commit("initial")
	h, err := loadDir(context.Background(), r.dir, "", Options{})
	if err != nil {
		t.Fatal(err)
	}
	cache := filepath.Join(t.TempDir(), "history")
	if err := h.Save(cache, r.dir); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(cache)
	if err != nil {
		t.Fatal(err)
	}
	for _, old := range []string{"ctxls history cache v1\n", "ctxls history cache v2\n"} {
		body, ok := bytes.CutPrefix(data, []byte(cacheMagic))
		if !ok {
			t.Fatalf("the cache does not start with %q", cacheMagic)
		}
		if err := os.WriteFile(cache, append([]byte(old), body...), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := LoadCache(cache, r.dir, Options{}); !errors.Is(err, ErrCacheForeign) || !strings.Contains(err.Error(), "another version") {
			t.Errorf("a cache written as %q: LoadCache err %v, want ErrCacheForeign saying it is another version's", strings.TrimSpace(old), err)
		}
	}
}

// TestAddedFileNamesAreNotKept: the read notes no names of an added file's
// lines (none of them can be gone), only of a changed file's.
func TestAddedFileNamesAreNotKept(t *testing.T) {
	r := newGitRepo(t)
	r.write("old.py", "OldName = 1\n")
	r.commit("initial")
	r.write("old.py", "NewName = 1\n")
	r.write("vendored.py", "VendoredName = 1\nOtherName = 2\n")
	r.commit("vendor")
	out := r.git(append(cloneArgs(logArgs), "-p", "--unified=0", "-1")...)
	pcs, err := parseLog(bufio.NewReader(strings.NewReader(out)))
	if err != nil || len(pcs) != 1 || len(pcs[0].diffs) != 2 {
		t.Fatalf("parsed %d commits (%v)", len(pcs), err)
	}
	for _, d := range pcs[0].diffs {
		n := d.names
		switch d.new {
		case "vendored.py":
			if n.plus != nil || n.minus != nil {
				t.Errorf("the added file's names were noted: %v", n.plus)
			}
		case "old.py":
			if _, ok := n.minus["OldName"]; !ok || !n.plus["NewName"] {
				t.Errorf("the changed file's names: plus %v minus %v", n.plus, n.minus)
			}
		}
	}
}

// TestGoneWithFusedHunks: a user's diff.interHunkContext (hunks a few
// lines apart fused, the lines between written as context) does not make
// a name moved two lines down look gone.
func TestGoneWithFusedHunks(t *testing.T) {
	r := newGitRepo(t)
	r.write("conf.py", "a = OldName\nkeep = 1\nb = other\n")
	r.commit("initial")
	r.write("conf.py", "a = other\nkeep = 1\nb = OldName\n")
	r.commit("swap")
	r.git("config", "diff.interHunkContext", "3")
	h, err := loadDir(context.Background(), r.dir, "", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if g := h.Gone("OldName"); len(g) != 0 {
		t.Errorf("Gone(OldName) = %+v: it only moved", g)
	}
}
