package mcp_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/wield-ai/wield/internal/testenv"
)

// Programs the tests run as separate processes, built once per test run.
var programs = map[string]string{
	"conformance-server": "github.com/wield-ai/wield/mcp/internal/conformance/server",
	"conformance-client": "github.com/wield-ai/wield/mcp/internal/conformance/client",
}

var (
	buildOnce sync.Once
	buildDir  string
	buildErr  error
	buildOut  []byte
)

// program returns the path of one of programs, building all of them on first use. They are built
// with the race detector when the tests are, which reuses the packages the test build compiled.
func program(t *testing.T, name string) string {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		testenv.Missing(t, "the go command")
	}
	buildOnce.Do(func() {
		buildDir, buildErr = os.MkdirTemp("", "wield-mcp-programs-")
		if buildErr != nil {
			return
		}
		args := []string{"build", "-o", buildDir + string(os.PathSeparator)}
		if raceEnabled {
			args = append(args, "-race")
		}
		for _, pkg := range programs {
			args = append(args, pkg)
		}
		cmd := exec.Command(goBin, args...)
		cmd.Dir = testenv.ModuleRoot()
		buildOut, buildErr = cmd.CombinedOutput()
	})
	if buildErr != nil {
		t.Fatalf("building test programs: %v\n%s", buildErr, buildOut)
	}
	path := filepath.Join(buildDir, filepath.Base(programs[name]))
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("program %s: %v", name, err)
	}
	return path
}

func TestMain(m *testing.M) {
	code := m.Run()
	if buildDir != "" {
		os.RemoveAll(buildDir)
	}
	os.Exit(code)
}
