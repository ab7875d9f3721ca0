//go:build !unix

package symbolindex

import "os"

// mapFile reads the file at path into memory where there is no mmap.
func mapFile(path string) ([]byte, error) { return os.ReadFile(path) }

func dropPages([]byte) {}

func unmapFile([]byte) {}

func adviseRandom([]byte) {}
