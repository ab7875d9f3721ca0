package workspace

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// Files of the cache directory that are not the index (the memory file and
// its lock) are opened as the gate opens workspace files (gate.go): never
// through a final symlink, never blocking (a FIFO at the path does not
// stall the caller), regular files only, checked on the open handle. What
// is at the path otherwise is an *UnsafeFileError naming the path and what
// it is.

// ErrNotRegularFile is what an UnsafeFileError wraps.
var ErrNotRegularFile = errors.New("not a regular file")

// UnsafeFileError is a path that is not a regular file, or that changed
// between the check and the open.
type UnsafeFileError struct {
	Path string
	What string // "a symlink", "a named pipe (FIFO)", ...
}

func (e *UnsafeFileError) Error() string {
	return fmt.Sprintf("%s is %s, not a regular file; it was not opened", e.Path, e.What)
}

func (e *UnsafeFileError) Unwrap() error { return ErrNotRegularFile }

// describeMode says what a file of mode m is, for an UnsafeFileError.
func describeMode(m fs.FileMode) string {
	switch {
	case m&fs.ModeSymlink != 0:
		return "a symlink"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m.IsDir():
		return "a directory"
	case m.IsRegular():
		return "a regular file"
	}
	return "a special file (mode " + m.Type().String() + ")"
}

// openSafe opens the file at path with flag (os.O_RDONLY, or os.O_RDWR |
// os.O_CREATE, ...) only when it is a regular file, or when it is missing
// and flag creates it. It checks the path first (a FIFO or a device is
// never opened), opens it without following a final symlink and without
// blocking, and checks the handle again: the file opened is the regular
// file checked. The caller closes the file.
func openSafe(path string, flag int, perm fs.FileMode) (*os.File, fs.FileInfo, error) {
	before, err := os.Lstat(path)
	switch {
	case err == nil:
		if !before.Mode().IsRegular() {
			return nil, nil, &UnsafeFileError{Path: path, What: describeMode(before.Mode())}
		}
	case errors.Is(err, fs.ErrNotExist) && flag&os.O_CREATE != 0:
		before = nil
	default:
		return nil, nil, err
	}
	f, err := os.OpenFile(path, flag|safeOpenFlags, perm)
	if err != nil {
		if isNoFollowError(err) {
			return nil, nil, &UnsafeFileError{Path: path, What: "a symlink"}
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
		return nil, nil, &UnsafeFileError{Path: path, What: describeMode(after.Mode())}
	}
	if before != nil && !os.SameFile(before, after) {
		f.Close()
		return nil, nil, &UnsafeFileError{Path: path, What: "a file replaced between the check and the open"}
	}
	return f, after, nil
}

// readSafe reads the regular file at path through openSafe; a file over
// limit bytes is an error wrapping errTooLarge. A missing file is an error
// wrapping fs.ErrNotExist.
func readSafe(path string, limit int64) ([]byte, fs.FileInfo, error) {
	f, st, err := openSafe(path, os.O_RDONLY, 0)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	if st.Size() > limit {
		return nil, st, fmt.Errorf("%s: %d bytes, %w %d", path, st.Size(), errFileTooLarge, limit)
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, st, fmt.Errorf("%s: %w", path, err)
	}
	if int64(len(data)) > limit {
		return nil, st, fmt.Errorf("%s: %w %d bytes", path, errFileTooLarge, limit)
	}
	return data, st, nil
}

// errFileTooLarge is a cache file over its size bound.
var errFileTooLarge = errors.New("over the bound of")

// readDirSafe lists at most n entries of the directory at path (in the
// order the system gives them), opened without following a final symlink
// and without blocking: a FIFO or anything else that is not a directory is
// an error, never a hang. more reports that there were more.
func readDirSafe(path string, n int) (entries []fs.DirEntry, more bool, err error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return nil, false, err
	}
	if !fi.IsDir() {
		return nil, false, &UnsafeFileError{Path: path, What: describeMode(fi.Mode())}
	}
	f, err := os.OpenFile(path, os.O_RDONLY|safeOpenFlags|safeDirFlag, 0)
	if err != nil {
		return nil, false, err
	}
	defer f.Close()
	if after, err := f.Stat(); err != nil || !after.IsDir() || !os.SameFile(fi, after) {
		return nil, false, &UnsafeFileError{Path: path, What: "a directory replaced between the check and the open"}
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
