//go:build unix

package workspace

import (
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// inoOf is the inode number of the file st describes, 0 if unknown.
func inoOf(st os.FileInfo) uint64 {
	if s, ok := st.Sys().(*syscall.Stat_t); ok {
		return uint64(s.Ino)
	}
	return 0
}

// uid is the real user id, the one access(2) checks.
var uid = uint32(os.Getuid())

// lstatAt describes the entry name of the directory open as dirfd without
// following a final symlink (fstatat(2) through the directory's handle:
// no path to resolve again), into st; false when it cannot.
func lstatAt(dirfd int, name string, st *fileStat) bool {
	var s unix.Stat_t
	if unix.Fstatat(dirfd, name, &s, unix.AT_SYMLINK_NOFOLLOW) != nil {
		return false
	}
	sec, nsec := s.Mtim.Unix()
	*st = fileStat{
		regular: uint32(s.Mode)&unix.S_IFMT == unix.S_IFREG,
		size:    s.Size,
		modTime: sec*1e9 + nsec,
		ino:     uint64(s.Ino),
		// The owner's read bit is what access(2) checks for the owner
		// (an ACL's owner entry is these bits): no call is needed.
		ownerReads: s.Uid == uid && s.Mode&0o400 != 0,
	}
	return true
}

// readableAt reports whether this process may open the entry name of the
// directory open as dirfd, which lstatAt described as st, for reading: its
// owner when the owner may read, else as faccessat(2) says.
func readableAt(dirfd int, name string, st *fileStat) bool {
	return st.ownerReads || unix.Faccessat(dirfd, name, unix.R_OK, 0) == nil
}
