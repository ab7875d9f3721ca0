//go:build !unix

package workspace

import "os"

// safeOpenFlags: the system has no O_NOFOLLOW or O_NONBLOCK; openSafe
// still checks the path and the handle.
const safeOpenFlags = 0

const safeDirFlag = 0

func isNoFollowError(error) bool { return false }

// crossProcessLock is false: without flock the lock excludes the writers
// of this process only (the memory's in-process mutex); writers of other
// processes still merge what they read, but two at the same moment may
// lose one note.
const crossProcessLock = false

func tryLockFile(*os.File) (bool, error) { return true, nil }

func unlockFile(*os.File) error { return nil }

// pidAlive cannot tell: every process may run, so a temp file is swept by
// its age alone.
func pidAlive(int) bool { return true }
