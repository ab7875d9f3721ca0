//go:build unix

package lsp

import (
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ctxls/ctxls/workspace/synth"
)

// TestKillDuringCacheWrite: `kill -9` at any moment of an index run (the
// walk, the parse, the cache write) leaves a cache that the next run
// loads, or rebuilds with a warning; either way the next index equals a
// fresh one, and the server starts from it.
func TestKillDuringCacheWrite(t *testing.T) {
	root, cache := t.TempDir(), t.TempDir()
	if _, err := synth.Generate(root, synth.Options{Symbols: 6_000}); err != nil {
		t.Fatal(err)
	}
	indexRoot := func(args ...string) (string, error) {
		out, err := exec.Command(ctxlsBin, append([]string{"index", "--root", root, "--json"}, args...)...).Output()
		if err != nil {
			return "", err
		}
		var st struct {
			MerkleRoot string `json:"merkleRoot"`
		}
		if err := json.Unmarshal(out, &st); err != nil {
			return "", fmt.Errorf("%v: %s", err, out)
		}
		return st.MerkleRoot, nil
	}

	start := time.Now()
	if _, err := indexRoot("--cache-dir", t.TempDir()); err != nil {
		t.Fatal(err)
	}
	full := time.Since(start)

	const kills = 5
	for i := 1; i <= kills; i++ {
		// Every run has something to parse and so a cache to write.
		touched := filepath.Join(root, fmt.Sprintf("touched%d.go", i))
		writeFile(t, touched, fmt.Sprintf("package touched\n\n// Touched%d is new in run %d.\nfunc Touched%d() {}\n", i, i, i))

		cmd := exec.Command(ctxlsBin, "index", "--root", root, "--cache-dir", cache)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(full * time.Duration(i) / kills)
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()

		got, err := indexRoot("--cache-dir", cache)
		if err != nil {
			t.Fatalf("index after kill %d (at %d/%d of a run): %v", i, i, kills, err)
		}
		want, err := indexRoot("--cache-dir", "off")
		if err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Fatalf("after kill %d the cached index has root %s, a fresh one %s", i, got, want)
		}
	}

	// The server starts from the cache the killed runs left.
	c := pipeClient(t, nil)
	c.mustCall("initialize", map[string]any{
		"processId": nil, "rootUri": uri(root, ""), "capabilities": caps{}.json(),
		"initializationOptions": map[string]any{"cacheDir": cache},
	}, nil)
	c.notify("initialized", map[string]any{})
	c.waitReady()
	res := c.mustSelect(map[string]any{"query": fmt.Sprintf("Touched%d", kills)})
	if len(res.Items) == 0 || !strings.HasSuffix(res.Items[0].Path, fmt.Sprintf("touched%d.go", kills)) {
		t.Errorf("the server on the surviving cache did not find Touched%d:%s", kills, res)
	}
}
