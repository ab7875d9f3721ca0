package spelling

import (
	"slices"
	"strings"
	"testing"
)

func TestRequest(t *testing.T) {
	for _, c := range []struct {
		text  string
		asks  bool
		named []string
	}{
		{"chore: fix some typos in comment", true, nil},
		{"Fix typos\n\nFound via `codespell -L onlyonce`", true, []string{"onlyonce"}},
		{"docs: fix macOS spelling in BSD ls comment", true, []string{"macOS"}},
		{"fix: correct spelling mistakes in comments and field name", true, []string{"correct"}[:0]},
		{"Update CHANGELOG.md, fix typo(s)", true, nil},
		{"Warn about common option misspellings", false, nil},
		{"Fix the misspellings in the help text", true, nil},
		{"Add a cache for parsed templates", false, nil},
		{`Fix typo "+"`, false, nil},
		{"Fix typo in SetParamValues comment\n\nChange 'brake' to 'break'", true, []string{"SetParamValues", "brake", "break"}},
	} {
		a := Request(c.text)
		asks, named := a.Spelling, a.Named
		if asks != c.asks || len(named) != len(c.named) || len(named) > 0 && !slices.Equal(named, c.named) {
			t.Errorf("Request(%q) = %v, %q, want %v, %q", c.text, asks, named, c.asks, c.named)
		}
	}
}

func TestRequestNonASCII(t *testing.T) {
	for text, want := range map[string]bool{
		"Clean up non-ascii characters":                    true,
		"Replace the non-ASCII dashes in comments":         true,
		"Prefilter rune-mode input for non-ASCII patterns": false,
		"Skip rune decoding for ASCII bytes in ToChars":    false,
	} {
		if got := Request(text).NonASCII; got != want {
			t.Errorf("Request(%q).NonASCII = %v, want %v", text, got, want)
		}
	}
	var got []string
	FindNonASCII([]byte("// SGR 4:N — underline, “quoted”… ─│ é "), func(h Hit) { got = append(got, h.Word) })
	if want := []string{"—", "“", "”", "…", "\u00a0"}; !slices.Equal(got, want) {
		t.Errorf("FindNonASCII = %q, want %q", got, want)
	}
}

func TestEdit(t *testing.T) {
	for _, c := range []struct{ w, r, want string }{
		{"recieve", "receive", KindSwap},
		{"emtpy", "empty", KindSwap},
		{"commited", "committed", KindDouble},
		{"adress", "address", KindDouble},
		{"doesnt", "doesn't", KindApostrophe},
		{"can't", "cant", ""},    // the contraction is no misspelling
		{"users", "user's", ""},  // a possessive is no contraction
		{"parser", "parsed", ""}, // a last letter: a word's other form
		{"reader", "leader", ""}, // a first letter
		{"parses", "parse", ""},  // a letter added at the end
		{"seperate", "separate", KindLetter},
		{"receive", "receive", ""},
		{"recv", "receive", ""},
	} {
		if got := Edit(c.w, c.r); got != c.want {
			t.Errorf("Edit(%q, %q) = %q, want %q", c.w, c.r, got, c.want)
		}
	}
}

// A word written once a letter from one written many times is suspect; a
// word with forms of its own, a common word, or a short one is not.
func TestSuspects(t *testing.T) {
	v := NewVocab()
	v.Add([]byte(strings.Repeat("receive the message; parsing the header; a seperate token. ", 10)))
	v.Add([]byte("// recieve it, then pass the passing sepurate token: dont parse. the seperate one\nfunc recvUnit(uint int) {}"))
	sus := v.Suspects()
	for w, right := range map[string]string{"recieve": "receive", "sepurate": "seperate", "dont": "don't"} {
		if s, ok := sus[w]; !ok || s.Right != right {
			t.Errorf("Suspects()[%q] = %+v, want one from %q", w, s, right)
		}
	}
	for _, w := range []string{"passing", "receive", "parse", "unit", "recv"} {
		if s, ok := sus[w]; ok {
			t.Errorf("%q is suspect: %+v", w, s)
		}
	}
	if got := v.Variants("recEive"); len(got) != 1 || got["recieve"].Right != "recEive" {
		t.Errorf("Variants(recEive) = %+v", got)
	}
}

func TestFind(t *testing.T) {
	text := []byte("// Send an sync request to the the server on MacOS; an http call is an option.\nfunc recieveAll() {}\n")
	sus := map[string]Suspect{"recieve": {Right: "receive", Uses: 42, Kind: KindSwap, Weight: 1}}
	var got []string
	Find(text, sus, []Named{{Word: "macOS", Case: true}}, true, func(h Hit) {
		if string(text[h.At:h.End]) != h.Word {
			t.Errorf("hit %q at %d:%d holds %q", h.Word, h.At, h.End, text[h.At:h.End])
		}
		got = append(got, h.Why())
	})
	want := []string{
		"`an sync`: an before a consonant (`a sync`): your request asks about spelling",
		"`the the`, a word written twice: your request asks about spelling",
		"`MacOS`, a variant of `macOS`, which your request names",
		"`recieve`, two letters swapped from `receive` (42 uses): your request asks about spelling",
	}
	if !slices.Equal(got, want) {
		t.Errorf("Find:\n got %q\nwant %q", got, want)
	}
}

// A word is written twice only when both are words of their own: the
// first part of an identifier after the word is no repeat of it (Python's
// "key in in_flight", Go's "is is_set").
func TestFindTwiceWholeWords(t *testing.T) {
	for text, want := range map[string]int{
		"if key in in_flight:\n":         0,
		"return x is is_set\n":           0,
		"# copy the the_list entries\n":  0,
		"# x_the the list\n":             0,
		"# send it to the the server\n":  1,
		"# in in1 and in in_2\n":         0,
		"// an sync_request is sent.\n":  1,
		"// an_sync request is sent.\n":  0,
		"// take an http, an sync one\n": 1,
	} {
		n := 0
		Find([]byte(text), nil, nil, true, func(Hit) { n++ })
		if n != want {
			t.Errorf("Find(%q): %d slips, want %d", text, n, want)
		}
	}
}

// A run of ASCII letters that a letter outside ASCII continues is part of
// a word of another language, no word of its own: French "retourné" holds
// no misspelled `retourn`, one letter from `return`.
func TestWordsOutsideASCII(t *testing.T) {
	var got []string
	Words([]byte("paramètres café naïve Größe über x—y: ok"), func(w []byte, _ int, _ []byte, _ int) { got = append(got, string(w)) })
	if want := []string{"x", "y", "ok"}; !slices.Equal(got, want) {
		t.Errorf("Words = %q, want %q", got, want)
	}
	v := NewVocab()
	v.Add([]byte(strings.Repeat("return it\n", 10) + "# Retourné la valeur\n"))
	if s, ok := v.Suspects()["retourn"]; ok {
		t.Errorf("retourn, of retourné, is a suspect: %+v", s)
	}
}

// A rare word as near two words written as often is judged the same way
// each time: by the nearer kind of edit, then the first word.
func TestSuspectsTieIsStable(t *testing.T) {
	text := "abcdef " + strings.Repeat("abxcdef abcddef ", 5)
	for range 40 {
		v := NewVocab()
		v.Add([]byte(text))
		if s := v.Suspects()["abcdef"]; s.Right != "abcddef" || s.Kind != KindDouble {
			t.Fatalf("abcdef: %+v, want a doubled letter from abcddef", s)
		}
	}
}
