package daemon

import (
	"debug/elf"
	"fmt"
	"os"
	"strconv"
	"sync"

	"github.com/cespare/xxhash/v2"
)

// Build names a ctxls binary by what it is, not where it lies: 12 hex
// digits of the hash of its Go build ID (which changes with any change to
// the code it was built from), or, where the executable has no readable
// ELF build note, of its path, size and modification time. The default
// socket carries it, so a client only ever finds a daemon of its own
// build: after an upgrade the old daemon is left to its idle exit and
// the new clients start their own.
func Build() string { return buildOnce() }

var buildOnce = sync.OnceValue(func() string {
	exe, err := os.Executable()
	if err != nil {
		return "unknown"
	}
	return BuildOf(exe)
})

// BuildOf is Build for the executable at path.
func BuildOf(path string) string {
	if f, err := elf.Open(path); err == nil {
		defer f.Close()
		if s := f.Section(".note.go.buildid"); s != nil {
			if note, err := s.Data(); err == nil && len(note) > 0 {
				return fmt.Sprintf("%012x", xxhash.Sum64(note)>>16)
			}
		}
	}
	fi, err := os.Stat(path)
	if err != nil {
		return "unknown"
	}
	id := path + "\x00" + strconv.FormatInt(fi.Size(), 10) + "\x00" + strconv.FormatInt(fi.ModTime().UnixNano(), 10)
	return fmt.Sprintf("%012x", xxhash.Sum64String(id)>>16)
}
