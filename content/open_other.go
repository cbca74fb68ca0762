//go:build !unix

package content

import "os"

// openNoWait opens a file for reading; only Unix has named pipes that wait for a writer.
func openNoWait(path string) (*os.File, error) { return os.Open(path) }
