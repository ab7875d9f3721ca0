//go:build unix

package lsp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ctxls/ctxls/lsp/wire"
)

// cli runs the ctxls binary to its end, within testTimeout.
func cli(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, ctxlsBin, args...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("ctxls %q did not finish within %v", args, testTimeout)
	}
	if err != nil && cmd.ProcessState == nil {
		t.Fatalf("ctxls %q: %v", args, err)
	}
	return cmd.ProcessState.ExitCode(), out.String(), errOut.String()
}

// memoryList is what `ctxls memory list --json` lists.
func memoryList(t *testing.T, root, cache string) []wire.Note {
	t.Helper()
	code, stdout, stderr := cli(t, "memory", "list", "--json", "--root", root, "--cache-dir", cache)
	if code != 0 {
		t.Fatalf("memory list: exit %d: %s", code, stderr)
	}
	var res wire.MemoryResult
	if err := json.Unmarshal([]byte(stdout), &res); err != nil {
		t.Fatalf("memory list --json: %v: %s", err, stdout)
	}
	return res.Notes
}

func texts(notes []wire.Note) map[string]bool {
	out := map[string]bool{}
	for _, n := range notes {
		out[n.Text] = true
	}
	return out
}

// memoryRoot is a workspace folder with one Go file, symlinks resolved.
func memoryRoot(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "main.go"), "package main\n\nfunc main() {}\n")
	real, err := filepath.EvalSymlinks(root)
	if err != nil {
		t.Fatal(err)
	}
	return real
}

// Ten `ctxls remember` processes at a time, 120 notes in all: every one
// that said "remembered" is in the memory file afterwards.
func TestConcurrentRememberProcesses(t *testing.T) {
	root, cache := memoryRoot(t), t.TempDir()
	const procs, each = 10, 12
	var wg sync.WaitGroup
	var mu sync.Mutex
	ids := map[string]string{}
	for p := range procs {
		wg.Go(func() {
			for i := range each {
				text := fmt.Sprintf("note %d of writer %d", i, p)
				code, stdout, stderr := cli(t, "remember", "--root", root, "--cache-dir", cache, "--tag", fmt.Sprintf("w%d", p), text)
				id, ok := strings.CutPrefix(strings.TrimSpace(stdout), "remembered ")
				if code != 0 || !ok {
					t.Errorf("remember %q: exit %d, %q %q", text, code, stdout, stderr)
					continue
				}
				mu.Lock()
				ids[id] = text
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	notes := memoryList(t, root, cache)
	got := texts(notes)
	lost := 0
	for id, text := range ids {
		if !got[text] {
			lost++
			t.Logf("lost %s %q", id, text)
		}
	}
	if lost > 0 || len(notes) != procs*each || len(ids) != procs*each {
		t.Errorf("%d processes × %d notes: %d remembered, %d listed, %d lost", procs, each, len(ids), len(notes), lost)
	}
}

// A server and the CLI write one folder's memory in turn and at once:
// every note either wrote is kept, each sees the other's, and a note one
// forgot stays forgotten when the other writes next.
func TestServerAndCLIRememberInterleaved(t *testing.T) {
	root, cache := memoryRoot(t), t.TempDir()
	c := pipeClient(t, nil)
	c.mustCall("initialize", map[string]any{
		"processId": nil, "rootUri": wire.URIFromPath(root), "capabilities": caps{}.json(),
		"initializationOptions": map[string]any{"cacheDir": cache},
	}, nil)
	c.notify("initialized", map[string]any{})
	c.waitReady()
	defer c.shutdownExit()
	serverRemember := func(text string) wire.Note {
		t.Helper()
		var n wire.Note
		c.mustCall("workspace/contextRemember", map[string]any{"text": text}, &n)
		return n
	}
	cliRemember := func(text string) wire.Note {
		t.Helper()
		code, stdout, stderr := cli(t, "remember", "--json", "--root", root, "--cache-dir", cache, text)
		var n wire.Note
		if code != 0 || json.Unmarshal([]byte(stdout), &n) != nil {
			t.Fatalf("remember %q: exit %d, %q %q", text, code, stdout, stderr)
		}
		return n
	}
	serverList := func() map[string]bool {
		t.Helper()
		var res wire.MemoryResult
		c.mustCall("workspace/contextMemory", map[string]any{}, &res)
		return texts(res.Notes)
	}
	first := serverRemember("server note one")
	cliRemember("cli note one")
	serverRemember("server note two")
	fromCLI := cliRemember("cli note two")
	want := []string{"server note one", "cli note one", "server note two", "cli note two"}
	for who, got := range map[string]map[string]bool{"the server": serverList(), "the CLI": texts(memoryList(t, root, cache))} {
		for _, w := range want {
			if !got[w] {
				t.Errorf("%s lists %v, missing %q", who, got, w)
			}
		}
	}
	// The server's selection offers the CLI's note.
	res := c.mustSelect(map[string]any{"query": "cli note two"})
	if !slices.ContainsFunc(res.Items, func(it wire.Item) bool { return it.ID == "memory:"+fromCLI.ID }) {
		t.Errorf("the server's select does not offer the CLI's note:%s", res)
	}

	// The CLI forgets the server's first note; the server's next write
	// does not bring it back.
	if code, _, stderr := cli(t, "memory", "forget", "--root", root, "--cache-dir", cache, first.ID); code != 0 {
		t.Fatalf("memory forget %s: %s", first.ID, stderr)
	}
	serverRemember("server note three")
	if got := texts(memoryList(t, root, cache)); got["server note one"] || !got["server note three"] || len(got) != 4 {
		t.Errorf("after the CLI forgot one and the server wrote: %v", got)
	}

	// Both at once.
	const n = 15
	var wg sync.WaitGroup
	wg.Go(func() {
		for i := range n {
			var note wire.Note
			if err := c.call("workspace/contextRemember", map[string]any{"text": fmt.Sprintf("concurrent server %d", i)}, &note); err != nil {
				t.Errorf("contextRemember: %v", err)
			}
		}
	})
	var cliWG sync.WaitGroup
	for w := range 3 {
		cliWG.Go(func() {
			for i := range n {
				text := fmt.Sprintf("concurrent cli %d-%d", w, i)
				if code, stdout, stderr := cli(t, "remember", "--root", root, "--cache-dir", cache, text); code != 0 {
					t.Errorf("remember %q: exit %d, %q %q", text, code, stdout, stderr)
				}
			}
		})
	}
	wg.Wait()
	cliWG.Wait()
	got := serverList()
	if len(got) != 4+4*n {
		t.Errorf("after %d server and %d CLI notes at once the server lists %d notes, want %d", n, 3*n, len(got), 4+4*n)
	}
	if files := texts(memoryList(t, root, cache)); len(files) != 4+4*n {
		t.Errorf("the memory file holds %d notes, want %d", len(files), 4+4*n)
	}
}

// memoryFileOf is the one memory file in the cache directory.
func memoryFileOf(t *testing.T, cache string) string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(cache, "*.memory.json"))
	if len(files) != 1 {
		t.Fatalf("memory files in the cache: %q", files)
	}
	return files[0]
}

// A FIFO or a symlink at the memory file: `memory list` ends, warning
// about the path; no note is served from behind the link; `remember`
// fails with an error naming the path and writes nothing through it.
func TestMemoryFileFIFOAndSymlinkCLI(t *testing.T) {
	root := memoryRoot(t)
	elsewhere := filepath.Join(t.TempDir(), "notes.json")
	theirs := `[{"id":"m0000000000aa","text":"a note from elsewhere","root":"/x","created":"2026-01-01T00:00:00Z"}]`
	writeFile(t, elsewhere, theirs)
	for _, tc := range []struct {
		name, what string
		make       func(string) error
	}{
		{"fifo", "named pipe", func(p string) error { return syscall.Mkfifo(p, 0o644) }},
		{"symlink", "symlink", func(p string) error { return os.Symlink(elsewhere, p) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cache := t.TempDir()
			if code, _, stderr := cli(t, "remember", "--root", root, "--cache-dir", cache, "a first note"); code != 0 {
				t.Fatal(stderr)
			}
			file := memoryFileOf(t, cache)
			os.Remove(file)
			if err := tc.make(file); err != nil {
				t.Fatal(err)
			}
			code, stdout, stderr := cli(t, "memory", "list", "--root", root, "--cache-dir", cache)
			if code != 0 || strings.Contains(stdout, "elsewhere") || !strings.Contains(stdout, "no notes") {
				t.Errorf("memory list: exit %d, %q", code, stdout)
			}
			if !strings.Contains(stderr, file) || !strings.Contains(stderr, tc.what) {
				t.Errorf("memory list warns %q; want the path %s and %q", stderr, file, tc.what)
			}
			code, _, stderr = cli(t, "remember", "--root", root, "--cache-dir", cache, "not through the link")
			if code == 0 || !strings.Contains(stderr, file) || !strings.Contains(stderr, tc.what) || strings.Count(strings.TrimSpace(stderr), "\n") > 1 {
				t.Errorf("remember: exit %d, %q; want an error naming %s as a %s", code, stderr, file, tc.what)
			}
			if b, _ := os.ReadFile(elsewhere); string(b) != theirs {
				t.Errorf("the file behind the link changed: %s", b)
			}
		})
	}
}

// kill -9 at any moment of `ctxls remember` leaves no temp file that the
// next write does not sweep, and the memory file stays readable.
func TestKillDuringRemember(t *testing.T) {
	root, cache := memoryRoot(t), t.TempDir()
	if code, _, stderr := cli(t, "remember", "--root", root, "--cache-dir", cache, "before the kills"); code != 0 {
		t.Fatal(stderr)
	}
	file := memoryFileOf(t, cache)
	start := time.Now()
	cli(t, "remember", "--root", root, "--cache-dir", cache, "timing")
	full := time.Since(start)
	const kills = 12
	for i := range kills {
		cmd := exec.Command(ctxlsBin, "remember", "--root", root, "--cache-dir", cache, fmt.Sprintf("killed %d", i))
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(full * time.Duration(i) / kills)
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
	}
	// A killed writer's temp file, as one killed between its write and
	// its rename leaves it (its process is gone).
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	orphan := fmt.Sprintf("%s.tmp-%d-1", file, dead.Process.Pid)
	writeFile(t, orphan, "[")

	if code, _, stderr := cli(t, "remember", "--root", root, "--cache-dir", cache, "after the kills"); code != 0 {
		t.Fatal(stderr)
	}
	leftovers, _ := filepath.Glob(file + ".tmp-*")
	if len(leftovers) > 0 {
		t.Errorf("temp files left after the next write: %q", leftovers)
	}
	got := texts(memoryList(t, root, cache))
	if !got["before the kills"] || !got["after the kills"] {
		t.Errorf("the notes around the kills: %v", got)
	}
}
