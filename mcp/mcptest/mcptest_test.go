package mcptest_test

import (
	"context"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wield-ai/wield/mcp"
	"github.com/wield-ai/wield/mcp/mcptest"
	"github.com/wield-ai/wield/tool"
)

type echoIn struct {
	Text string `json:"text"`
}

// TestTransports serves one tool both ways and calls it through wield's tool and raw.
func TestTransports(t *testing.T) {
	echo := tool.Must(tool.Func("echo", "Echoes the text", func(_ context.Context, in echoIn) (string, error) {
		return "echo: " + in.Text, nil
	}))
	s, err := mcp.Start(mcp.ServerOptions{Implementation: &sdk.Implementation{Name: "test", Version: "v0"}}, echo)
	if err != nil {
		t.Fatal(err)
	}
	for _, cfg := range []mcp.ServerConfig{mcptest.InMemory("mem", s.SDK()), mcptest.OverHTTP(t, "http", s)} {
		t.Run(cfg.Name, func(t *testing.T) {
			c := mcptest.Connect(t, cfg)
			tools, err := c.Tools(t.Context())
			if err != nil || len(tools) != 1 {
				t.Fatalf("tools %v, %v", tools, err)
			}
			if out, err := tools[0].Call(t.Context(), `{"text":"hi"}`); err != nil || out != "echo: hi" {
				t.Fatalf("call: %q, %v", out, err)
			}
			res := mcptest.CallRaw(t, c, "echo", `{"text":"raw"}`)
			if text, ok := res.Content[0].(*sdk.TextContent); res.IsError || !ok || text.Text != "echo: raw" {
				t.Fatalf("raw result %+v", res)
			}
			if res := mcptest.CallRaw(t, c, "echo", `{"text":1}`); !res.IsError {
				t.Fatalf("arguments the schema refuses: %+v", res)
			}
		})
	}
}

func TestReach(t *testing.T) {
	s, err := mcp.Start(mcp.ServerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, transport := range mcptest.Transports {
		cfg := mcptest.Reach(t, transport, "s", s)
		if cfg.Name != "s" || (transport == "http") != (cfg.URL != "") || (transport == "memory") != (cfg.Transport != nil) {
			t.Errorf("%s: %+v", transport, cfg)
		}
		mcptest.Connect(t, cfg)
	}
}
