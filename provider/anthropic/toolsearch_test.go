package anthropic

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	sdk "github.com/anthropics/anthropic-sdk-go"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/client"
	"github.com/wield-ai/wield/internal/providertest"
	"github.com/wield-ai/wield/internal/replay"
	"github.com/wield-ai/wield/tool"
	"github.com/wield-ai/wield/toolsearch"
)

// calledTools are client tools that record their calls and answer with their name.
type calledTools struct {
	mu    sync.Mutex
	calls []string
}

func (c *calledTools) tools(names ...string) []tool.Tool {
	out := make([]tool.Tool, len(names))
	for i, n := range names {
		out[i] = funcTool{
			def: tool.Definition{Name: n, Description: "The tool " + n, InputSchema: json.RawMessage(`{"type":"object"}`)},
			fn: func(context.Context, string) (string, error) {
				c.mu.Lock()
				defer c.mu.Unlock()
				c.calls = append(c.calls, n)
				return "result of " + n, nil
			},
		}
	}
	return out
}

// wireRequest is a request body decoded with plain encoding/json.
type wireRequest struct {
	Tools []struct {
		Type         string `json:"type"`
		Name         string `json:"name"`
		DeferLoading *bool  `json:"defer_loading"`
		CacheControl any    `json:"cache_control"`
	} `json:"tools"`
	Messages []struct {
		Role    string            `json:"role"`
		Content []json.RawMessage `json:"content"`
	} `json:"messages"`
}

func decodeRequest(t testing.TB, r replay.Request) wireRequest {
	t.Helper()
	var w wireRequest
	if err := json.Unmarshal(r.Body, &w); err != nil {
		t.Fatal(err)
	}
	// The SDK's own types read it too: every block and tool is one the API defines.
	var params sdk.MessageNewParams
	if err := json.Unmarshal(r.Body, &params); err != nil {
		t.Fatalf("the SDK cannot read the request: %v\n%s", err, r.Body)
	}
	return w
}

func blockType(t testing.TB, raw json.RawMessage) string {
	t.Helper()
	var b struct {
		Type string `json:"type"`
	}
	if err := json.Unmarshal(raw, &b); err != nil {
		t.Fatal(err)
	}
	return b.Type
}

// recordedBlocks returns the tool-search blocks of a recorded answer as Anthropic sent them
// (streamed server_tool_use inputs joined), compacted.
func recordedBlocks(t testing.TB, ex replay.Exchange) []string {
	t.Helper()
	var blocks []json.RawMessage
	if bytes.HasPrefix(bytes.TrimSpace(ex.Body), []byte("{")) {
		var msg struct {
			Content []json.RawMessage `json:"content"`
		}
		if err := json.Unmarshal(ex.Body, &msg); err != nil {
			t.Fatal(err)
		}
		blocks = msg.Content
	} else {
		inputs := map[int][]byte{}
		starts := map[int]json.RawMessage{}
		var order []int
		for _, data := range replay.SSEData(ex.Body) {
			var ev struct {
				Type         string          `json:"type"`
				Index        int             `json:"index"`
				ContentBlock json.RawMessage `json:"content_block"`
				Delta        struct {
					PartialJSON string `json:"partial_json"`
				} `json:"delta"`
			}
			if err := json.Unmarshal(data, &ev); err != nil {
				t.Fatal(err)
			}
			switch ev.Type {
			case "content_block_start":
				starts[ev.Index] = ev.ContentBlock
				order = append(order, ev.Index)
			case "content_block_delta":
				inputs[ev.Index] = append(inputs[ev.Index], ev.Delta.PartialJSON...)
			}
		}
		for _, i := range order {
			b := starts[i]
			if in := inputs[i]; len(in) > 0 && blockType(t, b) == "server_tool_use" {
				var fields map[string]json.RawMessage
				if err := json.Unmarshal(b, &fields); err != nil {
					t.Fatal(err)
				}
				fields["input"] = in
				b, _ = json.Marshal(fields)
			}
			blocks = append(blocks, b)
		}
	}
	var out []string
	for _, b := range blocks {
		if typ := blockType(t, b); typ == "server_tool_use" || typ == "tool_search_tool_result" {
			out = append(out, providertest.Canonical(t, b))
		}
	}
	return out
}

// TestToolSearchLoopReplayed runs whole tool loops on Anthropic's recorded tool-search answers,
// asked for in the request's options or by the tool search advisor: the request sends the search
// tool and the deferred tools, the model searches on the server and calls a tool it found, the
// loop runs it, and the next request sends back the search's blocks exactly as they came, beside
// the call and its result. The recordings hold answers only; the
// requests are checked against the SDK's types and the documented shape. A recording of one
// answer gets a final one written here.
func TestToolSearchLoopReplayed(t *testing.T) {
	final := replay.Exchange{Header: http.Header{"Content-Type": {"application/json"}}, Body: []byte(okBody)}
	for _, tc := range []struct {
		name   string
		kind   chat.ToolSearchKind
		tools  []string
		loaded []string
		calls  []string
	}{
		{"vercel-tool-search-regex-claude-sonnet-4-5", chat.ToolSearchRegex, []string{"get_temp_data", "send_email", "clock"}, []string{"clock"}, []string{"get_temp_data"}},
		{"vercel-tool-search-regex-stream-claude-sonnet-4-5", chat.ToolSearchRegex, []string{"get_temp_data", "send_email"}, nil, []string{"get_temp_data"}},
		{"vercel-tool-search-bm25-claude-sonnet-4-5", chat.ToolSearchBM25, []string{"get_weather", "search_files"}, nil, []string{"get_weather"}},
		{"vercel-tool-search-bm25-stream-claude-sonnet-4-5", chat.ToolSearchServer, []string{"get_weather", "search_files"}, nil, []string{"get_weather"}},
		{"vercel-tool-search-deferred-regex-stream-claude-sonnet-4-5", chat.ToolSearchRegex,
			[]string{"readNoteTree", "executeEditorOperation", "deleteNote"}, []string{"readNoteTree"}, []string{"readNoteTree", "executeEditorOperation"}},
	} {
		for _, advisor := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/advisor=%v", tc.name, advisor), func(t *testing.T) {
				exs := providertest.Load(t, "toolsearch", tc.name)
				stream := strings.Contains(tc.name, "-stream-")
				if !stream {
					exs = append(exs, final)
				}
				srv := replay.NewServer(t, exs...)
				var ct calledTools
				m := newTestModel(t, srv.URL, Config{Model: "claude-sonnet-4-5"})
				// The options of a request, or the tool search advisor handing its search to Anthropic.
				opts := &chat.Options{ToolSearch: &chat.ToolSearch{Kind: tc.kind, Loaded: tc.loaded}}
				var copts []client.Option
				if advisor {
					opts = nil
					copts = append(copts, client.WithAdvisors(toolsearch.New(toolsearch.Config{Native: tc.kind, Pinned: tc.loaded})))
				}
				c, err := client.New(m, copts...)
				if err != nil {
					t.Fatal(err)
				}
				resp, _ := providertest.Send(t, c.Prompt("What's the weather in San Francisco?").Tools(ct.tools(tc.tools...)).Options(opts), stream)
				if !slices.Equal(ct.calls, tc.calls) || resp.Text() == "" {
					t.Fatalf("called %q, answer %q; want calls %q", ct.calls, resp.Text(), tc.calls)
				}
				reqs := srv.Requests()
				if len(reqs) != len(exs) {
					t.Fatalf("%d requests for %d answers", len(reqs), len(exs))
				}
				wantSearch := "tool_search_tool_bm25_20251119"
				if tc.kind == chat.ToolSearchRegex {
					wantSearch = "tool_search_tool_regex_20251119"
				}
				for i, r := range reqs {
					if got := r.Header.Get("Anthropic-Beta"); got != toolSearchBeta {
						t.Errorf("request %d: anthropic-beta %q", i+1, got)
					}
					w := decodeRequest(t, r)
					if len(w.Tools) != len(tc.tools)+1 || w.Tools[0].Type != wantSearch {
						t.Fatalf("request %d: tools %+v", i+1, w.Tools)
					}
					for _, tl := range w.Tools[1:] {
						if want := !slices.Contains(tc.loaded, tl.Name); (tl.DeferLoading != nil && *tl.DeferLoading) != want {
							t.Errorf("request %d: tool %s deferred %v, want %v", i+1, tl.Name, tl.DeferLoading, want)
						}
					}
				}
				// Every later request carries each earlier answer's search blocks as recorded, in the
				// assistant turns, before its text and calls.
				var want []string
				for i := range exs[:len(exs)-1] {
					want = append(want, recordedBlocks(t, exs[i])...)
					w := decodeRequest(t, reqs[i+1])
					var got []string
					for _, m := range w.Messages {
						for _, b := range m.Content {
							if typ := blockType(t, b); typ == "server_tool_use" || typ == "tool_search_tool_result" {
								if m.Role != "assistant" {
									t.Errorf("request %d: %s in a %s turn", i+2, typ, m.Role)
								}
								got = append(got, providertest.Canonical(t, b))
							}
						}
					}
					if !slices.Equal(got, want) {
						t.Errorf("request %d sent the search blocks\n%s\nwant\n%s", i+2, strings.Join(got, "\n"), strings.Join(want, "\n"))
					}
				}
				if resp.Usage.ServerToolCalls != 1 {
					t.Errorf("usage counts %d server tool calls, want 1", resp.Usage.ServerToolCalls)
				}
				var steps []chat.ServerTool
				for _, m := range resp.Messages {
					steps = append(steps, m.ServerTools...)
				}
				if len(steps) != 2 || steps[0].Result || !steps[1].Result || steps[0].ID != steps[1].ID ||
					!strings.HasPrefix(steps[0].Name, "tool_search_tool_") || steps[0].Arguments == "{}" {
					t.Fatalf("server tools kept: %+v", steps)
				}
				if !slices.Contains(steps[1].Tools, tc.calls[len(tc.calls)-1]) {
					t.Errorf("the search loaded %q, not the tool called last", steps[1].Tools)
				}
			})
		}
	}
}

// The client's own search: its results reach the API as tool_reference blocks of the deferred
// tools found (under their wire names), a failed search as its text and one that found nothing
// as a sentence; the search tool itself and the loaded tools are not deferred. There is no
// recording of this; the answers are written in the shape Anthropic documents.
func TestClientToolSearchRequest(t *testing.T) {
	srv := replay.NewServer(t, okExchange())
	m := newTestModel(t, srv.URL, Config{})
	var ct calledTools
	tools := ct.tools("find", "notes.read", "mail.send", "clock")
	history := []chat.Message{
		chat.User("Read my notes, then mail them."),
		chat.Assistant("", chat.ToolCall{ID: "toolu_1", Name: "find", Arguments: `{"query":"notes"}`},
			chat.ToolCall{ID: "toolu_2", Name: "find", Arguments: `{"query":"[bad"}`},
			chat.ToolCall{ID: "toolu_3", Name: "find", Arguments: `{"query":"fax"}`}),
		chat.ToolMessage(
			chat.ToolResult{ID: "toolu_1", Name: "find", Content: chat.ToolSearchResult("notes.read", "gone", "clock")},
			chat.ToolResult{ID: "toolu_2", Name: "find", Content: "invalid query", IsError: true},
			chat.ToolResult{ID: "toolu_3", Name: "find", Content: chat.ToolSearchResult()}),
		{Role: chat.RoleAssistant, ToolCalls: []chat.ToolCall{{ID: "toolu_4", Name: "notes.read", Arguments: `{}`}},
			ServerTools: []chat.ServerTool{{Provider: ProviderName, ID: "srvtoolu_x", Name: regexSearchName, Data: json.RawMessage(`{"type":"server_tool_use","id":"srvtoolu_x","name":"tool_search_tool_regex","input":{}}`)}}},
		chat.ToolMessage(chat.ToolResult{ID: "toolu_4", Name: "notes.read", Content: "buy milk"}),
	}
	opts := &chat.Options{Tools: tools, ToolSearch: &chat.ToolSearch{Kind: chat.ToolSearchClient, Tool: "find", Loaded: []string{"clock"}}}
	if _, err := m.Call(context.Background(), &chat.Prompt{Messages: history, Options: opts}); err != nil {
		t.Fatal(err)
	}
	r := srv.Requests()[0]
	if got := r.Header.Get("Anthropic-Beta"); got != toolSearchBeta {
		t.Errorf("anthropic-beta %q", got)
	}
	w := decodeRequest(t, r)
	var deferred []string
	for _, tl := range w.Tools {
		if tl.Type != "" && tl.Type != "custom" {
			t.Errorf("tool %s of type %s: a client search sends no server search tool", tl.Name, tl.Type)
		}
		if tl.DeferLoading != nil && *tl.DeferLoading {
			deferred = append(deferred, tl.Name)
		}
	}
	if !slices.Equal(deferred, []string{"notes_read", "mail_send"}) {
		t.Errorf("deferred %q", deferred)
	}
	results := providertest.Canonical(t, w.Messages[2].Content[0]) + providertest.Canonical(t, w.Messages[2].Content[1]) + providertest.Canonical(t, w.Messages[2].Content[2])
	want := `{"content":[{"tool_name":"notes_read","type":"tool_reference"}],"tool_use_id":"toolu_1","type":"tool_result"}` +
		`{"content":[{"text":"invalid query","type":"text"}],"is_error":true,"tool_use_id":"toolu_2","type":"tool_result"}` +
		`{"content":[{"text":"` + noToolFound + `","type":"text"}],"tool_use_id":"toolu_3","type":"tool_result"}`
	if results != want {
		t.Errorf("search results sent as\n%s\nwant\n%s", results, want)
	}
	for _, m := range w.Messages {
		for _, b := range m.Content {
			if typ := blockType(t, b); typ == "server_tool_use" {
				t.Errorf("a server search's block sent to a request that searches on the client: %s", b)
			}
		}
	}

	// A search result that is not a client search's makes the request fail before it is sent.
	history[2].ToolResults[0].Content = "Found notes.read"
	_, err := m.Call(context.Background(), &chat.Prompt{Messages: history, Options: opts})
	if err == nil || !strings.Contains(err.Error(), `result toolu_1 of the search tool "find"`) || srv.Served() != 1 {
		t.Errorf("err = %v, %d requests", err, srv.Served())
	}
}

// Without a server search in the request, the server's blocks of earlier answers are not sent
// (the API knows no search tool to match them); the calls and results stay.
func TestServerToolsDroppedWithoutServerSearch(t *testing.T) {
	history := []chat.Message{
		chat.User("Weather?"),
		{Role: chat.RoleAssistant, Content: "Found it.", ToolCalls: []chat.ToolCall{{ID: "toolu_1", Name: "get_weather", Arguments: `{}`}},
			ServerTools: []chat.ServerTool{
				{Provider: ProviderName, ID: "srvtoolu_1", Name: bm25SearchName, Data: json.RawMessage(`{"type":"server_tool_use","id":"srvtoolu_1","name":"tool_search_tool_bm25","input":{"query":"weather"}}`)},
				{Provider: ProviderName, ID: "srvtoolu_1", Result: true, Data: json.RawMessage(`{"type":"tool_search_tool_result","tool_use_id":"srvtoolu_1","content":{"type":"tool_search_tool_search_result","tool_references":[{"type":"tool_reference","tool_name":"get_weather"}]}}`)},
				{Provider: "openai", ID: "tsc_1", Data: json.RawMessage(`{"type":"tool_search_call"}`)},
			}},
		chat.ToolMessage(chat.ToolResult{ID: "toolu_1", Name: "get_weather", Content: "sunny"}),
	}
	var ct calledTools
	tools := ct.tools("get_weather")
	for _, tc := range []struct {
		search *chat.ToolSearch
		want   []string
	}{
		{nil, []string{"text", "tool_use"}},
		{&chat.ToolSearch{Kind: chat.ToolSearchBM25}, []string{"server_tool_use", "tool_search_tool_result", "text", "tool_use"}},
	} {
		body := sent(t, Config{}, &chat.Prompt{Messages: history, Options: &chat.Options{Tools: tools, ToolSearch: tc.search}})
		var got []string
		for _, b := range body["messages"].([]any)[1].(map[string]any)["content"].([]any) {
			got = append(got, b.(map[string]any)["type"].(string))
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("search %+v: assistant blocks %q, want %q", tc.search, got, tc.want)
		}
	}
	// A kept block that is not valid JSON fails the request before it is sent.
	history[1].ServerTools[0].Data = json.RawMessage(`{"type":`)
	m := newTestModel(t, "http://127.0.0.1:1", Config{})
	_, err := m.Call(context.Background(), &chat.Prompt{Messages: history, Options: &chat.Options{Tools: tools, ToolSearch: &chat.ToolSearch{Kind: chat.ToolSearchBM25}}})
	if err == nil || !strings.Contains(err.Error(), "server tool srvtoolu_1") {
		t.Errorf("err = %v", err)
	}
}

// Settings no request can honour are refused before anything is sent.
func TestToolSearchRefused(t *testing.T) {
	m := newTestModel(t, "http://127.0.0.1:1", Config{})
	var ct calledTools
	tools := ct.tools("find", "weather")
	for _, tc := range []struct {
		s    chat.ToolSearch
		want string
	}{
		{chat.ToolSearch{Kind: "vector"}, `unknown kind "vector"`},
		{chat.ToolSearch{Kind: chat.ToolSearchClient, Tool: "search"}, `"search" is none of the request's tools`},
		{chat.ToolSearch{Kind: chat.ToolSearchRegex, Tool: "find"}, `only for "client"`},
	} {
		_, err := m.Call(context.Background(), &chat.Prompt{Messages: []chat.Message{chat.User("hi")}, Options: &chat.Options{Tools: tools, ToolSearch: &tc.s}})
		if err == nil || !strings.HasPrefix(err.Error(), "anthropic: ") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: err = %v", tc.s, err)
		}
		if errors.Is(err, chat.ErrToolSearchUnsupported) {
			t.Errorf("%+v: a bad setting is not an unsupported search", tc.s)
		}
	}
}

// The prompt-cache breakpoint on the tools goes on the last tool sent in full: deferred tools are
// not part of the cached prefix.
func TestToolSearchCacheBreakpoint(t *testing.T) {
	var ct calledTools
	tools := ct.tools("clock", "weather", "mail")
	body := sent(t, Config{Cache: CacheAuto}, &chat.Prompt{Messages: []chat.Message{chat.User("hi")},
		Options: &chat.Options{Tools: tools, ToolSearch: &chat.ToolSearch{Kind: chat.ToolSearchRegex, Loaded: []string{"clock"}}}})
	var marked []string
	for _, tl := range body["tools"].([]any) {
		if tl := tl.(map[string]any); tl["cache_control"] != nil {
			marked = append(marked, tl["name"].(string))
		}
	}
	if !slices.Equal(marked, []string{"clock"}) {
		t.Errorf("cache_control on %q, want on clock only", marked)
	}
}

// On Bedrock and Vertex AI, tool search is another beta feature; Bedrock takes it in the body.
func TestToolSearchCloudBeta(t *testing.T) {
	var ct calledTools
	opts := &chat.Options{Tools: ct.tools("weather"), ToolSearch: &chat.ToolSearch{Kind: chat.ToolSearchBM25}}
	p := &chat.Prompt{Messages: []chat.Message{chat.User("hi")}, Options: opts}

	srv := replay.NewServer(t, okExchange())
	if _, err := newBedrockModel(t, srv.URL, BedrockConfig{Config: Config{Model: "anthropic.claude-opus-4-5-v1:0"}}).Call(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	var body struct {
		Beta []string `json:"anthropic_beta"`
	}
	if err := json.Unmarshal(srv.Requests()[0].Body, &body); err != nil || !slices.Equal(body.Beta, []string{toolSearchCloudBeta}) {
		t.Errorf("bedrock: anthropic_beta %q (%v)", body.Beta, err)
	}

	srv = replay.NewServer(t, okExchange())
	if _, err := newVertexModel(t, srv.URL, VertexConfig{Config: Config{Model: "claude-opus-4-5@20251101"}}).Call(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	if got := srv.Requests()[0].Header.Get("Anthropic-Beta"); got != toolSearchCloudBeta {
		t.Errorf("vertex: anthropic-beta %q", got)
	}
}

// A call so long that it goes through the streaming endpoint reads a streamed search's blocks as
// a streamed answer does: the search's input joined from its deltas.
func TestToolSearchCalledThroughAStream(t *testing.T) {
	exs := providertest.Load(t, "toolsearch", "vercel-tool-search-regex-stream-claude-sonnet-4-5")
	srv := replay.NewServer(t, exs[0])
	m := newTestModel(t, srv.URL, Config{MaxTokens: 64000})
	resp, err := m.Call(context.Background(), &chat.Prompt{Messages: []chat.Message{chat.User("Weather?")}})
	if err != nil {
		t.Fatal(err)
	}
	var a chat.Aggregator
	srv = replay.NewServer(t, exs[0])
	for chunk, err := range newTestModel(t, srv.URL, Config{}).Stream(context.Background(), &chat.Prompt{Messages: []chat.Message{chat.User("Weather?")}}) {
		if err != nil {
			t.Fatal(err)
		}
		a.Add(chunk)
	}
	called, streamed := resp.Message().ServerTools, a.Response().Message().ServerTools
	if len(called) != 2 || !strings.Contains(called[0].Arguments, `"pattern"`) || resp.Usage.ServerToolCalls != 1 {
		t.Fatalf("server tools %+v, usage %+v", called, resp.Usage)
	}
	for i := range called {
		if called[i].ID != streamed[i].ID || called[i].Arguments != streamed[i].Arguments || providertest.Canonical(t, called[i].Data) != providertest.Canonical(t, streamed[i].Data) {
			t.Errorf("step %d: called %+v, streamed %+v", i, called[i], streamed[i])
		}
	}
}

// A streamed search whose input deltas do not make JSON fails the stream as malformed, rather
// than keeping a block the API would refuse on the next request.
func TestToolSearchMalformedStream(t *testing.T) {
	body := providertest.SSE(
		`{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[],"usage":{"input_tokens":1,"output_tokens":1}}}`,
		`{"type":"content_block_start","index":0,"content_block":{"type":"server_tool_use","id":"srvtoolu_1","name":"tool_search_tool_regex","input":{}}}`,
		`{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"pattern\": \"wea"}}`,
		`{"type":"content_block_stop","index":0}`,
		`{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":2}}`,
		`{"type":"message_stop"}`,
	)
	srv := replay.NewServer(t, replay.Exchange{Header: http.Header{"Content-Type": {"text/event-stream"}}, Body: body})
	_, err := chat.Aggregate(newTestModel(t, srv.URL, Config{}).Stream(context.Background(), &chat.Prompt{Messages: []chat.Message{chat.User("hi")}}))
	if err == nil || !strings.Contains(err.Error(), "malformed stream: server_tool_use 0 input") {
		t.Errorf("err = %v", err)
	}
}
