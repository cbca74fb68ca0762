//go:build unix

package openai

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/content"
	"github.com/wield-ai/wield/internal/providertest"
	"github.com/wield-ai/wield/tool"
)

// TestMistralSteady checks the requests the Mistral model sends against Mistral's published
// OpenAPI description (testdata/mistral-openapi.yaml.gz), which refuses members it does not
// define: no recording of a request to api.mistral.ai with tools exists. Every shape wield
// produces must be valid: tools and tool choices, a history with other providers' tool-call
// ids and reasoning, sampling settings, structured output, streaming. An OpenAI-shaped request
// (stream_options, seed) is refused, which shows the check can fail.
func TestMistralSteady(t *testing.T) {
	url := providertest.StartSteady(t, "testdata/mistral-openapi.yaml.gz") + "/v1"
	rec := &providertest.Verdicts{}
	client := &http.Client{Transport: rec}
	weather, lcgo := weatherTool(), lcgoWeatherTool()
	tools := []tool.Tool{weather, lcgo, newTool("now", "The current time", `{"type":"object","properties":{}}`)}
	schema := json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"},"celsius":{"type":"number"}},"required":["city","celsius"]}`)
	history := []chat.Message{
		chat.System("You are a helpful assistant"),
		chat.User("What's the weather in Florence and Boston?"),
		{Role: chat.RoleAssistant, Content: "Let me check.", ToolCalls: []chat.ToolCall{
			{ID: "call_Z8ofZnYOCeOnpu0h2auwOgeR", Name: "weather", Arguments: `{"location":"Florence, Italy"}`},
			{ID: "get_weather:0", Name: "getCurrentWeather", Arguments: `{"location":"Boston, MA","unit":"celsius"}`},
		}, Reasoning: []chat.Reasoning{
			{Provider: ReasoningProvider(FieldReasoningContent), Text: "DeepSeek's thinking"},
			{Provider: "anthropic", Text: "Claude's thinking", Signature: "sig"},
		}},
		chat.ToolMessage(
			chat.ToolResult{ID: "call_Z8ofZnYOCeOnpu0h2auwOgeR", Name: "weather", Content: "40 C"},
			chat.ToolResult{ID: "get_weather:0", Content: "no such city", IsError: true},
		),
		chat.Assistant("", chat.ToolCall{Name: "now"}),
		chat.ToolMessage(chat.ToolResult{Name: "now", Content: "12:00"}),
		chat.Assistant("Florence: 40 C. Boston: unknown."),
		chat.User("Thanks. And the forecast?"),
	}
	png := []byte("\x89PNG\r\n\x1a\n")
	multimodal := []chat.Message{
		chat.User("Listen, read and look:", content.Audio([]byte("ID3\x04"), "audio/mpeg"), content.Image(png, "image/png"),
			content.ImageURL("https://example.com/chart.jpg"), content.DocumentURL("https://example.com/report.pdf", "application/pdf"),
			content.Document([]byte("a,b\n1,2\n"), "text/csv", "data.csv")),
		chat.Assistant("", chat.ToolCall{ID: "call_9", Name: "weather", Arguments: `{"location":"Florence"}`}),
		chat.ToolMessage(chat.ToolResult{ID: "call_9", Name: "weather", Content: "radar:", Parts: []content.Part{content.Image(png, "image/png")}}),
		{Role: chat.RoleAssistant, Content: "Here is the radar again:", Parts: []content.Part{content.Image(png, "image/png")}},
		chat.User("Thanks."),
	}
	for _, s := range []struct {
		name   string
		cfg    Config
		msgs   []chat.Message
		opts   *chat.Options
		stream bool
		valid  bool
	}{
		{name: "text", msgs: history[:2], opts: &chat.Options{Temperature: ptr(0.2), MaxTokens: 100}, valid: true},
		{name: "tools", msgs: history[:2], opts: &chat.Options{Tools: tools, ToolChoice: "weather", ParallelToolCalls: ptr(false)}, valid: true},
		{name: "tool choice required", msgs: history[:2], opts: &chat.Options{Tools: tools, ToolChoice: "required"}, valid: true},
		{name: "tool results of other providers", msgs: history, opts: &chat.Options{Tools: tools, ToolChoice: "auto"}, valid: true},
		{name: "sampling", msgs: history[:2], opts: &chat.Options{N: 2, Seed: ptr(int64(7)), TopP: ptr(0.5), Stop: []string{"END"}}, valid: true},
		{name: "structured output", cfg: Config{StrictTools: true}, msgs: history,
			opts: &chat.Options{Tools: tools, ResponseFormat: &chat.ResponseFormat{Name: "weather", Schema: schema, Strict: true}}, valid: true},
		{name: "json object", msgs: history[:2], opts: &chat.Options{ResponseFormat: &chat.ResponseFormat{}}, valid: true},
		{name: "streaming with tools", msgs: history, opts: &chat.Options{Tools: tools}, stream: true, valid: true},
		{name: "audio, images, documents and media in tool results and answers", msgs: multimodal, opts: &chat.Options{Tools: tools}, valid: true},
		{name: "OpenAI's shape is refused", msgs: history[:2], opts: &chat.Options{Extra: map[string]any{
			ExtraBody: map[string]any{"seed": 7, "stream_options": map[string]any{"include_usage": true}}}}, valid: false},
	} {
		t.Run(s.name, func(t *testing.T) {
			cfg := s.cfg
			cfg.BaseURL, cfg.APIKey, cfg.Model, cfg.HTTPClient, cfg.MaxRetries = url, "k", "mistral-small-latest", client, -1
			m, err := NewMistral(cfg)
			if err != nil {
				t.Fatal(err)
			}
			v := rec.Send(t, m, &chat.Prompt{Messages: s.msgs, Options: s.opts}, s.stream)
			if v.Path != "/v1/chat/completions" {
				t.Fatalf("request to %s", v.Path)
			}
			if v.Valid() != s.valid {
				t.Fatalf("steady's verdict %v (HTTP %d), want %v:%s\nrequest: %s", v.Valid(), v.Status, s.valid, v.Rules(), v.Request)
			}
			if !s.valid && !strings.Contains(v.Rules(), "seed") && !strings.Contains(v.Rules(), "stream_options") {
				t.Fatalf("refused for another reason:%s", v.Rules())
			}
		})
	}
}
