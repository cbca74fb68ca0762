package main

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wield-ai/wield/internal/testenv"
)

const clockSrc = `package clock

// Clock tells the time.
type Clock struct{}

// Now returns the time.
//
//wield:tool name=now
func (Clock) Now() string { return "" }
`

func TestRun(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "clock.go"), []byte(clockSrc), 0o644); err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	if code := run([]string{"-v", dir}, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, &stderr)
	}
	if want := "wieldgen: wrote " + filepath.Join(dir, "wield_tools.go") + " (1 tools, 0 documented types)\n"; stderr.String() != want {
		t.Fatalf("stderr %q, want %q", &stderr, want)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "wield_tools.go"))
	if !bytes.Contains(b, []byte(`Name:        "now"`)) || !bytes.Contains(b, []byte(`Description: "Returns the time."`)) {
		t.Fatalf("generated:\n%s", b)
	}
	stderr.Reset()
	if code := run([]string{"-v", "-o", "tools_gen.go", dir}, &stderr); code != 0 || !strings.Contains(stderr.String(), "tools_gen.go (1 tools") {
		t.Fatalf("-o: exit %d: %s", code, &stderr)
	}
	stderr.Reset()
	if code := run([]string{"-v", dir}, &stderr); code != 0 || !strings.HasSuffix(stderr.String(), "wield_tools.go is up to date\n") {
		t.Fatalf("again: exit %d: %s", code, &stderr)
	}

	// A directive on a function is an error in the package, reported where it is.
	os.WriteFile(filepath.Join(dir, "clock.go"), []byte("package clock\n\n//wield:tool\nfunc F() {}\n"), 0o644)
	stderr.Reset()
	if code := run([]string{dir}, &stderr); code != 1 || !strings.Contains(stderr.String(), "clock.go:3:1: //wield:tool on func F: only methods can be tools") {
		t.Fatalf("bad package: exit %d: %s", code, &stderr)
	}
	for _, args := range [][]string{{"-nope"}, {"a", "b"}} {
		stderr.Reset()
		if code := run(args, &stderr); code != 2 || !strings.Contains(stderr.String(), "usage: wieldgen") {
			t.Errorf("%q: exit %d: %s", args, code, &stderr)
		}
	}
	stderr.Reset()
	if code := run([]string{"-h"}, &stderr); code != 0 || !strings.Contains(stderr.String(), "usage: wieldgen") {
		t.Errorf("-h: exit %d: %s", code, &stderr)
	}
}

// TestGoTool runs wieldgen as a user's module does, as a tool (go get -tool, go tool), and
// checks that it brings only the generator's few dependencies into the module, not the model
// providers' SDKs.
func TestGoTool(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go command")
	}
	dir := t.TempDir()
	gomod := "module example.com/app\n\ngo 1.26\n\nrequire github.com/wield-ai/wield v0.0.0\n\nreplace github.com/wield-ai/wield => " +
		testenv.ModuleRoot() + "\n\ntool github.com/wield-ai/wield/cmd/wieldgen\n"
	clock := strings.Replace(clockSrc, "package clock\n", "package clock\n\n//go:generate go tool wieldgen\n\nimport \"github.com/wield-ai/wield/tool\"\n\nvar _ = tool.Methods\n", 1)
	// wield's go.sum vouches for every module the app can need, so nothing asks the checksum
	// database, which a machine with an empty module cache could not reach with GOPROXY=off.
	sums, err := os.ReadFile(filepath.Join(testenv.ModuleRoot(), "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	for name, src := range map[string]string{"go.mod": gomod, "go.sum": string(sums), "clock/clock.go": clock} {
		os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755)
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	goCmd := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("go", args...)
		cmd.Dir = dir
		// Offline: everything comes from the module cache, which building wield filled.
		cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off", "GOSUMDB=off")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	goCmd("mod", "tidy")
	goCmd("generate", "./...")
	if _, err := os.Stat(filepath.Join(dir, "clock", "wield_tools.go")); err != nil {
		t.Fatalf("go generate wrote nothing: %v", err)
	}
	goCmd("build", "./...")

	f, err := os.Open(filepath.Join(dir, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	modules := map[string]bool{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		modules[strings.Fields(sc.Text())[0]] = true
	}
	// The wield command's module graph is about 170 modules; the generator's a handful.
	if len(modules) > 8 {
		t.Errorf("go.sum has %d modules: %v", len(modules), modules)
	}
	for m := range modules {
		for _, heavy := range []string{"openai", "anthropic", "genai", "ollama", "cobra", "glamour", "sqlite", "opentelemetry", "modelcontextprotocol"} {
			if strings.Contains(m, heavy) {
				t.Errorf("go.sum has %s", m)
			}
		}
	}
}
