package mcp_test

import (
	"context"
	"encoding/json"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wield-ai/wield/mcp"
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
	wieldServer, err := mcp.NewServer(nil, nil, newTool("add", addSchema, func(_ context.Context, args string) (string, error) {
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
		c, err := mcp.Connect(context.Background(), inMemory("bench", s))
		if err != nil {
			b.Fatal(err)
		}
		defer c.Close()
		session, err := c.Session(context.Background())
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
	b.Run("wield-server", func(b *testing.B) { raw(b, wieldServer) })
	b.Run("wield-both", func(b *testing.B) {
		c, err := mcp.Connect(context.Background(), inMemory("bench", wieldServer))
		if err != nil {
			b.Fatal(err)
		}
		defer c.Close()
		tools, err := c.Tools(context.Background())
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
