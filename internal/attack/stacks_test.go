package attack

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"go/build"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/chattest"
	"github.com/wield-ai/wield/client"
	"github.com/wield-ai/wield/mcp"
	"github.com/wield-ai/wield/mcp/mcptest"
	"github.com/wield-ai/wield/tool"
)

// internals are the marks of a stack trace or of a path inside the program: what a panic's stack
// holds, the module's source directory, the Go installation's.
func internals(t *testing.T) []string {
	_, file, _, _ := runtime.Caller(0)
	module := filepath.Dir(filepath.Dir(filepath.Dir(file)))
	marks := []string{"goroutine ", ".go:", "runtime/debug", "panic(", "+0x", module, build.Default.GOROOT}
	if home, err := os.UserHomeDir(); err == nil && home != "/" {
		marks = append(marks, home)
	}
	return marks
}

// checkText fails t when text shows a stack trace or an internal path.
func checkText(t *testing.T, who, text string) {
	t.Helper()
	for _, mark := range internals(t) {
		if mark != "" && strings.Contains(text, mark) {
			t.Errorf("%s reads %q, which shows %q", who, text, mark)
		}
	}
}

// crashingTools fail in the ways a Go tool can crash: runtime errors, panics with errors and
// values, a panicking result converter, a goroutine that exits, a sub-agent whose model panics.
func crashingTools(t *testing.T) []tool.Tool {
	type in struct {
		N int `json:"n"`
	}
	fn := func(name string, f func(n int) (string, error), opts ...tool.FuncOption) tool.Tool {
		return tool.Must(tool.Func(name, "Crash", func(_ context.Context, in in) (string, error) { return f(in.N) }, opts...))
	}
	var nilMap map[string]int
	var nilPtr *struct{ x int }
	inner, err := client.New(chattest.New(chattest.Respond(func(context.Context, *chat.Prompt) (*chat.Response, error) {
		panic(fmt.Sprintf("model crashed\n%s", debug.Stack()))
	})))
	if err != nil {
		t.Fatal(err)
	}
	agent, err := client.AgentTool(inner, "agent", "A sub-agent")
	if err != nil {
		t.Fatal(err)
	}
	return []tool.Tool{
		fn("index", func(n int) (string, error) { return []string{"a"}[n], nil }),
		fn("nilmap", func(n int) (string, error) { nilMap["x"] = n; return "", nil }),
		fn("nilptr", func(n int) (string, error) { return fmt.Sprint(nilPtr.x + n), nil }),
		fn("errpanic", func(int) (string, error) { panic(errors.New("crashed")) }),
		fn("goexit", func(int) (string, error) { runtime.Goexit(); return "", nil }),
		fn("converter", func(int) (string, error) { return "ok", nil },
			tool.WithConverter(tool.ConverterFunc(func(context.Context, any) (string, error) { var m map[int]int; m[1] = 1; return "", nil }))),
		fn("stackpanic", func(int) (string, error) { panic(fmt.Sprintf("crashed\n%s", debug.Stack())) }),
		agent,
	}
}

// No stack trace or internal path reaches a model, whatever a tool does: the tool loop tells the
// model that the tool panicked (with the runtime's own message, which names no file), never the
// stack.
func TestAttackNoStackTracesToModels(t *testing.T) {
	tools := crashingTools(t)
	var calls []chat.ToolCall
	for _, tl := range tools {
		args := `{"n":3}`
		if tl.Definition().Name == "agent" {
			args = `{"input":"go"}`
		}
		calls = append(calls, chattest.Call(tl.Definition().Name, args))
	}
	m := chattest.New(chattest.Calls(calls...), chattest.Text("done"))
	c, err := client.New(m, client.WithTools(tools), client.WithLogger(discard()))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Prompt("crash everything").Call(context.Background()).Content(); err != nil {
		t.Fatal(err)
	}
	results := m.Prompt(1).Messages[len(m.Prompt(1).Messages)-1].ToolResults
	if len(results) != len(tools) {
		t.Fatalf("%d results for %d calls", len(results), len(tools))
	}
	for _, r := range results {
		if !r.IsError {
			t.Errorf("%s: not an error: %s", r.Name, r.Content)
		}
		t.Logf("%s: %s", r.Name, r.Content)
		checkText(t, "the model, from "+r.Name+",", r.Content)
	}
}

// No stack trace or internal path reaches an MCP client: a served tool's crash, a proxied
// server's crash, a crashing error processor and a failing session factory give neutral
// messages; the details go to the server's log.
func TestAttackNoStackTracesToMCPClients(t *testing.T) {
	tools := crashingTools(t)
	crashingResult := mcp.NewResultTool(tool.Definition{Name: "result"}, func(context.Context, string) (*sdk.CallToolResult, error) {
		var m map[int]int
		m[0] = 1
		return nil, nil
	})
	tools = append(tools, crashingResult)
	calls := func(t *testing.T, c *mcp.Client, prefix string) {
		for _, tl := range tools {
			args := `{"n":3}`
			if tl.Definition().Name == "agent" {
				args = `{"input":"go"}`
			}
			s, err := c.Session(testContext(t))
			if err != nil {
				t.Fatal(err)
			}
			res, err := s.CallTool(testContext(t), &sdk.CallToolParams{Name: prefix + tl.Definition().Name, Arguments: json.RawMessage(args)})
			var text string
			if err != nil {
				text = err.Error()
			} else {
				text = mcp.ResultText(res)
				if !res.IsError {
					t.Errorf("%s: not an error: %s", tl.Definition().Name, text)
				}
			}
			checkText(t, "the MCP client, from "+tl.Definition().Name+",", text)
		}
	}

	for _, transport := range mcptest.Transports {
		t.Run(transport, func(t *testing.T) {
			r := newRecorder(t)
			s, err := mcp.NewServer(nil, &mcp.ServerOptions{Logger: r.log}, tools...)
			if err != nil {
				t.Fatal(err)
			}
			cfg := mcptest.Reach(t, transport, "crashing", s)
			c := mcptest.Connect(t, cfg)
			calls(t, c, "")
			if !strings.Contains(r.text(), "goroutine ") {
				t.Error("the server's log lacks the stacks")
			}

			// The same tools proxied by a second server: its client reads no more.
			upstream, err := c.Tools(testContext(t))
			if err != nil {
				t.Fatal(err)
			}
			proxy, err := mcp.NewServer(nil, &mcp.ServerOptions{Logger: r.log}, upstream...)
			if err != nil {
				t.Fatal(err)
			}
			calls(t, mcptest.Connect(t, inMemory("proxy", proxy)), "")
		})
	}

	// A crashing error processor: the request fails with a neutral protocol error.
	t.Run("error processor", func(t *testing.T) {
		r := newRecorder(t)
		proc := mcp.ErrorProcessorFunc(func(context.Context, *tool.ExecutionError) (string, error) {
			panic(fmt.Sprintf("processor crashed\n%s", debug.Stack()))
		})
		s, err := mcp.NewServer(nil, &mcp.ServerOptions{Logger: r.log, ErrorProcessor: proc}, tools...)
		if err != nil {
			t.Fatal(err)
		}
		calls(t, mcptest.Connect(t, inMemory("processor", s)), "")
		if !strings.Contains(r.text(), "processor crashed") {
			t.Error("the server's log lacks the processor's panic")
		}
	})

	// A session factory that fails with an internal path: the HTTP answer does not repeat it.
	t.Run("session factory", func(t *testing.T) {
		r := newRecorder(t)
		s, err := mcp.NewServer(nil, &mcp.ServerOptions{Logger: r.log})
		if err != nil {
			t.Fatal(err)
		}
		h, err := s.Handler(&mcp.HTTPOptions{SessionServer: func(*http.Request) (*mcp.Server, error) {
			return nil, fmt.Errorf("open %s: permission denied\n%s", filepath.Join(build.Default.GOROOT, "x.go"), debug.Stack())
		}})
		if err != nil {
			t.Fatal(err)
		}
		srv := newHTTPServer(t, h)
		body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`
		req, _ := http.NewRequest(http.MethodPost, srv, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		answer, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode < 400 {
			t.Errorf("status %d for a session the factory failed", resp.StatusCode)
		}
		checkText(t, "the HTTP client", string(answer))
	})
}
