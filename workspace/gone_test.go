package workspace

import (
	"strings"
	"testing"
)

// TestGoneNameFindsWhereItLived: "Reintroduce `URLTypes`" names a type
// that a past commit removed, so no search of today's code finds it, and
// the URL code whose words it shares ranks first without history. The
// history knows which file defined it: that file comes first, saying so.
func TestGoneNameFindsWhereItLived(t *testing.T) {
	r := newHistRepo(t)
	urls := "package web\n\n// URL is a parsed URL.\ntype URL struct{ raw string }\n\n// ParseURL parses a URL.\nfunc ParseURL(s string) URL { return URL{s} }\n\n// String gives the URL back.\nfunc (u URL) String() string { return u.raw }\n"
	client := "package web\n\n// Get fetches the URL.\nfunc Get(u %s) error { return nil }\n"
	types := "package web\n\n// HeaderTypes are the forms headers may take.\ntype HeaderTypes interface{}\n%s\n// CookieTypes are the forms cookies may take.\ntype CookieTypes interface{}\n"
	r.commit("initial import", map[string]string{
		"web/urls.go":   urls,
		"web/client.go": strings.Replace(client, "%s", "URLTypes", 1),
		"web/types.go":  strings.Replace(types, "%s", "\n// URLTypes are the forms a URL may take.\ntype URLTypes interface{}\n", 1),
	})
	r.commit("Simplify the client's argument aliases", map[string]string{
		"web/client.go": strings.Replace(client, "%s", "URL", 1),
		"web/types.go":  strings.Replace(types, "%s", "", 1),
	})
	r.commit("cookies: keep the jar sorted", map[string]string{
		"web/cookies.go": "package web\n\n// Jar holds cookies.\ntype Jar struct{}\n",
	})
	ws := histWorkspace(t, r.dir)
	sel := selDo(t, ws, &SelectRequest{Query: "Reintroduce `URLTypes`.", Limit: 4})
	if rankOf(sel, "web/types.go") != 1 {
		t.Fatalf("the file that defined URLTypes is not first:%s", selString(sel))
	}
	if why := sel.Items[0].Why; !strings.Contains(why, "`URLTypes` was removed from web/types.go by") || !strings.Contains(why, "Simplify the client's argument aliases") {
		t.Errorf("its why does not say where URLTypes went: %q", why)
	}
	if _, ok := sel.Items[0].Signals["gone"]; !ok {
		t.Errorf("no gone signal: %+v", sel.Items[0].Signals)
	}
}

// TestNamedCommitFindsItsFiles: "This reverts commit 1a2b3c4…" names a
// past commit by its hash, whose subject shares no word with the file it
// changed: that file comes first, saying which commit changed it.
func TestNamedCommitFindsItsFiles(t *testing.T) {
	r := newHistRepo(t)
	r.commit("initial import", map[string]string{
		"lib/query.go":  "package lib\n\n// ParseQuery splits a query string.\nfunc ParseQuery(s string) map[string]string { return nil }\n",
		"lib/patch.go":  "package lib\n\n// Patch applies a fix to the settings.\nfunc Patch(s string) string { return s }\n",
		"lib/limits.go": "package lib\n\n// MaxDepth bounds nesting.\nconst MaxDepth = 5\n",
	})
	r.commit("sec: harden against CVE-2024-51999", map[string]string{
		"lib/limits.go": "package lib\n\n// MaxDepth bounds nesting.\nconst MaxDepth = 1\n",
	})
	hash := r.git("rev-parse", "HEAD")
	r.commit("docs: words", map[string]string{"README.md": "# lib\n"})
	ws := histWorkspace(t, r.dir)
	req := "Revert the fix\n\nThis reverts commit " + hash + "."
	sel := selDo(t, ws, &SelectRequest{Query: req, Limit: 3})
	if rankOf(sel, "lib/limits.go") != 1 {
		t.Fatalf("the file the reverted commit changed is not first:%s", selString(sel))
	}
	if why := sel.Items[0].Why; !strings.Contains(why, "changed by commit "+hash[:7]) {
		t.Errorf("its why does not name the commit: %q", why)
	}
}
