package daemon

import (
	"fmt"
	"os"
	"syscall"
	"time"
)

// lockWait is how long a starting daemon waits for another one's lock:
// long enough for a daemon that is exiting to let go.
const lockWait = 3 * time.Second

// lockFile takes an exclusive flock on path, held until unlock: two
// daemons starting at once settle on one. When another daemon keeps the
// lock past lockWait, it is running: ErrRunning.
func lockFile(path string, running func() bool) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("daemon lock %s: %v", path, err)
	}
	deadline := time.Now().Add(lockWait)
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return func() { f.Close() }, nil
		}
		if err == syscall.EWOULDBLOCK && running() {
			f.Close()
			return nil, ErrRunning
		}
		if err != syscall.EWOULDBLOCK || time.Now().After(deadline) {
			f.Close()
			if err == syscall.EWOULDBLOCK {
				return nil, ErrRunning
			}
			return nil, fmt.Errorf("daemon lock %s: %v", path, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
