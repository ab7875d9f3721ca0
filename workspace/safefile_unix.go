//go:build unix

package workspace

import (
	"errors"
	"os"
	"syscall"
)

// safeOpenFlags open without following a final symlink, without blocking
// and without leaking the descriptor to children.
const safeOpenFlags = syscall.O_NOFOLLOW | syscall.O_NONBLOCK | syscall.O_CLOEXEC

// safeDirFlag opens a directory only.
const safeDirFlag = syscall.O_DIRECTORY

// isNoFollowError reports whether an open with O_NOFOLLOW failed because
// the path is a symlink (ELOOP; EMLINK on FreeBSD, EFTYPE on NetBSD).
func isNoFollowError(err error) bool {
	return errors.Is(err, syscall.ELOOP) || errors.Is(err, syscall.EMLINK)
}

// crossProcessLock is true where lockFile excludes other processes.
const crossProcessLock = true

// lockFile takes an exclusive advisory lock on f (flock), or reports
// false at once when another holder has it.
func tryLockFile(f *os.File) (bool, error) {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		switch {
		case err == nil:
			return true, nil
		case errors.Is(err, syscall.EWOULDBLOCK):
			return false, nil
		case errors.Is(err, syscall.EINTR):
			continue
		}
		return false, err
	}
}

// unlockFile releases the lock of f.
func unlockFile(f *os.File) error { return syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }

// pidAlive reports whether a process of that id may still run: it exists,
// or exists under another user.
func pidAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
