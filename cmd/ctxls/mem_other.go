//go:build !linux

package main

// totalMemory is the machine's physical memory in bytes, 0 if unknown.
func totalMemory() uint64 { return 0 }
