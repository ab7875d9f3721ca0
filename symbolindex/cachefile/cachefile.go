// Package cachefile owns the files ctxls keeps in its cache directory (the
// index caches, the memory notes and their lock files, the temporaries
// their writers leave) and how any file is opened, a cache file or (through
// the workspace gate, which adds its containment checks) a workspace file:
// never through a final symlink, never blocking (a FIFO at the path does
// not stall the caller), regular files only, checked before the open and
// again on the handle. Anything else at the path is a *Refusal naming the
// path and what it is.
//
// A cache file is replaced, never written in place: its writer writes a
// temporary file beside it, named after the writer's process and locked
// while it writes, and renames it over the file (a rename replaces a
// symlink or a FIFO, it never writes through one). The temporaries that
// killed writers leave are swept (temp.go). Writers that must exclude each
// other across processes share a lock file (lock.go).
package cachefile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// ErrNotRegular is what a *Refusal wraps.
var ErrNotRegular = errors.New("not a regular file")

// Refusal is a path that holds something other than a regular file (or a
// directory, for ReadDir), or that changed between the check and the open.
type Refusal struct {
	Path string
	What string // "a symlink", "a FIFO", "a directory", "a device", ...
	// Mode is the type of what was found (fs.ModeSymlink for a symlink
	// met at the open).
	Mode fs.FileMode
	// Changed is a path that passed the check but was something else at
	// the open or on the handle: it changed between the two.
	Changed bool
}

// Error names the path and what it is; the sentence spells a FIFO out as
// a named pipe.
func (e *Refusal) Error() string {
	what := e.What
	if what == "a FIFO" {
		what = "a named pipe (FIFO)"
	}
	return fmt.Sprintf("%s is %s, not a regular file; it was not opened", e.Path, what)
}

func (e *Refusal) Unwrap() error { return ErrNotRegular }

// IsDir reports whether the path is a directory: no file can be renamed
// over it.
func (e *Refusal) IsDir() bool { return e.Mode.IsDir() }

// describeMode names what a file of mode m is, for a Refusal.
func describeMode(m fs.FileMode) string {
	switch {
	case m&fs.ModeSymlink != 0:
		return "a symlink"
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m.IsRegular():
		return "a regular file"
	}
	return "a special file (" + m.Type().String() + ")"
}

// Open opens the file at path with flag (os.O_RDONLY, or os.O_RDWR |
// os.O_CREATE, ...) only when it is a regular file, or when it is missing
// and flag creates it. It checks the path first (a FIFO or a device is
// never opened), opens it without following a final symlink, without
// blocking and without leaking the handle to children, and checks the
// handle again: the file opened is the regular file checked. Anything
// else is a *Refusal. The caller closes the file.
func Open(path string, flag int, perm fs.FileMode) (*os.File, fs.FileInfo, error) {
	before, err := os.Lstat(path)
	switch {
	case err == nil:
		if !before.Mode().IsRegular() {
			return nil, nil, &Refusal{Path: path, What: describeMode(before.Mode()), Mode: before.Mode().Type()}
		}
	case errors.Is(err, fs.ErrNotExist) && flag&os.O_CREATE != 0:
		before = nil
	default:
		return nil, nil, err
	}
	f, err := os.OpenFile(path, flag|openFlags, perm)
	if err != nil {
		if isNoFollow(err) {
			return nil, nil, &Refusal{Path: path, What: "a symlink", Mode: fs.ModeSymlink, Changed: before != nil}
		}
		return nil, nil, err
	}
	after, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if !after.Mode().IsRegular() {
		f.Close()
		return nil, nil, &Refusal{Path: path, What: describeMode(after.Mode()), Mode: after.Mode().Type(), Changed: true}
	}
	if before != nil && !os.SameFile(before, after) {
		f.Close()
		return nil, nil, &Refusal{Path: path, What: "a file replaced between the check and the open", Mode: after.Mode().Type(), Changed: true}
	}
	return f, after, nil
}

// ErrTooLarge is a file over the size bound of Read.
var ErrTooLarge = errors.New("over the bound of")

// Read reads the regular file at path through Open; a file over limit
// bytes is an error wrapping ErrTooLarge. A missing file is an error
// wrapping fs.ErrNotExist.
func Read(path string, limit int64) ([]byte, fs.FileInfo, error) {
	f, st, err := Open(path, os.O_RDONLY, 0)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	if st.Size() > limit {
		return nil, st, fmt.Errorf("%s: %d bytes, %w %d", path, st.Size(), ErrTooLarge, limit)
	}
	data, over, err := ReadUpTo(f, st.Size(), limit)
	if err != nil {
		return nil, st, fmt.Errorf("%s: %w", path, err)
	}
	if over {
		return nil, st, fmt.Errorf("%s: %w %d bytes", path, ErrTooLarge, limit)
	}
	return data, st, nil
}

// ReadUpTo reads f, an open file of size bytes by its stat, to its end,
// but never more than limit bytes: over reports a file that grew past
// limit since its stat, and data is then not the whole file.
func ReadUpTo(f *os.File, size, limit int64) (data []byte, over bool, err error) {
	// Sized by the stat, as os.ReadFile does, with room to see growth.
	data = make([]byte, 0, min(size, limit)+512)
	r := io.LimitReader(f, limit+1)
	for {
		n, err := r.Read(data[len(data):cap(data)])
		data = data[:len(data)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, false, err
		}
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)]
		}
	}
	return data, int64(len(data)) > limit, nil
}

// ReadDir lists at most n entries of the directory at path (in the order
// the system gives them), opened without following a final symlink and
// without blocking: a FIFO or anything else that is not a directory is a
// *Refusal, never a hang. more reports that there were more.
func ReadDir(path string, n int) (entries []fs.DirEntry, more bool, err error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return nil, false, err
	}
	if !fi.IsDir() {
		return nil, false, &Refusal{Path: path, What: describeMode(fi.Mode()), Mode: fi.Mode().Type()}
	}
	f, err := os.OpenFile(path, os.O_RDONLY|openFlags|dirFlag, 0)
	if err != nil {
		return nil, false, err
	}
	defer f.Close()
	after, err := f.Stat()
	if err != nil {
		return nil, false, err
	}
	if !after.IsDir() || !os.SameFile(fi, after) {
		return nil, false, &Refusal{Path: path, What: "a directory replaced between the check and the open", Mode: after.Mode().Type(), Changed: true}
	}
	entries, err = f.ReadDir(n + 1)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, false, err
	}
	if len(entries) > n {
		return entries[:n], true, nil
	}
	return entries, false, nil
}
