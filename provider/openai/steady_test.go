//go:build unix

package openai

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/content"
	"github.com/wield-ai/wield/internal/providertest"
	"github.com/wield-ai/wield/provider"
	"github.com/wield-ai/wield/tool"
)

// startSteady runs steady on OpenAI's official spec (testdata/openai-openapi.yaml.gz) and
// returns its URL. Paths have no /v1 there, which also shows the base URL is used as given.
func startSteady(t *testing.T) string {
	t.Helper()
	return providertest.StartSteady(t, "testdata/openai-openapi.yaml.gz")
}

// TestSteadyValidation sends Chat Completions and Responses requests of every shape wield
// produces (tools, tool results, reasoning items, strict mode, structured output, streaming) to
// steady, which checks them against OpenAI's OpenAPI spec and answers 400 naming the violated
// rule; the test reports that rule. steady's answers are mock data: only the verdict counts.
func TestSteadyValidation(t *testing.T) {
	url := startSteady(t)
	rec := &providertest.Verdicts{}
	client := &http.Client{Transport: rec}

	weather, lcgo, forecast := weatherTool(), lcgoWeatherTool(), forecastTool()
	noArgs := newTool("now", "The current time", `{"type":"object","properties":{}}`)
	recursive := newTool("tree", "Store a tree", `{"type":"object","$defs":{"node":{"type":"object","properties":{"name":{"type":"string"},"children":{"type":"array","items":{"$ref":"#/$defs/node"}}},"required":["name"]}},"properties":{"root":{"$ref":"#/$defs/node"}},"required":["root"]}`)
	tools := []tool.Tool{weather, lcgo, forecast, noArgs, recursive}
	schema := json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"},"celsius":{"type":"number"},"note":{"type":"string"}},"required":["city","celsius"]}`)

	history := []chat.Message{
		chat.System("You are a helpful assistant"),
		chat.User("What's the weather in Florence and Boston?"),
		{Role: chat.RoleAssistant, Content: "Let me check.", ToolCalls: []chat.ToolCall{
			{ID: "call_1", Name: "weather", Arguments: `{"location":"Florence, Italy"}`},
			{ID: "call_2", Name: "getCurrentWeather", Arguments: `{"location":"Boston, MA","unit":"celsius"}`},
		}, Reasoning: []chat.Reasoning{
			{Provider: "openai", ID: "rs_1", Text: "**Checking two cities**", Encrypted: "gAAAAABencrypted"},
			{Provider: "openai", ID: "rs_1", Text: "I will call both tools."},
			{Provider: "openai", ID: "fc_1", Signature: "call_1"},
			{Provider: "openai", ID: "fc_2", Signature: "call_2"},
			{Provider: "anthropic", Text: "not sent", Signature: "sig"},
		}},
		chat.ToolMessage(
			chat.ToolResult{ID: "call_1", Name: "weather", Content: "40 C"},
			chat.ToolResult{ID: "call_2", Name: "getCurrentWeather", Content: "no such city", IsError: true},
		),
		chat.Assistant("", chat.ToolCall{Name: "now"}),
		chat.ToolMessage(chat.ToolResult{Name: "now", Content: "12:00"}),
		chat.Assistant("Florence: 40 C. Boston: unknown."),
		chat.User("Thanks. And the forecast?"),
	}
	responsesHistory := append([]chat.Message(nil), history[:4]...)
	responsesHistory = append(responsesHistory, chat.Assistant("Florence: 40 C. Boston: unknown."), chat.User("Thanks. And the forecast?"))

	png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
	pdf := []byte("%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
	multimodal := []chat.Message{
		chat.System("You are a helpful assistant"),
		chat.User("Compare these:", content.Image(png, "image/png"), content.ImageURL("https://example.com/chart.jpg"),
			content.Document(pdf, "application/pdf", "report.pdf"), content.Document([]byte("a,b\n1,2\n"), "text/csv", "data.csv")),
		chat.Assistant("", chat.ToolCall{ID: "call_9", Name: "weather", Arguments: `{"location":"Florence"}`}),
		chat.ToolMessage(chat.ToolResult{ID: "call_9", Name: "weather", Content: "radar:", Parts: []content.Part{
			content.Image(png, "image/png"), content.Document(pdf, "application/pdf", "radar.pdf")}}),
	}
	audio := []chat.Message{chat.User("Transcribe this:", content.Audio([]byte("RIFF\x24\x00\x00\x00WAVEfmt "), "audio/wav"), content.Audio([]byte("ID3\x04"), "audio/mpeg"))}
	// An answer with media: images the Responses API generated (their item id kept), an image
	// of another provider's, audio Chat Completions generated, signed text parts.
	generated, ownAudio, signed := answerMedia(png, " and a chart")
	answers := []chat.Message{
		chat.User("Draw the weather."),
		{Role: chat.RoleAssistant, Content: "A drawing", Parts: []content.Part{signed, generated, content.Image(png, "image/png"), ownAudio},
			ToolCalls: []chat.ToolCall{{ID: "call_9", Name: "weather", Arguments: `{"location":"Florence"}`}}},
		chat.ToolMessage(chat.ToolResult{ID: "call_9", Name: "weather", Content: "radar:", Parts: []content.Part{content.Image(png, "image/png")}}),
		{Role: chat.RoleAssistant, Content: "Here it is.", Parts: []content.Part{generated}},
		chat.User("Thanks."),
	}
	fileURL := []chat.Message{chat.User("Summarise:", content.DocumentURL("https://example.com/report.pdf", "application/pdf"))}

	type shape struct {
		name   string
		cfg    Config
		msgs   []chat.Message
		opts   *chat.Options
		stream bool
	}
	chatShapes := []shape{
		{name: "text", cfg: Config{MaxTokensField: "max_completion_tokens"}, msgs: history[:2], opts: &chat.Options{Temperature: ptr(0.2), MaxTokens: 100}},
		{name: "tools", msgs: history[:2], opts: &chat.Options{Tools: tools, ToolChoice: "weather", ParallelToolCalls: ptr(false), MaxTokens: 100}},
		{name: "tool choice required", msgs: history[:2], opts: &chat.Options{Tools: tools, ToolChoice: "required"}},
		{name: "tool results", msgs: history, opts: &chat.Options{Tools: tools, ToolChoice: "auto"}},
		{name: "strict tools and structured output", cfg: Config{StrictTools: true}, msgs: history,
			opts: &chat.Options{Tools: tools, ResponseFormat: &chat.ResponseFormat{Name: "weather", Schema: schema, Strict: true}}},
		{name: "json object", msgs: history[:2], opts: &chat.Options{ResponseFormat: &chat.ResponseFormat{}}},
		{name: "sampling and generations", msgs: history[:2], opts: &chat.Options{N: 2, Seed: ptr(int64(1)), TopP: ptr(0.5), Stop: []string{"END"},
			Extra: map[string]any{ExtraReasoningEffort: "low", ExtraStore: false}}},
		{name: "streaming with tools", msgs: history, opts: &chat.Options{Tools: tools}, stream: true},
		{name: "streaming strict", cfg: Config{StrictTools: true}, msgs: history[:2], opts: &chat.Options{Tools: tools, N: 2}, stream: true},
		{name: "images, files and media in tool results", msgs: multimodal, opts: &chat.Options{Tools: tools}},
		{name: "audio", msgs: audio, opts: &chat.Options{}},
		{name: "answers with media", msgs: answers, opts: &chat.Options{Tools: tools}},
	}
	responsesShapes := []shape{
		{name: "text", msgs: history[:2], opts: &chat.Options{Temperature: ptr(0.2), TopP: ptr(0.9), MaxTokens: 100}},
		{name: "tools", msgs: history[:2], opts: &chat.Options{Tools: tools, ToolChoice: "weather", ParallelToolCalls: ptr(true)}},
		{name: "tool choice required", msgs: history[:2], opts: &chat.Options{Tools: tools, ToolChoice: "required"}},
		{name: "tool results and stored reasoning", msgs: responsesHistory, opts: &chat.Options{Tools: tools}},
		{name: "encrypted reasoning, not stored", cfg: Config{Store: ptr(false)}, msgs: responsesHistory,
			opts: &chat.Options{Tools: tools, Extra: map[string]any{ExtraReasoningEffort: "high", ExtraReasoningSummary: "auto"}}},
		{name: "strict tools and structured output", cfg: Config{StrictTools: true}, msgs: responsesHistory,
			opts: &chat.Options{Tools: tools, ResponseFormat: &chat.ResponseFormat{Name: "weather", Schema: schema, Strict: true}}},
		{name: "json object", msgs: history[:2], opts: &chat.Options{ResponseFormat: &chat.ResponseFormat{}}},
		{name: "streaming with tools", cfg: Config{Store: ptr(false)}, msgs: responsesHistory, opts: &chat.Options{Tools: tools}, stream: true},
		{name: "images, files and media in function outputs", msgs: multimodal, opts: &chat.Options{Tools: tools}},
		{name: "file URL", msgs: fileURL, opts: &chat.Options{}},
		{name: "answers with media and generated images", msgs: answers, opts: &chat.Options{Tools: tools}},
	}
	for _, api := range []struct {
		name, path string
		shapes     []shape
		newM       func(cfg Config) (chat.Model, error)
	}{
		{"chat", "/chat/completions", chatShapes, func(cfg Config) (chat.Model, error) { return New(cfg) }},
		{"responses", "/responses", responsesShapes, func(cfg Config) (chat.Model, error) { return NewResponses(cfg) }},
	} {
		for _, s := range api.shapes {
			t.Run(api.name+"/"+s.name, func(t *testing.T) {
				cfg := s.cfg
				cfg.BaseURL, cfg.APIKey, cfg.Model, cfg.HTTPClient, cfg.MaxRetries = url, "sk-test", "gpt-5", client, -1
				m, err := api.newM(cfg)
				if err != nil {
					t.Fatal(err)
				}
				// steady answers streaming requests with JSON too: only its verdict counts.
				rec.Send(t, m, &chat.Prompt{Messages: s.msgs, Options: s.opts}, s.stream).Accepted(t, api.path)
			})
		}
	}

	// The check itself: an invalid request is rejected with the rule it breaks.
	t.Run("invalid request is reported", func(t *testing.T) {
		m, err := New(Config{BaseURL: url, APIKey: "k", Model: "gpt-5", Transport: provider.Transport{HTTPClient: client, MaxRetries: -1}})
		if err != nil {
			t.Fatal(err)
		}
		_, err = m.Call(context.Background(), &chat.Prompt{Messages: history[:2], Options: &chat.Options{
			Extra: map[string]any{ExtraBody: map[string]any{"temperature": "hot"}}}})
		v := rec.Take()[0]
		if v.Status != http.StatusBadRequest || !strings.Contains(v.Rules(), "temperature") {
			t.Fatalf("steady accepted a string temperature: HTTP %d %s", v.Status, v.Body)
		}
		var pe *chat.ProviderError
		if !errors.As(err, &pe) || pe.StatusCode != 400 || pe.Message == "" {
			t.Fatalf("error = %v", err)
		}
	})
}
