package gemini

import (
	"context"
	"encoding/base64"
	"net/http"
	"strings"
	"testing"

	"google.golang.org/genai"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/content"
	"github.com/wield-ai/wield/internal/providertest"
	"github.com/wield-ai/wield/provider"
)

// TestSpecVariants: answers shaped as the Gemini API description allows but absent from the
// recordings (testdata/variants, written by hand) give the candidates, text, calls, reasoning,
// finish reasons and usage they carry, or the error they report.
func TestSpecVariants(t *testing.T) {
	msg := func(text string) chat.Message { return chat.Message{Role: chat.RoleAssistant, Content: text} }
	one := func(finish chat.FinishReason, m chat.Message) []chat.Generation {
		return []chat.Generation{{FinishReason: finish, Message: m}}
	}
	png := "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
	image := msg("Here is a dot:")
	image.Parts = []content.Part{content.Image(decodeB64(t, png), "image/png")}
	for _, tc := range []struct {
		file          string
		want          []chat.Generation
		input, output int
	}{
		// Two candidates interleaved; the first thinks, then calls twice without ids (ids are
		// made up, stable per response), the signature on the first call's part; usage comes
		// alone in the last chunk.
		{file: "candidates.sse", input: 20, output: 20, want: []chat.Generation{
			{FinishReason: chat.FinishToolCalls, Message: chat.Message{Role: chat.RoleAssistant,
				Reasoning: []chat.Reasoning{{Provider: providerName, Text: "Checking the weather."}},
				ToolCalls: []chat.ToolCall{
					{ID: syntheticIDPrefix + "resp-v1-0-0", Name: "weather", Arguments: `{"location":"Oslo"}`, Signature: "c2lnLTE="},
					{ID: syntheticIDPrefix + "resp-v1-0-1", Name: "weather", Arguments: `{"location":"Bergen"}`, Index: 1},
				}}},
			{Index: 1, FinishReason: chat.FinishStop, Message: msg("Oslo is cold.")},
		}},
		// Code execution's parts stay in Raw; the text around them is the answer.
		{file: "code-execution.json", input: 10, output: 30, want: one(chat.FinishStop, msg("Let me compute it.\n2 to the 10th is 1024."))},
		{file: "inline-image.json", input: 10, output: 300, want: one(chat.FinishStop, image)},
		{file: "safety.json", input: 10, want: one(chat.FinishContentFilter, msg(""))},
		{file: "safety.sse", input: 10, output: 1, want: one(chat.FinishContentFilter, msg("Some"))},
		{file: "recitation.json", input: 10, output: 4, want: one(chat.FinishContentFilter, msg("It was the best"))},
		{file: "malformed-function-call.json", input: 10, want: one(chat.FinishError, msg(""))},
		{file: "unexpected-tool-call.json", input: 10, want: one(chat.FinishError, msg(""))},
		// A blocked prompt has no candidate: the answer is empty, filtered.
		{file: "blocked-prompt.json", input: 10, want: one(chat.FinishContentFilter, msg(""))},
		{file: "blocked-prompt.sse", input: 10, want: one(chat.FinishContentFilter, msg(""))},
	} {
		t.Run(tc.file, func(t *testing.T) {
			got, err := runVariant(t, tc.file)
			if err != nil {
				t.Fatal(err)
			}
			providertest.Same(t, "the generations", got.Generations, tc.want)
			if got.Usage.InputTokens != tc.input || got.Usage.OutputTokens != tc.output {
				t.Errorf("usage %+v, want %d in and %d out", got.Usage, tc.input, tc.output)
			}
		})
	}
	t.Run("code-execution.json/raw", func(t *testing.T) {
		got, err := runVariant(t, "code-execution.json")
		if err != nil {
			t.Fatal(err)
		}
		raw, ok := got.Raw.(*genai.GenerateContentResponse)
		if !ok || raw.ExecutableCode() != "print(2 ** 10)" || raw.CodeExecutionResult() != "1024\n" {
			t.Errorf("Raw %T does not hold the executed code and its result", got.Raw)
		}
	})
	t.Run("stream-error.sse", func(t *testing.T) {
		got, err := runVariant(t, "stream-error.sse")
		providertest.VariantError(t, got, err, "a 503 UNAVAILABLE", func(pe *chat.ProviderError) bool {
			return pe.StatusCode == http.StatusServiceUnavailable && pe.Type == "UNAVAILABLE" && strings.Contains(pe.Message, "overloaded")
		})
	})
}

// runVariant answers a prompt with testdata/variants/file, streamed for an .sse file.
func runVariant(t *testing.T, file string) (*chat.Response, error) {
	t.Helper()
	return providertest.RunVariant(t, file, func(url string) (chat.Model, error) {
		return New(context.Background(), Config{BaseURL: url, APIKey: "test-key", Model: "gemini-2.5-flash", Transport: provider.Transport{MaxRetries: -1}})
	})
}

func decodeB64(t *testing.T, s string) []byte {
	t.Helper()
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
