package openai

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/internal/providertest"
	"github.com/wield-ai/wield/provider"
	"github.com/wield-ai/wield/tool"
)

// BenchmarkStreamAggregate measures a whole recorded stream going through Stream (request built,
// SSE decoded by the SDK, chunks mapped) and chat.Aggregate, against the baseline of scanning the
// same bytes for SSE data lines. Both report MB/s of stream body.
func BenchmarkStreamAggregate(b *testing.B) {
	for _, bc := range []struct {
		name, api, rec string
		newM           func(cfg Config) (chat.Model, error)
	}{
		{"chat-text", "chat", "vercel-text-stream-gpt-4.1-nano", func(cfg Config) (chat.Model, error) { return New(cfg) }},
		{"chat-tool-call", "chat", "fantasy-tool-loop-streaming-gpt-4o", func(cfg Config) (chat.Model, error) { return New(cfg) }},
		{"responses-reasoning-tool-call", "responses", "vercel-reasoning-tool-loop-stream-gpt-5.1-codex-max", func(cfg Config) (chat.Model, error) { return NewResponses(cfg) }},
		// Hundreds of reasoning_content deltas (Z.ai), and reasoning_details fragments with an
		// encrypted entry (OpenRouter in front of Grok), joined into whole reasoning entries.
		{"chat-reasoning-content", "compatible", "fantasy-zai-reasoning-content-tool-loop-streaming-glm-4.7-flash", func(cfg Config) (chat.Model, error) { return New(cfg) }},
		{"chat-reasoning-details", "compatible", "fantasy-openrouter-reasoning-details-tool-loop-streaming-grok-4.1-fast", func(cfg Config) (chat.Model, error) { return New(cfg) }},
	} {
		body := providertest.Load(b, bc.api, bc.rec)[0].Body
		b.Run(bc.name+"/baseline-scan", func(b *testing.B) { providertest.BenchScan(b, body, providertest.ScanSSE, 0) })
		b.Run(bc.name+"/stream-aggregate", func(b *testing.B) {
			m, err := bc.newM(Config{BaseURL: "http://127.0.0.1:1/v1", APIKey: "k", Model: "m", Transport: provider.Transport{HTTPClient: providertest.MemoryClient("text/event-stream", body)}})
			if err != nil {
				b.Fatal(err)
			}
			p := &chat.Prompt{Messages: []chat.Message{chat.User("hi")}, Options: &chat.Options{Tools: nil}}
			providertest.BenchStream(b, body, m, p, func(r *chat.Response) error {
				if r.Text() == "" && !r.HasToolCalls() {
					return errors.New("empty answer")
				}
				if bc.api == "compatible" && len(r.Result().Message.Reasoning) == 0 {
					return errors.New("no reasoning")
				}
				return nil
			})
		})
	}
}

// BenchmarkRequest measures building one request of each API for a tool loop's second round:
// a conversation with a call, its result and reasoning, three tools with a forced choice, a
// structured-output schema and reasoning settings.
func BenchmarkRequest(b *testing.B) {
	tools := []tool.Tool{
		newTool("get_weather", "Weather in a city", `{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`),
		newTool("github.list.issues", "Open issues of a repository", `{"type":"object","properties":{"repo":{"type":"string"}}}`),
		newTool("send_email", "Send an email", `{"type":"object","properties":{"to":{"type":"string"},"body":{"type":"string"}}}`),
	}
	p := &chat.Prompt{
		Messages: []chat.Message{
			chat.System("You are brief."),
			chat.User("Weather in Florence, and mail it to Bob."),
			{Role: chat.RoleAssistant, Content: "Checking.", ToolCalls: []chat.ToolCall{{ID: "call_1", Name: "get_weather", Arguments: `{"city":"Florence"}`}},
				Reasoning: []chat.Reasoning{{Provider: "openai", ID: "rs_1", Text: "Call the tool.", Encrypted: "gAAAAB"}}},
			chat.ToolMessage(chat.ToolResult{ID: "call_1", Name: "get_weather", Content: "sunny, 24 C"}),
		},
		Options: &chat.Options{Tools: tools, ToolChoice: "send_email", MaxTokens: 500,
			ResponseFormat: &chat.ResponseFormat{Name: "mail", Schema: json.RawMessage(`{"type":"object","properties":{"sent":{"type":"boolean"}},"required":["sent"]}`)},
			Extra:          map[string]any{ExtraReasoningEffort: "low", ExtraReasoningSummary: "auto"}},
	}
	cfg := Config{BaseURL: "http://127.0.0.1:1/v1", APIKey: "k", Model: "gpt-5", Store: ptr(false)}
	chatModel, err := New(cfg)
	if err != nil {
		b.Fatal(err)
	}
	responsesModel, err := NewResponses(cfg)
	if err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct {
		name  string
		build func() error
	}{
		{"chat", func() error { _, err := chatModel.request(p, false); return err }},
		{"responses", func() error { _, err := responsesModel.request(p); return err }},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := bc.build(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
