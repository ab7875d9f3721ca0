package symbolindex

import (
	"fmt"
	"io/fs"
	"os"
)

// A cache file is opened as the workspace gate opens a workspace file:
// without following a final symlink, without blocking (a FIFO at the
// cache's path never stalls the server), regular files only, checked
// before the open and again on the handle. Anything else at the path is a
// *CacheRefusal: the caller warns and rebuilds, and the new cache is
// renamed over the entry itself (a rename replaces a symlink or a FIFO,
// it never writes through one).

// CacheRefusal is a cache path that holds something other than a regular
// file.
type CacheRefusal struct {
	Path string
	What string // "a symlink", "a FIFO", "a directory", "a device", ...
}

func (e *CacheRefusal) Error() string {
	return fmt.Sprintf("%s is %s, not a regular file", e.Path, e.What)
}

// IsDir reports whether the path is a directory: no cache can be renamed
// over it.
func (e *CacheRefusal) IsDir() bool { return e.What == "a directory" }

// describeMode names what a file mode is, for a refusal.
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

// OpenCacheFile opens the regular file at path for reading, never
// following a symlink at path, never blocking on a FIFO and never opening
// a device: anything but a regular file is a *CacheRefusal, found before
// the open (lstat) or on the handle (fstat, and the handle must be the
// file lstat saw). The caller closes the file.
func OpenCacheFile(path string) (*os.File, fs.FileInfo, error) {
	before, err := os.Lstat(path)
	if err != nil {
		return nil, nil, err
	}
	if !before.Mode().IsRegular() {
		return nil, nil, &CacheRefusal{Path: path, What: describeMode(before.Mode())}
	}
	f, err := openNoFollow(path)
	if err != nil {
		if isLoop(err) {
			return nil, nil, &CacheRefusal{Path: path, What: "a symlink"}
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
		return nil, nil, &CacheRefusal{Path: path, What: describeMode(after.Mode())}
	}
	if !os.SameFile(before, after) {
		f.Close()
		return nil, nil, &CacheRefusal{Path: path, What: "a file replaced while it was opened"}
	}
	return f, after, nil
}
