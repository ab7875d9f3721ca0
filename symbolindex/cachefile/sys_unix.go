//go:build unix

package cachefile

import (
	"errors"
	"os"
	"syscall"
)

// openFlags open without following a final symlink, without blocking on a
// FIFO and without leaking the descriptor to children.
const openFlags = syscall.O_NOFOLLOW | syscall.O_NONBLOCK | syscall.O_CLOEXEC

// dirFlag opens a directory only.
const dirFlag = syscall.O_DIRECTORY

// isNoFollow reports whether an open with O_NOFOLLOW failed because the
// path is a symlink (ELOOP; EMLINK on FreeBSD, EFTYPE on NetBSD).
func isNoFollow(err error) bool {
	return errors.Is(err, syscall.ELOOP) || errors.Is(err, syscall.EMLINK)
}

// openDir opens the directory at path for listing, following a symlink
// (the cache directory may be one, the user's choice); anything else at
// path (a FIFO above all) fails at once instead of blocking.
func openDir(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|dirFlag|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
}

// tryLock takes an exclusive advisory lock on f (flock) without waiting;
// false when another open file (in this process or another) holds it. The
// lock goes with the file's last close, or with its process.
func tryLock(f *os.File) (bool, error) {
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

// unlock releases the lock of f.
func unlock(f *os.File) error { return syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }

// pidAlive reports whether a process with id pid may still run: it
// exists, or exists under another user (it may be another program that
// reused the id: a temporary's lock tells them apart).
func pidAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	if pid == os.Getpid() {
		return true
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
