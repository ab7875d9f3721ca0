package parse

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// TestGoWalkMatchesQuery checks that the walk that reads a Go file's
// records gives what the query queries/go.scm gives: the same references
// in the same order, the same definitions and wrappers, and so the same
// parsed file, on every Go file of this repository, whole and cut short
// at several points (syntax errors, missing nodes).
func TestGoWalkMatchesQuery(t *testing.T) {
	var files []string
	err := filepath.WalkDir("../..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && strings.HasPrefix(d.Name(), ".") && path != "../.." {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(path, ".go") {
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 100 {
		t.Fatalf("found %d Go files in the repository, want hundreds", len(files))
	}
	walk, query := NewParser(), NewParser()
	defer walk.Close()
	defer query.Close()
	query.queryOnly = true
	spec := codeLang(LangGo)
	cq, err := spec.compile()
	if err != nil {
		t.Fatal(err)
	}
	compared, gaveUp := 0, 0
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, cut := range []int{len(src), len(src) * 2 / 3, len(src) / 3, len(src) / 7} {
			s := src[:cut]
			wr, walked := goRecords(t, walk, spec, cq, s, false)
			qr, _ := goRecords(t, query, spec, cq, s, true)
			if !walked {
				gaveUp++
			} else if !reflect.DeepEqual(wr.refs, qr.refs) {
				t.Fatalf("%s cut at %d: references differ:\nwalk  %v\nquery %v", f, cut, wr.refs, qr.refs)
			}
			sortDefs(wr.defs)
			sortDefs(qr.defs)
			if walked && !reflect.DeepEqual(wr.defs, qr.defs) {
				t.Fatalf("%s cut at %d: definitions differ:\nwalk  %+v\nquery %+v", f, cut, wr.defs, qr.defs)
			}
			if walked && !reflect.DeepEqual(wr.wraps, qr.wraps) {
				t.Fatalf("%s cut at %d: wrappers differ:\nwalk  %+v\nquery %+v", f, cut, wr.wraps, qr.wraps)
			}
			wp, err1 := walk.ParseLanguage(context.Background(), f, LangGo, s)
			qp, err2 := query.ParseLanguage(context.Background(), f, LangGo, s)
			if err1 != nil || err2 != nil {
				t.Fatalf("%s cut at %d: %v, %v", f, cut, err1, err2)
			}
			if !reflect.DeepEqual(wp, qp) {
				t.Fatalf("%s cut at %d: parsed files differ:\nwalk  %+v\nquery %+v", f, cut, wp, qp)
			}
			compared++
		}
	}
	t.Logf("%d Go files, %d texts compared, %d left to the query", len(files), compared, gaveUp)
	if gaveUp > compared/4 {
		t.Errorf("the walk left %d of %d texts to the query", gaveUp, compared)
	}
}

// goRecords parses src as Go and returns the records p reads of it (a
// copy): with the query when query is set, else with the walk (false when
// the walk left the file to the query).
func goRecords(t *testing.T, p *Parser, spec *langSpec, cq *compiledQuery, src []byte, query bool) (records, bool) {
	t.Helper()
	tree, err := p.parseTree(context.Background(), spec, cq, nil, src)
	if err != nil {
		t.Fatal(err)
	}
	defer tree.Close()
	p.rec.reset()
	if query {
		p.collect(cq, tree, src)
	} else if !p.goWalk(tree.RootNode(), src) {
		return records{}, false
	}
	return records{defs: slices.Clone(p.rec.defs), refs: slices.Clone(p.rec.refs), wraps: slices.Clone(p.rec.wraps)}, true
}
