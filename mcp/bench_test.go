package mcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wield-ai/wield/mcp"
	"github.com/wield-ai/wield/mcp/mcptest"
	"github.com/wield-ai/wield/tool"
)

type addIn struct {
	A float64 `json:"a"`
	B float64 `json:"b"`
}

const addSchema = `{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"}},"required":["a","b"],"additionalProperties":false}`

// BenchmarkCall measures one tool call over in-memory transports. The baseline is the Go SDK on
// both sides (a typed AddTool handler called with ClientSession.CallTool); "wield-server" serves
// the same tool with mcp.AddTools; "wield-both" also calls it through a wield Client's tool.Tool.
func BenchmarkCall(b *testing.B) {
	sdkServer := sdk.NewServer(&sdk.Implementation{Name: "bench", Version: "v0"}, nil)
	sdk.AddTool(sdkServer, &sdk.Tool{Name: "add"}, func(_ context.Context, _ *sdk.CallToolRequest, in addIn) (*sdk.CallToolResult, any, error) {
		out, _ := json.Marshal(in.A + in.B)
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: string(out)}}}, nil, nil
	})
	wieldServer, err := mcp.Start(mcp.ServerOptions{}, newTool("add", addSchema, func(_ context.Context, args string) (string, error) {
		var in addIn
		if err := json.Unmarshal([]byte(args), &in); err != nil {
			return "", err
		}
		out, _ := json.Marshal(in.A + in.B)
		return string(out), nil
	}))
	if err != nil {
		b.Fatal(err)
	}
	args := json.RawMessage(`{"a":19,"b":23}`)

	raw := func(b *testing.B, s *sdk.Server) {
		session, err := mcptest.Connect(b, mcptest.InMemory("bench", s)).Session(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		for b.Loop() {
			res, err := session.CallTool(context.Background(), &sdk.CallToolParams{Name: "add", Arguments: args})
			if err != nil || res.IsError {
				b.Fatal(err, res)
			}
		}
	}
	b.Run("sdk", func(b *testing.B) { raw(b, sdkServer) })
	b.Run("wield-server", func(b *testing.B) { raw(b, wieldServer.SDK()) })
	b.Run("wield-both", func(b *testing.B) {
		tools, err := mcptest.Connect(b, inMemory("bench", wieldServer)).Tools(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		for b.Loop() {
			if out, err := tools[0].Call(context.Background(), string(args)); err != nil || out != "42" {
				b.Fatal(out, err)
			}
		}
	})
}

// BenchmarkResultText measures rendering a mixed result for the model, against marshalling the
// same result to JSON (what sending it on unconverted would cost).
func BenchmarkResultText(b *testing.B) {
	res := &sdk.CallToolResult{Content: []sdk.Content{
		&sdk.TextContent{Text: "Here is the chart and its data:"},
		&sdk.ImageContent{MIMEType: "image/png", Data: make([]byte, 4096)},
		&sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: "file:///data.csv", MIMEType: "text/csv", Text: "a,b\n1,2\n"}},
	}}
	b.Run("json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := json.Marshal(res); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("ResultText", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if mcp.ResultText(res) == "" {
				b.Fatal("empty")
			}
		}
	})
}

// proxiedTools returns n tools of an upstream MCP server as a wield Client lists them, each with a
// schema of the size real servers send, as `wield mcp serve --mcp-config` proxies them.
func proxiedTools(b *testing.B, n int) []tool.Tool {
	b.Helper()
	up := sdk.NewServer(&sdk.Implementation{Name: "upstream", Version: "v0"}, nil)
	for i := range n {
		schema := json.RawMessage(fmt.Sprintf(`{"type":"object","properties":{
			"path":{"type":"string","description":"The file %d works on"},
			"mode":{"type":"string","enum":["read","write","append"]},
			"limit":{"type":"integer","minimum":1,"maximum":1000},
			"tags":{"type":"array","items":{"type":"string","pattern":"^[a-z]+$"}}},
			"required":["path"],"additionalProperties":false}`, i))
		up.AddTool(&sdk.Tool{Name: fmt.Sprintf("tool_%d", i), Description: "A proxied tool", InputSchema: schema},
			func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
				return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "ok"}}}, nil
			})
	}
	tools, err := mcptest.Connect(b, mcptest.InMemory("upstream", up)).Tools(context.Background())
	if err != nil || len(tools) != n {
		b.Fatal(len(tools), err)
	}
	return tools
}

// serve sends one MCP POST to h in process and returns the response.
func serve(h http.Handler, session, body string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodPost, "http://127.0.0.1/", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	return w
}

// BenchmarkHTTPRequest measures what one HTTP request costs a server proxying 2,000 tools: a
// request with a bogus session id, and a ping in a live session. The baseline, "per-request",
// is what wield mcp serve did before: the SDK's handler with a factory building the server, its
// schemas compiled, for every request; "shared" is Server.Handler, one server built once.
func BenchmarkHTTPRequest(b *testing.B) {
	tools := proxiedTools(b, 2000)
	logger := discardLogger()
	shared, err := mcp.Start(mcp.ServerOptions{Logger: logger}, tools...)
	if err != nil {
		b.Fatal(err)
	}
	handlers := map[string]func() http.Handler{
		"per-request": func() http.Handler {
			return sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server {
				s, err := mcp.Start(mcp.ServerOptions{Logger: logger}, tools...)
				if err != nil {
					return nil
				}
				return s.SDK()
			}, nil)
		},
		"shared": func() http.Handler {
			h, err := shared.Handler(nil)
			if err != nil {
				b.Fatal(err)
			}
			return h
		},
	}
	for _, name := range []string{"per-request", "shared"} {
		h := handlers[name]()
		b.Run("bogus-session/"+name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if w := serve(h, "BOGUS", `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`); w.Code != http.StatusNotFound {
					b.Fatal(w.Code, w.Body)
				}
			}
		})
		b.Run("ping/"+name, func(b *testing.B) {
			w := serve(h, "", initializeBody)
			session := w.Header().Get("Mcp-Session-Id")
			if w.Code != http.StatusOK || session == "" {
				b.Fatal(w.Code, w.Body)
			}
			serve(h, session, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
			b.ReportAllocs()
			for b.Loop() {
				if w := serve(h, session, `{"jsonrpc":"2.0","id":3,"method":"ping"}`); w.Code != http.StatusOK {
					b.Fatal(w.Code, w.Body)
				}
			}
		})
	}
}
