package spelling

import (
	"bytes"
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

// The cache keeps, beside the texts of the vocabulary, the counts of at
// most MaxCachedBytes of texts a request read before: a text read once
// is not read again while within it, and forgotten past it.
func TestCacheForgetsPastItsBound(t *testing.T) {
	small := Key{"small.go", 1}
	kept := Key{"kept.go", 2}
	big := Key{"big.go", 3}
	c := NewCache()
	c.With(func(l Locked) {
		l.Count(small, []byte("// receive the message\n"), false)
		l.Count(kept, []byte("// parse the header\n"), false)
		l.Judge([]Key{small}, nil)
		if _, ok := l.Size(kept); !ok {
			t.Errorf("a text within the bound was forgotten")
		}
		l.Count(big, bytes.Repeat([]byte("ab "), MaxCachedBytes/3+1), false)
		l.Judge([]Key{small}, nil)
		for _, k := range []Key{kept, big} {
			if _, ok := l.Size(k); ok {
				t.Errorf("%s is kept past the bound", k.Path)
			}
		}
		if _, ok := l.Size(small); !ok {
			t.Errorf("a text of the vocabulary was forgotten")
		}
	})
}
