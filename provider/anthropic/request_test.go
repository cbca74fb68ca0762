package anthropic

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/internal/providertest"
	"github.com/wield-ai/wield/internal/replay"
	"github.com/wield-ai/wield/internal/testenv"
	"github.com/wield-ai/wield/provider"
	"github.com/wield-ai/wield/tool"
)

const okBody = `{"id":"msg_ok","type":"message","role":"assistant","model":"claude-test","content":[{"type":"text","text":"ok"}],"stop_reason":"end_turn","usage":{"input_tokens":1,"output_tokens":1}}`

func okExchange() replay.Exchange {
	return replay.Exchange{Header: http.Header{"Content-Type": {"application/json"}}, Body: []byte(okBody)}
}

// sent calls a Model configured with cfg and returns the request body it sent.
func sent(t *testing.T, cfg Config, p *chat.Prompt) map[string]any {
	t.Helper()
	srv := replay.NewServer(t, okExchange())
	m := newTestModel(t, srv.URL, cfg)
	if _, err := m.Call(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	var body map[string]any
	if err := json.Unmarshal(srv.Requests()[0].Body, &body); err != nil {
		t.Fatal(err)
	}
	return body
}

// TestMessagesMapping: system messages go to `system`; user, assistant and tool messages become
// user/assistant turns, consecutive same-role turns merged; assistant blocks in the order
// thinking, text, tool_use; foreign or unsigned reasoning dropped.
func TestMessagesMapping(t *testing.T) {
	msgs := []chat.Message{
		chat.System("Be brief."),
		chat.User("Weather in Rome and Oslo?"),
		chat.User("And quickly."),
		{Role: chat.RoleAssistant, ToolCalls: []chat.ToolCall{
			{ID: "t1", Name: "get_weather", Arguments: `{"city":"Rome"}`},
			{ID: "t2", Name: "get_weather", Arguments: ""},
		}, Reasoning: []chat.Reasoning{
			{Provider: "gemini", Signature: "g"},
			{Provider: "anthropic", Text: "no signature, unverifiable"},
			{Provider: "anthropic", Text: "thinking", Signature: "s1"},
		}},
		chat.ToolMessage(chat.ToolResult{ID: "t1", Name: "get_weather", Content: "sunny"}),
		chat.ToolMessage(chat.ToolResult{ID: "t2", Name: "get_weather", Content: "city is required", IsError: true}),
		chat.System("Answer in English."),
		chat.User("Thanks!"),
		chat.User(""),
		chat.Assistant("Rome is sunny."),
		chat.Assistant("Oslo failed."),
	}
	body := sent(t, Config{}, &chat.Prompt{Messages: msgs})
	wantSystem := `[{"text":"Be brief.","type":"text"},{"text":"Answer in English.","type":"text"}]`
	if got := testenv.JSON(t, body["system"]); got != wantSystem {
		t.Errorf("system = %s\nwant %s", got, wantSystem)
	}
	want := `[
		{"role":"user","content":[{"type":"text","text":"Weather in Rome and Oslo?"},{"type":"text","text":"And quickly."}]},
		{"role":"assistant","content":[
			{"type":"thinking","thinking":"thinking","signature":"s1"},
			{"type":"tool_use","id":"t1","name":"get_weather","input":{"city":"Rome"}},
			{"type":"tool_use","id":"t2","name":"get_weather","input":{}}]},
		{"role":"user","content":[
			{"type":"tool_result","tool_use_id":"t1","content":[{"type":"text","text":"sunny"}]},
			{"type":"tool_result","tool_use_id":"t2","is_error":true,"content":[{"type":"text","text":"city is required"}]},
			{"type":"text","text":"Thanks!"}]},
		{"role":"assistant","content":[{"type":"text","text":"Rome is sunny."},{"type":"text","text":"Oslo failed."}]}
	]`
	if !providertest.JSONEqual(t, testenv.JSON(t, body["messages"]), want) {
		t.Errorf("messages = %s", testenv.JSON(t, body["messages"]))
	}
}

// TestRequestErrors: requests wield cannot send are refused before anything goes out.
func TestRequestErrors(t *testing.T) {
	user := []chat.Message{chat.User("hi")}
	weather := []tool.Tool{sdkWeather()}
	tests := []struct {
		name string
		cfg  Config
		p    *chat.Prompt
		want string
	}{
		{"nil prompt", Config{}, nil, "nil prompt"},
		{"several generations", Config{}, &chat.Prompt{Messages: user, Options: &chat.Options{N: 2}}, "one generation"},
		{"negative max tokens", Config{}, &chat.Prompt{Messages: user, Options: &chat.Options{MaxTokens: -1}}, "negative"},
		{"unknown role", Config{}, &chat.Prompt{Messages: []chat.Message{{Role: "critic", Content: "x"}}}, "unknown role"},
		{"call without id", Config{}, &chat.Prompt{Messages: []chat.Message{chat.Assistant("", chat.ToolCall{Name: "f"})}}, "no id"},
		{"call with broken arguments", Config{}, &chat.Prompt{Messages: []chat.Message{chat.Assistant("", chat.ToolCall{ID: "1", Name: "f", Arguments: `{"a":`})}}, "not a JSON object"},
		{"call with array arguments", Config{}, &chat.Prompt{Messages: []chat.Message{chat.Assistant("", chat.ToolCall{ID: "1", Name: "f", Arguments: `[1]`})}}, "not a JSON object"},
		{"result without id", Config{}, &chat.Prompt{Messages: []chat.Message{chat.ToolMessage(chat.ToolResult{Name: "f", Content: "x"})}}, "no call id"},
		{"tool choice names no tool", Config{}, &chat.Prompt{Messages: user, Options: &chat.Options{Tools: weather, ToolChoice: "lookup"}}, "names none"},
		{"tool schema not an object", Config{}, &chat.Prompt{Messages: user, Options: &chat.Options{Tools: []tool.Tool{
			funcTool{def: tool.Definition{Name: "s", InputSchema: json.RawMessage(`{"type":"string"}`)}}}}}, "requires an object"},
		{"tool schema not JSON", Config{}, &chat.Prompt{Messages: user, Options: &chat.Options{Tools: []tool.Tool{
			funcTool{def: tool.Definition{Name: "s", InputSchema: json.RawMessage(`{`)}}}}}, "not a JSON object"},
		{"response format not an object", Config{}, &chat.Prompt{Messages: user, Options: &chat.Options{ResponseFormat: &chat.ResponseFormat{Schema: json.RawMessage(`[]`)}}}, "schema is not a JSON object"},
		{"thinking budget above explicit max tokens", Config{}, &chat.Prompt{Messages: user, Options: &chat.Options{MaxTokens: 2000, Extra: map[string]any{ExtraThinkingBudget: 4000}}}, "must exceed"},
		{"thinking budget above configured max tokens", Config{MaxTokens: 1000, ThinkingBudget: 1024}, &chat.Prompt{Messages: user}, "must exceed"},
		{"negative thinking budget", Config{}, &chat.Prompt{Messages: user, Options: &chat.Options{Extra: map[string]any{ExtraThinkingBudget: -5}}}, "negative"},
		{"thinking budget of the wrong type", Config{}, &chat.Prompt{Messages: user, Options: &chat.Options{Extra: map[string]any{ExtraThinkingBudget: "lots"}}}, "want an integer"},
		{"fractional top_k", Config{}, &chat.Prompt{Messages: user, Options: &chat.Options{Extra: map[string]any{ExtraTopK: 2.5}}}, "want an integer"},
		{"adaptive thinking not a bool", Config{}, &chat.Prompt{Messages: user, Options: &chat.Options{Extra: map[string]any{ExtraAdaptiveThinking: "yes"}}}, "want a bool"},
		{"request options of the wrong type", Config{}, &chat.Prompt{Messages: user, Options: &chat.Options{Extra: map[string]any{ExtraRequestOptions: "x"}}}, "want []option.RequestOption"},
		{"body of the wrong type", Config{}, &chat.Prompt{Messages: user, Options: &chat.Options{Extra: map[string]any{ExtraBody: []string{"x"}}}}, "want map[string]any"},
		{"params of the wrong type", Config{}, &chat.Prompt{Messages: user, Options: &chat.Options{Extra: map[string]any{ExtraParams: 1}}}, "want func"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := replay.NewServer(t)
			m := newTestModel(t, srv.URL, tc.cfg)
			_, err := m.Call(context.Background(), tc.p)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error = %v, want one containing %q", err, tc.want)
			}
			_, err = chat.Aggregate(m.Stream(context.Background(), tc.p))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("stream error = %v, want one containing %q", err, tc.want)
			}
			if srv.Served() != 0 {
				t.Errorf("a request went out")
			}
		})
	}
	srv := replay.NewServer(t)
	m := newTestModel(t, srv.URL, Config{})
	if _, err := m.Call(context.Background(), &chat.Prompt{Messages: user, Options: &chat.Options{N: 3}}); !errors.Is(err, ErrUnsupported) {
		t.Errorf("N=3: %v is not ErrUnsupported", err)
	}
}

// TestToolChoice maps ToolChoice and ParallelToolCalls onto tool_choice.
func TestToolChoice(t *testing.T) {
	weather := []tool.Tool{sdkWeather()}
	tests := []struct {
		choice   string
		parallel *bool
		want     string // "" means tool_choice absent
	}{
		{"", nil, ""},
		{"", chat.Ptr(false), `{"type":"auto","disable_parallel_tool_use":true}`},
		{"auto", nil, `{"type":"auto"}`},
		{"auto", chat.Ptr(true), `{"type":"auto","disable_parallel_tool_use":false}`},
		{"none", chat.Ptr(false), `{"type":"none"}`},
		{"required", nil, `{"type":"any"}`},
		{"any", chat.Ptr(false), `{"type":"any","disable_parallel_tool_use":true}`},
		{"get_weather", nil, `{"type":"tool","name":"get_weather"}`},
	}
	for _, tc := range tests {
		t.Run(tc.choice+"/"+testenv.JSON(t, tc.parallel), func(t *testing.T) {
			body := sent(t, Config{}, &chat.Prompt{Messages: []chat.Message{chat.User("hi")},
				Options: &chat.Options{Tools: weather, ToolChoice: tc.choice, ParallelToolCalls: tc.parallel}})
			got, ok := body["tool_choice"]
			if tc.want == "" {
				if ok {
					t.Errorf("tool_choice = %v, want none", got)
				}
				return
			}
			if !providertest.JSONEqual(t, testenv.JSON(t, got), tc.want) {
				t.Errorf("tool_choice = %s, want %s", testenv.JSON(t, got), tc.want)
			}
		})
	}
}

// TestInputSchema: schemas are adjusted only where Anthropic requires an object root.
func TestInputSchema(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{``, `{"type":"object","properties":{}}`},
		{`null`, `{"type":"object","properties":{}}`},
		{`{}`, `{"type":"object","properties":{}}`},
		{`{"properties":{"a":{"type":"string"}}}`, `{"type":"object","properties":{"a":{"type":"string"}}}`},
		{`{"type":["object","null"],"properties":{}}`, `{"type":"object","properties":{}}`},
		{`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":{"n":{"type":"integer","minimum":12345678901234567890}},"required":["n"],"additionalProperties":false,"$defs":{"x":{"type":"string"}}}`,
			`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":{"n":{"type":"integer","minimum":12345678901234567890}},"required":["n"],"additionalProperties":false,"$defs":{"x":{"type":"string"}}}`},
	}
	for _, tc := range tests {
		s, err := InputSchema(json.RawMessage(tc.in))
		if err != nil {
			t.Errorf("%s: %v", tc.in, err)
			continue
		}
		got, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if !providertest.JSONEqual(t, string(got), tc.want) {
			t.Errorf("InputSchema(%s) = %s, want %s", tc.in, got, tc.want)
		}
		if strings.Contains(tc.in, "12345678901234567890") && !strings.Contains(string(got), "12345678901234567890") {
			t.Errorf("number precision lost: %s", got)
		}
	}
	// A schema inferred by tool.Func is an object already and passes unchanged.
	inferred := tool.Must(tool.Func("get_weather", "Get weather", getWeatherTyped)).Definition().InputSchema
	s, err := InputSchema(inferred)
	if err != nil {
		t.Fatal(err)
	}
	if got := testenv.JSON(t, s); !providertest.JSONEqual(t, got, string(inferred)) {
		t.Errorf("inferred schema changed:\n got %s\nwant %s", got, inferred)
	}
	for _, bad := range []string{`{"type":"array"}`, `[1]`, `{"required":"a"}`, `"object"`} {
		if _, err := InputSchema(json.RawMessage(bad)); err == nil {
			t.Errorf("InputSchema(%s): no error", bad)
		}
	}
}

// TestSettings: defaults, per-call overrides and the provider-specific options reach the wire.
func TestSettings(t *testing.T) {
	user := []chat.Message{chat.User("hi")}

	body := sent(t, Config{}, &chat.Prompt{Messages: user})
	if body["model"] != DefaultModel || body["max_tokens"] != float64(DefaultMaxTokens) {
		t.Errorf("defaults: model %v max_tokens %v", body["model"], body["max_tokens"])
	}
	for _, k := range []string{"temperature", "top_p", "top_k", "thinking", "tools", "tool_choice", "system", "stop_sequences", "output_config"} {
		if _, ok := body[k]; ok {
			t.Errorf("default request sets %s", k)
		}
	}

	body = sent(t, Config{Model: "claude-haiku-4-5", MaxTokens: 300, Temperature: chat.Ptr(0.2)}, &chat.Prompt{Messages: user})
	if body["model"] != "claude-haiku-4-5" || body["max_tokens"] != 300.0 || body["temperature"] != 0.2 {
		t.Errorf("config: %v", body)
	}

	var edited atomic.Bool
	body = sent(t, Config{Model: "claude-haiku-4-5", MaxTokens: 300, Temperature: chat.Ptr(0.2), ThinkingBudget: 5000},
		&chat.Prompt{Messages: user, Options: &chat.Options{
			Model: "claude-opus-4-5", MaxTokens: 900, Temperature: chat.Ptr(0.0), TopP: chat.Ptr(0.9), Seed: chat.Ptr[int64](7),
			Stop:           []string{"END"},
			ResponseFormat: &chat.ResponseFormat{Name: "answer", Schema: json.RawMessage(`{"type":"object","properties":{"a":{"type":"string"}},"required":["a"],"additionalProperties":false}`)},
			Extra: map[string]any{
				ExtraThinkingBudget: 0, // off for this call
				ExtraTopK:           float64(40),
				ExtraRequestOptions: []option.RequestOption{option.WithJSONSet("metadata", map[string]any{"user_id": "u-1"})},
				ExtraBody:           map[string]any{"inference_geo": "us", "temperature": 0.5},
				ExtraParams: func(p *sdk.MessageNewParams) {
					edited.Store(true)
					p.ServiceTier = sdk.MessageNewParamsServiceTierStandardOnly
				},
				"openai.reasoning":    "ignored",
				ExtraAdaptiveThinking: false,
			},
		}})
	want := map[string]any{
		"model": "claude-opus-4-5", "max_tokens": 900.0, "temperature": 0.5, "top_p": 0.9, "top_k": 40.0,
		"inference_geo":  "us",
		"stop_sequences": []any{"END"},
		"output_config":  map[string]any{"format": map[string]any{"type": "json_schema", "schema": map[string]any{"type": "object", "properties": map[string]any{"a": map[string]any{"type": "string"}}, "required": []any{"a"}, "additionalProperties": false}}},
		"metadata":       map[string]any{"user_id": "u-1"},
		"service_tier":   "standard_only",
		"messages":       []any{map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": "hi"}}}},
	}
	if !reflect.DeepEqual(body, want) || !edited.Load() {
		t.Errorf("per call:\n got %s\nwant %s", testenv.JSON(t, body), testenv.JSON(t, want))
	}

	body = sent(t, Config{AdaptiveThinking: true}, &chat.Prompt{Messages: user})
	if testenv.JSON(t, body["thinking"]) != `{"type":"adaptive"}` {
		t.Errorf("adaptive thinking = %v", body["thinking"])
	}
	body = sent(t, Config{}, &chat.Prompt{Messages: user, Options: &chat.Options{Extra: map[string]any{ExtraAdaptiveThinking: true}}})
	if testenv.JSON(t, body["thinking"]) != `{"type":"adaptive"}` {
		t.Errorf("adaptive thinking per call = %v", body["thinking"])
	}
	body = sent(t, Config{ThinkingBudget: 2000, MaxTokens: 8000}, &chat.Prompt{Messages: user})
	if testenv.JSON(t, body["thinking"]) != `{"budget_tokens":2000,"type":"enabled"}` || body["max_tokens"] != 8000.0 {
		t.Errorf("thinking = %v, max_tokens %v", body["thinking"], body["max_tokens"])
	}
}

// TestLargeMaxTokensCall: with max_tokens beyond what the SDK accepts without streaming, Call
// streams and returns the whole answer.
func TestLargeMaxTokensCall(t *testing.T) {
	ex := providertest.Load(t, "sdk-tool-runner-next-streaming")[0]
	srv := replay.NewServer(t, ex)
	m := newTestModel(t, srv.URL, Config{MaxTokens: 64000})
	resp, err := m.Call(context.Background(), weatherPrompt())
	if err != nil {
		t.Fatal(err)
	}
	checkResponse(t, resp, expectRecorded(t, ex))
	if _, ok := resp.Raw.(*sdk.Message); !ok {
		t.Errorf("Raw is %T", resp.Raw)
	}
	var body map[string]any
	_ = json.Unmarshal(srv.Requests()[0].Body, &body)
	if body["stream"] != true || body["max_tokens"] != 64000.0 {
		t.Errorf("request: stream %v max_tokens %v", body["stream"], body["max_tokens"])
	}

	cut := ex
	cut.CutAfter = len(ex.Body) / 2
	srv = replay.NewServer(t, cut)
	m = newTestModel(t, srv.URL, Config{MaxTokens: 64000})
	if _, err := m.Call(context.Background(), weatherPrompt()); err == nil {
		t.Fatal("no error for a cut stream")
	}
}

// TestConstruction: the environment, the HTTP client and invalid settings.
func TestConstruction(t *testing.T) {
	srv := replay.NewServer(t, okExchange())
	t.Setenv("ANTHROPIC_API_KEY", "env-key")
	t.Setenv("ANTHROPIC_BASE_URL", srv.URL)
	m, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	if m.Info() != (chat.Info{Provider: "anthropic", Model: DefaultModel}) {
		t.Errorf("info = %+v", m.Info())
	}
	if _, err := m.Call(context.Background(), &chat.Prompt{Messages: []chat.Message{chat.User("hi")}}); err != nil {
		t.Fatal(err)
	}
	if got := srv.Requests()[0].Header.Get("X-Api-Key"); got != "env-key" {
		t.Errorf("x-api-key = %q, want the environment's", got)
	}

	var used atomic.Int32
	srv = replay.NewServer(t, okExchange())
	client := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		used.Add(1)
		return http.DefaultTransport.RoundTrip(r)
	})}
	m = newTestModel(t, srv.URL, Config{APIKey: "cfg-key", Transport: provider.Transport{HTTPClient: client}, Model: "claude-x"})
	if _, err := m.Call(context.Background(), &chat.Prompt{Messages: []chat.Message{chat.User("hi")}}); err != nil {
		t.Fatal(err)
	}
	if used.Load() != 1 || srv.Requests()[0].Header.Get("X-Api-Key") != "cfg-key" || m.Info().Model != "claude-x" {
		t.Errorf("http client used %d times, key %q", used.Load(), srv.Requests()[0].Header.Get("X-Api-Key"))
	}

	for _, cfg := range []Config{{MaxTokens: -1}, {ThinkingBudget: -1}} {
		if _, err := New(cfg); err == nil {
			t.Errorf("New(%+v): no error", cfg)
		}
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func getWeatherTyped(_ context.Context, in struct {
	City  string `json:"city" jsonschema:"the city"`
	Units string `json:"units,omitempty" jsonschema:"celsius or fahrenheit"`
	Days  *int   `json:"days,omitempty"`
}) (string, error) {
	return in.City, nil
}

// TestCallRequestTimeout: with a request timeout among the configured SDK options, the SDK sends
// even a large max_tokens without streaming, and so does Call.
func TestCallRequestTimeout(t *testing.T) {
	srv := replay.NewServer(t, okExchange())
	m := newTestModel(t, srv.URL, Config{MaxTokens: 64000, RequestOptions: []option.RequestOption{option.WithRequestTimeout(time.Hour)}})
	if _, err := m.Call(context.Background(), &chat.Prompt{Messages: []chat.Message{chat.User("hi")}}); err != nil {
		t.Fatal(err)
	}
	var body map[string]any
	_ = json.Unmarshal(srv.Requests()[0].Body, &body)
	if _, ok := body["stream"]; ok {
		t.Errorf("streamed although the SDK would not refuse the request: %v", body)
	}
}

// TestConcurrentUse: one Model serves many goroutines.
func TestConcurrentUse(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(okBody))
	}))
	defer srv.Close()
	m := newTestModel(t, srv.URL, Config{})
	providertest.Concurrently(t, 16, func(i int) error {
		p := &chat.Prompt{Messages: []chat.Message{chat.User(fmt.Sprint("hi ", i))}, Options: &chat.Options{Tools: []tool.Tool{sdkWeather()}}}
		resp, err := m.Call(context.Background(), p)
		if err == nil && resp.Text() != "ok" {
			err = fmt.Errorf("text %q", resp.Text())
		}
		return err
	})
}
