package testenv

import (
	"bytes"
	"os"
	"testing"
)

// Generated fails t when the file at path is not what generate returns now: the generator's
// input changed and go generate was not run.
func Generated(t testing.TB, path string, generate func() ([]byte, error)) {
	t.Helper()
	want, err := generate()
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s is stale; run go generate", path)
	}
}
