package anthropic

import (
	"testing"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/chat/modeltest"
	"github.com/wield-ai/wield/content"
	"github.com/wield-ai/wield/internal/providertest"
	"github.com/wield-ai/wield/internal/replay"
)

// TestConformance runs the public model kit on the recorded Messages API traffic. No recording
// holds parallel calls; their answers are variants written from the API reference.
func TestConformance(t *testing.T) {
	providertest.Conformance{
		New: func(t testing.TB, url string) chat.Model {
			return newTestModel(t, url, Config{Model: "claude-sonnet-4-20250514", MaxTokens: 1024})
		},
		Answer: func(t testing.TB, c modeltest.Case, stream bool) (replay.Exchange, bool) {
			switch c {
			case modeltest.Text:
				return providertest.CallOrStream(t, stream, "lcgo-text-claude-3-opus", "lcgo-text-stream-claude-3-opus")
			case modeltest.ToolCall:
				return providertest.CallOrStream(t, stream, "fantasy-tool-loop-claude-sonnet-4", "fantasy-tool-loop-streaming-claude-sonnet-4")
			case modeltest.ParallelCalls:
				return providertest.VariantOrStream(t, stream, "parallel-tool-use.json", "parallel-tool-use.sse")
			case modeltest.Failure:
				return providertest.JSONError(400, `{"type":"error","error":{"type":"invalid_request_error","message":"messages: at least one message is required"}}`), true
			}
			return replay.Exchange{}, false
		},
		Refused: []content.Part{content.Audio([]byte("RIFF\x24\x00\x00\x00WAVEfmt "), "audio/wav")},
	}.Run(t)
}
