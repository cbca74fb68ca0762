package providertest

import (
	"flag"
	"testing"

	"github.com/wield-ai/wield/internal/testenv"
)

var update = flag.Bool("update", false, "rewrite golden files")

// Golden checks that got is the content of the golden file at path; with the -update flag it
// writes got there first.
func Golden(t testing.TB, path string, got []byte) {
	t.Helper()
	testenv.Golden(t, path, got, *update)
}

// GoldenJSON checks that v, written as indented JSON, is the content of the golden file at path;
// with the -update flag it writes it there first. It returns the JSON for further checks.
func GoldenJSON(t testing.TB, path string, v any) []byte {
	t.Helper()
	return testenv.GoldenJSON(t, path, v, *update)
}
