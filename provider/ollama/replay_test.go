package ollama

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/internal/providertest"
	"github.com/wield-ai/wield/internal/replay"
	"github.com/wield-ai/wield/tool"
)

// checkRequest compares what wield sent with the recorded request, as parsed JSON. Ignored:
// empty objects, arrays and strings (see normalize); tool_calls[].function.index, which Ollama's
// client always writes; and, with ignoreStream, the "stream" field the recording left out
// (wield always sets it).
func checkRequest(t testing.TB, got replay.Request, ex replay.Exchange, ignoreStream bool, edit func(want map[string]any)) {
	t.Helper()
	if got.Method != ex.Method || got.Path != ex.Path {
		t.Errorf("%s %s, recorded %s %s", got.Method, got.Path, ex.Method, ex.Path)
	}
	want := normalize(t, ex.RequestBody).(map[string]any)
	body := normalize(t, got.Body).(map[string]any)
	if ignoreStream {
		if _, ok := want["stream"]; ok {
			t.Fatal("the recording has a stream field")
		}
		if body["stream"] != true {
			t.Errorf("stream = %v, want true", body["stream"])
		}
		delete(body, "stream")
	}
	msgs, _ := body["messages"].([]any)
	for _, m := range msgs {
		calls, _ := m.(map[string]any)["tool_calls"].([]any)
		for _, c := range calls {
			delete(c.(map[string]any)["function"].(map[string]any), "index")
		}
	}
	if edit != nil {
		edit(want)
	}
	if !reflect.DeepEqual(body, want) {
		t.Errorf("request body differs from the recording\n got: %s\nwant: %s", providertest.Indent(body), providertest.Indent(want))
	}
}

// TestReplay sends the request of each recorded case and checks it equals the recorded one, and
// that the answer is read as recorded (text, calls with arguments, finish, usage).
func TestReplay(t *testing.T) {
	// The recordings asked llama3.2 with the weather tool, or gemma3:1b for text.
	llamaWeather := func(t testing.TB) *chat.Options {
		return &chat.Options{Model: "llama3.2", Tools: []tool.Tool{weatherTool(t)}}
	}
	gemmaText := func(testing.TB) *chat.Options {
		return &chat.Options{Model: "gemma3:1b", MaxTokens: 50, Temperature: chat.Ptr(0.0)}
	}
	tests := []struct {
		dir          string
		stream       bool
		ignoreStream bool
		// user is the one message sent; history, when set, the messages sent instead.
		user    string
		history []chat.Message
		opts    func(t testing.TB) *chat.Options
		finish  chat.FinishReason
		// text, when set, checks the answer's text; check, more of the answer.
		text  func(string) bool
		check func(t *testing.T, resp *chat.Response)
	}{
		{
			dir: "docs-tool-call-llama3.2", user: "what is the weather in tokyo?", opts: llamaWeather, finish: chat.FinishToolCalls,
			check: func(t *testing.T, resp *chat.Response) {
				if c := resp.ToolCalls(); len(c) != 1 || c[0].Arguments != `{"city":"Tokyo"}` || !strings.HasPrefix(c[0].ID, syntheticIDPrefix) {
					t.Fatalf("calls %+v", c)
				}
			},
		},
		{
			dir: "docs-tool-call-stream-llama3.2", stream: true, user: "what is the weather in tokyo?", opts: llamaWeather,
			check: func(t *testing.T, resp *chat.Response) {
				if c := resp.ToolCalls(); len(c) != 1 || c[0].Name != "get_weather" || c[0].Arguments != `{"city":"Tokyo"}` {
					t.Fatalf("calls %+v", c)
				}
			},
		},
		{
			dir: "docs-tool-result-followup-llama3.2", opts: llamaWeather, finish: chat.FinishStop,
			history: []chat.Message{
				chat.User("what is the weather in Toronto?"),
				chat.Assistant("", chat.ToolCall{ID: syntheticIDPrefix + "abc-0", Name: "get_weather", Arguments: `{"city":"Toronto"}`}),
				chat.ToolMessage(chat.ToolResult{ID: syntheticIDPrefix + "abc-0", Name: "get_weather", Content: "11 degrees celsius"}),
			},
			text: func(s string) bool { return s == "The current temperature in Toronto is 11°C." },
		},
		{
			dir: "lcgo-text-stream-gemma3-1b", stream: true, user: "Count from 1 to 5", opts: gemmaText, finish: chat.FinishStop,
			text: func(s string) bool { return strings.Contains(s, "1, 2, 3, 4, 5") },
		},
		{
			dir: "lcgo-text-stream-default-gemma3-1b", stream: true, ignoreStream: true, user: "Hello, how are you?", opts: gemmaText,
			finish: chat.FinishLength, text: func(s string) bool { return strings.HasPrefix(s, "Hello there! I’m doing well") },
		},
	}
	for _, tt := range tests {
		t.Run(tt.dir, func(t *testing.T) {
			exs := load(t, tt.dir)
			srv := replay.NewServer(t, exs...)
			m, _ := newTestModel(t, srv.URL, Config{})
			history := tt.history
			if tt.user != "" {
				history = []chat.Message{chat.User(tt.user)}
			}
			resp := providertest.Answer(t, m, &chat.Prompt{Messages: history, Options: tt.opts(t)}, tt.stream)
			checkRequest(t, srv.Requests()[0], exs[0], tt.ignoreStream, nil)
			parseRecorded(t, exs[0]).check(t, resp)
			if tt.finish != "" && resp.Generations[0].FinishReason != tt.finish {
				t.Errorf("finish %q, want %q", resp.Generations[0].FinishReason, tt.finish)
			}
			if tt.text != nil && !tt.text(resp.Text()) {
				t.Errorf("answer %q", resp.Text())
			}
			if tt.check != nil {
				tt.check(t, resp)
			}
		})
	}
}

// TestToolsUnsupported replays Ollama refusing tools for a model without tool support: the
// request matches the recording and the answer is a ProviderError with the server's message.
func TestToolsUnsupported(t *testing.T) {
	exs := load(t, "lcgo-tools-unsupported-error-gemma3-1b")
	srv := replay.NewServer(t, exs...)
	m, _ := newTestModel(t, srv.URL, Config{Model: "gemma3:1b"})
	getTime := providertest.Tool(t, "getTime", "Get the current time.", func(context.Context, struct{}) (string, error) {
		return "12:00", nil
	})
	_, err := m.Call(context.Background(), &chat.Prompt{
		Messages: []chat.Message{chat.User("Which date do we have today?")},
		Options:  &chat.Options{Tools: []tool.Tool{getTime}},
	})
	var pe *chat.ProviderError
	if !errors.As(err, &pe) || pe.Provider != "ollama" || pe.StatusCode != 400 ||
		pe.Message != "registry.ollama.ai/library/gemma3:1b does not support tools" || pe.Err == nil {
		t.Fatalf("err = %v", err)
	}
	if srv.Served() != 1 {
		t.Fatalf("a 400 was retried: %d requests", srv.Served())
	}
	checkRequest(t, srv.Requests()[0], exs[0], false, nil)
}

// TestCallOnStreamingServer proves Call reads a server that streams although asked not to.
func TestCallOnStreamingServer(t *testing.T) {
	exs := load(t, "lcgo-text-stream-default-gemma3-1b")
	srv := replay.NewServer(t, exs...)
	m, _ := newTestModel(t, srv.URL, Config{Model: "gemma3:1b"})
	resp, err := m.Call(context.Background(), &chat.Prompt{Messages: []chat.Message{chat.User("Hello, how are you?")}})
	if err != nil {
		t.Fatal(err)
	}
	parseRecorded(t, exs[0]).check(t, resp)
	if !strings.Contains(string(srv.Requests()[0].Body), `"stream":false`) {
		t.Fatalf("stream not set: %s", srv.Requests()[0].Body)
	}
}

// TestToolLoop runs a tool loop with a real Go tool through two documentation exchanges: the
// tool call and the follow-up with the tool's result. No recorded Ollama tool loop exists; the
// documentation's two examples ask about different cities (Tokyo, then Toronto), so the second
// request is compared with the follow-up example with its user question and call arguments read
// as this conversation's (and "stream" as this run sets it). Everything else — the assistant turn with its tool_calls, the tool
// message with tool_name and the tool's output — must match, and the answer is the recorded one.
func TestToolLoop(t *testing.T) {
	tokyoLoop(t, func(t *testing.T, m *Model, stream bool) string {
		tools := []tool.Tool{weatherTool(t)}
		history := []chat.Message{chat.User("what is the weather in tokyo?")}
		var resp *chat.Response
		for i := range 2 {
			p := &chat.Prompt{Messages: history, Options: &chat.Options{Tools: tools}}
			var err error
			resp, err = providertest.Run(context.Background(), m, p, stream)
			if err != nil {
				t.Fatal(err)
			}
			if resp.HasToolCalls() {
				history = providertest.Execute(t, p, resp)
			} else if i == 0 {
				t.Fatal("no tool call")
			}
		}
		return resp.Text()
	})
}

// tokyoLoop runs loop, one way to hold the documentation's weather conversation, called and
// streamed against the documentation's tool call and its follow-up: loop returns the final
// answer, which must be the recorded one, and the two requests must match the recorded ones.
func tokyoLoop(t *testing.T, loop func(t *testing.T, m *Model, stream bool) string) {
	for _, stream := range []bool{false, true} {
		name, first := "call", "docs-tool-call-llama3.2"
		if stream {
			name, first = "stream", "docs-tool-call-stream-llama3.2"
		}
		t.Run(name, func(t *testing.T) {
			exs := append(load(t, first), load(t, "docs-tool-result-followup-llama3.2")...)
			srv := replay.NewServer(t, exs...)
			m, _ := newTestModel(t, srv.URL, Config{Model: "llama3.2"})
			answer := loop(t, m, stream)
			if srv.Served() != 2 {
				t.Fatalf("served %d of 2 exchanges", srv.Served())
			}
			checkRequest(t, srv.Requests()[0], exs[0], false, nil)
			checkRequest(t, srv.Requests()[1], exs[1], false, followupAsTokyo(stream))
			if answer != "The current temperature in Toronto is 11°C." {
				t.Fatalf("final answer %q", answer)
			}
		})
	}
}

// followupAsTokyo reads the documentation's follow-up request (about Toronto) as the follow-up
// of the documentation's tool call (about Tokyo): the user's question and the call's arguments
// are this conversation's, and "stream" is as the run sets it. The rest must match as recorded.
func followupAsTokyo(stream bool) func(want map[string]any) {
	return func(want map[string]any) {
		want["stream"] = stream
		msgs := want["messages"].([]any)
		msgs[0].(map[string]any)["content"] = "what is the weather in tokyo?"
		fn := msgs[1].(map[string]any)["tool_calls"].([]any)[0].(map[string]any)["function"].(map[string]any)
		fn["arguments"] = map[string]any{"city": "Tokyo"}
	}
}
