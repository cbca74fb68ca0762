// Package testenv finds the external programs and services tests use (npm packages, a
// PostgreSQL server) where the test command (scripts/test) installed them.
//
// Outside CI a test whose tool is missing is skipped with a message saying how to install it; in
// CI (CI=true) it fails, so a missing install step cannot pass unnoticed.
package testenv

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

// CI reports whether tests run in CI, where missing tools are failures.
func CI() bool { return os.Getenv("CI") == "true" }

// Missing skips t, or fails it in CI, because something the test needs is absent.
func Missing(t testing.TB, what string) {
	t.Helper()
	if CI() {
		t.Fatalf("%s is missing; scripts/test installs it", what)
	}
	t.Skipf("%s is missing; run ./scripts/test once to install it", what)
}

// ToolsDir is where scripts/test installs tools: $WIELD_TOOLS, or .tools at the module root.
func ToolsDir() string {
	if d := os.Getenv("WIELD_TOOLS"); d != "" {
		return d
	}
	return filepath.Join(ModuleRoot(), ".tools")
}

// ModuleRoot is the directory holding wield's go.mod.
func ModuleRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
}

// Bin returns the path of an installed program: a file under ToolsDir()/bin or
// ToolsDir()/node_modules/.bin. It skips or fails t if the program is not there.
func Bin(t testing.TB, name string) string {
	t.Helper()
	for _, dir := range []string{"bin", filepath.Join("node_modules", ".bin")} {
		p := filepath.Join(ToolsDir(), dir, name)
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
			return p
		}
	}
	Missing(t, name)
	return ""
}

// Env returns the value of an environment variable the test command exports, such as a
// database URL. It skips or fails t if the variable is unset.
func Env(t testing.TB, name string) string {
	t.Helper()
	v := os.Getenv(name)
	if v == "" {
		Missing(t, "$"+name)
	}
	return v
}

// Path returns $PATH with the installed tools' directories first, so scripts of npm packages
// run on the Node the test command installed.
func Path() string {
	d := ToolsDir()
	return filepath.Join(d, "bin") + string(os.PathListSeparator) +
		filepath.Join(d, "node_modules", ".bin") + string(os.PathListSeparator) + os.Getenv("PATH")
}

// Command returns a command running the installed program name with args, with [Path] as its
// $PATH. It skips or fails t if the program is not installed.
func Command(t testing.TB, name string, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(Bin(t, name), args...)
	cmd.Env = append(os.Environ(), "PATH="+Path())
	return cmd
}
