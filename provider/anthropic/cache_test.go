package anthropic

import (
	"context"
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/client"
	"github.com/wield-ai/wield/internal/clienttest"
	"github.com/wield-ai/wield/internal/providertest"
	"github.com/wield-ai/wield/internal/replay"
	"github.com/wield-ai/wield/tool"
	"github.com/wield-ai/wield/toolcall"
)

// recordedRequest decodes the n-th recorded request body of a case.
func recordedRequest(t testing.TB, ex replay.Exchange) map[string]any {
	t.Helper()
	var body map[string]any
	if err := json.Unmarshal(ex.RequestBody, &body); err != nil {
		t.Fatal(err)
	}
	return body
}

// recordedTools returns the tool definitions of a recorded request as Go tools answering result.
func recordedTools(t testing.TB, ex replay.Exchange, result string) []tool.Tool {
	t.Helper()
	var body struct {
		Tools []struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			InputSchema json.RawMessage `json:"input_schema"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(ex.RequestBody, &body); err != nil {
		t.Fatal(err)
	}
	var out []tool.Tool
	for _, d := range body.Tools {
		out = append(out, funcTool{
			def: tool.Definition{Name: d.Name, Description: d.Description, InputSchema: d.InputSchema},
			fn:  func(context.Context, string) (string, error) { return result, nil },
		})
	}
	return out
}

// conversation replays a recorded conversation turn by turn: each exchange's request is built
// from the history so far and must mean the same as the recorded one, cache_control included;
// each answer must read as recorded, cache usage included. After an answer with tool calls the
// tools run; after a final answer the next of users is added.
func conversation(t *testing.T, m *Model, stream bool, opts *chat.Options, history []chat.Message, users []string, exs []replay.Exchange, srv *replay.Server) chat.Usage {
	t.Helper()
	var total chat.Usage
	for i, ex := range exs {
		p := &chat.Prompt{Messages: history, Options: opts}
		resp, err := providertest.Run(context.Background(), m, p, stream)
		if err != nil {
			t.Fatalf("exchange %d: %v", i+1, err)
		}
		checkRequest(t, srv.Requests()[i].Body, ex.RequestBody)
		want := expectRecorded(t, ex)
		checkResponse(t, resp, want)
		total = total.Add(resp.Usage)
		if resp.HasToolCalls() {
			res, err := toolcall.New(toolcall.Config{}).Execute(context.Background(), p, resp)
			if err != nil {
				t.Fatal(err)
			}
			history = res.History
			continue
		}
		history = append(history, resp.Message())
		if len(users) > 0 {
			history = append(history, chat.User(users[0]))
			users = users[1:]
		}
	}
	if srv.Served() != len(exs) {
		t.Errorf("served %d of %d exchanges", srv.Served(), len(exs))
	}
	return total
}

// TestCacheReplay replays the recorded prompt-caching conversations with the Cache setting that
// places the recorded breakpoints, and checks the cache reads and writes wield reports.
func TestCacheReplay(t *testing.T) {
	t.Run("tools and last message, ttl 5m, real hits", func(t *testing.T) {
		// Breakpoints on the last tool and the last message: the recorded requests are CacheAuto's
		// without a system prompt.
		exs := providertest.Load(t, "cache", "lcgo-cache-control-tools-and-tool-result-hit-claude-sonnet-4-5")
		srv := replay.NewServer(t, exs...)
		m := newTestModel(t, srv.URL, Config{Model: "claude-sonnet-4-5", MaxTokens: 200, Cache: Cache{Tools: true, Messages: 1, TTL: "5m"}})
		opts := &chat.Options{Temperature: chat.Ptr(0.0), Tools: recordedTools(t, exs[0], "Sunny, 22°C")}
		got := conversation(t, m, false, opts, []chat.Message{chat.User("What's the weather in Paris?")}, []string{"What about London?"}, exs, srv)
		want := chat.Usage{
			InputTokens: 3 + 1877 + 6 + 72 + 1877 + 3 + 37 + 1949, OutputTokens: 55 + 27 + 55,
			CachedInputTokens: 1877 + 1949, CacheWriteInputTokens: 1877 + 72 + 37,
		}
		want.TotalTokens = want.InputTokens + want.OutputTokens
		if got != want {
			t.Errorf("usage = %+v, want %+v", got, want)
		}
	})
	for _, stream := range []bool{false, true} {
		name := map[bool]string{false: "fantasy-cache-control-tool-loop-claude-sonnet-4", true: "fantasy-cache-control-tool-loop-streaming-claude-sonnet-4"}[stream]
		t.Run(name, func(t *testing.T) {
			// Breakpoints on the system prompt and the last two turns, set per call through Extra.
			exs := providertest.Load(t, "cache", name)
			srv := replay.NewServer(t, exs...)
			m := newTestModel(t, srv.URL, Config{Model: "claude-sonnet-4-20250514", Cache: CacheAuto})
			opts := &chat.Options{MaxTokens: 4000, ToolChoice: "auto", ParallelToolCalls: chat.Ptr(true), Tools: []tool.Tool{fantasyWeather()},
				Extra: map[string]any{ExtraCache: Cache{System: true, Messages: 2}}}
			history := []chat.Message{chat.System("You are a helpful assistant"), chat.User("What's the weather in Florence,Italy?")}
			conversation(t, m, stream, opts, history, nil, exs, srv)
		})
	}
	for _, stream := range []bool{false, true} {
		name := map[bool]string{false: "openllmetry-prompt-caching-hit-claude-3-5-sonnet", true: "openllmetry-prompt-caching-hit-stream-claude-3-5-sonnet"}[stream]
		t.Run(name, func(t *testing.T) {
			// One breakpoint on the (long) user message, none on the system prompt; the same
			// request twice: a write, then a read.
			exs := providertest.Load(t, "cache", name)
			srv := replay.NewServer(t, exs...)
			m := newTestModel(t, srv.URL, Config{Model: "claude-3-5-sonnet-20240620", MaxTokens: 1024, Cache: Cache{Messages: 1}})
			rec := recordedRequest(t, exs[0])
			system := rec["system"].([]any)[0].(map[string]any)["text"].(string)
			user := rec["messages"].([]any)[0].(map[string]any)["content"].([]any)[0].(map[string]any)["text"].(string)
			history := []chat.Message{chat.System(system), chat.User(user)}
			var usages []chat.Usage
			for i := range exs {
				resp, err := providertest.Run(context.Background(), m, &chat.Prompt{Messages: history}, stream)
				if err != nil {
					t.Fatal(err)
				}
				checkRequest(t, srv.Requests()[i].Body, exs[i].RequestBody)
				checkResponse(t, resp, expectRecorded(t, exs[i]))
				usages = append(usages, resp.Usage)
			}
			if usages[0].CacheWriteInputTokens == 0 || usages[0].CachedInputTokens != 0 ||
				usages[1].CachedInputTokens != usages[0].CacheWriteInputTokens || usages[1].CacheWriteInputTokens != 0 {
				t.Errorf("usages = %+v, want a write then a read of the same prefix", usages)
			}
		})
	}
}

// breakpoints returns where a request body carries cache_control: "tools[i]", "system[i]",
// "messages[i].content[j]", with the TTL when one is set.
func breakpoints(t testing.TB, body []byte) []string {
	t.Helper()
	var req struct {
		Tools    []map[string]any `json:"tools"`
		System   []map[string]any `json:"system"`
		Messages []struct {
			Content []map[string]any `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatal(err)
	}
	var out []string
	mark := func(where string, b map[string]any) {
		cc, ok := b["cache_control"].(map[string]any)
		if !ok {
			return
		}
		if cc["type"] != "ephemeral" {
			t.Errorf("%s: cache_control %v", where, cc)
		}
		if ttl, ok := cc["ttl"].(string); ok {
			where += "@" + ttl
		}
		out = append(out, where)
	}
	for i, b := range req.Tools {
		mark("tools["+strconv.Itoa(i)+"]", b)
	}
	for i, b := range req.System {
		mark("system["+strconv.Itoa(i)+"]", b)
	}
	for i, m := range req.Messages {
		for j, b := range m.Content {
			mark("messages["+strconv.Itoa(i)+"].content["+strconv.Itoa(j)+"]", b)
		}
	}
	return out
}

// TestCacheAutoToolLoop: with CacheAuto, every round of a tool loop run by the client puts
// breakpoints on the last tool, the system prompt and the last turn, and nowhere else, so each
// round's prefix is the previous round's cached request.
func TestCacheAutoToolLoop(t *testing.T) {
	exs := providertest.Load(t, "fantasy-tool-loop-claude-sonnet-4")
	srv := replay.NewServer(t, exs...)
	m := newTestModel(t, srv.URL, Config{Model: "claude-sonnet-4-20250514", Cache: CacheAuto})
	c := clienttest.New(t, m, client.WithOptions(&chat.Options{MaxTokens: 4000}))
	second := providertest.RawTool{Name: "forecast", Description: "Forecast", InputSchema: json.RawMessage(`{"type":"object"}`)}
	resp, err := c.Prompt("What's the weather in Florence,Italy?").System("You are a helpful assistant").
		Tools(fantasyWeather(), second).Call(context.Background()).Response()
	if err != nil {
		t.Fatal(err)
	}
	if resp.ModelCalls != 2 {
		t.Fatalf("%d model calls", resp.ModelCalls)
	}
	want := [][]string{
		{"tools[1]", "system[0]", "messages[0].content[0]"},
		// Round two: the assistant's tool_use turn, then the tool_result turn, which is marked.
		{"tools[1]", "system[0]", "messages[2].content[0]"},
	}
	for i, r := range srv.Requests() {
		if got := breakpoints(t, r.Body); !reflect.DeepEqual(got, want[i]) {
			t.Errorf("request %d: breakpoints %q, want %q", i+1, got, want[i])
		}
	}
}

// TestCacheSettings: where each setting puts breakpoints, per call overrides, blocks that cannot
// carry cache_control, and the settings the API would refuse.
func TestCacheSettings(t *testing.T) {
	history := []chat.Message{
		chat.System("a"), chat.System("b"),
		chat.User("q1"),
		{Role: chat.RoleAssistant, Content: "let me look", ToolCalls: []chat.ToolCall{{ID: "t1", Name: "get_weather", Arguments: `{"city":"Rome"}`}}},
		chat.ToolMessage(chat.ToolResult{ID: "t1", Name: "get_weather", Content: "sunny"}),
		chat.User("and tomorrow?"),
		// Thinking alone cannot carry cache_control.
		{Role: chat.RoleAssistant, Reasoning: []chat.Reasoning{{Provider: "anthropic", Text: "hm", Signature: "s"}}},
	}
	tools := []tool.Tool{sdkWeather(), slowTool()}
	for _, tc := range []struct {
		name  string
		cfg   Cache
		extra any
		want  []string
	}{
		{"none", Cache{}, nil, nil},
		{"auto", CacheAuto, nil, []string{"tools[1]", "system[1]"}},
		{"auto, through Extra as true", Cache{}, true, []string{"tools[1]", "system[1]"}},
		{"off for the call", CacheAuto, false, nil},
		{"off for the call with a nil *Cache", CacheAuto, (*Cache)(nil), nil},
		{"messages 3, 1h", Cache{Messages: 3, TTL: "1h"}, nil, []string{"messages[1].content[1]@1h", "messages[2].content[1]@1h"}},
		{"per call *Cache", Cache{}, &Cache{Tools: true, TTL: "5m"}, []string{"tools[1]@5m"}},
		{"four", Cache{Tools: true, System: true, Messages: 2}, nil, []string{"tools[1]", "system[1]", "messages[2].content[1]"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := replay.NewServer(t, okExchange())
			m := newTestModel(t, srv.URL, Config{Cache: tc.cfg})
			opts := &chat.Options{Tools: tools}
			if tc.extra != nil {
				opts.Extra = map[string]any{ExtraCache: tc.extra}
			}
			if _, err := m.Call(context.Background(), &chat.Prompt{Messages: history, Options: opts}); err != nil {
				t.Fatal(err)
			}
			if got := breakpoints(t, srv.Requests()[0].Body); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("breakpoints %q, want %q", got, tc.want)
			}
		})
	}

	// The last turn, an assistant turn of thinking only, has no block to mark; the one before
	// gets its breakpoint on its last block (the user's text, after the tool result).
	srv := replay.NewServer(t, okExchange())
	m := newTestModel(t, srv.URL, Config{Cache: Cache{Messages: 2}})
	if _, err := m.Call(context.Background(), &chat.Prompt{Messages: history}); err != nil {
		t.Fatal(err)
	}
	if got, want := breakpoints(t, srv.Requests()[0].Body), []string{"messages[2].content[1]"}; !reflect.DeepEqual(got, want) {
		t.Errorf("breakpoints %q, want %q", got, want)
	}

	for _, tc := range []struct {
		name  string
		cfg   Cache
		extra any
		want  string
	}{
		{"five breakpoints", Cache{Tools: true, System: true, Messages: 3}, nil, "at most 4"},
		{"five through Extra", Cache{}, Cache{Messages: 5}, "at most 4"},
		{"negative messages", Cache{Messages: -1}, nil, "negative"},
		{"unknown TTL", Cache{TTL: "10m"}, nil, "TTL"},
		{"Extra of the wrong type", Cache{}, "auto", "want anthropic.Cache"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.extra == nil {
				if _, err := New(Config{Cache: tc.cfg}); err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("New: error = %v, want one containing %q", err, tc.want)
				}
				return
			}
			srv := replay.NewServer(t)
			m := newTestModel(t, srv.URL, Config{Cache: tc.cfg})
			_, err := m.Call(context.Background(), &chat.Prompt{Messages: history, Options: &chat.Options{Extra: map[string]any{ExtraCache: tc.extra}}})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error = %v, want one containing %q", err, tc.want)
			}
			if srv.Served() != 0 {
				t.Error("a request went out")
			}
		})
	}
}
