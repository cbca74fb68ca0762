package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/chattest"
	"github.com/wield-ai/wield/internal/inspector"
	"github.com/wield-ai/wield/internal/testenv"
)

// envArgs turns an environment into the inspector's -e options for a stdio server.
func envArgs(env []string) []string {
	var out []string
	for _, kv := range env {
		out = append(out, "-e", kv)
	}
	return out
}

func TestBinaryMCPServeStdio(t *testing.T) {
	target := append(envArgs(cleanEnv(t)), wieldBin, "mcp", "serve")
	if names := inspector.ListTools(t, target); strings.Join(names, ",") != "getCurrentDateTime,setAlarm" {
		t.Fatalf("tools %v", names)
	}
	if text, isErr := inspector.CallTool(t, target, "getCurrentDateTime"); isErr || !strings.Contains(text, "time zone Asia/Tokyo") {
		t.Fatalf("getCurrentDateTime: %q, error %v", text, isErr)
	}
	if text, isErr := inspector.CallTool(t, target, "setAlarm", "time=2999-01-01T07:00:00", "label=tea"); isErr || !strings.HasPrefix(text, "Alarm set for 2999-01-01T07:00:00+09:00 (tea)") {
		t.Fatalf("setAlarm: %q, error %v", text, isErr)
	}
	if text, isErr := inspector.CallTool(t, target, "setAlarm", "time=yesterday"); !isErr || !strings.Contains(text, "ISO-8601") {
		t.Fatalf("setAlarm with a bad time: %q, error %v", text, isErr)
	}
	search := append(envArgs(cleanEnv(t)), wieldBin, "mcp", "serve", "--tool-search")
	if names := inspector.ListTools(t, search); strings.Join(names, ",") != "toolSearchTool" {
		t.Fatalf("--tool-search lists %v", names)
	}
	if text, isErr := inspector.CallTool(t, search, "toolSearchTool", "query=alarm"); isErr || !strings.Contains(text, "- setAlarm: Sets a user alarm") {
		t.Fatalf("toolSearchTool: %q, error %v", text, isErr)
	}
}

func TestBinaryMCPServeHTTP(t *testing.T) {
	cmd := exec.Command(wieldBin, "mcp", "serve", "--http", "127.0.0.1:0")
	cmd.Env = cleanEnv(t)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	sc := bufio.NewScanner(stderr)
	if !sc.Scan() {
		t.Fatalf("no output from mcp serve: %v", sc.Err())
	}
	url, ok := strings.CutPrefix(sc.Text(), "wield: serving MCP on ")
	if !ok || !strings.HasPrefix(url, "http://127.0.0.1:") {
		t.Fatalf("first line %q", sc.Text())
	}
	go io.Copy(io.Discard, stderr)
	target := []string{url, "--transport", "http"}
	if names := inspector.ListTools(t, target); strings.Join(names, ",") != "getCurrentDateTime,setAlarm" {
		t.Fatalf("tools %v", names)
	}
	if text, isErr := inspector.CallTool(t, target, "getCurrentDateTime"); isErr || !strings.Contains(text, "Asia/Tokyo") {
		t.Fatalf("getCurrentDateTime: %q, error %v", text, isErr)
	}
	// An interrupt stops the server cleanly.
	cmd.Process.Signal(syscall.SIGINT)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("after SIGINT: %v", err)
	}
}

// TestMCPServeToolSearchSession checks, with an MCP client in process, that a search adds the
// tools found to the session's list and announces the change.
func TestMCPServeToolSearchSession(t *testing.T) {
	a := newApp(strings.NewReader(""), io.Discard, io.Discard, func(string) string { return "" })
	c, err := a.loadCatalog(t.Context(), toolFlags{builtin: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	srv, err := a.mcpServer(t.Context(), c, true)
	if err != nil {
		t.Fatal(err)
	}
	st, ct := sdk.NewInMemoryTransports()
	ss, err := srv.Connect(t.Context(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	changed := make(chan struct{}, 4)
	cl := sdk.NewClient(&sdk.Implementation{Name: "test"}, &sdk.ClientOptions{
		ToolListChangedHandler: func(context.Context, *sdk.ToolListChangedRequest) { changed <- struct{}{} },
	})
	cs, err := cl.Connect(t.Context(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	names := func() string {
		res, err := cs.ListTools(t.Context(), nil)
		if err != nil {
			t.Fatal(err)
		}
		var n []string
		for _, tl := range res.Tools {
			n = append(n, tl.Name)
		}
		return strings.Join(n, ",")
	}
	if got := names(); got != "toolSearchTool" {
		t.Fatalf("before a search: %s", got)
	}
	res, err := cs.CallTool(t.Context(), &sdk.CallToolParams{Name: "toolSearchTool", Arguments: map[string]any{"query": "set an alarm", "maxResults": 1}})
	if err != nil || res.IsError {
		t.Fatalf("search: %v %+v", err, res)
	}
	<-changed
	if got := names(); got != "setAlarm,toolSearchTool" {
		t.Fatalf("after a search: %s", got)
	}
	res, err = cs.CallTool(t.Context(), &sdk.CallToolParams{Name: "setAlarm", Arguments: map[string]any{"time": "2999-01-01T07:00:00"}})
	if err != nil || res.IsError {
		t.Fatalf("calling the tool found: %v %+v", err, res)
	}
}

// everythingConfig writes an mcpServers file with the reference server-everything.
func everythingConfig(t *testing.T) string {
	t.Helper()
	cfg := map[string]any{"mcpServers": map[string]any{
		"everything": map[string]any{
			"command": testenv.Bin(t, "mcp-server-everything"),
			"args":    []string{"stdio"},
			"env":     map[string]string{"PATH": testenv.Path()},
		},
	}}
	b, _ := json.Marshal(cfg)
	path := filepath.Join(t.TempDir(), "mcp.json")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestBinaryMCPConfig(t *testing.T) {
	cfg := everythingConfig(t)
	r := wield(t, cleanEnv(t), "", "tools", "list", "--json", "--mcp-config", cfg)
	var tools []toolJSON
	if err := json.Unmarshal([]byte(r.stdout), &tools); err != nil || r.code != 0 {
		t.Fatalf("exit %d, %v\n%s", r.code, err, r.stderr)
	}
	sources := map[string]string{}
	for _, tl := range tools {
		sources[tl.Name] = tl.Source
	}
	if sources["echo"] != "mcp:everything" || sources["setAlarm"] != "built-in" {
		t.Fatalf("sources %v", sources)
	}
	r = wield(t, cleanEnv(t), "", "tools", "call", "--mcp-config", cfg, "echo", `{"message":"hello wield"}`)
	if r.code != 0 || !strings.Contains(r.stdout, "Echo: hello wield") {
		t.Fatalf("tools call echo: %+v", r)
	}
	r = wield(t, cleanEnv(t), "", "tools", "search", "--mcp-config", cfg, "--builtin=false", "echo back the message")
	if r.code != 0 || !strings.HasPrefix(r.stdout, "echo ") {
		t.Fatalf("tools search: %+v", r)
	}
	// The tools of the configured servers reach the model in a chat.
	m := chattest.New(chattest.Calls(chattest.Call("echo", `{"message":"ping"}`)), chattest.Text("It said ping."))
	stdout, stderr, code := run(t, keyEnv(t), m, "", "chat", "--mcp-config", cfg, "Echo ping")
	if code != 0 || stdout != "It said ping.\n" {
		t.Fatalf("chat: exit %d, %q, %s", code, stdout, stderr)
	}
	last := m.Prompts()[1].Messages[len(m.Prompts()[1].Messages)-1]
	if last.Role != chat.RoleTool || !strings.Contains(last.ToolResults[0].Content, "Echo: ping") {
		t.Fatalf("tool result %v", last)
	}
	// A bad file is an error saying so.
	r = wield(t, cleanEnv(t), "", "tools", "list", "--mcp-config", filepath.Join(t.TempDir(), "missing.json"))
	if r.code != exitError || !strings.Contains(r.stderr, "--mcp-config") {
		t.Fatalf("missing config: %+v", r)
	}
}
