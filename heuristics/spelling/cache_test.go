package spelling

import (
	"fmt"
	"maps"
	"strings"
	"testing"
)

// The cache judges the texts a request reads as a vocabulary counted
// afresh from them would, as texts change, leave and join, and says which
// texts may hold what it finds.
func TestCacheJudgesAsAFreshVocabulary(t *testing.T) {
	texts := map[string]string{}
	for i := range 6 {
		texts[fmt.Sprintf("f%d.go", i)] = strings.Repeat("// receive the message and parse it\n", 3)
	}
	texts["queue.go"] = "// recieve it: an parser reads the the header\n"
	texts["mac.go"] = "// MacOS keeps them\n"
	c := NewCache()
	judge := func(paths ...string) (Judgement, *Vocab) {
		fresh := NewVocab()
		var j Judgement
		c.With(func(l Locked) {
			var sel []Key
			for _, p := range paths {
				k := Key{p, uint64(len(texts[p]))<<32 | uint64(len(p))}
				if _, ok := l.Size(k); !ok {
					l.Count(k, []byte(texts[p]), false)
				}
				fresh.Add([]byte(texts[p]))
				sel = append(sel, k)
			}
			j = l.Judge(sel, []Named{{Word: "macOS", Case: true}})
		})
		if !maps.Equal(j.Suspects, fresh.Suspects()) {
			t.Errorf("%q: suspects %v, a fresh vocabulary's %v", paths, j.Suspects, fresh.Suspects())
		}
		return j, fresh
	}
	all := []string{"f0.go", "f1.go", "f2.go", "f3.go", "f4.go", "f5.go", "queue.go", "mac.go"}
	j, _ := judge(all...)
	if j.Suspects["recieve"].Right != "receive" {
		t.Fatalf("recieve is no suspect: %v", j.Suspects)
	}
	for i, p := range all {
		if want := p == "queue.go"; j.MaySuspect[i] != want {
			t.Errorf("%s may hold a suspect: %v, want %v", p, j.MaySuspect[i], want)
		}
		if want := p == "mac.go"; j.MayVariant[i] != want {
			t.Errorf("%s may hold a variant of macOS: %v, want %v", p, j.MayVariant[i], want)
		}
	}
	judge(all[2:]...) // two texts leave: receive is written too seldom now
	texts["queue.go"] = "// receive it\n"
	j, _ = judge(all...)
	if _, ok := j.Suspects["recieve"]; ok || j.MaySuspect[6] {
		t.Errorf("queue.go's fixed text still judged: %v, %v", j.Suspects, j.MaySuspect)
	}
	texts["f0.go"] = "// recieve\n"
	judge(all...)
}
