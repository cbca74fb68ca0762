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

// TestGoldenJSON: the value is kept as indented JSON ending in a newline, compared like any
// golden file, and returned as written.
func TestGoldenJSON(t *testing.T) {
	path := filepath.Join(t.TempDir(), "v.golden.json")
	v := map[string]any{"b": []int{1, 2}, "a": "x"}
	const want = "{\n  \"a\": \"x\",\n  \"b\": [\n    1,\n    2\n  ]\n}\n"
	var got []byte
	if msg := failure(func(t testing.TB) { got = GoldenJSON(t, path, v, true) }); msg != "" || string(got) != want {
		t.Fatalf("update: %q, failed with %q", got, msg)
	}
	if b, err := os.ReadFile(path); err != nil || string(b) != want {
		t.Fatalf("wrote %q, %v", b, err)
	}
	if msg := failure(func(t testing.TB) { GoldenJSON(t, path, map[string]any{"a": "y"}, false) }); !strings.Contains(msg, "output differs") {
		t.Errorf("a different value failed with %q", msg)
	}
	if msg := failure(func(t testing.TB) { GoldenJSON(t, path, func() {}, false) }); !strings.Contains(msg, "unsupported type") {
		t.Errorf("a value JSON cannot hold failed with %q", msg)
	}
}
