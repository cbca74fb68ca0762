//go:build unix

package ollama

import (
	"context"
	"fmt"
	"net/http"
	"path/filepath"
	"testing"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/content"
	"github.com/wield-ai/wield/internal/providertest"
	"github.com/wield-ai/wield/provider"
	"github.com/wield-ai/wield/tool"
)

// startSteady runs steady on Ollama's official OpenAPI description and returns its base URL.
func startSteady(t *testing.T) string {
	t.Helper()
	spec, err := filepath.Abs(filepath.Join("testdata", "spec", "ollama-openapi.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return providertest.StartSteady(t, spec)
}

// TestSteadyAcceptsRequests validates wield's /api/chat requests against Ollama's official
// OpenAPI description: with tools, with a tool loop's history (assistant tool_calls, tool
// results with tool_name), thinking, a response format and options, streamed and not.
func TestSteadyAcceptsRequests(t *testing.T) {
	base := startSteady(t)
	v := &providertest.Verdicts{}
	m, err := New(Config{BaseURL: base, Model: "llama3.2", Transport: provider.Transport{MaxRetries: -1, HTTPClient: &http.Client{Transport: v}}})
	if err != nil {
		t.Fatal(err)
	}
	tools := []tool.Tool{weatherTool(t), providertest.Tool(t, "getTime", "Get the current time.", func(context.Context, struct{}) (string, error) {
		return "12:00", nil
	})}
	loop := []chat.Message{
		chat.System("Answer briefly."),
		chat.User("what is the weather in Toronto?"),
		{Role: chat.RoleAssistant, Reasoning: []chat.Reasoning{{Provider: "ollama", Text: "I need the weather tool."}},
			ToolCalls: []chat.ToolCall{
				{ID: "call_1", Name: "get_weather", Arguments: `{"city":"Toronto"}`},
				{ID: syntheticIDPrefix + "x-1", Name: "getTime", Arguments: `{}`, Index: 1},
			}},
		chat.ToolMessage(
			chat.ToolResult{ID: "call_1", Name: "get_weather", Content: "11 degrees celsius"},
			chat.ToolResult{ID: syntheticIDPrefix + "x-1", Name: "getTime", Content: "clock broken", IsError: true}),
	}
	prompts := map[string]*chat.Prompt{
		"tools": {Messages: []chat.Message{chat.User("what is the weather in tokyo?")}, Options: &chat.Options{Tools: tools}},
		"tool results": {Messages: loop, Options: &chat.Options{Tools: tools, Temperature: chat.Ptr(0.2), MaxTokens: 100,
			Stop: []string{"\n\n"}, Seed: chat.Ptr(int64(7)), TopP: chat.Ptr(0.9),
			Extra: map[string]any{ExtraThink: "low", ExtraKeepAlive: "5m", ExtraOptions: map[string]any{"num_ctx": 4096, "top_k": 40}}}},
		"response format": {Messages: []chat.Message{chat.User("capital of France?")}, Options: &chat.Options{
			ResponseFormat: &chat.ResponseFormat{Schema: []byte(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`)},
			Extra:          map[string]any{ExtraThink: true}}},
		"json format": {Messages: []chat.Message{chat.User("capital of France?")}, Options: &chat.Options{ResponseFormat: &chat.ResponseFormat{}}},
		"images and a text document": {Messages: []chat.Message{
			{Role: chat.RoleSystem, Content: "Compare with this logo:", Parts: []content.Part{content.Image([]byte("\x89PNG\r\n\x1a\n"), "image/png")}},
			chat.User("what is in these?", content.Image([]byte("\x89PNG\r\n\x1a\n"), "image/png"), content.Document([]byte("a,b"), "text/csv", "d.csv")),
			chat.Assistant("", chat.ToolCall{ID: "call_2", Name: "getTime", Arguments: `{}`}),
			chat.ToolMessage(chat.ToolResult{ID: "call_2", Name: "getTime", Content: "the clock:", Parts: []content.Part{content.Image([]byte("\xff\xd8\xff"), "image/jpeg")}}),
			{Role: chat.RoleAssistant, Content: "A clock; here it is drawn:", Parts: []content.Part{content.Image([]byte("\x89PNG\r\n\x1a\n"), "image/png")}},
			chat.User("thanks"),
		}, Options: &chat.Options{Tools: tools}},
	}
	for name, p := range prompts {
		for _, stream := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/stream=%v", name, stream), func(t *testing.T) {
				seen := v.Send(t, m, p, stream)
				seen.Accepted(t, "/api/chat")
				if h := seen.Header; h.Get("X-Steady-Matched-Path") != "/api/chat" {
					t.Fatalf("steady matched %q, want /api/chat", h.Get("X-Steady-Matched-Path"))
				}
			})
		}
	}
	// And steady does reject what the description forbids, so the verdicts above mean something.
	t.Run("an invalid request is rejected", func(t *testing.T) {
		providertest.SteadyRejects(t, base+"/api/chat", `{"model":"m","messages":[{"role":"user"}],"stream":false}`)
	})
}
