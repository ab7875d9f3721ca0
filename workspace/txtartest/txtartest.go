// Package txtartest lays out txtar archives as directory trees, for the
// tests of every package: a fixture workspace reads as one small archive.
package txtartest

import (
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/tools/txtar"
)

// Write writes every file of the archive under root, making directories
// as needed.
func Write(t testing.TB, root string, ar *txtar.Archive) {
	t.Helper()
	for _, f := range ar.Files {
		WriteFile(t, filepath.Join(root, filepath.FromSlash(f.Name)), f.Data)
	}
}

// WriteFile writes data at path, making its directory.
func WriteFile(t testing.TB, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// Dir writes the archive text into a fresh temporary directory and
// returns it, symlinks resolved (so that paths compare with the ones a
// workspace reports).
func Dir(t testing.TB, archive string) string {
	t.Helper()
	root := TempDir(t)
	Write(t, root, txtar.Parse([]byte(archive)))
	return root
}

// DirFromFile is Dir for the archive in the file at path.
func DirFromFile(t testing.TB, path string) string {
	t.Helper()
	ar, err := txtar.ParseFile(path)
	if err != nil {
		t.Fatal(err)
	}
	root := TempDir(t)
	Write(t, root, ar)
	return root
}

// TempDir is t.TempDir with its symlinks resolved.
func TempDir(t testing.TB) string {
	t.Helper()
	root := t.TempDir()
	if real, err := filepath.EvalSymlinks(root); err == nil {
		root = real
	}
	return root
}
