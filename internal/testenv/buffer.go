package testenv

import (
	"bytes"
	"sync"
)

// Buffer collects what a process or a logger writes while the test reads it: an [os/exec.Cmd]
// copies its output from another goroutine, so a plain bytes.Buffer would race.
// The zero value is empty and ready to use.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

// Write appends p; it never fails.
func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

// String returns everything written so far.
func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}
