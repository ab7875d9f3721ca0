// Package synth generates realistic synthetic workspaces for benchmarks:
// nested packages of Go, TypeScript and Python files whose identifiers,
// doc comments and bodies are drawn from a code-like vocabulary, so that
// term statistics resemble a real repository's.
package synth

import (
	"errors"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
)

// Version names the output of this generator: it changes whenever a change
// to the generator changes what a given Options writes, so that workspaces
// generated earlier and kept on disk (the benchmarks reuse them) are not
// mistaken for current ones.
const Version = 1

// Queries are commit-message-like queries over the generator's vocabulary,
// the ones the benchmarks run.
var Queries = []string{
	"retry the payment webhook when the gateway times out",
	"validate coupon expiry before applying the discount",
	"flush stale cache entries on shutdown",
	"parseToken should reject expired session credentials",
	"add rate limit to the upload endpoint",
	"fix race in snapshot restore when replica is locked",
	"export invoice report as csv",
	"schedule ledger compaction for idle partitions",
}

// MaxSymbols bounds Options.Symbols: ten million symbols is a million files,
// far past any workspace the benchmarks are about.
const MaxSymbols = 10_000_000

// Options shape a generated workspace.
type Options struct {
	Symbols        int   // how many symbols to generate, rounded up to whole files; required
	SymbolsPerFile int   // default 10
	FilesPerDir    int   // default 12
	Seed           int64 // default 1
}

// Stats describe what Generate wrote.
type Stats struct {
	Files, Symbols int
	Bytes          int64
}

var nouns = strings.Fields(`account address agent alert archive asset attempt audit backoff balance batch bucket
buffer build bundle cache cart catalog channel chunk claim client cluster column commit config connection
consumer context coupon credential cursor customer dataset deadline decoder delivery deployment device digest
discount document domain draft encoder endpoint entry event export feature filter fragment gateway graph
handler header health image import index invoice item job journal key label lease ledger limit listener
locale lock manifest mapping message metric migration mirror module monitor node notice offset order owner
package page parser partition patch payload payment peer permission pipeline plan policy pool position
price probe process producer profile project prompt provider quota query queue quote range rate reader
record region registry release replica report request resolver resource response retry revision role
route rule runner sample schedule schema scope secret segment selector session shard shipment signal
snapshot socket source span stage state status storage stream subscription summary symbol task template
tenant token topic trace transaction transfer trigger upload user validator value vendor version volume
watcher webhook window worker workspace`)

var verbs = strings.Fields(`acquire add aggregate allocate apply archive assign attach authorize build cache
cancel check clean close collect commit compact compare compute configure connect convert copy count create
decode delete describe detect dispatch drain emit encode ensure enqueue evict expand export fetch filter
find flush format generate handle hydrate import index init insert inspect invalidate join list load lock
lookup marshal match measure merge migrate normalize notify open parse patch plan poll prepare process
publish purge query read rebuild record refresh register release reload remove render renew replay report
reset resolve restore resume retry rotate route sample save scan schedule seal select send serialize
shutdown sign sort split start stop store stream submit sync throttle track transform trim unlock unmarshal
update upload validate verify wait walk watch write`)

var adjectives = strings.Fields(`active async batched cached cold default dirty empty expired external failed
fresh global hidden idle incoming internal invalid latest local locked missing nested next optional
outgoing partial pending primary private public queued raw remote retired safe secondary shared slow
stale strict temporary trusted unknown valid`)

type gen struct {
	r *rand.Rand
}

func (g *gen) pick(list []string) string { return list[g.r.Intn(len(list))] }

func title(s string) string { return strings.ToUpper(s[:1]) + s[1:] }

func (g *gen) words(n int) string {
	parts := make([]string, n)
	for i := range parts {
		switch g.r.Intn(3) {
		case 0:
			parts[i] = g.pick(verbs)
		case 1:
			parts[i] = g.pick(adjectives)
		default:
			parts[i] = g.pick(nouns)
		}
	}
	return strings.Join(parts, " ")
}

// Generate writes a synthetic workspace under dir, which must not exist or
// be empty. The same Options always write the same files. Every file holds
// SymbolsPerFile definitions (a Go struct and its functions and methods, a
// TypeScript class with methods and exported functions, or a Python class
// with methods and module functions); Stats.Symbols counts them.
func Generate(dir string, o Options) (Stats, error) {
	if o.Symbols <= 0 || o.Symbols > MaxSymbols {
		return Stats{}, fmt.Errorf("synth: Symbols must be between 1 and %d, got %d", MaxSymbols, o.Symbols)
	}
	if o.SymbolsPerFile <= 0 {
		o.SymbolsPerFile = 10
	}
	if o.FilesPerDir <= 0 {
		o.FilesPerDir = 12
	}
	if o.Seed == 0 {
		o.Seed = 1
	}
	switch entries, err := os.ReadDir(dir); {
	case errors.Is(err, os.ErrNotExist):
	case err != nil:
		return Stats{}, fmt.Errorf("synth: %w", err)
	case len(entries) > 0:
		return Stats{}, fmt.Errorf("synth: %s is not empty; generate into a new directory", dir)
	}
	g := &gen{r: rand.New(rand.NewSource(o.Seed))}
	var st Stats
	files := (o.Symbols + o.SymbolsPerFile - 1) / o.SymbolsPerFile
	for i := 0; i < files; i++ {
		d := g.dirFor(i / o.FilesPerDir)
		var name, text string
		var n int
		switch i % 5 {
		case 0, 1, 2:
			name = fmt.Sprintf("%s_%s_%d.go", g.pick(nouns), g.pick(nouns), i)
			text, n = g.goFile(filepath.Base(d), o.SymbolsPerFile)
		case 3:
			name = fmt.Sprintf("%s%s%d.ts", g.pick(nouns), title(g.pick(nouns)), i)
			text, n = g.tsFile(o.SymbolsPerFile)
		default:
			name = fmt.Sprintf("%s_%s_%d.py", g.pick(nouns), g.pick(verbs), i)
			text, n = g.pyFile(o.SymbolsPerFile)
		}
		p := filepath.Join(dir, d, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return st, fmt.Errorf("synth: %w", err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			return st, fmt.Errorf("synth: %w", err)
		}
		st.Files++
		st.Symbols += n
		st.Bytes += int64(len(text))
	}
	return st, nil
}

// dirFor spreads directories over a tree three levels deep.
func (g *gen) dirFor(n int) string {
	a, b, c := n%7, (n/7)%9, n/63
	return filepath.Join(fmt.Sprintf("%s%d", nouns[a*11%len(nouns)], a), fmt.Sprintf("%s%d", nouns[(b*17+5)%len(nouns)], b), fmt.Sprintf("%s%d", nouns[(c*29+3)%len(nouns)], c))
}

func (g *gen) body(indent string, lines int, call func() string) string {
	var sb strings.Builder
	for i := 0; i < lines; i++ {
		sb.WriteString(indent)
		sb.WriteString(call())
		sb.WriteByte('\n')
	}
	return sb.String()
}

func (g *gen) goFile(pkg string, nsym int) (string, int) {
	var sb strings.Builder
	fmt.Fprintf(&sb, "// Package %s %s.\npackage %s\n\nimport (\n\t\"errors\"\n\t\"fmt\"\n)\n\n", pkg, g.words(6), pkg)
	typ := title(g.pick(nouns)) + title(g.pick(nouns))
	fmt.Fprintf(&sb, "// %s %s.\ntype %s struct {\n", typ, g.words(8), typ)
	for i := 0; i < 4; i++ {
		fmt.Fprintf(&sb, "\t%s%s %s\n", title(g.pick(adjectives)), title(g.pick(nouns)), []string{"string", "int", "[]byte", "map[string]int"}[g.r.Intn(4)])
	}
	sb.WriteString("}\n\n")
	n := 1
	for n < nsym {
		verb, noun := g.pick(verbs), g.pick(nouns)
		v := g.pick(nouns)
		line := func() string {
			return fmt.Sprintf("if err := %s%s(%s); err != nil { return fmt.Errorf(\"%s: %%w\", err) }", g.pick(verbs), title(g.pick(nouns)), v, g.words(3))
		}
		if n%2 == 0 {
			fmt.Fprintf(&sb, "// %s%s %s.\nfunc (x *%s) %s%s(%s string) error {\n%s\treturn errors.New(%q)\n}\n\n",
				title(verb), title(noun), g.words(10), typ, title(verb), title(noun), v, g.body("\t", 3+g.r.Intn(8), line), g.words(4))
		} else {
			fmt.Fprintf(&sb, "// %s%s %s.\nfunc %s%s(%s string) error {\n%s\treturn nil\n}\n\n",
				verb, title(noun), g.words(10), verb, title(noun), v, g.body("\t", 3+g.r.Intn(8), line))
		}
		n++
	}
	return sb.String(), n
}

func (g *gen) tsFile(nsym int) (string, int) {
	var sb strings.Builder
	cls := title(g.pick(nouns)) + title(g.pick(verbs)) + "er"
	fmt.Fprintf(&sb, "import { %s } from './%s';\n\n/** %s */\nexport class %s {\n", title(g.pick(nouns)), g.pick(nouns), g.words(8), cls)
	n := 1
	for ; n < nsym/2; n++ {
		m := g.pick(verbs) + title(g.pick(nouns))
		line := func() string {
			return fmt.Sprintf("const %s = await this.%s(%s, '%s');", g.pick(nouns), g.pick(verbs)+title(g.pick(nouns)), g.pick(nouns), g.words(2))
		}
		fmt.Fprintf(&sb, "  /** %s */\n  async %s(%s: string): Promise<void> {\n%s  }\n\n", g.words(9), m, g.pick(nouns), g.body("    ", 3+g.r.Intn(6), line))
	}
	sb.WriteString("}\n\n")
	for ; n < nsym; n++ {
		f := g.pick(verbs) + title(g.pick(adjectives)) + title(g.pick(nouns))
		line := func() string {
			return fmt.Sprintf("if (!%s.%s) { throw new Error('%s'); }", g.pick(nouns), g.pick(adjectives), g.words(3))
		}
		fmt.Fprintf(&sb, "/** %s */\nexport function %s(%s: string): boolean {\n%s  return true;\n}\n\n", g.words(9), f, g.pick(nouns), g.body("  ", 3+g.r.Intn(6), line))
	}
	return sb.String(), n
}

func (g *gen) pyFile(nsym int) (string, int) {
	var sb strings.Builder
	cls := title(g.pick(nouns)) + title(g.pick(nouns))
	fmt.Fprintf(&sb, "\"\"\"%s.\"\"\"\n\nimport os\n\n\nclass %s:\n    \"\"\"%s.\"\"\"\n\n", title(g.words(7)), cls, title(g.words(8)))
	n := 1
	for ; n < nsym/2; n++ {
		line := func() string {
			return fmt.Sprintf("%s = self.%s_%s(%s)", g.pick(nouns), g.pick(verbs), g.pick(nouns), g.pick(nouns))
		}
		fmt.Fprintf(&sb, "    def %s_%s(self, %s):\n        \"\"\"%s.\"\"\"\n%s        return None\n\n", g.pick(verbs), g.pick(nouns), g.pick(nouns), title(g.words(9)), g.body("        ", 3+g.r.Intn(6), line))
	}
	for ; n < nsym; n++ {
		line := func() string {
			return fmt.Sprintf("if not %s.%s: raise ValueError(%q)", g.pick(nouns), g.pick(adjectives), g.words(3))
		}
		fmt.Fprintf(&sb, "\ndef %s_%s_%s(%s):\n    \"\"\"%s.\"\"\"\n%s    return True\n\n", g.pick(verbs), g.pick(adjectives), g.pick(nouns), g.pick(nouns), title(g.words(9)), g.body("    ", 3+g.r.Intn(6), line))
	}
	return sb.String(), n
}
