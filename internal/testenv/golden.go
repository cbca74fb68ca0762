package testenv

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// Golden fails t, going on with the test, unless got is the content of the golden file at path.
// With update (a test package's -update flag) it writes got there first.
func Golden(t testing.TB, path string, got []byte, update bool) {
	t.Helper()
	if update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Errorf("%v (go test -update creates it)", err)
		return
	}
	if !bytes.Equal(got, want) {
		t.Errorf("output differs from %s (go test -update rewrites it); got:\n%s", path, got)
	}
}

// GoldenJSON is [Golden] for v written as indented JSON ending in a newline, the form golden JSON
// files are kept in; it returns that JSON for further checks.
func GoldenJSON(t testing.TB, path string, v any, update bool) []byte {
	t.Helper()
	got, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	Golden(t, path, got, update)
	return got
}
