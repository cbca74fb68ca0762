package attack

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/chattest"
	"github.com/wield-ai/wield/client"
	"github.com/wield-ai/wield/mcp"
	"github.com/wield-ai/wield/mcp/mcptest"
	"github.com/wield-ai/wield/tool"
	"github.com/wield-ai/wield/toolcall"
)

// The secrets a model puts in arguments and a tool puts in its results. Telemetry without
// content recording must never carry them: traces and logs travel to other systems and people.
const (
	argSecret    = "ZebraSecretArgXq"
	resultSecret = "ResultSecretYw"
)

const lookupSchema = `{"type":"object","properties":{
	"city":{"type":"string","maxLength":40,"pattern":"^[A-Za-z]+$"},
	"unit":{"enum":["celsius","fahrenheit"]},
	"days":{"type":"integer","minimum":1},
	"mode":{"const":"fast"},
	"tags":{"type":"array","items":{"type":"string","minLength":20}}
},"required":["city"],"additionalProperties":false}`

// secretTools are tools whose arguments and results hold the secrets, and whose failures quote
// them: the ways a model's or a tool's data can reach an error text.
func secretTools(t *testing.T) []tool.Tool {
	lookup := func(name string, fn func(city string) (any, error)) tool.Tool {
		return tool.Must(tool.New(tool.Definition{Name: name, Description: "Look up a city", InputSchema: []byte(lookupSchema)},
			func(_ context.Context, args map[string]any) (any, error) { return fn(args["city"].(string)) }))
	}
	report := tool.Must(tool.New(tool.Definition{
		Name: "report", Description: "A report", InputSchema: []byte(lookupSchema),
		OutputSchema: []byte(`{"type":"object","properties":{"temperature":{"type":"number"}},"required":["temperature"]}`),
	}, func(_ context.Context, args map[string]any) (any, error) {
		return map[string]any{"temperature": args["city"].(string) + resultSecret}, nil
	}))
	slow := tool.Must(tool.New(tool.Definition{Name: "slow", Description: "Slow", InputSchema: []byte(lookupSchema)},
		func(ctx context.Context, args map[string]any) (any, error) {
			<-ctx.Done()
			return nil, fmt.Errorf("gave up on %s: %w", args["city"], ctx.Err())
		}, tool.WithTimeout(20*time.Millisecond)))
	return []tool.Tool{
		lookup("weather", func(city string) (any, error) { return "Sunny in " + city + ", " + resultSecret, nil }),
		lookup("failing", func(city string) (any, error) {
			return nil, fmt.Errorf("no forecast for %s (%s)", city, resultSecret)
		}),
		lookup("crashing", func(city string) (any, error) { return []string{city}[len(city)], nil }),
		lookup("panicking", func(city string) (any, error) { panic("bad city " + city) }),
		lookup("fatal", func(city string) (any, error) {
			return nil, tool.Fatal(fmt.Errorf("lost the database while looking up %s (%s)", city, resultSecret))
		}),
		report, slow,
	}
}

// hostileArguments are arguments carrying the secret, valid and invalid in every way the
// validator words differently.
var hostileArguments = []string{
	`{"city":"` + argSecret + `"}`,
	`{"city":"Paris","days":"` + argSecret + `"}`,
	`{"city":"Paris","unit":"` + argSecret + `"}`,
	`{"city":"Paris","mode":"` + argSecret + `"}`,
	`{"city":"` + strings.Repeat(argSecret, 4) + `"}`,
	`{"city":"` + argSecret + `!"}`,
	`{"city":"Paris","extra":"` + argSecret + `"}`,
	`{"city":"Paris","tags":["` + argSecret + `"]}`,
	`{"city":"Paris","days":-` + strings.Repeat("9", 20) + `}`,
	`{"city":"` + argSecret,
	`{"city":` + argSecret + `}`,
	`["` + argSecret + `"]`,
}

// leaks fails t for each secret found in what the recorder kept.
func leaks(t *testing.T, where string, r *recorder) {
	t.Helper()
	text := r.text()
	for _, secret := range []string{argSecret, resultSecret} {
		if i := strings.Index(text, secret); i >= 0 {
			t.Errorf("%s: %s reached telemetry without content recording:\n…%s…", where, secret, text[max(0, i-300):min(len(text), i+100)])
		}
	}
}

// With content recording off, no argument or result value reaches spans, span status or logs,
// through the tool loop (toolcall's execute_tool spans and logs, client's turn and model-call
// spans and logs, called and streamed) or an MCP server (its logs, whatever its error processor),
// also when the tools are proxied from an MCP server. Failures are described by their kind and,
// for invalid arguments, the paths and rules they broke.
func TestAttackNoContentInTelemetry(t *testing.T) {
	tools := secretTools(t)

	// loop runs one turn of a client whose model calls each tool with each argument, then
	// answers; a fatal tool ends the turn.
	loop := func(t *testing.T, r *recorder, tools []tool.Tool, processor toolcall.ErrorProcessor, record, stream bool) error {
		var calls []chat.ToolCall
		for _, tl := range tools {
			name := tl.Definition().Name
			if strings.HasSuffix(name, "fatal") {
				continue
			}
			for _, args := range hostileArguments {
				calls = append(calls, chattest.Call(name, args))
			}
		}
		m := chattest.New(chattest.Calls(calls...), chattest.Calls(chattest.Call(fatalName(tools), `{"city":"`+argSecret+`"}`)), chattest.Text("done"))
		mgr := toolcall.New(toolcall.Config{TracerProvider: r.tp, Logger: r.log, RecordContent: record, ErrorProcessor: processor,
			Limits: toolcall.Limits{PerTool: 1000, Total: 1000}})
		c, err := client.New(m, client.WithManager(mgr), client.WithTracerProvider(r.tp), client.WithLogger(r.log), client.WithTools(tools))
		if err != nil {
			t.Fatal(err)
		}
		spec := c.Prompt("What is the weather in " + "Paris" + "?")
		if stream {
			for _, err = range spec.Stream(context.Background()).Events() {
				if err != nil {
					break
				}
			}
		} else {
			err = spec.Call(context.Background()).Err()
		}
		return err
	}
	// The caller gets the whole error of a turn a tool ended: it is the application's.
	wantFatal := func(t *testing.T, err error) {
		if err == nil || !strings.Contains(err.Error(), argSecret) {
			t.Fatalf("the turn ended with %v, want the fatal tool's error", err)
		}
	}

	for _, stream := range []bool{false, true} {
		for _, processor := range []toolcall.ErrorProcessor{nil, toolcall.AlwaysFail()} {
			name := fmt.Sprintf("loop stream=%v always-fail=%v", stream, processor != nil)
			alwaysFail := processor != nil
			t.Run(name, func(t *testing.T) {
				r := newRecorder(t)
				err := loop(t, r, tools, processor, false, stream)
				if alwaysFail {
					if err == nil { // the first failure, whichever it is
						t.Fatal("the turn did not end with a failed call")
					}
				} else {
					wantFatal(t, err)
				}
				if r.spanCount() < 3 {
					t.Fatalf("%d spans recorded", r.spanCount())
				}
				leaks(t, name, r)
			})
		}
	}

	// The check can fail: with content recording on, the arguments are on the spans.
	t.Run("content recording on", func(t *testing.T) {
		r := newRecorder(t)
		wantFatal(t, loop(t, r, tools, nil, true, false))
		if !strings.Contains(r.text(), argSecret) || !strings.Contains(r.text(), resultSecret) {
			t.Fatal("with content recording on, the spans lack the arguments and results")
		}
	})

	for _, processor := range []mcp.ErrorProcessor{nil, toolcall.AlwaysFail()} {
		for _, transport := range mcptest.Transports {
			name := fmt.Sprintf("mcp server over %s, processor fails=%v", transport, processor != nil)
			t.Run(name, func(t *testing.T) {
				r := newRecorder(t)
				s, err := mcp.NewServer(nil, &mcp.ServerOptions{Logger: r.log, ErrorProcessor: processor}, tools...)
				if err != nil {
					t.Fatal(err)
				}
				cfg := mcptest.Reach(t, transport, "secrets", s)
				cfg.Logger = r.log
				cfg.Prefix = "up_"
				c := mcptest.Connect(t, cfg)
				for _, tl := range tools {
					for _, args := range hostileArguments {
						if !json.Valid([]byte(args)) {
							continue // a client cannot send it
						}
						s, err := c.Session(testContext(t))
						if err != nil {
							t.Fatal(err)
						}
						// Whatever comes back is the client's to read; the server's log must not
						// have it.
						_, _ = s.CallTool(testContext(t), &sdk.CallToolParams{Name: tl.Definition().Name, Arguments: json.RawMessage(args)})
					}
				}
				leaks(t, name, r)

				// The same tools proxied: a loop over the MCP client's tools.
				proxied, err := c.Tools(testContext(t))
				if err != nil {
					t.Fatal(err)
				}
				// A proxied tool's fatal error reaches the client as an error result.
				if err := loop(t, r, proxied, nil, false, false); err != nil {
					t.Fatal(err)
				}
				leaks(t, name+", proxied into a tool loop", r)
			})
		}
	}
}

func fatalName(tools []tool.Tool) string {
	for _, tl := range tools {
		if name := tl.Definition().Name; strings.HasSuffix(name, "fatal") {
			return name
		}
	}
	panic("no fatal tool")
}
