package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wield-ai/wield/internal/testenv"
	"github.com/wield-ai/wield/mcp"
	"github.com/wield-ai/wield/mcp/mcptest"
	"github.com/wield-ai/wield/tool"
)

// hang returns a channel that blocks until the test ends, for tools and servers that must hang.
func hang(t *testing.T) <-chan struct{} {
	ch := make(chan struct{})
	t.Cleanup(func() { close(ch) })
	return ch
}

// TestCallTimeout: a tool that never answers, even when cancelled, fails its call after the
// server's timeout with an error saying so; the connection stays usable.
func TestCallTimeout(t *testing.T) {
	for _, transport := range mcptest.Transports {
		t.Run(transport, func(t *testing.T) {
			stuck := make(chan struct{})
			s := mustServer(t,
				newTool("stuck", noArgs, func(context.Context, string) (string, error) {
					<-stuck // ignores its context
					return "too late", nil
				}),
				echoTool("echo"),
			)
			cfg := mcptest.Reach(t, transport, "slowpoke", s)
			// Cleanups run last first: the stuck call ends before the HTTP server's Close, which
			// waits for the requests it serves.
			t.Cleanup(func() { close(stuck) })
			// Long enough for the other requests on a loaded machine, whose time counts too.
			cfg.Timeout = time.Second
			tools, err := mcptest.Connect(t, cfg).Tools(testContext(t))
			if err != nil {
				t.Fatal(err)
			}
			if got := toolByName(t, tools, "stuck").Metadata().Timeout; got != 0 {
				t.Errorf("Metadata().Timeout = %v; the client keeps its own timeout", got)
			}
			_, err = toolByName(t, tools, "stuck").Call(testContext(t), `{}`)
			if err == nil || !strings.Contains(err.Error(), `mcp server "slowpoke": tool "stuck" timed out: no answer for 1s`) {
				t.Fatalf("hung call: %v", err)
			}
			if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) || tool.IsFatal(err) {
				t.Errorf("timeout error %v wraps a context error or is fatal; the caller's turn is not over", err)
			}
			if out, err := toolByName(t, tools, "echo").Call(testContext(t), `{"text":"alive"}`); err != nil || out != "echo: alive" {
				t.Errorf("after the timeout: %q, %v", out, err)
			}
		})
	}
}

// TestCallTimeoutRestartsOnProgress: a tool that runs longer than the timeout but reports its
// progress is not cut off, and its reports still reach the caller.
func TestCallTimeoutRestartsOnProgress(t *testing.T) {
	s := mustServer(t, newTool("steady", noArgs, func(ctx context.Context, _ string) (string, error) {
		for i := range 30 {
			tool.ReportProgress(ctx, tool.Progress{Progress: float64(i + 1), Total: 30})
			select {
			case <-time.After(50 * time.Millisecond):
			case <-ctx.Done():
				return "", ctx.Err()
			}
		}
		return "done", nil
	}))
	cfg := inMemory("steady", s)
	cfg.Timeout = 600 * time.Millisecond // under half the tool's run; a report every twelfth of it
	tools, err := mcptest.Connect(t, cfg).Tools(testContext(t))
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var reports int
	ctx := tool.WithProgress(testContext(t), func(tool.Progress) { mu.Lock(); reports++; mu.Unlock() })
	if out, err := tools[0].Call(ctx, `{}`); err != nil || out != "done" {
		t.Fatalf("Call = %q, %v", out, err)
	}
	mu.Lock()
	defer mu.Unlock()
	if reports == 0 {
		t.Error("no progress reached the caller")
	}
	// Without a listener the client still asks for progress, to keep the call alive.
	if out, err := tools[0].Call(testContext(t), `{}`); err != nil || out != "done" {
		t.Fatalf("Call without a progress listener = %q, %v", out, err)
	}
}

// TestMaxCallTime: a tool that reports progress forever keeps resetting the timeout, but not
// MaxCallTime: the call ends with an error that names it, and the tool is cancelled on the
// server.
func TestMaxCallTime(t *testing.T) {
	cancelled := make(chan struct{})
	s := mustServer(t, newTool("forever", noArgs, func(ctx context.Context, _ string) (string, error) {
		for i := 0; ; i++ {
			tool.ReportProgress(ctx, tool.Progress{Progress: float64(i + 1)})
			select {
			case <-time.After(10 * time.Millisecond):
			case <-ctx.Done():
				close(cancelled)
				return "", ctx.Err()
			}
		}
	}))
	cfg := inMemory("forever", s)
	cfg.Timeout = 200 * time.Millisecond
	cfg.MaxCallTime = 300 * time.Millisecond
	tools, err := mcptest.Connect(t, cfg).Tools(testContext(t))
	if err != nil {
		t.Fatal(err)
	}
	_, err = tools[0].Call(testContext(t), `{}`)
	if err == nil || !strings.Contains(err.Error(), "MaxCallTime") || errors.Is(err, context.Canceled) {
		t.Fatalf("Call of a tool that never ends = %v, want an error naming MaxCallTime", err)
	}
	select {
	case <-cancelled:
	case <-time.After(time.Minute):
		t.Fatal("the tool was not cancelled on the server")
	}
}

// TestListTimeout: a server that never answers tools/list fails the listing after the timeout.
func TestListTimeout(t *testing.T) {
	stuck := hang(t)
	s := mustServer(t, echoTool("echo"))
	s.SDK().AddReceivingMiddleware(func(next sdk.MethodHandler) sdk.MethodHandler {
		return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
			if method == "tools/list" {
				<-stuck
			}
			return next(ctx, method, req)
		}
	})
	cfg := inMemory("mute", s)
	cfg.Timeout = 300 * time.Millisecond
	_, err := mcptest.Connect(t, cfg).Tools(testContext(t))
	if err == nil || !strings.Contains(err.Error(), "listing tools: no answer for 300ms") {
		t.Fatalf("hung listing: %v", err)
	}
}

// TestConnectAll: a server that fails to start is reported, with the end of its standard error, and
// the others start; status reports follow each server.
func TestConnectAll(t *testing.T) {
	node := testenv.Bin(t, "node")
	script := `console.error("loading config"); console.error("\x1b[31mfatal: cannot read /etc/app.json\x1b[0m"); process.exit(3)`
	var mu sync.Mutex
	events := map[string][]string{}
	set, err := mcp.ConnectAll(testContext(t), []mcp.ServerConfig{
		inMemory("good", mustServer(t, echoTool("echo"), echoTool("shout"))),
		{Name: "crashy", Command: node, Args: []string{"-e", script}},
		{Name: "mute", Command: node, Args: []string{"-e", "setInterval(() => {}, 1000)"}, ConnectTimeout: 500 * time.Millisecond},
		{Name: "broken", Command: "x", Include: []string{"["}},
		nodeServer(t, "everything", "mcp-server-everything", "stdio"),
	}, mcp.OnStatus(func(s mcp.Status) {
		mu.Lock()
		defer mu.Unlock()
		e := s.State.String()
		if s.State == mcp.Ready {
			e += fmt.Sprint(" ", s.Tools)
		}
		events[s.Server] = append(events[s.Server], e)
	}))
	if err != nil {
		t.Fatal(err)
	}
	defer set.Close()
	var started []string
	for _, c := range set.Clients() {
		started = append(started, c.Name())
	}
	if !slices.Equal(started, []string{"good", "everything"}) {
		t.Errorf("started %v", started)
	}
	failed := map[string]*mcp.StartError{}
	for _, f := range set.Failed() {
		failed[f.Server] = f
	}
	if len(failed) != 3 {
		t.Fatalf("failed: %v", set.Failed())
	}
	crashy := failed["crashy"]
	if crashy == nil || !strings.Contains(crashy.Stderr, "loading config\n\\x1b[31mfatal: cannot read /etc/app.json\\x1b[0m") {
		t.Errorf("crashy's standard error: %q", crashy.Stderr)
	}
	if msg := crashy.Error(); !strings.Contains(msg, `mcp server "crashy"`) || !strings.Contains(msg, "exit status 3") ||
		!strings.Contains(msg, "cannot read /etc/app.json") || strings.Contains(msg, "\x1b") {
		t.Errorf("crashy's error: %q", msg)
	}
	if msg := failed["mute"].Error(); !strings.Contains(msg, "no answer within 500ms") {
		t.Errorf("mute's error: %q", msg)
	}
	if msg := failed["broken"].Error(); !strings.Contains(msg, "tool filter") {
		t.Errorf("broken's error: %q", msg)
	}
	mu.Lock()
	defer mu.Unlock()
	for server, want := range map[string][]string{
		"good":   {"starting", "ready 2"},
		"crashy": {"starting", "failed"},
		"mute":   {"starting", "failed"},
		"broken": {"failed"},
	} {
		if !slices.Equal(events[server], want) {
			t.Errorf("%s: status %v, want %v", server, events[server], want)
		}
	}
	if ev := events["everything"]; len(ev) != 2 || ev[1] == "failed" {
		t.Errorf("everything: status %v", ev)
	}

	// RequireAll is all or nothing, with the same errors.
	_, err = mcp.ConnectAll(testContext(t), []mcp.ServerConfig{inMemory("good", mustServer(t, echoTool("echo"))),
		{Name: "crashy", Command: node, Args: []string{"-e", script}}}, mcp.RequireAll())
	var se *mcp.StartError
	if !errors.As(err, &se) || se.Server != "crashy" || !strings.Contains(err.Error(), "cannot read") {
		t.Errorf("ConnectAll with RequireAll: %v", err)
	}

	// Deferred connects nothing: the crashing server fails on first use, not here.
	set, err = mcp.ConnectAll(testContext(t), []mcp.ServerConfig{{Name: "crashy", Command: node, Args: []string{"-e", script}}}, mcp.Deferred())
	if err != nil || len(set.Clients()) != 1 || len(set.Failed()) != 0 {
		t.Fatalf("Deferred: %v, %v", err, set)
	}
	defer set.Close()
	if _, err := set.Tools(testContext(t)); err == nil || !strings.Contains(err.Error(), "exit status 3") {
		t.Errorf("a deferred crashing server's first use: %v", err)
	}
	if _, err := mcp.ConnectAll(testContext(t), []mcp.ServerConfig{{Name: "broken", Command: "x", Include: []string{"["}}}, mcp.Deferred()); err == nil {
		t.Error("Deferred: a configuration that cannot work was accepted")
	}
}

// TestToolNames: tool names outside the MCP naming rules are made valid (the server still gets its
// own name), a name that cannot be told apart from another after that is left out, each with a
// warning; serving such a name is refused.
func TestToolNames(t *testing.T) {
	raw := sdk.NewServer(&sdk.Implementation{Name: "names", Version: "v0"}, nil)
	long := strings.Repeat("a", 200)
	for _, name := range []string{"ok.name-1", "get weather", "\x1b[2Jwipe", "über", long, long + "b", "a b", "a_b", ""} {
		raw.AddTool(&sdk.Tool{Name: name, InputSchema: json.RawMessage(`{"type":"object"}`)},
			func(_ context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
				return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "I am " + req.Params.Name}}}, nil
			})
	}
	logger, logs := testLogger(t)
	cfg := mcptest.InMemory("names", raw)
	cfg.Logger = logger
	cfg.Prefix = "srv."
	tools, err := mcptest.Connect(t, cfg).Tools(testContext(t))
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]tool.Tool{}
	for _, tl := range tools {
		name := tl.Definition().Name
		if !mcp.ValidToolName(name) {
			t.Errorf("invalid name offered: %q", name)
		}
		byName[name] = tl
	}
	for offered, server := range map[string]string{
		"srv.ok.name-1":   "ok.name-1",
		"srv.get_weather": "get weather",
		"srv.__2Jwipe":    "\x1b[2Jwipe",
		"srv._ber":        "über",
	} {
		tl, ok := byName[offered]
		if !ok {
			t.Errorf("no tool %q among %v", offered, toolNames(tools))
			continue
		}
		if out, err := tl.Call(testContext(t), `{}`); err != nil || out != "I am "+server {
			t.Errorf("%s: %q, %v; the server must get its own name", offered, out, err)
		}
	}
	// The long names keep apart, within 128 characters.
	var longs int
	for name := range byName {
		if strings.HasPrefix(name, "srv.aaaa") {
			longs++
			if len(name) != mcp.MaxToolNameLength {
				t.Errorf("long name cut to %d characters", len(name))
			}
		}
	}
	if longs != 2 {
		t.Errorf("%d long names, want 2", longs)
	}
	// "a b" and "a_b" both become srv.a_b: only the first listed stays; "" is left out.
	if len(tools) != 7 {
		t.Errorf("%d tools offered, want 7: %v", len(tools), toolNames(tools))
	}
	for _, want := range []string{"renamed a tool", `name="get weather"`, "left out a tool whose name", "left out a tool without a name"} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("no warning %q in\n%s", want, logs)
		}
	}
	if strings.Contains(logs.String(), "\x1b") {
		t.Error("a raw escape character reached the log")
	}

	if _, err := mcp.Connect(testContext(t), mcp.ServerConfig{Name: "p", Command: "x", Prefix: "my server/"}, mcp.Deferred()); err == nil {
		t.Error("a prefix outside the naming rules was accepted")
	}
	if err := mustServer(t).AddTools(echoTool("get weather")); err == nil || !strings.Contains(err.Error(), "naming rules") {
		t.Errorf("serving an invalid name: %v", err)
	}
}

// TestResultTextPrefersContent: when a server sends both content and structuredContent, the model
// reads the content; structuredContent stands in only for missing content.
func TestResultTextPrefersContent(t *testing.T) {
	for _, tc := range []struct {
		res  *sdk.CallToolResult
		want string
	}{
		{&sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "It is 21°C and sunny in Rome."}},
			StructuredContent: map[string]any{"temperature": 21, "conditions": "sunny"}}, "It is 21°C and sunny in Rome."},
		{&sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: `"quoted"`}},
			StructuredContent: map[string]any{"result": "quoted"}}, `"quoted"`},
		{&sdk.CallToolResult{StructuredContent: map[string]any{"temperature": 21}}, `{"temperature":21}`},
		{&sdk.CallToolResult{Content: []sdk.Content{}, StructuredContent: json.RawMessage(`{"b":1,"a":2}`)}, `{"b":1,"a":2}`},
	} {
		if got := mcp.ResultText(tc.res); got != tc.want {
			t.Errorf("ResultText = %q, want %q", got, tc.want)
		}
	}
}

// dyingServer is a minimal stdio MCP server in JavaScript whose one tool makes it exit, after
// saying why on standard error.
const dyingServer = `
const rl = require("readline").createInterface({input: process.stdin});
rl.on("line", (line) => {
  const m = JSON.parse(line);
  if (m.id === undefined) return;
  const send = (r) => process.stdout.write(JSON.stringify({jsonrpc: "2.0", id: m.id, ...r}) + "\n");
  if (m.method === "initialize") {
    send({result: {protocolVersion: m.params.protocolVersion, capabilities: {tools: {}}, serverInfo: {name: "dying", version: "0"}}});
  } else if (m.method === "tools/list") {
    send({result: {tools: [{name: "die", inputSchema: {type: "object"}}]}});
  } else if (m.method === "tools/call") {
    console.error("dying: out of memory at /srv/app.js:12");
    process.exit(1);
  } else {
    send({error: {code: -32601, message: "method not found"}});
  }
});`

// TestDeadServer: a stdio server that dies during a call fails the call with an error naming
// the server, never a hang; the warning logged has its exit status and last standard error, which
// the error the model reads does not; the next call starts it again.
func TestDeadServer(t *testing.T) {
	logger, logs := testLogger(t)
	c := mcptest.Connect(t, mcp.ServerConfig{Name: "dying", Command: testenv.Bin(t, "node"), Args: []string{"-e", dyingServer}, Logger: logger})
	tools, err := c.Tools(testContext(t))
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		_, err := tools[0].Call(testContext(t), `{}`)
		if err == nil || !strings.Contains(err.Error(), `mcp server "dying": calling tool "die"`) {
			t.Fatalf("call to a dying server: %v", err)
		}
		if strings.Contains(err.Error(), "/srv/app.js") {
			t.Errorf("the server's standard error reached the call's error: %v", err)
		}
	}
	ctx := testContext(t)
	for strings.Count(logs.String(), "out of memory at /srv/app.js:12") < 2 {
		select {
		case <-ctx.Done():
			t.Fatalf("no warning of the exit in\n%s", logs)
		case <-tick():
		}
	}
	if l := logs.String(); !strings.Contains(l, "exit status 1") || !strings.Contains(l, "out of memory at /srv/app.js:12") {
		t.Errorf("the warning lacks the exit status or standard error:\n%s", l)
	}
}

// TestConnectDeferred: Connect reaches the server before it returns, unless Deferred, which only
// checks the configuration and leaves the first call to find the server unreachable.
func TestConnectDeferred(t *testing.T) {
	ctx := testContext(t)
	gone := mcp.ServerConfig{Name: "gone", Command: filepath.Join(t.TempDir(), "no-such-server")}
	var se *mcp.StartError
	if _, err := mcp.Connect(ctx, gone); !errors.As(err, &se) || se.Server != "gone" {
		t.Fatalf("Connect to a missing command: %v", err)
	}
	c, err := mcp.Connect(ctx, gone, mcp.Deferred())
	if err != nil {
		t.Fatalf("Connect with Deferred: %v", err)
	}
	defer c.Close()
	if _, err := c.Tools(ctx); err == nil {
		t.Fatal("the first call reached a missing command")
	}
	if _, err := mcp.Connect(ctx, mcp.ServerConfig{Name: "bad", Command: "x", Include: []string{"[a"}}, mcp.Deferred()); err == nil {
		t.Fatal("Deferred let a bad pattern through")
	}
	live := mcptest.Connect(t, inMemory("good", mustServer(t, echoTool("echo"))))
	if tools, err := live.Tools(ctx); err != nil || len(tools) != 1 {
		t.Fatalf("tools %v, %v", tools, err)
	}
}
