package anthropic

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/internal/providertest"
)

// The traffic of these tests is written from Anthropic's API reference for context editing (the
// context_management request field with a clear_tool_uses_20250919 edit, the
// context-management-2025-06-27 beta, and the applied_edits an answer reports) and the SDK's
// types for them (BetaContextManagementConfigParam, BetaContextManagementResponse); no recording
// of it exists.

// editedConversation holds four tool rounds; the second ran a tool excluded from clearing.
func editedConversation() []chat.Message {
	msgs := []chat.Message{chat.User("read the pages")}
	for i, name := range []string{"read", "memo", "read", "read"} {
		id := fmt.Sprintf("toolu_%d", i+1)
		msgs = append(msgs,
			chat.Assistant("", chat.ToolCall{ID: id, Name: name, Arguments: `{}`}),
			chat.ToolMessage(chat.ToolResult{ID: id, Name: name, Content: strings.Repeat("page text ", 50)}))
	}
	return msgs
}

const wantContextManagement = `{"edits":[{"type":"clear_tool_uses_20250919","trigger":{"type":"input_tokens","value":30000},"keep":{"type":"tool_uses","value":2},"clear_at_least":{"type":"input_tokens","value":1000},"exclude_tools":["memo"]}]}`

const appliedEditsJSON = `{"applied_edits":[{"type":"clear_tool_uses_20250919","cleared_tool_uses":2,"cleared_input_tokens":4096}]}`

// editingServer checks that each request asks for context editing as configured and answers with
// the edits applied, whole or streamed.
func editingServer(t *testing.T) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var req struct {
			ContextManagement json.RawMessage `json:"context_management"`
			Stream            bool            `json:"stream"`
		}
		if err := json.Unmarshal(body, &req); err != nil {
			t.Errorf("request body: %v", err)
		}
		if !sameJSON(req.ContextManagement, []byte(wantContextManagement)) {
			t.Errorf("context_management = %s\nwant %s", req.ContextManagement, wantContextManagement)
		}
		if betas := strings.Join(r.Header.Values("anthropic-beta"), ","); !strings.Contains(betas, "context-management-2025-06-27") {
			t.Errorf("anthropic-beta = %q, want the context management beta", betas)
		}
		if !req.Stream {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"id":"msg_01","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":"Done."}],"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":2100,"output_tokens":3},"context_management":%s}`, appliedEditsJSON)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		w.Write(providertest.SSE(
			`{"type":"message_start","message":{"id":"msg_02","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":2100,"output_tokens":1}}}`,
			`{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`,
			`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Done."}}`,
			`{"type":"content_block_stop","index":0}`,
			`{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":3},"context_management":`+appliedEditsJSON+`}`,
			`{"type":"message_stop"}`))
	}))
}

// doneAfterStep checks that resp answers "Done." after exactly one server step, a result of this
// provider named name, and decodes the step's data into data; it returns the step.
func doneAfterStep(t *testing.T, resp *chat.Response, name string, data any) chat.ServerTool {
	t.Helper()
	if got := resp.Text(); got != "Done." {
		t.Fatalf("text %q", got)
	}
	steps := resp.Generations[0].Message.ServerTools
	if len(steps) != 1 || steps[0].Name != name || steps[0].Provider != ProviderName || !steps[0].Result {
		t.Fatalf("steps %+v, want one %s result", steps, name)
	}
	if err := json.Unmarshal(steps[0].Data, data); err != nil {
		t.Fatal(err)
	}
	return steps[0]
}

// sameJSON reports whether two JSON texts hold the same value.
func sameJSON(a, b []byte) bool {
	var va, vb any
	return json.Unmarshal(a, &va) == nil && json.Unmarshal(b, &vb) == nil && reflect.DeepEqual(va, vb)
}

func TestContextEditing(t *testing.T) {
	srv := editingServer(t)
	defer srv.Close()
	ce := ContextEditing{Trigger: 30000, Keep: 2, ClearAtLeast: 1000, ExcludeTools: []string{"memo"}}
	m := newTestModel(t, srv.URL, Config{})
	p := &chat.Prompt{Messages: editedConversation(), Options: &chat.Options{Extra: map[string]any{ExtraContextEditing: ce}}}

	check := func(t *testing.T, resp *chat.Response) {
		t.Helper()
		var data struct {
			Cleared      []string        `json:"cleared"`
			ClearedInput int             `json:"cleared_input_tokens"`
			Report       json.RawMessage `json:"context_management"`
		}
		step := doneAfterStep(t, resp, "context_management", &data)
		// The API clears the oldest results it may: the memo tool's is excluded.
		if !slices.Equal(data.Cleared, []string{"toolu_1", "toolu_3"}) || data.ClearedInput != 4096 {
			t.Fatalf("report %s", step.Data)
		}
		if !sameJSON(data.Report, []byte(appliedEditsJSON)) {
			t.Fatalf("the API's own report %s, want %s", data.Report, appliedEditsJSON)
		}
	}
	providertest.CallAndStream(t, m, p, check)
	t.Run("configured", func(t *testing.T) {
		m := newTestModel(t, srv.URL, Config{ContextEditing: &ce})
		resp, err := m.Call(context.Background(), &chat.Prompt{Messages: editedConversation()})
		if err != nil {
			t.Fatal(err)
		}
		check(t, resp)
	})
	t.Run("sent back", func(t *testing.T) {
		// The report is no block of the conversation: a later request leaves it out.
		resp, err := m.Call(context.Background(), p)
		if err != nil {
			t.Fatal(err)
		}
		msgs := append(editedConversation(), resp.Generations[0].Message, chat.User("and now?"))
		_, sent, err := messages(msgs, true) // as a request searching on the server, which sends steps back
		if err != nil {
			t.Fatal(err)
		}
		last := sent[len(sent)-2]
		if len(last.Content) != 1 || last.Content[0].OfText == nil {
			t.Fatalf("the answer went back as %d blocks", len(last.Content))
		}
	})
}

// A compactor asks through the neutral key; a call's own setting wins, and nil turns it off.
func TestContextEditingOptions(t *testing.T) {
	m := newTestModel(t, "http://anthropic.invalid", Config{})
	native := map[string]any{"context.native": map[string]int{"trigger": 24000, "keep": 4}}
	r, err := m.request(&chat.Prompt{Messages: editedConversation(), Options: &chat.Options{Extra: native}})
	if err != nil {
		t.Fatal(err)
	}
	if !r.editing || len(r.clearable) != 4 {
		t.Fatalf("editing %v, clearable %v", r.editing, r.clearable)
	}
	native[ExtraContextEditing] = nil
	if r, err = m.request(&chat.Prompt{Messages: editedConversation(), Options: &chat.Options{Extra: native}}); err != nil || r.editing {
		t.Fatalf("nil did not turn it off: %v %v", r.editing, err)
	}
	for _, bad := range []map[string]any{
		{ExtraContextEditing: ContextEditing{Keep: -1}},
		{ExtraContextEditing: 3},
		{"context.native": 3},
	} {
		if _, err := m.request(&chat.Prompt{Messages: editedConversation(), Options: &chat.Options{Extra: bad}}); err == nil {
			t.Errorf("%v: no error", bad)
		}
	}
	if _, err := New(Config{ContextEditing: &ContextEditing{Trigger: -5}}); err == nil {
		t.Error("a negative trigger was accepted")
	}
	// An answer that reports more cleared than the request held is refused, not guessed at.
	r, _ = m.request(&chat.Prompt{Messages: editedConversation()[:3], Options: &chat.Options{Extra: map[string]any{ExtraContextEditing: ContextEditing{}}}})
	resp := &chat.Response{Generations: []chat.Generation{{Message: chat.Assistant("x")}}}
	if _, err := r.reportEdits(resp, `{"context_management":`+appliedEditsJSON+`}`); err == nil {
		t.Error("2 cleared of 1 was accepted")
	}
}
