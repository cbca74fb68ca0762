//go:build !unix

package main

import "os"

// openNoWait opens a file for reading; named pipes are refused before this is reached.
func openNoWait(path string) (*os.File, error) { return os.Open(path) }
