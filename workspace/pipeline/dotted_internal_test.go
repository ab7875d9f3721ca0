package pipeline

import (
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/ctxls/ctxls/symbolindex"
	"github.com/ctxls/ctxls/symbolindex/embed"
	"github.com/ctxls/ctxls/symbolindex/parse"
)

// dottedIndex is an index of the given JavaScript files, each one small
// function.
func dottedIndex(t *testing.T, paths ...string) *symbolindex.Index {
	t.Helper()
	emb := embed.NewHashEmbedder(16)
	idx := symbolindex.NewIndex(emb)
	for _, p := range paths {
		dottedPut(t, idx, p)
	}
	return idx
}

func dottedPut(t *testing.T, idx *symbolindex.Index, p string) {
	t.Helper()
	src := []byte("export function build() { return 1; }\n")
	doc, err := symbolindex.Prepare(parse.NewParser(), embed.NewHashEmbedder(16), p, src, int64(len(src)), 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	idx.Put(doc)
}

func dottedPaths(idx *symbolindex.Index, pairs ...string) []string {
	set := map[string]bool{}
	for _, p := range pairs {
		set[p] = true
	}
	var out []string
	for _, fs := range dottedStemFiles(idx, set) {
		out = append(out, idx.FilePath(fs))
	}
	slices.Sort(out)
	return out
}

// The files a dotted name spelt out finds are the index's own at every
// change: a file put into the same index after a request is found by the
// next one (the kept table is the index state's, not the index's).
func TestDottedStemFilesFollowTheIndex(t *testing.T) {
	idx := dottedIndex(t, "rollup.config.js", "lib/User.Service.js", "lib/mergeConfig.js", "a.b.c.js")
	if got := dottedPaths(idx, "rollup.config", "user.service", "b.c"); !slices.Equal(got, []string{"lib/User.Service.js", "rollup.config.js"}) {
		t.Errorf("got %q, want rollup.config.js and lib/User.Service.js", got)
	}
	dottedPut(t, idx, "web/rollup.config.js")
	if got := dottedPaths(idx, "rollup.config"); !slices.Equal(got, []string{"rollup.config.js", "web/rollup.config.js"}) {
		t.Errorf("after a put into the same index: got %q", got)
	}
}

// The kept tables do not keep an index alive: a closed workspace's index
// is collected although a request asked about it.
func TestDottedStemsLetTheIndexGo(t *testing.T) {
	gone := make(chan struct{})
	func() {
		idx := dottedIndex(t, "rollup.config.js")
		runtime.AddCleanup(idx, func(ch chan struct{}) { close(ch) }, gone)
		if got := dottedPaths(idx, "rollup.config"); len(got) != 1 {
			t.Fatalf("got %q", got)
		}
	}()
	for i := 0; i < 50; i++ {
		runtime.GC()
		select {
		case <-gone:
			return
		case <-time.After(10 * time.Millisecond):
		}
	}
	t.Error("the index was not collected: the dotted-stem tables keep it alive")
}
