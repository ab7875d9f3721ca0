// Package history reads a repository's past with the git command and
// answers two questions about it: which files changed together with these
// ones (logical coupling), and which files did past changes described in
// words like these touch. Both are independent of file contents and cheap
// to read; the select pipeline fuses them with the other sources.
//
// It reads commits only through `git log`, never a working tree or an
// index, and never fetches (GIT_NO_LAZY_FETCH).
package history

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

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
	byFile  [][]int32 // path id → its commits, newest first
	lex     *symbolindex.Lexical
	newest  int64 // commit time of the newest commit
}

type commit struct {
	hash    string
	time    int64
	subject string
	files   []int32
}

// Len is the number of commits read.
func (h *History) Len() int {
	if h == nil {
		return 0
	}
	return len(h.commits)
}

// ErrNoHistory is returned, wrapped with the reason, when a directory has
// no usable history: git missing, not a repository, no commits.
var ErrNoHistory = errors.New("no history")

func gitCmd(ctx context.Context, dir string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", dir, "-c", "core.quotePath=false"}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_NO_LAZY_FETCH=1", "GIT_TERMINAL_PROMPT=0", "LC_ALL=C", "GIT_CONFIG_NOSYSTEM=1")
	return cmd
}

func git(ctx context.Context, dir string, args ...string) (string, error) {
	var stderr bytes.Buffer
	cmd := gitCmd(ctx, dir, args...)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if errors.Is(err, exec.ErrNotFound) {
		return "", fmt.Errorf("%w: git is not installed", ErrNoHistory)
	}
	if err != nil {
		return "", fmt.Errorf("git %s: %v: %s", args[0], err, strings.TrimSpace(stderr.String()))
	}
	return strings.TrimSpace(string(out)), nil
}

// Head resolves the commit HEAD names in the repository holding dir.
func Head(ctx context.Context, dir string) (string, error) {
	if _, err := git(ctx, dir, "rev-parse", "--git-dir"); err != nil {
		if errors.Is(err, ErrNoHistory) {
			return "", err
		}
		return "", fmt.Errorf("%w: %s is not in a git repository", ErrNoHistory, dir)
	}
	head, err := git(ctx, dir, "rev-parse", "--verify", "--quiet", "HEAD^{commit}")
	if err != nil || head == "" {
		return "", fmt.Errorf("%w: the repository has no commits", ErrNoHistory)
	}
	return head, nil
}

// Load reads the non-merge commits reachable from head (HEAD when ""),
// newest first, as seen from dir: a directory in the repository (its
// paths are relative to it) or, for a bare repository, the repository.
// A shallow clone gives what it holds.
func Load(ctx context.Context, dir, head string, opts Options) (*History, error) {
	if opts.MaxCommits <= 0 {
		opts.MaxCommits = DefaultMaxCommits
	}
	if opts.MaxAge <= 0 {
		opts.MaxAge = DefaultMaxAge
	}
	if head == "" {
		var err error
		if head, err = Head(ctx, dir); err != nil {
			return nil, err
		}
	}
	prefix, _ := git(ctx, dir, "rev-parse", "--show-prefix") // "" at the top and in a bare repository
	headTime, err := git(ctx, dir, "show", "-s", "--format=%ct", head)
	if err != nil {
		return nil, err
	}
	t, _ := strconv.ParseInt(headTime, 10, 64)
	since := time.Unix(t, 0).Add(-opts.MaxAge)
	cmd := gitCmd(ctx, dir, "log", "--no-merges", "--no-renames", "--name-only", "--format=%x1e%H%x1f%ct%x1f%s%x1f%b%x1f",
		"--max-count="+strconv.Itoa(opts.MaxCommits), "--since="+since.UTC().Format("2006-01-02T15:04:05Z"), head, "--")
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNoHistory, err)
	}
	h := newHistory(head)
	perr := h.read(bufio.NewReaderSize(out, 1<<20), prefix)
	if err := cmd.Wait(); err != nil {
		return nil, fmt.Errorf("git log: %v: %s", err, strings.TrimSpace(stderr.String()))
	}
	if perr != nil {
		return nil, perr
	}
	return h, nil
}

func newHistory(head string) *History {
	return &History{Head: head, byPath: map[string]int32{}, lex: symbolindex.NewLexical(symbolindex.DefaultFileParams())}
}

// read parses git log's records: "\x1e hash \x1f time \x1f subject \x1f
// body \x1f" then the commit's files, one per line.
func (h *History) read(r *bufio.Reader, prefix string) error {
	data, err := readAll(r)
	if err != nil {
		return err
	}
	for _, rec := range bytes.Split(data, []byte{0x1e}) {
		f := bytes.SplitN(rec, []byte{0x1f}, 5)
		if len(f) < 5 {
			continue
		}
		t, _ := strconv.ParseInt(string(f[1]), 10, 64)
		c := commit{hash: string(f[0]), time: t, subject: string(f[2])}
		var files []int32
		for _, line := range strings.Split(string(f[4]), "\n") {
			p := strings.TrimSpace(line)
			if p == "" || !strings.HasPrefix(p, prefix) {
				continue
			}
			files = append(files, h.pathID(strings.TrimPrefix(p, prefix)))
		}
		if len(files) == 0 || len(files) > MaxFilesPerCommit {
			continue
		}
		c.files = files
		i := int32(len(h.commits))
		h.commits = append(h.commits, c)
		for _, p := range files {
			h.byFile[p] = append(h.byFile[p], i)
		}
		var fields [symbolindex.NumFields]string
		fields[symbolindex.FieldBody] = string(f[2]) + "\n" + string(f[3])
		if NamesVersion(string(f[2])) {
			fields[symbolindex.FieldBody] += "\n" + versionMarker
		}
		if err := h.lex.Add(uint32(i), fields); err != nil {
			return err
		}
		h.newest = max(h.newest, t)
	}
	return nil
}

func readAll(r *bufio.Reader) ([]byte, error) {
	var buf bytes.Buffer
	_, err := buf.ReadFrom(r)
	return buf.Bytes(), err
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
// its age and spread over its files. The seeds themselves are left out.
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
			w := h.decay(c, coChangeHalfLife) / math.Sqrt(float64(len(c.files)))
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

// versionRE matches a version number as release commits write it:
// v1.2, 0.71.0, 5.3.1-rc.1, not an address (192.168.0.1).
var versionRE = regexp.MustCompile(`(^|[^\w.])v?\d+\.\d+(\.\d+)?([-+][\w.]*\w)?($|[^\w.]|\.($|\s))`)

// versionMarker is the term a commit whose subject names a version is also
// indexed under: version numbers are no query terms ("0.71.0" gives only
// "71"), yet a release request is best answered by the files past
// releases touched (a version constant, a manifest).
const versionMarker = "ctxlsversionmarker"

// NamesVersion reports whether text names a version number.
func NamesVersion(text string) bool { return versionRE.MatchString(text) }

// PastChanges ranks the files that past commits described in words like
// the query's touched, best first, at most k: each matching commit votes
// for its files with its BM25 score, weighted by age and spread over its
// files. A query that names a version (release says so) also matches the
// past commits whose subjects named one.
func (h *History) PastChanges(terms []symbolindex.QueryTerm, release bool, k int) []File {
	if h == nil {
		return nil
	}
	if release {
		terms = append(slices.Clip(terms), symbolindex.QueryTerm{Term: markerTerm, Weight: 1})
	}
	if len(terms) == 0 {
		return nil
	}
	var buf symbolindex.SearchBuffer
	score := map[int32]float64{}
	best := map[int32]float64{}
	why := map[int32]int32{}
	for _, hit := range h.lex.Search(terms, pastK, nil, &buf) {
		c := &h.commits[hit.Doc]
		w := float64(hit.Score) * h.decay(c, pastHalfLife) / math.Sqrt(float64(len(c.files)))
		for _, f := range c.files {
			score[f] += w
			if w > best[f] {
				best[f], why[f] = w, int32(hit.Doc)
			}
		}
	}
	out := make([]File, 0, len(score))
	for f, sc := range score {
		c := &h.commits[why[f]]
		out = append(out, File{Path: h.paths[f], Score: sc, Why: fmt.Sprintf("like commit %.7s «%s»", c.hash, c.subject)})
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

// Unusable says why the repository holding dir cannot give a history the
// sources can trust, or "": a shallow clone holds only its last commits, and
// a partial clone would reach for missing objects over the network.
func Unusable(ctx context.Context, dir string) string {
	if out, _ := git(ctx, dir, "rev-parse", "--is-shallow-repository"); out == "true" {
		return "a shallow clone (its history is cut short; git fetch --unshallow gives it all)"
	}
	if out, _ := git(ctx, dir, "config", "--get", "extensions.partialClone"); out != "" {
		return "a partial clone (reading its history would fetch from " + out + ")"
	}
	return ""
}
