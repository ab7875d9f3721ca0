package workspace

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cespare/xxhash/v2"

	"github.com/ctxls/ctxls/heuristics"
	"github.com/ctxls/ctxls/heuristics/spelling"
	"github.com/ctxls/ctxls/symbolindex"
	"github.com/ctxls/ctxls/symbolindex/cachefile"
	"github.com/ctxls/ctxls/symbolindex/embed"
	"github.com/ctxls/ctxls/symbolindex/parse"
	"github.com/ctxls/ctxls/workspace/history"
	"github.com/ctxls/ctxls/workspace/snapshot"
)

// Folder is one workspace folder and its index. Its mutex serialises the
// index's writers (indexing, edits) and the readers that read the live
// index briefly (the gate, history, a save). A snapshot reads a frozen
// generation of the index instead (vers): it holds the mutex only to take
// one, so an edit never waits for a select in flight.
type Folder struct {
	Root string // absolute, cleaned

	mu    sync.RWMutex
	idx   *symbolindex.Index
	vers  symbolindex.Versions // the generations of idx snapshots read; replaced with idx
	ready bool                 // the first build is complete
	// serving: the index loaded whole from the cache is served while the
	// first build re-checks the files against it.
	serving bool
	refused map[SkipReason]int // what the last build's gate refused, by reason
	hist    *history.History   // the repository's past, once read; nil without one
	merging atomic.Bool        // a background merge of the overlay is running
	// mergeTried is the overlay the last merge started from: after an
	// abandoned swap (an edit came in), the next waits for another file.
	mergeTried atomic.Int64
	mappings   int // cache files mapped and served so far (maxMappings)
	// histReason says why hist is nil; histDone: history was looked for.
	histReason string
	histDone   bool
	// histFailed is the HEAD and bounds a history read failed with (a
	// treeless clone, a boundary git cannot read): not read again until
	// HEAD moves or the bounds change.
	histFailed histRead
	// noCache: a directory stands at the folder's cache path, so no cache
	// can be written there; the folder runs without one.
	noCache atomic.Bool
	// words: the folder's words, for the spelling source (snapshot.Folder.Words).
	words *spelling.Cache
	// building serializes the folder's builds: a rebuild after a damaged
	// cache segment waits for the build under way.
	building sync.Mutex
	// fresh: the next build starts from nothing, neither the index served
	// nor the cache (a damaged segment was found in it).
	fresh      atomic.Bool
	rebuilding atomic.Bool
	// afterRebuild, set by the workspace, runs when a rebuild after a
	// damaged cache is installed: it puts the open documents back.
	afterRebuild func()
	// holdGC is the workspace's Options.HoldGC, called around the load
	// of the cache; nil leaves the collector alone.
	holdGC func() (release func())
	// rules are the folder's parsed rules (rules.go), replaced whole
	// holding the workspace's mu and this mu; nil until looked for.
	rules *folderRules
	// weights are the fusion weights the folder's candidates are fused
	// with, and which set they are (weights.go).
	weights      heuristics.WeightSet
	weightsStats snapshot.WeightsStats
}

// IndexStats reports what building an index did.
type IndexStats struct {
	Root        string         `json:"root"`
	Files       int            `json:"files"`
	Symbols     int            `json:"symbols"`
	Languages   map[string]int `json:"languages"`
	Bytes       int64          `json:"bytes"`
	Parsed      int            `json:"parsed"`  // files parsed this run (not reused from the cache)
	Reused      int            `json:"reused"`  // files reused from the cache
	Skipped     int            `json:"skipped"` // files skipped (binary, too large, generated, ...)
	SkipReasons map[string]int `json:"skipReasons,omitempty"`
	Refused     int            `json:"refused"` // of the skipped, those the gate refused (symlinks out or in loops, special files)
	ElapsedMs   float64        `json:"elapsedMs"`
	MerkleRoot  string         `json:"merkleRoot"`
	History     HistoryStats   `json:"history"` // the commits read for the history sources
	Weights     WeightsStats   `json:"weights"` // the fusion weights the folder uses (weights.go)
	Embedder    string         `json:"embedder"`
	Cache       string         `json:"cache"` // the cache file, or "off"

	// Found is the files discovery found to read (what Progress counts):
	// Files, plus those skipped once read (binary or generated content,
	// a type ctxls does not index).
	Found int `json:"found"`
	// SkippedFiles are the skipped files themselves, for a log that
	// names them.
	SkippedFiles []Skip `json:"-"`
}

// Progress reports indexing progress: Done of Total files read.
type Progress struct {
	Root        string
	Done, Total int
}

// newFolder returns a folder whose index is empty until Build runs.
func newFolder(root string, emb embed.Embedder) (*Folder, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("root %s: %w", root, err)
	}
	fi, err := os.Stat(abs)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("root %s: no such directory", root)
		}
		return nil, fmt.Errorf("root %s: %w", root, err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("root %s: not a directory", root)
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	f := &Folder{Root: abs, idx: symbolindex.NewIndex(emb), weights: heuristics.DefaultWeightSet(), words: spelling.NewCache(),
		weightsStats: snapshot.WeightsStats{Set: snapshot.WeightsDefault}}
	f.vers.Replace(f.idx, nil)
	return f, nil
}

// cachePath is where the folder's index is persisted: one file per folder,
// named by a hash of the folder's path.
func cachePath(dir, root string) string { return folderCacheFile(dir, root, ".idx") }

// folderCacheFile is the file of the folder root in the cache directory
// dir with the extension ext, named by a hash of the folder's path.
func folderCacheFile(dir, root, ext string) string {
	return filepath.Join(dir, fmt.Sprintf("%016x%s", xxhash.Sum64String(root), ext))
}

// build discovers the folder's files and brings the index up to date with
// them: from the cache when there is one, re-parsing only files whose content
// changed, then saves the cache.
func (f *Folder) build(ctx context.Context, cfg Config, emb embed.Embedder, log *slog.Logger, progress func(Progress)) (IndexStats, error) {
	f.building.Lock()
	defer f.building.Unlock()
	start := time.Now()
	stats := IndexStats{Root: f.Root, Embedder: emb.ID(), Cache: "off", SkipReasons: map[string]int{}}
	cacheDir, persist := cfg.ResolvedCacheDir()
	if persist {
		sweepOnce(cacheDir, log)
	}
	var cfile string // the cache file; "" when there is none
	if persist && !f.noCache.Load() {
		cfile = cachePath(cacheDir, f.Root)
	}
	// The files are discovered while the cache is read (the walk waits
	// for it only to compare the files' stats with their records), and
	// the cache is served while they are.
	var base *symbolindex.Index
	baseReady := make(chan struct{})
	dopts := discoverOptions(cfg)
	dopts.KnownReady = baseReady
	dopts.Known = func(rel string, size, modTime int64, ino uint64) (uint64, bool) {
		// A file whose stat matches its record is not read again.
		f.mu.RLock()
		s, ok := base.State(rel)
		f.mu.RUnlock()
		return s.Hash, ok && s.Size == size && s.ModTime == modTime && s.Ino == ino
	}
	type discovered struct {
		files   []FileInfo
		skipped []Skip
		err     error
	}
	found := make(chan discovered, 1)
	go func() {
		files, skipped, err := Discover(ctx, f.Root, dopts)
		found <- discovered{files, skipped, err}
	}()
	base, live, cfile := f.startingIndex(emb, cfile, log)
	close(baseReady)
	rewrite := base.Rewrite() // the cache loads, but should be written again
	if rewrite != "" && cfile != "" {
		log.Info("rewriting the index cache", "root", f.Root, "reason", rewrite)
	}
	if cfile != "" {
		stats.Cache = cfile
	}
	f.watchCorrupt(base, cfg, emb, log)
	disc := <-found
	files, skipped, err := disc.files, disc.skipped, disc.err
	if err != nil {
		return IndexStats{}, err
	}
	idx, st, streamed, err := f.indexFiles(ctx, cfg, emb, files, base, live, cfile, log, progress)
	if err != nil {
		return IndexStats{}, err
	}
	stats.Found = len(files)
	refused := tallySkips(&stats, append(skipped, st.skips...))
	stats.Parsed, stats.Reused = st.parsed, st.reused

	f.mu.RLock()
	describe(idx, &stats)
	gen := idx.Generation()
	var m *symbolindex.Index
	if cfile != "" && !streamed && (st.parsed > 0 || st.removed > 0 || st.touched > 0 || rewrite != "") {
		m = saveAndMap(idx, cfile, emb, f.holdGC, log)
	}
	f.mu.RUnlock()
	stats.ElapsedMs = float64(time.Since(start).Microseconds()) / 1000
	f.install(idx, m, gen, refused)
	f.watchCorrupt(idx, cfg, emb, log)
	f.watchCorrupt(m, cfg, emb, log)
	return stats, nil
}

// watchCorrupt makes a damaged segment that idx, an index read from the
// cache, comes across when a read first needs it (symbolindex's lazy
// checks) log one warning naming the cache file and rebuild the folder's
// index from its files in the background. Until the rebuild is installed
// the folder serves idx without that segment's postings, vectors and text.
func (f *Folder) watchCorrupt(idx *symbolindex.Index, cfg Config, emb embed.Embedder, log *slog.Logger) {
	if idx == nil || !idx.Mapped() {
		return
	}
	idx.OnCorrupt(func(err error) {
		// On the reader's goroutine, which may hold f.mu: only log and
		// start the rebuild.
		log.Warn("index cache damaged; rebuilding the index from the files", "root", f.Root, "err", err)
		go f.rebuild(cfg, emb, log)
	})
}

// rebuild builds the folder's index again from its files alone and writes
// a new cache, once the build under way (if any) is done.
func (f *Folder) rebuild(cfg Config, emb embed.Embedder, log *slog.Logger) {
	if !f.rebuilding.CompareAndSwap(false, true) {
		return
	}
	defer f.rebuilding.Store(false)
	f.fresh.Store(true)
	if _, err := f.build(context.Background(), cfg, emb, log, nil); err != nil {
		log.Warn("could not rebuild the index", "root", f.Root, "err", err)
		return
	}
	if f.afterRebuild != nil {
		f.afterRebuild()
	}
}

// startingIndex is the index a build starts from: the current one (a
// rebuild after a config change or a re-scan; live), else the cache file
// cfile's, else a new one. It returns the cache file to save to, "" when
// the folder is to run without one.
func (f *Folder) startingIndex(emb embed.Embedder, cfile string, log *slog.Logger) (base *symbolindex.Index, live bool, cacheFile string) {
	if f.fresh.Swap(false) {
		return symbolindex.NewIndex(emb), false, cfile
	}
	f.mu.RLock()
	base = f.idx
	f.mu.RUnlock()
	if base.Files() > 0 && base.Embedder().ID() == emb.ID() {
		return base, true, cfile
	}
	if cfile == "" {
		return symbolindex.NewIndex(emb), false, ""
	}
	base, usable, whole := f.loadCache(cfile, emb, log)
	if !usable {
		cfile = ""
	}
	if whole && base.Files() > 0 {
		// Serve the cache at once: the build then re-checks the files
		// against it as a re-scan does (live), changing it all at once.
		f.serveCache(base)
		return base, true, cfile
	}
	return base, false, cfile
}

// serveCache makes idx, an index loaded whole from the folder's cache, the
// folder's first index: requests are answered from it while the build
// re-parses the files changed since it was saved. Open documents put in
// the index it replaces are put again when the build ends (Workspace.Index).
func (f *Folder) serveCache(idx *symbolindex.Index) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.idx = idx
	f.vers.Replace(idx, nil)
	f.serving = true
	if idx.Mapped() {
		f.mappings++
	}
}

// loadHeld loads the index cached in cfile with the collector under hold
// (Options.HoldGC; nil: as it is), released when the load returns.
func loadHeld(hold func() (release func()), cfile string, emb embed.Embedder) (*symbolindex.Index, error) {
	if hold != nil {
		defer hold()()
	}
	return symbolindex.LoadIndex(cfile, emb)
}

// loadCache loads the folder's index from the cache file cfile, or returns
// a new index when it cannot, saying why in the log. usable is false when
// no cache can ever be written there; whole is true when the cache loaded
// with nothing lost.
func (f *Folder) loadCache(cfile string, emb embed.Embedder, log *slog.Logger) (idx *symbolindex.Index, usable, whole bool) {
	var refusal *cachefile.Refusal
	switch cached, err := loadHeld(f.holdGC, cfile, emb); {
	case err == nil:
		return cached, true, true
	case cached != nil:
		// Some segments were damaged: their files are indexed again by
		// the build, as new files.
		log.Warn("index cache partly damaged; re-indexing the files it lost", "root", f.Root, "err", err)
		return cached, true, false
	case errors.Is(err, os.ErrNotExist):
	case errors.As(err, &refusal) && refusal.IsDir():
		// Nothing can be renamed over a directory: no cache for this
		// folder, rather than a failed save after every build.
		log.Warn("the index cache path is a directory; running without a cache for this folder",
			"root", f.Root, "path", refusal.Path)
		f.noCache.Store(true)
		return symbolindex.NewIndex(emb), false, false
	case refusal != nil:
		// Never read through it; the new cache is renamed over the entry
		// itself.
		log.Warn("the index cache path is not a regular file; rebuilding and replacing it",
			"root", f.Root, "path", refusal.Path, "is", refusal.What)
	case errors.Is(err, symbolindex.ErrCacheMismatch):
		log.Info("rebuilding index", "root", f.Root, "reason", err)
	default:
		log.Warn("ignoring unreadable index cache; rebuilding", "root", f.Root, "err", err)
	}
	return symbolindex.NewIndex(emb), true, false
}

// indexFiles brings base up to date with files. With nothing to start from
// and a cache file to write, it writes the cache as the files come
// (streamed).
func (f *Folder) indexFiles(ctx context.Context, cfg Config, emb embed.Embedder, files []FileInfo, base *symbolindex.Index, live bool, cfile string, log *slog.Logger, progress func(Progress)) (idx *symbolindex.Index, st updateStats, streamed bool, err error) {
	read := func(abs string) ([]byte, error) {
		src, _, err := readRegular(f.Root, abs, cfg.MaxFileBytes)
		return src, err
	}
	if !live && cfile != "" && base.Files() == 0 {
		idx, st, err = streamBuild(ctx, cfile, emb, files, read, progressFor(f.Root, progress), f.holdGC, log)
		if err != nil || idx != nil {
			return idx, st, idx != nil, err
		}
	}
	idx, st, err = update(ctx, &f.mu, base, emb, files, read, progressFor(f.Root, progress), live)
	return idx, st, false, err
}

// tallySkips counts the skipped files into stats and returns how many of
// them each refusal kept out.
func tallySkips(stats *IndexStats, skips []Skip) map[SkipReason]int {
	refused := map[SkipReason]int{}
	for _, s := range skips {
		stats.SkippedFiles = append(stats.SkippedFiles, s)
		stats.Skipped++
		stats.SkipReasons[string(s.Reason)]++
		if IsRefusal(s.Reason) {
			stats.Refused++
			refused[s.Reason]++
		}
	}
	return refused
}

// install makes the built index idx the folder's, or m, the index mapped
// from the cache saved from it (nil: none), when no edit changed idx since
// generation gen of the save.
func (f *Folder) install(idx, m *symbolindex.Index, gen uint64, refused map[SkipReason]int) {
	f.mu.Lock()
	old := f.idx
	// Serve the saved segments unless an edit changed the live index since
	// the save (a re-scan's index is the live one).
	swapped := m != nil && idx.Generation() == gen && f.mappings < maxMappings
	built := idx
	if swapped {
		m.Reembedded = idx.Reembedded
		idx = m
	}
	if idx != old && idx.Mapped() {
		f.mappings++
	}
	var release func()
	if swapped {
		// The index served until now and the one the build produced (it
		// may have started from the cache) are replaced: drop their mapped
		// pages once no snapshot reads them; their heap is garbage then,
		// give it back.
		release = func() {
			old.Release()
			if built != old {
				built.Release()
			}
			debug.FreeOSMemory()
		}
	}
	if idx != old {
		f.vers.Replace(idx, release)
	}
	f.idx = idx
	f.ready = true
	f.refused = refused
	f.mu.Unlock()
	if m != nil && !swapped {
		m.Discard()
	}
}

// maxMappings bounds the cache files a folder maps in one process. A
// replaced index's file cannot be unmapped (strings read from it may
// still be in use: a response being written, a recent edit's key), so it
// keeps its disk blocks, though not its memory, until the process exits;
// past the bound, saves still happen but the folder goes on serving the
// index it has.
const maxMappings = 4

// swept holds the cache directories whose stale temporary files this
// process has swept: once each, at the first build that uses one.
var swept sync.Map

// sweepOnce removes the temporary files dead writers left in the cache
// directory dir (cachefile.SweepIndexTemps), the first time this process
// uses it.
func sweepOnce(dir string, log *slog.Logger) {
	if _, done := swept.LoadOrStore(dir, true); done {
		return
	}
	removed, err := cachefile.SweepIndexTemps(dir)
	if err != nil {
		log.Warn("could not sweep the cache directory", "err", err)
	}
	for _, s := range removed {
		log.Info("removed a stale temporary cache file", "path", s.Path, "bytes", s.Bytes, "reason", s.Reason)
	}
}

// saveAndMap saves idx to cfile and returns the saved file mapped: the
// same files, symbols and answers (Merkle root checked) with postings,
// vectors and strings read in place instead of held in the Go heap. It
// returns nil, with a warning, when the save or the load fails. The load
// runs under hold (Options.HoldGC; nil: none). Caller holds idx's lock
// for reading.
func saveAndMap(idx *symbolindex.Index, cfile string, emb embed.Embedder, hold func() (release func()), log *slog.Logger) *symbolindex.Index {
	runtime.GC() // the build's garbage, before the save adds its own
	root, ok := saveIndex(idx, cfile, log)
	if !ok {
		return nil
	}
	return mapSaved(cfile, emb, root, hold, log)
}

// saveIndex saves idx to cfile and returns its Merkle root. Caller holds
// idx's lock for reading.
func saveIndex(idx *symbolindex.Index, cfile string, log *slog.Logger) (root string, ok bool) {
	if err := idx.Save(cfile); err != nil {
		log.Warn("could not save the index cache", "err", err)
		return "", false
	}
	return idx.Tree().RootHex(), true
}

// mapSaved maps the cache file just saved, or returns nil with a warning
// when it cannot be read or does not hold the index whose Merkle root is
// root. It reads only the file, under hold (nil: none): no lock is needed.
func mapSaved(cfile string, emb embed.Embedder, root string, hold func() (release func()), log *slog.Logger) *symbolindex.Index {
	runtime.GC() // the save's garbage, before the mapped index adds its own
	m, err := loadHeld(hold, cfile, emb)
	if err != nil || m.Tree().RootHex() != root {
		log.Warn("could not map the index cache just written; serving from memory", "err", err)
		if m != nil {
			m.Discard()
		}
		return nil
	}
	return m
}

// mergeOverlayAt is how many files an index may have had put or removed
// since it was loaded before the workspace saves it in the background and
// serves the new segments: the overlay (edits, open documents, watched
// changes) is merged, and its heap given back. A variable for tests.
var mergeOverlayAt = 500

// maybeMerge starts a background merge of f's overlay when it has grown
// past mergeOverlayAt and persistence is on. Caller holds f.mu.
func (f *Folder) maybeMerge(cfg Config, log *slog.Logger) {
	dir, persist := cfg.ResolvedCacheDir()
	n := f.idx.Overlay()
	if !persist || f.noCache.Load() || !f.ready || n < mergeOverlayAt || int64(n) <= f.mergeTried.Load() || f.mappings >= maxMappings ||
		!f.merging.CompareAndSwap(false, true) {
		return
	}
	go f.merge(cachePath(dir, f.Root), f.idx.Embedder(), log)
}

// merge saves the live index and serves the saved segments in its place
// unless it changed meanwhile (the next merge then waits for one more
// changed file). Only the save holds the folder's lock; mapping and
// checking the file do not, so requests and edits wait for the write alone.
func (f *Folder) merge(cfile string, emb embed.Embedder, log *slog.Logger) {
	defer f.merging.Store(false)
	f.mu.RLock()
	idx := f.idx
	gen := idx.Generation()
	f.mergeTried.Store(int64(idx.Overlay()))
	root, ok := saveIndex(idx, cfile, log)
	f.mu.RUnlock()
	if !ok {
		return
	}
	m := mapSaved(cfile, emb, root, nil, log) // in the background: the collector runs
	if m == nil {
		return
	}
	f.mu.Lock()
	swapped := f.idx == idx && idx.Generation() == gen && f.mappings < maxMappings
	if swapped {
		m.Reembedded = idx.Reembedded
		f.idx = m
		f.vers.Replace(m, func() { // once no snapshot reads idx
			idx.Release()
			debug.FreeOSMemory()
		})
		f.mappings++
		f.mergeTried.Store(0)
	}
	f.mu.Unlock()
	if !swapped {
		m.Discard()
	}
}

// describe fills in the statistics of an index.
func describe(idx *symbolindex.Index, stats *IndexStats) {
	stats.Files, stats.Symbols = idx.Files(), idx.Symbols()
	stats.Languages = map[string]int{}
	idx.EachPath(func(_ string, fs uint32) bool {
		stats.Languages[idx.FileLanguage(fs)]++
		stats.Bytes += idx.FileSize(fs)
		return true
	})
	stats.MerkleRoot = idx.Tree().RootHex()
}

func progressFor(root string, fn func(Progress)) func(done, total int) {
	if fn == nil {
		return func(int, int) {}
	}
	return func(done, total int) { fn(Progress{Root: root, Done: done, Total: total}) }
}

type updateStats struct {
	parsed, reused, removed, touched int
	skips                            []Skip
}

// update brings idx up to date with files: files whose size and modification
// time match the index are kept without reading; the others are read and
// hashed, and only those whose content hash changed are parsed again (in
// parallel, one parser per worker). Indexed files that are gone are removed.
// Every change to idx is made holding mu. A fresh index is filled as the
// results come in; a live one (requests read it: a re-scan) is changed all
// at once at the end, under one write lock, so that a request sees it as it
// was before the re-scan or after, never in between, and a cancelled
// re-scan leaves it as it was.
func update(ctx context.Context, mu *sync.RWMutex, idx *symbolindex.Index, emb embed.Embedder, files []FileInfo, read func(abs string) ([]byte, error), progress func(done, total int), live bool) (_ *symbolindex.Index, st updateStats, err error) {
	mu.RLock()
	todo, gone, states := diffFiles(idx, files, &st)
	mu.RUnlock()
	results := prepareAll(ctx, emb, todo, states, read)

	if !live {
		mu.Lock()
		st.begin(idx, gone)
		mu.Unlock()
		defer func() {
			mu.Lock()
			defer mu.Unlock()
			if e := st.end(idx); e != nil && err == nil {
				err = e
			}
		}()
	}
	var pending []prepared
	inOrder(results, st.reused, len(files), progress, func(ready []prepared) {
		if live {
			pending = append(pending, ready...)
			return
		}
		mu.Lock()
		for _, q := range ready {
			st.apply(idx, q)
		}
		mu.Unlock()
	})
	if err := ctx.Err(); err != nil {
		return nil, st, err
	}
	if live {
		mu.Lock()
		st.begin(idx, gone)
		for _, q := range pending {
			st.apply(idx, q)
		}
		err = st.end(idx)
		mu.Unlock()
	}
	sort.Slice(st.skips, func(i, j int) bool { return st.skips[i].Path < st.skips[j].Path })
	return idx, st, err
}

// inOrder hands the results of prepareAll to apply in the order of the
// files (path order), whatever order the workers finish in, so that
// symbols get the same slots, and equal scores the same order, on every
// build and after a restart from the cache. done of total files are
// already done.
func inOrder(results <-chan prepared, done, total int, progress func(done, total int), apply func(ready []prepared)) {
	progress(done, total)
	waiting := make(map[int]prepared)
	next := 0
	for r := range results {
		done++
		progress(done, total)
		waiting[r.seq] = r
		var ready []prepared
		for q, ok := waiting[next]; ok; q, ok = waiting[next] {
			delete(waiting, next)
			next++
			ready = append(ready, q)
		}
		apply(ready)
	}
}

// streamBuild indexes every file of a folder that has no index yet
// straight into its cache file, a segment at a time
// (symbolindex.StreamWriter), and returns the saved file mapped: a cold
// build never holds the whole index in the heap. It returns a nil index,
// and no error, when the cache cannot be written or read back: the caller
// then builds in memory.
func streamBuild(ctx context.Context, cfile string, emb embed.Embedder, files []FileInfo, read func(abs string) ([]byte, error), progress func(done, total int), hold func() (release func()), log *slog.Logger) (*symbolindex.Index, updateStats, error) {
	var st updateStats
	w, err := symbolindex.NewStreamWriter(cfile, emb, len(files))
	if err != nil {
		log.Warn("could not write the index cache; indexing in memory", "err", err)
		return nil, st, nil
	}
	var putErr error
	inOrder(prepareAll(ctx, emb, files, nil, read), 0, len(files), progress, func(ready []prepared) {
		for _, q := range ready {
			switch {
			case q.skip != nil:
				st.skips = append(st.skips, *q.skip)
			case putErr == nil:
				putErr = w.Put(q.doc)
				st.parsed++
			}
		}
	})
	if err := ctx.Err(); err != nil {
		w.Abort()
		return nil, st, err
	}
	if putErr == nil {
		putErr = w.Finish()
	} else {
		w.Abort()
	}
	if putErr != nil {
		log.Warn("could not write the index cache; indexing in memory", "err", putErr)
		return nil, updateStats{}, nil
	}
	runtime.GC() // the build's garbage, before the mapped index adds its own
	m, err := loadHeld(hold, cfile, emb)
	if err != nil {
		if m != nil {
			m.Discard()
		}
		log.Warn("could not map the index cache just written; indexing in memory", "err", err)
		return nil, updateStats{}, nil
	}
	m.Reembedded = w.Embedded()
	log.Debug("index streamed into its cache file", "cache", cfile, "files", m.Files(), "symbols", m.Symbols())
	sort.Slice(st.skips, func(i, j int) bool { return st.skips[i].Path < st.skips[j].Path })
	return m, st, nil
}

// diffFiles sorts files into those to read (new, or changed in size or
// modification time) and those reused as they are, which it counts; gone
// are the indexed paths no longer among files, and states the indexed
// states of the files to read. Caller holds idx's lock for reading.
func diffFiles(idx *symbolindex.Index, files []FileInfo, st *updateStats) (todo []FileInfo, gone []string, states map[string]symbolindex.FileState) {
	states = make(map[string]symbolindex.FileState)
	found, distinct := 0, true
	for i, fi := range files {
		if i > 0 && fi.Path <= files[i-1].Path {
			distinct = false // not sorted: maybe not distinct either
		}
		s, ok := idx.State(fi.Path)
		if ok {
			found++
		}
		if ok && s.Size == fi.Size && s.ModTime == fi.ModTime.UnixNano() && s.Ino == fi.Ino {
			st.reused++
			continue
		}
		todo = append(todo, fi)
		if ok {
			states[fi.Path] = s
		}
	}
	// When as many distinct files were found in idx as it holds, every
	// indexed path is among files (a restart with nothing deleted): no
	// need to list them.
	if distinct && found == idx.Files() {
		return todo, nil, states
	}
	seen := make(map[string]bool, len(files))
	for _, fi := range files {
		seen[fi.Path] = true
	}
	for _, p := range idx.Paths() {
		if !seen[p] {
			gone = append(gone, p)
		}
	}
	return todo, gone, states
}

// prepareAll reads, parses, tokenizes and embeds the files of todo on
// GOMAXPROCS workers, one parser each; results come in any order, each
// with its position in todo.
func prepareAll(ctx context.Context, emb embed.Embedder, todo []FileInfo, states map[string]symbolindex.FileState, read func(abs string) ([]byte, error)) <-chan prepared {
	type job struct {
		seq int
		fi  FileInfo
	}
	jobs := make(chan job)
	results := make(chan prepared, 64)
	var wg sync.WaitGroup
	for w := 0; w < runtime.GOMAXPROCS(0); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p := parse.NewParser()
			defer p.Close()
			for j := range jobs {
				r := prepareFile(p, emb, j.fi, states, read)
				r.seq = j.seq
				results <- r
			}
		}()
	}
	go func() {
		defer close(jobs)
		for i, fi := range todo {
			select {
			case jobs <- job{i, fi}:
			case <-ctx.Done():
				return
			}
		}
	}()
	go func() { wg.Wait(); close(results) }()
	return results
}

// begin removes the files that are gone and starts a batch: one Merkle
// update at the end instead of one per file. Caller holds idx's lock.
func (st *updateStats) begin(idx *symbolindex.Index, gone []string) {
	for _, p := range gone {
		idx.Remove(p)
		st.removed++
	}
	idx.BeginBatch()
}

// apply puts one prepared file into idx. Caller holds idx's lock.
func (st *updateStats) apply(idx *symbolindex.Index, q prepared) {
	switch {
	case q.skip != nil:
		st.skips = append(st.skips, *q.skip)
		idx.Remove(q.skip.Path)
	case q.same:
		idx.Touch(q.info.Path, q.info.Size, q.info.ModTime.UnixNano(), q.info.Ino)
		st.touched++
	default:
		idx.Put(q.doc)
		st.parsed++
	}
}

// end ends the batch begin started. Caller holds idx's lock.
func (st *updateStats) end(idx *symbolindex.Index) error {
	err := idx.EndBatch()
	if st.parsed > 100 {
		idx.Compact()
	}
	if err != nil {
		return fmt.Errorf("index %s: %w", "merkle tree", err)
	}
	return nil
}

// prepared is one worker's output for one file.
type prepared struct {
	doc  *symbolindex.FileDoc
	skip *Skip
	same bool // content unchanged: only the stat data moved
	info FileInfo
	seq  int // position in the list of files to update
}

// prepareFile reads, classifies and (unless its content is unchanged)
// parses, tokenizes and embeds one file.
func prepareFile(p *parse.Parser, emb embed.Embedder, fi FileInfo, states map[string]symbolindex.FileState, read func(abs string) ([]byte, error)) prepared {
	if old, ok := states[fi.Path]; ok && fi.Hash != 0 && old.Hash == fi.Hash && old.Size == fi.Size {
		return prepared{same: true, info: fi}
	}
	src, err := read(fi.Abs)
	if err != nil {
		return prepared{skip: skipFor(fi.Path, err), info: fi}
	}
	return prepareContent(parseWith(p, fi.Path), emb, fi, src, states[fi.Path], nil)
}

// prepareContent is prepareFile for content already in memory (an open
// document, or a file just read): classify it, skip it if its content hash
// did not change, else parse it with parse and tokenize and embed it. known,
// if not nil, names the symbols the index already holds, which need no
// tokenizing or embedding.
func prepareContent(parseSrc func(src []byte) (*parse.ParsedFile, error), emb embed.Embedder, fi FileInfo, src []byte, old symbolindex.FileState, known symbolindex.Known) prepared {
	if reason := ClassifyContent(fi.Path, src); reason != "" {
		return prepared{skip: &Skip{Path: fi.Path, Reason: reason}, info: fi}
	}
	if old.Size == int64(len(src)) && old.Hash == xxhash.Sum64(src) {
		return prepared{same: true, info: fi}
	}
	pf, err := parseSrc(src)
	if errors.Is(err, parse.ErrUnsupported) {
		return prepared{skip: &Skip{Path: fi.Path, Reason: SkipUnsupported}, info: fi}
	}
	if err != nil {
		return prepared{skip: &Skip{Path: fi.Path, Reason: SkipUnreadable, Err: fmt.Errorf("parse %s: %w", fi.Path, err)}, info: fi}
	}
	doc, err := symbolindex.PrepareParsed(pf, emb, fi.Path, src, int64(len(src)), fi.ModTime.UnixNano(), known)
	if err != nil {
		return prepared{skip: &Skip{Path: fi.Path, Reason: SkipUnreadable, Err: err}, info: fi}
	}
	doc.Ino = fi.Ino
	return prepared{doc: doc, info: fi}
}

// parseWith parses whole files with p.
func parseWith(p *parse.Parser, relPath string) func([]byte) (*parse.ParsedFile, error) {
	return func(src []byte) (*parse.ParsedFile, error) { return p.Parse(relPath, src) }
}

// servable reports whether the folder has its first index (built, or
// loaded whole from the cache) and its history was looked for (read, or
// found unavailable): from then on an answer has every source. Caller
// holds f.mu.
func (f *Folder) servable() bool { return (f.ready || f.serving) && f.histDone }
