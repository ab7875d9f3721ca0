//go:build !unix

package symbolindex

import "os"

// openNoFollow opens path read-only; OpenCacheFile has checked with lstat
// that it is a regular file and checks the handle again.
func openNoFollow(path string) (*os.File, error) { return os.Open(path) }

func isLoop(error) bool { return false }

func openDir(path string) (*os.File, error) { return os.Open(path) }

// tryLock: without advisory locks, a temporary file is judged by its
// writer's id and its age alone.
func tryLock(*os.File) (bool, error) { return true, nil }

// pidAlive cannot tell here: every writer counts as alive, and only the
// age of a temporary file lets the sweep remove it.
func pidAlive(int) bool { return true }
