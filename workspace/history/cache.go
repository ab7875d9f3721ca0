package history

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/gob"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"sort"
	"strconv"
	"time"

	"github.com/cespare/xxhash/v2"

	"github.com/ctxls/ctxls/symbolindex/cachefile"
)

// A history is extended rather than read again when HEAD moves forward:
// only the commits since the head it was read at are read (git log
// old..new), and the spans of the commits it had are followed through the
// new commits' hunks, as a full read would have followed them. The
// result is what Load gives at the new head, but for what the bounds
// count differently at the edges (the age bound is applied to the commits
// kept rather than by git's walk). A history that lost part of its read
// (History.Lost) is read again whole when the first object it could not
// read can be read now (a fetch, a repaired pack: an extension would keep
// the loss forever), and extended, its loss counted with the new
// commits', while that object still cannot be read (a partial clone
// stays one, a damaged pack stays damaged: reading it whole at every HEAD
// move would cost the whole read each time). Nor is
// a history read on another shallow boundary (history.go): a deepened
// clone's old boundary commits are real changes now.

// raw gives the history's commits back in the form a read gives them.
func (h *History) raw() []rawCommit {
	out := make([]rawCommit, len(h.commits))
	for i := range h.commits {
		c := &h.commits[i]
		rc := rawCommit{hash: c.hash, time: c.time, subject: c.subject, body: c.body, boundary: c.boundary}
		for _, f := range c.files {
			rc.files = append(rc.files, h.paths[f])
		}
		if c.files == nil {
			rc.files = nil
		}
		for _, sp := range c.spans {
			rc.spans = append(rc.spans, rawSpan{path: h.paths[sp.file], start: sp.start, end: sp.end})
		}
		for _, g := range c.gone {
			rc.gone = append(rc.gone, goneName{name: g.name, def: g.def, rawSpan: rawSpan{path: h.paths[g.file], start: g.start, end: g.end}})
		}
		out[i] = rc
	}
	return out
}

// Extend returns the history at head (r.Head when ""), read from r's
// directory as h was: h itself when it is at head (with its shallow file's new stamp,
// if only that changed), h extended with the commits since its head when
// its head is an ancestor of head, h is whole (Lost "") or the object its
// read first could not read still cannot be, and h was read on the shallow
// boundary head has now (none, for a whole repository), else a full
// Load; h at head but on another boundary (the clone was deepened) is
// read again too. h is not changed. The result's Read is how many
// commits were read from git.
func (h *History) Extend(ctx context.Context, r Repo, head string, opts Options) (*History, error) {
	opts = opts.resolved()
	if head == "" {
		head = r.Head
	}
	g, prefix := r.git, r.prefix
	bd, err := readBoundary(ctx, r, head)
	if err != nil {
		return nil, err
	}
	if h == nil || h.opts != opts || h.shallow != bd.digest || h.Lost() != "" && h.Head != head && h.mayBeWhole(ctx, g) {
		return load(ctx, r, head, opts, bd)
	}
	if h.Head == head && h.stamp != bd.stamp {
		c := *h // the same boundary, its shallow file changed: a new stamp
		c.stamp = bd.stamp
		return &c, nil
	}
	if h.Head == head {
		return h, nil
	}
	if prefix != h.prefix || !isAncestor(ctx, g, h.Head, head) {
		return load(ctx, r, head, opts, bd)
	}
	headTime, err := commitTime(ctx, g, head)
	if err != nil {
		return nil, err
	}
	fresh, tr, lost, err := readLog(ctx, g, prefix, bd, "--max-count="+strconv.Itoa(opts.MaxCommits), h.Head+".."+head)
	if err != nil {
		return nil, err
	}
	cs := fresh
	for _, rc := range h.raw() {
		if len(cs) >= opts.MaxCommits {
			break
		}
		spans := rc.spans[:0:0]
		for _, sp := range rc.spans {
			if f, ok := tr.follow(prefix, sp); ok {
				spans = append(spans, f)
			}
		}
		sort.SliceStable(spans, func(i, j int) bool { return spans[i].path < spans[j].path })
		rc.spans = spans
		names := rc.gone[:0:0]
		for _, g := range rc.gone {
			if f, ok := tr.follow(prefix, g.rawSpan); ok {
				names = append(names, goneName{name: g.name, def: g.def, rawSpan: f})
			}
		}
		rc.gone = names
		cs = append(cs, rc)
	}
	since := time.Unix(headTime, 0).Add(-opts.MaxAge).Unix()
	n := len(cs)
	for n > 0 && cs[n-1].time < since {
		n--
	}
	out := &History{Head: head, prefix: prefix, headTime: headTime, opts: opts, shallow: bd.digest, stamp: bd.stamp, Read: len(fresh)}
	out.lo = h.lo.merge(lost)
	if err := out.build(cs[:n]); err != nil {
		return nil, err
	}
	return out, nil
}

// mayBeWhole reports whether a history read in part (Lost) may be read
// whole now: the object its read first could not read can be read (a
// fetch, a repaired pack), or the loss named none. One git command,
// which reads the object whole: a damaged pack's object is there (git
// cat-file -e finds it) and still cannot be read. A partial clone that
// still lacks it, or a pack still damaged, is extended, not read again
// whole at every HEAD move.
func (h *History) mayBeWhole(ctx context.Context, g Git) bool {
	if h.lo.missing == "" {
		return true
	}
	cmd := g.Command(ctx, "cat-file", "-p", h.lo.missing)
	cmd.Stdout = io.Discard
	return cmd.Run() == nil
}

// isAncestor reports whether commit a is an ancestor of (or is) b.
func isAncestor(ctx context.Context, g Git, a, b string) bool {
	err := g.Command(ctx, "merge-base", "--is-ancestor", a, b).Run()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return false
	}
	return err == nil
}

// The cache file holds one history: a magic line, the history gob-encoded
// and an xxhash of the gob. It is written beside the index cache and
// replaced whole (cachefile), never written in place.

// MaxCacheBytes bounds a history cache file, read or written.
const MaxCacheBytes = 64 << 20

// v2: commits keep the names they took out of files (gone.go); a v1
// cache lacks them and is read again rather than taken as knowing none.
// v3: which of those names a removed line defined is read rightly for
// Java's typed members and Rust's pub(crate) items and paths (defines);
// a v2 cache's marks would send Gone to the files that used a name.
const cacheMagic = cacheKind + "3\n"

// cacheKind is what every version's magic starts with.
const cacheKind = "ctxls history cache v"

// ErrCacheForeign is a cache file that is not a history cache of this
// version, or not of this directory or these bounds.
var ErrCacheForeign = errors.New("not a history cache for this folder")

type cacheFile struct {
	Dir        string
	Prefix     string
	MaxCommits int
	MaxAge     int64
	Head       string
	HeadTime   int64
	Loss       cacheLoss
	Shallow    string // the shallow boundary's digest (history.go); "" for a whole repository
	Stamp      string // its shallow file's digest (boundary.stamp)
	Paths      []string
	Commits    []cacheCommit
}

// cacheLoss is History's loss (History.Lost says it): a cache of a read
// in part says so again.
type cacheLoss struct {
	NoRenames, Partial bool
	Unread, Of         int
	Cause, Missing     string
}

type cacheCommit struct {
	Hash          string
	Time          int64
	Subject, Body string
	Files         []int32  // nil: left out of the tables
	Spans         []int32  // file, start, end; ...
	Gone          []string // names taken out of files, each at the span of GoneSpans at its index
	GoneSpans     []int32  // file, start, end; ...
	GoneDefs      []bool   // whether the removed lines defined it
	Boundary      bool     // a shallow clone's boundary commit
}

// Save writes the history, read from dir, to the cache file path.
func (h *History) Save(path, dir string) error {
	cf := cacheFile{Dir: dir, Prefix: h.prefix, MaxCommits: h.opts.MaxCommits, MaxAge: int64(h.opts.MaxAge), Head: h.Head, HeadTime: h.headTime, Shallow: h.shallow, Stamp: h.stamp, Paths: h.paths,
		Loss: cacheLoss{NoRenames: h.lo.noRenames, Partial: h.lo.partial, Unread: h.lo.unread, Of: h.lo.of, Cause: h.lo.cause, Missing: h.lo.missing}}
	cf.Commits = make([]cacheCommit, len(h.commits))
	for i := range h.commits {
		c := &h.commits[i]
		cc := cacheCommit{Hash: c.hash, Time: c.time, Subject: c.subject, Body: c.body, Files: c.files, Boundary: c.boundary}
		if c.files != nil {
			cc.Spans = make([]int32, 0, 3*len(c.spans))
			for _, sp := range c.spans {
				cc.Spans = append(cc.Spans, sp.file, sp.start, sp.end)
			}
			for _, g := range c.gone {
				cc.Gone = append(cc.Gone, g.name)
				cc.GoneDefs = append(cc.GoneDefs, g.def)
				cc.GoneSpans = append(cc.GoneSpans, g.file, g.start, g.end)
			}
		}
		cf.Commits[i] = cc
	}
	var b bytes.Buffer
	b.WriteString(cacheMagic)
	if err := gob.NewEncoder(&b).Encode(&cf); err != nil {
		return err
	}
	b.Write(binary.LittleEndian.AppendUint64(nil, xxhash.Sum64(b.Bytes()[len(cacheMagic):])))
	if b.Len() > MaxCacheBytes {
		return fmt.Errorf("history cache: %d bytes, over the bound of %d; not written", b.Len(), MaxCacheBytes)
	}
	return cachefile.WriteFile(path, b.Bytes())
}

// LoadCache reads the history cache file path, written for dir with
// opts. A missing file is an error wrapping os.ErrNotExist; a file of
// another kind, folder or bounds wraps ErrCacheForeign; a damaged one
// says so.
func LoadCache(path, dir string, opts Options) (*History, error) {
	opts = opts.resolved()
	data, _, err := cachefile.Read(path, MaxCacheBytes)
	if err != nil {
		return nil, err
	}
	if !bytes.HasPrefix(data, []byte(cacheMagic)) {
		if bytes.HasPrefix(data, []byte(cacheKind)) {
			return nil, fmt.Errorf("%s: written by another version of ctxls: %w", path, ErrCacheForeign)
		}
		return nil, fmt.Errorf("%s: %w", path, ErrCacheForeign)
	}
	body := data[len(cacheMagic):]
	if len(body) < 8 || xxhash.Sum64(body[:len(body)-8]) != binary.LittleEndian.Uint64(body[len(body)-8:]) {
		return nil, fmt.Errorf("%s: history cache damaged (checksum)", path)
	}
	var cf cacheFile
	if err := gob.NewDecoder(bytes.NewReader(body[:len(body)-8])).Decode(&cf); err != nil {
		return nil, fmt.Errorf("%s: history cache damaged: %v", path, err)
	}
	if cf.Dir != dir || cf.MaxCommits != opts.MaxCommits || cf.MaxAge != int64(opts.MaxAge) {
		return nil, fmt.Errorf("%s: %w", path, ErrCacheForeign)
	}
	cs := make([]rawCommit, len(cf.Commits))
	for i, cc := range cf.Commits {
		rc := rawCommit{hash: cc.Hash, time: cc.Time, subject: cc.Subject, body: cc.Body, boundary: cc.Boundary}
		for _, f := range cc.Files {
			if f < 0 || int(f) >= len(cf.Paths) {
				return nil, fmt.Errorf("%s: history cache damaged: path %d of %d", path, f, len(cf.Paths))
			}
			rc.files = append(rc.files, cf.Paths[f])
		}
		if len(cc.Spans)%3 != 0 {
			return nil, fmt.Errorf("%s: history cache damaged: spans", path)
		}
		for j := 0; j+2 < len(cc.Spans); j += 3 {
			f := cc.Spans[j]
			if f < 0 || int(f) >= len(cf.Paths) {
				return nil, fmt.Errorf("%s: history cache damaged: path %d of %d", path, f, len(cf.Paths))
			}
			rc.spans = append(rc.spans, rawSpan{path: cf.Paths[f], start: cc.Spans[j+1], end: cc.Spans[j+2]})
		}
		if len(cc.GoneSpans) != 3*len(cc.Gone) || len(cc.GoneDefs) != len(cc.Gone) {
			return nil, fmt.Errorf("%s: history cache damaged: names", path)
		}
		for j, name := range cc.Gone {
			f := cc.GoneSpans[3*j]
			if f < 0 || int(f) >= len(cf.Paths) {
				return nil, fmt.Errorf("%s: history cache damaged: path %d of %d", path, f, len(cf.Paths))
			}
			rc.gone = append(rc.gone, goneName{name: name, def: cc.GoneDefs[j], rawSpan: rawSpan{path: cf.Paths[f], start: cc.GoneSpans[3*j+1], end: cc.GoneSpans[3*j+2]}})
		}
		cs[i] = rc
	}
	h := &History{Head: cf.Head, prefix: cf.Prefix, headTime: cf.HeadTime, opts: opts, shallow: cf.Shallow, stamp: cf.Stamp,
		lo: loss{noRenames: cf.Loss.NoRenames, partial: cf.Loss.Partial, unread: cf.Loss.Unread, of: cf.Loss.Of, cause: cf.Loss.Cause, missing: cf.Loss.Missing}}
	if err := h.build(cs); err != nil {
		return nil, err
	}
	return h, nil
}
