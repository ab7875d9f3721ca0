package tokens

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// BenchmarkCount is the cost of counting a text of code, by size.
func BenchmarkCount(b *testing.B) {
	src, err := os.ReadFile("../pack.go")
	if err != nil {
		b.Fatal(err)
	}
	enc, err := Get(Default)
	if err != nil {
		b.Fatal(err)
	}
	for _, n := range []int{1500, 12000} {
		text := strings.ToValidUTF8(string(src[:min(n, len(src))]), "")
		b.Run(fmt.Sprintf("chars=%d", len(text)), func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				enc.Count(text)
			}
		})
	}
}
