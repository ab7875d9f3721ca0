package replay

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"syscall"
)

// tree is a directory holding one commit's tree, written from git
// objects. Moving it to another commit rewrites only the files that
// differ, so the index over it is updated incrementally, as an editor's
// would be. Only regular files of at most maxBytes are written: a
// symlink, a submodule (gitlink) or a larger blob in the tree is left out
// (a larger blob is never read), so nothing in it can lead outside and no
// write goes through a link. Whatever stands in the way of a path (a file
// where the commit has a directory, a directory where it has a file) is
// removed first, so that any change between two commits can be written.
type tree struct {
	r        *repo
	dir      string
	at       string // the commit it holds, "" while empty
	maxBytes int64
	// unwritten holds the paths of the commit held that could not be
	// written (a name the file system refuses, a full disk), with why.
	unwritten map[string]error
}

// moveTo rewrites the directory to hold commit c and returns the paths it
// wrote or removed, and the errors of the paths it could not write (the
// tree holds the rest of c; each such path is left out of it). An error
// is a failure to read the repository.
func (t *tree) moveTo(ctx context.Context, c string) (touched []string, failed []error, err error) {
	changes, err := t.r.diff(ctx, t.at, c)
	if err != nil {
		return nil, nil, err
	}
	if t.unwritten == nil {
		t.unwritten = map[string]error{}
	}
	// First every entry that is not written goes (deleted, or no longer
	// a regular file of a size to index), then the files are written: a
	// directory that becomes a file has its files deleted before the
	// file takes its place, and the other way round.
	var writes []change
	for _, ch := range changes {
		abs, ok := t.abs(ch.path)
		if !ok {
			continue
		}
		delete(t.unwritten, ch.path)
		write := ch.status != 'D' && regular(ch.newMode)
		if write {
			size, err := t.r.size(ch.newBlob)
			if err != nil {
				return nil, nil, err
			}
			write = size <= t.maxBytes
		}
		if write {
			writes = append(writes, ch)
			continue
		}
		// The new tree holds nothing here that is written: a file of
		// the old one goes; so does a directory, unless the change is
		// a deletion (a directory there holds the new tree's files).
		gone, err := t.clear(abs, ch.status != 'D')
		if err != nil {
			failed = append(failed, fmt.Errorf("%s: %w", ch.path, err))
			t.unwritten[ch.path] = err
		}
		touched = append(touched, gone...)
	}
	for _, ch := range writes {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		abs, _ := t.abs(ch.path)
		data, err := t.r.blob(ch.newBlob, t.maxBytes)
		if errors.Is(err, errBlobTooLarge) { // it grew past the check: leave it out
			gone, cerr := t.clear(abs, true)
			if cerr != nil {
				failed = append(failed, fmt.Errorf("%s: %w", ch.path, cerr))
				t.unwritten[ch.path] = cerr
			}
			touched = append(touched, gone...)
			continue
		}
		if err != nil {
			return nil, nil, err
		}
		gone, err := t.write(abs, data)
		touched = append(touched, gone...)
		if err != nil {
			failed = append(failed, fmt.Errorf("%s: %w", ch.path, err))
			t.unwritten[ch.path] = err
			if g, cerr := t.clear(abs, true); cerr == nil {
				touched = append(touched, g...)
			}
			continue
		}
		touched = append(touched, abs)
	}
	t.at = c
	return touched, failed, nil
}

// clear removes the entry at abs (a directory too when dirs is set) and
// returns what it removed. A path whose parent is not a directory holds
// nothing; the parents are never followed through a symlink.
func (t *tree) clear(abs string, dirs bool) ([]string, error) {
	if !t.parentsAreDirs(abs) {
		return nil, nil
	}
	st, err := os.Lstat(abs)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if st.IsDir() {
		if !dirs {
			return nil, nil
		}
		return []string{abs}, os.RemoveAll(abs)
	}
	return []string{abs}, os.Remove(abs)
}

// parentsAreDirs reports whether every directory between the tree's root
// and abs is a real directory (not a file, not a symlink).
func (t *tree) parentsAreDirs(abs string) bool {
	for _, p := range t.parents(abs) {
		st, err := os.Lstat(p)
		if err != nil || !st.IsDir() {
			return false
		}
	}
	return true
}

// parents lists the directories from just under the tree's root down to
// abs's parent.
func (t *tree) parents(abs string) []string {
	rel, err := filepath.Rel(t.dir, filepath.Dir(abs))
	if err != nil || rel == "." {
		return nil
	}
	var out []string
	p := t.dir
	for _, part := range strings.Split(rel, string(filepath.Separator)) {
		p = filepath.Join(p, part)
		out = append(out, p)
	}
	return out
}

// write writes data as a new regular file at abs, first removing what is
// in the way: a file (or anything not a directory) where a parent
// directory must be, and whatever stands at abs itself. It returns the
// paths it removed. The file is created anew, never opened through a
// link.
func (t *tree) write(abs string, data []byte) ([]string, error) {
	var gone []string
	for _, p := range t.parents(abs) {
		st, err := os.Lstat(p)
		switch {
		case err == nil && st.IsDir():
			continue
		case err == nil:
			if err := os.Remove(p); err != nil {
				return gone, err
			}
			gone = append(gone, p)
		case !errors.Is(err, fs.ErrNotExist):
			return gone, err
		}
		if err := os.Mkdir(p, 0o755); err != nil {
			return gone, err
		}
	}
	g, err := t.clear(abs, true)
	gone = append(gone, g...)
	if err != nil {
		return gone, err
	}
	f, err := os.OpenFile(abs, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0o644)
	if err != nil {
		return gone, err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return gone, err
}

// abs is where a tree path is written; ok is false for a path that would
// not stay inside the directory or would land in a .git directory.
func (t *tree) abs(p string) (string, bool) {
	clean := path.Clean(p)
	if clean != p || clean == "." || strings.HasPrefix(clean, "../") || clean == ".." || path.IsAbs(clean) ||
		strings.Contains(clean, "/.git/") || strings.HasPrefix(clean, ".git/") || clean == ".git" || strings.HasSuffix(clean, "/.git") ||
		strings.ContainsRune(clean, 0) {
		return "", false
	}
	return filepath.Join(t.dir, filepath.FromSlash(clean)), true
}

// read returns a file of the tree as written; it never reads through a
// symlink.
func (t *tree) read(p string) ([]byte, error) {
	abs, ok := t.abs(p)
	if !ok {
		return nil, fmt.Errorf("replay: %s: not a path inside the tree", p)
	}
	if !t.parentsAreDirs(abs) {
		return nil, fmt.Errorf("replay: %s: not in the tree", p)
	}
	f, err := os.OpenFile(abs, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("replay: %s: not a regular file", p)
	}
	data := make([]byte, st.Size())
	_, err = f.ReadAt(data, 0)
	if err != nil {
		return nil, err
	}
	return data, nil
}
