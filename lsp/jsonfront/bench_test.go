package jsonfront

import (
	"strings"
	"testing"
)

// BenchmarkCheck: a 1 MiB didOpen-like message (a file's text in a string)
// and a 1 MiB message of small values.
func BenchmarkCheck(b *testing.B) {
	text := `{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"file:///a.go","text":"` + strings.Repeat(`func f() {\n\treturn \"x\"\n}\n`, 1<<20/28) + `"}}}`
	values := `{"jsonrpc":"2.0","id":1,"method":"m","params":[` + strings.Repeat(`{"a":1,"b":[true,null,-2.5e3]},`, 1<<20/32) + `0]}`
	for _, c := range []struct{ name, msg string }{{"string", text}, {"values", values}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.msg)))
			for b.Loop() {
				if r := Check([]byte(c.msg)); r.Err != nil {
					b.Fatal(r.Err)
				}
			}
		})
	}
}
