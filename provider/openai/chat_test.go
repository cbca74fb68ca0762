package openai

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"reflect"
	"strings"
	"testing"

	oai "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/internal/providertest"
	"github.com/wield-ai/wield/internal/replay"
	"github.com/wield-ai/wield/tool"
)

// The tools of the langchaingo recordings.
func lcgoWeatherTool() *testTool {
	return newTool("getCurrentWeather", "Get the current weather in a given location",
		`{"type":"object","properties":{"location":{"type":"string","description":"The city and state, e.g. San Francisco, CA"},"unit":{"type":"string","enum":["celsius","fahrenheit"]}},"required":["location"]}`)
}

func fantasyPrompt(question string, opts *chat.Options) *chat.Prompt {
	return &chat.Prompt{Messages: []chat.Message{chat.System("You are a helpful assistant"), chat.User(question)}, Options: opts}
}

func usage(in, out int) chat.Usage {
	return chat.Usage{InputTokens: in, OutputTokens: out, TotalTokens: in + out}
}

func textResponse(id, model, text string, fr chat.FinishReason, u chat.Usage) *chat.Response {
	return &chat.Response{ID: id, Model: model, Usage: u, Generations: []chat.Generation{
		{Message: chat.Message{Role: chat.RoleAssistant, Content: text}, FinishReason: fr}}}
}

func callResponse(id, model string, u chat.Usage, calls ...chat.ToolCall) *chat.Response {
	return &chat.Response{ID: id, Model: model, Usage: u, Generations: []chat.Generation{
		{Message: chat.Message{Role: chat.RoleAssistant, ToolCalls: calls}, FinishReason: chat.FinishToolCalls}}}
}

// TestChatReplay replays every single-exchange Chat Completions recording: the request wield
// builds from an equivalent prompt must carry what the recorded request carried, and the parsed
// answer (text, tool calls with ids and arguments, usage, finish reason) must match the
// recording. Cases recorded without their request check the answer only.
func TestChatReplay(t *testing.T) {
	jsonText := func(t *testing.T, body []byte) string {
		var c struct {
			Choices []struct {
				Message struct {
					Content string `json:"content"`
				} `json:"message"`
			} `json:"choices"`
		}
		if err := json.Unmarshal(body, &c); err != nil {
			t.Fatal(err)
		}
		return c.Choices[0].Message.Content
	}
	cases := []replayCase{{
		name:   "fantasy-text-gpt-4o",
		prompt: fantasyPrompt("Say hi in Portuguese", &chat.Options{Model: "gpt-4o", MaxTokens: 4000}),
		want: func(*testing.T, []byte) *chat.Response {
			return textResponse("chatcmpl-DuLdCrhIZ5WekmJNOuiNyelYjQqZk", "gpt-4o-2024-08-06", "Oi!", chat.FinishStop, usage(20, 2))
		},
	}, {
		name:   "fantasy-text-stream-gpt-4o",
		prompt: fantasyPrompt("Say hi in Portuguese", &chat.Options{Model: "gpt-4o", MaxTokens: 4000}),
		stream: true,
		want: func(*testing.T, []byte) *chat.Response {
			return textResponse("chatcmpl-DuLdCoxuLDs8HRMlOuz0Bi4wgi4XJ", "gpt-4o-2024-08-06", "Olá!", chat.FinishStop, usage(20, 2))
		},
	}, {
		name:   "lcgo-text-stream-gpt-3.5-turbo",
		cfg:    Config{MaxTokensField: "max_completion_tokens"},
		prompt: &chat.Prompt{Messages: []chat.Message{chat.User("Count from 1 to 5")}, Options: &chat.Options{Model: "gpt-3.5-turbo", MaxTokens: 50, Temperature: ptr(0.0)}},
		stream: true,
		want: func(*testing.T, []byte) *chat.Response {
			return textResponse("chatcmpl-C6bjxzOr3Oz1rTiafksd6himIit3q", "gpt-3.5-turbo-0125", "1, 2, 3, 4, 5", chat.FinishStop, usage(14, 13))
		},
	}, {
		name:   "lcgo-text-stream-content-parts-gpt-3.5-turbo",
		prompt: &chat.Prompt{Messages: []chat.Message{chat.User("I'm a pomeranian\nTell me more about my taxonomy")}, Options: &chat.Options{Model: "gpt-3.5-turbo", Temperature: ptr(0.0)}},
		stream: true,
		norms:  []normalizer{joinTextParts("messages")},
		want: func(t *testing.T, body []byte) *chat.Response {
			return textResponse("chatcmpl-C6coQW3cjZg7Jq2RcHQDQsjz3ZJx5", "gpt-3.5-turbo-0125", sseText(t, body), chat.FinishStop, usage(19, 82))
		},
	}, {
		name: "lcgo-tool-call-gpt-3.5-turbo",
		prompt: &chat.Prompt{Messages: []chat.Message{chat.User("What is the weather like in Boston?")},
			Options: &chat.Options{Model: "gpt-3.5-turbo", Temperature: ptr(0.0), Tools: []tool.Tool{lcgoWeatherTool()}}},
		want: func(*testing.T, []byte) *chat.Response {
			return callResponse("chatcmpl-C6coS1jncfSG1hcFv7v36PkpgHlBq", "gpt-3.5-turbo-0125", usage(81, 14),
				chat.ToolCall{ID: "call_olc8qHf1RDItRqwuEBNjsu3B", Name: "getCurrentWeather", Arguments: `{"location":"Boston"}`})
		},
	}, {
		name: "lcgo-tool-call-gpt-4.1",
		prompt: &chat.Prompt{Messages: []chat.Message{chat.User("What is the weather like in Boston, MA?")},
			Options: &chat.Options{Model: "gpt-4.1", Tools: []tool.Tool{lcgoWeatherTool()}}},
		want: func(*testing.T, []byte) *chat.Response {
			return callResponse("chatcmpl-D0v6xBgiKgFa8ZeP6eXY6BIjUUWtI", "gpt-4.1-2025-04-14", usage(82, 17),
				chat.ToolCall{ID: "call_Z8ofZnYOCeOnpu0h2auwOgeR", Name: "getCurrentWeather", Arguments: `{"location":"Boston, MA"}`})
		},
	}, {
		name: "lcgo-tool-call-streaming-gpt-4.1",
		prompt: &chat.Prompt{Messages: []chat.Message{chat.User("What is the weather like in Boston, MA?")},
			Options: &chat.Options{Model: "gpt-4.1", Tools: []tool.Tool{lcgoWeatherTool()}}},
		stream: true,
		want: func(*testing.T, []byte) *chat.Response {
			return callResponse("chatcmpl-D0v6tbeoeFgCof0a7ovVAFFYU4bcB", "gpt-4.1-2025-04-14", usage(82, 17),
				chat.ToolCall{ID: "call_T01mmFw4HNv2Rve5UrLlT8Sa", Name: "getCurrentWeather", Arguments: `{"location":"Boston, MA"}`})
		},
	}, {
		// The legacy functions API, reached through ExtraBody: the answer's function_call is read
		// as a tool call without id.
		name: "lcgo-legacy-function-call-gpt-3.5-turbo",
		cfg:  Config{MaxTokensField: "max_completion_tokens"},
		prompt: &chat.Prompt{Messages: []chat.Message{chat.User("What's the weather like in Boston?")},
			Options: &chat.Options{Model: "gpt-3.5-turbo", MaxTokens: 100, Temperature: ptr(0.0), Extra: map[string]any{
				ExtraBody: map[string]any{"functions": []any{map[string]any{
					"name": "get_weather", "description": "Get the weather for a location",
					"parameters": json.RawMessage(`{"properties":{"location":{"description":"The location to get weather for","type":"string"}},"required":["location"],"type":"object"}`),
				}}},
			}}},
		want: func(*testing.T, []byte) *chat.Response {
			return callResponse("chatcmpl-C6bkF43YPpt2nQKdjU5XrPT0JYIzS", "gpt-3.5-turbo-0125", usage(62, 14),
				chat.ToolCall{Name: "get_weather", Arguments: `{"location":"Boston"}`})
		},
	}, {
		name:   "vercel-text-gpt-4.1-nano",
		prompt: &chat.Prompt{Messages: []chat.Message{chat.User("Invent a new holiday and describe its traditions.")}, Options: &chat.Options{Model: "gpt-4.1-nano"}},
		want: func(t *testing.T, body []byte) *chat.Response {
			return textResponse("chatcmpl-D8Z5f52zQqikDBEKQMQoYcWMcWPeU", "gpt-4.1-nano-2025-04-14", jsonText(t, body), chat.FinishStop, usage(16, 363))
		},
	}, {
		name:   "vercel-text-stream-gpt-4.1-nano",
		prompt: &chat.Prompt{Messages: []chat.Message{chat.User("Invent a new holiday and describe its traditions.")}, Options: &chat.Options{Model: "gpt-4.1-nano"}},
		stream: true,
		want: func(t *testing.T, body []byte) *chat.Response {
			return textResponse("chatcmpl-D8Z5oo6uDh67AD85p73ksdT1KxhE0", "gpt-4.1-nano-2025-04-14", sseText(t, body), chat.FinishStop, usage(16, 300))
		},
	}}
	for i := range cases {
		cases[i].norms = append(cases[i].norms, dropFalseStrict)
	}
	runReplay(t, apis[0], "/v1/chat/completions", cases)
}

// TestChatToolLoop runs the recorded tool loops end to end: the model asks for the weather, a
// real Go tool answers, and the second request must carry the call and its result exactly as the
// recorded one did before the recorded final answer comes back.
func TestChatToolLoop(t *testing.T) {
	cfg := Config{Model: "gpt-4o", MaxTokens: 4000}
	norms := []normalizer{dropFalseStrict}
	runToolLoops(t, apis[0], []toolLoopCase{
		{name: "fantasy-tool-loop-gpt-4o", cfg: cfg, callID: "call_IUonKM9GCNis5eMRHuusMqoy", firstUsage: usage(61, 16),
			finalText: "The weather in Florence, Italy is currently 40°C.", finalUsage: usage(86, 13), norms: norms},
		{name: "fantasy-tool-loop-streaming-gpt-4o", cfg: cfg, stream: true, callID: "call_7kE4IjtnwXcGbX6hDM7xFu8T", firstUsage: usage(61, 16),
			finalText: "The current temperature in Florence, Italy is 40°C.", finalUsage: usage(86, 13), norms: norms},
	})
}

// TestChatBaseURL checks that the base URL is used as given: OpenAI-compatible servers are
// reached at their own root, with or without a /v1 path.
func TestChatBaseURL(t *testing.T) {
	exs := providertest.Load(t, "chat", "fantasy-text-gpt-4o")
	for _, tc := range []struct{ suffix, path string }{
		{"", "/chat/completions"},
		{"/v1", "/v1/chat/completions"},
		{"/v1/", "/v1/chat/completions"},
		{"/api/openai/v1", "/api/openai/v1/chat/completions"},
	} {
		srv := replay.NewServer(t, exs...)
		m := newTestModel(t, New, srv.URL+tc.suffix, Config{Model: "gpt-4o"})
		r, err := m.Call(context.Background(), &chat.Prompt{Messages: []chat.Message{chat.User("hi")}})
		if err != nil {
			t.Fatalf("base %q: %v", tc.suffix, err)
		}
		if r.Text() != "Oi!" {
			t.Fatalf("base %q: text %q", tc.suffix, r.Text())
		}
		if got := srv.Requests()[0].Path; got != tc.path {
			t.Errorf("base URL %q: request path %q, want %q", srv.URL+tc.suffix, got, tc.path)
		}
	}
}

// TestChatMinimalRequest checks that a request carries only what the call sets, so that
// OpenAI-compatible servers rejecting unknown fields accept it.
func TestChatMinimalRequest(t *testing.T) {
	for _, stream := range []bool{false, true} {
		name := "fantasy-text-gpt-4o"
		if stream {
			name = "fantasy-text-stream-gpt-4o"
		}
		srv := replay.NewServer(t, providertest.Load(t, "chat", name)...)
		m := newTestModel(t, New, srv.URL, Config{Model: "local-model"})
		p := &chat.Prompt{Messages: []chat.Message{chat.User("hi")}}
		if _, err := providertest.Run(context.Background(), m, p, stream); err != nil {
			t.Fatal(err)
		}
		var body map[string]any
		if err := json.Unmarshal(srv.Requests()[0].Body, &body); err != nil {
			t.Fatal(err)
		}
		want := map[string]bool{"model": true, "messages": true}
		if stream {
			want["stream"], want["stream_options"] = true, true
		}
		for k := range body {
			if !want[k] {
				t.Errorf("stream=%v: request carries %q, which the call did not set", stream, k)
			}
		}
		if len(body) != len(want) {
			t.Errorf("stream=%v: request fields %v, want %v", stream, body, want)
		}
	}
}

// TestChatStreamGenerationsAndParallelCalls feeds a stream shaped like OpenAI's (built for this
// test: no public recording has n>1 or parallel calls): two generations interleaved, the first
// with two tool calls whose arguments arrive in fragments, keyed by index, and the usage-only
// final chunk with choices: [].
func TestChatStreamGenerationsAndParallelCalls(t *testing.T) {
	chunks := []string{
		`{"id":"c1","model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":null,"tool_calls":[{"index":0,"id":"call_a","type":"function","function":{"name":"weather","arguments":""}}]},"finish_reason":null},{"index":1,"delta":{"role":"assistant","content":"Let me"},"finish_reason":null}]}`,
		`{"id":"c1","model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"location\":"}}]},"finish_reason":null}]}`,
		`{"id":"c1","model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"call_b","type":"function","function":{"name":"time","arguments":"{\"tz\""}}]},"finish_reason":null}]}`,
		`{"id":"c1","model":"m","choices":[{"index":1,"delta":{"content":" check."},"finish_reason":null}]}`,
		`{"id":"c1","model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\"Paris\"}"}}]},"finish_reason":null}]}`,
		`{"id":"c1","model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"function":{"arguments":":\"CET\"}"}}]},"finish_reason":null}]}`,
		`{"id":"c1","model":"m","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"},{"index":1,"delta":{},"finish_reason":"stop"}]}`,
		`{"id":"c1","model":"m","choices":[],"usage":{"prompt_tokens":30,"completion_tokens":20,"total_tokens":50,"prompt_tokens_details":{"cached_tokens":10},"completion_tokens_details":{"reasoning_tokens":5}}}`,
	}
	var body strings.Builder
	for _, c := range chunks {
		body.WriteString("data: " + c + "\n\n")
	}
	body.WriteString("data: [DONE]\n\n")
	srv := replay.NewServer(t, replay.Exchange{Header: http.Header{"Content-Type": {"text/event-stream"}}, Body: []byte(body.String())})
	m := newTestModel(t, New, srv.URL, Config{Model: "m"})
	_, got, err := collect(t, m, &chat.Prompt{Messages: []chat.Message{chat.User("weather and time?")}, Options: &chat.Options{N: 2}})
	if err != nil {
		t.Fatal(err)
	}
	want := &chat.Response{ID: "c1", Model: "m",
		Usage: chat.Usage{InputTokens: 30, OutputTokens: 20, TotalTokens: 50, CachedInputTokens: 10, ReasoningTokens: 5},
		Generations: []chat.Generation{
			{Index: 0, FinishReason: chat.FinishToolCalls, Message: chat.Message{Role: chat.RoleAssistant, ToolCalls: []chat.ToolCall{
				{ID: "call_a", Name: "weather", Arguments: `{"location":"Paris"}`},
				{ID: "call_b", Name: "time", Arguments: `{"tz":"CET"}`, Index: 1},
			}}},
			{Index: 1, FinishReason: chat.FinishStop, Message: chat.Message{Role: chat.RoleAssistant, Content: "Let me check."}},
		}}
	assertResponse(t, got, want)
	var req map[string]any
	if err := json.Unmarshal(srv.Requests()[0].Body, &req); err != nil {
		t.Fatal(err)
	}
	if req["n"] != 2.0 {
		t.Errorf("n = %v, want 2", req["n"])
	}
}

// TestChatSeveralChoices reads a non-streamed answer with n=2 (built for this test).
func TestChatSeveralChoices(t *testing.T) {
	body := `{"id":"c2","object":"chat.completion","model":"m","choices":[
		{"index":0,"message":{"role":"assistant","content":"A"},"finish_reason":"stop"},
		{"index":1,"message":{"role":"assistant","content":null,"tool_calls":[{"id":"call_x","type":"function","function":{"name":"weather","arguments":"{}"}}]},"finish_reason":"tool_calls"}],
		"usage":{"prompt_tokens":5,"completion_tokens":7,"total_tokens":12}}`
	srv := replay.NewServer(t, replay.Exchange{Header: http.Header{"Content-Type": {"application/json"}}, Body: []byte(body)})
	m := newTestModel(t, New, srv.URL, Config{Model: "m"})
	got, err := m.Call(context.Background(), &chat.Prompt{Messages: []chat.Message{chat.User("x")}, Options: &chat.Options{N: 2}})
	if err != nil {
		t.Fatal(err)
	}
	assertResponse(t, got, &chat.Response{ID: "c2", Model: "m", Usage: usage(5, 7), Generations: []chat.Generation{
		{Index: 0, FinishReason: chat.FinishStop, Message: chat.Message{Role: chat.RoleAssistant, Content: "A"}},
		{Index: 1, FinishReason: chat.FinishToolCalls, Message: chat.Message{Role: chat.RoleAssistant, ToolCalls: []chat.ToolCall{{ID: "call_x", Name: "weather", Arguments: "{}"}}}},
	}})
	if len(got.ToolCalls()) != 1 {
		t.Errorf("ToolCalls() misses the call of the second generation")
	}
}

// TestChatMessages checks the mapping of a conversation: one tool message per result with the
// call's id, failed results marked, calls without ids given matching synthetic ones, reasoning
// dropped.
func TestChatMessages(t *testing.T) {
	msgs := []chat.Message{
		chat.System("sys"),
		chat.User("u"),
		{Role: chat.RoleAssistant, Content: "checking", ToolCalls: []chat.ToolCall{{ID: "c1", Name: "a", Arguments: `{"x":1}`}, {ID: "c2", Name: "b"}},
			Reasoning: []chat.Reasoning{{Provider: "anthropic", Text: "hmm", Signature: "s"}}},
		chat.ToolMessage(chat.ToolResult{ID: "c1", Name: "a", Content: "one"}, chat.ToolResult{ID: "c2", Name: "b", Content: "boom", IsError: true}),
		chat.Assistant("", chat.ToolCall{Name: "a", Arguments: "{}"}, chat.ToolCall{Name: "b", Arguments: "{}"}),
		chat.ToolMessage(chat.ToolResult{Name: "b", Content: "B"}, chat.ToolResult{Name: "a", Content: "A"}),
		chat.Assistant("done"),
	}
	got, err := chatWire{}.messages(msgs)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	want := `[{"content":"sys","role":"system"},{"content":"u","role":"user"},` +
		`{"content":"checking","tool_calls":[{"id":"c1","function":{"arguments":"{\"x\":1}","name":"a"},"type":"function"},{"id":"c2","function":{"arguments":"{}","name":"b"},"type":"function"}],"role":"assistant"},` +
		`{"content":"one","tool_call_id":"c1","role":"tool"},{"content":"Error: boom","tool_call_id":"c2","role":"tool"},` +
		`{"tool_calls":[{"id":"call_1","function":{"arguments":"{}","name":"a"},"type":"function"},{"id":"call_2","function":{"arguments":"{}","name":"b"},"type":"function"}],"role":"assistant"},` +
		`{"content":"B","tool_call_id":"call_2","role":"tool"},{"content":"A","tool_call_id":"call_1","role":"tool"},` +
		`{"content":"done","role":"assistant"}]`
	assertSameRequest(t, []byte(`{"m":`+string(b)+`}`), []byte(`{"m":`+want+`}`))

	for _, bad := range []chat.Message{{Role: "robot", Content: "x"}, {Role: chat.RoleTool}} {
		if _, err := (chatWire{}).messages([]chat.Message{bad}); err == nil {
			t.Errorf("message %+v: no error", bad)
		}
	}
}

// TestChatOptions checks how call options reach the request.
func TestChatOptions(t *testing.T) {
	weather := weatherTool()
	cases := []struct {
		name  string
		cfg   Config
		opts  *chat.Options
		check func(t *testing.T, body map[string]any, header http.Header)
	}{{
		name: "sampling",
		opts: &chat.Options{Temperature: ptr(0.5), TopP: ptr(0.9), Seed: ptr(int64(7)), Stop: []string{"END"}, MaxTokens: 10},
		check: func(t *testing.T, body map[string]any, _ http.Header) {
			want := map[string]any{"temperature": 0.5, "top_p": 0.9, "seed": 7.0, "stop": []any{"END"}, "max_tokens": 10.0}
			for k, v := range want {
				if !jsonEqual(body[k], v) {
					t.Errorf("%s = %v, want %v", k, body[k], v)
				}
			}
		},
	}, {
		name: "defaults from config",
		cfg:  Config{Temperature: ptr(0.2), MaxTokens: 99, MaxTokensField: "max_completion_tokens"},
		opts: &chat.Options{},
		check: func(t *testing.T, body map[string]any, _ http.Header) {
			if body["temperature"] != 0.2 || body["max_completion_tokens"] != 99.0 || body["max_tokens"] != nil {
				t.Errorf("body = %v", body)
			}
		},
	}, {
		name: "tool choice by name, no parallel calls",
		opts: &chat.Options{Tools: []tool.Tool{weather}, ToolChoice: "weather", ParallelToolCalls: ptr(false)},
		check: func(t *testing.T, body map[string]any, _ http.Header) {
			if !jsonEqual(body["tool_choice"], map[string]any{"type": "function", "function": map[string]any{"name": "weather"}}) || body["parallel_tool_calls"] != false {
				t.Errorf("tool_choice %v parallel %v", body["tool_choice"], body["parallel_tool_calls"])
			}
		},
	}, {
		name: "tool choice required",
		opts: &chat.Options{Tools: []tool.Tool{weather}, ToolChoice: "required"},
		check: func(t *testing.T, body map[string]any, _ http.Header) {
			if body["tool_choice"] != "required" {
				t.Errorf("tool_choice %v", body["tool_choice"])
			}
		},
	}, {
		name: "structured output",
		opts: &chat.Options{ResponseFormat: &chat.ResponseFormat{Name: "answer", Strict: true, Schema: json.RawMessage(`{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"integer"}},"required":["a"]}`)}},
		check: func(t *testing.T, body map[string]any, _ http.Header) {
			want := map[string]any{"type": "json_schema", "json_schema": map[string]any{"name": "answer", "strict": true, "schema": map[string]any{
				"type": "object", "properties": map[string]any{"a": map[string]any{"type": "string"}, "b": map[string]any{"type": []any{"integer", "null"}}},
				"required": []any{"a", "b"}, "additionalProperties": false}}}
			if !jsonEqual(body["response_format"], want) {
				t.Errorf("response_format = %v", body["response_format"])
			}
		},
	}, {
		name: "json object",
		opts: &chat.Options{ResponseFormat: &chat.ResponseFormat{}},
		check: func(t *testing.T, body map[string]any, _ http.Header) {
			if !jsonEqual(body["response_format"], map[string]any{"type": "json_object"}) {
				t.Errorf("response_format = %v", body["response_format"])
			}
		},
	}, {
		name: "extra keys",
		cfg:  Config{StrictTools: true},
		opts: &chat.Options{Tools: []tool.Tool{weather}, Extra: map[string]any{
			ExtraBody:            map[string]any{"top_k": 40, "chat_template_kwargs": map[string]any{"enable_thinking": false}},
			ExtraReasoningEffort: "low",
			ExtraStore:           true,
			ExtraStrictTools:     false,
			ExtraParams:          func(p *oai.ChatCompletionNewParams) { p.User = oai.String("u-42") },
			ExtraRequestOptions:  []option.RequestOption{option.WithHeader("X-Test", "yes")},
			"unknown.key":        struct{}{},
		}},
		check: func(t *testing.T, body map[string]any, header http.Header) {
			if body["top_k"] != 40.0 || !jsonEqual(body["chat_template_kwargs"], map[string]any{"enable_thinking": false}) {
				t.Errorf("extra body fields missing: %v", body)
			}
			if body["reasoning_effort"] != "low" || body["store"] != true || body["user"] != "u-42" {
				t.Errorf("reasoning_effort %v store %v user %v", body["reasoning_effort"], body["store"], body["user"])
			}
			fn := asList(body["tools"])[0].(map[string]any)["function"].(map[string]any)
			if _, ok := fn["strict"]; ok {
				t.Errorf("ExtraStrictTools false did not turn strict mode off: %v", fn)
			}
			if header.Get("X-Test") != "yes" {
				t.Errorf("request option header missing")
			}
		},
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := replay.NewServer(t, providertest.Load(t, "chat", "fantasy-text-gpt-4o")...)
			tc.cfg.Model = "gpt-4o"
			m := newTestModel(t, New, srv.URL, tc.cfg)
			if _, err := m.Call(context.Background(), &chat.Prompt{Messages: []chat.Message{chat.User("hi")}, Options: tc.opts}); err != nil {
				t.Fatal(err)
			}
			var body map[string]any
			req := srv.Requests()[0]
			if err := json.Unmarshal(req.Body, &body); err != nil {
				t.Fatal(err)
			}
			tc.check(t, body, req.Header)
		})
	}
}

// TestChatOptionErrors checks settings that cannot be honoured fail before any request.
func TestChatOptionErrors(t *testing.T) {
	srv := replay.NewServer(t)
	cases := []struct {
		name string
		cfg  Config
		opts *chat.Options
		want error
	}{
		{"no model", Config{}, nil, ErrNoModel},
		{"extra of the wrong type", Config{Model: "m"}, &chat.Options{Extra: map[string]any{ExtraBody: "top_k=3"}}, nil},
		{"params hook of the wrong type", Config{Model: "m"}, &chat.Options{Extra: map[string]any{ExtraParams: func(*int) {}}}, nil},
		{"duplicate tools", Config{Model: "m"}, &chat.Options{Tools: []tool.Tool{weatherTool(), weatherTool()}}, nil},
		{"invalid schema", Config{Model: "m"}, &chat.Options{Tools: []tool.Tool{newTool("x", "", `[1]`)}}, nil},
		{"tool choice without tools", Config{Model: "m"}, &chat.Options{ToolChoice: "weather"}, nil},
		{"tool choice naming another tool", Config{Model: "m"}, &chat.Options{ToolChoice: "time", Tools: []tool.Tool{weatherTool()}}, nil},
		{"tool required without tools", Config{Model: "m"}, &chat.Options{ToolChoice: "required"}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := newTestModel(t, New, srv.URL, tc.cfg)
			p := &chat.Prompt{Messages: []chat.Message{chat.User("hi")}, Options: tc.opts}
			_, err := m.Call(context.Background(), p)
			if err == nil || (tc.want != nil && !errors.Is(err, tc.want)) {
				t.Fatalf("Call error = %v, want %v", err, tc.want)
			}
			_, _, serr := collect(t, m, p)
			if serr == nil || serr.Error() != err.Error() {
				t.Fatalf("Stream error = %v, want %v", serr, err)
			}
		})
	}
	if srv.Served() != 0 {
		t.Errorf("%d requests were sent", srv.Served())
	}
	for _, cfg := range []Config{{BaseURL: "localhost:8000"}, {BaseURL: "ftp://x"}, {MaxTokensField: "tokens"}} {
		if _, err := New(cfg); err == nil {
			t.Errorf("New(%+v) accepted an invalid configuration", cfg)
		}
	}
}

// TestChatEnvironment checks the API key and base URL are read from the environment.
func TestChatEnvironment(t *testing.T) {
	srv := replay.NewServer(t, providertest.Load(t, "chat", "fantasy-text-gpt-4o")...)
	t.Setenv("OPENAI_API_KEY", "sk-from-env")
	t.Setenv("OPENAI_BASE_URL", srv.URL+"/v1")
	m, err := New(Config{Model: "gpt-4o"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Call(context.Background(), &chat.Prompt{Messages: []chat.Message{chat.User("hi")}}); err != nil {
		t.Fatal(err)
	}
	req := srv.Requests()[0]
	if req.Header.Get("Authorization") != "Bearer sk-from-env" || req.Path != "/v1/chat/completions" {
		t.Errorf("authorization %q path %q", req.Header.Get("Authorization"), req.Path)
	}
	if info := m.Info(); info != (chat.Info{Provider: "openai", Model: "gpt-4o"}) {
		t.Errorf("Info() = %+v", info)
	}
	// OpenAI's own API gets max_completion_tokens, which reasoning models require.
	if m.maxTokensField != "max_tokens" {
		t.Errorf("max tokens field for a local server = %q", m.maxTokensField)
	}
	t.Setenv("OPENAI_BASE_URL", "")
	if m2, _ := New(Config{}); m2.maxTokensField != "max_completion_tokens" {
		t.Errorf("max tokens field for api.openai.com = %q", m2.maxTokensField)
	}
}

func jsonEqual(a, b any) bool {
	ja, err1 := json.Marshal(a)
	jb, err2 := json.Marshal(b)
	if err1 != nil || err2 != nil {
		return false
	}
	var va, vb any
	_ = json.Unmarshal(ja, &va)
	_ = json.Unmarshal(jb, &vb)
	return reflect.DeepEqual(va, vb)
}

// TestChatStreamLegacyFunctionCall reads a streamed legacy function_call (the deprecated shape of
// the lcgo-legacy recording, streamed; built for this test) as one tool call.
func TestChatStreamLegacyFunctionCall(t *testing.T) {
	body := "data: " + `{"id":"c","model":"gpt-3.5-turbo-0125","choices":[{"index":0,"delta":{"role":"assistant","content":null,"function_call":{"name":"get_weather","arguments":""}},"finish_reason":null}]}` + "\n\n" +
		"data: " + `{"id":"c","model":"gpt-3.5-turbo-0125","choices":[{"index":0,"delta":{"function_call":{"arguments":"{\"location\""}},"finish_reason":null}]}` + "\n\n" +
		"data: " + `{"id":"c","model":"gpt-3.5-turbo-0125","choices":[{"index":0,"delta":{"function_call":{"arguments":":\"Boston\"}"}},"finish_reason":null}]}` + "\n\n" +
		"data: " + `{"id":"c","model":"gpt-3.5-turbo-0125","choices":[{"index":0,"delta":{},"finish_reason":"function_call"}]}` + "\n\ndata: [DONE]\n\n"
	srv := replay.NewServer(t, replay.Exchange{Header: http.Header{"Content-Type": {"text/event-stream"}}, Body: []byte(body)})
	m := newTestModel(t, New, srv.URL, Config{Model: "gpt-3.5-turbo", DisableStreamUsage: true})
	_, got, err := collect(t, m, &chat.Prompt{Messages: []chat.Message{chat.User("What's the weather like in Boston?")}})
	if err != nil {
		t.Fatal(err)
	}
	assertResponse(t, got, callResponse("c", "gpt-3.5-turbo-0125", chat.Usage{}, chat.ToolCall{Name: "get_weather", Arguments: `{"location":"Boston"}`}))
	if strings.Contains(string(srv.Requests()[0].Body), "stream_options") {
		t.Error("stream_options sent although DisableStreamUsage is set")
	}
}
