package testenv

import (
	"os/exec"
	"strings"
	"sync"
	"testing"
)

// TestBufferConcurrent writes from many goroutines while reading; run under -race it fails if
// Buffer does not serialise them, and the count shows no write was lost.
func TestBufferConcurrent(t *testing.T) {
	var b Buffer
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 100 {
				if n, err := b.Write([]byte("x")); n != 1 || err != nil {
					t.Errorf("Write = %d, %v", n, err)
				}
				_ = b.String()
			}
		})
	}
	wg.Wait()
	if got := len(b.String()); got != 800 {
		t.Fatalf("kept %d bytes, want 800", got)
	}
}

// TestBufferCommand collects a process's output, its use in the tests.
func TestBufferCommand(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	var b Buffer
	cmd := exec.Command(sh, "-c", "echo out; echo err >&2")
	cmd.Stdout, cmd.Stderr = &b, &b
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	if got := b.String(); !strings.Contains(got, "out\n") || !strings.Contains(got, "err\n") {
		t.Fatalf("collected %q", got)
	}
}
