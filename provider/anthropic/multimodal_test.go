package anthropic

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/content"
	"github.com/wield-ai/wield/internal/providertest"
	"github.com/wield-ai/wield/internal/replay"
)

// recordedImage returns the base64 data of the first image block found in a recorded request.
func recordedImage(t *testing.T, body []byte) []byte {
	t.Helper()
	var find func(v any) string
	find = func(v any) string {
		switch v := v.(type) {
		case map[string]any:
			if v["type"] == "image" {
				return v["source"].(map[string]any)["data"].(string)
			}
			for _, x := range v {
				if s := find(x); s != "" {
					return s
				}
			}
		case []any:
			for _, x := range v {
				if s := find(x); s != "" {
					return s
				}
			}
		}
		return ""
	}
	var req any
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatal(err)
	}
	data, err := base64.StdEncoding.DecodeString(find(req))
	if err != nil || len(data) == 0 {
		t.Fatalf("no image in the recorded request: %v", err)
	}
	return data
}

// multimodalCase is a recorded first-party conversation with images, run against any Model.
type multimodalCase struct {
	name, model string
	stream      bool
	// run holds the conversation with m, checking the answers against exs.
	run func(t *testing.T, m *Model, exs []replay.Exchange)
}

// imageInput: a user's image beside text, answered in text.
func imageInput(stream bool) func(t *testing.T, m *Model, exs []replay.Exchange) {
	return func(t *testing.T, m *Model, exs []replay.Exchange) {
		png := recordedImage(t, exs[0].RequestBody)
		resp, err := providertest.Run(context.Background(), m, providertest.ImagePrompt(png), stream)
		if err != nil {
			t.Fatal(err)
		}
		checkResponse(t, resp, expectRecorded(t, exs[0]))
		if resp.Text() == "" {
			t.Error("no answer")
		}
	}
}

// screenshot: the computer tool's screenshot, an image in a tool_result block, as in the recorded
// computer-use loops (the computer tool itself is Anthropic-defined and added through ExtraBody).
func screenshot(tool string, stream bool) func(t *testing.T, m *Model, exs []replay.Exchange) {
	return func(t *testing.T, m *Model, exs []replay.Exchange) {
		computer := map[string]any{"tools": []any{map[string]any{
			"type": tool, "name": "computer", "display_width_px": 1920, "display_height_px": 1080}}}
		opts := &chat.Options{MaxTokens: 4096, Extra: map[string]any{ExtraBody: computer}}
		history := []chat.Message{chat.System("You are a helpful assistant"), chat.User("Take a screenshot of the desktop")}
		first, err := providertest.Run(context.Background(), m, &chat.Prompt{Messages: history, Options: opts}, stream)
		if err != nil {
			t.Fatal(err)
		}
		calls := first.ToolCalls()
		if len(calls) != 1 || calls[0].Name != "computer" {
			t.Fatalf("calls = %+v", calls)
		}
		// The recording's client sent the call back without the text before it.
		shot := content.Image(recordedImage(t, exs[1].RequestBody), "image/png")
		history = append(history, chat.Assistant("", calls[0]),
			chat.ToolMessage(chat.ToolResult{ID: calls[0].ID, Name: "computer", Parts: []content.Part{shot}}))
		resp, err := providertest.Run(context.Background(), m, &chat.Prompt{Messages: history, Options: opts}, stream)
		if err != nil {
			t.Fatal(err)
		}
		checkResponse(t, resp, expectRecorded(t, exs[1]))
	}
}

var multimodalCases = []multimodalCase{
	{"fantasy-image-input-claude-sonnet-4", "claude-sonnet-4-20250514", false, imageInput(false)},
	{"fantasy-image-input-stream-claude-sonnet-4", "claude-sonnet-4-20250514", true, imageInput(true)},
	{"fantasy-image-tool-result-computer-use-claude-sonnet-4", "claude-sonnet-4-20250514", false, screenshot("computer_20250124", false)},
	{"fantasy-image-tool-result-computer-use-stream-claude-sonnet-4", "claude-sonnet-4-20250514", true, screenshot("computer_20250124", true)},
	{"fantasy-image-tool-result-computer-use-claude-opus-4-6", "claude-opus-4-6", false, screenshot("computer_20251124", false)},
	{"fantasy-image-tool-result-computer-use-stream-claude-opus-4-6", "claude-opus-4-6", true, screenshot("computer_20251124", true)},
}

// The recorded image conversations (a user's image; computer-use screenshots as image blocks in
// tool_result blocks), called and streamed: every request is the recorded one, every answer
// reads as recorded.
func TestReplayMultimodal(t *testing.T) {
	for _, tc := range multimodalCases {
		t.Run(tc.name, func(t *testing.T) {
			exs := providertest.Load(t, "multimodal", tc.name)
			srv := replay.NewServer(t, exs...)
			tc.run(t, newTestModel(t, srv.URL, Config{Model: tc.model}), exs)
			if srv.Served() != len(exs) {
				t.Fatalf("served %d of %d exchanges", srv.Served(), len(exs))
			}
			for i, r := range srv.Requests() {
				checkRequest(t, r.Body, exs[i].RequestBody)
			}
		})
	}
}

// Parts map onto blocks in order; what the API cannot take is refused, naming the provider and
// the part, before anything is sent.
func TestPartsRequest(t *testing.T) {
	png := []byte("\x89PNG\r\n\x1a\n")
	pdf := []byte("%PDF-1.4\n")
	m := newTestModel(t, "http://127.0.0.1:1", Config{Model: "claude-sonnet-4-5"})
	msgs := []chat.Message{
		chat.User("compare", content.Image(png, "image/png"), content.Text(" with "),
			content.ImageURL("https://example.com/a.jpg"), content.Document(pdf, "application/pdf", "report.pdf"),
			content.Document([]byte("# notes"), "text/markdown", "notes.md"), content.DocumentURL("https://example.com/r.pdf", "application/pdf")),
		chat.Assistant("", chat.ToolCall{ID: "t1", Name: "chart", Arguments: `{}`}),
		chat.ToolMessage(chat.ToolResult{ID: "t1", Name: "chart", Content: "chart:", Parts: []content.Part{
			content.Image(png, "image/png"), content.Document(pdf, "application/pdf", "")}}),
	}
	req, err := m.request(&chat.Prompt{Messages: msgs})
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(req.params.Messages)
	if err != nil {
		t.Fatal(err)
	}
	var got []struct {
		Content []map[string]any `json:"content"`
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	types := func(blocks []map[string]any) (out []string) {
		for _, b := range blocks {
			s := b["type"].(string)
			if src, ok := b["source"].(map[string]any); ok {
				s += "/" + src["type"].(string)
			}
			out = append(out, s)
		}
		return out
	}
	if want := []string{"text", "image/base64", "text", "image/url", "document/base64", "document/text", "document/url"}; !reflect.DeepEqual(types(got[0].Content), want) {
		t.Errorf("user blocks = %v, want %v", types(got[0].Content), want)
	}
	tr := got[2].Content[0]
	var inner []map[string]any
	raw, _ := json.Marshal(tr["content"])
	_ = json.Unmarshal(raw, &inner)
	if want := []string{"text", "image/base64", "document/base64"}; tr["type"] != "tool_result" || !reflect.DeepEqual(types(inner), want) {
		t.Errorf("tool_result content = %v, want %v", types(inner), want)
	}
	if got[0].Content[4]["title"] != "report.pdf" {
		t.Errorf("document title = %v", got[0].Content[4]["title"])
	}

	inResult := func(p content.Part) []chat.Message {
		return []chat.Message{chat.User("chart it"), chat.Assistant("", chat.ToolCall{ID: "t1", Name: "chart", Arguments: `{}`}),
			chat.ToolMessage(chat.ToolResult{ID: "t1", Name: "chart", Parts: []content.Part{p}})}
	}
	big := make([]byte, 25<<20) // 33.3 MB in base64
	copy(big, png)
	for _, tc := range []struct {
		name string
		msgs []chat.Message
		want string
	}{
		{"audio", []chat.Message{chat.User("look", content.Audio([]byte("RIFF"), "audio/wav"))}, "anthropic: cannot send an audio part (audio/wav)"},
		{"bmp image", []chat.Message{chat.User("look", content.Image([]byte("BM"), "image/bmp"))}, "anthropic: cannot send an image part (image/bmp)"},
		{"gs URL", []chat.Message{chat.User("look", content.ImageURL("gs://bucket/a.png"))}, "anthropic: cannot send an image part by URL"},
		{"word document", []chat.Message{chat.User("look", content.Document([]byte("PK"), "application/msword", "a.doc"))}, "anthropic: cannot send a document part (application/msword)"},
		{"empty image", []chat.Message{chat.User("look", content.Image(nil, "image/png"))}, "no data"},
		{"unknown media type", []chat.Message{chat.User("look", content.Image(png, "png"))}, "not a media type"},
		{"audio in a tool result", inResult(content.Audio([]byte("RIFF"), "audio/wav")), "anthropic: cannot send an audio part (audio/wav)"},
		{"empty image in a tool result", inResult(content.Image(nil, "image/png")), "anthropic: message 2: content: part has no data"},
		{"image in an assistant turn", []chat.Message{chat.User("draw"), {Role: chat.RoleAssistant, Parts: []content.Part{content.Image(png, "image/png")}}},
			"anthropic: cannot send an image part (image/png): the Messages API takes images and documents in user messages and tool results, not in assistant turns (message 1)"},
		{"media over the request limit", []chat.Message{chat.User("look", content.Image(big, "image/png"))},
			"anthropic: message 0: content: part too large: the request's media come to 33.3 MB in base64, over the Messages API's request limit of 32.0 MB"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := replay.NewServer(t)
			m := newTestModel(t, srv.URL, Config{Model: "claude-sonnet-4-5"})
			for _, stream := range []bool{false, true} {
				_, err := providertest.Run(context.Background(), m, &chat.Prompt{Messages: tc.msgs}, stream)
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Errorf("stream=%v: err = %v, want %q", stream, err, tc.want)
				}
				var u *content.Unsupported
				if strings.HasPrefix(tc.want, "anthropic: cannot") && !errors.As(err, &u) {
					t.Errorf("stream=%v: %v is not a *content.Unsupported", stream, err)
				}
				if strings.Contains(tc.want, "too large") && !errors.Is(err, content.ErrTooLarge) {
					t.Errorf("stream=%v: %v is not content.ErrTooLarge", stream, err)
				}
			}
			if len(srv.Requests()) != 0 {
				t.Errorf("%d requests were sent", len(srv.Requests()))
			}
		})
	}
}

// Prompt caching keeps working with media: the breakpoint of the last turn goes on its last
// block, an image or document as well as text, and on a tool_result block holding an image.
func TestCacheWithParts(t *testing.T) {
	png := []byte("\x89PNG\r\n\x1a\n")
	m := newTestModel(t, "http://127.0.0.1:1", Config{Model: "claude-sonnet-4-5", Cache: CacheAuto})
	for _, tc := range []struct {
		name string
		msgs []chat.Message
		want []string
	}{
		{"image last", []chat.Message{chat.System("s"), chat.User("what is this?", content.Image(png, "image/png"))},
			[]string{"system[0]", "messages[0].content[1]"}},
		{"document last", []chat.Message{chat.System("s"), chat.User("summarize", content.Document([]byte("%PDF-1.4"), "application/pdf", "r.pdf"))},
			[]string{"system[0]", "messages[0].content[1]"}},
		{"screenshot result last", []chat.Message{chat.System("s"), chat.User("look"),
			chat.Assistant("", chat.ToolCall{ID: "t1", Name: "shot", Arguments: `{}`}),
			chat.ToolMessage(chat.ToolResult{ID: "t1", Name: "shot", Parts: []content.Part{content.Image(png, "image/png")}})},
			[]string{"system[0]", "messages[2].content[0]"}},
	} {
		req, err := m.request(&chat.Prompt{Messages: tc.msgs})
		if err != nil {
			t.Fatal(err)
		}
		body, err := json.Marshal(req.params)
		if err != nil {
			t.Fatal(err)
		}
		if got := breakpoints(t, body); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: breakpoints %q, want %q\n%s", tc.name, got, tc.want, body)
		}
	}
}
