package gemini

import (
	"context"
	"net/http"
	"testing"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/chat/modeltest"
	"github.com/wield-ai/wield/content"
	"github.com/wield-ai/wield/internal/providertest"
	"github.com/wield-ai/wield/internal/replay"
	"github.com/wield-ai/wield/tool"
)

// TestConformance runs the public model kit on the recorded Gemini API traffic. The parallel
// calls were recorded streamed; their called answer is the stream's one event, which is a whole
// generateContent answer.
func TestConformance(t *testing.T) {
	providertest.Conformance{
		New: func(t testing.TB, url string) chat.Model {
			m, err := New(context.Background(), Config{APIKey: "k", BaseURL: url})
			if err != nil {
				t.Fatal(err)
			}
			return m
		},
		Answer: func(t testing.TB, c modeltest.Case, stream bool) (replay.Exchange, bool) {
			switch c {
			case modeltest.Text:
				if stream {
					return providertest.Recording(t, "adk-text-stream-gemini-2.5-flash", 1), true
				}
				return providertest.Recording(t, "fantasy-tool-loop-gemini-2.5-flash", 2), true
			case modeltest.ToolCall:
				return providertest.CallOrStream(t, stream, "fantasy-tool-loop-gemini-2.5-flash", "fantasy-tool-loop-streaming-gemini-2.5-flash")
			case modeltest.ParallelCalls:
				ex := providertest.Recording(t, "adk-parallel-function-calls-stream-gemini-2.5-flash", 1)
				if stream {
					return ex, true
				}
				events := replay.SSEData(ex.Body)
				if len(events) != 1 {
					t.Fatalf("the parallel calls' stream has %d events, want 1", len(events))
				}
				return replay.Exchange{Header: http.Header{"Content-Type": {"application/json"}}, Body: events[0]}, true
			case modeltest.Failure:
				return providertest.JSONError(400, `{"error":{"code":400,"message":"* GenerateContentRequest.contents: contents is not specified","status":"INVALID_ARGUMENT"}}`), true
			}
			return replay.Exchange{}, false
		},
		Prompt: func(c modeltest.Case) *chat.Prompt {
			if c != modeltest.ParallelCalls {
				return nil
			}
			sum := providertest.RawTool{Name: "sum", Description: "Adds two numbers.", InputSchema: []byte(`{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"}}}`)}
			return &chat.Prompt{Messages: []chat.Message{chat.User("What are 2+3, 4+5 and 6+7?")}, Options: &chat.Options{Tools: []tool.Tool{sum}}}
		},
		Refused: []content.Part{{Kind: content.KindDocument, URL: "gs://bucket/report"}},
	}.Run(t)
}
