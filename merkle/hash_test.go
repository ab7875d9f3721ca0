package merkle

import (
	"encoding/binary"
	"math/rand"
	"strings"
	"testing"

	"github.com/cespare/xxhash/v2"
)

// The hasher gathers its pieces in a buffer: the hash must be that of the
// plain encoding, whatever the lengths (keys longer than the buffer, and
// pieces that straddle its end, included), so that roots do not change.
func TestHasherIsPlainEncoding(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	for round := 0; round < 200; round++ {
		var h hasher
		h.reset()
		var plain []byte
		for k := r.Intn(400); k > 0; k-- {
			switch r.Intn(3) {
			case 0:
				n := r.Intn(40)
				if r.Intn(20) == 0 {
					n = 1000 + r.Intn(3000)
				}
				s := strings.Repeat(string(rune('a'+r.Intn(26))), n)
				h.str(s)
				plain = binary.AppendUvarint(plain, uint64(len(s)))
				plain = append(plain, s...)
			case 1:
				v := r.Uint64()
				h.u64(v)
				plain = binary.LittleEndian.AppendUint64(plain, v)
			default:
				b := byte(r.Intn(256))
				h.byte(b)
				plain = append(plain, b)
			}
		}
		if got, want := h.sum(), xxhash.Sum64(plain); got != want {
			t.Fatalf("round %d: hash %x, want %x (%d bytes)", round, got, want, len(plain))
		}
	}
	if got := hashLeaves(nil); got != emptyHash {
		t.Errorf("no leaves hash to %x, want the empty hash %x", got, emptyHash)
	}
}
