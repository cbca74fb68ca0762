package mcp_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/wield-ai/wield/internal/testenv"
	"github.com/wield-ai/wield/mcp"
	"github.com/wield-ai/wield/mcp/mcptest"
)

func TestParseConfig(t *testing.T) {
	t.Setenv("WIELD_TEST_TOKEN", "s3cret")
	t.Setenv("WIELD_TEST_EMPTY", "")
	for _, tc := range []struct {
		name string
		file string
		want []mcp.ServerConfig
		err  string
	}{{
		name: "claude desktop",
		file: `{"mcpServers": {
			"files": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"], "env": {"DEBUG": "1"}},
			"remote": {"url": "https://example.com/mcp", "headers": {"Authorization": "Bearer ${env:WIELD_TEST_TOKEN}"}}
		}, "globalShortcut": "Ctrl+Space"}`,
		want: []mcp.ServerConfig{
			{Name: "files", Command: "npx", Args: []string{"-y", "@modelcontextprotocol/server-filesystem", "/tmp"}, Env: map[string]string{"DEBUG": "1"}},
			{Name: "remote", URL: "https://example.com/mcp", Headers: map[string]string{"Authorization": "Bearer s3cret"}},
		},
	}, {
		name: "vs code with types",
		file: `{"inputs": [], "servers": {
			"b-sse": {"type": "sse", "url": "http://127.0.0.1:1/sse"},
			"a-http": {"type": "http", "url": "http://127.0.0.1:1/mcp"},
			"c-stdio": {"type": "stdio", "command": "server", "cwd": "/srv"}
		}}`,
		want: []mcp.ServerConfig{
			{Name: "a-http", Type: mcp.TypeHTTP, URL: "http://127.0.0.1:1/mcp"},
			{Name: "b-sse", Type: mcp.TypeSSE, URL: "http://127.0.0.1:1/sse"},
			{Name: "c-stdio", Type: mcp.TypeStdio, Command: "server", Dir: "/srv"},
		},
	}, {
		name: "type spellings, disabled, variables with defaults",
		file: `{"mcpServers": {
			"one": {"type": "streamable-http", "url": "${WIELD_TEST_UNSET:-http://127.0.0.1:9}/mcp"},
			"two": {"type": "streamableHttp", "url": "http://${WIELD_TEST_EMPTY:-localhost}/mcp"},
			"off": {"command": "never", "disabled": true},
			"three": {"command": "run", "args": ["--token=${WIELD_TEST_TOKEN}", "${WIELD_TEST_EMPTY}"]}
		}}`,
		want: []mcp.ServerConfig{
			{Name: "one", Type: mcp.TypeHTTP, URL: "http://127.0.0.1:9/mcp"},
			{Name: "three", Command: "run", Args: []string{"--token=s3cret", ""}},
			{Name: "two", Type: mcp.TypeHTTP, URL: "http://localhost/mcp"},
		},
	}, {
		name: "how tools are offered",
		file: `{"mcpServers": {
			"a": {"command": "a", "prefix": "gh_", "include": ["read_*"], "exclude": ["read_secret"], "timeout": 90000},
			"b": {"command": "b", "includeTools": ["x"], "excludeTools": ["y"], "timeout": "2m30s"},
			"c": {"command": "c", "timeout": 0, "maxCallTime": 0},
			"d": {"command": "d", "timeout": -1, "maxCallTime": "2h"}
		}}`,
		want: []mcp.ServerConfig{
			{Name: "a", Command: "a", Prefix: "gh_", Include: []string{"read_*"}, Exclude: []string{"read_secret"}, Timeout: 90 * time.Second},
			{Name: "b", Command: "b", Include: []string{"x"}, Exclude: []string{"y"}, Timeout: 150 * time.Second},
			{Name: "c", Command: "c", Timeout: -1, MaxCallTime: -1},
			{Name: "d", Command: "d", Timeout: -time.Millisecond, MaxCallTime: 2 * time.Hour},
		},
	},
		{name: "empty", file: `{"mcpServers": {}}`, want: nil},
		{name: "bad timeout", file: `{"mcpServers": {"x": {"command": "a", "timeout": "soon"}}}`, err: `server "x": "timeout"`},
		{name: "bad maxCallTime", file: `{"mcpServers": {"x": {"command": "a", "maxCallTime": "later"}}}`, err: `server "x": "maxCallTime"`},
		{name: "timeout of another type", file: `{"mcpServers": {"x": {"command": "a", "timeout": true}}}`, err: "a number of milliseconds or a duration"},
		{name: "bad prefix", file: `{"mcpServers": {"x": {"command": "a", "prefix": "my tools: "}}}`, err: "prefix"},
		{name: "bad pattern", file: `{"mcpServers": {"x": {"command": "a", "include": ["[a"]}}}`, err: "tool filter"},
		{name: "not JSON", file: `{"mcpServers": `, err: "unexpected EOF"},
		{name: "no servers key", file: `{"tools": {}}`, err: `neither "mcpServers" nor "servers"`},
		{name: "unknown type", file: `{"mcpServers": {"x": {"type": "websocket", "url": "ws://x"}}}`, err: `server "x": unknown type "websocket"`},
		{name: "neither", file: `{"mcpServers": {"x": {"args": ["a"]}}}`, err: `server "x": neither command nor url`},
		{name: "both", file: `{"mcpServers": {"x": {"command": "a", "url": "http://b"}}}`, err: `server "x": both command and url`},
		{name: "stdio with url", file: `{"mcpServers": {"x": {"type": "stdio", "url": "http://b"}}}`, err: `needs a command`},
		{name: "sse with command", file: `{"mcpServers": {"x": {"type": "sse", "command": "a"}}}`, err: `needs a url`},
		{name: "unset variable", file: `{"mcpServers": {"x": {"command": "a", "env": {"K": "${env:WIELD_TEST_UNSET}"}}}}`, err: `server "x": ${env:WIELD_TEST_UNSET}: environment variable WIELD_TEST_UNSET is not set`},
		{name: "input variable", file: `{"servers": {"x": {"url": "http://a", "headers": {"K": "${input:key}"}}}}`, err: "input variables are not supported"},
		{name: "wrong field type", file: `{"mcpServers": {"x": {"command": 5}}}`, err: `server "x"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := mcp.ParseConfig([]byte(tc.file))
			if testenv.WantError(t, err, tc.err) {
				return
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got  %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

// TestOpen loads a configuration file naming real servers (stdio and streamable HTTP) and lists
// and calls their tools through one Toolset.
func TestOpen(t *testing.T) {
	t.Parallel()
	srv := startNodeHTTP(t, "mcp-server-everything", 0, "streamableHttp")
	memory := filepath.Join(t.TempDir(), "memory.jsonl")
	path := filepath.Join(t.TempDir(), "mcp.json")
	config := fmt.Sprintf(`{"mcpServers": {
		"memory": {"command": %q, "env": {"MEMORY_FILE_PATH": %q, "PATH": %q}},
		"everything": {"type": "http", "url": "http://%s/mcp"}
	}}`, testenv.Bin(t, "mcp-server-memory"), memory, testenv.Path(), srv.Addr)
	if err := os.WriteFile(path, []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	set, err := mcp.Open(testContext(t), path)
	if err != nil {
		t.Fatal(err)
	}
	defer set.Close()
	tools, err := set.Tools(testContext(t))
	if err != nil {
		t.Fatal(err)
	}
	mustContain(t, "get-sum", call(t, tools, "get-sum", `{"a":2,"b":2}`), "4")
	call(t, tools, "create_entities", `{"entities":[{"name":"wield","entityType":"library","observations":["calls tools"]}]}`)
	mustContain(t, "read_graph", call(t, tools, "read_graph", `{}`), "calls tools")
	if names := toolNames(tools); len(names) < 20 {
		t.Errorf("tools = %v", names)
	}
	if got := []string{set.Clients()[0].Name(), set.Clients()[1].Name()}; !reflect.DeepEqual(got, []string{"everything", "memory"}) {
		t.Errorf("clients = %v", got)
	}

	// One unreachable server fails the whole set, naming it.
	bad := filepath.Join(t.TempDir(), "bad.json")
	os.WriteFile(bad, []byte(`{"mcpServers": {"gone": {"command": "/nonexistent/mcp-server"}}}`), 0o600)
	if _, err := mcp.Open(testContext(t), bad); err == nil || !strings.Contains(err.Error(), `"gone"`) {
		t.Errorf("Open with an unreachable server: %v", err)
	}
	if _, err := mcp.Open(testContext(t), filepath.Join(t.TempDir(), "missing.json")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Open of a missing file: %v", err)
	}
}

// TestSSE reaches server-everything over the legacy SSE transport, named and by fallback from
// streamable HTTP when the configuration gives only a URL.
func TestSSE(t *testing.T) {
	t.Parallel()
	srv := startNodeHTTP(t, "mcp-server-everything", 0, "sse")
	for _, typ := range []string{mcp.TypeSSE, ""} {
		t.Run("type="+typ, func(t *testing.T) {
			c := mcptest.Connect(t, mcp.ServerConfig{Name: "everything", Type: typ, URL: "http://" + srv.Addr + "/sse"})
			tools, err := c.Tools(testContext(t))
			if err != nil {
				t.Fatal(err)
			}
			mustContain(t, "get-sum", call(t, tools, "get-sum", `{"a":20,"b":22}`), "42")
			mustContain(t, "echo", call(t, tools, "echo", `{"message":"over sse"}`), "over sse")
		})
	}

	// The event stream outlives the call that happened to open it.
	c, err := mcp.Connect(testContext(t), mcp.ServerConfig{Name: "everything", Type: mcp.TypeSSE, URL: "http://" + srv.Addr + "/sse"}, mcp.Deferred())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithCancel(testContext(t))
	tools, err := c.Tools(ctx) // connects
	cancel()
	if err != nil {
		t.Fatal(err)
	}
	mustContain(t, "get-sum after the connecting call", call(t, tools, "get-sum", `{"a":1,"b":1}`), "2")
}

func ExampleLoadConfig() {
	// Servers as Claude Desktop, Cursor or VS Code configure them; Open does this in one call.
	path := filepath.Join(os.TempDir(), "wield-example-mcp.json")
	os.WriteFile(path, []byte(`{"mcpServers": {
		"github": {"url": "https://api.githubcopilot.com/mcp/", "headers": {"Authorization": "Bearer ${GITHUB_TOKEN:-none}"}},
		"files":  {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"]}
	}}`), 0o600)
	defer os.Remove(path)

	cfgs, err := mcp.LoadConfig(path)
	if err != nil {
		fmt.Println(err)
		return
	}
	for i := range cfgs {
		cfgs[i].Prefix = cfgs[i].Name + "_" // keep the servers' tool names apart
		fmt.Println(cfgs[i].Name, cfgs[i].Command, cfgs[i].URL)
	}
	// set, err := mcp.ConnectAll(ctx, cfgs)
	// Output:
	// files npx
	// github  https://api.githubcopilot.com/mcp/
}

// TestLoadConfigWithinBounds: a configuration path that is a device is refused at once, and a
// server named twice is an error rather than the last one silently.
func TestLoadConfigWithinBounds(t *testing.T) {
	if _, err := mcp.LoadConfig("/dev/zero"); err == nil || !strings.Contains(err.Error(), "device") {
		t.Fatalf("/dev/zero: %v", err)
	}
	if _, err := mcp.ParseConfig([]byte(`{"mcpServers":{"a":{"command":"x"},"a":{"command":"y"}}}`)); err == nil || !strings.Contains(err.Error(), "duplicate") {
		t.Fatalf("a server named twice: %v", err)
	}
}
