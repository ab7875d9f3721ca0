//go:build unix

package symbolindex

import (
	"fmt"
	"os"
	"syscall"

	"github.com/ctxls/ctxls/symbolindex/cachefile"
)

// mapFile maps the file at path into memory, private and copy-on-write:
// the index reads it in place, and a write into a mapped structure (an
// edit clearing or setting the vector row of a loaded symbol's slot) copies
// that page into the process instead of touching the file. A mapping that
// was served is not unmapped: strings and slices of a loaded index point
// into it and may outlive the index (a response being written); one that
// never was is unmapped by Index.Discard. It returns the open file too,
// which the caller closes: the vector store reads rows with pread from the
// very file it maps (the path may be renamed over meanwhile). The file is
// opened by cachefile.Open: anything but a regular file at path (a symlink,
// a FIFO, a device) is a *cachefile.Refusal, and nothing blocks.
func mapFile(path string) ([]byte, *os.File, error) {
	f, _, err := cachefile.Open(path, os.O_RDONLY, 0)
	if err != nil {
		return nil, nil, err
	}
	b, err := mapOpen(f, path)
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return b, f, nil
}

func mapOpen(f *os.File, path string) ([]byte, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file", path)
	}
	size := fi.Size()
	if size == 0 {
		return []byte{}, nil
	}
	if int64(int(size)) != size {
		return nil, fmt.Errorf("%s: too large to map (%d bytes)", path, size)
	}
	b, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE)
	if err != nil {
		return nil, fmt.Errorf("mmap %s: %w", path, err)
	}
	return b, nil
}

// dropPages tells the kernel that the pages of b (a part of a private
// mapping not written to) are not needed now: they leave the resident set
// and are read again from the page cache when touched. Used after the
// load, which touches the segments' heads once.
func dropPages(b []byte) {
	const page = 4096
	if len(b) < page {
		return
	}
	_ = syscall.Madvise(b[:len(b)/page*page], syscall.MADV_DONTNEED)
}

// adviseRandom tells the kernel that reads of b are scattered from now on
// (a term's postings, a few files' vectors): no readahead, which would make
// the resident set grow with what is near what a request reads rather
// than with what it reads.
func adviseRandom(b []byte) {
	if len(b) > 0 {
		_ = syscall.Madvise(b, syscall.MADV_RANDOM)
	}
}

// unmapFile releases a mapping nothing points into (a cache that failed to
// load).
func unmapFile(b []byte) {
	if len(b) > 0 {
		_ = syscall.Munmap(b)
	}
}

// adviseWillNeed asks the kernel to read the pages of data[off:off+n] (data
// a file mapping) ahead, in the background.
func adviseWillNeed(data []byte, off, n int) {
	if n <= 0 {
		return
	}
	_ = syscall.Madvise(data[off&^(pageSize-1):off+n], syscall.MADV_WILLNEED)
}
