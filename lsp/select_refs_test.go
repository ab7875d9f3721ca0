package lsp

import (
	"testing"

	"go.lsp.dev/jsonrpc2"
)

// TestSelectRefErrors: an activeUri or pinned entry that is not a file
// URI (nor, for pinned, an item id) is InvalidParams, one line naming the
// field and what is wrong with the value.
func TestSelectRefErrors(t *testing.T) {
	root := writeFixture(t, "shop.txtar")
	c := pipeClient(t, nil)
	c.start(root, caps{})
	for _, tc := range []struct {
		params map[string]any
		want   string
	}{
		{map[string]any{"query": "cart", "activeUri": "cart.go"}, `activeUri: "cart.go" is not a URI`},
		{map[string]any{"query": "cart", "activeUri": "http://example.com/a.go"}, `activeUri: unsupported URI scheme "http" in "http://example.com/a.go" (only file:// is supported)`},
		{map[string]any{"query": "cart", "activeUri": "ftp:x"}, `activeUri: unsupported URI scheme "ftp" in "ftp:x" (only file:// is supported)`},
		{map[string]any{"query": "cart", "activeUri": "::::"}, `activeUri: malformed URI "::::": missing protocol scheme`},
		{map[string]any{"query": "cart", "activeUri": "file://"}, `activeUri: URI "file://" has no path`},
		{map[string]any{"query": "cart", "pinned": []string{"sym:cart.go::Add", "cart.go"}}, `pinned[1]: "cart.go" is not a URI (want a file:// URI or an item id)`},
		{map[string]any{"query": "cart", "pinned": []string{"https://x/y.go"}}, `pinned[0]: unsupported URI scheme "https" in "https://x/y.go" (only file:// is supported) (want a file:// URI or an item id)`},
	} {
		err := c.call("workspace/contextSelect", tc.params, nil)
		if rpcCode(err) != jsonrpc2.InvalidParams || err.Error() != tc.want {
			t.Errorf("select %v: %v (code %d), want InvalidParams %q", tc.params, err, rpcCode(err), tc.want)
		}
	}
}
