package snapshot

import (
	"path/filepath"
	"time"

	"github.com/ctxls/ctxls/heuristics"
	"github.com/ctxls/ctxls/heuristics/spelling"
	"github.com/ctxls/ctxls/symbolindex"
	"github.com/ctxls/ctxls/symbolindex/embed"
	"github.com/ctxls/ctxls/workspace/config"
	"github.com/ctxls/ctxls/workspace/history"
	"github.com/ctxls/ctxls/workspace/items"
)

// Snapshot is one consistent view of the workspace for the length of one
// request: every folder's index, the open documents' texts, the user's
// activity and the configuration. The workspace takes it (package
// workspace, snapshot.go) and the select pipeline (workspace/pipeline)
// reads it and nothing else. As with gopls' cache.Snapshot, it is cheap to
// take and released when the request is done.
//
// Its fields are read only. Maps and slices are the snapshot's own or
// shared values no writer changes in place (a document's text is replaced
// on didChange, never edited; rules and histories are swapped whole). The
// indexes are frozen generations (symbolindex.View, Keep) taken under
// each folder's lock, so it sees each update of an index whole or not at
// all, and the texts it packs are the texts its index was built from; it
// holds no lock, and updates never wait for it: the index copies what it
// changes while a generation is held (symbolindex/cow.go).
type Snapshot struct {
	Config   config.Config
	Embedder embed.Embedder
	Now      time.Time
	Folders  []*Folder
	// Docs are the open documents' texts by absolute path.
	Docs   map[string][]byte
	Active string  // the active document's absolute path, or ""
	Cursor *Cursor // its cursor, when the editor reported one
	// Edits are the symbols the user changed recently, by when.
	Edits   map[EditKey]time.Time
	Refused map[string]int // paths the gate refused so far, by reason
	Notes   []items.Note   // memory notes, oldest first
	// ItemVecs caches the vectors of items' words; the workspace's, shared
	// by its snapshots (its mutex is a leaf).
	ItemVecs *items.VecCache
	// Resolve maps a reference (an absolute path, or one relative to the
	// first folder) to its folder's root, its path there and its real
	// path, through the gate; an error for one outside every folder.
	Resolve func(ref string) (root, rel, real string, err error)
	// Read reads the regular file at the real path real in the folder
	// root through the gate, at most limit bytes.
	Read func(root, real string, limit int64) ([]byte, error)
	// Pause, when set, is called by the select between its stages: it
	// returns once no edit is being applied, so that an edit has the
	// cores to itself (Workspace.applyEdit). Nil never waits.
	Pause func()

	views []*symbolindex.View
}

// Folder is one workspace folder as a snapshot sees it.
type Folder struct {
	Root  string
	Index *symbolindex.Index
	// Ready: the first index is built and the history was looked for, so
	// that an answer a client waited for has every source.
	Ready   bool
	History *history.History // nil without history
	// HistoryStats says what History holds, or why there is none.
	HistoryStats HistoryStats
	// Rules are the folder's parsed rule files, shared: copy one before
	// writing to it. RuleFiles are their paths, which the code ranking
	// leaves out.
	Rules     []*items.Item
	RuleFiles map[string]bool
	// Weights are the fusion weights and priors the folder's candidates
	// are fused with: the defaults, or the set ctxls tune fitted to the
	// folder's history when it won there. WeightsStats says which.
	Weights      heuristics.WeightSet
	WeightsStats WeightsStats
	// Words are the folder's words, counted once per text for the
	// requests that ask about spelling; the folder's, shared by its
	// snapshots (its mutex is a leaf). Nil counts afresh.
	Words *spelling.Cache
}

// WeightsStats says which weight set a folder's fusion uses and, for a
// fitted one, how it was measured against the defaults on the most
// recent commits it was not fitted on.
type WeightsStats struct {
	Set    string        `json:"set"`              // WeightsDefault, WeightsFitted (or WeightsMixed over folders)
	Judged *WeightsJudge `json:"judged,omitempty"` // a fitted set's figures on its judging slice
	Fitted string        `json:"fitted,omitempty"` // when it was fitted (RFC 3339)
}

// WeightsJudge is a fitted set against the defaults on the judging slice.
type WeightsJudge struct {
	Cases  int     `json:"cases"`
	HitAt1 float64 `json:"hitAt1"`
	HitAt5 float64 `json:"hitAt5"`
	MRR    float64 `json:"mrr"`
	// The defaults' figures on the same cases.
	DefaultHitAt1 float64 `json:"defaultHitAt1"`
	DefaultHitAt5 float64 `json:"defaultHitAt5"`
	DefaultMRR    float64 `json:"defaultMrr"`
}

// Which weight set is in use.
const (
	WeightsDefault = "default"
	WeightsFitted  = "fitted"
	// WeightsMixed: some folders use a fitted set, others the defaults
	// (the first fitted folder's figures are reported).
	WeightsMixed = "mixed"
)

// Cursor is where the user's cursor is: a 0-based line.
type Cursor struct {
	Line uint32
}

// EditKey names a symbol the user changed.
type EditKey struct {
	Abs string // absolute path of the file
	Key string // leaf key of the symbol
}

// HistoryStats says what history the history sources read.
type HistoryStats struct {
	Ready   bool   `json:"ready"`            // every folder's history was read, or is known to be unavailable
	Commits int    `json:"commits"`          // commits read, over all folders
	Head    string `json:"head,omitempty"`   // the head commit of the first folder with history
	Reason  string `json:"reason,omitempty"` // why a folder has none ("" when all have one)
	// Partial says, in one line, what a folder's history lacks
	// (history.History.Partial: a shallow clone's boundary, objects git
	// could not read, and why), the first such folder's, named by its
	// root when there are several; "" when every history is whole.
	Partial   string  `json:"partial,omitempty"`
	ElapsedMs float64 `json:"elapsedMs"` // time spent reading it (ctxls index only)
}

// Note is what a status line adds after the history's size: why there is
// none, or what it lacks; "" when there is nothing to add.
func (h HistoryStats) Note() string {
	if h.Commits == 0 && h.Reason != "" {
		return h.Reason
	}
	return h.Partial
}

// Weights sums the folders' weight sets: fitted when every folder uses a
// fitted set, default when none does, mixed otherwise, with the first
// fitted folder's figures.
func (s *Snapshot) Weights() WeightsStats {
	st := WeightsStats{Set: WeightsDefault}
	fitted := 0
	for _, fv := range s.Folders {
		if fv.WeightsStats.Set != WeightsFitted {
			continue
		}
		if fitted == 0 {
			st = fv.WeightsStats
		}
		fitted++
	}
	if fitted > 0 && fitted < len(s.Folders) {
		st.Set = WeightsMixed
	}
	return st
}

// Keep holds the index generation v until Release.
func (s *Snapshot) Keep(v *symbolindex.View) { s.views = append(s.views, v) }

// Release ends the snapshot: the index generations it read may be
// dropped once no other snapshot reads them.
func (s *Snapshot) Release() {
	for _, v := range s.views {
		v.Release()
	}
	s.views = nil
}

// ReadText returns the text of the file at the real path abs in the folder
// root as the snapshot sees it: the open document's, or the file on disk,
// read through the gate.
func (s *Snapshot) ReadText(root, abs string) ([]byte, error) {
	if text, ok := s.Docs[abs]; ok {
		return text, nil
	}
	return s.Read(root, abs, s.Config.MaxFileBytes)
}

// History sums the folders' history.
func (s *Snapshot) History() HistoryStats {
	st := HistoryStats{Ready: true}
	for _, fv := range s.Folders {
		h := fv.HistoryStats
		st.Ready = st.Ready && h.Ready
		st.Commits += h.Commits
		if st.Head == "" {
			st.Head = h.Head
		}
		if st.Reason == "" {
			st.Reason = h.Reason
		}
		if st.Partial == "" && h.Partial != "" {
			st.Partial = h.Partial
			if len(s.Folders) > 1 {
				st.Partial = fv.Root + ": " + h.Partial
			}
		}
	}
	return st
}

// Within reports whether the clean absolute path p is root or lies under it.
func Within(root, p string) bool {
	if p == root {
		return true
	}
	if len(root) > 0 && root[len(root)-1] != filepath.Separator {
		root += string(filepath.Separator)
	}
	return len(p) > len(root) && p[:len(root)] == root
}

// RelPath is the slash path of abs relative to root.
func RelPath(root, abs string) string {
	rel, err := filepath.Rel(root, abs)
	if err != nil {
		return abs
	}
	return filepath.ToSlash(rel)
}

// JoinRoot is the absolute path of rel (slash-separated) in the folder root.
func JoinRoot(root, rel string) string {
	return root + "/" + rel
}

// Yield waits, between two stages of a select, for an edit being applied
// (Pause).
func (s *Snapshot) Yield() {
	if s.Pause != nil {
		s.Pause()
	}
}
