package gemini

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/internal/providertest"
	"github.com/wield-ai/wield/internal/replay"
	"github.com/wield-ai/wield/tool"
)

// Inputs of the recorded conversations, as the recording clients sent them.
const (
	fantasySystem = "You are a helpful assistant"
	fantasyUser   = "What's the weather in Florence,Italy?"
	adkSumSystem  = "IMPORTANT: output ONLY the result computed by the provided function, if the result of 10 + 32 is 42 print only 42\n\n" +
		`You are an agent. Your internal name is "agent". The description about you is "math agent".`
	adkWeatherSystem = "I can answer your questions about the time and weather in a city.\n\n" +
		`You are an agent. Your internal name is "weather_time_agent". The description about you is "Agent to answer questions about the time and weather in a city.".`
	adkCalcSystem = "You are a calculator assistant. You will recieve requests to add two integers. Respond with the sum of the two integers and you must use the sum tool to calculate the sum.\n\n" +
		`You are an agent. Your internal name is "calculator". The description about you is "A calculator that can add two integers".`
	adkThinkSystem = "Think deep. Always double check the answer before making the conclusion.\n\n" +
		`You are an agent. Your internal name is "calculator". The description about you is "calculating agent".`
)

type weatherIn struct {
	Location string `json:"location" jsonschema:"the city"`
}

type sumIn struct {
	A int `json:"a"`
	B int `json:"b"`
}

type sumOut struct {
	Sum int `json:"sum"`
}

type cityIn struct {
	City string `json:"city" jsonschema:"city name"`
}

func fantasyWeather(t testing.TB) tool.Tool {
	return providertest.Tool(t, "weather", "Get weather information for a location", func(_ context.Context, in weatherIn) (string, error) {
		if in.Location == "" {
			return "", fmt.Errorf("no location")
		}
		return "40 C", nil
	})
}

func sumTool(t testing.TB, description string) tool.Tool {
	return providertest.Tool(t, "sum", description, func(_ context.Context, in sumIn) (sumOut, error) {
		return sumOut{Sum: in.A + in.B}, nil
	})
}

// mcpWeather answers the way ADK passes an MCP tool's structured result: under "output".
func mcpWeather(t testing.TB) tool.Tool {
	type summary struct {
		WeatherSummary string `json:"weather_summary"`
	}
	type out struct {
		Output summary `json:"output"`
	}
	return providertest.Tool(t, "get_weather", "returns weather in the given city", func(_ context.Context, in cityIn) (out, error) {
		return out{summary{fmt.Sprintf("Today in %q is sunny", in.City)}}, nil
	})
}

// loopCase is a recorded conversation replayed through the Model with real Go tools: the calls
// of each answer run through toolcall.Manager, which appends the answer and the results to the
// history, and the next user turn is added when the model answers in text.
type loopCase struct {
	dir    string
	stream bool
	mode   SchemaMode
	system string
	turns  []string
	tools  func(testing.TB) []tool.Tool
	opts   chat.Options
	// inventedIDs: the recording client numbered calls the API sent without an id and sent those
	// numbers back; wield sends no id for such calls, so the recorded ids are not compared.
	inventedIDs bool
	final       func(string) bool
	// vertex: a Gemini-on-Vertex-AI recording (testdata/vertex), replayed through the SDK's
	// Vertex backend with the recording's project and location.
	vertex bool
}

var loopCases = []loopCase{
	// The fantasy tool loop, recorded called and streamed, on the Gemini API and on Vertex AI.
	fantasyLoop("fantasy-tool-loop-gemini-2.5-flash", false, false, "The weather in Florence, Italy is 40 C."),
	fantasyLoop("fantasy-tool-loop-streaming-gemini-2.5-flash", true, false, "The weather in Florence,Italy is 40 C."),
	fantasyLoop("fantasy-vertex-gemini-tool-loop-gemini-2.5-flash", false, true, "The weather in Florence,Italy is 40 C."),
	fantasyLoop("fantasy-vertex-gemini-tool-loop-streaming-gemini-2.5-flash", true, true, "The weather in Florence, Italy is 40 C."),
	{
		dir:    "adk-function-tool-gemini-2.5-flash",
		system: adkSumSystem, turns: []string{"what is the sum of 1 + 2?"},
		tools: func(t testing.TB) []tool.Tool { return []tool.Tool{sumTool(t, "computes the sum of two numbers")} },
		final: func(s string) bool { return s == "3" },
	},
	{
		dir:    "adk-mcp-toolset-gemini-2.5-flash",
		system: adkWeatherSystem, turns: []string{"what is the weather in london?"},
		tools: func(t testing.TB) []tool.Tool { return []tool.Tool{mcpWeather(t)} },
		final: func(s string) bool { return s == "The weather in London is sunny." },
	},
	{
		dir: "adk-parallel-function-calls-stream-gemini-2.5-flash", stream: true,
		system: adkCalcSystem,
		turns: []string{
			"Can you add 2 and 3? Also 4 and 5? And 6 and 7?",
			"Great, now can you add 10 and 20? Also 40 and 50? And 60 and 70?",
		},
		tools: func(t testing.TB) []tool.Tool { return []tool.Tool{sumTool(t, "sums two integers")} },
		final: func(s string) bool {
			return s == "The sum of 10 and 20 is 30.\nThe sum of 40 and 50 is 90.\nThe sum of 60 and 70 is 130."
		},
	},
	{
		dir: "adk-text-stream-gemini-2.5-flash", stream: true,
		system: adkThinkSystem, turns: []string{"What is the sum of the first 50 prime numbers?"},
		opts:  chat.Options{Extra: map[string]any{ExtraIncludeThoughts: true}},
		final: func(s string) bool { return strings.HasSuffix(s, "The sum of the first 50 prime numbers is 5117.") },
	},
	{
		dir: "adk-text-stream-single-event-gemini-2.5-flash", stream: true,
		turns: []string{"What is the capital of France? One word."},
		opts:  chat.Options{Temperature: chat.Ptr(0.0)},
		final: func(s string) bool { return s == "Paris" },
	},
}

// fantasyLoop is a recording of the fantasy tool loop: the weather of Florence, called or
// streamed, on the Gemini API or on Vertex AI, whose final answer is final.
func fantasyLoop(dir string, stream, vertex bool, final string) loopCase {
	return loopCase{
		dir: dir, stream: stream, vertex: vertex, mode: SchemaSubset,
		system: fantasySystem, turns: []string{fantasyUser},
		tools:       func(t testing.TB) []tool.Tool { return []tool.Tool{fantasyWeather(t)} },
		opts:        chat.Options{MaxTokens: 4000, ToolChoice: "auto"},
		inventedIDs: true,
		final:       func(s string) bool { return s == final },
	}
}

// serve loads the case's exchanges and returns a Model talking to a server that replays them.
func (tc loopCase) serve(t testing.TB) ([]replay.Exchange, *replay.Server, *Model) {
	t.Helper()
	if tc.vertex {
		exs := providertest.Load(t, "vertex", tc.dir)
		srv := replay.NewServer(t, exs...)
		return exs, srv, newVertexModel(t, srv, "fantasy-playground-472418", "us-east5", Config{SchemaMode: tc.mode})
	}
	exs := providertest.Load(t, tc.dir)
	srv := replay.NewServer(t, exs...)
	m, _ := newTestModel(t, srv.URL, Config{SchemaMode: tc.mode})
	return exs, srv, m
}

// TestReplayLoops replays whole recorded conversations. For every exchange it proves that the
// request wield sends equals the recorded one (tools, schema, system instruction, history with
// echoed thought signatures, function responses) and that the answer is read as recorded (text,
// thoughts, calls with arguments, ids and signatures, usage, finish reason); the conversation
// ends with the recorded final answer.
func TestReplayLoops(t *testing.T) {
	for _, tc := range loopCases {
		t.Run(tc.dir, func(t *testing.T) {
			exs, srv, m := tc.serve(t)
			opts := tc.opts
			if tc.tools != nil {
				opts.Tools = tc.tools(t)
			}
			var history []chat.Message
			if tc.system != "" {
				history = append(history, chat.System(tc.system))
			}
			history = append(history, chat.User(tc.turns[0]))
			nextTurn := 1
			var resp *chat.Response
			for i := range exs {
				p := &chat.Prompt{Messages: history, Options: &opts}
				var err error
				resp, err = providertest.Run(context.Background(), m, p, tc.stream)
				if err != nil {
					t.Fatalf("exchange %d: %v", i+1, err)
				}
				checkRequest(t, i, srv.Requests()[i], exs[i], tc.inventedIDs)
				parseRecorded(t, exs[i]).check(t, resp)
				switch {
				case resp.HasToolCalls():
					history = providertest.Execute(t, p, resp)
				case nextTurn < len(tc.turns):
					history = append(history, resp.Generations[0].Message, chat.User(tc.turns[nextTurn]))
					nextTurn++
				case i < len(exs)-1:
					t.Fatalf("conversation ended after %d of %d exchanges", i+1, len(exs))
				}
			}
			if srv.Served() != len(exs) {
				t.Fatalf("served %d of %d exchanges", srv.Served(), len(exs))
			}
			if !tc.final(resp.Text()) {
				t.Fatalf("final answer %q is not the recorded one", resp.Text())
			}
		})
	}
}

// TestReplaySingleTurns replays three independent recorded requests, each answered by one call.
func TestReplaySingleTurns(t *testing.T) {
	exs := providertest.Load(t, "adk-function-tool-simple-gemini-2.5-flash")
	srv := replay.NewServer(t, exs...)
	m, _ := newTestModel(t, srv.URL, Config{})
	report := providertest.Tool(t, "get_weather_report", "Retrieves the current weather report for a specified city.",
		func(_ context.Context, in struct {
			City string `json:"city"`
		}) (string, error) {
			return "sunny in " + in.City, nil
		})
	prompts := []string{
		"Report the current weather of the capital city of U.K.",
		"How is the weather of Paris now?",
		"Tell me about the current weather in New York",
	}
	cities := []string{"London", "Paris", "New York"}
	for i, text := range prompts {
		resp, err := m.Call(context.Background(), &chat.Prompt{
			Messages: []chat.Message{chat.User(text)},
			Options:  &chat.Options{Tools: []tool.Tool{report}},
		})
		if err != nil {
			t.Fatal(err)
		}
		checkRequest(t, i, srv.Requests()[i], exs[i], false)
		parseRecorded(t, exs[i]).check(t, resp)
		if got := resp.ToolCalls()[0].Arguments; got != fmt.Sprintf(`{"city":%q}`, cities[i]) {
			t.Errorf("exchange %d arguments %s", i+1, got)
		}
		if resp.Generations[0].FinishReason != chat.FinishToolCalls {
			t.Errorf("exchange %d finish %q", i+1, resp.Generations[0].FinishReason)
		}
	}
}

// checkRequest compares what wield sent with the recorded request, as parsed JSON. Ignored:
//   - empty objects ("generationConfig":{} from ADK; the SDK omits empty configs);
//   - functionDeclarations[].responseJsonSchema: ADK sends each tool's output schema; wield never
//     sends output schemas to models (tool.Definition.OutputSchema is for MCP);
//   - with inventedIDs, functionCall.id and functionResponse.id (see loopCase).
func checkRequest(t testing.TB, i int, got replay.Request, ex replay.Exchange, inventedIDs bool) {
	t.Helper()
	path := got.Path
	if got.Query != "" {
		path += "?" + got.Query
	}
	if got.Method != ex.Method || path != ex.Path {
		t.Errorf("exchange %d: %s %s, recorded %s %s", i+1, got.Method, path, ex.Method, ex.Path)
	}
	vertex := strings.HasPrefix(ex.Path, "/v1beta1/")
	if k := got.Header.Get("X-Goog-Api-Key"); vertex && k != "" || !vertex && k != "test-key" {
		t.Errorf("exchange %d: api key header %q", i+1, k)
	}
	want := normalize(t, ex.RequestBody)
	if m, ok := want.(map[string]any); ok {
		tools, _ := m["tools"].([]any)
		for _, tl := range tools {
			decls, _ := tl.(map[string]any)["functionDeclarations"].([]any)
			for _, d := range decls {
				delete(d.(map[string]any), "responseJsonSchema")
			}
		}
	}
	if inventedIDs {
		walkParts(want, func(p map[string]any) {
			for _, k := range []string{"functionCall", "functionResponse"} {
				if f, ok := p[k].(map[string]any); ok {
					delete(f, "id")
				}
			}
		})
	}
	body := normalize(t, got.Body)
	if !reflect.DeepEqual(body, want) {
		t.Errorf("exchange %d: request body differs from the recording\n got: %s\nwant: %s", i+1, providertest.Indent(body), providertest.Indent(want))
	}
}
