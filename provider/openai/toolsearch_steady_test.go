//go:build unix

package openai

import (
	"net/http"
	"testing"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/internal/providertest"
)

// TestToolSearchSteady sends the Responses requests of every tool-search shape wield produces to
// steady, which checks them against OpenAI's spec (there is no recorded request of tool search):
// deferred function tools beside the hosted or the client-executed tool_search tool, the hosted
// search's items sent back as they were recorded, and the client search's call and output
// loading a tool's definition, called and streamed.
func TestToolSearchSteady(t *testing.T) {
	url := startSteady(t)
	rec := &providertest.Verdicts{}
	var st searchTools
	tools := st.all()

	body := providertest.Load(t, "responses", "vercel-tool-search-function-call-gpt-5.4")[0].Body
	question := chat.User("What's the weather in San Francisco, and what files mention it?")
	weatherCall := chat.ToolCall{ID: "call_ytqozXvUXG8NN1b0IODxzUaE", Name: "get_weather", Arguments: `{"location":"San Francisco, CA","unit":"fahrenheit"}`}
	hosted := []chat.Message{
		question,
		{Role: chat.RoleAssistant, ServerTools: hostedSearch(t, body, false), ToolCalls: []chat.ToolCall{weatherCall}},
		chat.ToolMessage(chat.ToolResult{ID: weatherCall.ID, Name: "get_weather", Content: "65 F, sunny"}),
	}
	client := []chat.Message{
		question,
		chat.Assistant("", chat.ToolCall{ID: "call_AEvXZ1rvYpxHh8QZb7wGlTGH", Name: "find", Arguments: `{"goal":"Find a tool to get current weather"}`}),
		chat.ToolMessage(chat.ToolResult{ID: "call_AEvXZ1rvYpxHh8QZb7wGlTGH", Name: "find", Content: chat.ToolSearchResult("get_weather", "search_files")}),
		chat.Assistant("", weatherCall),
		chat.ToolMessage(chat.ToolResult{ID: weatherCall.ID, Name: "get_weather", Content: "65 F, sunny"}),
		chat.Assistant("", chat.ToolCall{ID: "call_2", Name: "find", Arguments: `{"goal":"fax"}`}),
		chat.ToolMessage(chat.ToolResult{ID: "call_2", Name: "find", Content: "the index is down", IsError: true}),
	}
	server := &chat.ToolSearch{Kind: chat.ToolSearchServer}
	clientSearch := &chat.ToolSearch{Kind: chat.ToolSearchClient, Tool: "find", Loaded: []string{"send_email"}}
	for _, tc := range []struct {
		name   string
		cfg    Config
		msgs   []chat.Message
		opts   *chat.Options
		stream bool
	}{
		{name: "hosted", msgs: hosted[:1], opts: &chat.Options{Tools: tools[1:], ToolSearch: server}},
		{name: "hosted items sent back", cfg: Config{Store: ptr(false)}, msgs: hosted, opts: &chat.Options{Tools: tools[1:], ToolSearch: server}},
		{name: "hosted, strict, a tool loaded and chosen", cfg: Config{StrictTools: true}, msgs: hosted,
			opts: &chat.Options{Tools: tools[1:], ToolChoice: "send_email", ToolSearch: &chat.ToolSearch{Kind: chat.ToolSearchServer, Loaded: []string{"send_email"}}}},
		{name: "client", msgs: client[:1], opts: &chat.Options{Tools: tools, ToolSearch: clientSearch}},
		{name: "client call and output sent back", cfg: Config{Store: ptr(false)}, msgs: client, opts: &chat.Options{Tools: tools, ToolSearch: clientSearch}},
		{name: "client, streamed", msgs: client, opts: &chat.Options{Tools: tools, ToolSearch: clientSearch}, stream: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := tc.cfg
			cfg.BaseURL, cfg.APIKey, cfg.Model, cfg.HTTPClient, cfg.MaxRetries = url, "sk-test", "gpt-5.4", &http.Client{Transport: rec}, -1
			m, err := NewResponses(cfg)
			if err != nil {
				t.Fatal(err)
			}
			rec.Send(t, m, &chat.Prompt{Messages: tc.msgs, Options: tc.opts}, tc.stream).Accepted(t, "/responses")
		})
	}
}
