package attack

import (
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wield-ai/wield/chattest"
	"github.com/wield-ai/wield/client"
	"github.com/wield-ai/wield/mcp"
	"github.com/wield-ai/wield/mcp/mcptest"
	"github.com/wield-ai/wield/tool"
)

// endlessSchemas apply themselves to the same value without end, through every form a reference
// can take; validating with one recursed until the process died of a stack overflow, which
// nothing can recover.
var endlessSchemas = []string{
	`{"type":"object","$ref":"#"}`,
	`{"type":"object","$id":"http://example.com/s","$ref":"http://example.com/s"}`,
	`{"type":"object","$id":"http://example.com/s","$ref":"//example.com/s"}`,
	`{"type":"object","$id":"http://example.com/root","$defs":{"a":{"$id":"a","allOf":[{"$ref":"a"}]}},"$ref":"a"}`,
	`{"type":"object","$anchor":"me","$ref":"#me"}`,
	`{"type":"object","properties":{"a":{"$ref":"#/properties/a"}}}`,
	`{"type":"object","$dynamicAnchor":"m","$dynamicRef":"#m"}`,
	`{"type":"object","$schema":"http://json-schema.org/draft-07/schema#","definitions":{"a":{"$id":"#a","allOf":[{"$ref":"#a"}]}},"$ref":"#/definitions/a"}`,
}

// recursiveSchemas are accepted, and validating with them naively takes time exponential in the
// depth of the arguments (62 bytes took 18 s).
var recursiveSchemas = []string{
	`{"type":"object","properties":{"v":{"$ref":"#/$defs/n"}},"$defs":{"n":{"anyOf":[{"type":"array","items":{"$ref":"#/$defs/n"}},{"type":"array","items":{"$ref":"#/$defs/n"},"minItems":0}]}}}`,
	`{"type":"object","properties":{"v":{"$ref":"#/$defs/n"}},"$defs":{"n":{"oneOf":[{"type":"array","items":{"$ref":"#/$defs/n"}},{"type":"array","items":{"$ref":"#/$defs/n"},"maxItems":1000000}]}}}`,
}

// deep is an argument nesting arrays depth deep under "v", around a string no alternative takes.
func deep(depth int) string {
	return `{"v":` + strings.Repeat("[", depth) + `"x"` + strings.Repeat("]", depth) + `}`
}

// No schema can crash or hang the process. Tools built on endless schemas are refused; a
// downstream MCP server offering them is proxied by a wield server, which passes the calls on
// instead of dying on the first; recursive schemas validate hostile arguments in bounded time.
func TestAttackHostileSchemas(t *testing.T) {
	noop := func(context.Context, map[string]any) (any, error) { return "ok", nil }
	for i, s := range endlessSchemas {
		if _, err := tool.New(tool.Definition{Name: "endless", InputSchema: json.RawMessage(s)}, noop); err == nil {
			t.Errorf("tool.New accepted endless schema %d: %s", i, s)
		}
	}

	// A hostile downstream server, on the SDK alone.
	var upstreamCalls atomic.Int64
	raw := sdk.NewServer(&sdk.Implementation{Name: "hostile", Version: "v0"}, nil)
	names := map[string]string{}
	for i, s := range endlessSchemas {
		name := "t" + string(rune('a'+i))
		names[name] = s
		raw.AddTool(&sdk.Tool{Name: name, InputSchema: json.RawMessage(s)},
			func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
				upstreamCalls.Add(1)
				return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "upstream ok"}}}, nil
			})
	}
	up := mcptest.Connect(t, mcptest.InMemory("hostile", raw))
	upTools, err := up.Tools(testContext(t))
	if err != nil {
		t.Fatal(err)
	}
	if len(upTools) != len(names) {
		t.Fatalf("%d tools listed, want %d", len(upTools), len(names))
	}
	r := newRecorder(t)
	proxy, err := mcp.NewServer(nil, &mcp.ServerOptions{Logger: r.log}, upTools...)
	if err != nil {
		t.Fatal(err)
	}
	c := mcptest.Connect(t, inMemory("proxy", proxy))
	t.Cleanup(func() {
		if t.Failed() {
			t.Log(r.text())
		}
	})
	for name := range names {
		// The SDK refuses messages nested deeper than 1,000 levels.
		for _, args := range []string{`{}`, deep(10), deep(990)} {
			res := mcptest.CallRaw(t, c, name, args)
			if res.IsError || mcp.ResultText(res) != "upstream ok" {
				t.Errorf("%s through the proxy: %q", name, mcp.ResultText(res))
			}
		}
	}
	if got, want := upstreamCalls.Load(), int64(3*len(names)); got != want {
		t.Errorf("the upstream server got %d calls, want %d", got, want)
	}

	// Served directly by a wield server, a tool with such a schema that does not validate its
	// own arguments is refused when added.
	for i, s := range endlessSchemas {
		// A tool that leaves its arguments to whoever serves it.
		plain := &chattest.Tool{Def: tool.Definition{Name: "plain", InputSchema: json.RawMessage(s)}, Func: func(context.Context, string) (string, error) { return "ok", nil }}
		if _, err := mcp.NewServer(nil, nil, plain); err == nil {
			t.Errorf("mcp.NewServer accepted a tool with endless schema %d", i)
		}
	}

	// Accepted recursive schemas check hostile arguments, in a tool loop and over MCP, and answer.
	var local []tool.Tool
	for i, s := range recursiveSchemas {
		local = append(local, tool.Must(tool.New(tool.Definition{Name: "rec" + string(rune('a'+i)), InputSchema: json.RawMessage(s)}, noop)))
	}
	served, err := mcp.NewServer(nil, &mcp.ServerOptions{Logger: r.log}, local...)
	if err != nil {
		t.Fatal(err)
	}
	sc := mcptest.Connect(t, inMemory("recursive", served))
	for _, tl := range local {
		for _, args := range []string{deep(62), deep(990), `{"v":[` + strings.Repeat("[[[[]]]],", 20000) + `"x"]}`} {
			res := mcptest.CallRaw(t, sc, tl.Definition().Name, args)
			if !res.IsError {
				t.Errorf("%s accepts %.60s…", tl.Definition().Name, args)
			}
		}
	}
	m := chattest.New(chattest.Calls(chattest.Call("reca", deep(5000)), chattest.Call("recb", deep(62))), chattest.Text("done"))
	cl, err := client.New(m, client.WithTools(local))
	if err != nil {
		t.Fatal(err)
	}
	if text, err := cl.Prompt("go").Call(context.Background()).Content(); err != nil || text != "done" {
		t.Fatalf("the loop: %q, %v", text, err)
	}
	for _, res := range m.Prompt(1).Messages[len(m.Prompt(1).Messages)-1].ToolResults {
		if !res.IsError {
			t.Errorf("%s: %s", res.Name, res.Content)
		}
	}
}
