package cachefile

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// A cache file is written to a temporary file beside it and renamed into
// place. The temporary file is named after the file and the process
// writing it, and that process holds an advisory lock on it while it
// writes; a writer killed mid-write (kill -9, a crash, the machine going
// down) leaves it behind, and a sweep removes it later. Two kinds are
// named apart:
//
//   - an index cache's: <file>.tmp.<pid>.<random> (CreateIndexTemp), swept
//     at the first build of a process for every index of the directory
//     (SweepIndexTemps); versions that did not name the writer left
//     <16 hex>.idx.tmp<digits>.
//   - a memory file's: <file>.tmp-<pid>-<random> (CreateMemoryTemp), swept
//     for that file at start and at every write (SweepMemoryTemps);
//     versions that did not name the writer left <file>.<digits>.
//
// A sweep removes a temporary file no process holds locked when its
// writer's pid is not alive, or when it is older than StaleTempAge (the
// pid was reused, or the name has none). The file of a writer still at
// work (its lock held) is never removed.

// StaleTempAge is how old a temporary file must be before a sweep removes
// it without knowing its writer is dead: one named in an old style (no
// pid), or one whose pid is alive again (reused) but whose lock is free.
const StaleTempAge = 10 * time.Minute

// CreateIndexTemp creates the temporary file that will be renamed over
// the index cache at path (in path's directory, created if needed),
// readable by its owner only, and locks it for the lifetime of the
// handle. The caller removes it if it does not rename it.
func CreateIndexTemp(path string) (*os.File, error) {
	return createTemp(path, ".", 0o600)
}

// WriteFile replaces the cache file at path with data: written to a
// locked temporary file (CreateIndexTemp), synced and renamed over path,
// so that a reader sees the old file or the new one, never a part. The
// temporary file is removed if anything fails.
func WriteFile(path string, data []byte) error {
	tmp, err := CreateIndexTemp(path)
	if err != nil {
		return err
	}
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}

// CreateMemoryTemp is CreateIndexTemp for the memory file at path,
// readable by all.
func CreateMemoryTemp(path string) (*os.File, error) {
	return createTemp(path, "-", 0o644)
}

// MemoryTempPrefix begins the names of the temporary files of the memory
// file at path; the writer's process id and a random number follow.
func MemoryTempPrefix(path string) string { return filepath.Base(path) + ".tmp-" }

// createTemp creates <path>.tmp<sep><pid><sep><random>, new (never
// through a symlink), and locks it.
func createTemp(path, sep string, perm fs.FileMode) (*os.File, error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	prefix := path + ".tmp" + sep + strconv.Itoa(os.Getpid()) + sep
	var f *os.File
	var err error
	for range 1000 {
		f, err = os.OpenFile(prefix+strconv.FormatUint(uint64(rand.Uint32()), 10), os.O_RDWR|os.O_CREATE|os.O_EXCL|openFlags, perm)
		if !errors.Is(err, fs.ErrExist) {
			break
		}
	}
	if err != nil {
		return nil, err
	}
	// Nobody else holds a name just made: a lock not taken is a file
	// system without locks, where the pid in the name alone tells a sweep
	// that the writer lives.
	_, _ = tryLock(f)
	return f, nil
}

var (
	// indexTemp is a temporary file of an index cache (<16 hex>.<ext>)
	// named with its writer's pid.
	indexTemp = regexp.MustCompile(`^[0-9a-f]{16}\..+\.tmp\.([0-9]+)\.[0-9]+$`)
	// oldIndexTemp is the temporary index file of versions that did not
	// name the writer.
	oldIndexTemp = regexp.MustCompile(`^[0-9a-f]{16}\.idx\.tmp[0-9]+$`)
)

// Swept is one temporary file a sweep removed.
type Swept struct {
	Path   string
	Bytes  int64
	Reason string
}

// SweepIndexTemps removes, from the cache directory dir, the temporary
// files of index writers that are gone (see StaleTempAge). Only regular
// files named as ctxls names them are considered. A dir that does not
// exist is nothing to sweep.
func SweepIndexTemps(dir string) ([]Swept, error) {
	return sweep(dir, func(name string) (int, bool) {
		if m := indexTemp.FindStringSubmatch(name); m != nil {
			pid, _ := strconv.Atoi(m[1])
			return pid, true
		}
		return -1, oldIndexTemp.MatchString(name)
	}, false)
}

// SweepMemoryTemps removes the temporary files of the memory file at path
// that no live writer will rename (see StaleTempAge). With own, the
// caller holds the memory lock, which every writer of this process holds
// while its temporary file exists: this process's are stale too.
func SweepMemoryTemps(path string, own bool) ([]Swept, error) {
	dir, base := filepath.Split(path)
	prefix := MemoryTempPrefix(path)
	return sweep(dir, func(name string) (int, bool) {
		if rest, ok := strings.CutPrefix(name, prefix); ok {
			pidText, _, _ := strings.Cut(rest, "-")
			pid, err := strconv.Atoi(pidText)
			if err != nil || pid < 0 {
				pid = 0 // no writer's: gone
			}
			return pid, true
		}
		rest, ok := strings.CutPrefix(name, base+".")
		return -1, ok && allDigits(rest)
	}, own)
}

func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// sweep removes the temporary files of dir that temp names (with the pid
// of their writer, -1 for an old-style name) whose writers are gone; with
// own, those of this process are.
func sweep(dir string, temp func(name string) (pid int, ok bool), own bool) ([]Swept, error) {
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
		pid, ok := temp(e.Name())
		if !ok || !e.Type().IsRegular() {
			continue
		}
		if s, ok := sweepOne(filepath.Join(dir, e.Name()), pid, own); ok {
			out = append(out, s)
		}
	}
	return out, nil
}

// sweepOne removes the temporary file at path if its writer (pid; -1 for
// an old-style name) is gone.
func sweepOne(path string, pid int, own bool) (Swept, bool) {
	f, st, err := Open(path, os.O_RDONLY, 0)
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
	case own && pid == os.Getpid():
		reason = "this process's, under the lock its writers hold"
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
