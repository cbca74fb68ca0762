package anthropic

import (
	"bytes"
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/internal/providertest"
	"github.com/wield-ai/wield/internal/replay"
	"github.com/wield-ai/wield/tool"
)

// newTestModel returns a Model talking to url with a fake key and tiny retry waits left to the
// server's Retry-After headers.
func newTestModel(t testing.TB, url string, cfg Config) *Model {
	t.Helper()
	cfg.BaseURL = url
	if cfg.APIKey == "" {
		cfg.APIKey = "test-key"
	}
	m, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// funcTool is a Go function offered to the model as a tool.
type funcTool struct {
	def tool.Definition
	fn  func(ctx context.Context, args string) (string, error)
}

func (f funcTool) Definition() tool.Definition { return f.def }
func (f funcTool) Metadata() tool.Metadata     { return tool.Metadata{} }
func (f funcTool) Call(ctx context.Context, args string) (string, error) {
	return f.fn(ctx, args)
}

// newTool builds a typed Go tool with the recording's schema.
func newTool[In any](name, description, schema string, fn func(context.Context, In) (string, error)) tool.Tool {
	return tool.Must(tool.Func(name, description, fn, tool.WithInputSchema(json.RawMessage(schema))))
}

// expected is what a recorded response says, read with plain encoding/json (not the SDK), so the
// tests check the package against an independent reading of the recording.
type expected struct {
	id, model  string
	text       string
	calls      []chat.ToolCall
	stopReason string
	usage      chat.Usage
	reasoning  []chat.Reasoning
}

type rawBlock struct {
	Type        string          `json:"type"`
	Text        string          `json:"text"`
	ID          string          `json:"id"`
	Name        string          `json:"name"`
	Input       json.RawMessage `json:"input"`
	Thinking    string          `json:"thinking"`
	Signature   string          `json:"signature"`
	Data        string          `json:"data"`
	PartialJSON string          `json:"partial_json"`
	StopReason  string          `json:"stop_reason"`
}

type rawUsage struct {
	InputTokens  *int `json:"input_tokens"`
	OutputTokens *int `json:"output_tokens"`
	CacheRead    *int `json:"cache_read_input_tokens"`
	CacheCreate  *int `json:"cache_creation_input_tokens"`
}

type rawMessage struct {
	ID         string     `json:"id"`
	Model      string     `json:"model"`
	Content    []rawBlock `json:"content"`
	StopReason string     `json:"stop_reason"`
	Usage      rawUsage   `json:"usage"`
}

func (u rawUsage) apply(to *rawUsage) {
	if u.InputTokens != nil {
		to.InputTokens = u.InputTokens
	}
	if u.OutputTokens != nil {
		to.OutputTokens = u.OutputTokens
	}
	if u.CacheRead != nil {
		to.CacheRead = u.CacheRead
	}
	if u.CacheCreate != nil {
		to.CacheCreate = u.CacheCreate
	}
}

func (u rawUsage) chat() chat.Usage {
	v := func(p *int) int {
		if p == nil {
			return 0
		}
		return *p
	}
	in := v(u.InputTokens) + v(u.CacheRead) + v(u.CacheCreate)
	return chat.Usage{
		InputTokens: in, OutputTokens: v(u.OutputTokens), TotalTokens: in + v(u.OutputTokens),
		CachedInputTokens: v(u.CacheRead), CacheWriteInputTokens: v(u.CacheCreate),
	}
}

func (m rawMessage) expected(t testing.TB) expected {
	t.Helper()
	e := expected{id: m.ID, model: m.Model, stopReason: m.StopReason, usage: m.Usage.chat()}
	for _, b := range m.Content {
		switch b.Type {
		case "text":
			e.text += b.Text
		case "tool_use":
			args := string(b.Input)
			if strings.TrimSpace(args) == "" {
				args = "{}"
			}
			e.calls = append(e.calls, chat.ToolCall{ID: b.ID, Name: b.Name, Arguments: args, Index: len(e.calls)})
		case "thinking":
			e.reasoning = append(e.reasoning, chat.Reasoning{Provider: "anthropic", Text: b.Thinking, Signature: b.Signature})
		case "redacted_thinking":
			e.reasoning = append(e.reasoning, chat.Reasoning{Provider: "anthropic", Encrypted: b.Data})
		}
	}
	return e
}

// expectRecorded reads a recorded response body: JSON, SSE, or Bedrock's event stream of
// base64-wrapped events.
func expectRecorded(t testing.TB, ex replay.Exchange) expected {
	t.Helper()
	ct := ex.Header.Get("Content-Type")
	events := replay.SSEData
	switch {
	case strings.HasPrefix(ct, "application/vnd.amazon.eventstream"):
		events = func(body []byte) [][]byte { return bedrockEvents(t, body) }
	case !strings.HasPrefix(ct, "text/event-stream"):
		var m rawMessage
		if err := json.Unmarshal(ex.Body, &m); err != nil {
			t.Fatalf("recorded response: %v", err)
		}
		return m.expected(t)
	}
	var m rawMessage
	var partial []string
	for _, data := range events(ex.Body) {
		var ev struct {
			Type         string     `json:"type"`
			Index        int        `json:"index"`
			Message      rawMessage `json:"message"`
			ContentBlock rawBlock   `json:"content_block"`
			Delta        rawBlock   `json:"delta"`
			Usage        rawUsage   `json:"usage"`
		}
		if err := json.Unmarshal(data, &ev); err != nil {
			t.Fatalf("recorded event %s: %v", data, err)
		}
		switch ev.Type {
		case "message_start":
			m = ev.Message
		case "content_block_start":
			m.Content = append(m.Content, ev.ContentBlock)
			partial = append(partial, "")
		case "content_block_delta":
			b := &m.Content[ev.Index]
			b.Text += ev.Delta.Text
			b.Thinking += ev.Delta.Thinking
			b.Signature += ev.Delta.Signature
			partial[ev.Index] += ev.Delta.PartialJSON
		case "message_delta":
			m.StopReason = ev.Delta.StopReason
			ev.Usage.apply(&m.Usage)
		}
	}
	for i, p := range partial {
		if m.Content[i].Type == "tool_use" && p != "" {
			m.Content[i].Input = json.RawMessage(p)
		}
	}
	return m.expected(t)
}

var stopReasons = map[string]chat.FinishReason{
	"end_turn": chat.FinishStop, "stop_sequence": chat.FinishStop, "max_tokens": chat.FinishLength,
	"tool_use": chat.FinishToolCalls, "refusal": chat.FinishContentFilter,
}

// checkResponse asserts that a response carries what the recording says.
func checkResponse(t testing.TB, got *chat.Response, want expected) {
	t.Helper()
	if got.ID != want.id || got.Model != want.model {
		t.Errorf("id/model = %q/%q, want %q/%q", got.ID, got.Model, want.id, want.model)
	}
	g := providertest.OneGeneration(t, got) // text and tool calls in one
	if g.Message.Role != chat.RoleAssistant {
		t.Errorf("role = %q", g.Message.Role)
	}
	if g.Message.Content != want.text {
		t.Errorf("text = %q, want %q", g.Message.Content, want.text)
	}
	providertest.SameCalls(t, g.Message.ToolCalls, want.calls)
	if !reflect.DeepEqual(g.Message.Reasoning, want.reasoning) {
		t.Errorf("reasoning = %+v, want %+v", g.Message.Reasoning, want.reasoning)
	}
	wantFinish, ok := stopReasons[want.stopReason]
	if !ok {
		wantFinish = chat.FinishReason(want.stopReason)
	}
	if g.FinishReason != wantFinish {
		t.Errorf("finish = %q, want %q (stop_reason %q)", g.FinishReason, wantFinish, want.stopReason)
	}
	if got.Usage != want.usage {
		t.Errorf("usage = %+v, want %+v", got.Usage, want.usage)
	}
}

// normalizeRequest puts a Messages API request body into one canonical form, so bodies that
// mean the same to the API compare equal. It changes only what the API treats as equivalent:
//
//   - a `content` given as a string, in a message or a tool_result, becomes the one-text-block
//     array it stands for (langchaingo sends strings, the SDK sends blocks);
//   - `"tools": []` is removed, as an empty tool list is the same as none (the SDK's tool runner
//     sends an empty list after the tool was taken away).
//
// Nothing else is ignored: model, max_tokens, temperature, system, tool_choice, tools with
// their schemas, every message and block, and "stream" are compared.
func normalizeRequest(t testing.TB, body []byte) map[string]any {
	t.Helper()
	var req map[string]any
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(&req); err != nil {
		t.Fatalf("request body: %v\n%s", err, body)
	}
	if tools, ok := req["tools"].([]any); ok && len(tools) == 0 {
		delete(req, "tools")
	}
	textBlocks := func(v any) any {
		if s, ok := v.(string); ok {
			return []any{map[string]any{"type": "text", "text": s}}
		}
		return v
	}
	msgs, _ := req["messages"].([]any)
	for _, m := range msgs {
		msg, _ := m.(map[string]any)
		msg["content"] = textBlocks(msg["content"])
		blocks, _ := msg["content"].([]any)
		for _, b := range blocks {
			if blk, ok := b.(map[string]any); ok && blk["type"] == "tool_result" {
				if c, ok := blk["content"]; ok {
					blk["content"] = textBlocks(c)
				}
			}
		}
	}
	return req
}

// checkRequest asserts that the body wield sent means the same as the recorded one.
func checkRequest(t testing.TB, sent, recorded []byte) {
	t.Helper()
	got, want := normalizeRequest(t, sent), normalizeRequest(t, recorded)
	providertest.Same(t, "the request sent (got) and the recorded one (want)", got, want)
}
