//go:build unix

package content

import (
	"os"
	"syscall"
)

// openNoWait opens a file for reading without waiting for a writer when it is a named pipe.
// Go's runtime poller then serves its reads, which wait for data as usual.
func openNoWait(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}
