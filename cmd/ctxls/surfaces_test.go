package main

import (
	"context"
	"encoding/json"
	"net"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"go.lsp.dev/jsonrpc2"

	"github.com/ctxls/ctxls/lsp"
	"github.com/ctxls/ctxls/lsp/mcp"
	"github.com/ctxls/ctxls/lsp/wire"
	"github.com/ctxls/ctxls/workspace"
)

// The request each surface sends, spelled its way: a follow-up that
// only the history gives terms to, with the cursor on a symbol, and a
// token budget that binds.
const (
	surfaceQuery   = "now make that one faster"
	surfaceHistory = "where does the server start listening on its address"
	surfaceActive  = "web/cart.ts"
	surfaceLine    = 6 // 1-based: the last line of CartStore.add
	surfaceLimit   = 3
	surfaceTokens  = 300
)

// TestSurfacesAgree: the same request through ctxls select --json, the
// LSP server's workspace/contextSelect and the MCP select_context tool
// gives the same items, ranges, texts and budgets: the three make one
// service call (wire.Select).
func TestSurfacesAgree(t *testing.T) {
	root := cliTree(t, cliApp)
	results := map[string]*wire.Result{
		"cli": cliSelectJSON(t, root),
		"lsp": lspSelect(t, root),
		"mcp": mcpSelect(t, root),
	}
	cli := results["cli"]
	// The cursor, the history and the budget all count.
	if len(cli.Items) < 2 || cli.Items[0].Symbol != "CartStore.add" || cli.Items[0].Reason != "active" ||
		cli.Items[1].Symbol != "Server.Start" || cli.UsedTokens == nil || *cli.UsedTokens > surfaceTokens {
		t.Fatalf("select: want CartStore.add (active), then Server.Start (from the history), within %d tokens; got %+v", surfaceTokens, cli)
	}
	for _, name := range []string{"lsp", "mcp"} {
		res := results[name]
		if !slices.Equal(ids(res), ids(cli)) {
			t.Errorf("%s items %v, the command line's %v", name, ids(res), ids(cli))
			continue
		}
		for i, it := range res.Items {
			want := cli.Items[i]
			if it.Range != want.Range || it.Text != want.Text || it.Truncated != want.Truncated || it.Score != want.Score || it.Reason != want.Reason {
				t.Errorf("%s item %s: range %v truncated %v score %v reason %s, the command line's %v %v %v %s (or the texts differ)",
					name, it.ID, it.Range, it.Truncated, it.Score, it.Reason, want.Range, want.Truncated, want.Score, want.Reason)
			}
		}
		if res.UsedChars != cli.UsedChars || res.UsedTokens == nil || *res.UsedTokens != *cli.UsedTokens || res.LowConfidence != cli.LowConfidence {
			t.Errorf("%s used %d chars, %v tokens, lowConfidence %v; the command line %d, %d, %v",
				name, res.UsedChars, res.UsedTokens, res.LowConfidence, cli.UsedChars, *cli.UsedTokens, cli.LowConfidence)
		}
	}
}

func ids(res *wire.Result) []string {
	out := make([]string, len(res.Items))
	for i, it := range res.Items {
		out[i] = it.ID
	}
	return out
}

func cliSelectJSON(t *testing.T, root string) *wire.Result {
	t.Helper()
	code, stdout, stderr := cliRun(t, "select", "--root", root, "--cache-dir", "off", "--json",
		"--history", surfaceHistory, "--active", surfaceActive, "--line", strconv.Itoa(surfaceLine),
		"--limit", strconv.Itoa(surfaceLimit), "--max-tokens", strconv.Itoa(surfaceTokens), surfaceQuery)
	if code != 0 {
		t.Fatalf("ctxls select: exit %d, %s", code, stderr)
	}
	var res wire.Result
	if err := json.Unmarshal([]byte(stdout), &res); err != nil {
		t.Fatalf("ctxls select --json: %v", err)
	}
	return &res
}

// lspSelect asks the LSP server, over a pipe, once its index is ready.
func lspSelect(t *testing.T, root string) *wire.Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	srvEnd, cliEnd := net.Pipe()
	done := make(chan error, 1)
	go func() { done <- lsp.New(lsp.Options{Version: "test"}).Serve(context.Background(), srvEnd) }()
	conn := jsonrpc2.NewConn(jsonrpc2.NewStream(cliEnd))
	conn.Go(ctx, func(ctx context.Context, reply jsonrpc2.Replier, _ jsonrpc2.Request) error {
		return reply(ctx, nil, nil)
	})
	defer func() {
		conn.Close()
		<-done
	}()
	call := func(method string, params, result any) {
		if _, err := conn.Call(ctx, method, params, result); err != nil {
			t.Fatalf("%s: %v", method, err)
		}
	}
	call("initialize", map[string]any{"rootUri": wire.URIFromPath(root), "capabilities": map[string]any{},
		"initializationOptions": map[string]any{"cacheDir": "off"}}, nil)
	if err := conn.Notify(ctx, "initialized", map[string]any{}); err != nil {
		t.Fatal(err)
	}
	params := map[string]any{"query": surfaceQuery, "history": []string{surfaceHistory},
		"activeUri": wire.URIFromPath(filepath.Join(root, surfaceActive)), "position": wire.Position{Line: surfaceLine - 1},
		"limit": surfaceLimit, "maxTokens": surfaceTokens}
	for {
		var res wire.Result
		call("workspace/contextSelect", params, &res)
		if res.Stats.Ready {
			return &res
		}
		if ctx.Err() != nil {
			t.Fatal("the LSP server's index never became ready")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// mcpSelect calls the select_context tool, once the index is ready.
func mcpSelect(t *testing.T, root string) *wire.Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cfg := workspace.DefaultConfig()
	cfg.CacheDir = workspace.CacheDirOff
	srv, err := mcp.New(mcp.Options{Version: "test", Roots: []string{root}, Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	st, ct := sdk.NewInMemoryTransports()
	runCtx, stop := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Run(runCtx, st) }()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test-agent", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		cs.Close()
		stop()
		<-done
	}()
	args := map[string]any{"query": surfaceQuery, "history": []string{surfaceHistory}, "activeFile": surfaceActive,
		"cursorLine": surfaceLine, "limit": surfaceLimit, "maxTokens": surfaceTokens}
	for {
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "select_context", Arguments: args})
		if err != nil || res.IsError {
			t.Fatalf("select_context: %v %+v", err, res)
		}
		data, _ := json.Marshal(res.StructuredContent)
		var out wire.Result
		if err := json.Unmarshal(data, &out); err != nil {
			t.Fatal(err)
		}
		if out.Stats.Ready {
			return &out
		}
		if ctx.Err() != nil {
			t.Fatal("the MCP server's index never became ready")
		}
		time.Sleep(20 * time.Millisecond)
	}
}
