//go:build unix

package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cespare/xxhash/v2"

	"github.com/ctxls/ctxls/workspace/synth"
)

// TestKillDuringCacheWrite: `kill -9` at any moment of an index run (the
// walk, the parse, the cache write) leaves a cache that the next run
// loads, or rebuilds with a warning; either way the next index equals
// that of a cache no run was killed over (which equals a fresh index),
// and the server starts from it.
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

	// clean is a cache no run is killed over: the index it gives after
	// each edit (re-parsing the touched file only) is the one a killed
	// run's cache must come back to.
	clean := t.TempDir()
	start := time.Now()
	if _, err := indexRoot("--cache-dir", clean); err != nil {
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
		left := cacheTemps(t, cache)

		got, err := indexRoot("--cache-dir", cache)
		if err != nil {
			t.Fatalf("index after kill %d (at %d/%d of a run): %v", i, i, kills, err)
		}
		// The next run sweeps what the killed writer left.
		if temps := cacheTemps(t, cache); len(temps) > 0 {
			t.Fatalf("after kill %d the next run left %q (the kill left %q)", i, temps, left)
		}
		t.Logf("kill %d left %d temporary files; the next run left none", i, len(left))
		want, err := indexRoot("--cache-dir", clean)
		if err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Fatalf("after kill %d the cached index has root %s, one never killed %s", i, got, want)
		}
	}

	// The cache never killed holds what a fresh index holds.
	fresh, err := indexRoot("--cache-dir", "off")
	if err != nil {
		t.Fatal(err)
	}
	if last, err := indexRoot("--cache-dir", clean); err != nil || last != fresh {
		t.Fatalf("the cache never killed has root %s (%v), a fresh index %s", last, err, fresh)
	}

	// The server starts from the cache the killed runs left.
	c := pipeClient(t, nil)
	startOnCache(c, root, cache)
	res := c.mustSelect(map[string]any{"query": fmt.Sprintf("Touched%d", kills)})
	if len(res.Items) == 0 || !strings.HasSuffix(res.Items[0].Path, fmt.Sprintf("touched%d.go", kills)) {
		t.Errorf("the server on the surviving cache did not find Touched%d:%s", kills, res)
	}
}

// cacheTemps lists the temporary files in the cache directory dir.
func cacheTemps(t *testing.T, dir string) []string {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(dir, "*.tmp*"))
	if err != nil {
		t.Fatal(err)
	}
	return names
}

// TestCacheFIFOAtStart: a FIFO at the cache file's path neither hangs
// `ctxls index` (it completes, warning about the path) nor keeps the
// server from becoming ready; a temporary file a dead writer left is swept
// at the start and a live writer's is not.
func TestCacheFIFOAtStart(t *testing.T) {
	root := writeFixture(t, "shop.txtar")
	real, err := filepath.EvalSymlinks(root)
	if err != nil {
		t.Fatal(err)
	}
	cache := t.TempDir()
	cfile := filepath.Join(cache, fmt.Sprintf("%016x.idx", xxhash.Sum64String(real)))
	if err := syscall.Mkfifo(cfile, 0o644); err != nil {
		t.Fatal(err)
	}
	// A temporary file of a writer that is gone, and one of a writer at
	// work (this process's pid, its file locked).
	exited := exec.Command("true")
	if err := exited.Run(); err != nil {
		t.Fatal(err)
	}
	stale := fmt.Sprintf("%s.tmp.%d.1", cfile, exited.Process.Pid)
	writeFile(t, stale, strings.Repeat("x", 1<<16))
	live := fmt.Sprintf("%s.tmp.%d.2", cfile, os.Getpid())
	writeFile(t, live, "in progress")
	lf, err := os.Open(live)
	if err != nil {
		t.Fatal(err)
	}
	defer lf.Close()
	if err := syscall.Flock(int(lf.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var stderr strings.Builder
	cmd := exec.CommandContext(ctx, ctxlsBin, "index", "--root", root, "--cache-dir", cache, "--json")
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if ctx.Err() != nil {
		t.Fatal("ctxls index hung on a FIFO at the cache path")
	}
	if err != nil {
		t.Fatalf("ctxls index: %v\n%s", err, stderr.String())
	}
	var st struct{ Files int }
	if err := json.Unmarshal(out, &st); err != nil || st.Files == 0 {
		t.Fatalf("ctxls index printed %s (%v)", out, err)
	}
	if !strings.Contains(stderr.String(), cfile) || !strings.Contains(stderr.String(), "FIFO") {
		t.Errorf("no warning names the FIFO at %s: %s", cfile, stderr.String())
	}
	if _, err := os.Lstat(stale); err == nil {
		t.Error("the dead writer's temporary file was not swept")
	}
	if _, err := os.Lstat(live); err != nil {
		t.Error("the live writer's temporary file was removed")
	}

	// The server, on a cache dir whose cache path is a FIFO again.
	os.Remove(cfile)
	if err := syscall.Mkfifo(cfile, 0o644); err != nil {
		t.Fatal(err)
	}
	c := processClient(t, io.Discard, "serve")
	startOnCache(c, root, cache)
	c.shutdownExit()
	if fi, err := os.Lstat(cfile); err != nil || !fi.Mode().IsRegular() {
		t.Errorf("the server did not replace the FIFO with its cache: %v", err)
	}
}

// startOnCache initializes the server of c on the folder root with its
// cache in cache, and waits until it is ready.
func startOnCache(c *client, root, cache string) {
	c.mustCall("initialize", map[string]any{
		"processId": nil, "rootUri": uri(root, ""), "capabilities": caps{}.json(),
		"initializationOptions": map[string]any{"cacheDir": cache},
	}, nil)
	c.notify("initialized", map[string]any{})
	c.waitReady()
}
