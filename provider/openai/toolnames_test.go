package openai

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/internal/clienttest"
	"github.com/wield-ai/wield/internal/providertest"
	"github.com/wield-ai/wield/mcp/mcptest"
)

// openAIName is the rule both OpenAI APIs document for function names.
var openAIName = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

// chatNameAPI fakes the Chat Completions API for the tool-name loops.
var chatNameAPI = providertest.NameAPI{
	Rule:  openAIName,
	Parse: providertest.ChatNames(false),
	Call: func(w http.ResponseWriter, stream bool, id, wire, args string) {
		call := fmt.Sprintf(`{"index":0,"id":%q,"type":"function","function":{"name":%q,"arguments":%q}}`, id, wire, args)
		if stream {
			writeSSE(w,
				`{"id":"c1","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"role":"assistant","tool_calls":[`+call+`]},"finish_reason":null}]}`,
				`{"id":"c1","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`)
			return
		}
		writeJSON(w, `{"id":"c1","object":"chat.completion","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":null,"tool_calls":[`+call+`]},"finish_reason":"tool_calls"}]}`)
	},
	Final: func(w http.ResponseWriter, stream bool, text string) {
		if stream {
			writeSSE(w, fmt.Sprintf(`{"id":"c2","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":%q},"finish_reason":"stop"}]}`, text))
			return
		}
		writeJSON(w, fmt.Sprintf(`{"id":"c2","object":"chat.completion","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":%q},"finish_reason":"stop"}]}`, text))
	},
}

// responsesNameAPI fakes the Responses API for the tool-name loops.
var responsesNameAPI = providertest.NameAPI{
	Rule: openAIName,
	Parse: providertest.DecodeNames(func(_ *http.Request, req *struct {
		Stream bool                    `json:"stream"`
		Tools  []providertest.NameTool `json:"tools"`
		Input  []struct {
			Type   string `json:"type"`
			CallID string `json:"call_id"`
			Name   string `json:"name"`
			Output string `json:"output"`
		} `json:"input"`
	}) providertest.NameRequest {
		out := providertest.NameRequest{Stream: req.Stream, Tools: req.Tools}
		for _, in := range req.Input {
			switch in.Type {
			case "function_call":
				out.Calls = append(out.Calls, providertest.NameCall{ID: in.CallID, Name: in.Name})
			case "function_call_output":
				out.Results = append(out.Results, providertest.NameCall{ID: in.CallID, Content: in.Output})
			}
		}
		return out
	}),
	Call: func(w http.ResponseWriter, stream bool, id, wire, args string) {
		item := fmt.Sprintf(`{"type":"function_call","id":"fc_1","call_id":%q,"name":%q,"arguments":%q,"status":"completed"}`, id, wire, args)
		done := `{"id":"resp_1","object":"response","model":"m","status":"completed","output":[` + item + `]}`
		if stream {
			writeSSE(w,
				`{"type":"response.created","response":{"id":"resp_1","model":"m","status":"in_progress","output":[]}}`,
				`{"type":"response.output_item.added","output_index":0,"item":`+strings.Replace(item, fmt.Sprintf("%q", args), `""`, 1)+`}`,
				fmt.Sprintf(`{"type":"response.function_call_arguments.delta","output_index":0,"item_id":"fc_1","delta":%q}`, args),
				`{"type":"response.output_item.done","output_index":0,"item":`+item+`}`,
				`{"type":"response.completed","response":`+done+`}`)
			return
		}
		writeJSON(w, done)
	},
	Final: func(w http.ResponseWriter, stream bool, text string) {
		msg := fmt.Sprintf(`{"type":"message","id":"msg_1","role":"assistant","status":"completed","content":[{"type":"output_text","text":%q,"annotations":[]}]}`, text)
		done := `{"id":"resp_2","object":"response","model":"m","status":"completed","output":[` + msg + `]}`
		if stream {
			writeSSE(w,
				`{"type":"response.created","response":{"id":"resp_2","model":"m","status":"in_progress","output":[]}}`,
				fmt.Sprintf(`{"type":"response.output_text.delta","output_index":0,"content_index":0,"item_id":"msg_1","delta":%q}`, text),
				`{"type":"response.completed","response":`+done+`}`)
			return
		}
		writeJSON(w, done)
	},
}

func writeJSON(w http.ResponseWriter, body string) {
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprint(w, body)
}

// writeSSE writes a Chat Completions stream (data lines and [DONE]); Responses events are
// written the same way, their type being in the payload.
func writeSSE(w http.ResponseWriter, payloads ...string) {
	w.Header().Set("Content-Type", "text/event-stream")
	for _, p := range payloads {
		fmt.Fprintf(w, "data: %s\n\n", p)
	}
	fmt.Fprint(w, "data: [DONE]\n\n")
}

// TestToolNames runs dotted, long, unicode and colliding tool names through whole tool loops of
// both APIs: OpenAI receives names its rule accepts, and the model's calls come back under the
// tools' own names.
func TestToolNames(t *testing.T) {
	t.Run("chat", func(t *testing.T) {
		providertest.ToolNameLoop(t, chatNameAPI, func(t testing.TB, url string) chat.Model {
			return newTestModel(t, New, url, Config{Model: "m"})
		})
	})
	t.Run("responses", func(t *testing.T) {
		providertest.ToolNameLoop(t, responsesNameAPI, func(t testing.TB, url string) chat.Model {
			return newTestModel(t, NewResponses, url, Config{Model: "m"})
		})
	})
}

// TestMCPToolNames runs a whole tool loop with tools of an MCP server whose names OpenAI refuses
// (dotted, prefixed per server, one of them over 64 bytes): the tools reach the API under wire
// names, the model's call comes back under the MCP tool's name, and the MCP server runs it.
func TestMCPToolNames(t *testing.T) {
	server := sdk.NewServer(&sdk.Implementation{Name: "github", Version: "v0"}, nil)
	type in struct {
		Repo string `json:"repo"`
	}
	var ran atomic.Int32
	sdk.AddTool(server, &sdk.Tool{Name: "issues.list", Description: "List the open issues of a repository"},
		func(_ context.Context, _ *sdk.CallToolRequest, args in) (*sdk.CallToolResult, any, error) {
			ran.Add(1)
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "3 open issues in " + args.Repo}}}, nil, nil
		})
	sdk.AddTool(server, &sdk.Tool{Name: "issues.search." + strings.Repeat("by_label.", 6) + "and_milestone", Description: "Search issues"},
		func(context.Context, *sdk.CallToolRequest, in) (*sdk.CallToolResult, any, error) {
			return nil, nil, nil
		})
	cfg := mcptest.InMemory("github", server)
	cfg.Prefix = "gh."
	tools, err := mcptest.Connect(t, cfg).Tools(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var offered []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		req, err := chatNameAPI.Parse(r, body)
		if err != nil {
			t.Error(err)
		}
		mu.Lock()
		defer mu.Unlock()
		offered = nil
		target := ""
		for _, nt := range req.Tools {
			offered = append(offered, nt.Name)
			if !openAIName.MatchString(nt.Name) {
				w.WriteHeader(http.StatusBadRequest)
				fmt.Fprintf(w, `{"error":{"message":"Invalid 'tools[0].function.name': %q"}}`, nt.Name)
				return
			}
			if nt.Description == "List the open issues of a repository" {
				target = nt.Name
			}
		}
		if len(req.Results) == 0 {
			chatNameAPI.Call(w, false, "call_1", target, `{"repo":"wield-ai/wield"}`)
			return
		}
		chatNameAPI.Final(w, false, "Found: "+req.Results[0].Content)
	}))
	defer srv.Close()
	m := newTestModel(t, New, srv.URL, Config{Model: "m"})
	resp, _ := providertest.Send(t, clienttest.New(t, m).Prompt("How many issues are open?").Tools(tools), false)
	mu.Lock()
	defer mu.Unlock()
	if resp.Text() != "Found: 3 open issues in wield-ai/wield" || ran.Load() != 1 {
		t.Fatalf("answer %q after %d calls of the MCP tool; names sent %q", resp.Text(), ran.Load(), offered)
	}
	if slices.Contains(offered, "gh.issues.list") || !slices.Contains(offered, "gh_issues_list") {
		t.Errorf("names sent %q", offered)
	}
}
