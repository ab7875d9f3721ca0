package symbolindex

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/symbolindex/embed"
	"github.com/ctxls/ctxls/symbolindex/parse"
)

// streamFiles is persistFiles with enough Go files beside it to fill
// several small segments.
func streamFiles() map[string]string {
	files := maps.Clone(persistFiles)
	for i := range 9 {
		var b strings.Builder
		fmt.Fprintf(&b, "package pkg%d\n\n", i)
		for j := range i + 1 {
			fmt.Fprintf(&b, "// Step%d_%d moves the ledger %d entries forward.\nfunc Step%d_%d(n int) int {\n\treturn n + %d\n}\n\n", i, j, j, i, j, i*j)
		}
		files[fmt.Sprintf("pkg/p%02d/steps.go", i)] = b.String()
	}
	return files
}

// segmentsOf returns the segment table of a cache file and each segment's
// bytes.
func segmentsOf(t *testing.T, path string) ([]segEntry, [][]byte) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	nseg, embLen := binary.LittleEndian.Uint32(data[16:]), binary.LittleEndian.Uint32(data[20:])
	table := make([]segEntry, nseg)
	copy(asBytes(table), data[32+embLen:])
	var segs [][]byte
	for _, e := range table {
		segs = append(segs, data[e.Off:e.Off+e.Len])
	}
	return table, segs
}

// A streamed build writes the segments Save writes for the same files,
// and loads as the same index.
func TestStreamWriterWritesWhatSaveWrites(t *testing.T) {
	defer func(f, s int) { segMaxFiles, segMaxSyms = f, s }(segMaxFiles, segMaxSyms)
	segMaxFiles, segMaxSyms = 3, 12
	files := streamFiles()
	paths := slices.Sorted(maps.Keys(files))
	p := parse.NewParser()
	defer p.Close()
	emb := embed.NewHashEmbedder(embed.DefaultHashDim)

	built := NewIndex(emb)
	for _, f := range paths {
		built.Put(ixPrepare(t, p, emb, f, files[f]))
	}
	dir := t.TempDir()
	saved := filepath.Join(dir, "saved.idx")
	if err := built.Save(saved); err != nil {
		t.Fatal(err)
	}
	streamed := filepath.Join(dir, "streamed.idx")
	w, err := NewStreamWriter(streamed, emb, len(paths))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range paths {
		if err := w.Put(ixPrepare(t, p, emb, f, files[f])); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Finish(); err != nil {
		t.Fatal(err)
	}
	if w.Embedded() != built.Symbols() {
		t.Errorf("streamed build embedded %d symbols, want %d", w.Embedded(), built.Symbols())
	}

	wantTab, wantSegs := segmentsOf(t, saved)
	gotTab, gotSegs := segmentsOf(t, streamed)
	if len(wantTab) < 4 {
		t.Fatalf("the saved index has %d segments; the test wants several", len(wantTab))
	}
	if len(gotTab) != len(wantTab) {
		t.Fatalf("streamed %d segments, saved %d", len(gotTab), len(wantTab))
	}
	for i := range wantTab {
		g, w := gotTab[i], wantTab[i]
		if g.Len != w.Len || g.Sum != w.Sum || g.FileBase != w.FileBase || g.NFiles != w.NFiles || g.SymBase != w.SymBase || g.NSyms != w.NSyms ||
			!bytes.Equal(gotSegs[i], wantSegs[i]) {
			t.Errorf("segment %d: streamed %+v, saved %+v (bytes equal: %v)", i, g, w, bytes.Equal(gotSegs[i], wantSegs[i]))
		}
	}
	// And the same dictionary, which the load uses.
	dictBytes := func(path string) []byte {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		d, _ := dictOf(t, data)
		return data[d.Off:]
	}
	if !bytes.Equal(dictBytes(streamed), dictBytes(saved)) {
		t.Error("the streamed build's dictionary differs from the saved one's")
	}
	loaded, err := LoadIndex(streamed, emb)
	if err != nil {
		t.Fatal(err)
	}
	if merged(loaded) || loaded.Rewrite() != "" {
		t.Errorf("the streamed cache's dictionary is not used (rewrite %q)", loaded.Rewrite())
	}
	persistSame(t, loaded, built)
	if matches, _ := filepath.Glob(filepath.Join(dir, "*.tmp*")); len(matches) != 0 {
		t.Errorf("temporary files left: %q", matches)
	}
}

func TestStreamWriterRefusesFilesOutOfOrder(t *testing.T) {
	p := parse.NewParser()
	defer p.Close()
	emb := embed.NewHashEmbedder(embed.DefaultHashDim)
	dir := t.TempDir()
	path := filepath.Join(dir, "index.idx")
	w, err := NewStreamWriter(path, emb, 2)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Put(ixPrepare(t, p, emb, "web/cart.ts", persistFiles["web/cart.ts"])); err != nil {
		t.Fatal(err)
	}
	err = w.Put(ixPrepare(t, p, emb, "bank/account.go", ixAccounts))
	if err == nil || !strings.Contains(err.Error(), "path order") {
		t.Errorf("a file put out of order: error %v, want one naming the path order", err)
	}
	w.Abort()
	if names, _ := os.ReadDir(dir); len(names) != 0 {
		t.Errorf("an aborted stream left %d files", len(names))
	}
}
