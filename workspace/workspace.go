// Package workspace owns the state of the workspace folders: file
// discovery through the gate, the indexes and their cache, open-document
// overlays, the activity log, watched files, rule files and memory notes.
// Select takes a snapshot of that state (workspace/snapshot) and runs the
// select pipeline over it (workspace/pipeline, whose run.go lists its
// stages); context items are workspace/items, the configuration
// workspace/config, git history workspace/history, the ranking weights and
// constants heuristics.
package workspace

import (
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ctxls/ctxls/symbolindex/embed"
	"github.com/ctxls/ctxls/symbolindex/parse"
	"github.com/ctxls/ctxls/workspace/items"
	"github.com/ctxls/ctxls/workspace/snapshot"
)

// Options are the parts of a workspace's setup that are not user
// configuration.
type Options struct {
	// Logger receives the workspace's log; nil discards it.
	Logger *slog.Logger
	// Warn is told, once each, the problems a user must act on (a missing
	// model, an unreadable cache); the server shows them, the CLI prints
	// them. Nil logs them at warning level.
	Warn func(msg string)
	// Now is the clock, for tests; nil is time.Now.
	Now func() time.Time
	// HoldGC, when set, is called before a folder's build loads a cache
	// (the one it starts from, and the file a cold build has just saved),
	// and what it returns after the load; a background merge's load runs
	// without it. A process
	// whose main work then is that load (ctxls index and select, a server
	// of one editor) passes HoldCollector; nil (the shared daemon, which
	// answers other clients meanwhile) leaves the collector alone.
	HoldGC func() (release func())
}

// gcHold counts the loads under HoldCollector.
var gcHold struct {
	sync.Mutex
	n       int
	percent int
}

// HoldCollector turns the garbage collector off until release is called:
// a cache load allocates its tables once and keeps nearly all of them, so
// that collections during it find little garbage (at 1M symbols they took
// a fifth of its CPU). The memory limit still applies. Loads may overlap
// (one a folder): the first saves the setting and the last gives it back,
// unless something else changed it meanwhile.
func HoldCollector() (release func()) {
	gcHold.Lock()
	defer gcHold.Unlock()
	if gcHold.n == 0 {
		gcHold.percent = debug.SetGCPercent(-1)
	}
	gcHold.n++
	return func() {
		gcHold.Lock()
		defer gcHold.Unlock()
		if gcHold.n--; gcHold.n == 0 {
			if cur := debug.SetGCPercent(gcHold.percent); cur != -1 {
				debug.SetGCPercent(cur) // changed during the load: keep it
			}
		}
	}
}

// Workspace is the state of a set of workspace folders: their indexes, the
// open documents (whose text wins over the disk), and the activity log.
//
// All methods are safe for concurrent use. The workspace mutex guards the
// folder list, the configuration, documents and activity; each Folder's own
// RWMutex serialises the writers of its index. A Select works on one
// Snapshot of all of it (snapshot.go), which holds no lock once taken:
// edits never wait for the selects in flight. At most selectSlots selects
// run at once, so that an edit always finds a core free.
type Workspace struct {
	opts Options
	log  *slog.Logger

	mu      sync.Mutex
	cfg     Config
	emb     embed.Embedder
	folders []*Folder
	docs    map[string]*document // absolute path → open document
	act     activity
	parser  *parse.Parser // for edits; guarded by mu
	warned  map[string]bool
	// refused counts the paths the gate refused since start, by reason;
	// refusedMu, a leaf, guards it.
	refused   map[SkipReason]int
	refusedMu sync.Mutex
	mem       map[string]*folderMemory // memory notes by folder root (memory.go)
	// memMu serialises this process's memory writers (memory.go); it is
	// never taken under mu, and mu is taken under it only briefly.
	memMu sync.Mutex
	// itemWarn warns once about rule files over their bounds (rules.go);
	// a leaf lock.
	itemWarn *items.Warner
	// itemVecs caches the vectors of context items (items.VecCache).
	itemVecs *items.VecCache
	// histLoading is set while a background history refresh runs.
	histLoading atomic.Bool
	// selecting holds a token per select running (selectSlots).
	selecting chan struct{}
	// editing counts the document edits being applied; each holds
	// editGate for writing meanwhile, and a select in flight waits for
	// them between its stages (pauseForEdits).
	editing  atomic.Int32
	editGate sync.RWMutex
}

// selectSlots is how many selects run at once: one core fewer than Go
// runs on (at least one). A select is pure computation; more of them at
// once than cores only share the cores, and would leave none for the
// edits, which must land before the next select to be fresh. The others
// wait their turn before they take their snapshot.
func selectSlots() int { return max(1, runtime.GOMAXPROCS(0)-1) }

// applyingEdit marks a document edit being applied, until the returned
// function is called: a select in flight stops at its next stage
// (Snapshot.Pause) and goes on once the edit is in the index. On two
// cores, one runs a select (selectSlots); without the pause the edit
// shares the other with the replies being encoded, the collector and
// the rest of the process, and waits for them.
func (w *Workspace) applyingEdit() func() {
	w.editing.Add(1)
	w.editGate.Lock()
	return func() {
		w.editGate.Unlock()
		w.editing.Add(-1)
	}
}

// pauseForEdits is a snapshot's Pause: it returns once no document edit
// is being applied.
func (w *Workspace) pauseForEdits() {
	if w.editing.Load() > 0 {
		w.editGate.RLock()
		w.editGate.RUnlock() // only waits for the writer
	}
}

// New returns a workspace with no folders.
func New(cfg Config, opts Options) (*Workspace, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	w := &Workspace{
		opts:      opts,
		log:       opts.Logger,
		cfg:       cfg,
		docs:      make(map[string]*document),
		warned:    make(map[string]bool),
		refused:   make(map[SkipReason]int),
		mem:       make(map[string]*folderMemory),
		itemVecs:  items.NewVecCache(),
		selecting: make(chan struct{}, selectSlots()),
	}
	warn := w.opts.Warn
	if warn == nil {
		warn = func(msg string) { w.log.Warn(msg) }
	}
	w.itemWarn = items.NewWarner(warn)
	w.emb = w.newEmbedder(cfg)
	return w, nil
}

// warn reports msg once.
func (w *Workspace) warn(msg string) {
	if w.warned[msg] {
		return
	}
	w.warned[msg] = true
	if w.opts.Warn != nil {
		w.opts.Warn(msg)
		return
	}
	w.log.Warn(msg)
}

// newEmbedder builds the configured embedder. When the ONNX model or
// runtime cannot be loaded it warns once, naming what is missing and how to
// fix it, and falls back to the built-in embedder.
func (w *Workspace) newEmbedder(cfg Config) embed.Embedder {
	if cfg.Embedder != "onnx" {
		return embed.NewHashEmbedder(embed.DefaultHashDim)
	}
	emb, err := newONNXEmbedder(cfg)
	if err != nil {
		w.warn(fmt.Sprintf("ctxls: %v; using the built-in hash embedder", err))
		return embed.NewHashEmbedder(embed.DefaultHashDim)
	}
	return emb
}

// Embedder returns the ID of the live embedder.
func (w *Workspace) Embedder() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.emb.ID()
}

// Config returns the current configuration.
func (w *Workspace) Config() Config {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.cfg
}

// Folders returns the workspace folders.
func (w *Workspace) Folders() []*Folder {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]*Folder(nil), w.folders...)
}

// Ready reports whether every folder has finished its first index and
// looked for its history (Folder.servable), as stats.ready says.
func (w *Workspace) Ready() bool { return w.every((*Folder).servable) }

// built reports whether every folder's first build is complete and its
// history looked for: a change applied from then on is not overwritten by
// the build.
func (w *Workspace) built() bool {
	return w.every(func(f *Folder) bool { return f.ready && f.histDone })
}

// every reports whether ok holds for every folder, each read under its
// read lock.
func (w *Workspace) every(ok func(*Folder) bool) bool {
	for _, f := range w.Folders() {
		f.mu.RLock()
		r := ok(f)
		f.mu.RUnlock()
		if !r {
			return false
		}
	}
	return true
}

// ErrOutside says a URI or path is not inside any workspace folder.
var ErrOutside = errors.New("outside the workspace folders")

// locate finds the folder of folders holding the real path abs and the
// path relative to it, by name alone: the gate (resolve) resolves
// symlinks first. The innermost folder wins when folders nest.
func locate(folders []*Folder, abs string) (*Folder, string, error) {
	var best *Folder
	for _, f := range folders {
		if snapshot.Within(f.Root, abs) && (best == nil || len(f.Root) > len(best.Root)) {
			best = f
		}
	}
	if best == nil {
		return nil, "", fmt.Errorf("%s: %w", abs, ErrOutside)
	}
	rel, err := filepath.Rel(best.Root, abs)
	if err != nil {
		return nil, "", fmt.Errorf("%s: %w", abs, ErrOutside)
	}
	return best, filepath.ToSlash(rel), nil
}

// absPath turns a path (absolute, or relative to the first of folders)
// into a clean absolute path, symlinks not resolved.
func absPath(folders []*Folder, ref string) (string, error) {
	switch {
	case strings.Contains(ref, "://"):
		return "", fmt.Errorf("%s: a URI, not a path (lsp/wire.PathFromURI converts)", ref)
	case filepath.IsAbs(ref):
		return filepath.Clean(ref), nil
	case len(folders) == 0:
		return "", fmt.Errorf("%s: no workspace folder", ref)
	}
	return filepath.Join(folders[0].Root, filepath.FromSlash(ref)), nil
}

// resolve is the gate for a path a client sends: it maps a path
// to its folder, its path relative to the folder and its real absolute
// path, with every symlink resolved. A path that names a place in a folder
// but resolves outside every folder (or into a symlink loop) is a
// *Refusal, counted in the statistics; any other path outside the folders
// is ErrOutside. Caller holds w.mu.
func (w *Workspace) resolve(ref string) (*Folder, string, string, error) {
	return resolveAmong(w.folders, ref, w.refuse)
}

// resolveAmong is resolve over folders, telling refuse what it refused.
// It takes no lock: a snapshot resolves with the folders it was taken
// with (snapshot.go).
func resolveAmong(folders []*Folder, ref string, refuse func(SkipReason)) (*Folder, string, string, error) {
	abs, err := absPath(folders, ref)
	if err != nil {
		return nil, "", "", err
	}
	real, err := realPath(abs)
	if err != nil {
		if r, ok := errors.AsType[*Refusal](err); ok {
			r.Path = ref
			refuse(r.Reason)
		}
		return nil, "", "", err
	}
	f, rel, err := locate(folders, real)
	if err == nil {
		return f, rel, real, nil
	}
	if _, _, lexErr := locate(folders, abs); lexErr == nil {
		refuse(SkipSymlinkOutsideRoot)
		return nil, "", "", &Refusal{Path: ref, Reason: SkipSymlinkOutsideRoot, Detail: "resolves to " + real}
	}
	return nil, "", "", err
}

// refuse counts a path the gate refused outside a folder's build.
func (w *Workspace) refuse(reason SkipReason) {
	w.refusedMu.Lock()
	w.refused[reason]++
	w.refusedMu.Unlock()
}

// refusals counts what the gate refused, by reason: in each folder's last
// build and since start on every other path. Nil when nothing was. Caller
// holds w.mu.
func (w *Workspace) refusals() map[string]int {
	var out map[string]int
	add := func(counts map[SkipReason]int) {
		for r, n := range counts {
			if out == nil {
				out = make(map[string]int)
			}
			out[string(r)] += n
		}
	}
	w.refusedMu.Lock()
	add(w.refused)
	w.refusedMu.Unlock()
	for _, f := range w.folders {
		f.mu.RLock()
		add(f.refused)
		f.mu.RUnlock()
	}
	return out
}

// newONNXEmbedder loads the ONNX model and runtime the configuration points
// at. Its errors name what is missing and how to fix it.
func newONNXEmbedder(cfg Config) (embed.Embedder, error) {
	if cfg.ModelPath == "" {
		return nil, fmt.Errorf("embedder onnx needs a model: set modelPath (--model DIR) to a directory with model.onnx and vocab.txt")
	}
	lib, err := embed.FindONNXRuntime(cfg.ONNXRuntimeLibrary)
	if err != nil {
		return nil, err
	}
	return embed.NewONNXEmbedder(embed.ONNXOptions{ModelDir: cfg.ModelPath, LibraryPath: lib})
}
