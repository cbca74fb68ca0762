package openai

import (
	"testing"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/chat/modeltest"
	"github.com/wield-ai/wield/content"
	"github.com/wield-ai/wield/internal/providertest"
	"github.com/wield-ai/wield/internal/replay"
)

// TestConformance runs the public model kit on the recorded traffic of both APIs, Chat
// Completions and Responses. No recording holds parallel calls; those of Chat Completions are a
// variant written from the OpenAPI description, and the Responses API skips them.
func TestConformance(t *testing.T) {
	for _, api := range apis {
		t.Run(api.name, func(t *testing.T) {
			providertest.Conformance{
				New: func(t testing.TB, url string) chat.Model { return api.newM(t, url, Config{Model: "gpt-4o"}) },
				Answer: func(t testing.TB, c modeltest.Case, stream bool) (replay.Exchange, bool) {
					dir := api.name + "/"
					switch c {
					case modeltest.Text:
						return providertest.CallOrStream(t, stream, dir+"fantasy-text-gpt-4o", dir+"fantasy-text-stream-gpt-4o")
					case modeltest.ToolCall:
						return providertest.CallOrStream(t, stream, dir+"fantasy-tool-loop-gpt-4o", dir+"fantasy-tool-loop-streaming-gpt-4o")
					case modeltest.ParallelCalls:
						if api.name != "chat" {
							return replay.Exchange{}, false
						}
						return providertest.VariantOrStream(t, stream, "chat-parallel-tool-calls.json", "chat-parallel-tool-calls.sse")
					case modeltest.Failure:
						return providertest.JSONError(400, `{"error":{"message":"Missing required parameter: 'messages'.","type":"invalid_request_error","param":"messages","code":"missing_required_parameter"}}`), true
					}
					return replay.Exchange{}, false
				},
				Refused: []content.Part{content.Audio([]byte("OggS\x00\x02"), "audio/ogg")},
			}.Run(t)
		})
	}
}
