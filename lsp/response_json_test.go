package lsp

import (
	"bytes"
	"encoding/json"
	"testing"

	"go.lsp.dev/jsonrpc2"
)

// TestResponseJSONMatchesMarshal: a response the stream writes directly
// (responseJSON) is, byte for byte, what json.Marshal made of it through
// jsonrpc2's own encoding — HTML characters, line separators, text beyond
// ASCII, numbers and nesting in the result, and ids of both kinds.
func TestResponseJSONMatchesMarshal(t *testing.T) {
	results := []any{
		map[string]any{"items": []any{map[string]any{"text": "if a < b && c > d {\n\treturn \"x\"\n}", "score": 0.25}}, "usedChars": 12000},
		json.RawMessage(`{"text":"a\u2028b\u2029c <tag> & é 😀","n":[1,2.5,-3e-7,true,null]}`),
		json.RawMessage(" { \"spaced\" : [ 1 , 2 ] } "),
		json.RawMessage("{\"raw\":\"a\u2028b\u2029 <x> & y\"}"),
		map[string]string{"sep": "line\u2028para\u2029end", "dash": "a — b …"},
		"plain",
		nil,
		[]string{},
	}
	ids := []jsonrpc2.ID{jsonrpc2.NewNumberID(7), jsonrpc2.NewNumberID(0), jsonrpc2.NewStringID("req-<1>&\u2028")}
	for _, res := range results {
		for _, id := range ids {
			r, err := jsonrpc2.NewResponse(id, res, nil)
			if err != nil {
				t.Fatal(err)
			}
			want, err := json.Marshal(r)
			if err != nil {
				t.Fatal(err)
			}
			got, ok := responseJSON(r)
			if !ok || !bytes.Equal(got, want) {
				t.Errorf("responseJSON(%v, %v) = %s, want %s", id, res, got, want)
			}
		}
	}
}
