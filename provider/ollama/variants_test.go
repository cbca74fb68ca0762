package ollama

import (
	"context"
	"strings"
	"testing"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/internal/providertest"
	"github.com/wield-ai/wield/provider"
)

// TestSpecVariants: answers shaped as Ollama's API documentation allows but absent from the
// recordings (testdata/variants, written by hand) give the text, calls, thinking, finish reason
// and usage they carry, or the error they report, called and streamed.
func TestSpecVariants(t *testing.T) {
	msg := func(text string) chat.Message { return chat.Message{Role: chat.RoleAssistant, Content: text} }
	for _, tc := range []struct {
		file          string
		finish        chat.FinishReason
		want          chat.Message
		input, output int
	}{
		// Thinking across lines comes as one reasoning item; arguments come as objects; a call
		// without an id is given one.
		{file: "thinking-tool-calls.ndjson", finish: chat.FinishToolCalls, input: 25, output: 30, want: chat.Message{Role: chat.RoleAssistant,
			Reasoning: []chat.Reasoning{{Provider: providerName, Text: "The user wants the weather."}},
			ToolCalls: []chat.ToolCall{
				{ID: "call_x1", Name: "weather", Arguments: `{"location":"Oslo","days":2}`},
				{ID: "made up", Name: "time", Arguments: "{}", Index: 1},
			}}},
		{file: "length.ndjson", finish: chat.FinishLength, input: 8, output: 2, want: msg("Once upon")},
		{file: "thinking-only.ndjson", finish: chat.FinishStop, input: 8, output: 3, want: chat.Message{Role: chat.RoleAssistant,
			Reasoning: []chat.Reasoning{{Provider: providerName, Text: "Hmm."}}}},
	} {
		for _, stream := range []bool{false, true} {
			name := tc.file + "/call"
			if stream {
				name = tc.file + "/stream"
			}
			t.Run(name, func(t *testing.T) {
				got, err := runVariant(t, tc.file, stream)
				if err != nil {
					t.Fatal(err)
				}
				g := providertest.OneGeneration(t, got)
				for i, c := range g.Message.ToolCalls {
					if tc.want.ToolCalls[i].ID == "made up" && strings.HasPrefix(c.ID, syntheticIDPrefix) {
						g.Message.ToolCalls[i].ID = "made up"
					}
				}
				providertest.Same(t, "the generation", g, chat.Generation{FinishReason: tc.finish, Message: tc.want})
				if got.Usage.InputTokens != tc.input || got.Usage.OutputTokens != tc.output {
					t.Errorf("usage %+v, want %d in and %d out", got.Usage, tc.input, tc.output)
				}
			})
		}
	}
	t.Run("error-line.ndjson", func(t *testing.T) {
		// An error line after a 200 ends the answer with its text, after what came before it.
		got, err := runVariant(t, "error-line.ndjson", true)
		providertest.VariantError(t, got, err, "the error line's", func(err error) bool {
			return strings.Contains(err.Error(), "an error was encountered while running the model: unexpected EOF")
		})
	})
}

// runVariant answers a prompt with testdata/variants/file.
func runVariant(t *testing.T, file string, stream bool) (*chat.Response, error) {
	t.Helper()
	url, _ := providertest.Variant(t, file) // served as a stream; called, Ollama reads its one line
	m, err := New(Config{BaseURL: url, Model: "qwen3", Transport: provider.Transport{MaxRetries: -1}})
	if err != nil {
		t.Fatal(err)
	}
	return providertest.Run(context.Background(), m, &chat.Prompt{Messages: []chat.Message{chat.User("Weather in Oslo?")}}, stream)
}
