package mcp_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wield-ai/wield/mcp"
	"github.com/wield-ai/wield/mcp/mcptest"
	"github.com/wield-ai/wield/tool"
)

// everythingOptions gives the client every capability server-everything has tools for: sampling,
// form and URL elicitation (roots are on by default), so that it lists all of its tools.
func everythingOptions() *sdk.ClientOptions {
	return &sdk.ClientOptions{
		CreateMessageHandler: func(_ context.Context, req *sdk.CreateMessageRequest) (*sdk.CreateMessageResult, error) {
			prompt := ""
			if len(req.Params.Messages) > 0 {
				if tc, ok := req.Params.Messages[0].Content.(*sdk.TextContent); ok {
					prompt = tc.Text
				}
			}
			return &sdk.CreateMessageResult{
				Role: "assistant", Model: "scripted", Content: &sdk.TextContent{Text: "sampled reply to " + prompt},
			}, nil
		},
		ElicitationHandler: func(_ context.Context, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
			if req.Params.Mode == "url" {
				return &sdk.ElicitResult{Action: "accept"}, nil
			}
			return &sdk.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada Lovelace", "check": true}}, nil
		},
		Capabilities: &sdk.ClientCapabilities{
			RootsV2:     &sdk.RootCapabilities{ListChanged: true},
			Elicitation: &sdk.ElicitationCapabilities{Form: &sdk.FormElicitationCapabilities{}, URL: &sdk.URLElicitationCapabilities{}},
		},
	}
}

// everythingCase is one call of a server-everything tool and what its answer must show.
type everythingCase struct {
	args  string
	check func(t *testing.T, out string, err error, progress []tool.Progress)
}

func contains(subs ...string) func(*testing.T, string, error, []tool.Progress) {
	return func(t *testing.T, out string, err error, _ []tool.Progress) {
		t.Helper()
		if err != nil {
			t.Fatalf("error: %v", err)
		}
		for _, s := range subs {
			if !strings.Contains(out, s) {
				t.Errorf("result does not contain %q:\n%s", s, out)
			}
		}
	}
}

func matches(re string) func(*testing.T, string, error, []tool.Progress) {
	return func(t *testing.T, out string, err error, _ []tool.Progress) {
		t.Helper()
		if err != nil {
			t.Fatalf("error: %v", err)
		}
		if !regexp.MustCompile(re).MatchString(out) {
			t.Errorf("result does not match %s:\n%s", re, out)
		}
	}
}

func toolError(subs ...string) func(*testing.T, string, error, []tool.Progress) {
	return func(t *testing.T, out string, err error, _ []tool.Progress) {
		t.Helper()
		var te *mcp.ToolError
		if !errors.As(err, &te) {
			t.Fatalf("got (%q, %v), want a *mcp.ToolError", out, err)
		}
		for _, s := range subs {
			if !strings.Contains(err.Error(), s) {
				t.Errorf("error does not contain %q: %v", s, err)
			}
		}
	}
}

var gzipData = "data:text/plain;base64," + base64.StdEncoding.EncodeToString([]byte("hello from wield\n"))

// everythingCases covers every tool server-everything lists for a client with every capability.
var everythingCases = map[string]everythingCase{
	"echo": {`{"message":"hello wield"}`, contains("Echo: hello wield")},
	"get-annotated-message": {`{"messageType":"error","includeImage":true}`,
		matches(`(?s)Error: Operation failed.*\n\[image: image/png, \d+ bytes\]`)},
	"get-env":            {`{}`, contains(`"PATH"`)},
	"get-resource-links": {`{"count":2}`, contains("[resource link: Blob Resource 1 <demo://resource/dynamic/blob/1>", "[resource link: Text Resource 2 <demo://resource/dynamic/text/2>")},
	"get-resource-reference": {`{"resourceType":"Text","resourceId":3}`,
		matches(`\[resource: <demo://resource/dynamic/text/3> \(text/plain\)\]\n.*Resource 3`)},
	"get-structured-content": {`{"location":"Chicago"}`, func(t *testing.T, out string, err error, _ []tool.Progress) {
		if err != nil {
			t.Fatal(err)
		}
		var got map[string]any
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatalf("structured content is not JSON: %v\n%s", err, out)
		}
		want := map[string]any{"temperature": 36.0, "conditions": "Light rain / drizzle", "humidity": 82.0}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("structured content = %v, want %v", got, want)
		}
	}},
	"get-sum":        {`{"a": 19, "b": 23}`, contains("42")},
	"get-tiny-image": {`{}`, matches(`\[image: image/png, \d+ bytes\]`)},
	"gzip-file-as-resource": {`{"name":"hello.txt.gz","data":"` + gzipData + `","outputType":"resource"}`,
		matches(`\[resource: <demo://resource/session/hello.txt.gz> \(application/gzip\), \d+ bytes\]`)},
	"toggle-simulated-logging":  {`{}`, contains("logging")},
	"toggle-subscriber-updates": {`{}`, contains("updates")},
	"trigger-long-running-operation": {`{"duration": 1.5, "steps": 3}`, func(t *testing.T, out string, err error, progress []tool.Progress) {
		contains("completed")(t, out, err, nil)
		// Reports are best effort: the last one arrives with the result and may be dropped.
		if len(progress) == 0 {
			t.Fatal("no progress reports")
		}
		for i, p := range progress {
			if p.Total != 3 || p.Progress != float64(i+1) {
				t.Errorf("progress report %d = %+v, want %d of 3", i, p, i+1)
			}
		}
	}},
	"get-roots-list":              {`{}`, contains("roots")},
	"trigger-elicitation-request": {`{}`, contains("accept", "Ada Lovelace")},
	"trigger-url-elicitation":     {`{"url":"https://example.com/consent"}`, contains("accept")},
	"trigger-sampling-request":    {`{"prompt":"say hi","maxTokens":10}`, contains("sampled reply to", "say hi")},
	// Task-only tools cannot be called without task augmentation, which the Go SDK's client lacks;
	// the server's refusal reaches the model as a tool error.
	"simulate-research-query": {`{"topic":"tool calling"}`, toolError("task")},
}

// TestEverything lists and calls every tool of the reference server-everything through tool.Tool,
// over stdio and over streamable HTTP.
func TestEverything(t *testing.T) {
	for _, transport := range []string{"stdio", "http"} {
		t.Run(transport, func(t *testing.T) {
			t.Parallel()
			var cfg mcp.ServerConfig
			if transport == "stdio" {
				cfg = nodeServer(t, "everything", "mcp-server-everything", "stdio")
			} else {
				srv := startNodeHTTP(t, "mcp-server-everything", 0, "streamableHttp")
				cfg = mcp.ServerConfig{Name: "everything", Type: mcp.TypeHTTP, URL: "http://" + srv.Addr + "/mcp"}
			}
			// server-everything registers its capability-dependent tools once the session is
			// initialized and announces them with notifications/tools/list_changed.
			changed := make(chan struct{}, 10)
			cfg.Options = everythingOptions()
			cfg.Options.ToolListChangedHandler = func(context.Context, *sdk.ToolListChangedRequest) { changed <- struct{}{} }
			c := mcptest.Connect(t, cfg)
			ctx := testContext(t)
			select {
			case <-changed:
			case <-ctx.Done():
				t.Fatal("no notifications/tools/list_changed")
			}
			tools, err := c.Tools(ctx)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, tl := range tools {
				def := tl.Definition()
				names = append(names, def.Name)
				if !json.Valid(def.InputSchema) || !strings.Contains(string(def.InputSchema), `"type":"object"`) {
					t.Errorf("%s: input schema %s", def.Name, def.InputSchema)
				}
			}
			for name := range everythingCases {
				if !slices.Contains(names, name) {
					t.Errorf("server does not list %q (lists %v)", name, names)
				}
			}

			var wg sync.WaitGroup
			for _, tl := range tools {
				name := tl.Definition().Name
				tc, ok := everythingCases[name]
				if !ok {
					t.Errorf("tool %q has no test case", name)
					continue
				}
				wg.Go(func() {
					t.Run(name, func(t *testing.T) {
						var mu sync.Mutex
						var progress []tool.Progress
						ctx := tool.WithProgress(ctx, func(p tool.Progress) {
							mu.Lock()
							progress = append(progress, p)
							mu.Unlock()
						})
						out, err := tl.Call(ctx, tc.args)
						if name == "toggle-simulated-logging" || name == "toggle-subscriber-updates" {
							// Toggle back off, so the server stops sending.
							if _, err := tl.Call(ctx, tc.args); err != nil {
								t.Errorf("second toggle: %v", err)
							}
						}
						mu.Lock()
						defer mu.Unlock()
						tc.check(t, out, err, progress)
					})
				})
			}
			wg.Wait()
		})
	}
}

// TestEverythingBadArguments: arguments the server rejects, and arguments that are not a JSON
// object, give errors the model can read; the connection stays usable.
func TestEverythingBadArguments(t *testing.T) {
	t.Parallel()
	c := mcptest.Connect(t, nodeServer(t, "everything", "mcp-server-everything", "stdio"))
	ctx := testContext(t)
	tools, err := c.Tools(ctx)
	if err != nil {
		t.Fatal(err)
	}
	sum := toolByName(t, tools, "get-sum")
	for _, tc := range []struct {
		args string
		want string
	}{
		{`{"a": "one", "b": 2}`, "expected number"},
		{`{"a": 1}`, "b"},
		{`{"a": 1, "b": 2`, "not valid JSON"},
		{`[1, 2]`, "must be a JSON object"},
	} {
		out, err := sum.Call(ctx, tc.args)
		if err == nil {
			t.Errorf("Call(%s) = %q, want an error", tc.args, out)
			continue
		}
		if !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Call(%s) error %q does not mention %q", tc.args, err, tc.want)
		}
		if tool.IsFatal(err) {
			t.Errorf("Call(%s) error is fatal; a model should see it", tc.args)
		}
	}
	if out, err := sum.Call(ctx, `{"a": 1, "b": 2}`); err != nil || !strings.Contains(out, "3") {
		t.Errorf("after bad calls: %q, %v", out, err)
	}
}

func ExampleConnect() {
	ctx := context.Background()
	c, err := mcp.Connect(ctx, mcp.ServerConfig{
		Name:    "everything",
		Command: "npx",
		Args:    []string{"-y", "@modelcontextprotocol/server-everything"},
		Prefix:  "demo_",
		Include: []string{"get-*", "echo"},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	tools, err := c.Tools(ctx) // []tool.Tool, ready for a chat request
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, t := range tools {
		fmt.Println(t.Definition().Name)
	}
}
