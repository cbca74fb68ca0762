package anthropic

import (
	"context"
	"strings"
	"testing"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/internal/providertest"
	"github.com/wield-ai/wield/internal/replay"
)

// Answers in which Anthropic ran its own tool search (server_tool_use, tool_search_tool_result)
// before calling a client tool are read like any other: the text and the client tool's call,
// the server's blocks left out, called and streamed.
func TestReplayServerToolSearchAnswers(t *testing.T) {
	for name, want := range map[string]string{
		"vercel-tool-search-regex-claude-sonnet-4-5":                 "get_temp_data",
		"vercel-tool-search-bm25-claude-sonnet-4-5":                  "get_weather",
		"vercel-tool-search-regex-stream-claude-sonnet-4-5":          "get_temp_data",
		"vercel-tool-search-bm25-stream-claude-sonnet-4-5":           "get_weather",
		"vercel-tool-search-deferred-regex-stream-claude-sonnet-4-5": "readNoteTree",
	} {
		t.Run(name, func(t *testing.T) {
			exs := providertest.Load(t, "toolsearch", name)
			srv := replay.NewServer(t, exs...)
			m := newTestModel(t, srv.URL, Config{Model: "claude-sonnet-4-5"})
			stream := strings.Contains(name, "-stream-")
			resp, err := providertest.Run(context.Background(), m, &chat.Prompt{Messages: []chat.Message{chat.User("What's the weather in San Francisco?")}}, stream)
			if err != nil {
				t.Fatal(err)
			}
			calls := resp.ToolCalls()
			if len(calls) != 1 || calls[0].Name != want || !strings.HasPrefix(calls[0].ID, "toolu_") || resp.Text() == "" {
				t.Fatalf("text %q, calls %+v; want one call of %s", resp.Text(), calls, want)
			}
		})
	}
}
