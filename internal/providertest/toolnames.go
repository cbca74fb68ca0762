package providertest

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/client"
	"github.com/wield-ai/wield/tool"
)

// NameCase is a set of tool names a provider's API may refuse, for [ToolNameLoop]: the tools
// offered, the one the model calls, and the names the API must receive unchanged.
type NameCase struct {
	Name      string
	Tools     []string
	Target    string
	Unchanged []string
}

// longName is a 127-byte name of the kind MCP servers behind prefixes produce; longName2 shares
// its first 100 bytes, so cutting both short makes them collide.
var (
	longName  = "mcp__github_enterprise_server__" + strings.Repeat("repository_", 6) + "list_open_issues_assigned_to_me"
	longName2 = longName[:100] + "_and_closed_ones_too"
)

// NameCases are the names every provider's table test runs: dotted (MCP style), long (over
// 100 bytes, two sharing a prefix), unicode, colliding once rewritten, and plain valid names.
func NameCases() []NameCase {
	return []NameCase{
		{Name: "dotted", Tools: []string{"github.list.issues", "github.get.issue", "fs/read file"}, Target: "github.list.issues"},
		{Name: "long", Tools: []string{longName, longName2}, Target: longName2},
		{Name: "unicode", Tools: []string{"météo.du.jour", "天气预报", "prévisions"}, Target: "天气预报"},
		{Name: "colliding", Tools: []string{"a.b", "a_b", "a:b", "a b"}, Target: "a:b", Unchanged: []string{"a_b"}},
		{Name: "valid", Tools: []string{"get_weather", "get-time"}, Target: "get_weather", Unchanged: []string{"get_weather", "get-time"}},
	}
}

// NameRequest is what a fake API reads from a request, in wire names.
type NameRequest struct {
	Stream bool
	// Tools are the tools offered: wire name and description.
	Tools []NameTool
	// Calls are the tool calls of the conversation's assistant turns.
	Calls []NameCall
	// Results are the tool results of the conversation; Name is empty where the API's results
	// carry no name.
	Results []NameCall
}

// NameTool is a tool as offered on the wire. It decodes from the name and description of the
// tool objects of Anthropic, OpenAI (under "function" in Chat Completions), Gemini's function
// declarations and Bedrock's tool specs.
type NameTool struct {
	Name        string `json:"name"`
	Description string `json:"description"`
}

// NameCall is a tool call or result as sent on the wire.
type NameCall struct{ ID, Name, Content string }

// DecodeNames makes a [NameAPI] Parse of read: the request's JSON body is decoded into a Req,
// from which read takes the names.
func DecodeNames[Req any](read func(r *http.Request, req *Req) NameRequest) func(*http.Request, []byte) (NameRequest, error) {
	return func(r *http.Request, body []byte) (NameRequest, error) {
		req := new(Req)
		if err := json.Unmarshal(body, req); err != nil {
			return NameRequest{}, err
		}
		return read(r, req), nil
	}
}

// ChatNames makes the [NameAPI] Parse of the Chat Completions shape that OpenAI's API and
// Ollama's /api/chat share: the tools under "function", the calls in the tool_calls of assistant
// messages, the results in messages of role "tool" (with the tool_name Ollama adds, empty for
// OpenAI). A request that does not say whether to stream streams when streamByDefault is set,
// as Ollama's do.
func ChatNames(streamByDefault bool) func(*http.Request, []byte) (NameRequest, error) {
	return DecodeNames(func(_ *http.Request, req *chatNames) NameRequest {
		out := NameRequest{Stream: streamByDefault}
		if req.Stream != nil {
			out.Stream = *req.Stream
		}
		for _, t := range req.Tools {
			out.Tools = append(out.Tools, t.Function)
		}
		for _, m := range req.Messages {
			for _, c := range m.ToolCalls {
				out.Calls = append(out.Calls, NameCall{ID: c.ID, Name: c.Function.Name})
			}
			if m.Role == "tool" {
				out.Results = append(out.Results, NameCall{ID: m.ToolCallID, Name: m.ToolName, Content: fmt.Sprint(m.Content)})
			}
		}
		return out
	})
}

// chatNames is what [ChatNames] reads of a request.
type chatNames struct {
	Stream *bool `json:"stream"`
	Tools  []struct {
		Function NameTool `json:"function"`
	} `json:"tools"`
	Messages []struct {
		Role       string `json:"role"`
		Content    any    `json:"content"`
		ToolName   string `json:"tool_name"`
		ToolCallID string `json:"tool_call_id"`
		ToolCalls  []struct {
			ID       string `json:"id"`
			Function struct {
				Name string `json:"name"`
			} `json:"function"`
		} `json:"tool_calls"`
	} `json:"messages"`
}

// NameAPI is a fake of one provider's API for [ToolNameLoop], in that API's wire format.
type NameAPI struct {
	// Rule is the provider's documented name rule; a request offering a tool whose name breaks
	// it is refused with 400, as the API does.
	Rule *regexp.Regexp
	// Parse reads a request.
	Parse func(r *http.Request, body []byte) (NameRequest, error)
	// Call answers with one call of the tool named wire, with the given id and arguments.
	Call func(w http.ResponseWriter, stream bool, id, wire, args string)
	// Final answers with text.
	Final func(w http.ResponseWriter, stream bool, text string)
}

// targetDescription marks the tool the fake model calls.
const targetDescription = "the tool to call"

// nameTool is a tool with any name that records its calls.
type nameTool struct {
	def   tool.Definition
	mu    sync.Mutex
	calls []string
}

func (n *nameTool) Definition() tool.Definition { return n.def }
func (*nameTool) Metadata() tool.Metadata       { return tool.Metadata{} }
func (n *nameTool) Call(_ context.Context, args string) (string, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.calls = append(n.calls, args)
	var in struct {
		City string `json:"city"`
	}
	if err := json.Unmarshal([]byte(args), &in); err != nil {
		return "", err
	}
	return "sunny in " + in.City + " says " + n.def.Name, nil
}

// ToolNameLoop runs every [NameCases] case through a whole tool loop against api, called and
// streamed: first the model alone (its call must come back under the tool's own name), then
// client.Client's tool loop, in which the tool must run once and its result reach the final
// answer. The fake API refuses names outside the provider's rule, checks that names the rule
// accepts arrive unchanged, and that the calls and results of the history use the wire names of
// the tools offered.
func ToolNameLoop(t *testing.T, api NameAPI, newModel func(t testing.TB, url string) chat.Model) {
	for _, nc := range NameCases() {
		for _, stream := range []bool{false, true} {
			name := nc.Name
			if stream {
				name += "/stream"
			}
			t.Run(name, func(t *testing.T) { nameLoop(t, api, newModel, nc, stream) })
		}
	}
}

func nameLoop(t *testing.T, api NameAPI, newModel func(t testing.TB, url string) chat.Model, nc NameCase, stream bool) {
	var tools []*nameTool
	var offered []tool.Tool
	for _, n := range nc.Tools {
		desc := "Weather for a city"
		if n == nc.Target {
			desc = targetDescription
		}
		nt := &nameTool{def: tool.Definition{Name: n, Description: desc,
			InputSchema: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`)}}
		tools = append(tools, nt)
		offered = append(offered, nt)
	}
	var mu sync.Mutex
	var problems []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		req, err := api.Parse(r, body)
		if err == nil {
			err = checkNames(api.Rule, nc, req)
		}
		if err != nil {
			mu.Lock()
			problems = append(problems, err.Error())
			mu.Unlock()
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprintf(w, `{"error":{"message":%q,"type":"invalid_request_error","code":400}}`, err.Error())
			return
		}
		if len(req.Results) == 0 {
			target := slices.IndexFunc(req.Tools, func(nt NameTool) bool { return nt.Description == targetDescription })
			api.Call(w, req.Stream, "Call00001", req.Tools[target].Name, `{"city":"Florence"}`)
			return
		}
		api.Final(w, req.Stream, "result: "+req.Results[len(req.Results)-1].Content)
	}))
	defer srv.Close()
	fail := func(format string, args ...any) {
		t.Helper()
		mu.Lock()
		defer mu.Unlock()
		t.Fatalf(format+"\nrequests refused: %q", append(args, problems)...)
	}
	m := newModel(t, srv.URL)

	p := &chat.Prompt{Messages: []chat.Message{chat.User("Weather in Florence?")}, Options: &chat.Options{Tools: offered}}
	first, err := Run(context.Background(), m, p, stream)
	if err != nil {
		fail("first answer: %v", err)
	}
	if calls := first.ToolCalls(); len(calls) != 1 || calls[0].Name != nc.Target {
		fail("the model's calls %+v, want one call of %q", calls, nc.Target)
	}

	c, err := client.New(m)
	if err != nil {
		fail("client: %v", err)
	}
	resp, _ := Send(t, c.Prompt("Weather in Florence?").Tools(offered), stream)
	want := "result: sunny in Florence says " + nc.Target
	if resp.Text() != want {
		fail("final answer %q, want %q", resp.Text(), want)
	}
	for _, nt := range tools {
		nt.mu.Lock()
		n := len(nt.calls)
		nt.mu.Unlock()
		if nt.def.Name == nc.Target && n != 1 || nt.def.Name != nc.Target && n != 0 {
			fail("tool %q ran %d times", nt.def.Name, n)
		}
	}
}

// checkNames checks a request's names as the API would, and as the test expects them.
func checkNames(rule *regexp.Regexp, nc NameCase, req NameRequest) error {
	if len(req.Tools) != len(nc.Tools) {
		return fmt.Errorf("%d tools offered, want %d", len(req.Tools), len(nc.Tools))
	}
	wire := map[string]bool{}
	for _, nt := range req.Tools {
		if !rule.MatchString(nt.Name) {
			return fmt.Errorf("tool name %q does not match %s", nt.Name, rule)
		}
		if wire[nt.Name] {
			return fmt.Errorf("two tools are named %q", nt.Name)
		}
		wire[nt.Name] = true
	}
	for _, n := range nc.Unchanged {
		if !wire[n] {
			return fmt.Errorf("valid name %q was not sent unchanged", n)
		}
	}
	for _, c := range req.Calls {
		if !wire[c.Name] {
			return fmt.Errorf("the history calls %q, which no tool offered is named", c.Name)
		}
	}
	for _, r := range req.Results {
		if r.Name != "" && !wire[r.Name] {
			return fmt.Errorf("the history has a result of %q, which no tool offered is named", r.Name)
		}
		if r.Name != "" && len(req.Calls) > 0 && r.Name != req.Calls[len(req.Calls)-1].Name {
			return fmt.Errorf("result named %q answers a call of %q", r.Name, req.Calls[len(req.Calls)-1].Name)
		}
	}
	return nil
}
