package ollama

import (
	"testing"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/chat/modeltest"
	"github.com/wield-ai/wield/content"
	"github.com/wield-ai/wield/internal/providertest"
	"github.com/wield-ai/wield/internal/replay"
	"github.com/wield-ai/wield/tool"
)

// TestConformance runs the public model kit on the recorded Ollama traffic. No recording holds
// parallel calls, which the kit then skips.
func TestConformance(t *testing.T) {
	providertest.Conformance{
		New: func(t testing.TB, url string) chat.Model {
			m, err := New(Config{BaseURL: url, Model: "llama3.2"})
			if err != nil {
				t.Fatal(err)
			}
			return m
		},
		Answer: func(t testing.TB, c modeltest.Case, stream bool) (replay.Exchange, bool) {
			// load compacts the documentation's pretty-printed answers, as the server sends them.
			switch {
			case c == modeltest.Text && stream:
				return load(t, "lcgo-text-stream-gemma3-1b")[0], true
			case c == modeltest.Text:
				return load(t, "docs-tool-result-followup-llama3.2")[0], true
			case c == modeltest.ToolCall && stream:
				return load(t, "docs-tool-call-stream-llama3.2")[0], true
			case c == modeltest.ToolCall:
				return load(t, "docs-tool-call-llama3.2")[0], true
			case c == modeltest.Failure:
				return providertest.Recording(t, "lcgo-tools-unsupported-error-gemma3-1b", 1), true
			}
			return replay.Exchange{}, false
		},
		Prompt: func(c modeltest.Case) *chat.Prompt {
			if c != modeltest.ToolCall {
				return nil
			}
			weather := providertest.RawTool{Name: "get_weather", Description: "Get the weather in a city.", InputSchema: []byte(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`)}
			return &chat.Prompt{Messages: []chat.Message{chat.User("What is the weather in Toronto?")}, Options: &chat.Options{Tools: []tool.Tool{weather}}}
		},
		Refused: []content.Part{content.Audio([]byte("RIFF\x24\x00\x00\x00WAVEfmt "), "audio/wav")},
	}.Run(t)
}
