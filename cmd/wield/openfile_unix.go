//go:build unix

package main

import (
	"os"
	"syscall"
)

// openNoWait opens a file for reading without waiting for a writer, should the path have become a
// named pipe since it was looked at.
func openNoWait(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}
