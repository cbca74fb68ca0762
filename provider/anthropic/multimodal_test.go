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

// A user's image is sent as the recorded image block, called and streamed.
func TestReplayImageInput(t *testing.T) {
	for _, stream := range []bool{false, true} {
		name := map[bool]string{false: "fantasy-image-input-claude-sonnet-4", true: "fantasy-image-input-stream-claude-sonnet-4"}[stream]
		t.Run(name, func(t *testing.T) {
			exs := providertest.Load(t, "multimodal", name)
			srv := replay.NewServer(t, exs...)
			m := newTestModel(t, srv.URL, Config{Model: "claude-sonnet-4-20250514"})
			png := recordedImage(t, exs[0].RequestBody)
			p := &chat.Prompt{Messages: []chat.Message{
				chat.System("You are a helpful assistant"),
				chat.User("Describe the image briefly in English.", content.Image(png, "image/png")),
			}, Options: &chat.Options{MaxTokens: 4000}}
			resp, err := providertest.Run(context.Background(), m, p, stream)
			if err != nil {
				t.Fatal(err)
			}
			checkRequest(t, srv.Requests()[0].Body, exs[0].RequestBody)
			checkResponse(t, resp, expectRecorded(t, exs[0]))
			if resp.Text() == "" {
				t.Error("no answer")
			}
		})
	}
}

// A tool result holding an image becomes a tool_result block whose content is an image block,
// as in the recorded computer-use screenshots (the computer tool itself is Anthropic-defined and
// added through ExtraBody).
func TestReplayImageToolResult(t *testing.T) {
	for _, tc := range []struct {
		name, model, tool string
		stream            bool
	}{
		{"fantasy-image-tool-result-computer-use-claude-sonnet-4", "claude-sonnet-4-20250514", "computer_20250124", false},
		{"fantasy-image-tool-result-computer-use-stream-claude-sonnet-4", "claude-sonnet-4-20250514", "computer_20250124", true},
		{"fantasy-image-tool-result-computer-use-claude-opus-4-6", "claude-opus-4-6", "computer_20251124", false},
		{"fantasy-image-tool-result-computer-use-stream-claude-opus-4-6", "claude-opus-4-6", "computer_20251124", true},
	} {
		stream := tc.stream
		t.Run(tc.name, func(t *testing.T) {
			exs := providertest.Load(t, "multimodal", tc.name)
			srv := replay.NewServer(t, exs...)
			m := newTestModel(t, srv.URL, Config{Model: tc.model})
			computer := map[string]any{"tools": []any{map[string]any{
				"type": tc.tool, "name": "computer", "display_width_px": 1920, "display_height_px": 1080}}}
			opts := &chat.Options{MaxTokens: 4096, Extra: map[string]any{ExtraBody: computer}}
			history := []chat.Message{chat.System("You are a helpful assistant"), chat.User("Take a screenshot of the desktop")}
			first, err := providertest.Run(context.Background(), m, &chat.Prompt{Messages: history, Options: opts}, stream)
			if err != nil {
				t.Fatal(err)
			}
			checkRequest(t, srv.Requests()[0].Body, exs[0].RequestBody)
			calls := first.ToolCalls()
			if len(calls) != 1 || calls[0].Name != "computer" {
				t.Fatalf("calls = %+v", calls)
			}
			// The recording's client sent the call back without the text before it.
			shot := content.Image(recordedImage(t, exs[1].RequestBody), "image/png")
			history = append(history, chat.Assistant("", calls[0]),
				chat.ToolMessage(chat.ToolResult{ID: calls[0].ID, Name: "computer", Parts: []content.Part{shot}}))
			if _, err := providertest.Run(context.Background(), m, &chat.Prompt{Messages: history, Options: opts}, stream); err != nil {
				t.Fatal(err)
			}
			checkRequest(t, srv.Requests()[1].Body, exs[1].RequestBody)
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

	for _, tc := range []struct {
		name string
		part content.Part
		want string
	}{
		{"audio", content.Audio([]byte("RIFF"), "audio/wav"), "anthropic: cannot send an audio part (audio/wav)"},
		{"bmp image", content.Image([]byte("BM"), "image/bmp"), "anthropic: cannot send an image part (image/bmp)"},
		{"gs URL", content.ImageURL("gs://bucket/a.png"), "anthropic: cannot send an image part by URL"},
		{"word document", content.Document([]byte("PK"), "application/msword", "a.doc"), "anthropic: cannot send a document part (application/msword)"},
		{"empty image", content.Image(nil, "image/png"), "no data"},
		{"unknown media type", content.Image(png, "png"), "not a media type"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := replay.NewServer(t)
			m := newTestModel(t, srv.URL, Config{Model: "claude-sonnet-4-5"})
			for _, stream := range []bool{false, true} {
				_, err := providertest.Run(context.Background(), m, &chat.Prompt{Messages: []chat.Message{chat.User("look", tc.part)}}, stream)
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Errorf("stream=%v: err = %v, want %q", stream, err, tc.want)
				}
				var u *content.Unsupported
				if strings.HasPrefix(tc.want, "anthropic: cannot") && !errors.As(err, &u) {
					t.Errorf("stream=%v: %v is not a *content.Unsupported", stream, err)
				}
			}
			if len(srv.Requests()) != 0 {
				t.Errorf("%d requests were sent", len(srv.Requests()))
			}
		})
	}
}
