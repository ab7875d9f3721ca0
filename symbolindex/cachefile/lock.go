package cachefile

import (
	"fmt"
	"math/rand/v2"
	"os"
	"time"
)

// Lock is a held exclusive lock on a lock file: a file that is never
// replaced (flock locks an inode, and a cache file's is replaced by every
// write).
type Lock struct{ f *os.File }

// AcquireLock takes the exclusive lock of the lock file at path, created
// if missing, waiting at most wait for another holder to let go (0: not
// at all, reporting false). The lock file is opened by Open: a symlink or
// a special file at its path is a *Refusal.
func AcquireLock(path string, wait time.Duration) (*Lock, bool, error) {
	f, _, err := Open(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, false, err
	}
	deadline := time.Now().Add(wait)
	for pause := time.Millisecond; ; pause = min(2*pause, 50*time.Millisecond) {
		ok, err := tryLock(f)
		if err != nil {
			f.Close()
			return nil, false, fmt.Errorf("lock %s: %w", path, err)
		}
		if ok {
			return &Lock{f}, true, nil
		}
		if !time.Now().Before(deadline) {
			f.Close()
			return nil, false, nil
		}
		time.Sleep(pause + time.Duration(rand.Int64N(int64(pause))))
	}
}

// Release lets the lock go.
func (l *Lock) Release() {
	unlock(l.f)
	l.f.Close()
}
