package openai

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/internal/providertest"
	"github.com/wield-ai/wield/tool"
)

// The traffic of these tests is written from OpenAI's OpenAPI description of the Responses API
// (fixtures/specs/openai-openapi.yaml: the context_management field of a create request, whose
// entries are ContextManagementParam {type: compaction, compact_threshold}, the CompactionBody
// output item {type, id, encrypted_content}, and CompactionSummaryItemParam as an input item);
// no recording of it exists.

const compactionItemJSON = `{"id":"cmp_001","type":"compaction","encrypted_content":"gAAAAABpM0Yj-...="}`

// compactingServer checks each request's context_management and answers with a compaction item
// before a function call, whole or streamed; it hands the input items it received to seen.
func compactingServer(t *testing.T, wantThreshold int, seen chan<- []json.RawMessage) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var req struct {
			ContextManagement []struct {
				Type             string `json:"type"`
				CompactThreshold int    `json:"compact_threshold"`
			} `json:"context_management"`
			Input  []json.RawMessage `json:"input"`
			Stream bool              `json:"stream"`
		}
		if err := json.Unmarshal(body, &req); err != nil {
			t.Errorf("request body: %v", err)
		}
		if wantThreshold > 0 && (len(req.ContextManagement) != 1 || req.ContextManagement[0].Type != "compaction" || req.ContextManagement[0].CompactThreshold != wantThreshold) {
			t.Errorf("context_management %+v, want compaction at %d", req.ContextManagement, wantThreshold)
		}
		if seen != nil {
			seen <- req.Input
		}
		call := `{"id":"fc_1","type":"function_call","status":"completed","call_id":"call_9","name":"read","arguments":"{}"}`
		resp := fmt.Sprintf(`{"id":"resp_1","object":"response","created_at":1764967971,"status":"completed","model":"gpt-5.1-codex-max","output":[%s,%s],"usage":{"input_tokens":900,"input_tokens_details":{"cached_tokens":0},"output_tokens":20,"output_tokens_details":{"reasoning_tokens":0},"total_tokens":920}}`, compactionItemJSON, call)
		if !req.Stream {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, resp)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		for i, ev := range []string{
			`{"type":"response.created","response":{"id":"resp_1","object":"response","status":"in_progress","model":"gpt-5.1-codex-max","output":[]}}`,
			`{"type":"response.output_item.added","output_index":0,"item":{"id":"cmp_001","type":"compaction","encrypted_content":""}}`,
			`{"type":"response.output_item.done","output_index":0,"item":` + compactionItemJSON + `}`,
			`{"type":"response.output_item.added","output_index":1,"item":{"id":"fc_1","type":"function_call","status":"in_progress","call_id":"call_9","name":"read","arguments":""}}`,
			`{"type":"response.function_call_arguments.delta","output_index":1,"item_id":"fc_1","delta":"{}"}`,
			`{"type":"response.output_item.done","output_index":1,"item":` + call + `}`,
			`{"type":"response.completed","response":` + resp + `}`,
		} {
			var typ struct{ Type string }
			_ = json.Unmarshal([]byte(ev), &typ)
			fmt.Fprintf(w, "event: %s\ndata: %s\n\n", typ.Type, strings.Replace(ev, `{"type":`, fmt.Sprintf(`{"sequence_number":%d,"type":`, i), 1))
		}
	}))
}

func TestResponsesCompaction(t *testing.T) {
	srv := compactingServer(t, 24000, nil)
	defer srv.Close()
	m, err := NewResponses(Config{BaseURL: srv.URL, APIKey: "k", Model: "gpt-5.1-codex-max"})
	if err != nil {
		t.Fatal(err)
	}
	p := &chat.Prompt{
		Messages: []chat.Message{chat.User("read the pages")},
		Options:  &chat.Options{Tools: []tool.Tool{newTool("read", "reads", `{"type":"object"}`)}, Extra: map[string]any{ExtraCompaction: 24000}},
	}
	check := func(t *testing.T, resp *chat.Response) {
		t.Helper()
		msg := resp.Generations[0].Message
		if len(msg.ToolCalls) != 1 || msg.ToolCalls[0].ID != "call_9" {
			t.Fatalf("calls %+v", msg.ToolCalls)
		}
		if len(msg.ServerTools) != 1 {
			t.Fatalf("steps %+v, want the compaction item", msg.ServerTools)
		}
		st := msg.ServerTools[0]
		if st.Name != "compaction" || st.Provider != Provider || st.ID != "cmp_001" || !strings.Contains(string(st.Data), `"encrypted_content":"gAAAAABpM0Yj-...="`) {
			t.Fatalf("step %+v %s", st, st.Data)
		}
	}
	providertest.CallAndStream(t, m, p, check)
}

// The item goes back in its place: from the answer as it came, or from the compactor's note that
// took the place of the conversation it stands for (whose own text is not sent).
func TestResponsesCompactionSentBack(t *testing.T) {
	seen := make(chan []json.RawMessage, 1)
	srv := compactingServer(t, 0, seen)
	defer srv.Close()
	m, err := NewResponses(Config{BaseURL: srv.URL, APIKey: "k", Model: "gpt-5.1-codex-max"})
	if err != nil {
		t.Fatal(err)
	}
	step := chat.ServerTool{Provider: Provider, ID: "cmp_001", Name: "compaction", Result: true, Data: json.RawMessage(compactionItemJSON)}
	answer := chat.Assistant("", chat.ToolCall{ID: "call_9", Name: "read", Arguments: "{}"})
	answer.ServerTools = []chat.ServerTool{step}
	result := chat.ToolMessage(chat.ToolResult{ID: "call_9", Name: "read", Content: "page"})
	note := chat.Message{Role: chat.RoleUser, Content: "[summary of the earlier conversation, id \"cmp_001\"]", ServerTools: []chat.ServerTool{step}}
	bare := answer
	bare.ServerTools = nil
	for _, tc := range []struct {
		name string
		msgs []chat.Message
		want []string // the input items' types
	}{
		{"as it came", []chat.Message{chat.System("be brief"), chat.User("read the pages"), answer, result}, []string{"message", "message", "compaction", "function_call", "function_call_output"}},
		{"in a note", []chat.Message{chat.System("be brief"), note, bare, result}, []string{"message", "compaction", "function_call", "function_call_output"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := m.Call(context.Background(), &chat.Prompt{Messages: tc.msgs}); err != nil {
				t.Fatal(err)
			}
			input := <-seen
			var types []string
			for _, it := range input {
				var v struct {
					Type             string `json:"type"`
					ID               string `json:"id"`
					EncryptedContent string `json:"encrypted_content"`
				}
				_ = json.Unmarshal(it, &v)
				if v.Type == "" {
					v.Type = "message"
				}
				if v.Type == "compaction" && (v.ID != "cmp_001" || v.EncryptedContent != "gAAAAABpM0Yj-...=") {
					t.Errorf("compaction item sent as %s", it)
				}
				types = append(types, v.Type)
			}
			if strings.Join(types, " ") != strings.Join(tc.want, " ") {
				t.Fatalf("input %v, want %v", types, tc.want)
			}
		})
	}
}

func TestResponsesCompactionOptions(t *testing.T) {
	m, _ := NewResponses(Config{APIKey: "k", Model: "gpt-5.1-codex-max"})
	for _, tc := range []struct {
		extra map[string]any
		want  int64 // 0: none sent; -1: refused
	}{
		{map[string]any{ExtraCompaction: 5000}, 5000},
		{map[string]any{ExtraCompaction: 0}, 0},
		{map[string]any{ExtraCompaction: 999}, -1},
		{map[string]any{ExtraCompaction: "5000"}, -1},
		{map[string]any{"context.native": map[string]int{"trigger": 24000, "keep": 4}}, 24000},
		{map[string]any{"context.native": map[string]int{"trigger": 300}}, 1000}, // the API's least
		{map[string]any{"context.native": map[string]int{"trigger": 24000}, ExtraCompaction: 0}, 0},
		{map[string]any{"context.native": 1}, -1},
	} {
		r, err := m.request(&chat.Prompt{Messages: []chat.Message{chat.User("hi")}, Options: &chat.Options{Extra: tc.extra}})
		switch {
		case tc.want < 0:
			if err == nil {
				t.Errorf("%v: no error", tc.extra)
			}
		case err != nil:
			t.Errorf("%v: %v", tc.extra, err)
		case tc.want == 0 && len(r.params.ContextManagement) != 0,
			tc.want > 0 && (len(r.params.ContextManagement) != 1 || r.params.ContextManagement[0].CompactThreshold.Value != tc.want):
			t.Errorf("%v: context_management %+v", tc.extra, r.params.ContextManagement)
		}
	}
}
