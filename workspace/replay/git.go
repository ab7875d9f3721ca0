package replay

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"

	"github.com/ctxls/ctxls/workspace/history"
)

// repo runs git on one repository, reading objects only: it never touches
// a working tree or an index, and never fetches (history.Git runs every
// git command as history does: history.GitEnv keeps a partial clone from
// reaching for missing objects, on every git version).
type repo struct {
	g    history.Git
	hist history.Repo // what the history sources are read from

	batch *catFile // git cat-file --batch, started on first use
	check *catFile // git cat-file --batch-check, started on first use
}

// git runs a git command and returns its standard output.
func (r *repo) git(ctx context.Context, args ...string) ([]byte, error) {
	out, err := r.g.Output(ctx, args...)
	return out, noGit(err)
}

// errNoGit is replay's word for history.ErrNoGit.
var errNoGit = errors.New("git is not installed (ctxls replay reads history with the git command)")

// noGit is err, or errNoGit in place of history.ErrNoGit.
func noGit(err error) error {
	if errors.Is(err, history.ErrNoGit) {
		return errNoGit
	}
	return err
}

// openRepo checks that dir is a git repository (a working tree or a bare
// one) with a HEAD.
func openRepo(ctx context.Context, dir string) (*repo, error) {
	r := &repo{g: history.Git{Dir: dir}}
	var err error
	if r.hist, err = r.g.Open(ctx); err != nil {
		if errors.Is(err, history.ErrNoGit) {
			return nil, errNoGit
		}
		if _, err2 := r.git(ctx, "rev-parse", "--git-dir"); err2 != nil {
			return nil, fmt.Errorf("%s is not a git repository", dir)
		}
		return nil, fmt.Errorf("%s: the repository has no commits", dir)
	}
	return r, nil
}

// commits lists the last n non-merge commits of HEAD (after since, when
// set), oldest first.
func (r *repo) commits(ctx context.Context, n int, since string) ([]string, error) {
	args := []string{"rev-list", "--no-merges", "--max-count=" + strconv.Itoa(n)}
	if since != "" {
		args = append(args, "--since="+since)
	}
	out, err := r.git(ctx, append(args, "HEAD")...)
	if err != nil {
		return nil, err
	}
	list := strings.Fields(string(out))
	for i, j := 0, len(list)-1; i < j; i, j = i+1, j-1 {
		list[i], list[j] = list[j], list[i]
	}
	return list, nil
}

// commitInfo is a commit's first parent (none for a root commit or a
// shallow clone's boundary) and its message.
func (r *repo) commitInfo(ctx context.Context, c string) (parent, message string, err error) {
	// Not `git show -s`, which still finds the commit's renames, and so
	// needs blobs a partial clone may lack.
	out, err := r.git(ctx, "log", "-1", "--format=%P%x00%B", c)
	if err != nil {
		return "", "", err
	}
	parents, msg, _ := strings.Cut(string(out), "\x00")
	if f := strings.Fields(parents); len(f) > 0 {
		parent = f[0]
		if _, err := r.git(ctx, "cat-file", "-e", parent+"^{commit}"); err != nil {
			parent = "" // a shallow clone's boundary: the parent is not here
		}
	}
	return parent, msg, nil
}

// change is one entry of `git diff --raw`: a path whose blob changed from
// one tree to the other.
type change struct {
	status           byte // A, M, D, T
	oldMode, newMode string
	oldBlob, newBlob string
	path             string
}

// diff lists the changes from tree a to tree b ("" for the empty tree),
// renames off.
func (r *repo) diff(ctx context.Context, a, b string) ([]change, error) {
	var out []byte
	var err error
	if a == "" {
		out, err = r.git(ctx, "ls-tree", "-r", "-z", b)
		if err != nil {
			return nil, err
		}
		return parseLsTree(out), nil
	}
	out, err = r.git(ctx, "diff", "--raw", "-z", "--no-renames", "--no-abbrev", a, b)
	if err != nil {
		return nil, err
	}
	return parseRaw(out)
}

// parseLsTree reads `git ls-tree -r -z` as additions.
func parseLsTree(out []byte) []change {
	var cs []change
	for _, rec := range bytes.Split(out, []byte{0}) {
		meta, path, ok := bytes.Cut(rec, []byte{'\t'})
		if !ok {
			continue
		}
		f := strings.Fields(string(meta)) // mode type object
		if len(f) != 3 {
			continue
		}
		cs = append(cs, change{status: 'A', newMode: f[0], newBlob: f[2], path: string(path)})
	}
	return cs
}

// parseRaw reads `git diff --raw -z`: ":old new oldsha newsha S\0path\0".
func parseRaw(out []byte) ([]change, error) {
	var cs []change
	fields := bytes.Split(out, []byte{0})
	for i := 0; i+1 < len(fields); i += 2 {
		meta := strings.Fields(strings.TrimPrefix(string(fields[i]), ":"))
		if len(meta) != 5 || meta[4] == "" {
			return nil, fmt.Errorf("git diff --raw: unexpected record %q", fields[i])
		}
		cs = append(cs, change{status: meta[4][0], oldMode: meta[0], newMode: meta[1], oldBlob: meta[2], newBlob: meta[3], path: string(fields[i+1])})
	}
	return cs, nil
}

// regular reports whether a tree entry's mode is a regular file (not a
// symlink, a submodule or a directory).
func regular(mode string) bool { return mode == "100644" || mode == "100755" }

// catFile is a long-lived `git cat-file --batch` or `--batch-check`.
type catFile struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
}

// startCatFile starts `git cat-file mode` on the repository.
func (r *repo) startCatFile(mode string) (*catFile, error) {
	args := []string{"cat-file", mode}
	cmd := r.g.Command(context.Background(), args...)
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, noGit(history.Fail(context.Background(), args, err, ""))
	}
	return &catFile{cmd: cmd, in: in, out: bufio.NewReaderSize(out, 1<<20)}, nil
}

// ask sends one object name and reads the header git answers with: its
// type and size.
func (c *catFile) ask(sha string) (kind string, size int64, err error) {
	if _, err := io.WriteString(c.in, sha+"\n"); err != nil {
		return "", 0, fmt.Errorf("git cat-file: %w", err)
	}
	header, err := c.out.ReadString('\n')
	if err != nil {
		return "", 0, fmt.Errorf("git cat-file: %w", err)
	}
	f := strings.Fields(header) // sha type size, or "sha missing"
	if len(f) != 3 {
		return "", 0, fmt.Errorf("git cat-file %s: %s", sha, strings.TrimSpace(header))
	}
	size, err = strconv.ParseInt(f[2], 10, 64)
	if err != nil || size < 0 {
		return "", 0, fmt.Errorf("git cat-file %s: %q", sha, header)
	}
	return f[1], size, nil
}

func (c *catFile) close() {
	if c != nil {
		c.in.Close()
		c.cmd.Wait()
	}
}

// size is the size of a blob, read without its content
// (`git cat-file --batch-check`).
func (r *repo) size(sha string) (int64, error) {
	if r.check == nil {
		c, err := r.startCatFile("--batch-check")
		if err != nil {
			return 0, err
		}
		r.check = c
	}
	_, n, err := r.check.ask(sha)
	return n, err
}

// blob reads one blob through a long-lived `git cat-file --batch`. A blob
// over limit bytes is not read into memory: it is skipped in the stream
// and errBlobTooLarge returned.
func (r *repo) blob(sha string, limit int64) ([]byte, error) {
	if r.batch == nil {
		c, err := r.startCatFile("--batch")
		if err != nil {
			return nil, err
		}
		r.batch = c
	}
	_, size, err := r.batch.ask(sha)
	if err != nil {
		return nil, err
	}
	if size > limit {
		if _, err := r.batch.out.Discard(int(size) + 1); err != nil {
			return nil, fmt.Errorf("git cat-file %s: %w", sha, err)
		}
		return nil, fmt.Errorf("%w: %s has %d bytes", errBlobTooLarge, sha, size)
	}
	data := make([]byte, size+1) // the content and its newline
	if _, err := io.ReadFull(r.batch.out, data); err != nil {
		return nil, fmt.Errorf("git cat-file %s: %w", sha, err)
	}
	return data[:size], nil
}

// errBlobTooLarge is a blob over the size limit, which is never read.
var errBlobTooLarge = errors.New("blob over maxFileBytes")

// close ends the cat-file processes.
func (r *repo) close() {
	r.batch.close()
	r.check.close()
	r.batch, r.check = nil, nil
}

// Hunk is a range of old-side lines (1-based, inclusive) a commit changed.
// Where says where it lies in its file at the parent: "symbol" (it overlaps
// a symbol's lines), "head" (before the first symbol: imports, package
// clause), "between" (between two symbols) or "tail" (after the last);
// Gap is then the outside lines around it (1-based, inclusive) and GapChars
// their characters. Symbol and SymLines name the smallest symbol it
// overlaps and that symbol's lines (1-based, inclusive). For reading where
// the missed lines are.
type Hunk struct {
	Start, End int
	Where      string `json:",omitempty"`
	Gap        [2]int `json:",omitzero"`
	GapChars   int    `json:",omitempty"`
	Symbol     string `json:",omitempty"`
	SymLines   [2]int `json:",omitzero"`
}

// hunks lists, per path, the old-side line ranges that commit c changed
// against its parent p (`git diff -U0`); a pure insertion counts as the
// line it follows (line 1 at the top of a file).
func (r *repo) hunks(ctx context.Context, p, c string, paths []string) (map[string][]Hunk, error) {
	out, err := r.git(ctx, append([]string{"diff", "-U0", "--no-renames", "--no-color", "--no-ext-diff", p, c, "--"}, paths...)...)
	if err != nil {
		return nil, err
	}
	res := map[string][]Hunk{}
	var cur string
	for _, line := range strings.Split(string(out), "\n") {
		switch {
		case strings.HasPrefix(line, "--- "):
			cur = strings.TrimPrefix(strings.TrimPrefix(line, "--- "), "a/")
		case strings.HasPrefix(line, "@@ -"):
			spec, _, _ := strings.Cut(strings.TrimPrefix(line, "@@ -"), " ")
			startS, countS, hasCount := strings.Cut(spec, ",")
			start, err1 := strconv.Atoi(startS)
			count := 1
			var err2 error
			if hasCount {
				count, err2 = strconv.Atoi(countS)
			}
			if err1 != nil || err2 != nil {
				return nil, fmt.Errorf("git diff: unexpected hunk header %q", line)
			}
			h := Hunk{Start: start, End: start + count - 1}
			if count == 0 { // an insertion after line start
				h = Hunk{Start: max(start, 1), End: max(start, 1)}
			}
			res[cur] = append(res[cur], h)
		}
	}
	return res, nil
}
