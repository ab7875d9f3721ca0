package workspace

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/cespare/xxhash/v2"
	"github.com/go-git/go-git/v5/plumbing/format/gitignore"

	"github.com/ctxls/ctxls/workspace/config"
	"github.com/ctxls/ctxls/workspace/glob"
	"github.com/ctxls/ctxls/workspace/snapshot"
)

// DiscoverOptions tunes Discover. Config.DiscoverOptions builds one from the
// configuration.
type DiscoverOptions struct {
	// Exclude lists globs (see Glob) of paths not to index, on top of
	// .gitignore and the default excludes. A directory that matches is not
	// walked.
	Exclude []string
	// MaxFileBytes is the size above which a file is skipped as "too
	// large"; 0 means config.DefaultMaxFileBytes.
	MaxFileBytes int64
	// Workers bounds how many directories and files are read at once; 0
	// means GOMAXPROCS.
	Workers int
	// Known, if not nil, returns the content hash an index holds for the
	// file rel when its record has this size, modification time (unix
	// nanoseconds) and inode number: such a file is not read, classified
	// or hashed again (it was when it was indexed).
	Known func(rel string, size, modTime int64, ino uint64) (hash uint64, ok bool)
	// KnownReady, if not nil, is closed once Known may be called: until
	// then the walk goes on and keeps the files it stats for Known to
	// check when it is, so that discovery runs while the index Known
	// answers from is still loading.
	KnownReady <-chan struct{}
}

// discoverOptions are the discovery options cfg implies.
func discoverOptions(cfg Config) DiscoverOptions {
	return DiscoverOptions{Exclude: cfg.Exclude, MaxFileBytes: cfg.MaxFileBytes}
}

// FileInfo is one file Discover found worth indexing.
type FileInfo struct {
	// Path is relative to the root, with forward slashes. A file reached
	// through a symlink is named by the link's path.
	Path string
	// Abs is the absolute path to read the file from.
	Abs string
	// Size is the number of bytes read.
	Size int64
	// ModTime is the modification time of the file (of the target, for a
	// symlink).
	ModTime time.Time
	// Hash is the xxhash64 of the bytes read, the content hash the index is
	// keyed by: an unchanged hash means the file need not be parsed again.
	// For a file DiscoverOptions.Known knew, it is the hash it gave.
	Hash uint64
	// Ino is the file's inode number (0 where there is none).
	Ino uint64
}

// Skip is a file or directory Discover saw but did not index, for the
// statistics and logs.
type Skip struct {
	// Path is relative to the root, with forward slashes.
	Path string
	// Reason is why it was skipped.
	Reason SkipReason
	// Err gives the detail when there is one: the I/O error, the size, the
	// symlink's target.
	Err error
}

// fileBatch is how many files one job reads, so that a huge flat directory
// still spreads over the workers.
const fileBatch = 64

// Discover walks root and returns the files worth indexing and the ones it
// skipped, both sorted by Path. It honours nested .gitignore files (with
// negation and directory patterns) and .git/info/exclude, always leaves out
// .git, node_modules, vendor, dist, build, target, .venv, venv,
// __pycache__, .hg, .svn, .idea, .next, .cache and coverage directories and
// the opts.Exclude globs, and skips files that are too large, binary,
// generated or minified (see ClassifyContent), which it reads to tell.
//
// Symlinks never lead out of root: a link to a file inside root is indexed
// under the link's path; a link to a directory inside root is walked under
// the link's path, unless its real target contains the link or is a
// directory the walk already came through ("symlink loop"); a link
// resolving outside root is skipped.
//
// A missing or non-directory root is an error; unreadable entries below it
// are skips. Cancelling ctx stops the walk and returns ctx's error.
func Discover(ctx context.Context, root string, opts DiscoverOptions) ([]FileInfo, []Skip, error) {
	d, rootDir, err := newDiscoverer(ctx, root, opts)
	if err != nil {
		return nil, nil, err
	}
	workers := opts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	d.push(walkJob{dir: rootDir})
	ws := make([]discoverWorker, workers)
	var wg sync.WaitGroup
	for i := range ws {
		wg.Add(1)
		go func(w *discoverWorker) {
			defer wg.Done()
			d.run(w)
		}(&ws[i])
	}
	wg.Wait()
	d.checkWaiting(ws, opts.KnownReady)

	if err := ctx.Err(); err != nil {
		return nil, nil, fmt.Errorf("discover %s: %w", d.absRoot, err)
	}
	if d.rootErr != nil {
		return nil, nil, fmt.Errorf("root %s: %w", d.absRoot, d.rootErr)
	}
	var files []FileInfo
	var skips []Skip
	for i := range ws {
		files = append(files, ws[i].files...)
		skips = append(skips, ws[i].skips...)
	}
	slices.SortFunc(files, func(a, b FileInfo) int { return strings.Compare(a.Path, b.Path) })
	slices.SortFunc(skips, func(a, b Skip) int { return strings.Compare(a.Path, b.Path) })
	return files, skips, nil
}

// isDefaultExcludedDir reports the directory names never walked.
func isDefaultExcludedDir(name string) bool {
	switch name {
	case ".git", "node_modules", "vendor", "dist", "build", "target", ".venv", "venv",
		"__pycache__", ".hg", ".svn", ".idea", ".next", ".cache", "coverage":
		return true
	}
	return false
}

// discoverer is the state of one Discover call. Its work queue is shared
// by the workers under mu; everything a worker produces stays in its own
// discoverWorker until the walk ends.
type discoverer struct {
	ctx      context.Context
	absRoot  string
	realRoot string
	exclude  *glob.Set
	maxBytes int64
	known    func(rel string, size, modTime int64, ino uint64) (uint64, bool)
	ready    <-chan struct{} // closed once known may be called

	mu      sync.Mutex
	cond    sync.Cond
	queue   []walkJob
	pending int // jobs queued or running
	rootErr error
}

// walkDir is a directory to list. Its fields are set before it is queued
// and never change, so children share them.
type walkDir struct {
	rel    string              // "" for the root
	abs    string              // the real path to list: the walk follows no symlink
	segs   []string            // rel split at "/", the gitignore path
	ignore []gitignore.Pattern // patterns in effect above this directory
}

type fileCand struct {
	rel, abs string
}

// walkJob is a directory to list or a batch of files to read.
type walkJob struct {
	dir   *walkDir
	files []fileCand
}

// discoverWorker holds one worker's results and its reusable read buffer.
type discoverWorker struct {
	files   []FileInfo
	skips   []Skip
	buf     []byte
	waiting []statted // for known, once it may be called
}

// statted is a readable regular file lstatAt described, not yet checked
// with known.
type statted struct {
	c  fileCand
	st fileStat
}

func (w *discoverWorker) skip(rel string, reason SkipReason, err error) {
	w.skips = append(w.skips, Skip{Path: rel, Reason: reason, Err: err})
}

func newDiscoverer(ctx context.Context, root string, opts DiscoverOptions) (*discoverer, *walkDir, error) {
	if root == "" {
		return nil, nil, errors.New("root: empty path")
	}
	if opts.MaxFileBytes < 0 {
		return nil, nil, fmt.Errorf("maxFileBytes: must not be negative, got %d", opts.MaxFileBytes)
	}
	exclude, err := glob.CompileSet(opts.Exclude)
	if err != nil {
		return nil, nil, fmt.Errorf("exclude: %w", err)
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, nil, fmt.Errorf("root %s: %w", root, err)
	}
	st, err := os.Stat(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil, fmt.Errorf("root %s: no such directory", abs)
	case err != nil:
		return nil, nil, fmt.Errorf("root %s: %w", abs, err)
	case !st.IsDir():
		return nil, nil, fmt.Errorf("root %s: not a directory", abs)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, nil, fmt.Errorf("root %s: %w", abs, err)
	}
	d := &discoverer{
		ctx:      ctx,
		absRoot:  abs,
		realRoot: real,
		exclude:  exclude,
		maxBytes: opts.MaxFileBytes,
		known:    opts.Known,
		ready:    opts.KnownReady,
	}
	if d.maxBytes == 0 {
		d.maxBytes = config.DefaultMaxFileBytes
	}
	d.cond.L = &d.mu
	rootDir := &walkDir{abs: real}
	// .git/info/exclude holds the repository's private ignore patterns. A
	// missing one, or a .git that is a file (worktrees), is normal.
	if data, _, err := readRegular(real, filepath.Join(real, ".git", "info", "exclude"), d.maxBytes); err == nil {
		rootDir.ignore = parseIgnore(data, nil)
	}
	return d, rootDir, nil
}

// parseIgnore parses a .gitignore file found in the directory domain.
func parseIgnore(data []byte, domain []string) []gitignore.Pattern {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	var ps []gitignore.Pattern
	for len(data) > 0 {
		var line []byte
		line, data, _ = bytes.Cut(data, []byte{'\n'})
		line = bytes.TrimSuffix(line, []byte{'\r'})
		if len(bytes.TrimSpace(line)) == 0 || line[0] == '#' {
			continue
		}
		ps = append(ps, quickIgnore(string(line), domain))
	}
	return ps
}

// quickPattern is a gitignore pattern whose name (a pattern with no "/"
// inside) every matching path element must start with pre and end with
// suf: the paths with no such element are no match without asking the
// pattern, which runs filepath.Match on each element (most of the walk's
// time in its directories). The others are the pattern's to decide.
type quickPattern struct {
	gitignore.Pattern
	depth    int // the elements of the .gitignore's directory
	pre, suf string
}

func (p *quickPattern) Match(path []string, isDir bool) gitignore.MatchResult {
	if len(path) > p.depth {
		for _, name := range path[p.depth:] {
			if strings.HasPrefix(name, p.pre) && strings.HasSuffix(name, p.suf) {
				return p.Pattern.Match(path, isDir)
			}
		}
	}
	return gitignore.NoMatch
}

// quickIgnore parses line as gitignore.ParsePattern does, wrapped in a
// quickPattern when it is a name, not a path.
func quickIgnore(line string, domain []string) gitignore.Pattern {
	pat := gitignore.ParsePattern(line, domain)
	// The name as ParsePattern reads it: no "!", trailing spaces (unless
	// escaped) and "/" trimmed.
	name := strings.TrimPrefix(line, "!")
	if !strings.HasSuffix(name, "\\ ") {
		name = strings.TrimRight(name, " ")
	}
	name = strings.TrimSuffix(name, "/")
	if strings.Contains(name, "/") {
		return pat
	}
	// pre: the literal text before the first wildcard or escape; suf: the
	// literal text after the last * or ?, when there is no class or
	// escape to make the end less plain.
	q := &quickPattern{Pattern: pat, depth: len(domain), pre: name, suf: name}
	if i := strings.IndexAny(name, "*?[\\"); i >= 0 {
		q.pre, q.suf = name[:i], ""
		if !strings.ContainsAny(name, "[\\") {
			q.suf = name[strings.LastIndexAny(name, "*?")+1:]
		}
	}
	return q
}

func (d *discoverer) push(j walkJob) {
	d.mu.Lock()
	d.queue = append(d.queue, j)
	d.pending++
	d.mu.Unlock()
	d.cond.Signal()
}

// run takes jobs until none is queued or running.
func (d *discoverer) run(w *discoverWorker) {
	for {
		d.mu.Lock()
		for len(d.queue) == 0 && d.pending > 0 {
			d.cond.Wait()
		}
		if len(d.queue) == 0 {
			d.mu.Unlock()
			return
		}
		j := d.queue[len(d.queue)-1]
		d.queue[len(d.queue)-1] = walkJob{}
		d.queue = d.queue[:len(d.queue)-1]
		d.mu.Unlock()

		if d.ctx.Err() == nil {
			if j.dir != nil {
				d.listDir(w, j.dir)
			} else {
				for _, c := range j.files {
					d.readFile(w, c)
				}
			}
		}

		d.mu.Lock()
		d.pending--
		done := d.pending == 0
		d.mu.Unlock()
		if done {
			d.cond.Broadcast()
		}
	}
}

// listDir reads one directory, queues its subdirectories and its files.
// When there is an index to compare with, it describes each regular file
// through the directory's handle (fstatat, no path to resolve again) and
// takes those whose record matches (see knownByStat); the others are read.
func (d *discoverer) listDir(w *discoverWorker, dir *walkDir) {
	df, entries, ok := d.openDir(w, dir)
	if !ok {
		return
	}
	defer df.Close()
	dirfd := -1
	if d.known != nil {
		dirfd = int(df.Fd())
	}
	patterns := d.dirIgnore(w, dir, entries)
	matcher := gitignore.NewMatcher(patterns)

	// The real path is the root's followed by the relative one (the walk
	// follows no symlink): one string holds both.
	prefix, relAt := dir.abs, len(d.realRoot)
	if !strings.HasSuffix(prefix, "/") { // "/" is the only real path that ends in one
		prefix += "/"
	}
	if !strings.HasSuffix(d.realRoot, "/") {
		relAt++
	}
	// segs[len(dir.segs)] is each entry's name in turn: the matcher keeps
	// nothing, a directory queued gets a copy.
	segs := append(dir.segs[:len(dir.segs):len(dir.segs)], "")
	var batch []fileCand
	for _, e := range entries {
		name := e.Name()
		if name == ".git" {
			continue
		}
		abs := prefix + name
		rel := abs[relAt:]
		segs[len(segs)-1] = name
		typ := e.Type()
		switch {
		case typ.IsDir():
			if isDefaultExcludedDir(name) || matcher.Match(segs, true) || d.exclude.MatchAny(rel) {
				continue
			}
			d.push(walkJob{dir: &walkDir{rel: rel, abs: abs, segs: slices.Clone(segs), ignore: patterns}})
		case typ.IsRegular():
			if matcher.Match(segs, false) || d.exclude.MatchAny(rel) {
				continue
			}
			c := fileCand{rel: rel, abs: abs}
			if dirfd >= 0 && d.knownByStat(w, dirfd, name, c) {
				continue
			}
			batch = append(batch, c)
		case typ&fs.ModeSymlink != 0:
			d.symlink(w, dir, name, rel, abs, segs, matcher)
		default:
			if matcher.Match(segs, false) || d.exclude.MatchAny(rel) {
				continue
			}
			w.skip(rel, SkipNotRegular, fmt.Errorf("file mode %s", typ))
		}
		if len(batch) == fileBatch {
			d.push(walkJob{files: batch})
			batch = nil
		}
	}
	for _, c := range batch {
		d.readFile(w, c)
	}
}

// openDir opens and lists the directory dir (the entries' types without a
// stat, in no order); it reports one it cannot read, and then returns
// false.
func (d *discoverer) openDir(w *discoverWorker, dir *walkDir) (*os.File, []fs.DirEntry, bool) {
	df, err := os.Open(dir.abs)
	var entries []fs.DirEntry
	if err == nil {
		entries, err = df.ReadDir(-1)
		if err != nil {
			df.Close()
		}
	}
	if err == nil {
		return df, entries, true
	}
	if dir.rel == "" {
		d.mu.Lock()
		d.rootErr = err
		d.mu.Unlock()
	} else {
		w.skip(dir.rel, SkipUnreadable, err)
	}
	return nil, nil, false
}

// dirIgnore is the ignore patterns in effect in dir, whose entries are
// entries: its parent's and its .gitignore's.
func (d *discoverer) dirIgnore(w *discoverWorker, dir *walkDir, entries []fs.DirEntry) []gitignore.Pattern {
	patterns := dir.ignore
	for _, e := range entries {
		if e.Name() != ".gitignore" {
			continue
		}
		data, _, err := readRegular(d.realRoot, filepath.Join(dir.abs, ".gitignore"), d.maxBytes)
		if err != nil {
			w.skipErr(joinRel(dir.rel, ".gitignore"), err)
			break
		}
		// Full slice expression: appending never writes into the parent's
		// shared backing array.
		patterns = append(patterns[:len(patterns):len(patterns)], parseIgnore(data, dir.segs)...)
		break
	}
	return patterns
}

// symlink records why a symlink is not followed. Discover never reads
// through a link: one leading out of the root or into a loop is refused;
// one that stays inside is left to its target, which the walk indexes
// under its real path, once.
func (d *discoverer) symlink(w *discoverWorker, dir *walkDir, name, rel, abs string, segs []string, matcher gitignore.Matcher) {
	st, statErr := os.Stat(abs)
	isDir := statErr == nil && st.IsDir()
	if matcher.Match(segs, isDir) || d.exclude.MatchAny(rel) || (isDir && isDefaultExcludedDir(name)) {
		return
	}
	if statErr != nil {
		if errors.Is(statErr, syscall.ELOOP) {
			w.skip(rel, SkipSymlinkLoop, statErr)
		} else {
			w.skip(rel, SkipUnreadable, fmt.Errorf("broken symlink: %w", statErr))
		}
		return
	}
	real, err := filepath.EvalSymlinks(abs)
	switch {
	case err != nil:
		w.skip(rel, SkipUnreadable, err)
	case !snapshot.Within(d.realRoot, real):
		w.skip(rel, SkipSymlinkOutsideRoot, fmt.Errorf("resolves to %s", real))
	case isDir && snapshot.Within(real, dir.abs):
		w.skip(rel, SkipSymlinkLoop, fmt.Errorf("resolves to %s, which contains it", real))
	default:
		target, _ := filepath.Rel(d.realRoot, real)
		w.skip(rel, SkipSymlinkInside, fmt.Errorf("indexed as %s", filepath.ToSlash(target)))
	}
}

// skipErr records a file or directory that could not be read: a refusal
// with the gate's reason, anything else as unreadable.
func (w *discoverWorker) skipErr(rel string, err error) {
	w.skips = append(w.skips, *skipFor(rel, err))
}

func joinRel(dir, name string) string {
	if dir == "" {
		return name
	}
	return dir + "/" + name
}

// readFile reads and classifies one file, into the worker's buffer.
func (d *discoverer) readFile(w *discoverWorker, c fileCand) {
	if d.ctx.Err() != nil {
		return
	}
	f, st, err := openRegular(d.realRoot, c.abs)
	if err != nil {
		w.skipErr(c.rel, err)
		return
	}
	defer f.Close()
	if st.Size() > d.maxBytes {
		w.skip(c.rel, SkipTooLarge, fmt.Errorf("%d bytes, over maxFileBytes %d", st.Size(), d.maxBytes))
		return
	}
	ino := inoOf(st)
	data, binary, err := w.read(f, st.Size(), d.maxBytes)
	if err != nil {
		w.skip(c.rel, SkipUnreadable, err)
		return
	}
	if binary {
		w.skip(c.rel, SkipBinary, nil)
		return
	}
	if int64(len(data)) > d.maxBytes { // it grew since Stat
		w.skip(c.rel, SkipTooLarge, fmt.Errorf("over maxFileBytes %d", d.maxBytes))
		return
	}
	if reason := ClassifyContent(c.rel, data); reason != "" {
		w.skip(c.rel, reason, nil)
		return
	}
	w.files = append(w.files, FileInfo{
		Path:    c.rel,
		Abs:     c.abs,
		Size:    int64(len(data)),
		ModTime: st.ModTime(),
		Hash:    xxhash.Sum64(data),
		Ino:     ino,
	})
}

// fileStat is what lstatAt tells of a file.
type fileStat struct {
	regular    bool
	size       int64
	modTime    int64 // unix nanoseconds
	ino        uint64
	ownerReads bool // this process's user owns it and may read it
}

// knownByStat takes the file c, the entry name of the directory open as
// dirfd, as the index knows it when one fstatat shows a regular file
// whose size, modification time and inode number match its record: on a
// restart most files are, and need no open, fstat, kernel-path check and
// close through the gate. Nothing of the file is read; the walk reached
// the directory through no symlink, fstatat follows no final one, and a
// file whose identity changed meanwhile does not match its record. One
// this process may not read is left to the gate, which skips it as
// before. Anything else (unknown, changed, not a regular file, too large)
// goes through readFile's gate as before.
func (d *discoverer) knownByStat(w *discoverWorker, dirfd int, name string, c fileCand) bool {
	var st fileStat
	if !lstatAt(dirfd, name, &st) || !st.regular || st.size > d.maxBytes || st.ino == 0 {
		return false
	}
	if d.ready != nil {
		select {
		case <-d.ready:
		default:
			if !readableAt(dirfd, name, &st) {
				return false
			}
			w.waiting = append(w.waiting, statted{c: c, st: st})
			return true
		}
	}
	h, ok := d.known(c.rel, st.size, st.modTime, st.ino)
	if !ok || !readableAt(dirfd, name, &st) { // one made unreadable is skipped as before
		return false
	}
	w.take(c, &st, h)
	return true
}

// take adds the file c, which lstatAt described as st, with the content
// hash h its record gives.
func (w *discoverWorker) take(c fileCand, st *fileStat, h uint64) {
	w.files = append(w.files, FileInfo{Path: c.rel, Abs: c.abs, Size: st.size, ModTime: time.Unix(0, st.modTime), Hash: h, Ino: st.ino})
}

// checkWaiting waits for ready, then checks the files the workers kept
// for known, each worker its own: a file whose record does not match is
// read through the gate.
func (d *discoverer) checkWaiting(ws []discoverWorker, ready <-chan struct{}) {
	n := 0
	for i := range ws {
		n += len(ws[i].waiting)
	}
	if n == 0 {
		return
	}
	select {
	case <-ready:
	case <-d.ctx.Done():
		return
	}
	var wg sync.WaitGroup
	for i := range ws {
		wg.Go(func() {
			w := &ws[i]
			w.files = slices.Grow(w.files, len(w.waiting))
			for k := range w.waiting {
				s := &w.waiting[k]
				if h, ok := d.known(s.c.rel, s.st.size, s.st.modTime, s.st.ino); ok {
					w.take(s.c, &s.st, h)
				} else {
					d.readFile(w, s.c)
				}
			}
			w.waiting = nil
		})
	}
	wg.Wait()
}

// read reads f into the worker's buffer, at most limit+1 bytes, and
// returns the bytes read; they are valid until the next read. It reads
// first what isBinary looks at, and no further when that is binary (an
// image is not read whole at every start to be skipped again).
func (w *discoverWorker) read(f *os.File, size, limit int64) (data []byte, binary bool, err error) {
	want := min(size+1, limit+1) // +1 to see EOF (or growth) without a second buffer
	if int64(cap(w.buf)) < want {
		w.buf = make([]byte, min(max(want, 64<<10), limit+1))
	}
	buf := w.buf[:cap(w.buf)]
	head := min(len(buf), binarySample+1) // +1: isBinary asks whether there is more
	n, checked := 0, false
	for {
		if !checked && n >= head {
			if isBinary(buf[:n]) {
				return nil, true, nil
			}
			checked = true
		}
		if n == len(buf) {
			if int64(n) > limit {
				return buf[:n], false, nil
			}
			grown := make([]byte, min(2*int64(len(buf)), limit+1))
			copy(grown, buf)
			w.buf, buf = grown, grown
		}
		end := len(buf)
		if !checked {
			end = head
		}
		m, err := f.Read(buf[n:end])
		n += m
		if err == io.EOF {
			return buf[:n], false, nil
		}
		if err != nil {
			return nil, false, err
		}
	}
}

// ClassifyContent says whether a file's content is unfit for indexing:
// SkipBinary (a NUL byte in the first 8 KiB, or more than 10% of it invalid
// UTF-8), SkipGenerated (a "// Code generated ... DO NOT EDIT." line, the Go
// convention, in the first 50 lines, or "@generated" in the first 5),
// SkipMinified (a .min.js or .min.css name; an average line over 300 bytes
// in a file over 2 KiB; a line over 5000 bytes in a .js, .mjs, .cjs, .css or
// .json file), or "" when the file should be indexed. path is only used for
// its name.
func ClassifyContent(path string, content []byte) SkipReason {
	switch {
	case isBinary(content):
		return SkipBinary
	case isGenerated(content):
		return SkipGenerated
	case isMinified(path, content):
		return SkipMinified
	}
	return ""
}

// binarySample is how much of a file isBinary looks at.
const binarySample = 8 << 10

func isBinary(content []byte) bool {
	sample := content[:min(len(content), binarySample)]
	if bytes.IndexByte(sample, 0) >= 0 {
		return true
	}
	if utf8.Valid(sample) {
		return false
	}
	invalid := 0
	for i := 0; i < len(sample); {
		r, n := utf8.DecodeRune(sample[i:])
		if r == utf8.RuneError && n == 1 {
			if !utf8.FullRune(sample[i:]) && len(content) > len(sample) {
				break // a rune cut by the sample's end
			}
			invalid++
		}
		i += n
	}
	return invalid*10 > len(sample)
}

func isGenerated(content []byte) bool {
	const (
		prefix = "// Code generated "
		suffix = " DO NOT EDIT."
	)
	rest := content
	for n := 0; n < 50 && len(rest) > 0; n++ {
		var line []byte
		line, rest, _ = bytes.Cut(rest, []byte{'\n'})
		line = bytes.TrimSuffix(line, []byte{'\r'})
		if n < 5 && bytes.Contains(line, []byte("@generated")) {
			return true
		}
		if len(line) >= len(prefix)+len(suffix) &&
			bytes.HasPrefix(line, []byte(prefix)) && bytes.HasSuffix(line, []byte(suffix)) {
			return true
		}
	}
	return false
}

func isMinified(path string, content []byte) bool {
	name := strings.ToLower(path[strings.LastIndexByte(path, '/')+1:])
	if strings.HasSuffix(name, ".min.js") || strings.HasSuffix(name, ".min.css") {
		return true
	}
	size := len(content)
	if size > 2<<10 {
		lines := bytes.Count(content, []byte{'\n'})
		if content[size-1] != '\n' {
			lines++
		}
		if size/lines > 300 {
			return true
		}
	}
	switch filepath.Ext(name) {
	case ".js", ".mjs", ".cjs", ".css", ".json":
	default:
		return false
	}
	for rest := content; len(rest) > 0; {
		i := bytes.IndexByte(rest, '\n')
		if i < 0 {
			i = len(rest)
		}
		if i > 5000 {
			return true
		}
		rest = rest[min(i+1, len(rest)):]
	}
	return false
}
