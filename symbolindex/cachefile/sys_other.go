//go:build !unix

package cachefile

import "os"

// openFlags: the system has no O_NOFOLLOW or O_NONBLOCK; Open still
// checks the path and the handle.
const openFlags = 0

const dirFlag = 0

func isNoFollow(error) bool { return false }

func openDir(path string) (*os.File, error) { return os.Open(path) }

// tryLock: without advisory locks, a lock file excludes nobody (the
// memory's in-process mutex still excludes the writers of this process;
// writers of other processes merge what they read, but two at the same
// moment may lose one note), and a temporary file is judged by its
// writer's id and its age alone.
func tryLock(*os.File) (bool, error) { return true, nil }

func unlock(*os.File) error { return nil }

// pidAlive cannot tell here: every writer counts as alive (but pid 0,
// nobody's), and only the age of a temporary file lets the sweep remove
// it.
func pidAlive(pid int) bool { return pid > 0 }
