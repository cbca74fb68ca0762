package anthropic

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/internal/providertest"
	"github.com/wield-ai/wield/internal/replay"
	"github.com/wield-ai/wield/tool"
	"github.com/wield-ai/wield/toolcall"
)

// The tools of the recordings, as real Go functions producing the results the recorded clients
// sent back.

const sdkWeatherSchema = `{"properties":{"city":{"type":"string"},"units":{"enum":["celsius","fahrenheit"],"type":"string"}},"required":["city"],"type":"object"}`

type weatherIn struct {
	City  string `json:"city"`
	Units string `json:"units,omitempty"`
}

// sdkWeather is the get_weather tool of anthropic-sdk-go's tool-runner tests.
func sdkWeather() tool.Tool {
	return newTool("get_weather", "Get weather", sdkWeatherSchema, func(_ context.Context, in weatherIn) (string, error) {
		temp := 20
		if in.Units == "fahrenheit" {
			temp = 68
		}
		return fmt.Sprintf("The weather in %s is %d degrees %s.", in.City, temp, in.Units), nil
	})
}

// sdkCustomWeather is the caller-handled get_weather of the custom-handling recording.
func sdkCustomWeather() tool.Tool {
	return newTool("get_weather", "Get weather", sdkWeatherSchema, func(_ context.Context, in weatherIn) (string, error) {
		if in.Units == "celsius" {
			return "Celsius 20°C", nil
		}
		return "Fahrenheit 68°F", nil
	})
}

// flakyWeather fails on its first call, as in the tool-call-error recording.
func flakyWeather() tool.Tool {
	var calls atomic.Int32
	return newTool("get_weather", "Get weather", sdkWeatherSchema, func(_ context.Context, in weatherIn) (string, error) {
		if calls.Add(1) == 1 {
			return "", errors.New("Unexpected error, try again")
		}
		return "Sunny 68°F", nil
	})
}

func slowTool() tool.Tool {
	return newTool("slow_tool", "A slow tool", `{"properties":{"input":{"type":"string"}},"type":"object"}`,
		func(_ context.Context, in struct {
			Input string `json:"input"`
		}) (string, error) {
			return "done: " + in.Input, nil
		})
}

func lcgoWeather() tool.Tool {
	schema := `{"properties":{"location":{"description":"The city and state, e.g. San Francisco, CA","type":"string"},"unit":{"enum":["fahrenheit","celsius"],"type":"string"}},"required":["location"],"type":"object"}`
	return newTool("getCurrentWeather", "Get the current weather in a given location", schema,
		func(_ context.Context, in struct {
			Location string `json:"location"`
			Unit     string `json:"unit,omitempty"`
		}) (string, error) {
			city, _, _ := strings.Cut(in.Location, ",")
			return fmt.Sprintf(`{"%s","72 and sunny"}`, city), nil
		})
}

func fantasyWeather() tool.Tool {
	schema := `{"properties":{"location":{"description":"the city","type":"string"}},"required":["location"],"type":"object"}`
	return newTool("weather", "Get weather information for a location", schema,
		func(_ context.Context, in struct {
			Location string `json:"location"`
		}) (string, error) {
			if in.Location == "" {
				return "", errors.New("no location")
			}
			return "40 C", nil
		})
}

// replayCase is one recorded conversation and what wield must send and conclude.
type replayCase struct {
	name   string
	stream bool
	cfg    Config
	opts   chat.Options
	// tools makes the case's tools, fresh for each run (some keep state, like a first failure).
	tools  func() tool.Tool
	system string
	user   string
	// dropToolsAfterFirst offers no tools after the first exchange, as the recording did.
	dropToolsAfterFirst bool
	// noRequest marks response-only recordings.
	noRequest bool

	wantText  string
	wantCalls []string // name + arguments of the final response's calls
}

var replayCases = []replayCase{
	{
		name: "sdk-tool-runner-basic", cfg: Config{Model: "claude-3-7-sonnet-latest", MaxTokens: 512},
		tools: sdkWeather, user: "What's the weather in San Francisco? Use fahrenheit.",
		wantText: "The current temperature in San Francisco is 68 degrees Fahrenheit.",
	},
	{
		name: "sdk-tool-runner-run-to-completion", cfg: Config{Model: "claude-3-7-sonnet-latest", MaxTokens: 512},
		tools: sdkWeather, user: "What's the weather in San Francisco? Use fahrenheit.",
		wantText: "The weather in San Francisco is currently 68 degrees Fahrenheit.",
	},
	{
		name: "sdk-tool-runner-next-message", cfg: Config{Model: "claude-3-7-sonnet-latest", MaxTokens: 512},
		tools: sdkWeather, user: "What's the weather in SF? Use celsius.",
		wantText: "The current weather in San Francisco is 20 degrees Celsius.",
	},
	{
		name: "sdk-tool-runner-custom-handling", cfg: Config{Model: "claude-3-7-sonnet-latest", MaxTokens: 512},
		tools: sdkCustomWeather, user: "What's the weather in SF in celsius?",
		dropToolsAfterFirst: true,
		wantText:            "It's currently 20°C in San Francisco.",
	},
	{
		name: "sdk-tool-runner-max-iterations", cfg: Config{Model: "claude-3-7-sonnet-latest", MaxTokens: 512},
		tools: sdkWeather, user: "Check weather in SF and NY, step by step",
		wantText:  "Now, let me check the weather in New York:",
		wantCalls: []string{`get_weather{"city":"New York"}`},
	},
	{
		name: "sdk-tool-runner-tool-call-error", cfg: Config{Model: "claude-3-7-sonnet-latest", MaxTokens: 512},
		tools: flakyWeather, user: "Weather in San Francisco?",
		wantText: "The current weather in San Francisco is sunny with a temperature of 68°F.",
	},
	{
		name: "sdk-tool-runner-context-cancel", cfg: Config{Model: "claude-3-7-sonnet-latest", MaxTokens: 512},
		tools: slowTool, user: "Call the slow_tool with input 'test'",
		wantText:  "I can help you call the slow_tool with the input 'test'. I'll use the function call now:",
		wantCalls: []string{`slow_tool{"input":"test"}`},
	},
	{
		name: "sdk-tool-runner-next-streaming", stream: true, cfg: Config{Model: "claude-3-7-sonnet-latest", MaxTokens: 512},
		tools: sdkWeather, user: "Weather in SF?",
		wantText:  "I'd be happy to check the weather in San Francisco for you. Let me get that information for you right away.",
		wantCalls: []string{`get_weather{"city":"San Francisco"}`},
	},
	{
		name: "lcgo-tool-loop-claude-haiku-4-5",
		opts: chat.Options{Model: "claude-haiku-4-5", MaxTokens: 2048, Temperature: chat.Ptr(0.0)}, tools: lcgoWeather,
		user: "What is the weather in Boston?", wantText: "The weather in Boston is currently **72°F and sunny**. It's a beautiful day!",
	},
	{
		name: "lcgo-text-claude-3-opus",
		opts: chat.Options{Model: "claude-3-opus-20240229", MaxTokens: 100, Temperature: chat.Ptr(0.0)},
		user: "Hello, how are you?",
		wantText: "Hello! As an AI language model, I don't have feelings, but I'm functioning properly and ready to assist you. " +
			"How can I help you today?",
	},
	{
		name: "lcgo-text-stream-claude-3-opus", stream: true,
		opts: chat.Options{Model: "claude-3-opus-20240229", MaxTokens: 100, Temperature: chat.Ptr(0.0)},
		user: "Count from 1 to 5", wantText: "1\n2\n3\n4\n5",
	},
	{
		name: "fantasy-tool-loop-claude-sonnet-4", system: "You are a helpful assistant",
		opts:  chat.Options{Model: "claude-sonnet-4-20250514", MaxTokens: 4000, ToolChoice: "auto", ParallelToolCalls: chat.Ptr(true)},
		tools: fantasyWeather,
		user:  "What's the weather in Florence,Italy?",
		wantText: "The current weather in Florence, Italy is 40°C (104°F). That's quite hot! It would be a good idea to stay " +
			"hydrated and seek shade or air conditioning if you're planning to be outdoors.",
	},
	{
		name: "fantasy-tool-loop-streaming-claude-sonnet-4", stream: true, system: "You are a helpful assistant",
		opts:  chat.Options{Model: "claude-sonnet-4-20250514", MaxTokens: 4000, ToolChoice: "auto", ParallelToolCalls: chat.Ptr(true)},
		tools: fantasyWeather,
		user:  "What's the weather in Florence,Italy?",
		wantText: "The current weather in Florence, Italy shows a temperature of 40°C (104°F). That's quite hot! Make sure to " +
			"stay hydrated and seek shade if you're planning to be outdoors.",
	},
	{
		name: "fantasy-text-stream-claude-sonnet-4", stream: true, system: "You are a helpful assistant",
		opts: chat.Options{Model: "claude-sonnet-4-20250514", MaxTokens: 4000},
		user: "Say hi in Portuguese",
		wantText: "Olá! (That's \"hi\" in Portuguese)\n\nYou could also say \"Oi!\" which is a more casual way to say hi in " +
			"Portuguese.",
	},
}

// TestReplay runs every recorded conversation that has a request side: wield sends each request
// (the first from the prompt, the later ones from its own parsed answers and the Go tools'
// results), the test compares it with the recorded request, and compares wield's reading of
// each recorded answer with an independent reading of the recording.
func TestReplay(t *testing.T) {
	for _, tc := range replayCases {
		t.Run(tc.name, func(t *testing.T) {
			exs := providertest.Load(t, tc.name)
			srv := replay.NewServer(t, exs...)
			m := newTestModel(t, srv.URL, tc.cfg)
			resp := runLoop(t, m, tc, exs, srv)

			if got := resp.Text(); got != tc.wantText {
				t.Errorf("final text = %q, want %q", got, tc.wantText)
			}
			calls := resp.ToolCalls()
			if len(calls) != len(tc.wantCalls) {
				t.Errorf("final calls = %+v, want %q", calls, tc.wantCalls)
			}
			for i, c := range calls {
				if i >= len(tc.wantCalls) {
					break
				}
				name, args, _ := strings.Cut(tc.wantCalls[i], "{")
				if c.Name != name || !providertest.JSONEqual(t, c.Arguments, "{"+args) {
					t.Errorf("final call %d = %s%s, want %s", i, c.Name, c.Arguments, tc.wantCalls[i])
				}
			}
			if srv.Served() != len(exs) {
				t.Errorf("served %d of %d recorded exchanges", srv.Served(), len(exs))
			}
			for i, r := range srv.Requests() {
				if r.Method != "POST" || r.Path != "/v1/messages" {
					t.Errorf("request %d: %s %s, want POST /v1/messages", i+1, r.Method, r.Path)
				}
				if r.Header.Get("X-Api-Key") != "test-key" || r.Header.Get("Anthropic-Version") != "2023-06-01" {
					t.Errorf("request %d: headers x-api-key %q anthropic-version %q", i+1, r.Header.Get("X-Api-Key"), r.Header.Get("Anthropic-Version"))
				}
			}
		})
	}
}

// sdkRunnerErrors words failed calls the way anthropic-sdk-go's tool runner, which made most
// of the recordings, does.
var sdkRunnerErrors = toolcall.ErrorProcessorFunc(func(_ context.Context, err *tool.ExecutionError) (string, error) {
	return "Error: " + err.Err.Error(), nil
})

// runLoop drives a tool loop by hand through every recorded exchange: call the model, check the
// request and the answer against the recording, run the calls with toolcall.Manager, send the
// history it returns.
func runLoop(t *testing.T, m *Model, tc replayCase, exs []replay.Exchange, srv *replay.Server) *chat.Response {
	t.Helper()
	ctx := context.Background()
	manager := toolcall.New(toolcall.Config{ErrorProcessor: sdkRunnerErrors})
	var msgs []chat.Message
	if tc.system != "" {
		msgs = append(msgs, chat.System(tc.system))
	}
	msgs = append(msgs, chat.User(tc.user))
	opts := tc.opts
	if tc.tools != nil {
		opts.Tools = []tool.Tool{tc.tools()}
	}
	var resp *chat.Response
	for i, ex := range exs {
		if i > 0 && tc.dropToolsAfterFirst {
			opts.Tools = nil
		}
		p := &chat.Prompt{Messages: msgs, Options: &opts}
		var err error
		resp, err = providertest.Run(ctx, m, p, tc.stream)
		if err != nil {
			t.Fatalf("exchange %d: %v", i+1, err)
		}
		if !tc.noRequest {
			checkRequest(t, srv.Requests()[i].Body, ex.RequestBody)
		}
		checkResponse(t, resp, expectRecorded(t, ex))
		if i == len(exs)-1 || !resp.HasToolCalls() {
			break
		}
		res, err := manager.Execute(ctx, p, resp)
		if err != nil {
			t.Fatalf("exchange %d: executing %+v: %v", i+1, resp.ToolCalls(), err)
		}
		msgs = res.History
	}
	return resp
}
