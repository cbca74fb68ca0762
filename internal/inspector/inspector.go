// Package inspector drives the MCP inspector's command line (`mcp-inspector --cli`, installed by
// the test command) against an MCP server, for tests that check wield's servers with software
// no one here wrote.
package inspector

import (
	"bytes"
	"encoding/json"
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wield-ai/wield/internal/testenv"
)

// Run runs the inspector against target (a server command with its arguments, or a URL with
// --transport) with args and returns its output and exit code. It skips or fails t when the
// inspector is not installed.
func Run(t testing.TB, target []string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	home := t.TempDir() // the inspector keeps a catalog of servers in $HOME; not in ours
	cmd := testenv.Command(t, "mcp-inspector", append(append([]string{"--cli"}, target...), args...)...)
	cmd.Env = append(cmd.Env, "HOME="+home, "MCP_CATALOG_PATH="+filepath.Join(home, "mcp.json"))
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		code = exit.ExitCode()
	case err != nil:
		t.Fatal(err)
	}
	return out.String(), errOut.String(), code
}

// ListTools runs tools/list with --strict, fails t if the inspector reports any schema problem,
// and returns the tools' names in the server's order.
func ListTools(t testing.TB, target []string) []string {
	t.Helper()
	stdout, stderr, code := Run(t, target, "--method", "tools/list", "--strict")
	if code != 0 || strings.Contains(stderr, "Error:") || strings.Contains(stderr, "Warning:") {
		t.Fatalf("tools/list --strict: exit %d\n%s\n%s", code, stdout, stderr)
	}
	var res sdk.ListToolsResult
	if err := json.Unmarshal([]byte(stdout), &res); err != nil {
		t.Fatalf("tools/list output: %v\n%s", err, stdout)
	}
	names := make([]string, 0, len(res.Tools))
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
	}
	return names
}

// CallTool runs tools/call of the named tool with args ("key=value", as the inspector's
// --tool-arg takes them) and returns the result's text and whether it is an error result. It
// fails t if the inspector's exit code disagrees with the result's isError.
func CallTool(t testing.TB, target []string, name string, args ...string) (string, bool) {
	t.Helper()
	a := []string{"--method", "tools/call", "--tool-name", name}
	if len(args) > 0 {
		a = append(append(a, "--tool-arg"), args...)
	}
	stdout, stderr, code := Run(t, target, a...)
	var res sdk.CallToolResult
	if err := json.Unmarshal([]byte(stdout), &res); err != nil {
		t.Fatalf("tools/call %s: exit %d: %v\n%s\n%s", name, code, err, stdout, stderr)
	}
	if res.IsError != (code != 0) {
		t.Errorf("tools/call %s: isError %v but exit code %d", name, res.IsError, code)
	}
	var texts []string
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			texts = append(texts, tc.Text)
		}
	}
	return strings.Join(texts, "\n"), res.IsError
}
