package chat

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/wield-ai/wield/tool"
)

func TestToolSearchCheck(t *testing.T) {
	tools := []tool.Tool{namedTool("search"), namedTool("weather"), nil}
	for _, tc := range []struct {
		s    ToolSearch
		want string // "" for valid
	}{
		{ToolSearch{Kind: ToolSearchServer}, ""},
		{ToolSearch{Kind: ToolSearchRegex, Loaded: []string{"weather", "absent"}}, ""},
		{ToolSearch{Kind: ToolSearchBM25}, ""},
		{ToolSearch{Kind: ToolSearchClient, Tool: "search"}, ""},
		{ToolSearch{Kind: ToolSearchClient}, "Tool must name the search tool"},
		{ToolSearch{Kind: ToolSearchClient, Tool: "find"}, `"find" is none of the request's tools`},
		{ToolSearch{Kind: ToolSearchRegex, Tool: "search"}, `is only for "client"`},
		{ToolSearch{Kind: "vector"}, `unknown kind "vector"`},
		{ToolSearch{}, `unknown kind ""`},
	} {
		err := tc.s.Check(tools)
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%+v: Check = %v, want %q", tc.s, err, tc.want)
		}
	}
}

func TestToolSearchDeferred(t *testing.T) {
	s := &ToolSearch{Kind: ToolSearchClient, Tool: "search", Loaded: []string{"clock"}}
	for name, want := range map[string]bool{"search": false, "clock": false, "pick": false, "weather": true} {
		if got := s.Deferred(name, "pick"); got != want {
			t.Errorf("Deferred(%q) = %v, want %v", name, got, want)
		}
	}
	var none *ToolSearch
	if none.Deferred("weather", "") || none.Server() {
		t.Error("a nil ToolSearch defers nothing and is no server search")
	}
	if !(&ToolSearch{Kind: ToolSearchRegex}).Server() || s.Server() {
		t.Error("Server: regex is the provider's search, client is not")
	}
}

func TestToolSearchResultRoundTrip(t *testing.T) {
	for _, names := range [][]string{nil, {"weather"}, {"a.b", "ü", "x y"}} {
		text := ToolSearchResult(names...)
		got, err := ParseToolSearchResult(text)
		if err != nil || len(got) != len(names) || (len(names) > 0 && !reflect.DeepEqual(got, names)) {
			t.Errorf("ParseToolSearchResult(%s) = %q, %v; want %q", text, got, err, names)
		}
	}
	if got := ToolSearchResult(); got != `{"tools":[]}` {
		t.Errorf("no tools = %s", got)
	}
	for _, bad := range []string{"", "Found 2 tools: a, b", `{}`, `{"tools":null}`, `{"tools":["a"],"x":1}`,
		`{"tools":[""]}`, `{"tools":[1]}`, `{"tools":[]} {"tools":[]}`, `["a"]`} {
		if _, err := ParseToolSearchResult(bad); err == nil {
			t.Errorf("ParseToolSearchResult(%q) accepted", bad)
		}
	}
}

func TestRefuseToolSearch(t *testing.T) {
	if err := RefuseToolSearch("ollama", nil); err != nil {
		t.Error(err)
	}
	if err := RefuseToolSearch("ollama", &Options{}); err != nil {
		t.Error(err)
	}
	err := RefuseToolSearch("ollama", &Options{ToolSearch: &ToolSearch{Kind: ToolSearchRegex}})
	if !errors.Is(err, ErrToolSearchUnsupported) || !strings.Contains(err.Error(), `ollama: tool search "regex"`) {
		t.Errorf("err = %v", err)
	}
}

func TestToolSearchOptionsMergeAndClone(t *testing.T) {
	base := &Options{ToolSearch: &ToolSearch{Kind: ToolSearchBM25, Loaded: []string{"a"}}}
	c := base.Clone()
	c.ToolSearch.Loaded[0] = "changed"
	if base.ToolSearch.Loaded[0] != "a" {
		t.Error("Clone shares Loaded")
	}
	if got := Merge(base, &Options{}); got.ToolSearch.Kind != ToolSearchBM25 || got.ToolSearch == base.ToolSearch {
		t.Errorf("Merge without override: %+v", got.ToolSearch)
	}
	over := &Options{ToolSearch: &ToolSearch{Kind: ToolSearchClient, Tool: "s"}}
	if got := Merge(base, over); got.ToolSearch.Kind != ToolSearchClient || got.ToolSearch.Tool != "s" {
		t.Errorf("Merge with override: %+v", got.ToolSearch)
	}
}

// Server tools survive JSON, cloning, aggregation of a stream and the joining of generations.
func TestServerToolsKept(t *testing.T) {
	call := ServerTool{Provider: "anthropic", ID: "srvtoolu_1", Name: "tool_search_tool_regex", Arguments: `{"pattern":"weather"}`,
		Data: json.RawMessage(`{"type":"server_tool_use","id":"srvtoolu_1"}`)}
	result := ServerTool{Provider: "anthropic", ID: "srvtoolu_1", Result: true, Tools: []string{"weather"},
		Data: json.RawMessage(`{"type":"tool_search_tool_result","tool_use_id":"srvtoolu_1"}`)}
	msg := Message{Role: RoleAssistant, Content: "found it", ServerTools: []ServerTool{call, result},
		ToolCalls: []ToolCall{{ID: "toolu_1", Name: "weather", Arguments: `{}`}}}

	b, err := json.Marshal(msg)
	if err != nil {
		t.Fatal(err)
	}
	var back Message
	if err := json.Unmarshal(b, &back); err != nil || !reflect.DeepEqual(back, msg) {
		t.Fatalf("JSON round trip: %+v (%v)", back, err)
	}
	c := msg.Clone()
	c.ServerTools[0].Name = "changed"
	if msg.ServerTools[0].Name != call.Name {
		t.Error("Clone shares ServerTools")
	}

	delta := func(m Message) *Response {
		m.Role = RoleAssistant
		return &Response{Generations: []Generation{{Message: m}}}
	}
	got, err := Aggregate(seq(delta(Message{ServerTools: []ServerTool{call}}), delta(Message{ServerTools: []ServerTool{result}}),
		delta(Message{Content: "found it"}), delta(Message{ToolCalls: msg.ToolCalls})))
	if err != nil || !reflect.DeepEqual(got.Message(), msg) {
		t.Fatalf("aggregated %+v (%v), want %+v", got.Message(), err, msg)
	}

	split := &Response{Generations: []Generation{
		{Message: Message{Role: RoleAssistant, ServerTools: []ServerTool{call, result}}},
		{Index: 1, Message: Message{Role: RoleAssistant, Content: "found it", ToolCalls: msg.ToolCalls}},
	}}
	if got := split.Message(); !reflect.DeepEqual(got, msg) {
		t.Errorf("joined generations: %+v, want %+v", got, msg)
	}
}
