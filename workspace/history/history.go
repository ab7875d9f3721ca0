// Package history reads a repository's past with the git command and
// answers two questions about it: which files changed together with these
// ones (logical coupling), and which files did past changes described in
// words like these touch. Both are independent of file contents and cheap
// to read; the select pipeline fuses them with the other sources.
//
// It reads commits only through `git log`, never a working tree or an
// index, and never fetches (GitEnv). Objects a repository lacks (a partial
// clone's blobs, a damaged pack, a deleted object) cost only what needs
// them: see readLog and History.Lost. A shallow clone gives the commits it
// holds, its boundary counting for no change (boundary, History.Shallow).
package history

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/cespare/xxhash/v2"

	"github.com/ctxls/ctxls/heuristics"
	"github.com/ctxls/ctxls/symbolindex"
	"github.com/ctxls/ctxls/symbolindex/tokenize"
)

// Defaults bound how much history is read.
const (
	DefaultMaxCommits = 5000
	DefaultMaxAge     = 2 * 365 * 24 * time.Hour
	// MaxFilesPerCommit: a commit touching more files is a sweep (a mass
	// rename, a formatting pass, vendoring) that says nothing of which
	// files belong together; it is left out.
	MaxFilesPerCommit = 40
	// coChangeHalfLife and pastHalfLife weigh a commit by its age
	// against the newest one read: coupling drifts faster than vocabulary.
	coChangeHalfLife = 180 * 24 * time.Hour
	pastHalfLife     = 365 * 24 * time.Hour
	// seedCommits is how many of a seed file's latest commits count.
	seedCommits = 30
	// pastK is how many past commits a query's words may match.
	pastK = 30
)

// Options bound what Load reads.
type Options struct {
	MaxCommits int           // 0: DefaultMaxCommits
	MaxAge     time.Duration // 0: DefaultMaxAge; measured from the head commit
}

// History is the past of one repository up to a head commit, as seen from
// one directory in it (paths are relative to that directory; files
// outside it are left out). It is immutable once loaded.
type History struct {
	Head    string // the head commit
	commits []commit
	paths   []string
	byPath  map[string]int32
	byFile  [][]int32          // path id → its commits, newest first
	bySpan  map[int32][]int32  // path id at head → the commits with spans in it, newest first
	byGone  map[string][]int32 // a name → the commits that took it out of a file, newest first (gone.go)
	lex     *symbolindex.Lexical
	newest  int64 // commit time of the newest commit
	kept    int   // commits in the tables
	// prefix, headTime and opts are what the history was read with: an
	// extension and the cache keep to them.
	prefix   string
	headTime int64
	opts     Options
	// shallow is the digest of the shallow clone's boundary the history
	// was read on (boundary), "" for a whole repository; cut: a commit it
	// holds is on that boundary (its history is cut there).
	shallow string
	cut     bool
	stamp   string // the boundary's stamp: its shallow file's digest
	// Read is how many commits git gave the load or extension that made
	// this history (for an extension, only the new ones).
	Read int
	// lo is what the read could not give (Lost says it): an extension
	// adds its own to it, and Extend asks git whether its missing object
	// is there now.
	lo loss
}

// Lost says, in one line, what the read could not give and why, "" when
// it is whole: git could not read some objects (a partial clone's, a
// damaged pack's), so some commits have their files and message but not
// their lines (the symbol-level tables lack them), or renames were not
// followed. Such a history is kept in the cache with its loss, so a start
// at the same HEAD says it again without git; when HEAD moves it is
// extended if the first object it could not read still cannot be (one
// git cat-file -p: a damaged pack's object is there, yet unreadable),
// else read again whole, so objects fetched or repaired since are read
// then (Extend).
func (h *History) Lost() string {
	if h == nil {
		return ""
	}
	return h.lo.String()
}

type commit struct {
	hash    string
	time    int64
	subject string
	body    string // capped at maxBody
	// files are the paths the commit touched, as they were then; nil for
	// a commit left out of the tables (a sweep, or nothing in this
	// directory), which is kept so that an extension bounds the commits
	// as a full read does.
	files []int32
	// spans are the lines the commit touched, followed to the head commit
	// (hunks.go): what the symbol-level tables read.
	spans []span
	// gone are the names it took out of files, placed at the head
	// (gone.go).
	gone []gone
	// boundary: a shallow clone's boundary commit, whose parents the
	// clone lacks; git diffs it against nothing, so it has no files.
	boundary bool
}

// Len is the number of commits in the tables.
func (h *History) Len() int {
	if h == nil {
		return 0
	}
	return h.kept
}

// ErrNoHistory is returned, wrapped with the reason, when a directory has
// no usable history: git missing, not a repository, no commits.
var ErrNoHistory = errors.New("no history")

// noTransport is GIT_ALLOW_PROTOCOL's value in GitEnv: the only protocol
// git may use, a name no transport of git's and no URL's scheme can have
// (a scheme holds no "_").
const noTransport = "ctxls_never_fetches"

// GitEnv is the environment every git command ctxls runs gets (history
// and replay): it reads objects only and never fetches. A partial clone
// reaches for a missing object with a `git fetch` from its promisor
// remote; GIT_NO_LAZY_FETCH stops that in a git of the May 2024
// security releases (2.39.4, 2.45.1 and the versions between) or later,
// or one a distribution patched, and GIT_ALLOW_PROTOCOL, which git
// honours above any configuration, allows no transport at all, so on an
// older git that fetch fails before it connects to anything. Either way
// the object is missing, and the read says so.
func GitEnv() []string {
	return append(os.Environ(), "GIT_NO_LAZY_FETCH=1", "GIT_ALLOW_PROTOCOL="+noTransport, "GIT_TERMINAL_PROMPT=0", "LC_ALL=C", "GIT_CONFIG_NOSYSTEM=1")
}

// text runs git and returns its output, trimmed.
func (g Git) text(ctx context.Context, args ...string) (string, error) {
	out, err := g.Output(ctx, args...)
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}

// Repo is what one git rev-parse says of the repository holding a
// directory: the commit HEAD names, the directory's path in it (its
// prefix) and whether it is a shallow clone (and where git keeps its
// boundary, the file shallow in its git directory). Current reads it to
// tell whether a history is current, and Load and Extend do not ask git
// again what it says.
type Repo struct {
	Head        string
	git         Git    // what reads it, and the history read from it
	prefix      string // "" at the top and in a bare repository
	shallow     bool
	shallowFile string
}

// Open reads the repository holding dir: one git command.
func Open(ctx context.Context, dir string) (Repo, error) { return Git{Dir: dir}.Open(ctx) }

// Open reads the repository holding g.Dir: one git command. The
// history read from the Repo is read with g.
func (g Git) Open(ctx context.Context) (Repo, error) {
	dir := g.Dir
	// --show-prefix prints a line, empty at the top of a working tree
	// and in a bare repository.
	out, err := g.Output(ctx, "rev-parse", "--git-dir", "--is-shallow-repository", "--git-path", "shallow", "--show-prefix", "--verify", "--quiet", "HEAD^{commit}")
	if errors.Is(err, ErrNoGit) {
		return Repo{}, err
	}
	f := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	if len(f) < 3 {
		return Repo{}, fmt.Errorf("%w: %s is not in a git repository", ErrNoHistory, dir)
	}
	if err != nil || len(f) < 5 || f[4] == "" {
		return Repo{}, fmt.Errorf("%w: the repository has no commits", ErrNoHistory)
	}
	r := Repo{Head: f[4], git: g, prefix: f[3], shallow: f[1] == "true", shallowFile: f[2]}
	if !filepath.IsAbs(r.shallowFile) {
		r.shallowFile = filepath.Join(dir, r.shallowFile)
	}
	return r, nil
}

// Load reads the non-merge commits reachable from head (r.Head when ""),
// newest first, as seen from r's directory: a directory in the
// repository (its paths are relative to it) or, for a bare repository,
// the repository. A shallow clone gives what it holds: its boundary
// commits count for no change (boundary), and History.Shallow says the
// history is cut there.
func Load(ctx context.Context, r Repo, head string, opts Options) (*History, error) {
	opts = opts.resolved()
	if head == "" {
		head = r.Head
	}
	bd, err := readBoundary(ctx, r, head)
	if err != nil {
		return nil, err
	}
	return load(ctx, r, head, opts, bd)
}

func load(ctx context.Context, r Repo, head string, opts Options, bd boundary) (*History, error) {
	g, prefix := r.git, r.prefix
	headTime, err := commitTime(ctx, g, head)
	if err != nil {
		return nil, err
	}
	args := []string{"--max-count=" + strconv.Itoa(opts.MaxCommits)}
	// A window reaching before 1970 bounds nothing, and git's --since
	// reads such a date as matching no commit at all: leave it out.
	if since := time.Unix(headTime, 0).Add(-opts.MaxAge); since.Unix() > 0 {
		args = append(args, "--since="+since.UTC().Format("2006-01-02T15:04:05Z"))
	}
	cs, _, lost, err := readLog(ctx, g, prefix, bd, append(args, head)...)
	if err != nil {
		return nil, err
	}
	h := &History{Head: head, prefix: prefix, headTime: headTime, opts: opts, shallow: bd.digest, stamp: bd.stamp, Read: len(cs), lo: lost}
	if err := h.build(cs); err != nil {
		return nil, err
	}
	return h, nil
}

func (o Options) resolved() Options {
	if o.MaxCommits <= 0 {
		o.MaxCommits = DefaultMaxCommits
	}
	if o.MaxAge <= 0 {
		o.MaxAge = DefaultMaxAge
	}
	return o
}

// commitTime is commit c's time. Not `git show -s`, which still finds the
// commit's renames, and so needs blobs a partial clone may lack.
func commitTime(ctx context.Context, g Git, c string) (int64, error) {
	out, err := g.text(ctx, "log", "-1", "--format=%ct", c)
	if err != nil {
		return 0, err
	}
	t, _ := strconv.ParseInt(out, 10, 64)
	return t, nil
}

// build makes the tables of the commits read, newest first, whose paths
// are in the raw form rawCommit holds them.
func (h *History) build(cs []rawCommit) error {
	h.byPath, h.paths, h.byFile, h.bySpan, h.byGone = map[string]int32{}, nil, nil, map[int32][]int32{}, map[string][]int32{}
	h.lex = symbolindex.NewLexical(symbolindex.DefaultFileParams())
	h.commits = make([]commit, len(cs))
	h.kept, h.newest, h.cut = 0, 0, false
	for i := range cs {
		rc := &cs[i]
		c := commit{hash: rc.hash, time: rc.time, subject: rc.subject, body: rc.body, boundary: rc.boundary}
		h.cut = h.cut || rc.boundary
		if len(rc.files) > 0 && len(rc.files) <= MaxFilesPerCommit {
			for _, p := range rc.files {
				c.files = append(c.files, h.pathID(p))
			}
			for _, sp := range rc.spans {
				c.spans = append(c.spans, span{file: h.pathID(sp.path), start: sp.start, end: sp.end})
			}
			for _, g := range rc.gone {
				c.gone = append(c.gone, gone{name: g.name, def: g.def, span: span{file: h.pathID(g.path), start: g.start, end: g.end}})
			}
		}
		h.commits[i] = c
		if c.files == nil {
			continue
		}
		h.kept++
		ci := int32(i)
		for _, p := range c.files {
			h.byFile[p] = append(h.byFile[p], ci)
		}
		for j, g := range c.gone {
			if j == 0 || c.gone[j-1].name != g.name {
				addCommit(h.byGone, g.name, ci)
			}
		}
		for j, sp := range c.spans {
			if j == 0 || c.spans[j-1].file != sp.file {
				addCommit(h.bySpan, sp.file, ci)
			}
		}
		var fields [symbolindex.NumFields]string
		fields[symbolindex.FieldBody] = c.subject + "\n" + c.body
		if NamesRelease(c.subject) {
			fields[symbolindex.FieldBody] += "\n" + versionMarker
		}
		if err := h.lex.Add(uint32(i), fields); err != nil {
			return err
		}
		h.newest = max(h.newest, c.time)
	}
	return nil
}

func (h *History) pathID(p string) int32 {
	if id, ok := h.byPath[p]; ok {
		return id
	}
	id := int32(len(h.paths))
	h.paths = append(h.paths, p)
	h.byPath[p] = id
	h.byFile = append(h.byFile, nil)
	return id
}

// decay weighs a commit by its age against the newest commit read.
func (h *History) decay(c *commit, halfLife time.Duration) float64 {
	age := time.Duration(h.newest-c.time) * time.Second
	return math.Exp2(-float64(age) / float64(halfLife))
}

// File is a file the history ranks, with its score and why.
type File struct {
	Path  string
	Score float64
	Why   string
}

// CoChanged ranks the files that changed in the same commits as the seed
// files (paths relative to the history's directory), best first, at most
// k: each of a seed's last commits votes for its other files, weighted by
// its age and spread over its files (1/n of it to each: a commit of many
// files says less of each pair in it than one of two, and the files a
// broad commit touched must not outweigh one changed with the seed
// alone). The seeds themselves are left out.
func (h *History) CoChanged(seeds []string, k int) []File {
	if h == nil || len(seeds) == 0 {
		return nil
	}
	score := map[int32]float64{}
	type tally struct {
		seed     string
		together int
		of       int
	}
	why := map[int32]tally{}
	isSeed := map[int32]bool{}
	for _, s := range seeds {
		if id, ok := h.byPath[s]; ok {
			isSeed[id] = true
		}
	}
	for _, s := range seeds {
		id, ok := h.byPath[s]
		if !ok {
			continue
		}
		cs := h.byFile[id][:min(len(h.byFile[id]), seedCommits)]
		for _, ci := range cs {
			c := &h.commits[ci]
			w := h.decay(c, coChangeHalfLife) / float64(len(c.files))
			for _, f := range c.files {
				if isSeed[f] {
					continue
				}
				score[f] += w
				t := why[f]
				if t.seed == "" || t.seed == s {
					t.seed, t.of = s, len(cs)
					t.together++
				}
				why[f] = t
			}
		}
	}
	out := make([]File, 0, len(score))
	for f, sc := range score {
		t := why[f]
		out = append(out, File{Path: h.paths[f], Score: sc, Why: fmt.Sprintf("changed together with %s in %d of its last %d commits", t.seed, t.together, t.of)})
	}
	return topK(out, k)
}

// versionMarker is the term a commit whose subject names a version is also
// indexed under: version numbers are no query terms ("0.71.0" gives only
// "71"), yet a release request is best answered by the files past
// releases touched (a version constant, a manifest).
const versionMarker = "ctxlsversionmarker"

// NamesVersion reports whether text names a version number (a request's
// first line asks for a release when it does: pipeline's namesRelease).
func NamesVersion(text string) bool {
	return hasDigitDotDigit(text) && heuristics.NamedVersionRE.MatchString(text)
}

// NamesRelease reports whether a past commit's subject names a release
// of the project (heuristics.NamesRelease): "Changelog for v5.3.1", not
// "Bump cryptography from 44.0.0 to 44.0.1" or "drop support for Python
// 3.8". Only those carry the version marker.
func NamesRelease(text string) bool {
	return hasDigitDotDigit(text) && heuristics.NamesRelease(text)
}

// hasDigitDotDigit: most subjects have no digit, dot, digit, which every
// version needs; they are answered without a regular expression (2,700
// subjects read at every start took 9 ms with it).
func hasDigitDotDigit(text string) bool {
	for i := 0; i+2 < len(text); i++ {
		if heuristics.IsASCIIDigit(text[i]) && text[i+1] == '.' && heuristics.IsASCIIDigit(text[i+2]) {
			return true
		}
	}
	return false
}

// addCommit appends commit ci to m[k] unless ci ends it already: a
// commit's spans in one file, or the places it took one name out of,
// list it once.
func addCommit[K comparable](m map[K][]int32, k K, ci int32) {
	if l := m[k]; len(l) == 0 || l[len(l)-1] != ci {
		m[k] = append(l, ci)
	}
}

// PastChanges ranks the files that past commits described in words like
// the query's touched, best first, at most k: each matching commit votes
// for its files with its BM25 score, weighted by age and spread over its
// files. A query that names a version (release says so) also matches the
// past commits whose subjects named one.
func (h *History) PastChanges(terms []symbolindex.QueryTerm, release bool, k int) []File {
	terms = h.pastTerms(terms, release)
	if len(terms) == 0 {
		return nil
	}
	score, why := h.votes(terms, nil, -1)
	out := make([]File, 0, len(score))
	for f, sc := range score {
		c := &h.commits[why[f]]
		out = append(out, File{Path: h.paths[f], Score: sc, Why: fmt.Sprintf("like commit %.7s «%s»", c.hash, c.subject)})
	}
	return topK(out, k)
}

// votes sums, per file, the votes of the past commits whose messages
// match terms (those filter accepts, all when nil): each commit's BM25
// score, weighted by age and spread over its files (but skip). why is the
// commit that gave each file its largest vote.
func (h *History) votes(terms []symbolindex.QueryTerm, filter func(doc uint32) bool, skip int32) (score map[int32]float64, why map[int32]int32) {
	var buf symbolindex.SearchBuffer
	score, why = map[int32]float64{}, map[int32]int32{}
	best := map[int32]float64{}
	for _, hit := range h.lex.Search(terms, pastK, filter, &buf) {
		c := &h.commits[hit.Doc]
		// 1/√n, not co-change's 1/n: a past message's words name the
		// change as a whole, and 1/n here measured no better (EVAL.md,
		// active2).
		w := float64(hit.Score) * h.decay(c, pastHalfLife) / math.Sqrt(float64(len(c.files)))
		for _, f := range c.files {
			if f == skip {
				continue
			}
			score[f] += w
			if w > best[f] {
				best[f], why[f] = w, int32(hit.Doc)
			}
		}
	}
	return score, why
}

// CoChangedLike ranks the files that changed in the same past commits as
// seed, each commit weighed by how well its message matches the query's
// words (BM25, as PastChanges) and by its age: what changed with this file
// in changes described like this one. The seed itself is left out.
func (h *History) CoChangedLike(seed string, terms []symbolindex.QueryTerm, release bool, k int) []File {
	terms = h.pastTerms(terms, release)
	if len(terms) == 0 {
		return nil
	}
	id, ok := h.byPath[seed]
	if !ok || len(h.byFile[id]) == 0 {
		return nil
	}
	of := make(map[uint32]bool, len(h.byFile[id]))
	for _, ci := range h.byFile[id] {
		of[uint32(ci)] = true
	}
	score, why := h.votes(terms, func(doc uint32) bool { return of[doc] }, id)
	out := make([]File, 0, len(score))
	for f, sc := range score {
		c := &h.commits[why[f]]
		out = append(out, File{Path: h.paths[f], Score: sc, Why: fmt.Sprintf("changed with %s in commit %.7s «%s»", seed, c.hash, c.subject)})
	}
	return topK(out, k)
}

// markerTerm is versionMarker as the index holds it.
var markerTerm = tokenize.QueryTerms(versionMarker)[0]

func topK(files []File, k int) []File {
	sort.Slice(files, func(i, j int) bool {
		if files[i].Score != files[j].Score {
			return files[i].Score > files[j].Score
		}
		return files[i].Path < files[j].Path
	})
	return files[:min(len(files), k)]
}

// A shallow clone (git clone --depth N, most CI checkouts) holds its
// last commits and, for each line of history it cuts, a boundary commit
// whose parents it lacks. git log diffs a boundary commit against nothing,
// as if it added every file the repository then held: that is no change,
// and counted as one (even under MaxFilesPerCommit, in a small
// repository) it would make every file co-change with every other. So a
// boundary commit keeps its place among the commits (bounds count it) but
// no files, lines or message in the tables; the commits after it are
// real changes and count as in a whole repository.
//
// The boundary moves when the clone is deepened (git fetch --deepen,
// --unshallow) or a fetch cuts new lines: a commit that was a boundary
// then has its parents, and its diff is a real change. So a history
// keeps the digest of the boundary it was read on (the boundary commits
// reachable from its head), and one read on another boundary is read
// again whole, not extended, nor taken as current at the same HEAD
// (Extend, Current); the cache keeps the digest too.

// boundary is a shallow clone's boundary as seen from a head.
type boundary struct {
	commits map[string]bool // the boundary commits reachable from the head
	digest  string          // of their sorted hashes; "" when there are none
	// stamp is the digest of the shallow file the boundary was read
	// with: while it and HEAD are the same, so is the boundary (Current).
	stamp string
}

// maxShallowFile bounds the shallow file read: 41 bytes a boundary commit.
const maxShallowFile = 64 * maxBoundary

// shallowStamp is the digest of a shallow clone's shallow file, "" when
// it cannot be read. It is in the repository's git directory.
func shallowStamp(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	d := xxhash.New()
	if _, err := io.Copy(d, io.LimitReader(f, maxShallowFile)); err != nil {
		return ""
	}
	return fmt.Sprintf("%016x", d.Sum64())
}

// maxBoundary bounds the commits readBoundary inspects.
const maxBoundary = 1 << 16

// readBoundary finds the boundary of the shallow clone r below head: the
// commits reachable from head that git shows without parents (a root
// commit, or a boundary) whose objects name a parent (a boundary). A
// whole repository has none, found without git (Open said so).
func readBoundary(ctx context.Context, r Repo, head string) (boundary, error) {
	if !r.shallow {
		return boundary{}, nil
	}
	bd, err := readBoundaryCommits(ctx, r.git, head)
	bd.stamp = shallowStamp(r.shallowFile)
	return bd, err
}

// readBoundaryCommits is readBoundary's walk of a shallow clone.
func readBoundaryCommits(ctx context.Context, g Git, head string) (boundary, error) {
	roots, err := g.text(ctx, "rev-list", "--max-parents=0", head)
	if err != nil || roots == "" {
		return boundary{}, err
	}
	if strings.Count(roots, "\n") >= maxBoundary {
		return boundary{}, fmt.Errorf("a shallow clone cut in over %d places", maxBoundary)
	}
	var stderr bytes.Buffer
	args := []string{"cat-file", "--batch"}
	cmd := g.Command(ctx, args...)
	cmd.Stdin, cmd.Stderr = strings.NewReader(roots+"\n"), &stderr
	out, err := cmd.Output()
	if err != nil {
		return boundary{}, Fail(ctx, args, err, stderr.String())
	}
	b := boundary{commits: map[string]bool{}}
	for len(out) > 0 {
		hdr, rest, _ := bytes.Cut(out, []byte("\n"))
		f := strings.Fields(string(hdr))
		if len(f) != 3 { // "<hash> missing": no object, no parent it names
			out = rest
			continue
		}
		size, err := strconv.Atoi(f[2])
		if err != nil || size+1 > len(rest) {
			return boundary{}, fmt.Errorf("git cat-file: unexpected output for %s", f[0])
		}
		obj := rest[:size]
		out = rest[size+1:]
		head, _, _ := bytes.Cut(obj, []byte("\n\n")) // the commit's headers
		if f[1] == "commit" && bytes.Contains(head, []byte("\nparent ")) {
			b.commits[f[0]] = true
		}
	}
	if len(b.commits) == 0 {
		return boundary{}, nil
	}
	hs := make([]string, 0, len(b.commits))
	for c := range b.commits {
		hs = append(hs, c)
	}
	sort.Strings(hs)
	b.digest = fmt.Sprintf("%016x", xxhash.Sum64String(strings.Join(hs, "\n")))
	return b, nil
}

// Shallow says, in one line, that the history is a shallow clone's and
// how to have it all; "" when no commit it holds is on a shallow clone's
// boundary (the repository is whole, or the bounds stop before it).
func (h *History) Shallow() string {
	if h == nil || !h.cut {
		return ""
	}
	noun := "commits"
	if len(h.commits) == 1 {
		noun = "commit"
	}
	// The commits read and those kept (h.Len, the count beside it in
	// stats.history and ctxls index): a boundary, a sweep are read, not kept.
	return fmt.Sprintf("a shallow clone: the history is its %d %s read, %d kept (its boundary, whose parents it lacks, counts as no change); git fetch --unshallow gives all", len(h.commits), noun, h.kept)
}

// Partial is what the history lacks, in one line: that it is a shallow
// clone's (Shallow) and what its read lost (Lost); "" when it is whole.
// It is what stats.history.partial and the log say.
func (h *History) Partial() string {
	if h == nil {
		return ""
	}
	var parts []string
	for _, p := range []string{h.Shallow(), h.Lost()} {
		if p != "" {
			parts = append(parts, p)
		}
	}
	return strings.Join(parts, "; ")
}

// Current reports whether h is the history of the repository r as it is
// now, read with the bounds opts: read at its HEAD with those bounds, on
// the same shallow boundary (a deepened clone has more to give). It runs git only for a shallow
// clone whose shallow file changed since h was read, which is then not
// current (Extend reads its boundary again) unless git cannot read that
// boundary: that counts as unchanged (a read would fail the same way at
// every call).
func (h *History) Current(ctx context.Context, r Repo, opts Options) bool {
	if h == nil || h.Head != r.Head || h.opts != opts.resolved() {
		return false
	}
	if !r.shallow {
		return h.shallow == ""
	}
	now := shallowStamp(r.shallowFile)
	if now != "" && now == h.stamp {
		return true
	}
	// The shallow file changed (another branch fetched, the clone
	// deepened): not current, so Extend reads the boundary again and
	// gives h with the new stamp (or a new read, if it moved), unless git
	// cannot walk it. A file that cannot be read has no stamp to take:
	// the boundary itself is compared.
	bd, err := readBoundaryCommits(ctx, r.git, r.Head)
	return err != nil || now == "" && bd.digest == h.shallow
}

// Touch is a range of lines of a file at the head (1-based, inclusive)
// that a past commit touched, with the weight of that commit's evidence.
// The workspace maps it to the symbols holding those lines.
type Touch struct {
	Path       string
	Start, End int
	Weight     float64
	Commit     int32 // for Why
}

// Why names a touch's commit: "7-hex «subject»".
func (h *History) Why(t Touch) string {
	c := &h.commits[t.Commit]
	return fmt.Sprintf("%.7s «%s»", c.hash, c.subject)
}

// touches appends the spans of commit ci, weighted w, leaving out the
// file skip (-1: none).
func (h *History) touches(out []Touch, ci int32, w float64, skip int32) []Touch {
	for _, sp := range h.commits[ci].spans {
		if sp.file != skip {
			out = append(out, Touch{Path: h.paths[sp.file], Start: int(sp.start), End: int(sp.end), Weight: w, Commit: ci})
		}
	}
	return out
}

// pastTerms are the terms past messages are searched for: the query's,
// and the version marker when the query names a release; none without a
// history.
func (h *History) pastTerms(terms []symbolindex.QueryTerm, release bool) []symbolindex.QueryTerm {
	if h == nil {
		return nil
	}
	if release {
		terms = append(slices.Clip(terms), symbolindex.QueryTerm{Term: markerTerm, Weight: 1})
	}
	return terms
}

// PastTouches are the lines that past commits described in words like
// the query's touched: each of the best-matching commits (PastChanges')
// gives its spans its BM25 score, weighted by age.
func (h *History) PastTouches(terms []symbolindex.QueryTerm, release bool) []Touch {
	terms = h.pastTerms(terms, release)
	if len(terms) == 0 {
		return nil
	}
	var buf symbolindex.SearchBuffer
	var out []Touch
	for _, hit := range h.lex.Search(terms, pastK, nil, &buf) {
		c := &h.commits[hit.Doc]
		out = h.touches(out, int32(hit.Doc), float64(hit.Score)*h.decay(c, pastHalfLife), -1)
	}
	return out
}

// CoTouches are the lines, in other files, of the last commits that
// touched lines start..end of path (at the head, 1-based): what changed
// with those lines. Each commit's weight is its age's, spread over its
// files.
func (h *History) CoTouches(path string, start, end int) []Touch {
	if h == nil {
		return nil
	}
	id, ok := h.byPath[path]
	if !ok {
		return nil
	}
	var out []Touch
	n := 0
	for _, ci := range h.bySpan[id] {
		c := &h.commits[ci]
		hit := false
		for _, sp := range c.spans {
			if sp.file == id && int(sp.start) <= end && start <= int(sp.end) {
				hit = true
				break
			}
		}
		if !hit {
			continue
		}
		// 1/√n, not file co-change's 1/n: left as measured before
		// (EVAL.md, active2, tried on files only).
		out = h.touches(out, ci, h.decay(c, coChangeHalfLife)/math.Sqrt(float64(len(c.files))), id)
		if n++; n == seedCommits {
			break
		}
	}
	return out
}
