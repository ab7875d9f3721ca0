//go:build !linux

package main

import "os"

// isTTY reports whether f is a character device, which is what a terminal
// is (so is /dev/null, where a progress line does no harm).
func isTTY(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
