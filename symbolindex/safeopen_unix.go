//go:build unix

package symbolindex

import (
	"errors"
	"os"
	"syscall"
)

// openNoFollow opens path read-only without following a final symlink
// and without blocking on a FIFO; the handle is not inherited by children.
func openNoFollow(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
}

// isLoop reports whether an open failed on a symlink refused by
// O_NOFOLLOW.
func isLoop(err error) bool { return errors.Is(err, syscall.ELOOP) }

// openDir opens a directory for listing; anything else at path (a FIFO
// above all) fails at once instead of blocking.
func openDir(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_DIRECTORY|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
}

// tryLock takes an exclusive advisory lock on f without waiting; false
// when another open file (in this process or another) holds it. The lock
// goes with the file's last close, or with its process.
func tryLock(f *os.File) (bool, error) {
	err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return false, nil
	}
	return err == nil, err
}

// pidAlive reports whether a process with id pid exists (it may be
// another program that reused the id: the lock tells them apart).
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
