package symbolindex

import (
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
)

// cowArrSlice reads every element of a.
func cowArrSlice(a *cowArr[int]) []int {
	out := make([]int, 0, a.len())
	for i := range uint32(a.len()) {
		out = append(out, a.at(i))
	}
	return out
}

// TestCowArrFrozenCopiesNeverChange writes a chunked array across many
// chunks while goroutines read copies frozen before the writes (a struct
// copy, as Freeze takes): every copy reads what it read when frozen (the
// race detector checks that no write touches memory a copy reads), and
// the array reads as a plain slice given the same writes.
func TestCowArrFrozenCopiesNeverChange(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 1))
	var a cowArr[int]
	var plain []int
	epoch := uint64(0)
	for i := range 3*cowChunk + 17 {
		a.push(i, epoch)
		plain = append(plain, i)
	}
	var frozen []cowArr[int]
	var want [][]int
	for round := range 5 {
		frozen = append(frozen, a)
		want = append(want, slices.Clone(plain))
		epoch++
		var wg sync.WaitGroup
		for k := range frozen {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if got := cowArrSlice(&frozen[k]); !slices.Equal(got, want[k]) {
					t.Errorf("round %d: copy %d changed under its reader", round, k)
				}
			}()
		}
		for range 300 {
			switch i := uint32(r.IntN(a.len())); r.IntN(3) {
			case 0:
				a.set(i, -r.IntN(1000), epoch)
				plain[i] = a.at(i)
			case 1:
				*a.own(i, epoch) += 5
				plain[i] += 5
			default:
				a.push(r.IntN(1000), epoch)
				plain = append(plain, a.at(uint32(a.len()-1)))
			}
		}
		wg.Wait()
		if got := cowArrSlice(&a); !slices.Equal(got, plain) {
			t.Fatalf("round %d: the array reads differently from a plain slice given the same writes", round)
		}
	}
}
