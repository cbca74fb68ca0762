package testenv

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestGolden(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.golden")
	if err := os.WriteFile(path, []byte("same\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, path, got string
		update          bool
		want            string
	}{
		{"equal", path, "same\n", false, ""},
		{"differs", path, "other\n", false, "output differs from " + path + " (go test -update rewrites it); got:\nother\n"},
		{"no file", filepath.Join(dir, "missing.golden"), "x", false, "no such file"},
		{"update", filepath.Join(dir, "new", "out.golden"), "fresh\n", true, ""},
	} {
		got := failure(func(t testing.TB) { Golden(t, tc.path, []byte(tc.got), tc.update) })
		if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
			t.Errorf("%s: failed with %q, want %q", tc.name, got, tc.want)
		}
	}
	if b, err := os.ReadFile(filepath.Join(dir, "new", "out.golden")); err != nil || string(b) != "fresh\n" {
		t.Errorf("update wrote %q, %v", b, err)
	}
}
