package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/chattest"
	"github.com/wield-ai/wield/internal/inspector"
	"github.com/wield-ai/wield/internal/testenv"
	"github.com/wield-ai/wield/mcp"
	"github.com/wield-ai/wield/mcp/mcptest"
	"github.com/wield-ai/wield/tool"
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
	// The built-in tools publish their hints: the clock reads, an alarm adds and destroys nothing.
	stdout, stderr, code := inspector.Run(t, target, "--method", "tools/list")
	var listed sdk.ListToolsResult
	if err := json.Unmarshal([]byte(stdout), &listed); code != 0 || err != nil {
		t.Fatalf("tools/list: exit %d, %v\n%s", code, err, stderr)
	}
	hints := map[string]string{}
	for _, tl := range listed.Tools {
		a, _ := json.Marshal(tl.Annotations)
		hints[tl.Name] = string(a)
	}
	if want := map[string]string{
		"getCurrentDateTime": `{"idempotentHint":false,"openWorldHint":false,"readOnlyHint":true}`,
		"setAlarm":           `{"destructiveHint":false,"idempotentHint":false,"openWorldHint":false,"readOnlyHint":false}`,
	}; !maps.Equal(hints, want) {
		t.Errorf("annotations %v, want %v", hints, want)
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
	url, cmd := startServeCmd(t, cleanEnv(t))
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
	srv, err := a.mcpServer(t.Context(), c, true, mcp.DefaultMaxConcurrentCalls, nil)
	if err != nil {
		t.Fatal(err)
	}
	st, ct := sdk.NewInMemoryTransports()
	ss, err := srv.SDK().Connect(t.Context(), st, nil)
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
	tools, _ := listTools(t, cleanEnv(t), "--mcp-config", cfg)
	sources := map[string]string{}
	for _, tl := range tools {
		sources[tl.Name] = tl.Source
	}
	if sources["echo"] != "mcp:everything" || sources["setAlarm"] != "built-in" {
		t.Fatalf("sources %v", sources)
	}
	r := wield(t, cleanEnv(t), "", "tools", "call", "--mcp-config", cfg, "echo", `{"message":"hello wield"}`)
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

// countingTool counts how often its definition is read, which serving it does once per server
// built.
type countingTool struct {
	tool.Tool
	reads *atomic.Int32
}

func (c countingTool) Definition() tool.Definition {
	c.reads.Add(1)
	return c.Tool.Definition()
}

// TestMCPServeHTTPBuildsOnce: over HTTP the server, its schemas compiled, is built once; requests
// with a bogus session id (or refused ones) build nothing, with or without --tool-search.
func TestMCPServeHTTPBuildsOnce(t *testing.T) {
	for _, toolSearch := range []bool{false, true} {
		t.Run(fmt.Sprint("tool-search=", toolSearch), func(t *testing.T) {
			a := newApp(strings.NewReader(""), io.Discard, io.Discard, func(string) string { return "" })
			c, err := a.loadCatalog(t.Context(), toolFlags{builtin: true}, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			reads := &atomic.Int32{}
			echo := tool.Must(tool.Func("echoText", "Echo a text back", func(_ context.Context, in struct {
				Text string `json:"text"`
			}) (string, error) {
				return in.Text, nil
			}))
			if err := c.add("test", []tool.Tool{countingTool{echo, reads}}); err != nil {
				t.Fatal(err)
			}
			f := serveFlags{sessionTimeout: time.Minute, maxSessions: 10, maxRequestBytes: 1 << 20, toolSearch: toolSearch}
			opts, err := f.httpOptions()
			if err != nil {
				t.Fatal(err)
			}
			srv, err := a.mcpServer(t.Context(), c, toolSearch, mcp.DefaultMaxConcurrentCalls, opts)
			if err != nil {
				t.Fatal(err)
			}
			ts := mcptest.NewServer(t, srv, opts)
			before := reads.Load()
			for range 50 {
				for _, hdr := range []map[string]string{{"Mcp-Session-Id": "BOGUS"}, {"Origin": "http://evil.example"}} {
					resp := mcptest.Post(t, ts.URL, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, hdr)
					resp.Body.Close()
					if resp.StatusCode != http.StatusNotFound && resp.StatusCode != http.StatusForbidden {
						t.Fatalf("%v: %s", hdr, resp.Status)
					}
				}
			}
			if after := reads.Load(); after != before {
				t.Fatalf("100 refused requests read the tools' definitions %d times", after-before)
			}
		})
	}
}

// startServe runs wield mcp serve --http in the background and returns its URL.
func startServe(t *testing.T, env []string, args ...string) string {
	t.Helper()
	url, _ := startServeCmd(t, env, args...)
	return url
}

// startServeCmd is startServe that returns the process too.
func startServeCmd(t *testing.T, env []string, args ...string) (string, *exec.Cmd) {
	t.Helper()
	first, cmd := startServer(t, env, append([]string{"mcp", "serve", "--http", "127.0.0.1:0"}, args...)...)
	url, ok := strings.CutPrefix(first, "wield: serving MCP on ")
	if !ok || !strings.HasPrefix(url, "http://127.0.0.1:") {
		t.Fatalf("first line %q", first)
	}
	return url, cmd
}

// startServer runs the command with args in the background until the test ends and returns the
// first line it writes to standard error (where a server says where it listens).
func startServer(t *testing.T, env []string, args ...string) (string, *exec.Cmd) {
	t.Helper()
	cmd := exec.Command(wieldBin, args...)
	cmd.Env = env
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
		t.Fatalf("no output from wield %s: %v", strings.Join(args, " "), sc.Err())
	}
	go io.Copy(io.Discard, stderr)
	return sc.Text(), cmd
}

// TestBinaryMCPServeAuth: with a token, only clients sending it are served.
func TestBinaryMCPServeAuth(t *testing.T) {
	url := startServe(t, append(cleanEnv(t), tokenEnv+"=s3cret"))
	ctx := t.Context()
	if _, err := mcp.Connect(ctx, mcp.ServerConfig{Name: "anon", Type: mcp.TypeHTTP, URL: url}); err == nil {
		t.Fatal("a client without the token was served")
	}
	c, err := mcp.Connect(ctx, mcp.ServerConfig{Name: "wield", Type: mcp.TypeHTTP, URL: url, Headers: map[string]string{"Authorization": "Bearer s3cret"}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	tools, err := c.Tools(ctx)
	if err != nil || len(tools) != 2 {
		t.Fatalf("tools %v, %v", tools, err)
	}
}

// TestBinaryMCPServeRefusesRemote: an address reachable from other machines needs a token or an
// explicit opt-out, and nothing listens when it is refused.
func TestBinaryMCPServeRefusesRemote(t *testing.T) {
	for _, addr := range []string{"0.0.0.0:0", ":0", "[::]:0"} {
		r := wield(t, cleanEnv(t), "", "mcp", "serve", "--http", addr)
		if r.code != exitUsage || !strings.Contains(r.stderr, "--auth-token") || !strings.Contains(r.stderr, "--allow-unauthenticated") {
			t.Errorf("--http %s without a token: exit %d\n%s", addr, r.code, r.stderr)
		}
		if strings.Contains(r.stderr, "serving MCP") {
			t.Errorf("--http %s: served before refusing", addr)
		}
	}
	for _, bad := range [][]string{{"--max-request-bytes", "0"}, {"--max-sessions", "-1"}, {"--allow-origin", "example.com"}} {
		r := wield(t, cleanEnv(t), "", append([]string{"mcp", "serve", "--http", "127.0.0.1:0"}, bad...)...)
		if r.code != exitUsage || strings.Contains(r.stderr, "serving MCP") {
			t.Errorf("%v: exit %d\n%s", bad, r.code, r.stderr)
		}
	}
}

// TestBinaryMCPServeStdioBadFrames: the stdio server answers an oversized frame and one that is
// not JSON with errors, and goes on serving.
func TestBinaryMCPServeStdioBadFrames(t *testing.T) {
	cmd := exec.Command(wieldBin, "mcp", "serve")
	cmd.Env = cleanEnv(t)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr := &testenv.Buffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	answer := func() map[string]any {
		t.Helper()
		if !sc.Scan() {
			t.Fatalf("the server stopped: %v\n%s", sc.Err(), stderr.String())
		}
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	send := func(s string) {
		t.Helper()
		if _, err := io.WriteString(stdin, s+"\n"); err != nil {
			t.Fatalf("writing: %v\n%s", err, stderr.String())
		}
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`)
	answer()
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	// Written in the background, so that a server that stops reading fails the test instead of
	// blocking it.
	go io.WriteString(stdin, `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"getCurrentDateTime","arguments":{"pad":"`+strings.Repeat("x", 20<<20)+`"}},"id":2}`+"\n")
	if m := answer(); m["id"] != 2.0 || m["error"] == nil {
		t.Fatalf("oversized frame: %v", m)
	}
	send(`{"jsonrpc":"2.0","id":3,"method":`)
	if m := answer(); m["error"] == nil {
		t.Fatalf("malformed frame: %v", m)
	}
	send(`{"jsonrpc":"2.0","id":4,"method":"tools/list"}`)
	if m := answer(); m["id"] != 4.0 || m["result"] == nil {
		t.Fatalf("after the bad frames: %v", m)
	}
	if !strings.Contains(stderr.String(), "dropped an oversized frame") {
		t.Errorf("nothing logged:\n%s", stderr.String())
	}
}

// TestBinaryMCPConfigFailingServer: a server that fails to start is reported with its standard
// error and the others go on; prefix, include and timeout come from the file.
func TestBinaryMCPConfigFailingServer(t *testing.T) {
	node := testenv.Bin(t, "node")
	cfg := map[string]any{"mcpServers": map[string]any{
		"everything": map[string]any{
			"command": testenv.Bin(t, "mcp-server-everything"),
			"args":    []string{"stdio"},
			"env":     map[string]string{"PATH": testenv.Path()},
			"prefix":  "ev_",
			"include": []string{"echo", "get-*"},
			"exclude": []string{"get-env"},
			"timeout": "2m",
		},
		"crashy": map[string]any{
			"command": node,
			"args":    []string{"-e", `console.error("crashy: missing API key"); process.exit(2)`},
		},
		"off": map[string]any{"command": "/does/not/exist", "disabled": true},
	}}
	b, _ := json.Marshal(cfg)
	path := filepath.Join(t.TempDir(), "mcp.json")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	tools, r := listTools(t, cleanEnv(t), "--builtin=false", "--mcp-config", path)
	if !strings.Contains(r.stderr, `MCP server crashy`) || !strings.Contains(r.stderr, "failed to start") || !strings.Contains(r.stderr, "crashy: missing API key") {
		t.Errorf("no report of the failing server:\n%s", r.stderr)
	}
	var names []string
	for _, tl := range tools {
		names = append(names, tl.Name)
	}
	if !slices.Contains(names, "ev_echo") || !slices.Contains(names, "ev_get-sum") || slices.Contains(names, "ev_get-env") || slices.Contains(names, "ev_trigger-long-running-operation") {
		t.Errorf("tools %v", names)
	}
}

// TestMCPServeMaxCalls: --max-calls caps the calls the served tools run at once (a call beyond
// is refused as busy), 0 lifts the cap, and a negative value is a usage error.
func TestMCPServeMaxCalls(t *testing.T) {
	for _, tc := range []struct {
		maxCalls int
		busy     bool
	}{{1, true}, {0, false}} {
		t.Run(fmt.Sprint("max-calls=", tc.maxCalls), func(t *testing.T) {
			a := newApp(strings.NewReader(""), io.Discard, io.Discard, func(string) string { return "" })
			c, err := a.loadCatalog(t.Context(), toolFlags{builtin: true}, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			started, release := make(chan struct{}, 2), make(chan struct{})
			hold := tool.Must(tool.Func("holdOn", "Wait until released", func(ctx context.Context, _ struct{}) (string, error) {
				started <- struct{}{}
				select {
				case <-release:
					return "released", nil
				case <-ctx.Done():
					return "", ctx.Err()
				}
			}))
			if err := c.add("test", []tool.Tool{hold}); err != nil {
				t.Fatal(err)
			}
			srv, err := a.mcpServer(t.Context(), c, false, tc.maxCalls, nil)
			if err != nil {
				t.Fatal(err)
			}
			session, err := mcptest.Connect(t, mcptest.InMemory("wield", srv.SDK())).Session(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			type result struct {
				text string
				err  error
			}
			call := func() result {
				res, err := session.CallTool(t.Context(), &sdk.CallToolParams{Name: "holdOn", Arguments: map[string]any{}})
				if err != nil {
					return result{err: err}
				}
				text := ""
				for _, c := range res.Content {
					if tc, ok := c.(*sdk.TextContent); ok {
						text += tc.Text
					}
				}
				if res.IsError {
					return result{err: errors.New(text)}
				}
				return result{text: text}
			}
			first := make(chan result, 1)
			go func() { first <- call() }()
			<-started
			second := make(chan result, 1)
			if tc.busy {
				if r := call(); r.err == nil || !strings.Contains(r.err.Error(), "busy") {
					t.Fatalf("a second call while one runs: %+v", r)
				}
			} else {
				go func() { second <- call() }()
				<-started // both run at once
			}
			close(release)
			if r := <-first; r.err != nil || r.text != "released" {
				t.Fatalf("first call: %+v", r)
			}
			if !tc.busy {
				if r := <-second; r.err != nil || r.text != "released" {
					t.Fatalf("second call: %+v", r)
				}
			}
		})
	}
	_, stderr, code := run(t, nil, nil, "", "mcp", "serve", "--max-calls", "-1")
	if code != exitUsage || !strings.Contains(stderr, "--max-calls must not be negative") {
		t.Fatalf("--max-calls -1: exit %d, %q", code, stderr)
	}
}
