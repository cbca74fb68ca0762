package chat

import (
	"context"
	"encoding/json"
	"errors"
	"iter"
	"reflect"
	"testing"

	"github.com/wield-ai/wield/tool"
)

func TestMessageJSONRoundTrip(t *testing.T) {
	msgs := []Message{
		System("be brief"),
		User("weather?"),
		{Role: RoleAssistant, Content: "checking", ToolCalls: []ToolCall{{ID: "c1", Name: "weather", Arguments: `{"city":"Paris"}`, Signature: "sig"}},
			Reasoning: []Reasoning{{Provider: "anthropic", Text: "think", Signature: "s"}}},
		ToolMessage(ToolResult{ID: "c1", Name: "weather", Content: "boom", IsError: true}),
	}
	checkRoundTrip(t, msgs)
}

// checkRoundTrip checks that msgs read back from their JSON unchanged.
func checkRoundTrip(t *testing.T, msgs []Message) {
	t.Helper()
	b, err := json.Marshal(msgs)
	if err != nil {
		t.Fatal(err)
	}
	var back []Message
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(msgs, back) {
		t.Fatalf("round trip changed messages:\n got %#v\nwant %#v", back, msgs)
	}
}

type namedTool string

func (n namedTool) Definition() tool.Definition { return tool.Definition{Name: string(n)} }
func (n namedTool) Metadata() tool.Metadata     { return tool.Metadata{} }
func (n namedTool) Call(context.Context, string) (string, error) {
	return string(n), nil
}

func TestMerge(t *testing.T) {
	base := &Options{
		Model: "a", Temperature: Ptr(0.1), MaxTokens: 100,
		Tools: []tool.Tool{namedTool("t1")},
		Extra: map[string]any{"k": 1, "user": "u1"},
	}
	over := &Options{
		Temperature: Ptr(0.7),
		Tools:       []tool.Tool{namedTool("t2")},
		Extra:       map[string]any{"j": 2, "user": "u2"},
	}
	got := Merge(base, over)
	if got.Model != "a" || *got.Temperature != 0.7 || got.MaxTokens != 100 {
		t.Errorf("settings: model %q temperature %v max %d", got.Model, *got.Temperature, got.MaxTokens)
	}
	if len(got.Tools) != 2 || got.Tools[0].Definition().Name != "t1" || got.Tools[1].Definition().Name != "t2" {
		t.Errorf("tools = %v", got.Tools)
	}
	if !reflect.DeepEqual(got.Extra, map[string]any{"k": 1, "j": 2, "user": "u2"}) {
		t.Errorf("extra = %v", got.Extra)
	}
	// Inputs are untouched.
	if len(base.Tools) != 1 || base.Extra["user"] != "u1" || *base.Temperature != 0.1 {
		t.Error("Merge modified its base")
	}
	got.Extra["x"] = 1
	if _, ok := base.Extra["x"]; ok {
		t.Error("merged extra shares the base map")
	}
	if Merge(nil, nil) == nil || Merge(nil, over).Model != "" || Merge(base, nil).Model != "a" {
		t.Error("nil handling")
	}
}

func TestToolCallsFromEveryGeneration(t *testing.T) {
	r := &Response{Generations: []Generation{
		{Message: Assistant("I'll check the weather")},
		{Index: 1, Message: Assistant("", ToolCall{ID: "a", Name: "weather"}, ToolCall{ID: "b", Name: "time"})},
	}}
	calls := r.ToolCalls()
	if len(calls) != 2 || calls[0].ID != "a" || calls[1].ID != "b" || !r.HasToolCalls() {
		t.Fatalf("ToolCalls() = %v", calls)
	}
	if r.Text() != "I'll check the weather" {
		t.Fatalf("Text() = %q", r.Text())
	}
	var nilResp *Response
	if nilResp.HasToolCalls() || nilResp.ToolCalls() != nil || nilResp.Text() != "" {
		t.Fatal("nil response")
	}
}

func TestResponseMessage(t *testing.T) {
	call := ToolCall{ID: "a", Name: "weather", Arguments: `{}`}
	think := Reasoning{Provider: "p", Text: "hmm"}
	tests := []struct {
		name string
		resp *Response
		want Message
	}{
		{"nil", nil, Message{Role: RoleAssistant}},
		{"no generations", &Response{}, Message{Role: RoleAssistant}},
		{"one generation kept whole, role set", &Response{Generations: []Generation{{Message: Message{Content: "hi", ToolCalls: []ToolCall{call}, Reasoning: []Reasoning{think}}}}},
			Message{Role: RoleAssistant, Content: "hi", ToolCalls: []ToolCall{call}, Reasoning: []Reasoning{think}}},
		{"split answer joined", &Response{Generations: []Generation{
			{Message: Message{Role: RoleAssistant, Content: "I'll check", Reasoning: []Reasoning{think}}},
			{Index: 1, Message: Assistant("", call)},
			{Index: 2, Message: Assistant("then answer", ToolCall{ID: "b", Name: "time"})},
		}}, Message{Role: RoleAssistant, Content: "I'll check\nthen answer", ToolCalls: []ToolCall{call, {ID: "b", Name: "time"}}, Reasoning: []Reasoning{think}}},
	}
	for _, tt := range tests {
		if got := tt.resp.Message(); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: Message() = %+v, want %+v", tt.name, got, tt.want)
		}
	}
}

func seq(chunks ...*Response) iter.Seq2[*Response, error] {
	return func(yield func(*Response, error) bool) {
		for _, c := range chunks {
			if !yield(c, nil) {
				return
			}
		}
	}
}

func gen(index int, m Message, fr FinishReason) *Response {
	return &Response{Generations: []Generation{{Index: index, Message: m, FinishReason: fr}}}
}

func TestAggregate(t *testing.T) {
	stream := seq(
		&Response{ID: "r1", Model: "m", Usage: Usage{InputTokens: 10}},
		gen(0, Message{Content: "Hel"}, ""),
		gen(1, Message{Content: "Other"}, ""),
		gen(0, Message{Content: "lo", ToolCalls: []ToolCall{{Index: 0, ID: "c1", Name: "weather", Arguments: `{"ci`}}}, ""),
		gen(0, Message{ToolCalls: []ToolCall{{Index: 1, ID: "c2", Name: "time", Arguments: `{}`}}}, ""),
		// A fragment for index 0 after index 1 started: joins call 0, not the last call.
		gen(0, Message{ToolCalls: []ToolCall{{Index: 0, Arguments: `ty":"Paris"}`}}}, ""),
		// Same index, different id: a new call.
		gen(0, Message{ToolCalls: []ToolCall{{Index: 1, ID: "c3", Name: "alarm", Arguments: `{"t":1}`}}}, ""),
		gen(0, Message{Reasoning: []Reasoning{{Provider: "anthropic", Text: "hmm", Signature: "sig"}}}, FinishToolCalls),
		gen(1, Message{}, FinishStop),
		&Response{Usage: Usage{OutputTokens: 5, TotalTokens: 15}},
		&Response{Usage: Usage{OutputTokens: 7, TotalTokens: 17}},
	)
	got, err := Aggregate(stream)
	if err != nil {
		t.Fatal(err)
	}
	want := &Response{
		ID: "r1", Model: "m",
		Usage: Usage{InputTokens: 10, OutputTokens: 7, TotalTokens: 17},
		Generations: []Generation{
			{Index: 0, FinishReason: FinishToolCalls, Message: Message{
				Role: RoleAssistant, Content: "Hello",
				ToolCalls: []ToolCall{
					{Index: 0, ID: "c1", Name: "weather", Arguments: `{"city":"Paris"}`},
					{Index: 1, ID: "c2", Name: "time", Arguments: `{}`},
					{Index: 1, ID: "c3", Name: "alarm", Arguments: `{"t":1}`},
				},
				Reasoning: []Reasoning{{Provider: "anthropic", Text: "hmm", Signature: "sig"}},
			}},
			{Index: 1, FinishReason: FinishStop, Message: Message{Role: RoleAssistant, Content: "Other"}},
		},
	}
	if !reflect.DeepEqual(got, want) {
		gj, _ := json.MarshalIndent(got, "", " ")
		wj, _ := json.MarshalIndent(want, "", " ")
		t.Fatalf("aggregate:\n got %s\nwant %s", gj, wj)
	}
}

func TestAggregateError(t *testing.T) {
	boom := errors.New("stream cut")
	stream := func(yield func(*Response, error) bool) {
		if !yield(gen(0, Message{Content: "partial"}, ""), nil) {
			return
		}
		yield(nil, boom)
	}
	got, err := Aggregate(stream)
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v", err)
	}
	if got.Text() != "partial" {
		t.Fatalf("partial text lost: %q", got.Text())
	}
}
