package pipeline

import (
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/ctxls/ctxls/heuristics"
	"github.com/ctxls/ctxls/symbolindex"
	"github.com/ctxls/ctxls/symbolindex/embed"
	"github.com/ctxls/ctxls/symbolindex/parse"
	"github.com/ctxls/ctxls/symbolindex/tokenize"
	"github.com/ctxls/ctxls/workspace/snapshot"
)

// The namer's two filters never turn away a name that holds a term of
// the turn: whatever the stemmer cuts or adds, its case and its joins.
func TestNamerFiltersKeepEveryNameHoldingATerm(t *testing.T) {
	names := []string{
		"validatePendingPayment", "ValidationError", "validator", "HTTPServer", "URLs", "IDsFor",
		"parse_manifest_schema", "parseJSON2Go", "rebalance-shard-replicas", "queries", "QueryCache",
		"stopped", "Controller", "cancelledJobs", "deletion", "executor", "Über_Größe", "ÆsirSearch",
		"retry_webhook__deliveries", "rollup.config", "X", "a_b_c", "GenZshCompletion", "bodyDump",
		"used", "using", "agedEntries", "CPUs", "menus", "status", "classes", "buses", "processor",
		"index2024-01-02", "x-1", "ABCDef", "selection", "option", "Ωmega", "snake_Case_Name",
	}
	for _, name := range names {
		sig := symbolindex.NameSig(name)
		tokenize.Terms(name, func(term string) {
			n := namer{own: map[string]bool{term: true}, ownBits: []uint64{symbolindex.TermBits([]byte(term))},
				heads: [][]byte{[]byte(term[:len(term)-1])}}
			if !n.mayHold(sig) || !n.mayName(name) {
				t.Errorf("%q holds %q, but the namer's filters turn it away (signature %v, letters %v)", name, term, n.mayHold(sig), n.mayName(name))
			}
		})
	}
	// And they turn away names that hold no word of the turn.
	n := namer{heads: [][]byte{[]byte("paymen"), []byte("webhoo")}}
	for _, name := range []string{"ShardReplica", "flushSessionTokens", "parse_manifest"} {
		if n.mayName(name) {
			t.Errorf("%q holds neither payment nor webhook, but passes", name)
		}
	}
}

// The namer weighs a name as heuristics.NameStrength does from the
// tokenizer's terms, whatever it skips (rarities of names that cannot
// count, terms of names the turn holds none of): the strong match a user
// sees depends on that alone.
func TestNamerBonusIsNameStrength(t *testing.T) {
	src := `package shop

type PaymentValidator struct{}

func ValidatePendingPayment() {}
func validate_payment_retry() {}
func RetryWebhookDeliveries() {}
func GenZshCompletion() {}
func payment() {}
func Payments() {}
func ParseManifestSchema() {}
func zsh() {}
`
	emb := embed.NewHashEmbedder(64)
	doc, err := symbolindex.Prepare(parse.NewParser(), emb, "shop/payment_retry.go", []byte(src), int64(len(src)), 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	idx := symbolindex.NewIndex(emb)
	idx.Put(doc)
	fv := &snapshot.Folder{Weights: heuristics.DefaultWeightSet()}
	names := []string{"PaymentValidator", "ValidatePendingPayment", "validate_payment_retry", "RetryWebhookDeliveries",
		"GenZshCompletion", "payment", "Payments", "ParseManifestSchema", "zsh", "payment_retry", "rollup.config",
		"paymentPayment", "retry-payment", "X", "Über_Größe"}
	for _, query := range []string{"validate the pending payment", "retry payment webhook", "zsh completion",
		"genzshcompletion", "see ValidatePendingPayment and zsh", "payment payment", "parse the manifest schema", "größe über"} {
		s := &scope{idx: idx, fv: fv}
		var own []symbolindex.QueryTerm
		for _, term := range tokenize.QueryTerms(query) {
			own = append(own, symbolindex.QueryTerm{Term: term, Weight: 1})
		}
		n := s.newNamer(query, own)
		inQuery := func(term string) bool { return n.own[term] }
		idf := func(term string) float64 { return float64(idx.TermIDF(term)) }
		for _, name := range names {
			var terms []string
			tokenize.Terms(name, func(term string) { terms = append(terms, term) })
			joined := ""
			if len(terms) > 1 {
				joined = strings.Map(func(r rune) rune {
					if unicode.IsLetter(r) || unicode.IsDigit(r) {
						return unicode.ToLower(r)
					}
					return -1
				}, name)
				if terms[len(terms)-1] == joined {
					terms = terms[:len(terms)-1]
				}
			}
			for _, asWritten := range []bool{false, true} {
				st, parts := heuristics.NameStrength(terms, joined, inQuery, idf, n.maxIDF)
				want := heuristics.StrongBonus(heuristics.StrongName(st, parts, asWritten && n.written[name]), fv.Weights.Source[heuristics.SrcLexical])
				if got := n.bonus(name, symbolindex.NameSig(name), asWritten); got != want {
					t.Errorf("%q for %q (as written %v): bonus %v, want %v", name, query, asWritten, got, want)
				}
				if got := n.bonus(name, 0, asWritten); got != want {
					t.Errorf("%q for %q (as written %v, no signature): bonus %v, want %v", name, query, asWritten, got, want)
				}
			}
		}
	}
}

// fewerThanTwo, which stops counting a name's held words once they are
// enough, turns away exactly the names heuristics counts as too weakly
// named (NameStrengthOf's parts, NamedEnough): one word held however often
// it repeats is not enough, two distinct ones are, wherever they stand in
// a long name.
func TestNamerFewerThanTwoIsNamedEnough(t *testing.T) {
	long := func(word string, n int, last string) []string {
		w := slices.Repeat([]string{word}, n)
		return append(w, last)
	}
	for _, c := range []struct {
		words []string
		held  string // the words the turn holds, space-separated
		whole bool
	}{
		{[]string{"payment"}, "payment", false},
		{[]string{"payment", "payment"}, "payment", false},
		{[]string{"payment", "retry"}, "payment retry", false},
		{[]string{"payment", "retry"}, "retry", false},
		{[]string{"payment", "retry"}, "", true},
		{[]string{"payment", "retry", "retry"}, "payment retry", false},
		{[]string{"retry", "payment", "retry"}, "retry", false},
		{[]string{"validate", "pending", "payment"}, "pending", false},
		{[]string{"validate", "pending", "payment"}, "validate payment", false},
		{long("x", 60, "x"), "x", false},
		{long("x", 60, "y"), "x y", false},
		{long("x", 60, "y"), "y", false},
		{long("x", 60, "y"), "z", false},
	} {
		own := map[string]bool{}
		for _, w := range strings.Fields(c.held) {
			own[w] = true
		}
		var n namer
		var parts []heuristics.NamePart
		for _, w := range c.words {
			n.buf = append(n.buf, w...)
			n.ends = append(n.ends, len(n.buf))
			n.held = append(n.held, own[w])
			parts = append(parts, heuristics.NamePart{Term: w, IDF: 1, InQuery: own[w]})
		}
		joined := &heuristics.NamePart{Term: strings.Join(c.words, ""), IDF: 1, InQuery: c.whole}
		_, nparts := heuristics.NameStrengthOf(parts, joined, 1)
		want := !heuristics.NamedEnough(nparts)
		if got := n.fewerThanTwo(len(c.words), c.whole); got != want {
			t.Errorf("%d words %v (held %q, whole %v): fewerThanTwo %v, want %v", len(c.words), c.words[max(0, len(c.words)-3):], c.held, c.whole, got, want)
		}
	}
}

// A request spells a file's dotted stem out only with all its parts as
// its words in a row, parted by spaces alone, whatever their case.
func TestQuerySpellsDottedStems(t *testing.T) {
	for _, c := range []struct {
		text, stem string
		want       bool
	}{
		{"Adjust Rollup  config to keep headers", "rollup.config", true},
		{"fix the user service", "User.Service", true},
		{"vite config base: split", "vite.config.base", true},
		{"rollup, config", "rollup.config", false},          // punctuation parts them
		{"config rollup", "rollup.config", false},           // out of order
		{"rollup the config", "rollup.config", false},       // not in a row
		{"rollups config", "rollup.config", false},          // a word is whole
		{"index d ts", "index.d", false},                    // a part of one letter
		{"rollup config", "rollup", false},                  // one part names by the namer's stem rule
		{"eslint config base", "eslint-config.base", false}, // a part that is no word
	} {
		q := &query{words: wordRuns(c.text)}
		if got := q.spells(c.stem); got != c.want {
			t.Errorf("%q spells %q: got %v, want %v (words %q)", c.text, c.stem, got, c.want, q.words)
		}
	}
	if (&query{}).spells("rollup.config") {
		t.Error("a deictic request (no words) spells a stem")
	}
}
