package daemon

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// SocketName is the socket file of the daemon of build (Build) in its
// directory.
func SocketName(build string) string { return "daemon-" + build + ".sock" }

// DefaultSocket is this build's per-user socket:
// $XDG_RUNTIME_DIR/ctxls/daemon-<build>.sock, else
// ctxls/daemon/daemon-<build>.sock under the user cache directory.
func DefaultSocket() (string, error) {
	dir, err := SocketDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, SocketName(Build())), nil
}

// SocketDir is the per-user directory of the daemons' sockets.
func SocketDir() (string, error) {
	if rt := os.Getenv("XDG_RUNTIME_DIR"); rt != "" && filepath.IsAbs(rt) {
		return filepath.Join(rt, "ctxls"), nil
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no place for the daemon socket: %v (set XDG_RUNTIME_DIR)", err)
	}
	return filepath.Join(cache, "ctxls", "daemon"), nil
}

// LogFile is where a daemon started by a client writes its log: beside
// the socket's directory in the user cache directory.
func LogFile() (string, error) {
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(cache, "ctxls", "daemon.log"), nil
}

// prepareDir creates the socket's directory with mode 0700, or checks the
// one there: a directory (not a symlink), owned by this user, that no one
// else may read or enter.
func prepareDir(dir string) error {
	if err := os.MkdirAll(filepath.Dir(dir), 0o700); err != nil {
		return fmt.Errorf("daemon directory %s: %v", dir, err)
	}
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("daemon directory %s: %v", dir, err)
	}
	return checkPrivate(dir, true)
}

// checkPrivate refuses a daemon directory or socket that belongs to
// another user or that others may use: nothing crosses users.
func checkPrivate(path string, dir bool) error {
	fi, err := os.Lstat(path)
	if err != nil {
		return err
	}
	what := "socket"
	if dir {
		what = "directory"
	}
	switch {
	case dir && !fi.IsDir():
		return fmt.Errorf("daemon directory %s is not a directory (a symlink?); refusing it", path)
	case !dir && fi.Mode().Type() != fs.ModeSocket:
		return fmt.Errorf("daemon socket %s is not a socket; refusing it", path)
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Getuid() {
		return fmt.Errorf("daemon %s %s belongs to user %d, not to you (%d); refusing it", what, path, st.Uid, os.Getuid())
	}
	if perm := fi.Mode().Perm(); perm&0o077 != 0 {
		return fmt.Errorf("daemon %s %s has mode %04o, open to other users; refusing it (want %04o)", what, path, perm, map[bool]fs.FileMode{true: 0o700, false: 0o600}[dir])
	}
	return nil
}

// CheckSocket checks a socket before a client connects: its directory and
// the socket itself are this user's and private.
func CheckSocket(path string) error {
	if err := checkPrivate(filepath.Dir(path), true); err != nil {
		return err
	}
	return checkPrivate(path, false)
}
