package symbolindex

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"time"
)

// A cache file is written to a temporary file beside it and renamed into
// place. The temporary file is named <name>.tmp.<pid>.<random>, after the
// process writing it, and that process holds an advisory lock on it while
// it writes; a writer killed mid-write (kill -9, a crash, the machine going
// down) leaves it behind, and SweepTemps removes it at the next start.

// StaleTempAge is how old a temporary file must be before the sweep
// removes it without knowing its writer is dead: one named in the old
// style (no pid), or one whose pid is alive again (reused) but whose lock
// is free.
const StaleTempAge = 10 * time.Minute

var (
	// tempName is a temporary file of a cache file (<16 hex>.<ext>) named
	// with its writer's pid.
	tempName = regexp.MustCompile(`^[0-9a-f]{16}\..+\.tmp\.([0-9]+)\.[0-9]+$`)
	// oldTempName is the temporary index file of versions that did not
	// name the writer.
	oldTempName = regexp.MustCompile(`^[0-9a-f]{16}\.idx\.tmp[0-9]+$`)
)

// CreateCacheTemp creates the temporary file that will be renamed over
// path (in path's directory, created if needed) and locks it for the
// lifetime of the handle. The caller removes it if it does not rename it.
func CreateCacheTemp(path string) (*os.File, error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	f, err := os.CreateTemp(dir, filepath.Base(path)+".tmp."+strconv.Itoa(os.Getpid())+".*")
	if err != nil {
		return nil, err
	}
	// Nobody else holds a name just made: a lock not taken is a file
	// system without locks, where the pid in the name alone tells a sweep
	// that the writer lives.
	_, _ = tryLock(f)
	return f, nil
}

// Swept is one temporary file SweepTemps removed.
type Swept struct {
	Path   string
	Bytes  int64
	Reason string
}

// SweepTemps removes, from the cache directory dir, the temporary files of
// writers that are gone: a file named with a pid that is not alive and
// that no process holds locked, or locked by nobody and older than
// StaleTempAge; an old-style name older than StaleTempAge. The file of a
// writer still at work (its lock held) is never removed. Only regular
// files named as ctxls names its temporary files are considered. A dir
// that does not exist is nothing to sweep.
func SweepTemps(dir string) ([]Swept, error) {
	d, err := openDir(dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, fmt.Errorf("sweep %s: %w", dir, err)
	}
	entries, err := d.ReadDir(-1)
	d.Close()
	if err != nil {
		return nil, fmt.Errorf("sweep %s: %w", dir, err)
	}
	var out []Swept
	for _, e := range entries {
		name := e.Name()
		m := tempName.FindStringSubmatch(name)
		old := m == nil && oldTempName.MatchString(name)
		if m == nil && !old || !e.Type().IsRegular() {
			continue
		}
		path := filepath.Join(dir, name)
		pid := -1
		if m != nil {
			pid, _ = strconv.Atoi(m[1])
		}
		if s, ok := sweepOne(path, pid); ok {
			out = append(out, s)
		}
	}
	return out, nil
}

// sweepOne removes the temporary file at path if its writer (pid; -1 for
// an old-style name) is gone.
func sweepOne(path string, pid int) (Swept, bool) {
	f, st, err := OpenCacheFile(path)
	if err != nil {
		return Swept{}, false
	}
	defer f.Close() // and with it the lock
	if free, err := tryLock(f); !free && err == nil {
		return Swept{}, false // a writer holds it
	}
	old := time.Since(st.ModTime()) > StaleTempAge
	var reason string
	switch {
	case pid >= 0 && !pidAlive(pid):
		reason = "writer " + strconv.Itoa(pid) + " is gone"
	case old && pid >= 0:
		reason = "unlocked and older than " + StaleTempAge.String()
	case old:
		reason = "old-style temporary file older than " + StaleTempAge.String()
	default:
		return Swept{}, false
	}
	if err := os.Remove(path); err != nil {
		return Swept{}, false
	}
	return Swept{Path: path, Bytes: st.Size(), Reason: reason}, true
}
