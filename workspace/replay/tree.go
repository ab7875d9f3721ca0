package replay

import (
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// tree is a directory holding one commit's tree, written from git
// objects. Moving it to another commit rewrites only the files that
// differ, so the index over it is updated incrementally, as an editor's
// would be. Only regular files are written: a symlink or a submodule in
// the tree is left out, so nothing in it can lead outside.
type tree struct {
	r   *repo
	dir string
	at  string // the commit it holds, "" while empty
}

// moveTo rewrites the directory to hold commit c and returns the paths it
// wrote or removed.
func (t *tree) moveTo(ctx context.Context, c string) ([]string, error) {
	changes, err := t.r.diff(ctx, t.at, c)
	if err != nil {
		return nil, err
	}
	var touched []string
	for _, ch := range changes {
		abs, ok := t.abs(ch.path)
		if !ok {
			continue
		}
		if ch.status == 'D' || !regular(ch.newMode) {
			if err := os.Remove(abs); err != nil && !os.IsNotExist(err) {
				return nil, err
			}
			touched = append(touched, abs)
			continue
		}
		data, err := t.r.blob(ch.newBlob)
		if err != nil {
			return nil, err
		}
		if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(abs, data, 0o644); err != nil {
			return nil, fmt.Errorf("replay: %w", err)
		}
		touched = append(touched, abs)
	}
	t.at = c
	return touched, nil
}

// abs is where a tree path is written; ok is false for a path that would
// not stay inside the directory.
func (t *tree) abs(p string) (string, bool) {
	clean := path.Clean(p)
	if clean != p || clean == "." || strings.HasPrefix(clean, "../") || clean == ".." || path.IsAbs(clean) || strings.Contains(clean, "/.git/") || strings.HasPrefix(clean, ".git/") {
		return "", false
	}
	return filepath.Join(t.dir, filepath.FromSlash(clean)), true
}

// read returns a file of the tree as written.
func (t *tree) read(p string) ([]byte, error) {
	abs, ok := t.abs(p)
	if !ok {
		return nil, fmt.Errorf("replay: %s: not a path inside the tree", p)
	}
	return os.ReadFile(abs)
}
