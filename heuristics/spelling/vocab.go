package spelling

import "strings"

// Thresholds of what looks misspelled: a word written at most RareUses
// times (MaxRareUses for the edits people make and rarely mean: a
// doubled letter, an apostrophe, two letters swapped) that is one edit
// from a word written at least MinRightUses times and RightRatio times
// as often. Words shorter than MinLen are too many to judge (`unit` and
// `uint`), but for a contraction's apostrophe (`dont`); a letter changed,
// added or left out is judged in words of MinLetterLen letters or more
// only, of which the workspace holds no other form (`passing` and
// `parsing` are words when `pass` is one too).
const (
	RareUses     = 2
	MaxRareUses  = 8
	MinRightUses = 5
	RightRatio   = 3
	MinLen       = 5
	MinLetterLen = 6
)

// Kinds of edit, and how much a word one such edit from a common word
// looks like a typo rather than a word of its own.
const (
	KindSwap       = "two letters swapped from"
	KindDouble     = "a doubled letter from"
	KindApostrophe = "an apostrophe short of"
	KindLetter     = "one letter from"
)

var kindWeight = map[string]float64{KindSwap: 1, KindDouble: 1, KindApostrophe: 1, KindLetter: 0.5}

// Vocab counts a workspace's words (Words): each word has an id, its
// uses, and (in a Cache) how many counted texts hold it, so that a word no
// text holds any longer gives its id back.
type Vocab struct {
	ids   map[string]uint32
	words []string // by id; "" for a free id
	uses  []int32  // by id
	prose []int32  // by id: the uses in docs (Cache), which make no right word
	refs  []int32  // by id: the Cache's counted texts that hold it
	free  []uint32
	// sus memoises Suspects until the uses change.
	sus map[string]Suspect
}

// NewVocab is an empty vocabulary.
func NewVocab() *Vocab { return &Vocab{ids: map[string]uint32{}} }

// Add counts the words of text.
func (v *Vocab) Add(text []byte) {
	v.sus = nil
	Words(text, func(w []byte, _ int, _ []byte, _ int) {
		if len(w) >= 2 {
			v.uses[v.id(w)]++
		}
	})
}

// id is the id of the word w, given one if it has none.
func (v *Vocab) id(w []byte) uint32 {
	if id, ok := v.ids[string(w)]; ok {
		return id
	}
	var id uint32
	if n := len(v.free); n > 0 {
		id, v.free = v.free[n-1], v.free[:n-1]
		v.words[id] = string(w)
	} else {
		id = uint32(len(v.words))
		v.words, v.uses, v.prose, v.refs = append(v.words, string(w)), append(v.uses, 0), append(v.prose, 0), append(v.refs, 0)
	}
	v.ids[v.words[id]] = id
	return id
}

// release drops a reference to the word id, and the word when no counted
// text holds it.
func (v *Vocab) release(id uint32) {
	if v.refs[id]--; v.refs[id] == 0 {
		delete(v.ids, v.words[id])
		v.words[id], v.uses[id], v.prose[id] = "", 0, 0
		v.free = append(v.free, id)
	}
}

// proseOnly reports whether the word w is written in docs only: a site's
// translations write words of other languages (`propre`, which `proper`
// is no misspelling of) and its examples made-up ones (`dooing`).
func (v *Vocab) proseOnly(w string) bool {
	id, ok := v.ids[w]
	return ok && v.prose[id] == v.uses[id]
}

// Uses is how many times the lowercased word w is written.
func (v *Vocab) Uses(w string) int {
	if id, ok := v.ids[w]; ok {
		return int(v.uses[id])
	}
	return 0
}

// Suspect is a word that looks misspelled: Right is the word it looks
// like, written Uses times, and Kind the edit between them.
type Suspect struct {
	Right  string
	Uses   int
	Kind   string
	Weight float64
}

// Suspects are the vocabulary's words that look misspelled, by word; the
// map is shared until the uses change, and must not be written to.
func (v *Vocab) Suspects() map[string]Suspect {
	if v.sus == nil {
		v.sus = v.suspects()
	}
	return v.sus
}

func (v *Vocab) suspects() map[string]Suspect {
	// Each common word under each of its one-letter deletions: a rare
	// word that is one (it lacks a letter) or shares one (one letter
	// differs) finds it there.
	dels := map[string][]string{}
	for w, id := range v.ids {
		if int(v.uses[id]) < MinRightUses || len(w) < MinLen || v.prose[id] == v.uses[id] {
			continue
		}
		for i := range len(w) {
			d := w[:i] + w[i+1:]
			dels[d] = append(dels[d], w)
		}
	}
	out := map[string]Suspect{}
	var buf []byte
	for w, id := range v.ids {
		n := int(v.uses[id])
		if n == 0 || n > MaxRareUses || len(w) < MinLen-1 {
			continue
		}
		best := Suspect{}
		try := func(r string) {
			if r == w {
				return
			}
			uses := v.Uses(r)
			if uses < MinRightUses || uses < RightRatio*n || uses < best.Uses || v.proseOnly(r) {
				return
			}
			kind := Edit(w, r)
			switch {
			case kind == "" || kind != KindApostrophe && len(w) < MinLen:
				return
			case kind == KindLetter && (n > RareUses || len(w) < MinLetterLen || v.hasForm(w)):
				return
			case uses == best.Uses && (kindWeight[kind] < best.Weight || kindWeight[kind] == best.Weight && r > best.Right):
				return // a tie goes the same way whatever order the words come in
			}
			best = Suspect{Right: r, Uses: uses, Kind: kind, Weight: kindWeight[kind]}
		}
		for _, r := range dels[w] { // w lacks a letter of r
			try(r)
		}
		for i := range len(w) {
			buf = append(append(buf[:0], w[:i]...), w[i+1:]...)
			if _, ok := v.ids[string(buf)]; ok { // w has a letter too many
				try(string(buf))
			}
			for _, r := range dels[string(buf)] { // one letter differs
				try(r)
			}
			if i+1 < len(w) && w[i] != w[i+1] { // two swapped
				buf = append(append(append(buf[:0], w[:i]...), w[i+1], w[i]), w[i+2:]...)
				if _, ok := v.ids[string(buf)]; ok {
					try(string(buf))
				}
			}
		}
		if c, ok := contractions[w]; ok && best.Right == "" {
			best = Suspect{Right: c, Uses: v.Uses(c), Kind: KindApostrophe, Weight: kindWeight[KindApostrophe]}
		}
		if best.Right != "" {
			out[w] = best
		}
	}
	return out
}

// Edit is the kind of the one edit that turns w into r, not at either
// end of the word (a letter added or changed there is most often a word
// of its own: parse, parser, parsed), or "" if there is none such.
func Edit(w, r string) string {
	p := 0
	for p < len(w) && p < len(r) && w[p] == r[p] {
		p++
	}
	s := 0
	for s < len(w)-p && s < len(r)-p && w[len(w)-1-s] == r[len(r)-1-s] {
		s++
	}
	switch {
	case len(r) == len(w)+1 && p+s == len(w): // w lacks r[p]
		return inner(r, p)
	case len(w) == len(r)+1 && p+s == len(r): // w has w[p] too many
		if k := inner(w, p); k != KindApostrophe { // can't is no misspelled cant
			return k
		}
	case len(w) == len(r) && p+s == len(w)-1 && p >= 1 && s >= 1:
		return KindLetter
	case len(w) == len(r) && p+s == len(w)-2 && p >= 1 && w[p] == r[p+1] && w[p+1] == r[p]:
		return KindSwap
	}
	return ""
}

// inner is the kind of the letter at p of the longer word, added or
// left out: "" at either end.
func inner(long string, p int) string {
	if p < 1 || p > len(long)-2 {
		return ""
	}
	switch c := long[p]; {
	case c == '\'':
		if p == len(long)-2 && long[p-1] == 'n' && long[p+1] == 't' { // a contraction: don't
			return KindApostrophe
		}
		return ""
	case c == long[p-1] || c == long[p+1]:
		return KindDouble
	}
	return KindLetter
}

// suffixes are the endings of English words' other forms.
var suffixes = []string{"s", "es", "ed", "d", "ing", "er", "ers", "ly"}

// hasForm reports whether the vocabulary holds another form of w: w
// without one of its suffixes (with or without a final e), or w with one.
func (v *Vocab) hasForm(w string) bool {
	for _, suf := range suffixes {
		if stem, ok := strings.CutSuffix(w, suf); ok && len(stem) >= 3 && (v.Uses(stem) > 0 || v.Uses(stem+"e") > 0) {
			return true
		}
		if v.Uses(w+suf) > 0 {
			return true
		}
	}
	return false
}

// contractions are the English contractions written without their
// apostrophe (`doesnt`): a workspace that writes one so everywhere holds
// no form to judge it by.
var contractions = map[string]string{
	"dont": "don't", "doesnt": "doesn't", "didnt": "didn't", "cant": "can't", "couldnt": "couldn't",
	"wouldnt": "wouldn't", "shouldnt": "shouldn't", "isnt": "isn't", "arent": "aren't", "wasnt": "wasn't",
	"werent": "weren't", "hasnt": "hasn't", "havent": "haven't", "hadnt": "hadn't", "wont": "won't",
	"mustnt": "mustn't", "neednt": "needn't",
}

// Variants are the words one edit from named (Edit, in any case) that
// the vocabulary writes at most RareUses times and less often than named:
// the misspellings of a word a request names ("fix receive spelling":
// `recieve`). A form written as often is a word of its own (`requested`
// for `requestid`).
func (v *Vocab) Variants(named string) map[string]Suspect {
	n := strings.ToLower(named)
	if len(n) < MinLen {
		return nil
	}
	uses := v.Uses(n)
	out := map[string]Suspect{}
	for w, id := range v.ids {
		if c := int(v.uses[id]); c == 0 || c > RareUses || c >= max(uses, 1) || len(w) < len(n)-1 || len(w) > len(n)+1 {
			continue
		}
		if k := Edit(w, n); k != "" {
			out[w] = Suspect{Right: named, Uses: uses, Kind: k, Weight: NamedWeight}
		}
	}
	return out
}
