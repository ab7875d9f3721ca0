//go:build unix

package lsp

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"go.lsp.dev/jsonrpc2"
)

// The leak suite: a hostile workspace whose symlinks lead out of it, and
// every way a path reaches the server. Whatever the client sends, no
// contextSelect may return content from outside the workspace folder, and
// the refusals are counted.

// secretMarker is in every file outside the workspace.
const secretMarker = "OUTSIDE_SECRET_7f3a"

// hostile is a workspace with symlinks that leave it, beside a directory
// of secrets.
type hostile struct {
	root, outside string
}

func newHostile(t *testing.T) hostile {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	h := hostile{root: filepath.Join(base, "ws"), outside: filepath.Join(base, "outside")}
	secret := "package outside\n\n// LeakSecret returns the " + secretMarker + " token, the secret passwd.\nfunc LeakSecret() string { return \"" + secretMarker + "\" }\n"
	writeFile(t, filepath.Join(h.outside, "secret.go"), secret)
	writeFile(t, filepath.Join(h.outside, "helper.go"), strings.ReplaceAll(secret, "LeakSecret", "Helper"))
	writeFile(t, filepath.Join(h.root, "main.go"), "package main\n\n// Run starts the service; the secret token lives elsewhere.\nfunc Run() {}\n")
	writeFile(t, filepath.Join(h.root, "inside.go"), "package main\n\n// InsideOriginal is the file before it is swapped.\nfunc InsideOriginal() {}\n")
	writeFile(t, filepath.Join(h.root, "sub", "helper.go"), "package sub\n\n// Helper helps.\nfunc Helper() {}\n")
	for link, target := range map[string]string{
		"link_parent":      "..",
		"link_etc":         "/etc",
		"passwd.txt":       "/etc/passwd",
		"link_secret.go":   "../outside/secret.go",
		"link_outside_dir": "../outside",
		"abs_secret.go":    filepath.Join(h.outside, "secret.go"),
		"sub/deep/up.go":   "../../../outside/secret.go",
		"chain_a":          "chain_b",
		"chain_b":          "link_outside_dir",
		"loop_a":           "loop_b",
		"loop_b":           "loop_a",
	} {
		path := filepath.Join(h.root, filepath.FromSlash(link))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, path); err != nil {
			t.Fatal(err)
		}
	}
	return h
}

// escapes are the paths inside the workspace that lead out of it.
var escapes = []string{
	"link_etc/passwd", "passwd.txt", "link_secret.go", "link_parent/outside/secret.go",
	"link_outside_dir/secret.go", "abs_secret.go", "sub/deep/up.go", "chain_a/secret.go",
	"link_parent/ws/link_secret.go", "loop_a",
}

// leakQueries are asked after every attempt.
var leakQueries = []map[string]any{
	{"query": "LeakSecret " + secretMarker + " secret token"},
	{"query": "root passwd daemon nologin bin bash sbin"},
	{"query": "fix that", "limit": 100, "maxChars": 200000},
	{"query": "helper secret", "paths": []string{"**"}},
}

// assertNoLeak runs the leak queries and fails on any item from outside
// the workspace or with outside content.
func (h hostile) assertNoLeak(t *testing.T, c *client, attempt string) {
	t.Helper()
	for _, q := range leakQueries {
		res, err := c.selectq(q)
		if err != nil {
			t.Fatalf("%s: contextSelect %v: %v", attempt, q["query"], err)
		}
		for _, it := range res.Items {
			// The workspace folders are ws and, when added, other, beside
			// outside.
			p, err := pathOf(it.URI)
			if err != nil || !strings.HasPrefix(p, filepath.Dir(h.root)+string(filepath.Separator)) || strings.HasPrefix(p, h.outside) {
				t.Errorf("%s: item outside the workspace: %s", attempt, it.URI)
			}
			if strings.Contains(it.Text, secretMarker) || strings.Contains(it.Text, "root:x:0:0") || strings.Contains(it.Text, "nologin") {
				t.Errorf("%s: %s returned outside content:\n%s", attempt, it.URI, it.Text)
			}
		}
	}
}

func pathOf(u string) (string, error) {
	const prefix = "file://"
	if !strings.HasPrefix(u, prefix) {
		return "", os.ErrInvalid
	}
	return filepath.FromSlash(strings.TrimPrefix(u, prefix)), nil
}

func watched(c *client, root string, typ int, rels ...string) {
	var changes []any
	for _, rel := range rels {
		changes = append(changes, map[string]any{"uri": uri(root, rel), "type": typ})
	}
	c.notify("workspace/didChangeWatchedFiles", map[string]any{"changes": changes})
}

func didClose(c *client, root, rel string) {
	c.notify("textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": uri(root, rel)}})
}

// TestSymlinkLeaks tries every path a file can take into the index or a
// result, with a workspace whose symlinks lead out.
func TestSymlinkLeaks(t *testing.T) {
	attempts := []struct {
		name string
		try  func(t *testing.T, h hostile, c *client)
	}{
		{"first index", func(t *testing.T, h hostile, c *client) {}},
		{"watched files created", func(t *testing.T, h hostile, c *client) { watched(c, h.root, 1, escapes...) }},
		{"watched files changed", func(t *testing.T, h hostile, c *client) { watched(c, h.root, 2, escapes...) }},
		{"watched directories created", func(t *testing.T, h hostile, c *client) {
			watched(c, h.root, 1, "link_etc", "link_parent", "link_outside_dir", "chain_a", "sub/deep")
		}},
		{"didOpen then didClose", func(t *testing.T, h hostile, c *client) {
			for _, rel := range escapes {
				didOpen(c, h.root, rel, "package x\n\n// Opened is what the editor shows.\nfunc Opened() {}\n")
				didClose(c, h.root, rel)
			}
		}},
		{"didOpen, didChange, didSave, didClose", func(t *testing.T, h hostile, c *client) {
			for _, rel := range escapes {
				didOpen(c, h.root, rel, "package x\n")
				didChange(c, h.root, rel, 2, map[string]any{"text": "package x\n\nfunc Changed() {}\n"})
				c.notify("textDocument/didSave", map[string]any{"textDocument": map[string]any{"uri": uri(h.root, rel)}})
				didClose(c, h.root, rel)
			}
		}},
		{"didFocus", func(t *testing.T, h hostile, c *client) {
			for _, rel := range escapes {
				c.notify("ctxls/didFocus", map[string]any{"uri": uri(h.root, rel)})
			}
		}},
		{"a file swapped for a symlink, unannounced", func(t *testing.T, h hostile, c *client) {
			swap(t, filepath.Join(h.root, "inside.go"), filepath.Join(h.outside, "secret.go"))
		}},
		{"a file swapped for a symlink, announced", func(t *testing.T, h hostile, c *client) {
			swap(t, filepath.Join(h.root, "inside.go"), filepath.Join(h.outside, "secret.go"))
			watched(c, h.root, 2, "inside.go")
		}},
		{"a directory swapped for a symlink", func(t *testing.T, h hostile, c *client) {
			swap(t, filepath.Join(h.root, "sub"), h.outside)
			watched(c, h.root, 2, "sub", "sub/helper.go")
		}},
		{"a directory swapped for a symlink, unannounced", func(t *testing.T, h hostile, c *client) {
			swap(t, filepath.Join(h.root, "sub"), h.outside)
		}},
		{"a workspace folder added with links out", func(t *testing.T, h hostile, c *client) {
			other := filepath.Join(filepath.Dir(h.root), "other")
			writeFile(t, filepath.Join(other, "ok.go"), "package other\n\nfunc OK() {}\n")
			if err := os.Symlink(filepath.Join(h.outside, "secret.go"), filepath.Join(other, "leak.go")); err != nil {
				t.Fatal(err)
			}
			c.notify("workspace/didChangeWorkspaceFolders", map[string]any{"event": map[string]any{
				"added": []any{map[string]any{"uri": uri(other, ""), "name": "other"}}, "removed": []any{},
			}})
			waitFor(t, func() bool {
				res := c.mustSelect(map[string]any{"query": "OK"})
				return res.Stats.Ready && res.find("ok.go", "OK") >= 0
			}, "the added folder")
		}},
	}
	for _, a := range attempts {
		t.Run(a.name, func(t *testing.T) {
			h := newHostile(t)
			c := pipeClient(t, nil)
			c.start(h.root, caps{watch: true})
			a.try(t, h, c)
			h.assertNoLeak(t, c, a.name)
		})
	}
}

// swap replaces path (a file or a directory) by a symlink to target.
func swap(t *testing.T, path, target string) {
	t.Helper()
	if err := os.RemoveAll(path); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, path); err != nil {
		t.Fatal(err)
	}
}

// TestSymlinkLeaksInRequests: a request that names a path leading out of
// the workspace is refused with InvalidParams naming the field and the
// path; refusals are counted in the statistics by reason.
func TestSymlinkLeaksInRequests(t *testing.T) {
	h := newHostile(t)
	c := pipeClient(t, nil)
	c.start(h.root, caps{watch: true})
	for _, rel := range escapes {
		for _, q := range []map[string]any{
			{"query": "secret", "activeUri": uri(h.root, rel)},
			{"query": "secret", "pinned": []string{uri(h.root, rel)}},
			{"query": "secret", "pinned": []string{filepath.Join(h.root, rel)}},
			{"query": "secret", "pinned": []string{rel}},
		} {
			_, err := c.selectq(q)
			field := "pinned[0]"
			if _, ok := q["activeUri"]; ok {
				field = "activeUri"
			}
			if rpcCode(err) != jsonrpc2.InvalidParams || !strings.Contains(err.Error(), field) || !strings.Contains(err.Error(), rel) {
				t.Errorf("%v: %v, want InvalidParams naming %s and %s", q, err, field, rel)
			}
		}
	}
	for _, id := range []string{"file:link_secret.go", "sym:link_secret.go::LeakSecret", "file:../outside/secret.go", "sym:../outside/secret.go::LeakSecret"} {
		res := c.mustSelect(map[string]any{"query": "secret", "pinned": []string{id}})
		for _, it := range res.Items {
			if strings.Contains(it.Text, secretMarker) {
				t.Errorf("pinned %s returned outside content from %s", id, it.URI)
			}
		}
	}
	h.assertNoLeak(t, c, "requests")

	res := c.mustSelect(map[string]any{"query": "secret"})
	for _, reason := range []string{"symlink outside root", "symlink loop"} {
		if res.Stats.Refused[reason] == 0 {
			t.Errorf("stats.refused has no %q: %v", reason, res.Stats.Refused)
		}
	}
}

// TestSpecialFilesNeverBlock: a FIFO announced as a created file, or
// opened and closed, must neither block the server nor be read.
func TestSpecialFilesNeverBlock(t *testing.T) {
	h := newHostile(t)
	c := pipeClient(t, nil)
	c.start(h.root, caps{watch: true})
	fifo := filepath.Join(h.root, "pipe.go")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("pipe.go", filepath.Join(h.root, "pipelink.go")); err != nil {
		t.Fatal(err)
	}
	watched(c, h.root, 1, "pipe.go", "pipelink.go")
	didOpen(c, h.root, "pipe.go", "package main\n")
	didClose(c, h.root, "pipe.go")
	res := c.mustSelect(map[string]any{"query": "pipe"}) // answered: nothing blocked
	for _, it := range res.Items {
		if strings.Contains(it.URI, "pipe") {
			t.Errorf("a FIFO was indexed: %s", it.URI)
		}
	}
	if res.Stats.Refused["not regular"] == 0 {
		t.Errorf("stats.refused does not count the FIFO: %v", res.Stats.Refused)
	}
}
