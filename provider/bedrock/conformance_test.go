package bedrock

import (
	"testing"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/chat/modeltest"
	"github.com/wield-ai/wield/content"
	"github.com/wield-ai/wield/internal/providertest"
	"github.com/wield-ai/wield/internal/replay"
	"github.com/wield-ai/wield/tool"
)

// TestConformance runs the public model kit on the recorded Converse traffic. No streamed
// recording ends in text alone and none holds parallel calls; the kit skips those.
func TestConformance(t *testing.T) {
	providertest.Conformance{
		New: func(t testing.TB, url string) chat.Model { return newTestModel(t, url, Config{}) },
		Answer: func(t testing.TB, c modeltest.Case, stream bool) (replay.Exchange, bool) {
			switch {
			case c == modeltest.Text && !stream:
				return providertest.Recording(t, "converse/lcgo-converse-tool-loop-nova-2-lite", 2), true
			case c == modeltest.ToolCall:
				return providertest.CallOrStream(t, stream, "converse/lcgo-converse-tool-loop-nova-2-lite", "converse/openllmetry-converse-stream-tool-use-claude-3-sonnet")
			case c == modeltest.Failure:
				return providertest.JSONError(400, `{"message":"The provided model identifier is invalid."}`, "X-Amzn-ErrorType", "ValidationException:http://internal.amazon.com/coral/com.amazon.bedrock/"), true
			}
			return replay.Exchange{}, false
		},
		Prompt: func(c modeltest.Case) *chat.Prompt {
			if c != modeltest.ToolCall {
				return nil
			}
			calc := providertest.RawTool{Name: "calculator", Description: "Evaluates an arithmetic expression.", InputSchema: []byte(`{"type":"object","properties":{"expression":{"type":"string"}}}`)}
			return &chat.Prompt{Messages: []chat.Message{chat.User("What is 15 * 8? And the weather in Barcelona?")}, Options: &chat.Options{Tools: []tool.Tool{calc, weatherTool()}}}
		},
		Refused: []content.Part{content.Image([]byte("II*\x00"), "image/tiff")},
	}.Run(t)
}
