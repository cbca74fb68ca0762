package anthropic

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	sdk "github.com/anthropics/anthropic-sdk-go"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/internal/providertest"
	"github.com/wield-ai/wield/internal/replay"
	"github.com/wield-ai/wield/tool"
)

// collect drains a stream, returning its chunks and final error.
func collect(stream func(yield func(*chat.Response, error) bool)) ([]*chat.Response, error) {
	var chunks []*chat.Response
	for c, err := range stream {
		if err != nil {
			return chunks, err
		}
		chunks = append(chunks, c)
	}
	return chunks, nil
}

// TestStreamChunks checks the deltas of a recorded stream one by one: usage from message_start,
// text pieces, the tool call's id and name first and then its non-empty fragments under one
// Index, the finish reason and cumulative usage from message_delta, the SDK event in Raw.
func TestStreamChunks(t *testing.T) {
	exs := providertest.Load(t, "sdk-tool-runner-next-streaming")
	srv := replay.NewServer(t, exs...)
	m := newTestModel(t, srv.URL, Config{Model: "claude-3-7-sonnet-latest", MaxTokens: 512})
	p := &chat.Prompt{Messages: []chat.Message{chat.User("Weather in SF?")}, Options: &chat.Options{Tools: []tool.Tool{sdkWeather()}}}
	chunks, err := collect(m.Stream(context.Background(), p))
	if err != nil {
		t.Fatal(err)
	}
	first := chunks[0]
	if first.ID != "msg_01P7nF1bmxyzFZjF8zwbUDBM" || first.Model != "claude-3-7-sonnet-20250219" ||
		first.Usage != (chat.Usage{InputTokens: 394, OutputTokens: 1, TotalTokens: 395}) {
		t.Errorf("first chunk = %+v", first)
	}
	var texts, frags []string
	var callChunks []chat.ToolCall
	for _, c := range chunks {
		if _, ok := c.Raw.(*sdk.MessageStreamEventUnion); !ok {
			t.Errorf("Raw is %T, want *anthropic.MessageStreamEventUnion", c.Raw)
		}
		for _, g := range c.Generations {
			if g.Message.Content != "" {
				texts = append(texts, g.Message.Content)
			}
			for _, tc := range g.Message.ToolCalls {
				callChunks = append(callChunks, tc)
				if tc.Arguments != "" {
					frags = append(frags, tc.Arguments)
				}
			}
		}
	}
	if len(texts) != 13 {
		t.Errorf("%d text deltas, want the 13 recorded", len(texts))
	}
	// The recording has four input_json_delta events, the first empty: three fragments reach the
	// caller, after one chunk announcing the call.
	wantFrags := []string{`{"city": "Sa`, `n Francis`, `co"}`}
	if !reflect.DeepEqual(frags, wantFrags) {
		t.Errorf("fragments = %q, want %q", frags, wantFrags)
	}
	if len(callChunks) != 4 || callChunks[0].ID != "toolu_017QoD96fYwGzCWvLfaPADWg" || callChunks[0].Name != "get_weather" {
		t.Fatalf("call chunks = %+v", callChunks)
	}
	for _, c := range callChunks {
		if c.Index != 0 {
			t.Errorf("call chunk index %d, want 0", c.Index)
		}
	}
	last := chunks[len(chunks)-1]
	if last.Result().FinishReason != chat.FinishToolCalls || last.Usage.OutputTokens != 79 || last.Usage.InputTokens != 394 {
		t.Errorf("last chunk = %+v", last)
	}
}

// TestToolWithoutArguments: a call of a tool without parameters has the arguments "{}" whether
// the API sends input:{} whole or streams only an empty fragment; the tool's empty schema is sent
// as an object schema.
func TestToolWithoutArguments(t *testing.T) {
	for _, name := range []string{"vercel-tool-no-args-claude-3-opus", "vercel-tool-no-args-stream-claude-sonnet-4-5"} {
		t.Run(name, func(t *testing.T) {
			exs := providertest.Load(t, name)
			srv := replay.NewServer(t, exs...)
			m := newTestModel(t, srv.URL, Config{})
			noArgs := funcTool{def: tool.Definition{Name: "updateIssueList", Description: "Update the issue list"},
				fn: func(context.Context, string) (string, error) { return "updated", nil }}
			p := &chat.Prompt{Messages: []chat.Message{chat.User("Update the issue list")}, Options: &chat.Options{Tools: []tool.Tool{noArgs}}}
			resp, err := providertest.Run(context.Background(), m, p, strings.Contains(name, "stream"))
			if err != nil {
				t.Fatal(err)
			}
			checkResponse(t, resp, expectRecorded(t, exs[0]))
			calls := resp.ToolCalls()
			if len(calls) != 1 || calls[0].Name != "updateIssueList" || calls[0].Arguments != "{}" {
				t.Fatalf("calls = %+v, want updateIssueList with {}", calls)
			}
			if out, err := noArgs.Call(context.Background(), calls[0].Arguments); err != nil || out != "updated" {
				t.Errorf("tool call: %q, %v", out, err)
			}
			var sent struct {
				Tools []struct {
					InputSchema json.RawMessage `json:"input_schema"`
				} `json:"tools"`
			}
			if err := json.Unmarshal(srv.Requests()[0].Body, &sent); err != nil || len(sent.Tools) != 1 {
				t.Fatalf("sent tools: %v %s", err, srv.Requests()[0].Body)
			}
			if !providertest.JSONEqual(t, string(sent.Tools[0].InputSchema), `{"type":"object","properties":{}}`) {
				t.Errorf("input_schema = %s", sent.Tools[0].InputSchema)
			}
		})
	}
}

// TestForcedToolUse: ToolChoice naming a tool sends tool_choice {type: tool}, and the forced
// call (the "json" tool used for structured output) is read from the recorded answers.
func TestForcedToolUse(t *testing.T) {
	schema := `{"type":"object","properties":{"elements":{"type":"array","items":{"type":"object","properties":{"location":{"type":"string"},"temperature":{"type":"number"},"condition":{"type":"string"}},"required":["location","temperature","condition"],"additionalProperties":false}}},"required":["elements"],"additionalProperties":false}`
	jsonTool := newTool("json", "Respond with a JSON object.", schema, func(_ context.Context, in struct {
		Elements []struct {
			Location    string  `json:"location"`
			Temperature float64 `json:"temperature"`
			Condition   string  `json:"condition"`
		} `json:"elements"`
	}) (string, error) {
		return in.Elements[0].Location, nil
	})
	for _, tc := range []struct {
		name  string
		first string
	}{
		{"vercel-json-tool-claude-haiku-4-5", "San Francisco"},
		{"vercel-json-tool-stream-claude-haiku-4-5", "San Francisco"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			exs := providertest.Load(t, tc.name)
			srv := replay.NewServer(t, exs...)
			m := newTestModel(t, srv.URL, Config{Model: "claude-haiku-4-5"})
			p := &chat.Prompt{
				Messages: []chat.Message{chat.User("Generate 4 weather reports.")},
				Options:  &chat.Options{Tools: []tool.Tool{jsonTool}, ToolChoice: "json", ParallelToolCalls: chat.Ptr(false)},
			}
			resp, err := providertest.Run(context.Background(), m, p, strings.Contains(tc.name, "stream"))
			if err != nil {
				t.Fatal(err)
			}
			checkResponse(t, resp, expectRecorded(t, exs[0]))
			calls := resp.ToolCalls()
			if len(calls) != 1 {
				t.Fatalf("calls = %+v", calls)
			}
			if out, err := jsonTool.Call(context.Background(), calls[0].Arguments); err != nil || out != tc.first {
				t.Errorf("json tool on %s: %q, %v", calls[0].Arguments, out, err)
			}
			var sent struct {
				ToolChoice map[string]any `json:"tool_choice"`
				Tools      []struct {
					InputSchema json.RawMessage `json:"input_schema"`
				} `json:"tools"`
			}
			if err := json.Unmarshal(srv.Requests()[0].Body, &sent); err != nil {
				t.Fatal(err)
			}
			want := map[string]any{"type": "tool", "name": "json", "disable_parallel_tool_use": true}
			if !reflect.DeepEqual(sent.ToolChoice, want) {
				t.Errorf("tool_choice = %v, want %v", sent.ToolChoice, want)
			}
			if len(sent.Tools) != 1 || !providertest.JSONEqual(t, string(sent.Tools[0].InputSchema), schema) {
				t.Errorf("tools = %s", srv.Requests()[0].Body)
			}
		})
	}
}

const (
	evStart = `{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-test","content":[],"stop_reason":null,"usage":{"input_tokens":10,"cache_read_input_tokens":5,"cache_creation_input_tokens":2,"output_tokens":1}}}`
	evStop  = `{"type":"message_stop"}`
)

func evDelta(stop string, output int) string {
	return `{"type":"message_delta","delta":{"stop_reason":"` + stop + `","stop_sequence":null},"usage":{"output_tokens":` + itoa(output) + `}}`
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// thinkingStream is a hand-written stream in the documented shape of extended thinking with a
// tool call: a thinking block (thinking_delta, signature_delta), a redacted_thinking block, text,
// and a tool_use block.
var thinkingStream = providertest.SSE(
	evStart,
	`{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}}`,
	`{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"The user wants the weather. "}}`,
	`{"type":"ping"}`,
	`{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"I should call get_weather."}}`,
	`{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"EqQBCgIYAhIM1gbcDa9GJwZA2b3h"}}`,
	`{"type":"content_block_stop","index":0}`,
	`{"type":"content_block_start","index":1,"content_block":{"type":"redacted_thinking","data":"EmwKAhgBEgy3va3pzix/LafPsn4a"}}`,
	`{"type":"content_block_stop","index":1}`,
	`{"type":"content_block_start","index":2,"content_block":{"type":"text","text":""}}`,
	`{"type":"content_block_delta","index":2,"delta":{"type":"text_delta","text":"Let me check."}}`,
	`{"type":"content_block_stop","index":2}`,
	`{"type":"content_block_start","index":3,"content_block":{"type":"tool_use","id":"toolu_1","name":"get_weather","input":{}}}`,
	`{"type":"content_block_delta","index":3,"delta":{"type":"input_json_delta","partial_json":""}}`,
	`{"type":"content_block_delta","index":3,"delta":{"type":"input_json_delta","partial_json":"{\"city\":\"Paris\"}"}}`,
	`{"type":"content_block_stop","index":3}`,
	`{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":90,"output_tokens_details":{"thinking_tokens":40}}}`,
	evStop,
)

// TestThinkingRoundTrip: thinking and redacted thinking are kept as reasoning and sent back
// before the text and tool_use blocks on the next turn, with their signatures; reasoning from
// another provider is dropped; the thinking budget is sent.
func TestThinkingRoundTrip(t *testing.T) {
	final := providertest.SSE(evStart,
		`{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`,
		`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Sunny in Paris."}}`,
		`{"type":"content_block_stop","index":0}`,
		evDelta("end_turn", 5), evStop)
	srv := replay.NewServer(t,
		replay.Exchange{Header: http.Header{"Content-Type": {"text/event-stream"}}, Body: thinkingStream},
		replay.Exchange{Header: http.Header{"Content-Type": {"text/event-stream"}}, Body: final})
	m := newTestModel(t, srv.URL, Config{ThinkingBudget: 2048})
	p := &chat.Prompt{Messages: []chat.Message{chat.User("Weather in Paris?")}, Options: &chat.Options{Tools: []tool.Tool{sdkWeather()}}}
	resp, err := chat.Aggregate(m.Stream(context.Background(), p))
	if err != nil {
		t.Fatal(err)
	}
	msg := resp.Result().Message
	wantReasoning := []chat.Reasoning{
		{Provider: "anthropic", Text: "The user wants the weather. I should call get_weather.", Signature: "EqQBCgIYAhIM1gbcDa9GJwZA2b3h"},
		{Provider: "anthropic", Encrypted: "EmwKAhgBEgy3va3pzix/LafPsn4a"},
	}
	if !reflect.DeepEqual(msg.Reasoning, wantReasoning) {
		t.Errorf("reasoning = %+v", msg.Reasoning)
	}
	if msg.Content != "Let me check." || len(msg.ToolCalls) != 1 || msg.ToolCalls[0].Arguments != `{"city":"Paris"}` {
		t.Errorf("message = %+v", msg)
	}
	wantUsage := chat.Usage{InputTokens: 17, OutputTokens: 90, TotalTokens: 107, CachedInputTokens: 5, CacheWriteInputTokens: 2, ReasoningTokens: 40}
	if resp.Usage != wantUsage {
		t.Errorf("usage = %+v, want %+v", resp.Usage, wantUsage)
	}

	// A reasoning item of another provider in the history must not reach Anthropic.
	msg.Reasoning = append(msg.Reasoning, chat.Reasoning{Provider: "openai", ID: "rs_1", Encrypted: "gAAAA"})
	p.Messages = append(p.Messages, msg,
		chat.ToolMessage(chat.ToolResult{ID: "toolu_1", Name: "get_weather", Content: "sunny"}))
	resp, err = chat.Aggregate(m.Stream(context.Background(), p))
	if err != nil || resp.Text() != "Sunny in Paris." {
		t.Fatalf("second turn: %v %+v", err, resp)
	}
	want := `{
		"model": "claude-sonnet-5-5", "max_tokens": 4096, "stream": true,
		"thinking": {"type": "enabled", "budget_tokens": 2048},
		"tools": [{"name": "get_weather", "description": "Get weather", "input_schema": ` + sdkWeatherSchema + `}],
		"messages": [
			{"role": "user", "content": [{"type": "text", "text": "Weather in Paris?"}]},
			{"role": "assistant", "content": [
				{"type": "thinking", "thinking": "The user wants the weather. I should call get_weather.", "signature": "EqQBCgIYAhIM1gbcDa9GJwZA2b3h"},
				{"type": "redacted_thinking", "data": "EmwKAhgBEgy3va3pzix/LafPsn4a"},
				{"type": "text", "text": "Let me check."},
				{"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "Paris"}}
			]},
			{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": [{"type": "text", "text": "sunny"}]}]}
		]}`
	checkRequest(t, srv.Requests()[1].Body, []byte(want))
}

// TestThinkingCall: Call reads thinking blocks of a whole answer the same way.
func TestThinkingCall(t *testing.T) {
	body := `{"id":"msg_2","type":"message","role":"assistant","model":"claude-test","content":[
		{"type":"thinking","thinking":"Plan: call the tool.","signature":"sig-1"},
		{"type":"redacted_thinking","data":"opaque"},
		{"type":"text","text":"Checking."},
		{"type":"tool_use","id":"toolu_a","name":"get_weather","input":{"city":"Rome"}},
		{"type":"tool_use","id":"toolu_b","name":"get_weather","input":{"city":"Oslo","units":"celsius"}}],
		"stop_reason":"tool_use","usage":{"input_tokens":20,"output_tokens":30,"output_tokens_details":{"thinking_tokens":12}}}`
	srv := replay.NewServer(t, replay.Exchange{Header: http.Header{"Content-Type": {"application/json"}}, Body: []byte(body)})
	m := newTestModel(t, srv.URL, Config{})
	resp, err := m.Call(context.Background(), &chat.Prompt{
		Messages: []chat.Message{chat.User("Rome and Oslo?")},
		Options:  &chat.Options{Extra: map[string]any{ExtraThinkingBudget: 8000}},
	})
	if err != nil {
		t.Fatal(err)
	}
	g := resp.Result()
	want := []chat.Reasoning{{Provider: "anthropic", Text: "Plan: call the tool.", Signature: "sig-1"}, {Provider: "anthropic", Encrypted: "opaque"}}
	if !reflect.DeepEqual(g.Message.Reasoning, want) || g.Message.Content != "Checking." || g.FinishReason != chat.FinishToolCalls {
		t.Errorf("generation = %+v", g)
	}
	calls := g.Message.ToolCalls
	if len(calls) != 2 || calls[0].ID != "toolu_a" || calls[1].ID != "toolu_b" || calls[1].Index != 1 ||
		calls[1].Arguments != `{"city":"Oslo","units":"celsius"}` {
		t.Errorf("calls = %+v", calls)
	}
	if resp.Usage.ReasoningTokens != 12 {
		t.Errorf("usage = %+v", resp.Usage)
	}
	if _, ok := resp.Raw.(*sdk.Message); !ok {
		t.Errorf("Raw is %T", resp.Raw)
	}
	var sent map[string]any
	_ = json.Unmarshal(srv.Requests()[0].Body, &sent)
	if !reflect.DeepEqual(sent["thinking"], map[string]any{"type": "enabled", "budget_tokens": 8000.0}) || sent["max_tokens"] != 8000.0+DefaultMaxTokens {
		t.Errorf("thinking/max_tokens = %v/%v", sent["thinking"], sent["max_tokens"])
	}
}

// TestStreamEvents runs hand-written streams through Stream and Aggregate: every event kind,
// interleaving, padding, and the ways a stream can go wrong.
func TestStreamEvents(t *testing.T) {
	textBlock := []string{
		`{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`,
		`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi"}}`,
		`{"type":"content_block_stop","index":0}`,
	}
	join := func(parts ...any) []string {
		var out []string
		for _, p := range parts {
			switch p := p.(type) {
			case string:
				out = append(out, p)
			case []string:
				out = append(out, p...)
			}
		}
		return out
	}
	tests := []struct {
		name       string
		events     []string
		raw        []byte // used instead of events when set
		wantText   string
		wantCalls  []chat.ToolCall
		wantFinish chat.FinishReason
		wantErr    func(error) bool
	}{
		{name: "end_turn", events: join(evStart, textBlock, evDelta("end_turn", 3), evStop), wantText: "Hi", wantFinish: chat.FinishStop},
		{name: "stop_sequence", events: join(evStart, textBlock, evDelta("stop_sequence", 3), evStop), wantText: "Hi", wantFinish: chat.FinishStop},
		{name: "max_tokens", events: join(evStart, textBlock, evDelta("max_tokens", 3), evStop), wantText: "Hi", wantFinish: chat.FinishLength},
		{name: "refusal", events: join(evStart, textBlock, evDelta("refusal", 3), evStop), wantText: "Hi", wantFinish: chat.FinishContentFilter},
		{name: "pause_turn passes through", events: join(evStart, textBlock, evDelta("pause_turn", 3), evStop), wantText: "Hi", wantFinish: "pause_turn"},
		{name: "unknown event and block types are skipped", events: join(evStart,
			`{"type":"content_block_start","index":0,"content_block":{"type":"server_tool_use","id":"srvtoolu_1","name":"web_search","input":{}}}`,
			`{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"query\":\"x\"}"}}`,
			`{"type":"content_block_stop","index":0}`,
			`{"type":"future_event","payload":1}`,
			`{"type":"content_block_start","index":1,"content_block":{"type":"text","text":"Hi"}}`,
			`{"type":"content_block_stop","index":1}`,
			evDelta("end_turn", 3), evStop), wantText: "Hi", wantFinish: chat.FinishStop},
		{name: "interleaved blocks and parallel calls", events: join(evStart,
			`{"type":"content_block_start","index":0,"content_block":{"type":"text","text":"Look"}}`,
			`{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_a","name":"get_weather","input":{}}}`,
			`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"ing"}}`,
			`{"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"toolu_b","name":"get_weather","input":{}}}`,
			`{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"{\"city\":"}}`,
			`{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"city\":\"Rome\"}"}}`,
			`{"type":"ping"}`,
			`{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"\"Oslo\"}"}}`,
			`{"type":"content_block_stop","index":1}`, `{"type":"content_block_stop","index":0}`, `{"type":"content_block_stop","index":2}`,
			evDelta("tool_use", 9), evStop),
			wantText: "Looking",
			wantCalls: []chat.ToolCall{
				{ID: "toolu_a", Name: "get_weather", Arguments: `{"city":"Rome"}`, Index: 0},
				{ID: "toolu_b", Name: "get_weather", Arguments: `{"city":"Oslo"}`, Index: 1},
			},
			wantFinish: chat.FinishToolCalls},
		{name: "padded JSON and CRLF", raw: []byte(strings.ReplaceAll(string(providertest.SSE(
			`{"type":"message_start","message":{"id":"msg_1","model":"m","content":[],"usage":{"input_tokens":1,"output_tokens":1}}}     `,
			`{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}   }`,
			`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi"}          }`,
			`{"type":"content_block_stop","index":0 }`,
			evDelta("end_turn", 2), `{"type":"message_stop"       }`)), "\n", "\r\n")),
			wantText: "Hi", wantFinish: chat.FinishStop},
		{name: "overloaded error event", events: join(evStart, textBlock[:2],
			`{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`),
			wantText: "Hi",
			wantErr: func(err error) bool {
				var pe *chat.ProviderError
				return errors.As(err, &pe) && pe.StatusCode == 529 && pe.Type == "overloaded_error" && pe.Message == "Overloaded" && pe.Temporary()
			}},
		{name: "no message_stop", events: join(evStart, textBlock, evDelta("end_turn", 3)), wantText: "Hi",
			wantErr: func(err error) bool {
				return errors.Is(err, ErrIncompleteStream) && errors.Is(err, io.ErrUnexpectedEOF)
			}},
		{name: "empty body", raw: []byte{}, wantErr: func(err error) bool { return errors.Is(err, ErrIncompleteStream) }},
		{name: "malformed JSON", events: join(evStart, "content_block_delta|{\"type\":\"content_block_delta\",\"index\":0,"), wantErr: isErr},
		{name: "delta for a block never started", events: join(evStart,
			`{"type":"content_block_delta","index":4,"delta":{"type":"text_delta","text":"x"}}`), wantErr: isErr},
		{name: "delta after its block stopped", events: join(evStart, textBlock,
			`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"x"}}`), wantText: "Hi", wantErr: isErr},
		{name: "block index out of range", events: join(evStart,
			`{"type":"content_block_start","index":99999999,"content_block":{"type":"text","text":""}}`), wantErr: isErr},
		{name: "content before message_start", events: textBlock, wantErr: isErr},
		{name: "tool_use input not JSON", events: join(evStart,
			`{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"t","name":"n","input":"{"}}`,
			`{"type":"content_block_stop","index":0}`), wantCalls: []chat.ToolCall{{ID: "t", Name: "n"}}, wantErr: isErr},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			body := tc.raw
			if body == nil {
				body = providertest.SSE(tc.events...)
			}
			srv := replay.NewServer(t, replay.Exchange{Header: http.Header{"Content-Type": {"text/event-stream"}}, Body: body})
			m := newTestModel(t, srv.URL, Config{})
			resp, err := chat.Aggregate(m.Stream(context.Background(), &chat.Prompt{Messages: []chat.Message{chat.User("hi")}}))
			switch {
			case tc.wantErr == nil && err != nil:
				t.Fatalf("error: %v", err)
			case tc.wantErr != nil && (err == nil || !tc.wantErr(err)):
				t.Fatalf("error = %v (%T), not the one expected", err, err)
			}
			if resp.Text() != tc.wantText {
				t.Errorf("text = %q, want %q", resp.Text(), tc.wantText)
			}
			if calls := resp.ToolCalls(); !reflect.DeepEqual(calls, tc.wantCalls) {
				t.Errorf("calls = %+v, want %+v", calls, tc.wantCalls)
			}
			if g := resp.Result(); tc.wantErr == nil && (g == nil || g.FinishReason != tc.wantFinish) {
				t.Errorf("generation = %+v, want finish %q", g, tc.wantFinish)
			}
		})
	}
}

func isErr(err error) bool { return err != nil }

// TestStreamStopEarly: breaking out of the iteration closes the HTTP connection; the server sees
// the request go away while it still has events to send.
func TestStreamStopEarly(t *testing.T) {
	gone := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = w.Write(providertest.SSE(evStart, `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`))
		w.(http.Flusher).Flush()
		for {
			select {
			case <-r.Context().Done():
				close(gone)
				return
			case <-time.After(5 * time.Millisecond):
				_, _ = w.Write(providertest.SSE(`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"more "}}`))
				w.(http.Flusher).Flush()
			}
		}
	}))
	defer srv.Close()
	m := newTestModel(t, srv.URL, Config{})
	n := 0
	for _, err := range m.Stream(context.Background(), &chat.Prompt{Messages: []chat.Message{chat.User("talk")}}) {
		if err != nil {
			t.Fatal(err)
		}
		if n++; n == 3 {
			break
		}
	}
	select {
	case <-gone:
	case <-time.After(10 * time.Second):
		t.Fatal("the server never saw the connection close after the iteration stopped")
	}
}
