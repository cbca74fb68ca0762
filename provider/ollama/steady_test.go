//go:build unix

package ollama

import (
	"context"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/content"
	"github.com/wield-ai/wield/internal/providertest"
	"github.com/wield-ai/wield/tool"
)

// TestSteadyAcceptsRequests validates wield's /api/chat requests against Ollama's official
// OpenAPI description: with tools, with a tool loop's history (assistant tool_calls, tool
// results with tool_name), thinking, a response format and options, streamed and not.
func TestSteadyAcceptsRequests(t *testing.T) {
	spec, err := filepath.Abs(filepath.Join("testdata", "spec", "ollama-openapi.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	base := providertest.StartSteady(t, spec)
	v := &providertest.Verdicts{}
	m, err := New(Config{BaseURL: base, Model: "llama3.2", MaxRetries: -1, HTTPClient: &http.Client{Transport: v}})
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
			chat.User("what is in these?", content.Image([]byte("\x89PNG\r\n\x1a\n"), "image/png"), content.Document([]byte("a,b"), "text/csv", "d.csv")),
			chat.Assistant("", chat.ToolCall{ID: "call_2", Name: "getTime", Arguments: `{}`}),
			chat.ToolMessage(chat.ToolResult{ID: "call_2", Name: "getTime", Content: "the clock:", Parts: []content.Part{content.Image([]byte("\xff\xd8\xff"), "image/jpeg")}}),
		}, Options: &chat.Options{Tools: tools}},
	}
	for name, p := range prompts {
		for _, stream := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/stream=%v", name, stream), func(t *testing.T) {
				v.Take()
				// steady answers valid requests with made-up content that is not a complete Ollama
				// answer; only its verdict on the request matters here.
				if stream {
					_, _ = chat.Aggregate(m.Stream(context.Background(), p))
				} else {
					_, _ = m.Call(context.Background(), p)
				}
				seen := v.Take()
				if len(seen) != 1 {
					t.Fatalf("%d requests", len(seen))
				}
				if h := seen[0].Header; h.Get("X-Steady-Request-Valid") != "true" || h.Get("X-Steady-Matched-Path") != "/api/chat" {
					t.Fatalf("steady rejected the request:%s", seen[0].Rules())
				}
			})
		}
	}
	// And steady does reject what the description forbids, so the verdicts above mean something.
	t.Run("an invalid request is rejected", func(t *testing.T) {
		resp, err := http.Post(base+"/api/chat", "application/json", strings.NewReader(`{"model":"m","messages":[{"role":"user"}],"stream":false}`))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 400 || resp.Header.Get("X-Steady-Request-Valid") != "false" {
			t.Fatalf("status %d", resp.StatusCode)
		}
	})
}
