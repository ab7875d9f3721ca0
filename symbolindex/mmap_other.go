//go:build !unix

package symbolindex

import (
	"io"
	"os"

	"github.com/ctxls/ctxls/symbolindex/cachefile"
)

// mapFile reads the file at path into memory where there is no mmap.
// There is no file to read rows from either: the vector store reads them
// in memory.
func mapFile(path string) ([]byte, *os.File, error) {
	f, _, err := cachefile.Open(path, os.O_RDONLY, 0)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(f)
	return b, nil, err
}

func dropPages([]byte) {}

func unmapFile([]byte) {}

func adviseRandom([]byte) {}

func adviseWillNeed([]byte, int, int) {}
