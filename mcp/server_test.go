package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http/httptest"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wield-ai/wield/chattest"
	"github.com/wield-ai/wield/mcp"
	"github.com/wield-ai/wield/mcp/mcptest"
	"github.com/wield-ai/wield/tool"
)

// newTool is a hand-written tool.Tool taking arguments of the given schema.
func newTool(name, schema string, fn func(ctx context.Context, args string) (string, error)) *chattest.Tool {
	return &chattest.Tool{Def: tool.Definition{Name: name, Description: "test tool " + name, InputSchema: json.RawMessage(schema)}, Func: fn}
}

const noArgs = `{"type":"object","properties":{},"additionalProperties":false}`

func echoTool(name string) *chattest.Tool {
	return newTool(name, `{"type":"object","properties":{"text":{"type":"string"}},"required":["text"],"additionalProperties":false}`,
		func(_ context.Context, args string) (string, error) {
			var in struct{ Text string }
			if err := json.Unmarshal([]byte(args), &in); err != nil {
				return "", err
			}
			return name + ": " + in.Text, nil
		})
}

func mustServer(t *testing.T, tools ...tool.Tool) *mcp.Server {
	t.Helper()
	logger, _ := testLogger(t)
	s, err := mcp.Start(mcp.ServerOptions{Implementation: &sdk.Implementation{Name: "test", Version: "v0"}, Logger: logger}, tools...)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// inMemory is a configuration reaching s over in-memory transports, a new session per connection.
func inMemory(name string, s *mcp.Server) mcp.ServerConfig { return mcptest.InMemory(name, s.SDK()) }

func jsonEqual(t *testing.T, got, want []byte) bool {
	t.Helper()
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("%s: %v", got, err)
	}
	if err := json.Unmarshal(want, &w); err != nil {
		t.Fatalf("%s: %v", want, err)
	}
	return reflect.DeepEqual(g, w)
}

// richSchema uses JSON Schema 2020-12 features a converter could lose.
const richSchema = `{
	"$schema": "https://json-schema.org/draft/2020-12/schema",
	"type": "object",
	"$defs": {"address": {"type": "object", "properties": {"city": {"type": "string", "minLength": 1}}, "required": ["city"]}},
	"properties": {
		"name": {"type": "string", "description": "who"},
		"address": {"$ref": "#/$defs/address"},
		"contact": {"type": "string", "enum": ["phone", "email"]},
		"phone": {"type": "string", "pattern": "^[0-9+ ]+$"},
		"email": {"type": "string", "format": "email"},
		"tags": {"type": "array", "items": {"type": "string"}, "uniqueItems": true, "maxItems": 3}
	},
	"required": ["name"],
	"if": {"properties": {"contact": {"const": "phone"}}, "required": ["contact"]},
	"then": {"required": ["phone"]},
	"additionalProperties": false
}`

const weatherOutput = `{"type":"object","properties":{"temperature":{"type":"number"},"conditions":{"type":"string"}},"required":["temperature","conditions"],"additionalProperties":false}`

// TestServeSchemas: input and object output schemas reach clients exactly as the tools define
// them; a non-object output schema is not advertised.
func TestServeSchemas(t *testing.T) {
	rich := newTool("rich", richSchema, func(context.Context, string) (string, error) { return "ok", nil })
	weather := newTool("weather", noArgs, func(context.Context, string) (string, error) {
		return `{"temperature":21.5,"conditions":"sunny"}`, nil
	})
	weather.Def.OutputSchema = json.RawMessage(weatherOutput)
	count := newTool("count", noArgs, func(context.Context, string) (string, error) { return "3", nil })
	count.Def.OutputSchema = json.RawMessage(`{"type":"integer"}`)

	c := mcptest.Connect(t, inMemory("schemas", mustServer(t, rich, weather, count)))
	tools, err := c.Tools(testContext(t))
	if err != nil {
		t.Fatal(err)
	}
	if got := toolByName(t, tools, "rich").Definition(); !jsonEqual(t, got.InputSchema, []byte(richSchema)) {
		t.Errorf("input schema changed in transit:\n got %s\nwant %s", got.InputSchema, richSchema)
	}
	if got := toolByName(t, tools, "weather").Definition(); !jsonEqual(t, got.OutputSchema, []byte(weatherOutput)) {
		t.Errorf("output schema = %s, want %s", got.OutputSchema, weatherOutput)
	}
	if got := toolByName(t, tools, "count").Definition(); got.OutputSchema != nil {
		t.Errorf("non-object output schema advertised: %s", got.OutputSchema)
	}
	if got := toolByName(t, tools, "count").Definition(); got.Description != "test tool count" {
		t.Errorf("description = %q", got.Description)
	}
}

// TestServeResults checks what a served tool's call looks like on the wire (the MCP result) and
// through a wield client (the text a model reads).
func TestServeResults(t *testing.T) {
	png := []byte("\x89PNG\r\n\x1a\nfake")
	weather := newTool("weather", noArgs, func(context.Context, string) (string, error) {
		return `{"temperature":21.5,"conditions":"sunny"}`, nil
	})
	weather.Def.OutputSchema = json.RawMessage(weatherOutput)
	notJSON := newTool("not_json", noArgs, func(context.Context, string) (string, error) { return "sunny", nil })
	notJSON.Def.OutputSchema = json.RawMessage(weatherOutput)
	wrongShape := newTool("wrong_shape", noArgs, func(context.Context, string) (string, error) { return `{"temperature":"warm"}`, nil })
	wrongShape.Def.OutputSchema = json.RawMessage(weatherOutput)
	tools := []tool.Tool{
		echoTool("echo"),
		weather, notJSON, wrongShape,
		tool.Must(tool.Func("forecast", "Get the weather forecast", forecast)),
		newTool("rich", richSchema, func(_ context.Context, args string) (string, error) { return "valid: " + args, nil }),
		newTool("fail", noArgs, func(context.Context, string) (string, error) {
			return "", errors.New("the printer is on fire")
		}),
		newTool("fatal", noArgs, func(context.Context, string) (string, error) {
			return "", tool.Fatal(errors.New("disk gone"))
		}),
		newTool("panic", noArgs, func(context.Context, string) (string, error) { panic("boom") }),
		newTool("slow", noArgs, func(ctx context.Context, _ string) (string, error) {
			<-ctx.Done()
			return "", ctx.Err()
		}),
		mcp.NewResultTool(tool.Definition{Name: "picture", Description: "draws"}, func(context.Context, string) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{
				&sdk.TextContent{Text: "a picture:"},
				&sdk.ImageContent{MIMEType: "image/png", Data: png},
			}}, nil
		}),
	}
	tools[len(tools)-2].(*chattest.Tool).Meta.Timeout = 20 * time.Millisecond

	for _, transport := range mcptest.Transports {
		t.Run(transport, func(t *testing.T) {
			s := mustServer(t, tools...)
			cfg := mcptest.Reach(t, transport, "results", s)
			c := mcptest.Connect(t, cfg)
			listed, err := c.Tools(testContext(t))
			if err != nil {
				t.Fatal(err)
			}
			for _, tc := range []struct {
				tool, args string
				isError    bool
				text       string // substring of the wire text and of what the model reads
				structured string // wire structuredContent, JSON
			}{
				{tool: "echo", args: `{"text":"hi"}`, text: "echo: hi"},
				{tool: "echo", args: `{}`, isError: true, text: "invalid arguments"},
				{tool: "echo", args: `{"text":5}`, isError: true, text: "invalid arguments"},
				{tool: "echo", args: `{"text":"hi","extra":1}`, isError: true, text: "invalid arguments"},
				{tool: "weather", args: `{}`, text: `"conditions":"sunny"`, structured: `{"temperature":21.5,"conditions":"sunny"}`},
				{tool: "forecast", args: `{"city":"Rome","days":2}`, text: `"city":"Rome"`,
					structured: `{"city":"Rome","temperatures":[20,21],"conditions":"sunny in Rome"}`},
				{tool: "forecast", args: `{"city":"Rome","units":"K"}`, isError: true, text: "invalid arguments: /units"},
				{tool: "not_json", args: `{}`, isError: true, text: "internal error"},
				{tool: "wrong_shape", args: `{}`, isError: true, text: "internal error"},
				{tool: "rich", args: `{"name":"Ada","contact":"phone","phone":"+44 1"}`, text: "valid:"},
				{tool: "rich", args: `{"name":"Ada","contact":"phone"}`, isError: true, text: "invalid arguments"},
				{tool: "rich", args: `{"name":"Ada","address":{"city":""}}`, isError: true, text: "invalid arguments"},
				{tool: "fail", args: `{}`, isError: true, text: "the printer is on fire"},
				{tool: "fatal", args: `{}`, isError: true, text: "disk gone"},
				{tool: "panic", args: `{}`, isError: true, text: "internal error"},
				{tool: "slow", args: `{}`, isError: true, text: "timed out after 20ms"},
				{tool: "picture", args: `{}`, text: "a picture:"},
			} {
				t.Run(tc.tool+tc.args, func(t *testing.T) {
					res := mcptest.CallRaw(t, c, tc.tool, tc.args)
					if res.IsError != tc.isError {
						t.Errorf("isError = %v, want %v (%s)", res.IsError, tc.isError, mcp.ResultText(res))
					}
					if len(res.Content) == 0 {
						t.Fatal("no content")
					}
					if wire, ok := res.Content[0].(*sdk.TextContent); !ok || !strings.Contains(wire.Text, tc.text) {
						t.Errorf("wire content %#v does not contain %q", res.Content[0], tc.text)
					}
					if tc.structured != "" {
						b, _ := json.Marshal(res.StructuredContent)
						if !jsonEqual(t, b, []byte(tc.structured)) {
							t.Errorf("structuredContent = %s, want %s", b, tc.structured)
						}
					} else if res.StructuredContent != nil {
						t.Errorf("unexpected structuredContent %v", res.StructuredContent)
					}

					out, err := toolByName(t, listed, tc.tool).Call(testContext(t), tc.args)
					if tc.isError {
						var te *mcp.ToolError
						if !errors.As(err, &te) || te.Server != "results" || te.Tool != tc.tool {
							t.Fatalf("client call = (%q, %v), want a *mcp.ToolError", out, err)
						}
						out = err.Error()
					} else if err != nil {
						t.Fatal(err)
					}
					if !strings.Contains(out, tc.text) {
						t.Errorf("model reads %q, want it to contain %q", out, tc.text)
					}
				})
			}

			res := mcptest.CallRaw(t, c, "picture", `{}`)
			if len(res.Content) != 2 {
				t.Fatalf("picture content = %v", res.Content)
			}
			if img, ok := res.Content[1].(*sdk.ImageContent); !ok || string(img.Data) != string(png) || img.MIMEType != "image/png" {
				t.Errorf("image did not pass intact: %#v", res.Content[1])
			}
			out, _ := toolByName(t, listed, "picture").Call(testContext(t), `{}`)
			if want := fmt.Sprintf("a picture:\n[image: image/png, %d bytes]", len(png)); out != want {
				t.Errorf("model reads %q, want %q", out, want)
			}
		})
	}
}

// TestServeCancellation: cancelling the client's context cancels the tool on the server, and a
// per-server timeout does the same while failing only that call.
func TestServeCancellation(t *testing.T) {
	running := make(chan struct{}, 1)
	cancelled := make(chan error, 1)
	slow := newTool("slow", noArgs, func(ctx context.Context, _ string) (string, error) {
		running <- struct{}{}
		<-ctx.Done()
		cancelled <- ctx.Err()
		return "", ctx.Err()
	})
	s := mustServer(t, slow)

	t.Run("caller cancels", func(t *testing.T) {
		c := mcptest.Connect(t, mcptest.OverHTTP(t, "cancel", s))
		tools, err := c.Tools(testContext(t))
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(testContext(t))
		done := make(chan error, 1)
		go func() {
			_, err := tools[0].Call(ctx, `{}`)
			done <- err
		}()
		<-running
		cancel()
		if err := <-done; !errors.Is(err, context.Canceled) {
			t.Errorf("cancelled call: %v, want context.Canceled", err)
		}
		if err := <-cancelled; !errors.Is(err, context.Canceled) {
			t.Errorf("server saw %v, want cancellation", err)
		}
	})

	t.Run("per-call timeout", func(t *testing.T) {
		cfg := inMemory("cancel", s)
		cfg.Timeout = 200 * time.Millisecond
		c := mcptest.Connect(t, cfg)
		tools, err := c.Tools(testContext(t))
		if err != nil {
			t.Fatal(err)
		}
		_, err = tools[0].Call(testContext(t), `{}`)
		if err == nil || !strings.Contains(err.Error(), "timed out: no answer for 200ms") {
			t.Errorf("timed-out call: %v", err)
		}
		if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
			t.Errorf("timeout error %v wraps a context error; the caller's turn is not over", err)
		}
		select {
		case <-running:
			if err := <-cancelled; !errors.Is(err, context.Canceled) {
				t.Errorf("server saw %v, want cancellation", err)
			}
		default: // the time ran out before the tool started: nothing to cancel
		}
	})
}

// TestServeProgress: a served tool's progress reports reach the caller of a wield client.
func TestServeProgress(t *testing.T) {

	ack := make(chan struct{})
	steps := newTool("steps", noArgs, func(ctx context.Context, _ string) (string, error) {
		if call, ok := tool.CallFrom(ctx); !ok || call.Name != "steps" {
			return "", fmt.Errorf("tool.CallFrom = %+v, %v", call, ok)
		}
		if mcp.RequestFrom(ctx) == nil {
			return "", errors.New("no MCP request in the context")
		}
		for i := 1; i <= 3; i++ {
			tool.ReportProgress(ctx, tool.Progress{Progress: float64(i), Total: 3, Message: fmt.Sprintf("step %d", i)})
		}
		<-ack // the caller has every report; finish
		return "done", nil
	})
	for _, transport := range mcptest.Transports {
		t.Run(transport, func(t *testing.T) {
			s := mustServer(t, steps)
			cfg := mcptest.Reach(t, transport, "progress", s)
			c := mcptest.Connect(t, cfg)
			tools, err := c.Tools(testContext(t))
			if err != nil {
				t.Fatal(err)
			}
			ack = make(chan struct{})
			var got []tool.Progress
			ctx := tool.WithProgress(testContext(t), func(p tool.Progress) {
				got = append(got, p)
				if len(got) == 3 {
					close(ack)
				}
			})
			out, err := tools[0].Call(ctx, `{}`)
			if err != nil || out != "done" {
				t.Fatalf("Call = %q, %v", out, err)
			}
			want := []tool.Progress{{Progress: 1, Total: 3, Message: "step 1"}, {Progress: 2, Total: 3, Message: "step 2"}, {Progress: 3, Total: 3, Message: "step 3"}}
			if !slices.Equal(got, want) {
				t.Errorf("progress = %v, want %v", got, want)
			}
		})
	}
}

// TestListChanged: tools added to or removed from a server reach a connected client through
// notifications/tools/list_changed.
func TestListChanged(t *testing.T) {
	for _, transport := range mcptest.Transports {
		t.Run(transport, func(t *testing.T) {
			s := mustServer(t, echoTool("first"))
			cfg := mcptest.Reach(t, transport, "changing", s)
			var mu sync.Mutex
			notified := 0
			cfg.Options = &sdk.ClientOptions{ToolListChangedHandler: func(context.Context, *sdk.ToolListChangedRequest) {
				mu.Lock()
				notified++
				mu.Unlock()
			}}
			c := mcptest.Connect(t, cfg)
			waitForNames(t, c, "first")
			if err := s.AddTools(echoTool("second")); err != nil {
				t.Fatal(err)
			}
			waitForNames(t, c, "first", "second")
			s.RemoveTools("first")
			waitForNames(t, c, "second")
			mu.Lock()
			defer mu.Unlock()
			if notified < 2 {
				t.Errorf("user handler called %d times, want at least 2", notified)
			}
		})
	}
}

// waitForNames waits until the client lists exactly names, in any order.
func waitForNames(t *testing.T, c *mcp.Client, names ...string) {
	t.Helper()
	slices.Sort(names)
	ctx := testContext(t)
	for {
		tools, err := c.Tools(ctx)
		if err != nil {
			t.Fatal(err)
		}
		got := toolNames(tools)
		slices.Sort(got)
		if slices.Equal(got, names) {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("tools = %v, want %v", got, names)
		case <-tick():
		}
	}
}

// TestPrefixFiltersCollisions: names offered by two servers collide unless prefixed; filters
// select tools by the server's names.
func TestPrefixFiltersCollisions(t *testing.T) {
	a := mustServer(t, echoTool("search"), echoTool("fetch"), echoTool("delete_all"))
	b := mustServer(t, echoTool("search"), echoTool("summarize"))

	ca := mcptest.Connect(t, inMemory("alpha", a))
	cb := mcptest.Connect(t, inMemory("beta", b))
	_, err := mcp.Tools(ca, cb).Tools(testContext(t))
	var ce *mcp.CollisionError
	if !errors.As(err, &ce) || ce.Tool != "search" || ce.Servers != [2]string{"alpha", "beta"} {
		t.Fatalf("collision error = %v", err)
	}
	if !strings.Contains(err.Error(), `"alpha"`) || !strings.Contains(err.Error(), `"beta"`) {
		t.Errorf("error %q does not name both servers", err)
	}

	cfgA := inMemory("alpha", a)
	cfgA.Exclude = []string{"delete_*"}
	cfgB := inMemory("beta", b)
	cfgB.Prefix = "beta_"
	cfgB.Include = []string{"search", "sum*"}
	set := mcp.Tools(mcptest.Connect(t, cfgA), mcptest.Connect(t, cfgB))
	tools, err := set.Tools(testContext(t))
	if err != nil {
		t.Fatal(err)
	}
	got := toolNames(tools)
	want := []string{"fetch", "search", "beta_search", "beta_summarize"}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("tools = %v, want %v", got, want)
	}
	out, err := toolByName(t, tools, "beta_search").Call(testContext(t), `{"text":"q"}`)
	if err != nil || out != "search: q" {
		t.Errorf("prefixed call = %q, %v (the server must receive its own name)", out, err)
	}
	if err := set.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if _, err := set.Tools(testContext(t)); !errors.Is(err, mcp.ErrClosed) {
		t.Errorf("Tools after Close: %v, want ErrClosed", err)
	}

	if _, err := mcp.Connect(testContext(t), mcp.ServerConfig{Name: "bad", Command: "x", Include: []string{"[a"}}, mcp.Deferred()); err == nil {
		t.Error("bad filter pattern accepted")
	}
}

// TestProxy serves a client's tools from a second wield server: results (images, errors) and
// progress pass through both hops unchanged.
func TestProxy(t *testing.T) {
	png := []byte("\x89PNG-proxy")
	ack := make(chan struct{})
	upstream := mustServer(t,
		echoTool("echo"),
		mcp.NewResultTool(tool.Definition{Name: "picture"}, func(context.Context, string) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.ImageContent{MIMEType: "image/png", Data: png}}}, nil
		}),
		newTool("fail", noArgs, func(context.Context, string) (string, error) { return "", errors.New("upstream says no") }),
		newTool("steps", noArgs, func(ctx context.Context, _ string) (string, error) {
			tool.ReportProgress(ctx, tool.Progress{Progress: 1, Total: 2, Message: "upstream half"})
			<-ack
			return "done", nil
		}),
	)
	up := mcptest.Connect(t, mcptest.OverHTTP(t, "upstream", upstream))
	upTools, err := up.Tools(testContext(t))
	if err != nil {
		t.Fatal(err)
	}
	proxy := mustServer(t, upTools...)
	c := mcptest.Connect(t, mcptest.OverHTTP(t, "proxy", proxy))

	res := mcptest.CallRaw(t, c, "picture", `{}`)
	if img, ok := res.Content[0].(*sdk.ImageContent); !ok || string(img.Data) != string(png) {
		t.Errorf("image through proxy: %#v", res.Content[0])
	}
	if res := mcptest.CallRaw(t, c, "fail", `{}`); !res.IsError || !strings.Contains(mcp.ResultText(res), "upstream says no") {
		t.Errorf("error through proxy: %+v", res)
	}
	if res := mcptest.CallRaw(t, c, "echo", `{"text":1}`); !res.IsError {
		t.Errorf("invalid arguments through proxy: %+v", res)
	}
	tools, err := c.Tools(testContext(t))
	if err != nil {
		t.Fatal(err)
	}
	ctx := tool.WithProgress(testContext(t), func(p tool.Progress) {
		if p.Message == "upstream half" {
			close(ack)
		}
	})
	if out, err := toolByName(t, tools, "steps").Call(ctx, `{}`); err != nil || out != "done" {
		t.Errorf("progress through proxy: %q, %v", out, err)
	}
}

func TestAddToolsErrors(t *testing.T) {
	for _, tc := range []struct {
		name  string
		tools []tool.Tool
		want  string
	}{
		{"array input", []tool.Tool{newTool("a", `{"type":"array"}`, nil)}, `type must be "object"`},
		{"bad JSON", []tool.Tool{newTool("a", `{"type":`, nil)}, "input schema"},
		{"duplicate", []tool.Tool{echoTool("a"), echoTool("a")}, `duplicate tool name "a"`},
		{"no name", []tool.Tool{newTool("", noArgs, nil)}, "without a name"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := mustServer(t)
			err := s.AddTools(tc.tools...)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("AddTools error = %v, want %q", err, tc.want)
			}
		})
	}
}

func ExampleStart() {
	weather := &chattest.Tool{
		Def: tool.Definition{
			Name:        "currentWeather",
			Description: "Get the weather in a city",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`),
		},
		Func: func(_ context.Context, args string) (string, error) { return "sunny", nil },
	}
	server, err := mcp.Start(mcp.ServerOptions{Implementation: &sdk.Implementation{Name: "weather", Version: "v1.0.0"}}, weather)
	if err != nil {
		fmt.Println(err)
		return
	}
	// Over stdio, until the client disconnects:
	//	server.Run(ctx, &sdkmcp.StdioTransport{})
	// Over streamable HTTP:
	handler, err := server.Handler(nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	ts := httptest.NewServer(handler)
	defer ts.Close()

	ctx := context.Background()
	c, err := mcp.Connect(ctx, mcp.ServerConfig{Name: "weather", URL: ts.URL})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	tools, _ := c.Tools(ctx)
	out, err := tools[0].Call(ctx, `{"city":"Paris"}`)
	fmt.Println(tools[0].Definition().Name, out, err)
	// Output: currentWeather sunny <nil>
}

func TestClientDefaultName(t *testing.T) {
	for _, tc := range []struct {
		cfg  mcp.ServerConfig
		want string
	}{
		{mcp.ServerConfig{Command: "/usr/local/bin/mcp-server-git", Args: []string{"--repo", "."}}, "mcp-server-git"},
		{mcp.ServerConfig{URL: "https://mcp.example.com:8443/mcp"}, "mcp.example.com:8443"},
		{mcp.ServerConfig{Name: "named", URL: "https://mcp.example.com/mcp"}, "named"},
	} {
		c, err := mcp.Connect(testContext(t), tc.cfg, mcp.Deferred())
		if err != nil {
			t.Fatal(err)
		}
		if c.Name() != tc.want {
			t.Errorf("Name() = %q, want %q", c.Name(), tc.want)
		}
	}
}

// A tool's MCP hints are published by the server and kept by the client, through a proxy too.
func TestAnnotationsRoundTrip(t *testing.T) {
	hinted := tool.Must(tool.Func("wipe", "Delete everything", func(context.Context, struct{}) (string, error) { return "gone", nil },
		tool.Destructive(true), tool.OpenWorld(false)))
	reader := tool.Must(tool.Func("peek", "Read a thing", func(context.Context, struct{}) (string, error) { return "x", nil },
		tool.ReadOnly(), tool.Idempotent()))
	up := mcptest.Connect(t, inMemory("up", mustServer(t, hinted, reader, echoTool("plain"))))
	upTools, err := up.Tools(testContext(t))
	if err != nil {
		t.Fatal(err)
	}
	c := mcptest.Connect(t, inMemory("proxy", mustServer(t, upTools...)))
	tools, err := c.Tools(testContext(t))
	if err != nil {
		t.Fatal(err)
	}
	wipe := toolByName(t, tools, "wipe").Metadata()
	if wipe.Destructive == nil || !*wipe.Destructive || wipe.OpenWorld == nil || *wipe.OpenWorld || wipe.ReadOnly {
		t.Errorf("wipe hints = %+v", wipe)
	}
	if peek := toolByName(t, tools, "peek").Metadata(); !peek.ReadOnly || !peek.Idempotent || peek.Destructive != nil {
		t.Errorf("peek hints = %+v", peek)
	}
	if plain := toolByName(t, tools, "plain").Metadata(); plain.ReadOnly || plain.Destructive != nil || plain.OpenWorld != nil {
		t.Errorf("plain hints = %+v", plain)
	}
}
