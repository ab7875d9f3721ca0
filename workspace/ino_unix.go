//go:build unix

package workspace

import (
	"os"
	"syscall"
)

// inoOf is the inode number of the file st describes, 0 if unknown.
func inoOf(st os.FileInfo) uint64 {
	if s, ok := st.Sys().(*syscall.Stat_t); ok {
		return uint64(s.Ino)
	}
	return 0
}

// readable reports whether this process may open the file at path for
// reading (access(2) with R_OK).
func readable(path string) bool { return syscall.Access(path, 4) == nil }
