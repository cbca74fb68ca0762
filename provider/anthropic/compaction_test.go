package anthropic

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	sdk "github.com/anthropics/anthropic-sdk-go"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/internal/providertest"
)

// The traffic of these tests is written from Anthropic's documentation of compaction (the
// compact_20260112 edit of context_management, the compact-2026-01-12 beta, the compaction block
// an answer begins with and the compaction_delta that streams it, the API dropping what comes
// before the block) and the SDK's types for them (BetaCompact20260112EditParam,
// BetaCompactionBlock, BetaCompactionContentBlockDelta, BetaCompactionBlockParam); no recording
// of it exists.

const (
	compactionSummary = "The user asked for the pages; page 1 says the vault code is 7391-ALPHA."
	wantCompactEdit   = `{"type":"compact_20260112","trigger":{"type":"input_tokens","value":60000},"instructions":"Keep every code."}`
)

// compactionAnswer is a whole answer that compacted: the block first, then the text.
var compactionAnswer = fmt.Sprintf(`{"id":"msg_01","type":"message","role":"assistant","model":"claude-sonnet-4-6","content":[{"type":"compaction","content":%q,"encrypted_content":"enc-1","signature":"sig-1","tool_changes":[]},{"type":"text","text":"Done."}],"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":900,"output_tokens":3,"iterations":[{"type":"compaction","input_tokens":61000,"output_tokens":400,"cache_read_input_tokens":0,"cache_creation_input_tokens":0},{"type":"message","input_tokens":900,"output_tokens":3,"cache_read_input_tokens":0,"cache_creation_input_tokens":0}]}}`, compactionSummary)

// compactionEvents streams the same answer: the block starts bare and its delta brings it whole.
var compactionEvents = []string{
	`{"type":"message_start","message":{"id":"msg_02","type":"message","role":"assistant","model":"claude-sonnet-4-6","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":900,"output_tokens":1}}}`,
	`{"type":"content_block_start","index":0,"content_block":{"type":"compaction","signature":"sig-1","tool_changes":[]}}`,
	fmt.Sprintf(`{"type":"content_block_delta","index":0,"delta":{"type":"compaction_delta","content":%q,"encrypted_content":"enc-1"}}`, compactionSummary),
	`{"type":"content_block_stop","index":0}`,
	`{"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}`,
	`{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"Done."}}`,
	`{"type":"content_block_stop","index":1}`,
	`{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":3}}`,
	`{"type":"message_stop"}`,
}

// compactingServer checks that each request asks for compaction as configured, with its beta,
// and answers with a compaction, whole or streamed.
func compactingServer(t *testing.T) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var req struct {
			ContextManagement struct {
				Edits []json.RawMessage `json:"edits"`
			} `json:"context_management"`
			Stream bool `json:"stream"`
		}
		if err := json.Unmarshal(body, &req); err != nil {
			t.Errorf("request body: %v", err)
		}
		if e := req.ContextManagement.Edits; len(e) != 1 || !sameJSON(e[0], []byte(wantCompactEdit)) {
			t.Errorf("context_management edits = %s, want [%s]", e, wantCompactEdit)
		}
		if !slices.Contains(r.Header.Values("anthropic-beta"), "compact-2026-01-12") {
			t.Errorf("anthropic-beta = %q, want the compaction beta", r.Header.Values("anthropic-beta"))
		}
		if !req.Stream {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, compactionAnswer)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		for _, ev := range compactionEvents {
			var typ struct{ Type string }
			_ = json.Unmarshal([]byte(ev), &typ)
			fmt.Fprintf(w, "event: %s\ndata: %s\n\n", typ.Type, ev)
		}
	}))
}

func TestCompaction(t *testing.T) {
	srv := compactingServer(t)
	defer srv.Close()
	cp := Compaction{Trigger: 60000, Instructions: "Keep every code."}
	m := newTestModel(t, srv.URL, Config{Model: "claude-sonnet-4-6"})
	p := &chat.Prompt{Messages: editedConversation(), Options: &chat.Options{Extra: map[string]any{ExtraCompaction: cp}}}

	check := func(t *testing.T, resp *chat.Response) {
		t.Helper()
		var b struct {
			Type             string          `json:"type"`
			Content          string          `json:"content"`
			EncryptedContent string          `json:"encrypted_content"`
			Signature        string          `json:"signature"`
			ToolChanges      json.RawMessage `json:"tool_changes"`
		}
		step := doneAfterStep(t, resp, "compaction", &b)
		if b.Type != "compaction" || b.Content != compactionSummary || b.EncryptedContent != "enc-1" || b.Signature != "sig-1" || string(b.ToolChanges) != "[]" {
			t.Fatalf("the block kept: %s", step.Data)
		}
	}
	providertest.CallAndStream(t, m, p, check)
	t.Run("call over the stream", func(t *testing.T) {
		// A max_tokens the SDK will not wait for whole: Call reads the stream.
		q := &chat.Prompt{Messages: p.Messages, Options: &chat.Options{MaxTokens: 128000, Extra: p.Options.Extra}}
		resp, err := m.Call(context.Background(), q)
		if err != nil {
			t.Fatal(err)
		}
		check(t, resp)
	})
	t.Run("configured", func(t *testing.T) {
		m := newTestModel(t, srv.URL, Config{Model: "claude-sonnet-4-6", Compaction: &cp})
		resp, err := m.Call(context.Background(), &chat.Prompt{Messages: editedConversation()})
		if err != nil {
			t.Fatal(err)
		}
		check(t, resp)
	})
}

// sentBlocks returns the request's messages as the API reads them: role and block types.
func sentBlocks(t *testing.T, msgs []chat.Message) ([]sdk.MessageParam, []string) {
	t.Helper()
	_, sent, err := messages(msgs, false)
	if err != nil {
		t.Fatal(err)
	}
	var shape []string
	for _, m := range sent {
		raw, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		var turn struct {
			Role    string `json:"role"`
			Content []struct {
				Type string `json:"type"`
			} `json:"content"`
		}
		if err := json.Unmarshal(raw, &turn); err != nil {
			t.Fatal(err)
		}
		var types []string
		for _, b := range turn.Content {
			types = append(types, b.Type)
		}
		shape = append(shape, turn.Role+":"+strings.Join(types, ","))
	}
	return sent, shape
}

// The block goes back in place, first in its assistant turn, as the API gave it; kept on a
// compactor's summary instead, it opens the assistant turn that follows.
func TestCompactionSentBack(t *testing.T) {
	srv := compactingServer(t)
	defer srv.Close()
	m := newTestModel(t, srv.URL, Config{Model: "claude-sonnet-4-6", Compaction: &Compaction{Trigger: 60000, Instructions: "Keep every code."}})
	resp, err := m.Call(context.Background(), &chat.Prompt{Messages: editedConversation()})
	if err != nil {
		t.Fatal(err)
	}
	answer := resp.Generations[0].Message
	answer.ToolCalls = []chat.ToolCall{{ID: "toolu_9", Name: "read", Arguments: `{}`}}
	msgs := append(editedConversation(), answer, chat.ToolMessage(chat.ToolResult{ID: "toolu_9", Name: "read", Content: "page 9"}))
	sent, shape := sentBlocks(t, msgs)
	last := len(shape) - 2
	if shape[last] != "assistant:compaction,text,tool_use" {
		t.Fatalf("the answer went back as %s", shape[last])
	}
	raw, _ := json.Marshal(sent[last].Content[0])
	want := fmt.Sprintf(`{"type":"compaction","content":%q,"encrypted_content":"enc-1","signature":"sig-1","tool_changes":[]}`, compactionSummary)
	if !sameJSON(raw, []byte(want)) {
		t.Fatalf("block sent back %s\nwant %s", raw, want)
	}

	// A compactor's summary in place of what the block stands for: the note stays a user turn
	// (the API drops it, as all before the block), the block opens the answer's turn.
	note := chat.Message{Role: chat.RoleUser, Content: "[summary of the earlier conversation]", ServerTools: []chat.ServerTool{answer.ServerTools[0]}}
	rest := answer
	rest.ServerTools = nil
	_, shape = sentBlocks(t, []chat.Message{chat.System("be brief"), note, rest, msgs[len(msgs)-1]})
	if want := []string{"user:text", "assistant:compaction,text,tool_use", "user:tool_result"}; !slices.Equal(shape, want) {
		t.Fatalf("sent %v, want %v", shape, want)
	}
	// A paused turn, the block alone at the end, goes back as the assistant's turn to continue.
	_, shape = sentBlocks(t, []chat.Message{chat.User("go on"), note})
	if want := []string{"user:text,text", "assistant:compaction"}; !slices.Equal(shape, want) {
		t.Fatalf("sent %v, want %v", shape, want)
	}

	// A conversation holding a block asks for the beta though the call asks for no compaction.
	r, err := newTestModel(t, "http://anthropic.invalid", Config{}).request(&chat.Prompt{Messages: msgs})
	if err != nil {
		t.Fatal(err)
	}
	if !holdsBeta(t, r, compactionBeta) {
		t.Fatal("a block went back without the compaction beta")
	}
}

// holdsBeta reports whether the request's options add the beta header.
func holdsBeta(t *testing.T, r *request, beta string) bool {
	t.Helper()
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		got = req.Header.Values("anthropic-beta")
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"id":"m","type":"message","role":"assistant","model":"x","content":[],"stop_reason":"end_turn","usage":{"input_tokens":1,"output_tokens":1}}`)
	}))
	defer srv.Close()
	m := newTestModel(t, srv.URL, Config{})
	if _, err := m.client.Messages.New(context.Background(), r.params, r.opts...); err != nil {
		t.Fatal(err)
	}
	return slices.Contains(got, beta)
}

// A compaction that failed, a block without a summary, is not kept: the API treats it as nothing.
func TestCompactionFailedIsNotKept(t *testing.T) {
	for _, raw := range []string{
		`{"type":"compaction","content":null,"encrypted_content":"enc"}`,
		`{"type":"compaction","content":"","encrypted_content":"enc"}`,
	} {
		if _, ok, err := compactionStepOf(raw); ok || err != nil {
			t.Errorf("%s: kept %v, error %v", raw, ok, err)
		}
	}
	if _, _, err := compactionStepOf(`{"type":"compaction","content":3}`); err == nil {
		t.Error("a malformed block was accepted")
	}
	if _, err := compactionBlocks(&chat.Message{ServerTools: []chat.ServerTool{{Provider: ProviderName, Name: "compaction", Data: json.RawMessage(`{}`)}}}); err == nil {
		t.Error("a kept block without a summary went back")
	}
}

// A compactor's request for the provider's context management gets compaction on the models the
// documentation lists, at the API's least trigger or more, and context editing elsewhere; a
// call's own setting wins, and nil turns compaction off.
func TestCompactionOptions(t *testing.T) {
	native := func(trigger int) map[string]any {
		return map[string]any{"context.native": map[string]int{"trigger": trigger, "keep": 3}}
	}
	for _, c := range []struct {
		name, model string
		extra       map[string]any
		cfg         *Compaction
		compact     int // the trigger asked, -1 for none
		editing     bool
	}{
		{"documented model", "claude-sonnet-4-6", native(24000), nil, minCompactionTrigger, false},
		{"dated snapshot", "claude-opus-4-6-20260205", native(90000), nil, 90000, false},
		{"other model", "claude-sonnet-4-5", native(90000), nil, -1, true},
		{"off for the call", "claude-sonnet-4-6", map[string]any{"context.native": map[string]int{"trigger": 90000}, ExtraCompaction: nil}, nil, -1, true},
		{"configured", "claude-sonnet-4-5", native(90000), &Compaction{Trigger: 70000}, 70000, false},
		{"configured, no compactor", "claude-sonnet-4-5", nil, &Compaction{}, 0, false},
		{"the call's own", "claude-haiku-4-5", map[string]any{ExtraCompaction: &Compaction{Trigger: 55000}}, nil, 55000, false},
		{"none", "claude-sonnet-4-6", nil, nil, -1, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := newTestModel(t, "http://anthropic.invalid", Config{Model: c.model, Compaction: c.cfg})
			o := &chat.Options{Extra: c.extra}
			cp, _, err := compactionOf(o.Extra, m.cfg.Compaction, m.platform, sdk.Model(c.model))
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case c.compact < 0 && cp != nil:
				t.Fatalf("compaction %+v, want none", cp)
			case c.compact >= 0 && (cp == nil || cp.Trigger != c.compact):
				t.Fatalf("compaction %+v, want trigger %d", cp, c.compact)
			}
			r, err := m.request(&chat.Prompt{Messages: editedConversation(), Options: o})
			if err != nil {
				t.Fatal(err)
			}
			if r.editing != c.editing {
				t.Fatalf("context editing %v, want %v", r.editing, c.editing)
			}
		})
	}
	// Bedrock and Vertex AI are not in the documentation: a compactor gets context editing there.
	if cp, _, _ := compactionOf(native(90000), nil, "aws.bedrock", "claude-sonnet-4-6"); cp != nil {
		t.Error("compaction asked on Bedrock")
	}
	m := newTestModel(t, "http://anthropic.invalid", Config{Model: "claude-sonnet-4-6"})
	for _, bad := range []map[string]any{
		{ExtraCompaction: Compaction{Trigger: 1000}},
		{ExtraCompaction: 60000},
		{"context.native": 3},
	} {
		if _, err := m.request(&chat.Prompt{Messages: editedConversation(), Options: &chat.Options{Extra: bad}}); err == nil {
			t.Errorf("%v: no error", bad)
		}
	}
	if _, err := New(Config{Compaction: &Compaction{Trigger: 100}}); err == nil {
		t.Error("a trigger under the API's least was accepted")
	}
}
