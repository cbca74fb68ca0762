//go:build unix

package content_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/wield-ai/wield/content"
)

// TestReadFileSpecialFiles checks that ReadFile never waits on a file that is not a regular one:
// a named pipe no process writes to reads as empty rather than waiting for a writer in open, a
// device is refused before it is read, and a pipe with a writer (a shell's <(command)) is read
// to its end.
func TestReadFileSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := content.ReadFile(fifo, 0)
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, content.ErrEmpty) {
			t.Errorf("a named pipe without a writer: %v, want ErrEmpty", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("ReadFile of a named pipe without a writer has not returned after 30 s")
	}

	if _, err := os.Stat("/dev/zero"); err == nil {
		if _, err := content.ReadFile("/dev/zero", 0); !errors.Is(err, content.ErrNotRegular) || !strings.Contains(err.Error(), "/dev/zero is a device") {
			t.Errorf("/dev/zero: %v", err)
		}
	}

	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	path := fmt.Sprintf("/dev/fd/%d", r.Fd())
	if _, err := os.Stat(path); err != nil {
		t.Skipf("no /dev/fd: %v", err)
	}
	if _, err := w.WriteString("# Notes\n"); err != nil {
		t.Fatal(err)
	}
	w.Close()
	p, err := content.ReadFile(path, 0)
	if err != nil || string(p.Data) != "# Notes\n" {
		t.Fatalf("a pipe with data: %q, %v", p.Data, err)
	}
}
