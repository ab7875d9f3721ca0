package pipeline

import (
	"testing"

	"github.com/ctxls/ctxls/symbolindex"
	"github.com/ctxls/ctxls/symbolindex/tokenize"
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
