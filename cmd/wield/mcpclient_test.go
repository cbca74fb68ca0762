package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/client"
	"github.com/wield-ai/wield/tool"
)

// serveTestMCP serves, on stdio, an MCP server with a tool that reports its progress.
func serveTestMCP() {
	srv := sdk.NewServer(&sdk.Implementation{Name: "counter", Version: "v1"}, nil)
	sdk.AddTool(srv, &sdk.Tool{Name: "slowCount", Description: "Counts to three, slowly.", Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}},
		func(ctx context.Context, req *sdk.CallToolRequest, _ struct{}) (*sdk.CallToolResult, any, error) {
			for i := 1; i <= 3; i++ {
				if token := req.Params.GetProgressToken(); token != nil {
					req.Session.NotifyProgress(ctx, &sdk.ProgressNotificationParams{ProgressToken: token, Progress: float64(i), Total: 3, Message: "step " + string(rune('0'+i))})
				}
				// Time for each notification to arrive before the result does.
				time.Sleep(100 * time.Millisecond)
			}
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "counted to 3"}}}, nil, nil
		})
	srv.Run(context.Background(), &sdk.StdioTransport{})
}

// An MCP server that fails to start is reported with the end of its standard error, and the
// chat goes on with the others; a tool's progress reaches the display.
func TestMCPServerFailsOthersGoOn(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cfg := map[string]any{"mcpServers": map[string]any{
		"counter": map[string]any{"command": self, "env": map[string]string{"WIELD_TEST_MCP_SERVER": "1"}},
		"broken":  map[string]any{"command": "sh", "args": []string{"-c", "echo 'opening the database' >&2; echo 'no such file: /nope.db' >&2; exit 3"}},
	}}
	file := filepath.Join(t.TempDir(), "mcp.json")
	b, _ := json.Marshal(cfg)
	os.WriteFile(file, b, 0o644)

	srv := newFakeOpenAI(t, reply{calls: [][2]string{{"slowCount", "{}"}}}, reply{text: "I counted to three."})
	r := wield(t, cleanEnv(t), "", "chat", "--json", "--builtin=false", "--mcp-config", file, "--base-url", srv.v1(), "--model", "gpt-4o", "count")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	for _, want := range []string{
		"wield: MCP server broken (--mcp-config " + file + ") failed to start; going on without it: ",
		"wield:   broken | opening the database\nwield:   broken | no such file: /nope.db\n",
	} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
	var progress []jsonProgress
	var result string
	for _, ev := range jsonEvents(t, r.stdout) {
		switch ev.Type {
		case "progress":
			progress = append(progress, *ev.Progress)
		case "tool_end":
			result = ev.Result
		}
	}
	if result != "counted to 3" || len(progress) == 0 || progress[0] != (jsonProgress{1, 3, "step 1"}) {
		t.Fatalf("result %q, progress %+v\n%s", result, progress, r.stdout)
	}
	// The tools offered are the counter's only.
	if reqs := srv.chatRequests(); len(reqs[0].Tools) != 1 || reqs[0].Tools[0].Function.Name != "slowCount" {
		t.Fatalf("tools offered %+v", reqs[0].Tools)
	}
}

// On a terminal, the spinner of a running tool shows its progress.
func TestSpinnerShowsProgress(t *testing.T) {
	var out, errw bytes.Buffer
	d := newTextDisplay(&out, &errw, textOptions{terminal: true})
	d.waiting()
	d.event(&client.Event{Tool: &client.ToolEvent{Kind: client.ToolStarted, Call: chat.ToolCall{Name: "slowCount", Arguments: "{}"}}})
	d.progress(toolProgress(2, 3, "copying files"))
	d.progress(toolProgress(7, 0, ""))
	d.close()
	if e := errw.String(); !strings.Contains(e, "slowCount {} 2/3 copying files") || !strings.Contains(e, "slowCount {} 7") {
		t.Fatalf("stderr %q", e)
	}
}

// The status line tells which MCP servers are still starting, on a terminal only.
func TestMCPStatusLine(t *testing.T) {
	var errw bytes.Buffer
	a := newApp(strings.NewReader(""), &bytes.Buffer{}, &errw, func(string) string { return "" })
	a.stderrTTY = true
	s := a.newStatusLine(2)
	s.starting("files")
	s.starting("github")
	s.done("files")
	s.done("github")
	s.clear()
	e := errw.String()
	for _, want := range []string{"starting MCP servers (0 of 2 ready): files…", "(0 of 2 ready): files, github…", "(1 of 2 ready): github…"} {
		if !strings.Contains(e, want) {
			t.Errorf("status lacks %q: %q", want, e)
		}
	}
	if !strings.HasSuffix(e, clearLine) {
		t.Errorf("the status line stays: %q", e)
	}
	errw.Reset()
	a.stderrTTY = false
	s = a.newStatusLine(1)
	s.starting("files")
	s.done("files")
	s.clear()
	if errw.Len() != 0 {
		t.Errorf("a status line without a terminal: %q", errw.String())
	}
}

func toolProgress(p, total float64, msg string) tool.Progress {
	return tool.Progress{Progress: p, Total: total, Message: msg}
}
