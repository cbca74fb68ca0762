package openai

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/openai/openai-go/v3/responses"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/client"
	"github.com/wield-ai/wield/internal/providertest"
	"github.com/wield-ai/wield/internal/replay"
	"github.com/wield-ai/wield/tool"
	"github.com/wield-ai/wield/toolsearch"
)

// hostedSearch reads the hosted search's items of a recorded answer, independently of the code
// under test: the server tools the answer's message must hold, each with the item as it came.
func hostedSearch(t testing.TB, body []byte, stream bool) []chat.ServerTool {
	t.Helper()
	var items []json.RawMessage
	if stream {
		for _, d := range replay.SSEData(body) {
			var ev struct {
				Type string          `json:"type"`
				Item json.RawMessage `json:"item"`
			}
			if err := json.Unmarshal(d, &ev); err != nil {
				t.Fatal(err)
			}
			if ev.Type == "response.output_item.done" {
				items = append(items, ev.Item)
			}
		}
	} else {
		var r struct {
			Output []json.RawMessage `json:"output"`
		}
		if err := json.Unmarshal(body, &r); err != nil {
			t.Fatal(err)
		}
		items = r.Output
	}
	var out []chat.ServerTool
	for _, raw := range items {
		var it struct {
			Type      string          `json:"type"`
			ID        string          `json:"id"`
			Arguments json.RawMessage `json:"arguments"`
			Tools     []struct {
				Name string `json:"name"`
			} `json:"tools"`
		}
		if err := json.Unmarshal(raw, &it); err != nil {
			t.Fatal(err)
		}
		st := chat.ServerTool{Provider: Provider, ID: it.ID, Data: raw}
		switch it.Type {
		case "tool_search_call":
			st.Name, st.Arguments = "tool_search", providertest.Canonical(t, it.Arguments)
		case "tool_search_output":
			st.Result = true
			for _, tl := range it.Tools {
				st.Tools = append(st.Tools, tl.Name)
			}
		default:
			continue
		}
		out = append(out, st)
	}
	return out
}

// searchTools are the recordings' tools: each records its calls; find is a client search that
// finds get_weather.
type searchTools struct {
	mu    sync.Mutex
	calls []string
	args  []string
}

func (s *searchTools) tool(name, description, schema string, result string) tool.Tool {
	t := newTool(name, description, schema)
	t.fn = func(_ context.Context, args string) (string, error) {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.calls = append(s.calls, name)
		s.args = append(s.args, args)
		return result, nil
	}
	return t
}

func (s *searchTools) all() []tool.Tool {
	return []tool.Tool{
		s.tool("find", "Search for available tools based on what the user needs.",
			`{"type":"object","properties":{"goal":{"type":"string","description":"What the user is trying to accomplish"}},"required":["goal"],"additionalProperties":false}`,
			chat.ToolSearchResult("get_weather")),
		s.tool("get_weather", "Get the current weather at a specific location",
			`{"type":"object","properties":{"location":{"type":"string","description":"The city and state, e.g. San Francisco, CA"},"unit":{"type":"string","enum":["celsius","fahrenheit"],"description":"Temperature unit"}},"required":["location","unit"],"additionalProperties":false}`,
			"65 F, sunny"),
		s.tool("search_files", "Search through files in the workspace",
			`{"type":"object","properties":{"query":{"type":"string","description":"The search query"},"file_types":{"type":"array","items":{"type":"string"},"description":"Filter by file types"}},"required":["query","file_types"],"additionalProperties":false}`,
			"no files"),
		s.tool("send_email", "Send an email to a recipient",
			`{"type":"object","properties":{"to":{"type":"string"},"subject":{"type":"string"},"body":{"type":"string"}},"required":["to","subject","body"],"additionalProperties":false}`,
			"sent"),
	}
}

// finalAnswer is a closing answer in the shape of the Responses API (the recordings stop at the
// function call), as a whole body or as a stream.
func finalAnswer(stream bool) replay.Exchange {
	const resp = `{"id":"resp_final","object":"response","created_at":1772840700,"status":"completed","model":"gpt-5.4-2026-03-05",` +
		`"output":[{"id":"msg_final","type":"message","status":"completed","role":"assistant","content":[{"type":"output_text","text":"It is 65 F and sunny in San Francisco.","annotations":[]}]}],` +
		`"usage":{"input_tokens":700,"input_tokens_details":{"cached_tokens":0},"output_tokens":12,"output_tokens_details":{"reasoning_tokens":0},"total_tokens":712}}`
	if !stream {
		return replay.Exchange{Header: http.Header{"Content-Type": {"application/json"}}, Body: []byte(resp)}
	}
	return replay.Exchange{Header: http.Header{"Content-Type": {"text/event-stream"}}, Body: providertest.SSE(
		`{"type":"response.created","sequence_number":0,"response":{"id":"resp_final","object":"response","status":"in_progress","model":"gpt-5.4-2026-03-05","output":[]}}`,
		`{"type":"response.output_text.delta","sequence_number":1,"item_id":"msg_final","output_index":0,"content_index":0,"delta":"It is 65 F and sunny in San Francisco."}`,
		`{"type":"response.completed","sequence_number":2,"response":`+resp+`}`,
	)}
}

// requestInput decodes a request's tools and input with plain encoding/json, after checking
// that the SDK's own types read it.
func requestInput(t testing.TB, body []byte) (tools, input []map[string]any) {
	t.Helper()
	var params responses.ResponseNewParams
	if err := json.Unmarshal(body, &params); err != nil {
		t.Fatalf("the SDK cannot read the request: %v", err)
	}
	var r struct {
		Tools []map[string]any `json:"tools"`
		Input []map[string]any `json:"input"`
	}
	if err := json.Unmarshal(body, &r); err != nil {
		t.Fatal(err)
	}
	return r.Tools, r.Input
}

func types(items []map[string]any) []string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i], _ = it["type"].(string)
		if out[i] == "" {
			out[i] = "message"
		}
	}
	return out
}

// TestToolSearchLoopReplayed runs whole tool loops on OpenAI's recorded tool-search answers. The
// hosted search: every tool goes deferred beside the tool_search tool, the model searches on
// the server and calls get_weather, and the next request sends the search's items back as they
// came. The client's search: the search tool goes as a client-executed tool_search tool, the
// model's tool_search_call runs it, its result goes back as a tool_search_output loading
// get_weather's definition, and the model calls get_weather. The recordings hold answers only
// and end at the call; the final answer is written here. The hosted search runs asked for in the
// request's options and by the tool search advisor.
func TestToolSearchLoopReplayed(t *testing.T) {
	for _, tc := range []struct {
		name   string
		kind   chat.ToolSearchKind
		cases  []string
		calls  []string
		inputs [][]string // the item types of each request's input after the first
	}{
		{"hosted", chat.ToolSearchServer, []string{"vercel-tool-search-function-call-gpt-5.4"},
			[]string{"get_weather"}, [][]string{{"message", "tool_search_call", "tool_search_output", "function_call", "function_call_output"}}},
		{"hosted-stream", chat.ToolSearchServer, []string{"vercel-tool-search-function-call-stream-gpt-5.4"},
			[]string{"get_weather"}, [][]string{{"message", "tool_search_call", "tool_search_output", "function_call", "function_call_output"}}},
		// The tool search advisor, handing its search to OpenAI.
		{"hosted-advisor", chat.ToolSearchServer, []string{"vercel-tool-search-function-call-gpt-5.4"},
			[]string{"get_weather"}, [][]string{{"message", "tool_search_call", "tool_search_output", "function_call", "function_call_output"}}},
		{"hosted-advisor-stream", chat.ToolSearchServer, []string{"vercel-tool-search-function-call-stream-gpt-5.4"},
			[]string{"get_weather"}, [][]string{{"message", "tool_search_call", "tool_search_output", "function_call", "function_call_output"}}},
		{"client", chat.ToolSearchClient, []string{"vercel-client-tool-search-call-gpt-5.4", "vercel-client-tool-search-function-call-gpt-5.4"},
			[]string{"find", "get_weather"}, [][]string{{"message", "tool_search_call", "tool_search_output"},
				{"message", "tool_search_call", "tool_search_output", "function_call", "function_call_output"}}},
		{"client-stream", chat.ToolSearchClient, []string{"vercel-client-tool-search-call-stream-gpt-5.4", "vercel-client-tool-search-function-call-stream-gpt-5.4"},
			[]string{"find", "get_weather"}, [][]string{{"message", "tool_search_call", "tool_search_output"},
				{"message", "tool_search_call", "tool_search_output", "function_call", "function_call_output"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stream := strings.HasSuffix(tc.name, "-stream")
			var exs []replay.Exchange
			for _, name := range tc.cases {
				exs = append(exs, providertest.Load(t, "responses", name)...)
			}
			exs = append(exs, finalAnswer(stream))
			srv := replay.NewServer(t, exs...)
			m := newTestModel(t, NewResponses, srv.URL+"/v1", Config{Model: "gpt-5.4", Store: ptr(false)})
			var st searchTools
			tools := st.all()
			opts := &chat.Options{ToolSearch: &chat.ToolSearch{Kind: tc.kind}}
			if tc.kind == chat.ToolSearchClient {
				opts.ToolSearch.Tool = "find"
			} else {
				tools = tools[1:]
			}
			var copts []client.Option
			if strings.Contains(tc.name, "-advisor") {
				opts = nil
				copts = append(copts, client.WithAdvisors(toolsearch.New(toolsearch.Config{Native: tc.kind})))
			}
			c, err := client.New(m, copts...)
			if err != nil {
				t.Fatal(err)
			}
			resp, _ := providertest.Send(t, c.Prompt("What's the weather in San Francisco?").Tools(tools).Options(opts), stream)
			if !slices.Equal(st.calls, tc.calls) || resp.Text() != "It is 65 F and sunny in San Francisco." {
				t.Fatalf("called %q, answered %q", st.calls, resp.Text())
			}
			reqs := srv.Requests()
			if len(reqs) != len(exs) {
				t.Fatalf("%d requests for %d answers", len(reqs), len(exs))
			}
			for i, r := range reqs {
				sent, input := requestInput(t, r.Body)
				var deferred []string
				var search map[string]any
				for _, tl := range sent {
					switch tl["type"] {
					case "function":
						if tl["defer_loading"] == true {
							deferred = append(deferred, tl["name"].(string))
						}
					case "tool_search":
						search = tl
					}
				}
				if want := []string{"get_weather", "search_files", "send_email"}; !slices.Equal(deferred, want) || len(sent) != 4 {
					t.Errorf("request %d: deferred %q of %d tools, want %q and the search", i+1, deferred, len(sent), want)
				}
				if tc.kind == chat.ToolSearchClient {
					if search["execution"] != "client" || search["description"] != "Search for available tools based on what the user needs." ||
						search["parameters"].(map[string]any)["required"].([]any)[0] != "goal" {
						t.Errorf("request %d: search tool %v", i+1, search)
					}
				} else if search["execution"] != "server" || search["parameters"] != nil {
					t.Errorf("request %d: search tool %v", i+1, search)
				}
				if i > 0 && !slices.Equal(types(input), tc.inputs[i-1]) {
					t.Errorf("request %d: input %q, want %q", i+1, types(input), tc.inputs[i-1])
				}
			}

			_, input := requestInput(t, reqs[1].Body)
			if tc.kind == chat.ToolSearchServer {
				// The hosted search's items go back as they came, less nothing the input refuses.
				for _, st := range hostedSearch(t, exs[0].Body, stream) {
					var want map[string]any
					if err := json.Unmarshal(st.Data, &want); err != nil {
						t.Fatal(err)
					}
					i := slices.IndexFunc(input, func(it map[string]any) bool { return it["id"] == want["id"] })
					if i < 0 || !jsonEqual(input[i], want) {
						t.Errorf("hosted search item %v sent as %v", want, input[max(i, 0)])
					}
				}
				if resp.Usage.ServerToolCalls != 1 {
					t.Errorf("usage: %d server tool calls", resp.Usage.ServerToolCalls)
				}
				return
			}
			// The client's search: its call goes back with the call id of the completed item, and its
			// result loads get_weather's definition, deferred.
			callID := map[bool]string{false: "call_AEvXZ1rvYpxHh8QZb7wGlTGH", true: "call_RWTIIVfxsJW9fecsg6fy23Dy"}[stream]
			call, out := input[1], input[2]
			if call["call_id"] != callID || call["execution"] != "client" || call["arguments"].(map[string]any)["goal"] == nil {
				t.Errorf("search call sent as %v", call)
			}
			loaded, _ := out["tools"].([]any)
			if out["call_id"] != callID || out["execution"] != "client" || len(loaded) != 1 {
				t.Fatalf("search output sent as %v", out)
			}
			if fn := loaded[0].(map[string]any); fn["name"] != "get_weather" || fn["defer_loading"] != true || fn["type"] != "function" || fn["parameters"] == nil {
				t.Errorf("loaded tool %v", fn)
			}
			if !strings.Contains(st.args[0], `"goal"`) {
				t.Errorf("the search tool ran with %s", st.args[0])
			}
			if resp.Usage.ServerToolCalls != 0 {
				t.Errorf("usage: %d server tool calls for a client search", resp.Usage.ServerToolCalls)
			}
		})
	}
}

// Settings no Responses request can honour, and Chat Completions, which has no tool search, are
// refused before anything is sent; an unsupported kind wraps chat.ErrToolSearchUnsupported, a
// bad setting does not.
func TestToolSearchRefused(t *testing.T) {
	srv := replay.NewServer(t)
	var st searchTools
	tools := st.all()
	p := func(s chat.ToolSearch) *chat.Prompt {
		return &chat.Prompt{Messages: []chat.Message{chat.User("hi")}, Options: &chat.Options{Tools: tools, ToolSearch: &s}}
	}
	r := newTestModel(t, NewResponses, srv.URL, Config{Model: "gpt-5.4"})
	for _, tc := range []struct {
		m           chat.Model
		s           chat.ToolSearch
		want        string
		unsupported bool
	}{
		{r, chat.ToolSearch{Kind: chat.ToolSearchRegex}, `openai: tool search "regex"`, true},
		{r, chat.ToolSearch{Kind: chat.ToolSearchBM25}, `openai: tool search "bm25"`, true},
		{r, chat.ToolSearch{Kind: chat.ToolSearchClient, Tool: "search"}, `"search" is none of the request's tools`, false},
		{r, chat.ToolSearch{Kind: "vector"}, `unknown kind "vector"`, false},
		{newTestModel(t, New, srv.URL, Config{Model: "gpt-5.4"}), chat.ToolSearch{Kind: chat.ToolSearchServer}, `openai: tool search "server"`, true},
		{newTestModel(t, NewMistral, srv.URL, Config{Model: "mistral-large-latest"}), chat.ToolSearch{Kind: chat.ToolSearchServer}, `tool search "server": native tool search is not supported`, true},
	} {
		_, err := tc.m.Call(context.Background(), p(tc.s))
		if err == nil || !strings.Contains(err.Error(), tc.want) || errors.Is(err, chat.ErrToolSearchUnsupported) != tc.unsupported {
			t.Errorf("%T %+v: err = %v", tc.m, tc.s, err)
		}
		for _, err := range tc.m.Stream(context.Background(), p(tc.s)) {
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%T %+v: stream err = %v", tc.m, tc.s, err)
			}
			break
		}
	}
	if srv.Served() != 0 {
		t.Errorf("%d requests sent", srv.Served())
	}
}

// A hosted search's items go back only to a request with a hosted search: without one the API
// has no tool to match them. A client search's items go back as its call and output only with a
// client search; without it they are the function call and output they are in the history.
func TestToolSearchItemsKeptOnlyForTheirSearch(t *testing.T) {
	var st searchTools
	tools := st.all()
	history := []chat.Message{
		chat.User("Weather?"),
		{Role: chat.RoleAssistant, ServerTools: []chat.ServerTool{
			{Provider: Provider, ID: "tsc_1", Name: "tool_search", Data: json.RawMessage(`{"id":"tsc_1","type":"tool_search_call","status":"completed","arguments":{"paths":["get_weather"]},"call_id":null,"execution":"server","created_by":"x"}`)},
			{Provider: Provider, ID: "tso_1", Result: true, Data: json.RawMessage(`{"id":"tso_1","type":"tool_search_output","status":"completed","call_id":null,"execution":"server","tools":[{"type":"function","name":"get_weather","defer_loading":true,"parameters":{"type":"object"},"strict":true}]}`)},
			{Provider: "anthropic", ID: "srvtoolu_1", Data: json.RawMessage(`{"type":"server_tool_use"}`)},
		}, ToolCalls: []chat.ToolCall{{ID: "call_1", Name: "find", Arguments: `{"goal":"weather"}`}}},
		chat.ToolMessage(chat.ToolResult{ID: "call_1", Name: "find", Content: chat.ToolSearchResult("get_weather", "gone")}),
	}
	for _, tc := range []struct {
		search *chat.ToolSearch
		want   []string
	}{
		{nil, []string{"message", "function_call", "function_call_output"}},
		{&chat.ToolSearch{Kind: chat.ToolSearchServer}, []string{"message", "tool_search_call", "tool_search_output", "function_call", "function_call_output"}},
		{&chat.ToolSearch{Kind: chat.ToolSearchClient, Tool: "find"}, []string{"message", "tool_search_call", "tool_search_output"}},
	} {
		srv := replay.NewServer(t, finalAnswer(false))
		m := newTestModel(t, NewResponses, srv.URL, Config{Model: "gpt-5.4"})
		if _, err := m.Call(context.Background(), &chat.Prompt{Messages: history, Options: &chat.Options{Tools: tools, ToolSearch: tc.search}}); err != nil {
			t.Fatal(err)
		}
		_, input := requestInput(t, srv.Requests()[0].Body)
		if !slices.Equal(types(input), tc.want) {
			t.Errorf("search %+v: input %q, want %q", tc.search, types(input), tc.want)
			continue
		}
		switch {
		case tc.search == nil:
		case tc.search.Server():
			if input[1]["created_by"] != nil || input[1]["arguments"].(map[string]any)["paths"] == nil {
				t.Errorf("hosted call sent as %v", input[1])
			}
		default:
			if loaded := input[2]["tools"].([]any); len(loaded) != 1 {
				t.Errorf("a tool the request does not have was loaded: %v", input[2])
			}
		}
	}
}

// A hosted search's item this package cannot read is kept as it came; sending it back then fails
// the request, before anything is sent, with the reason.
func TestToolSearchHostileItem(t *testing.T) {
	body := `{"id":"resp_1","object":"response","status":"completed","model":"gpt-5.4","output":[` +
		`{"id":"tsc_1","type":"tool_search_call","status":"completed","arguments":{"paths":["x"]},"call_id":5,"execution":"server"}],` +
		`"usage":{"input_tokens":1,"output_tokens":1,"total_tokens":2}}`
	srv := replay.NewServer(t, replay.Exchange{Header: http.Header{"Content-Type": {"application/json"}}, Body: []byte(body)})
	m := newTestModel(t, NewResponses, srv.URL, Config{Model: "gpt-5.4"})
	var st searchTools
	opts := &chat.Options{Tools: st.all()[1:], ToolSearch: &chat.ToolSearch{Kind: chat.ToolSearchServer}}
	resp, err := m.Call(context.Background(), &chat.Prompt{Messages: []chat.Message{chat.User("hi")}, Options: opts})
	if err != nil {
		t.Fatal(err)
	}
	steps := resp.Message().ServerTools
	if len(steps) != 1 || !strings.Contains(string(steps[0].Data), `"call_id":5`) {
		t.Fatalf("server tools %+v", steps)
	}
	_, err = m.Call(context.Background(), &chat.Prompt{Messages: []chat.Message{chat.User("hi"), resp.Message(), chat.User("and?")}, Options: opts})
	if err == nil || !strings.Contains(err.Error(), "call_id 5 is not a string") || srv.Served() != 1 {
		t.Errorf("err = %v, %d requests", err, srv.Served())
	}
}
