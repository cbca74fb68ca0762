package openai

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/internal/providertest"
	"github.com/wield-ai/wield/internal/replay"
	"github.com/wield-ai/wield/tool"
)

// fantasyResponsesConfig is the configuration of the client that made the fantasy recordings:
// responses not stored, and no encrypted reasoning asked for.
func fantasyResponsesConfig(model string) Config {
	return Config{Model: model, MaxTokens: 4000, Store: ptr(false), EncryptedReasoning: ptr(false)}
}

// The get_weather tool of the vercel recordings.
func vercelWeatherTool() *testTool {
	return newTool("get_weather", "Get the weather in a location",
		`{"type":"object","properties":{"location":{"type":"string"},"unit":{"type":"string","enum":["celsius","fahrenheit"]}},"required":["location","unit"],"additionalProperties":false}`)
}

// TestResponsesReplay replays the single-exchange Responses recordings: text, function calls
// among output items of unknown types (skipped), reasoning items, usage and finish reasons must
// match the recording, and the requests must match where the request was recorded.
func TestResponsesReplay(t *testing.T) {
	weatherCall := func(callID string) chat.ToolCall {
		return chat.ToolCall{ID: callID, Name: "get_weather", Arguments: `{"location":"San Francisco, CA","unit":"fahrenheit"}`}
	}
	cases := []replayCase{{
		name:   "fantasy-text-gpt-4o",
		cfg:    fantasyResponsesConfig("gpt-4o"),
		prompt: fantasyPrompt("Say hi in Portuguese", nil),
		norms:  []normalizer{joinTextParts("input")},
		want: func(*testing.T, []byte) *chat.Response {
			return textResponse("resp_07592f42d0d2f1ac016a3c11f75bd081a1a99d083171a39f1f", "gpt-4o-2024-08-06", "Olá!", chat.FinishStop, usage(20, 3))
		},
	}, {
		name:   "fantasy-text-stream-gpt-4o",
		cfg:    fantasyResponsesConfig("gpt-4o"),
		prompt: fantasyPrompt("Say hi in Portuguese", nil),
		stream: true,
		norms:  []normalizer{joinTextParts("input")},
		want: func(*testing.T, []byte) *chat.Response {
			return textResponse("resp_099d6c816b4d9f35016a3c11f9593481a2a77e9b90b888ae50", "gpt-4o-2024-08-06", "Olá!", chat.FinishStop, usage(20, 3))
		},
	}, {
		name:   "vercel-client-tool-search-function-call-gpt-5.4",
		cfg:    Config{Model: "gpt-5.4"},
		prompt: &chat.Prompt{Messages: []chat.Message{chat.User("What is the weather in San Francisco?")}, Options: &chat.Options{Tools: []tool.Tool{vercelWeatherTool()}}},
		want: func(*testing.T, []byte) *chat.Response {
			w := callResponse("resp_01166e06cf473fc80169ab66eaadc8819680a3e03ef7363017", "gpt-5.4-2026-03-05", usage(461, 26),
				weatherCall("call_heVrRaKZEJbsRvHvaEf5BLUI"))
			return w
		},
	}, {
		name:   "vercel-client-tool-search-function-call-stream-gpt-5.4",
		cfg:    Config{Model: "gpt-5.4"},
		prompt: &chat.Prompt{Messages: []chat.Message{chat.User("What is the weather in San Francisco?")}, Options: &chat.Options{Tools: []tool.Tool{vercelWeatherTool()}}},
		stream: true,
		want: func(*testing.T, []byte) *chat.Response {
			return callResponse("resp_05147bbe356953b60069ab6736cddc8196933842ce635db83f", "gpt-5.4-2026-03-05", usage(467, 26),
				weatherCall("call_Q7pq6EfVGRnauPLWSSYBGJ1l"))
		},
	}, {
		name:   "vercel-tool-search-function-call-gpt-5.4",
		cfg:    Config{Model: "gpt-5.4"},
		prompt: &chat.Prompt{Messages: []chat.Message{chat.User("What is the weather in San Francisco?")}},
		want: func(*testing.T, []byte) *chat.Response {
			w := callResponse("resp_04bd69550b37ba260069aa689530d0819094482b7c14059a0f", "gpt-5.4-2026-03-05", usage(640, 46),
				weatherCall("call_ytqozXvUXG8NN1b0IODxzUaE"))
			w.Usage.ReasoningTokens = 20
			return w
		},
	}, {
		name:   "vercel-tool-search-function-call-stream-gpt-5.4",
		cfg:    Config{Model: "gpt-5.4"},
		prompt: &chat.Prompt{Messages: []chat.Message{chat.User("What is the weather in San Francisco?")}},
		stream: true,
		want: func(*testing.T, []byte) *chat.Response {
			w := callResponse("resp_08a14073c7135dc10069aa68621de481908b2fc660fb4fc0af", "gpt-5.4-2026-03-05", usage(640, 46),
				weatherCall("call_pddfxhfOx4gY56zn4vIIEbFp"))
			w.Usage.ReasoningTokens = 20
			return w
		},
	}, {
		name:   "vercel-reasoning-final-text-gpt-5-mini",
		cfg:    Config{Model: "gpt-5-mini", Store: ptr(false)},
		prompt: &chat.Prompt{Messages: []chat.Message{chat.User("Use the calculator: (12 + 7) * 3 * 10")}},
		want: func(t *testing.T, body []byte) *chat.Response {
			var raw struct {
				Output []struct {
					ID               string `json:"id"`
					EncryptedContent string `json:"encrypted_content"`
					Summary          []struct {
						Text string `json:"text"`
					} `json:"summary"`
				} `json:"output"`
			}
			if err := json.Unmarshal(body, &raw); err != nil {
				t.Fatal(err)
			}
			rs := raw.Output[0]
			w := textResponse("resp_0f35ed53160b395301693cc957829881909359e7f80cdd20b5", "gpt-5-mini-2025-08-07",
				"12 + 7 = 19\n19 × 3 = 57\n57 × 10 = 570\n\nFinal result: 570", chat.FinishStop, usage(865, 163))
			w.Usage.ReasoningTokens = 128
			w.Generations[0].Message.Reasoning = []chat.Reasoning{{Provider: "openai", ID: rs.ID, Text: rs.Summary[0].Text, Encrypted: rs.EncryptedContent}}
			if len(rs.Summary) != 1 || !strings.HasPrefix(rs.EncryptedContent, "gAAAA") {
				t.Fatalf("unexpected recording: %+v", rs)
			}
			return w
		},
	}}
	runReplay(t, apis[1], "/v1/responses", cases)
}

// TestResponsesToolLoop runs the recorded Responses tool loops with a real Go tool: the
// function_call_output of the second request carries the call's id, and the final answer is the
// recorded one. With gpt-5 the first answer has a reasoning item without encrypted content;
// since the responses are not stored, the API could not look it up, so it is not sent back
// (which is also what the recorded second request shows).
func TestResponsesToolLoop(t *testing.T) {
	norms := []normalizer{joinTextParts("input")}
	runToolLoops(t, apis[1], []toolLoopCase{
		{name: "fantasy-tool-loop-gpt-4o", cfg: fantasyResponsesConfig("gpt-4o"), callID: "call_6Y7U4KSBYYYDJIEL0QdvBtzW", firstUsage: usage(58, 17),
			finalText: "The current temperature in Florence, Italy is 40°C.", finalUsage: usage(81, 14), norms: norms, checkFirst: firstResponse("")},
		{name: "fantasy-tool-loop-streaming-gpt-4o", cfg: fantasyResponsesConfig("gpt-4o"), stream: true, callID: "call_PRiJm2RVAvt7IoRvjxIXxFVF", firstUsage: usage(58, 17),
			finalText: "The current temperature in Florence, Italy is 40°C.", finalUsage: usage(81, 14), norms: norms, checkFirst: firstResponse("")},
		{name: "fantasy-tool-loop-streaming-gpt-5", cfg: fantasyResponsesConfig("gpt-5"), stream: true, callID: "call_nYgMM3oZuxort2H8Ky4uP5RE", firstUsage: usage(63, 77),
			finalText:  "Florence, Italy is currently about 40°C (104°F). It’s very hot—stay hydrated and avoid peak afternoon sun. Want a forecast for the next few days?",
			finalUsage: chat.Usage{InputTokens: 92, OutputTokens: 194, TotalTokens: 286, ReasoningTokens: 128},
			norms:      []normalizer{developerAsSystem, joinTextParts("input")}, checkFirst: firstResponse("rs_0967f4efea4061d0016a3c122284b881a0ba3b13e24047d7ce")},
	})
}

// firstResponse checks the first answer of a Responses tool loop: the reasoning item reasoningID,
// if the model reasons, and the link from the call to its item; OpenAI's item ids never show as
// the call's signature.
func firstResponse(reasoningID string) func(*testing.T, *chat.Response) {
	return func(t *testing.T, first *chat.Response) {
		call := first.ToolCalls()[0]
		rs := first.Result().Message.Reasoning
		if reasoningID != "" {
			if len(rs) != 2 || rs[0] != (chat.Reasoning{Provider: "openai", ID: reasoningID}) ||
				rs[1] != (chat.Reasoning{Provider: "openai", ID: "fc_0967f4efea4061d0016a3c1223286481a0b6b3834cdd7c6574", Signature: call.ID}) {
				t.Fatalf("reasoning and call link = %+v", rs)
			}
		} else if len(rs) != 0 {
			t.Fatalf("reasoning %+v from a model without reasoning", rs)
		}
		if call.Signature != "" {
			t.Fatalf("call signature %q: OpenAI's item ids must not reach other providers", call.Signature)
		}
	}
}

// recordedReasoning reads the completed reasoning items of a recorded Responses stream,
// independently of the code under test.
func recordedReasoning(t *testing.T, body []byte) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, d := range replay.SSEData(body) {
		var ev struct {
			Type string         `json:"type"`
			Item map[string]any `json:"item"`
		}
		if err := json.Unmarshal(d, &ev); err != nil {
			t.Fatal(err)
		}
		if ev.Type == "response.output_item.done" && ev.Item["type"] == "reasoning" {
			out = append(out, ev.Item)
		}
	}
	return out
}

// TestResponsesReasoningLoop runs the four recorded responses of a reasoning model's tool loop
// (responses not stored, encrypted reasoning) with a real calculator: the reasoning item of the
// first answer, as completed in its output_item.done event (with its encrypted content and
// summary), must be sent back before the call it led to, the call must carry its item id, every
// result must go back as a function_call_output with its call's id, and the final answer must be
// the recorded one.
func TestResponsesReasoningLoop(t *testing.T) {
	exs := providertest.Load(t, "responses", "vercel-reasoning-tool-loop-stream-gpt-5.1-codex-max")
	srv := replay.NewServer(t, exs...)
	m := newTestModel(t, NewResponses, srv.URL+"/v1", Config{Model: "gpt-5.1-codex-max", Store: ptr(false)})
	calc := calculatorTool()
	opts := &chat.Options{Tools: []tool.Tool{calc}, Extra: map[string]any{ExtraReasoningSummary: "auto"}}
	history := []chat.Message{chat.User("Compute (12 + 7) * 3 * 10 with the calculator, one step per call.")}
	var results []string
	for turn := 0; turn < len(exs); turn++ {
		_, resp, err := collect(t, m, &chat.Prompt{Messages: history, Options: opts})
		if err != nil {
			t.Fatalf("turn %d: %v", turn+1, err)
		}
		if !resp.HasToolCalls() {
			if turn != 3 || resp.Text() != "The final result is **570**." {
				t.Fatalf("turn %d: final answer %q", turn+1, resp.Text())
			}
			break
		}
		history = runTools(t, history, resp, calc)
		results = append(results, history[len(history)-1].ToolResults[0].Content)
	}
	if strings.Join(results, ",") != "19,57,570" {
		t.Fatalf("tool results %v", results)
	}
	reqs := srv.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d requests, want 4", len(reqs))
	}
	var second struct {
		Store   bool             `json:"store"`
		Include []string         `json:"include"`
		Input   []map[string]any `json:"input"`
	}
	if err := json.Unmarshal(reqs[1].Body, &second); err != nil {
		t.Fatal(err)
	}
	if second.Store || len(second.Include) != 1 || second.Include[0] != "reasoning.encrypted_content" {
		t.Fatalf("store %v include %v", second.Store, second.Include)
	}
	rec := recordedReasoning(t, exs[0].Body)[0]
	summary := rec["summary"].([]any)[0].(map[string]any)["text"]
	wantInput := []map[string]any{
		{"role": "user", "content": "Compute (12 + 7) * 3 * 10 with the calculator, one step per call."},
		{"type": "reasoning", "id": rec["id"], "encrypted_content": rec["encrypted_content"], "summary": []any{map[string]any{"type": "summary_text", "text": summary}}},
		{"type": "function_call", "id": "fc_01830d662ab3856501693c32151234819091cfca267e98cc5f", "call_id": "call_AB6AaRZ1FYZB2RwS6A5vbdqn", "name": "calculator", "arguments": `{"a":12,"b":7,"op":"add"}`},
		{"type": "function_call_output", "call_id": "call_AB6AaRZ1FYZB2RwS6A5vbdqn", "output": "19"},
	}
	if !jsonEqual(second.Input, wantInput) {
		gj, _ := json.MarshalIndent(second.Input, "", "  ")
		t.Fatalf("second request input:\n%s", gj)
	}
	var last struct {
		Input []map[string]any `json:"input"`
	}
	if err := json.Unmarshal(reqs[3].Body, &last); err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, item := range last.Input {
		k, _ := item["type"].(string)
		if k == "" {
			k = item["role"].(string)
		}
		if k == "function_call" && item["id"] != nil && item["call_id"] != "call_AB6AaRZ1FYZB2RwS6A5vbdqn" {
			t.Errorf("call without reasoning sent with its item id: %v", item)
		}
		kinds = append(kinds, k)
	}
	if got := strings.Join(kinds, ","); got != "user,reasoning,function_call,function_call_output,function_call,function_call_output,function_call,function_call_output" {
		t.Fatalf("last request input items: %s", got)
	}
}

// calculatorTool is the tool of the vercel reasoning recordings, with a real implementation.
func calculatorTool() *testTool {
	calc := newTool("calculator", "A minimal calculator for basic arithmetic. Call it once per step.",
		`{"type":"object","properties":{"a":{"type":"number","description":"First operand."},"b":{"type":"number","description":"Second operand."},"op":{"type":"string","enum":["add","subtract","multiply","divide"],"default":"add","description":"Arithmetic operation to perform."}},"required":["a","b","op"],"additionalProperties":false}`)
	calc.fn = func(_ context.Context, args string) (string, error) {
		var in struct {
			A, B float64
			Op   string
		}
		if err := json.Unmarshal([]byte(args), &in); err != nil {
			return "", err
		}
		switch in.Op {
		case "add":
			return fmt.Sprint(in.A + in.B), nil
		case "multiply":
			return fmt.Sprint(in.A * in.B), nil
		}
		return "", fmt.Errorf("unsupported op %q", in.Op)
	}
	return calc
}

// TestResponsesReasoningSentBack checks which reasoning goes back, depending on storage.
func TestResponsesReasoningSentBack(t *testing.T) {
	assistant := chat.Message{Role: chat.RoleAssistant,
		Reasoning: []chat.Reasoning{
			{Provider: "openai", ID: "rs_1", Text: "first part", Encrypted: "enc1"},
			{Provider: "openai", ID: "rs_1", Text: "second part"},
			{Provider: "openai", ID: "rs_2"},
			{Provider: "openai", ID: "fc_1", Signature: "call_1"},
			{Provider: "anthropic", Text: "not ours", Signature: "sig"},
			{Provider: "gemini", ID: "fc_x", Signature: "call_2"},
		},
		ToolCalls: []chat.ToolCall{{ID: "call_1", Name: "f", Arguments: "{}"}, {ID: "call_2", Name: "g", Signature: "Z2VtaW5pLXNpZ25hdHVyZQ=="}},
	}
	msgs := []chat.Message{chat.User("go"), assistant, chat.ToolMessage(chat.ToolResult{ID: "call_1", Name: "f", Content: "ok"}, chat.ToolResult{ID: "call_2", Name: "g", Content: "bad", IsError: true})}
	for _, tc := range []struct {
		stored bool
		want   string
	}{
		{true, `[{"content":"go","role":"user"},` +
			`{"id":"rs_1","summary":[{"text":"first part","type":"summary_text"},{"text":"second part","type":"summary_text"}],"encrypted_content":"enc1","type":"reasoning"},` +
			`{"id":"rs_2","summary":[],"type":"reasoning"},` +
			`{"arguments":"{}","call_id":"call_1","name":"f","id":"fc_1","type":"function_call"},` +
			`{"arguments":"{}","call_id":"call_2","name":"g","type":"function_call"},` +
			`{"output":"ok","call_id":"call_1","type":"function_call_output"},{"output":"Error: bad","call_id":"call_2","type":"function_call_output"}]`},
		{false, `[{"content":"go","role":"user"},` +
			`{"id":"rs_1","summary":[{"text":"first part","type":"summary_text"},{"text":"second part","type":"summary_text"}],"encrypted_content":"enc1","type":"reasoning"},` +
			`{"arguments":"{}","call_id":"call_1","name":"f","id":"fc_1","type":"function_call"},` +
			`{"arguments":"{}","call_id":"call_2","name":"g","type":"function_call"},` +
			`{"output":"ok","call_id":"call_1","type":"function_call_output"},{"output":"Error: bad","call_id":"call_2","type":"function_call_output"}]`},
	} {
		items, err := responsesInput(msgs, tc.stored, nil)
		if err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(items)
		if err != nil {
			t.Fatal(err)
		}
		assertSameRequest(t, []byte(`{"i":`+string(b)+`}`), []byte(`{"i":`+tc.want+`}`))
	}
	// Without tool calls, the reasoning is not needed back; nor are reasoning-less calls linked
	// by item id.
	items, err := responsesInput([]chat.Message{{Role: chat.RoleAssistant, Content: "hi", Reasoning: assistant.Reasoning},
		{Role: chat.RoleAssistant, ToolCalls: []chat.ToolCall{{ID: "c", Name: "f"}}, Reasoning: []chat.Reasoning{{Provider: "openai", ID: "fc_9", Signature: "c"}}}}, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(items)
	assertSameRequest(t, []byte(`{"i":`+string(b)+`}`), []byte(`{"i":[{"content":"hi","role":"assistant"},{"arguments":"{}","call_id":"c","name":"f","type":"function_call"}]}`))

	if _, err := responsesInput([]chat.Message{chat.ToolMessage(chat.ToolResult{Name: "f", Content: "x"})}, true, nil); err == nil {
		t.Error("a result without call id was accepted")
	}
}

// TestResponsesOptions checks how call options reach a Responses request.
func TestResponsesOptions(t *testing.T) {
	weather := weatherTool()
	opt := weatherTool()
	opt.def.Name = "forecast"
	opt.def.InputSchema = json.RawMessage(`{"type":"object","properties":{"location":{"type":"string"},"days":{"type":"integer"}},"required":["location"]}`)
	srv := replay.NewServer(t, providertest.Load(t, "responses", "fantasy-text-gpt-4o")...)
	m := newTestModel(t, NewResponses, srv.URL, Config{Model: "gpt-5", StrictTools: true, Store: ptr(false)})
	_, err := m.Call(context.Background(), &chat.Prompt{Messages: []chat.Message{chat.User("hi")}, Options: &chat.Options{
		Temperature: ptr(0.3), TopP: ptr(0.8), MaxTokens: 64,
		Tools: []tool.Tool{weather, opt}, ToolChoice: "forecast", ParallelToolCalls: ptr(true),
		ResponseFormat: &chat.ResponseFormat{Schema: json.RawMessage(`{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]}`), Strict: true},
		Extra:          map[string]any{ExtraReasoningEffort: "minimal", ExtraReasoningSummary: "detailed", ExtraBody: map[string]any{"service_tier": "flex"}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	var body map[string]any
	if err := json.Unmarshal(srv.Requests()[0].Body, &body); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"model": "gpt-5", "temperature": 0.3, "top_p": 0.8, "max_output_tokens": 64, "store": false,
		"include":             []any{"reasoning.encrypted_content"},
		"tool_choice":         map[string]any{"type": "function", "name": "forecast"},
		"parallel_tool_calls": true,
		"reasoning":           map[string]any{"effort": "minimal", "summary": "detailed"},
		"text": map[string]any{"format": map[string]any{"type": "json_schema", "name": "response", "strict": true,
			"schema": map[string]any{"type": "object", "properties": map[string]any{"a": map[string]any{"type": "string"}}, "required": []any{"a"}, "additionalProperties": false}}},
		"service_tier": "flex",
		"input":        []any{map[string]any{"role": "user", "content": "hi"}},
		"tools": []any{
			map[string]any{"type": "function", "name": "weather", "description": "Get weather information for a location", "strict": true,
				"parameters": map[string]any{"type": "object", "properties": map[string]any{"location": map[string]any{"type": "string", "description": "the city"}}, "required": []any{"location"}, "additionalProperties": false}},
			map[string]any{"type": "function", "name": "forecast", "description": "Get weather information for a location", "strict": true,
				"parameters": map[string]any{"type": "object", "properties": map[string]any{"location": map[string]any{"type": "string"}, "days": map[string]any{"type": []any{"integer", "null"}}}, "required": []any{"location", "days"}, "additionalProperties": false}},
		},
	}
	if !jsonEqual(body, want) {
		gj, _ := json.MarshalIndent(body, "", "  ")
		t.Fatalf("request:\n%s", gj)
	}

	for _, bad := range []*chat.Options{{N: 2}, {Seed: ptr(int64(1))}, {Stop: []string{"x"}},
		{Extra: map[string]any{ExtraParams: func(*chat.Options) {}}}, {Extra: map[string]any{ExtraReasoningSummary: 1}}} {
		if _, err := m.Call(context.Background(), &chat.Prompt{Messages: []chat.Message{chat.User("hi")}, Options: bad}); err == nil {
			t.Errorf("options %+v accepted", bad)
		}
	}
	if srv.Served() != 1 {
		t.Errorf("%d requests sent for invalid options", srv.Served()-1)
	}
}

// TestResponsesStreamEvents covers events no recording has (built in the API's shapes): a call
// whose arguments arrive only in its output_item.done event, an incomplete response, text only in
// a message's done event, and unknown events.
func TestResponsesStreamEvents(t *testing.T) {
	events := []string{
		`{"type":"response.created","response":{"id":"resp_1","model":"m","status":"in_progress","output":[]}}`,
		`{"type":"response.something_new","payload":{"x":1}}`,
		`{"type":"response.output_item.added","output_index":0,"item":{"type":"web_search_call","id":"ws_1","status":"in_progress"}}`,
		`{"type":"response.output_item.done","output_index":1,"item":{"type":"function_call","id":"fc_1","call_id":"call_1","name":"weather","arguments":"{\"location\":\"Rome\"}","status":"completed"}}`,
		`{"type":"response.output_item.done","output_index":2,"item":{"type":"message","id":"msg_1","role":"assistant","status":"completed","content":[{"type":"output_text","text":"partial","annotations":[]}]}}`,
		`{"type":"response.incomplete","response":{"id":"resp_1","model":"m","status":"incomplete","incomplete_details":{"reason":"max_output_tokens"},"output":[],"usage":{"input_tokens":3,"output_tokens":4,"total_tokens":7,"input_tokens_details":{"cached_tokens":1},"output_tokens_details":{"reasoning_tokens":2}}}}`,
	}
	srv := replay.NewServer(t, replay.Exchange{Header: http.Header{"Content-Type": {"text/event-stream"}}, Body: providertest.SSE(events...)})
	m := newTestModel(t, NewResponses, srv.URL, Config{Model: "m"})
	_, got, err := collect(t, m, &chat.Prompt{Messages: []chat.Message{chat.User("x")}})
	if err != nil {
		t.Fatal(err)
	}
	assertResponse(t, got, &chat.Response{ID: "resp_1", Model: "m",
		Usage: chat.Usage{InputTokens: 3, OutputTokens: 4, TotalTokens: 7, CachedInputTokens: 1, ReasoningTokens: 2},
		Generations: []chat.Generation{{FinishReason: chat.FinishLength, Message: chat.Message{Role: chat.RoleAssistant, Content: "partial",
			ToolCalls: []chat.ToolCall{{ID: "call_1", Name: "weather", Arguments: `{"location":"Rome"}`}}}}}})
}

// TestResponsesCachedTokens checks that the Responses API's cached input tokens
// (usage.input_tokens_details.cached_tokens) reach CachedInputTokens and the tokens written to
// the cache CacheWriteInputTokens, called and streamed. No recording has a cache hit on this
// API; the answers are built in its shape.
func TestResponsesCachedTokens(t *testing.T) {
	resp := `{"id":"resp_1","object":"response","model":"gpt-5-mini","status":"completed","output":[{"type":"message","id":"msg_1","role":"assistant","status":"completed","content":[{"type":"output_text","text":"hi","annotations":[]}]}],` +
		`"usage":{"input_tokens":2048,"input_tokens_details":{"cached_tokens":1536,"cache_write_tokens":256},"output_tokens":20,"output_tokens_details":{"reasoning_tokens":12},"total_tokens":2068}}`
	want := chat.Usage{InputTokens: 2048, OutputTokens: 20, TotalTokens: 2068, CachedInputTokens: 1536, CacheWriteInputTokens: 256, ReasoningTokens: 12}
	for _, stream := range []bool{false, true} {
		ex := providertest.JSONError(200, resp)
		if stream {
			ex = replay.Exchange{Header: http.Header{"Content-Type": {"text/event-stream"}}, Body: providertest.SSE(
				`{"type":"response.created","response":{"id":"resp_1","model":"gpt-5-mini","status":"in_progress","output":[]}}`,
				`{"type":"response.output_text.delta","output_index":0,"content_index":0,"item_id":"msg_1","delta":"hi"}`,
				`{"type":"response.completed","response":`+resp+`}`)}
		}
		srv := replay.NewServer(t, ex)
		r, err := providertest.Run(context.Background(), newTestModel(t, NewResponses, srv.URL, Config{Model: "gpt-5-mini"}),
			&chat.Prompt{Messages: []chat.Message{chat.User("hi")}}, stream)
		if err != nil {
			t.Fatal(err)
		}
		if r.Usage != want || r.Text() != "hi" {
			t.Errorf("stream %v: usage %+v text %q", stream, r.Usage, r.Text())
		}
	}
}
