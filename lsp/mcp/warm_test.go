package mcp

import (
	"encoding/json"
	"os/exec"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/workspace/synth"
	"github.com/ctxls/ctxls/workspace/testutil"
)

// synthWorkspace generates a workspace of about symbols/10 files.
func synthWorkspace(t *testing.T, symbols int) string {
	t.Helper()
	root := t.TempDir()
	if _, err := synth.Generate(root, synth.Options{Symbols: symbols}); err != nil {
		t.Fatal(err)
	}
	return root
}

// selectAnswer is a select_context reply: its text blocks and structured
// result.
type selectAnswer struct {
	Content []struct {
		Text string `json:"text"`
	} `json:"content"`
	Out SelectOutput `json:"structuredContent"`
}

func (a *selectAnswer) text() string {
	var texts []string
	for _, c := range a.Content {
		texts = append(texts, c.Text)
	}
	return strings.Join(texts, "\n")
}

// oneShot is a one-shot client: it connects, makes one select_context call
// right after initialize, and disconnects (closes stdin) without waiting;
// it returns the answer, which must come before the exit.
func oneShot(t *testing.T, p *mcpProcess, query string) *selectAnswer {
	t.Helper()
	p.write(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}` + "\n" +
		`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n" +
		`{"jsonrpc":"2.0","id":"select","method":"tools/call","params":{"name":"select_context","arguments":{"query":"` + query + `"}}}` + "\n")
	p.stdin.Close()
	r := p.reply(`"select"`)
	if r.Error != nil {
		t.Fatalf("select_context: %s", r.Error.Message)
	}
	var a selectAnswer
	if err := json.Unmarshal(r.Result, &a); err != nil {
		t.Fatalf("select_context result: %v: %s", err, r.Result)
	}
	return &a
}

// TestFirstCallOnCachedWorkspace: with the index cached on disk by
// `ctxls index`, the first select_context of a one-shot client, sent
// right after initialize, returns code from the whole index, with no
// "still indexing" note.
func TestFirstCallOnCachedWorkspace(t *testing.T) {
	root := synthWorkspace(t, 4000)
	cache := t.TempDir()
	if out, err := exec.Command(testutil.Binary(t), "index", "--root", root, "--cache-dir", cache).CombinedOutput(); err != nil {
		t.Fatalf("ctxls index: %v\n%s", err, out)
	}
	for run := range 2 { // a one-shot client connects again for each call
		a := oneShot(t, startMCPArgs(t, "--root", root, "--cache-dir", cache), "account handler")
		if len(a.Out.Items) == 0 || a.Out.Indexing != "" || !a.Out.Stats.Ready || strings.Contains(a.text(), "still indexing") {
			t.Errorf("run %d: first call on a cached workspace: %d items, ready %v, %d files, note %q; want code from the cache:\n%.600s",
				run+1, len(a.Out.Items), a.Out.Stats.Ready, a.Out.Stats.Files, a.Out.Indexing, a.text())
		}
	}
}

// TestFirstCallWaitsForTheIndex: with nothing on disk, the first call of
// a one-shot client waits for the first index (bounded) and answers; if
// the index is still incomplete when it answers, it says so, and it never
// says that no code matched while it is.
func TestFirstCallWaitsForTheIndex(t *testing.T) {
	root := synthWorkspace(t, 6000)
	a := oneShot(t, startMCP(t, root), "account handler")
	switch {
	case a.Out.Stats.Ready:
		if len(a.Out.Items) == 0 || a.Out.Indexing != "" {
			t.Errorf("ready: %d items, note %q; want code and no note:\n%.600s", len(a.Out.Items), a.Out.Indexing, a.text())
		}
	case !strings.HasPrefix(a.Content[0].Text, "ctxls is still indexing ("):
		t.Errorf("not ready, and the answer does not begin by saying so:\n%.600s", a.text())
	case strings.Contains(a.text(), "No code matched"):
		t.Errorf("not ready, and the answer says that no code matched:\n%.600s", a.text())
	}
}
