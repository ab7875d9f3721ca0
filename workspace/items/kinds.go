package items

import "sync"

// Context item kinds: what an item other than a code symbol is.
const (
	ItemRule   = "rule"   // a rule file: AGENTS.md, .cursor/rules/*.mdc, ...
	ItemDoc    = "doc"    // a section of documentation (Markdown, text)
	ItemMemory = "memory" // a note the user or an agent asked to remember
	ItemTool   = "tool"   // a tool description a client registered
)

// ItemKinds are the context item kinds, in the order they are documented.
var ItemKinds = []string{ItemRule, ItemDoc, ItemMemory, ItemTool}

// CodeOnly is an IncludeItems that turns off the items other than code
// and documentation (rules, memory, tools): what the ranking measurements
// (workspace/eval, workspace/replay) ask for.
func CodeOnly() map[string]bool {
	return map[string]bool{ItemRule: false, ItemMemory: false, ItemTool: false}
}

// Include modes of a context item.
const (
	IncludeAlways = "always" // included first, whatever the query
	IncludeManual = "manual" // included only when the request names it
	IncludeAgent  = "agent"  // included when its description matches the query
)

// Bounds on the rules of a folder (workspace/rules.go says what each refuses).
const (
	MaxRuleBytes              = 64 << 10
	MaxRuleFiles              = 128
	MaxFolderRuleBytes        = 512 << 10
	MaxRuleGlobs              = 64
	MaxRuleGlobBytes          = 256
	MaxRuleGlobAlternatives   = 256
	MaxFolderGlobAlternatives = 2048
)

// ScopedRuleNames are rule files that also count below the folder's top,
// for their directory: a nested AGENTS.md applies to the code beside it.
var ScopedRuleNames = []string{"AGENTS.md", "CLAUDE.md"}

// Budget is what the rules of one folder have cost so far.
type Budget struct {
	Root    string
	Files   int
	Bytes   int
	Alts    int
	Skipped []string // rule files past MaxRuleFiles
}

// Warner tells each warning once: a rule file over a bound is warned
// about once however often the rules are refreshed. Its mutex is a leaf.
type Warner struct {
	mu   sync.Mutex
	seen map[string]bool
	warn func(string)
}

// NewWarner is a Warner that tells warn.
func NewWarner(warn func(string)) *Warner {
	return &Warner{seen: map[string]bool{}, warn: warn}
}

// Once tells msg unless it was told before.
func (o *Warner) Once(msg string) {
	if o == nil {
		return
	}
	o.mu.Lock()
	seen := o.seen[msg]
	o.seen[msg] = true
	o.mu.Unlock()
	if !seen {
		o.warn(msg)
	}
}
