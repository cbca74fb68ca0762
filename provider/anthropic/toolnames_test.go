package anthropic

import (
	"fmt"
	"net/http"
	"regexp"
	"testing"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/internal/providertest"
)

// nameAPI fakes the Messages API for the tool-name loops, with the documented rule for tool
// names.
var nameAPI = providertest.NameAPI{
	Rule: regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`),
	Parse: providertest.DecodeNames(func(_ *http.Request, req *struct {
		Stream   bool                    `json:"stream"`
		Tools    []providertest.NameTool `json:"tools"`
		Messages []struct {
			Content []struct {
				Type      string `json:"type"`
				ID        string `json:"id"`
				Name      string `json:"name"`
				ToolUseID string `json:"tool_use_id"`
				Content   []struct {
					Text string `json:"text"`
				} `json:"content"`
			} `json:"content"`
		} `json:"messages"`
	}) providertest.NameRequest {
		out := providertest.NameRequest{Stream: req.Stream, Tools: req.Tools}
		for _, m := range req.Messages {
			for _, b := range m.Content {
				switch b.Type {
				case "tool_use":
					out.Calls = append(out.Calls, providertest.NameCall{ID: b.ID, Name: b.Name})
				case "tool_result":
					r := providertest.NameCall{ID: b.ToolUseID}
					for _, c := range b.Content {
						r.Content += c.Text
					}
					out.Results = append(out.Results, r)
				}
			}
		}
		return out
	}),
	Call: func(w http.ResponseWriter, stream bool, id, wire, args string) {
		if stream {
			writeSSE(w,
				`{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"m","content":[],"usage":{"input_tokens":10,"output_tokens":1}}}`,
				fmt.Sprintf(`{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":%q,"name":%q,"input":{}}}`, id, wire),
				fmt.Sprintf(`{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":%q}}`, args),
				`{"type":"content_block_stop","index":0}`,
				`{"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":5}}`,
				`{"type":"message_stop"}`)
			return
		}
		writeJSON(w, fmt.Sprintf(`{"id":"msg_1","type":"message","role":"assistant","model":"m","content":[{"type":"tool_use","id":%q,"name":%q,"input":%s}],"stop_reason":"tool_use","usage":{"input_tokens":10,"output_tokens":5}}`, id, wire, args))
	},
	Final: func(w http.ResponseWriter, stream bool, text string) {
		if stream {
			writeSSE(w,
				`{"type":"message_start","message":{"id":"msg_2","type":"message","role":"assistant","model":"m","content":[],"usage":{"input_tokens":20,"output_tokens":1}}}`,
				`{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`,
				fmt.Sprintf(`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":%q}}`, text),
				`{"type":"content_block_stop","index":0}`,
				`{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":5}}`,
				`{"type":"message_stop"}`)
			return
		}
		writeJSON(w, fmt.Sprintf(`{"id":"msg_2","type":"message","role":"assistant","model":"m","content":[{"type":"text","text":%q}],"stop_reason":"end_turn","usage":{"input_tokens":20,"output_tokens":5}}`, text))
	},
}

func writeJSON(w http.ResponseWriter, body string) {
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprint(w, body)
}

func writeSSE(w http.ResponseWriter, payloads ...string) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Write(providertest.SSE(payloads...))
}

// TestToolNames runs dotted, long, unicode and colliding tool names through whole tool loops:
// the API receives names its rule accepts, and the model's calls come back under the tools' own
// names.
func TestToolNames(t *testing.T) {
	providertest.ToolNameLoop(t, nameAPI, func(t testing.TB, url string) chat.Model {
		return newTestModel(t, url, Config{Model: "m"})
	})
}
