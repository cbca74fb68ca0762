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
	"github.com/wield-ai/wield/internal/testenv"
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
	err := testenv.Within(t, 30*time.Second, "a read of a FIFO no one writes to", func() error {
		_, err := content.ReadFile(fifo, 0)
		return err
	})
	if !errors.Is(err, content.ErrEmpty) {
		t.Errorf("a named pipe without a writer: %v, want ErrEmpty", err)
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

// TestReadRegularFile checks that ReadRegularFile reads regular files only, and refuses a named
// pipe at once: it neither waits for a writer nor reads what one sends.
func TestReadRegularFile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	err := testenv.Within(t, 30*time.Second, "a read of a FIFO no one writes to", func() error {
		_, err := content.ReadRegularFile(fifo, 0)
		return err
	})
	if !errors.Is(err, content.ErrNotRegular) || !strings.Contains(err.Error(), fifo+" is a named pipe") {
		t.Errorf("a named pipe: %v", err)
	}
	if _, err := content.ReadRegularFile(dir, 0); !errors.Is(err, content.ErrNotRegular) || !strings.Contains(err.Error(), dir+" is a directory") {
		t.Errorf("a directory: %v", err)
	}
	if _, err := os.Stat("/dev/zero"); err == nil {
		if _, err := content.ReadRegularFile("/dev/zero", 0); !errors.Is(err, content.ErrNotRegular) || !strings.Contains(err.Error(), "/dev/zero is a device") {
			t.Errorf("/dev/zero: %v", err)
		}
	}
	file := filepath.Join(dir, "a.json")
	if err := os.WriteFile(file, []byte(`{"a":1}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if data, err := content.ReadRegularFile(file, 7); err != nil || string(data) != `{"a":1}` {
		t.Fatalf("a file at the limit: %q, %v", data, err)
	}
	if _, err := content.ReadRegularFile(file, 6); !errors.Is(err, content.ErrTooLarge) || !strings.Contains(err.Error(), "the limit is 6 B") {
		t.Errorf("a file over the limit: %v", err)
	}
}
