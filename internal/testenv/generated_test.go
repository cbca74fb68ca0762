package testenv

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// fatalT records a failure; its Fatal and Fatalf end the goroutine as testing.T's do, its
// Errorf does not.
type fatalT struct {
	testing.TB
	msg string
}

func (f *fatalT) Errorf(s string, args ...any) { f.msg = fmt.Sprintf(s, args...) }

func (f *fatalT) Helper()           {}
func (f *fatalT) Fatal(args ...any) { f.msg = fmt.Sprint(args...); runtime.Goexit() }
func (f *fatalT) Fatalf(s string, args ...any) {
	f.msg = fmt.Sprintf(s, args...)
	runtime.Goexit()
}

// failure runs fn on a fatalT and returns what it failed with, "" if nothing.
func failure(fn func(t testing.TB)) string {
	f := &fatalT{}
	done := make(chan struct{})
	go func() { defer close(done); fn(f) }()
	<-done
	return f.msg
}

func TestGenerated(t *testing.T) {
	path := filepath.Join(t.TempDir(), "gen.go")
	if err := os.WriteFile(path, []byte("package a\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	source := func(s string, err error) func() ([]byte, error) {
		return func() ([]byte, error) { return []byte(s), err }
	}
	for _, tc := range []struct {
		name, path string
		generate   func() ([]byte, error)
		want       string
	}{
		{"current", path, source("package a\n", nil), ""},
		{"stale", path, source("package b\n", nil), path + " is stale; run go generate"},
		{"generator fails", path, source("", errors.New("no tools")), "no tools"},
		{"no file", path + ".missing", source("package a\n", nil), "no such file"},
	} {
		got := failure(func(t testing.TB) { Generated(t, tc.path, tc.generate) })
		if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
			t.Errorf("%s: failed with %q, want %q", tc.name, got, tc.want)
		}
	}
}
