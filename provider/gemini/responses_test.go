package gemini

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/internal/replay"
)

// TestRecordedResponses reads the response-only recordings (Gemini 3 function calls with long
// thought signatures, streamed and not) and checks every field against the recorded bytes.
func TestRecordedResponses(t *testing.T) {
	for _, tc := range []struct {
		dir    string
		stream bool
	}{
		{"vercel-tool-call-gemini-3-pro-preview", false},
		{"vercel-tool-call-gemini3-gemini-3-pro-preview", false},
		{"vercel-tool-call-stream-gemini-3-pro-preview", true},
		{"vercel-tool-call-gemini3-stream-gemini-3-pro-preview", true},
	} {
		t.Run(tc.dir, func(t *testing.T) {
			exs := load(t, tc.dir)
			srv := replay.NewServer(t, exs...)
			m, _ := newTestModel(t, srv, Config{Model: "gemini-3-pro-preview"})
			p := &chat.Prompt{Messages: []chat.Message{chat.User("What is the weather in San Francisco?")}}
			var resp *chat.Response
			var err error
			if tc.stream {
				resp, err = chat.Aggregate(m.Stream(context.Background(), p))
			} else {
				resp, err = m.Call(context.Background(), p)
			}
			if err != nil {
				t.Fatal(err)
			}
			rec := parseRecorded(t, exs[0])
			rec.check(t, resp)
			if rec.Calls[0].Signature == "" || resp.ToolCalls()[0].Signature != rec.Calls[0].Signature {
				t.Fatal("thought signature not kept")
			}
			if resp.Generations[0].FinishReason != chat.FinishToolCalls {
				t.Errorf("finish %q", resp.Generations[0].FinishReason)
			}
		})
	}
}

// TestVertexStreamedArguments reads Vertex AI's streamed function-call arguments
// (partialArgs/willContinue): two calls whose arguments arrive in pieces are yielded whole, each
// once, with the signature of the first part.
func TestVertexStreamedArguments(t *testing.T) {
	exs := load(t, "vercel-vertex-partial-args-stream-gemini-3.1-pro-preview")
	srv := replay.NewServer(t, exs...)
	m, _ := newTestModel(t, srv, Config{Model: "gemini-3.1-pro-preview"})
	var chunks, withCalls int
	var agg chat.Aggregator
	for chunk, err := range m.Stream(context.Background(), &chat.Prompt{Messages: []chat.Message{chat.User("weather in Boston and San Francisco?")}}) {
		if err != nil {
			t.Fatal(err)
		}
		chunks++
		if chunk.HasToolCalls() {
			withCalls++
		}
		agg.Add(chunk)
	}
	resp := agg.Response()
	calls := resp.ToolCalls()
	if chunks != 8 || withCalls != 2 || len(calls) != 2 {
		t.Fatalf("%d chunks, %d with calls, calls %+v", chunks, withCalls, calls)
	}
	var sig string
	for _, data := range replay.SSEData(exs[0].Body) {
		var v struct {
			Candidates []struct {
				Content struct {
					Parts []struct {
						ThoughtSignature string `json:"thoughtSignature"`
					} `json:"parts"`
				} `json:"content"`
			} `json:"candidates"`
		}
		if err := json.Unmarshal(data, &v); err != nil {
			t.Fatal(err)
		}
		if s := v.Candidates[0].Content.Parts[0].ThoughtSignature; s != "" && sig == "" {
			sig = s
		}
	}
	want := []chat.ToolCall{
		{Index: 0, ID: calls[0].ID, Name: "getWeather", Arguments: `{"location":"Boston"}`, Signature: sig},
		{Index: 1, ID: calls[1].ID, Name: "getWeather", Arguments: `{"location":"San Francisco"}`},
	}
	if sig == "" || !reflect.DeepEqual(calls, want) {
		t.Fatalf("calls %+v\nwant %+v", calls, want)
	}
	if calls[0].ID == calls[1].ID || calls[0].ID == "" {
		t.Fatalf("ids %q %q", calls[0].ID, calls[1].ID)
	}
	if g := resp.Generations[0]; g.FinishReason != chat.FinishToolCalls {
		t.Fatalf("finish %q", g.FinishReason)
	}
	if resp.Usage != (chat.Usage{InputTokens: 26, OutputTokens: 23 + 132, TotalTokens: 181, ReasoningTokens: 132}) {
		t.Fatalf("usage %+v", resp.Usage)
	}
}

func TestParseJSONPath(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want []any
	}{
		{"$.location", []any{"location"}},
		{"$.a.b[2].c", []any{"a", "b", 2, "c"}},
		{"$['odd key'][0]", []any{"odd key", 0}},
		{"$", nil},
	} {
		if got := parseJSONPath(tt.in); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("parseJSONPath(%q) = %#v, want %#v", tt.in, got, tt.want)
		}
	}
}
