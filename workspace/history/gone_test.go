package history

import (
	"context"
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
