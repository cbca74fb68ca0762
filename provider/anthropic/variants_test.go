package anthropic

import (
	"strings"
	"testing"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/internal/providertest"
	"github.com/wield-ai/wield/provider"
)

// TestSpecVariants: answers shaped as the Messages API reference documents them but absent from
// the recordings (testdata/variants, written by hand) give the text, calls, reasoning, finish
// reason and usage they carry, or the error they report. Server tools other than tool search
// (web search here) are left in Raw; their blocks must not disturb what is mapped.
func TestSpecVariants(t *testing.T) {
	blocks := chat.Generation{FinishReason: chat.FinishToolCalls, Message: chat.Message{Role: chat.RoleAssistant,
		Content: "It is -3 C in Oslo.",
		Reasoning: []chat.Reasoning{
			{Provider: ProviderName, Text: "The user wants the weather.", Signature: "EqQBCkgIARABGAIiQ"},
			{Provider: ProviderName, Encrypted: "EmwKAhgBEgy3va3pzix"},
		},
		// A tool with no arguments streams one empty input fragment: its input is {}.
		ToolCalls: []chat.ToolCall{{ID: "toolu_1", Name: "weather", Arguments: "{}"}}}}
	partial := func(finish chat.FinishReason) chat.Generation {
		return chat.Generation{FinishReason: finish, Message: chat.Message{Role: chat.RoleAssistant, Content: "Partial"}}
	}
	for _, tc := range []struct {
		file          string
		want          chat.Generation
		input, output int
	}{
		{file: "blocks.sse", want: blocks, input: 40, output: 60},
		{file: "blocks.json", want: blocks, input: 40, output: 60},
		// A refusal is a content filter; a context window exceeded cuts the answer as max_tokens
		// does; pause_turn, which asks the caller to send the turn back to go on, passes through.
		{file: "stop-refusal.sse", want: partial(chat.FinishContentFilter), input: 40, output: 2},
		{file: "stop-refusal.json", want: partial(chat.FinishContentFilter), input: 40, output: 2},
		{file: "stop-model_context_window_exceeded.sse", want: partial(chat.FinishLength), input: 40, output: 2},
		{file: "stop-model_context_window_exceeded.json", want: partial(chat.FinishLength), input: 40, output: 2},
		{file: "stop-pause_turn.sse", want: partial("pause_turn"), input: 40, output: 2},
		{file: "stop-pause_turn.json", want: partial("pause_turn"), input: 40, output: 2},
	} {
		t.Run(tc.file, func(t *testing.T) {
			got, err := runVariant(t, tc.file)
			if err != nil {
				t.Fatal(err)
			}
			providertest.Same(t, "the generation", providertest.OneGeneration(t, got), tc.want)
			if !strings.HasPrefix(got.ID, "msg_v") || got.Usage.InputTokens != tc.input || got.Usage.OutputTokens != tc.output {
				t.Errorf("id %q, usage %+v, want %d in and %d out", got.ID, got.Usage, tc.input, tc.output)
			}
		})
	}
	t.Run("error-event.sse", func(t *testing.T) {
		// An error event mid-stream ends it with the error, as an HTTP error would be, after the
		// text that came before it.
		got, err := runVariant(t, "error-event.sse")
		providertest.VariantError(t, got, err, "a temporary overloaded_error", func(pe *chat.ProviderError) bool {
			return pe.Type == "overloaded_error" && pe.Message == "Overloaded" && pe.Temporary()
		})
	})
}

// runVariant answers a prompt with testdata/variants/file, streamed for an .sse file.
func runVariant(t *testing.T, file string) (*chat.Response, error) {
	t.Helper()
	return providertest.RunVariant(t, file, func(url string) (chat.Model, error) {
		return New(Config{BaseURL: url, APIKey: "test-key", Model: "claude-sonnet-4-5", Transport: provider.Transport{MaxRetries: -1}})
	})
}
