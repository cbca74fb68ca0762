package openai

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/content"
	"github.com/wield-ai/wield/internal/providertest"
	"github.com/wield-ai/wield/internal/replay"
)

// recordedDataImage returns the bytes of the first data-URL image of a recorded request.
func recordedDataImage(t *testing.T, body []byte) []byte {
	t.Helper()
	var req struct {
		Messages []struct {
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatal(err)
	}
	for _, m := range req.Messages {
		var parts []struct {
			ImageURL struct{ URL string } `json:"image_url"`
		}
		if json.Unmarshal(m.Content, &parts) != nil {
			continue
		}
		for _, p := range parts {
			if _, data, ok := strings.Cut(p.ImageURL.URL, ";base64,"); ok {
				b, err := base64.StdEncoding.DecodeString(data)
				if err != nil {
					t.Fatal(err)
				}
				return b
			}
		}
	}
	t.Fatal("no data-URL image in the recorded request")
	return nil
}

// Images by data URL (called and streamed) and by URL, before or after the text, are sent as
// the recorded requests carry them.
func TestReplayImageInput(t *testing.T) {
	for _, tc := range []struct {
		name   string
		stream bool
		cfg    Config
		msgs   func(exs []replay.Exchange) []chat.Message
		opts   *chat.Options
	}{
		{name: "fantasy-image-input-gpt-5", cfg: Config{Model: "gpt-5"}, opts: &chat.Options{MaxTokens: 4000},
			msgs: func(exs []replay.Exchange) []chat.Message {
				return []chat.Message{chat.System("You are a helpful assistant"),
					chat.User("Describe the image briefly in English.", content.Image(recordedDataImage(t, exs[0].RequestBody), "image/png"))}
			}},
		{name: "fantasy-image-input-stream-gpt-5", stream: true, cfg: Config{Model: "gpt-5"}, opts: &chat.Options{MaxTokens: 4000},
			msgs: func(exs []replay.Exchange) []chat.Message {
				return []chat.Message{chat.System("You are a helpful assistant"),
					chat.User("Describe the image briefly in English.", content.Image(recordedDataImage(t, exs[0].RequestBody), "image/png"))}
			}},
		{name: "lcgo-image-url-gpt-4o", cfg: Config{Model: "gpt-4o"}, opts: &chat.Options{MaxTokens: 300, Temperature: ptr(0.0)},
			msgs: func([]replay.Exchange) []chat.Message {
				return []chat.Message{chat.User("",
					content.ImageURL("https://github.com/tmc/langchaingo/blob/main/docs/static/img/parrot-icon.png?raw=true"),
					content.Text("describe this image in detail"))}
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			exs := providertest.Load(t, "chat", tc.name)
			srv := replay.NewServer(t, exs...)
			cfg := tc.cfg
			cfg.MaxTokensField = "max_completion_tokens"
			m := newTestModel(t, New, srv.URL, cfg)
			resp, err := providertest.Run(context.Background(), m, &chat.Prompt{Messages: tc.msgs(exs), Options: tc.opts}, tc.stream)
			if err != nil {
				t.Fatal(err)
			}
			if resp.Text() == "" {
				t.Error("no answer")
			}
			assertSameRequest(t, srv.Requests()[0].Body, exs[0].RequestBody)
		})
	}
}

// Chat Completions tool messages take text only: a result's images follow the tool messages in
// one user message; the Responses API takes them in function_call_output.
func TestToolResultImages(t *testing.T) {
	png := []byte("\x89PNG\r\n\x1a\n")
	msgs := []chat.Message{
		chat.User("Chart the sales and the weather."),
		chat.Assistant("", chat.ToolCall{ID: "c1", Name: "chart", Arguments: `{}`}, chat.ToolCall{ID: "c2", Name: "weather", Arguments: `{}`}),
		chat.ToolMessage(
			chat.ToolResult{ID: "c1", Name: "chart", Content: "sales:", Parts: []content.Part{content.Image(png, "image/png")}},
			chat.ToolResult{ID: "c2", Name: "weather", Content: "sunny"}),
	}
	cm := newTestModel(t, New, "http://127.0.0.1:1", Config{Model: "gpt-5"})
	req, err := cm.request(&chat.Prompt{Messages: msgs}, false)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(req.params.Messages)
	want := `[{"role":"user","content":"Chart the sales and the weather."},
		{"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"chart","arguments":"{}"}},{"id":"c2","type":"function","function":{"name":"weather","arguments":"{}"}}]},
		{"role":"tool","tool_call_id":"c1","content":"sales:\n(The result's images and files follow in the next message.)"},
		{"role":"tool","tool_call_id":"c2","content":"sunny"},
		{"role":"user","content":[{"type":"text","text":"Images and files the chart call c1 returned:"},{"type":"image_url","image_url":{"url":"data:image/png;base64,iVBORw0KGgo="}}]}]`
	if !sameJSONText(t, got, want) {
		t.Errorf("chat messages:\n%s", got)
	}

	rm := newTestModel(t, NewResponses, "http://127.0.0.1:1", Config{Model: "gpt-5"})
	rreq, err := rm.request(&chat.Prompt{Messages: msgs})
	if err != nil {
		t.Fatal(err)
	}
	got, _ = json.Marshal(rreq.params.Input)
	var items []json.RawMessage
	if err := json.Unmarshal(got, &items); err != nil || len(items) != 5 ||
		!sameJSONText(t, items[3], `{"type":"function_call_output","call_id":"c1","output":[{"type":"input_text","text":"sales:"},{"type":"input_image","image_url":"data:image/png;base64,iVBORw0KGgo="}]}`) ||
		!sameJSONText(t, items[4], `{"type":"function_call_output","call_id":"c2","output":"sunny"}`) {
		t.Errorf("responses input:\n%s", got)
	}
}

func sameJSONText(t *testing.T, a []byte, b string) bool {
	t.Helper()
	var va, vb any
	if err := json.Unmarshal(a, &va); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(b), &vb); err != nil {
		t.Fatal(err)
	}
	return jsonEqual(va, vb)
}

// Parts an API cannot take are refused before any request, naming the provider and the part.
func TestUnsupportedParts(t *testing.T) {
	png := []byte("\x89PNG\r\n\x1a\n")
	for _, tc := range []struct {
		api  string
		part content.Part
		want string
	}{
		{"chat", content.Image(png, "image/bmp"), "openai: cannot send an image part (image/bmp)"},
		{"chat", content.ImageURL("gs://bucket/a.png"), "openai: cannot send an image part by URL"},
		{"chat", content.Audio([]byte("fLaC"), "audio/flac"), "openai: cannot send an audio part (audio/flac)"},
		{"chat", content.DocumentURL("https://example.com/a.pdf", "application/pdf"), "openai: cannot send a document part (application/pdf) by URL"},
		{"chat", content.Document([]byte("PK"), "application/zip", "a.zip"), "openai: cannot send a document part (application/zip)"},
		{"responses", content.Audio([]byte("RIFF"), "audio/wav"), "openai: cannot send an audio part (audio/wav)"},
		{"chat", content.Image(nil, "image/png"), "no data"},
		{"responses", content.Image(png, "png"), "not a media type"},
	} {
		t.Run(tc.api+"/"+tc.want, func(t *testing.T) {
			srv := replay.NewServer(t)
			var m chat.Model = newTestModel(t, New, srv.URL, Config{Model: "gpt-5"})
			if tc.api == "responses" {
				m = newTestModel(t, NewResponses, srv.URL, Config{Model: "gpt-5"})
			}
			for _, stream := range []bool{false, true} {
				_, err := providertest.Run(context.Background(), m, &chat.Prompt{Messages: []chat.Message{chat.User("look", tc.part)}}, stream)
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Errorf("stream=%v: err = %v, want %q", stream, err, tc.want)
				}
				var u *content.Unsupported
				if strings.Contains(tc.want, "cannot send") && !errors.As(err, &u) {
					t.Errorf("%v is not a *content.Unsupported", err)
				}
			}
			if len(srv.Requests()) != 0 {
				t.Errorf("%d requests sent", len(srv.Requests()))
			}
		})
	}
	// Mistral takes images but no file parts.
	m := newTestModel(t, NewMistral, "http://127.0.0.1:1", Config{Model: "mistral-small-latest"})
	if _, err := m.Call(context.Background(), &chat.Prompt{Messages: []chat.Message{chat.User("read", content.Document([]byte("%PDF-"), "application/pdf", "a.pdf"))}}); err == nil || !strings.Contains(err.Error(), "Mistral") {
		t.Errorf("Mistral PDF: %v", err)
	}
}
