package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"syscall"

	"github.com/ctxls/ctxls/symbolindex/cachefile"
	"github.com/ctxls/ctxls/workspace/snapshot"
)

// The gate is the one way a path enters the index or a result. A workspace
// is untrusted input: a cloned repository can ship any symlink, and a
// client can send any URI. Every path from discovery, watched-file events,
// document notifications, pinned references and the active document is
// resolved here to its real path, and every file is read here:
//
//   - symlinks are resolved on the whole path (every directory up to the
//     root), and a real path that leaves the workspace folder is refused;
//   - a symlink loop is refused;
//   - only regular files are opened, without following a final symlink and
//     without blocking (a FIFO never stalls the server), and the open file
//     is checked again (fstat, and on Linux the path the kernel opened) so
//     that a file swapped between the check and the read is refused too.
//
// A symlink that stays inside is not read through: its target is indexed
// once, under its real path.

// Reasons the gate refuses a path. They are skip reasons too, so that
// `ctxls index` and the statistics count them with the others.
const (
	// SkipSymlinkInside is a symlink whose target is inside the root: the
	// target is indexed under its own path, the link is not followed.
	SkipSymlinkInside SkipReason = "symlink inside root"
	// SkipChanged is a file that changed type or identity between the
	// check and the read.
	SkipChanged SkipReason = "changed while read"
)

// Refusal is a path the gate turned away, with the reason.
type Refusal struct {
	Path   string // the path as it was given
	Reason SkipReason
	Detail string // what the path resolved to, or the mode it has
}

func (r *Refusal) Error() string {
	if r.Detail == "" {
		return fmt.Sprintf("%s: refused: %s", r.Path, r.Reason)
	}
	return fmt.Sprintf("%s: refused: %s (%s)", r.Path, r.Reason, r.Detail)
}

// IsRefusal reports whether reason is one the gate counts as a refusal: a
// path that tried to lead out of the workspace or to something that is not
// a file.
func IsRefusal(reason SkipReason) bool {
	switch reason {
	case SkipSymlinkOutsideRoot, SkipSymlinkLoop, SkipNotRegular, SkipChanged:
		return true
	}
	return false
}

// realPath resolves every symlink in the absolute path abs. A path that
// does not exist (a deleted file, a buffer not yet saved) keeps its missing
// tail under the real path of its deepest existing ancestor. A symlink
// loop is a Refusal.
func realPath(abs string) (string, error) {
	real, err := filepath.EvalSymlinks(abs)
	if err == nil {
		return real, nil
	}
	// EvalSymlinks gives up on a cycle with an error of its own; the
	// kernel names it.
	if _, serr := os.Stat(abs); errors.Is(serr, syscall.ELOOP) {
		return "", &Refusal{Path: abs, Reason: SkipSymlinkLoop}
	}
	if !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR) {
		return "", err
	}
	parent := filepath.Dir(abs)
	if parent == abs {
		return abs, nil
	}
	dir, err := realPath(parent)
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, filepath.Base(abs)), nil
}

// openRegular opens the regular file at real, a symlink-free path inside
// root (itself a real path), for reading. It never follows a final
// symlink, never blocks on a FIFO and never opens a device; after opening
// it checks that the handle is the file it checked, and (on Linux) that
// the kernel's path of the handle is still inside root, so that a path
// swapped for a symlink or a special file between the check and the open
// is refused, not read. The caller closes the file.
func openRegular(root, real string) (*os.File, fs.FileInfo, error) {
	if !snapshot.Within(root, real) {
		return nil, nil, &Refusal{Path: real, Reason: SkipSymlinkOutsideRoot, Detail: "outside " + root}
	}
	f, after, err := cachefile.Open(real, os.O_RDONLY, 0)
	if err != nil {
		return nil, nil, gateRefusal(real, err)
	}
	opened, ok := openedPath(f)
	if !ok { // no kernel name for the handle: resolve the name again
		opened, err = filepath.EvalSymlinks(real)
		if err != nil {
			f.Close()
			return nil, nil, err
		}
	}
	if !snapshot.Within(root, opened) {
		f.Close()
		return nil, nil, &Refusal{Path: real, Reason: SkipSymlinkOutsideRoot, Detail: "resolves to " + opened}
	}
	return f, after, nil
}

// gateRefusal is the gate's reading of an error of cachefile.Open on the
// real path real: a symlink at a path resolved as symlink-free, or a file
// that changed between the check and the open, changed; a directory is
// not a refusal (EISDIR); anything else that is not a regular file is.
func gateRefusal(real string, err error) error {
	r, ok := errors.AsType[*cachefile.Refusal](err)
	switch {
	case !ok:
		return err
	case r.Mode&fs.ModeSymlink != 0:
		return &Refusal{Path: real, Reason: SkipChanged, Detail: "became a symlink"}
	case r.Changed:
		return &Refusal{Path: real, Reason: SkipChanged, Detail: "replaced between check and open"}
	case r.IsDir():
		return &fs.PathError{Op: "open", Path: real, Err: syscall.EISDIR}
	}
	return &Refusal{Path: real, Reason: SkipNotRegular, Detail: "file mode " + r.Mode.String()}
}

// openedPath is the kernel's name for the file f has open, where the
// system tells it (Linux's /proc/self/fd).
func openedPath(f *os.File) (string, bool) {
	if runtime.GOOS != "linux" {
		return "", false
	}
	p, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(int(f.Fd())))
	if err != nil || !filepath.IsAbs(p) {
		return "", false
	}
	return p, true
}

// errTooLarge is a file over the size limit.
var errTooLarge = errors.New("over maxFileBytes")

// readRegular reads the regular file at real inside root through
// openRegular; a file over limit bytes is an error wrapping errTooLarge.
func readRegular(root, real string, limit int64) ([]byte, fs.FileInfo, error) {
	f, st, err := openRegular(root, real)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	if st.Size() > limit {
		return nil, st, fmt.Errorf("%s: %d bytes, %w %d", real, st.Size(), errTooLarge, limit)
	}
	data, over, err := cachefile.ReadUpTo(f, st.Size(), limit)
	if err != nil {
		return nil, st, fmt.Errorf("%s: %w", real, err)
	}
	if over { // it grew since the check
		return nil, st, fmt.Errorf("%s: %w %d", real, errTooLarge, limit)
	}
	return data, st, nil
}

// skipFor is the Skip for a file the gate could not read: a refusal with
// its reason, anything else as unreadable.
func skipFor(rel string, err error) *Skip {
	if r, ok := errors.AsType[*Refusal](err); ok {
		return &Skip{Path: rel, Reason: r.Reason, Err: errors.New(r.Detail)}
	}
	if errors.Is(err, errTooLarge) {
		return &Skip{Path: rel, Reason: SkipTooLarge, Err: err}
	}
	return &Skip{Path: rel, Reason: SkipUnreadable, Err: err}
}

// SkipReason says why Discover left a file or directory out. Files that
// .gitignore, the default excludes or the exclude globs leave out are not
// reported at all.
type SkipReason string

// Reasons a file or directory is skipped.
const (
	SkipTooLarge           SkipReason = "too large"
	SkipBinary             SkipReason = "binary"
	SkipGenerated          SkipReason = "generated"
	SkipMinified           SkipReason = "minified"
	SkipUnreadable         SkipReason = "unreadable"
	SkipSymlinkOutsideRoot SkipReason = "symlink outside root"
	SkipSymlinkLoop        SkipReason = "symlink loop"
	SkipNotRegular         SkipReason = "not regular"
	// SkipUnsupported is a file of a type ctxls does not index (lock
	// files, go.sum and the like); the indexer reports it, not Discover.
	SkipUnsupported SkipReason = "unsupported type"
)
