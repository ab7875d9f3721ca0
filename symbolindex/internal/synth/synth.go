// Package synth generates text for tests and benchmarks with a realistic
// identifier vocabulary: Zipf-distributed words combined into camelCase and
// snake_case names. A corpus is deterministic for its seed.
package synth

import (
	"math/rand/v2"
	"strings"
)

// Corpus draws words and identifiers; R is its random source, for callers
// that build larger texts from the same sequence.
type Corpus struct {
	R     *rand.Rand
	zipf  *rand.Zipf
	words []string
}

// vocabulary is the words a corpus draws from.
const vocabulary = `
get set new add remove delete update create load save read write open close
parse format encode decode marshal unmarshal validate check verify compute
build make init start stop run serve handle process apply merge split join
find search lookup index query match filter sort select collect scan walk
visit render draw print log trace debug error warn info fatal panic recover
config options settings params args flags env context ctx state status
server client request response handler router middleware session cookie
token auth user account role permission policy rule limit quota rate
file path dir name ext size mode perm time date duration timeout deadline
buffer reader writer stream pipe conn socket port host addr url uri route
cache store db table row column key value entry item list map set queue
stack heap tree node leaf edge graph vertex parent child root branch hash
vector matrix embedding model score rank weight bias layer tensor batch
symbol kind range span offset line column byte rune char string text word
term posting document field length count total max min sum avg mean
worker pool job task event message channel signal notify watch poll
git commit diff patch repo branch tag remote fetch push pull clone blame
test bench mock stub fake assert expect want got result output input
json yaml toml xml html css http grpc proto schema spec version
`

// New returns a corpus seeded with seed.
func New(seed uint64) *Corpus {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	words := strings.Fields(vocabulary)
	return &Corpus{R: r, zipf: rand.NewZipf(r, 1.1, 2, uint64(len(words)-1)), words: words}
}

// Word returns one vocabulary word.
func (c *Corpus) Word() string { return c.words[c.zipf.Uint64()] }

// Ident returns an identifier of one to three words, camelCase or (one
// time in five) snake_case.
func (c *Corpus) Ident() string {
	n := 1 + c.R.IntN(3)
	var b strings.Builder
	snake := c.R.IntN(5) == 0
	for i := range n {
		w := c.Word()
		switch {
		case i == 0:
		case snake:
			b.WriteByte('_')
		default:
			w = strings.ToUpper(w[:1]) + w[1:]
		}
		b.WriteString(w)
	}
	return b.String()
}
