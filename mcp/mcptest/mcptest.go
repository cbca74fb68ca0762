// Package mcptest connects tests to MCP servers running in the test's own process, over the
// SDK's in-memory transports or over streamable HTTP on 127.0.0.1, as net/http/httptest does for
// handlers.
package mcptest

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wield-ai/wield/mcp"
)

// AskingServer returns an SDK server named name whose one tool, toolName, asks its client
// question as the 2026-07-28 protocol asks (the call's result holds the question, and the call
// made again brings the answer) and then returns the answer as text: its action, a space and
// its content as JSON, such as `accept {"seats":2}`. runs, when not nil, counts the tool's runs.
func AskingServer(name, toolName string, question *sdk.ElicitParams, runs *atomic.Int32) *sdk.Server {
	s := sdk.NewServer(&sdk.Implementation{Name: name}, nil)
	sdk.AddTool(s, &sdk.Tool{Name: toolName, InputSchema: map[string]any{"type": "object"}},
		func(ctx context.Context, req *sdk.CallToolRequest, _ map[string]any) (*sdk.CallToolResult, any, error) {
			if runs != nil {
				runs.Add(1)
			}
			res, ok := req.Params.InputResponses["question"].(*sdk.ElicitResult)
			if !ok {
				return &sdk.CallToolResult{InputRequests: sdk.InputRequestMap{"question": question}}, nil, nil
			}
			c, _ := json.Marshal(res.Content)
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: res.Action + " " + string(c)}}}, nil, nil
		})
	return s
}

// patience bounds each call to a server, so that a hang fails the test instead of stalling it.
const patience = 2 * time.Minute

// InMemory returns a configuration named name that reaches s over the SDK's in-memory
// transports, a new session for each connection. For a wield server, pass its SDK().
func InMemory(name string, s *sdk.Server) mcp.ServerConfig {
	return mcp.ServerConfig{Name: name, Transport: func() (sdk.Transport, error) {
		ct, st := sdk.NewInMemoryTransports()
		if _, err := s.Connect(context.Background(), st, nil); err != nil {
			return nil, err
		}
		return ct, nil
	}}
}

// OverHTTP serves s over streamable HTTP on 127.0.0.1 until t ends and returns a configuration
// named name that reaches it.
func OverHTTP(t testing.TB, name string, s *mcp.Server) mcp.ServerConfig {
	t.Helper()
	return mcp.ServerConfig{Name: name, Type: mcp.TypeHTTP, URL: NewServer(t, s, nil).URL}
}

// NewServer serves s over streamable HTTP on 127.0.0.1, with the protections opts describe (nil:
// the defaults), until t ends.
func NewServer(t testing.TB, s *mcp.Server, opts *mcp.HTTPOptions) *httptest.Server {
	t.Helper()
	h, err := s.Handler(opts)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	return ts
}

// Post sends body (a JSON-RPC message) to the streamable HTTP endpoint at url as an MCP client
// does, with the headers one sends plus extra, and returns the response; its body is closed when
// t ends. It fails t if the request cannot be made.
func Post(t testing.TB, url, body string, extra map[string]string) *http.Response {
	t.Helper()
	req, err := http.NewRequestWithContext(bounded(t), http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range extra {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// Transports are the transports [Reach] reaches a server over, for tests that run on each.
var Transports = []string{"memory", "http"}

// Reach returns a configuration named name that reaches s over transport: "memory" ([InMemory])
// or "http" ([OverHTTP]). It fails t on another transport.
func Reach(t testing.TB, transport, name string, s *mcp.Server) mcp.ServerConfig {
	t.Helper()
	switch transport {
	case "memory":
		return InMemory(name, s.SDK())
	case "http":
		return OverHTTP(t, name, s)
	}
	t.Fatalf("mcptest: unknown transport %q", transport)
	return mcp.ServerConfig{}
}

// Connect connects to the server of cfg and closes the client when t ends. It fails t if the
// connection fails.
func Connect(t testing.TB, cfg mcp.ServerConfig) *mcp.Client {
	t.Helper()
	c, err := mcp.Connect(bounded(t), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// CallRaw calls tool name with the JSON arguments args through c's session and returns the MCP
// result as the server sent it, before wield turns it into a tool result. It fails t if the call
// fails at the protocol level; a tool's error is in the result.
func CallRaw(t testing.TB, c *mcp.Client, name, args string) *sdk.CallToolResult {
	t.Helper()
	s, err := c.Session(bounded(t))
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.CallTool(bounded(t), &sdk.CallToolParams{Name: name, Arguments: json.RawMessage(args)})
	if err != nil {
		t.Fatalf("CallTool(%s): %v", name, err)
	}
	return res
}

// bounded is a context that ends after patience or when t's cleanup runs, after the clients'
// (t.Context ends before cleanup, which would stop a client before Close).
func bounded(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), patience)
	t.Cleanup(cancel)
	return ctx
}
