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
	fantasyImage := func(exs []replay.Exchange) *chat.Prompt {
		return providertest.ImagePrompt(recordedDataImage(t, exs[0].RequestBody))
	}
	for _, tc := range []struct {
		name   string
		stream bool
		cfg    Config
		prompt func(exs []replay.Exchange) *chat.Prompt
	}{
		{name: "fantasy-image-input-gpt-5", cfg: Config{Model: "gpt-5"}, prompt: fantasyImage},
		{name: "fantasy-image-input-stream-gpt-5", stream: true, cfg: Config{Model: "gpt-5"}, prompt: fantasyImage},
		{name: "lcgo-image-url-gpt-4o", cfg: Config{Model: "gpt-4o"},
			prompt: func([]replay.Exchange) *chat.Prompt {
				return &chat.Prompt{Messages: []chat.Message{chat.User("",
					content.ImageURL("https://github.com/tmc/langchaingo/blob/main/docs/static/img/parrot-icon.png?raw=true"),
					content.Text("describe this image in detail"))}, Options: &chat.Options{MaxTokens: 300, Temperature: ptr(0.0)}}
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			exs := providertest.Load(t, "chat", tc.name)
			srv := replay.NewServer(t, exs...)
			cfg := tc.cfg
			cfg.MaxTokensField = "max_completion_tokens"
			m := newTestModel(t, New, srv.URL, cfg)
			resp, err := providertest.Run(context.Background(), m, tc.prompt(exs), tc.stream)
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
	got := sentMessages(t, newTestModel(t, New, "http://127.0.0.1:1", Config{Model: "gpt-5"}), msgs)
	want := `[{"role":"user","content":"Chart the sales and the weather."},
		{"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"chart","arguments":"{}"}},{"id":"c2","type":"function","function":{"name":"weather","arguments":"{}"}}]},
		{"role":"tool","tool_call_id":"c1","content":"sales:\n(The result's images and files follow in the next message.)"},
		{"role":"tool","tool_call_id":"c2","content":"sunny"},
		{"role":"user","content":[{"type":"text","text":"Images and files the chart call c1 returned:"},{"type":"image_url","image_url":{"url":"data:image/png;base64,iVBORw0KGgo="}}]}]`
	if !providertest.JSONEqual(t, string(got), want) {
		t.Errorf("chat messages:\n%s", got)
	}

	got = sentInput(t, msgs)
	var items []json.RawMessage
	if err := json.Unmarshal(got, &items); err != nil || len(items) != 5 ||
		!providertest.JSONEqual(t, string(items[3]), `{"type":"function_call_output","call_id":"c1","output":[{"type":"input_text","text":"sales:"},{"type":"input_image","image_url":"data:image/png;base64,iVBORw0KGgo="}]}`) ||
		!providertest.JSONEqual(t, string(items[4]), `{"type":"function_call_output","call_id":"c2","output":"sunny"}`) {
		t.Errorf("responses input:\n%s", got)
	}
}

// Parts an API cannot take, and malformed parts, are refused before any request, naming the
// provider and the part, wherever the part is (a user message, a tool result, an answer, a system
// message), on every path: OpenAI's two APIs, Azure, Mistral and a compatible server.
func TestUnsupportedParts(t *testing.T) {
	png := []byte("\x89PNG\r\n\x1a\n")
	models := map[string]func(t *testing.T, url string) chat.Model{
		"chat": func(t *testing.T, url string) chat.Model { return newTestModel(t, New, url, Config{Model: "gpt-5"}) },
		"responses": func(t *testing.T, url string) chat.Model {
			return newTestModel(t, NewResponses, url, Config{Model: "gpt-5"})
		},
		"compatible": func(t *testing.T, url string) chat.Model {
			return newTestModel(t, New, url+"/v1", Config{Model: "qwen3"})
		},
		"mistral": func(t *testing.T, url string) chat.Model {
			return newTestModel(t, NewMistral, url, Config{Model: "mistral-small-latest"})
		},
		"azure chat": func(t *testing.T, url string) chat.Model {
			return azureModel(t, "chat", Azure{Endpoint: url, Deployment: "gpt-5-mini", APIKey: "k"}, Config{})
		},
		"azure responses": func(t *testing.T, url string) chat.Model {
			return azureModel(t, "responses", Azure{Endpoint: url, Deployment: "gpt-5-mini", APIKey: "k"}, Config{})
		},
	}
	everyAPI := []string{"chat", "responses", "compatible", "mistral", "azure chat", "azure responses"}
	chatAPIs := []string{"chat", "compatible", "mistral", "azure chat"}
	for _, tc := range []struct {
		apis []string
		part content.Part
		want string
	}{
		// What an API does not take.
		{everyAPI, content.Image(png, "image/bmp"), ": cannot send an image part (image/bmp): the API takes JPEG, PNG, GIF and WebP"},
		{everyAPI, content.ImageURL("gs://bucket/a.png"), ": cannot send an image part by URL"},
		{chatAPIs, content.Audio([]byte("fLaC"), "audio/flac"), ": cannot send an audio part (audio/flac): the API takes WAV and MP3"},
		{chatAPIs, content.Part{Kind: content.KindAudio, URL: "https://example.com/a.wav", MediaType: "audio/wav"}, ": cannot send an audio part (audio/wav) by URL"},
		{[]string{"chat", "compatible", "azure chat"}, content.DocumentURL("https://example.com/a.pdf", "application/pdf"), "openai: cannot send a document part (application/pdf) by URL"},
		{[]string{"chat", "compatible", "azure chat"}, content.Document([]byte("PK"), "application/zip", "a.zip"), "openai: cannot send a document part (application/zip)"},
		{[]string{"mistral"}, content.Document([]byte("%PDF-"), "application/pdf", "a.pdf"), "mistral: cannot send a document part (application/pdf): Mistral reads PDFs from an http(s) URL"},
		{[]string{"mistral"}, content.DocumentURL("https://example.com/a.zip", "application/zip"), "mistral: cannot send a document part (application/zip) by URL"},
		{[]string{"responses", "azure responses"}, content.Audio([]byte("RIFF"), "audio/wav"), "openai: cannot send an audio part (audio/wav): the Responses API takes text, images and files"},
		{[]string{"responses", "azure responses"}, content.DocumentURL("file:///etc/passwd", "application/pdf"), "openai: cannot send a document part (application/pdf) by URL"},
		// Malformed parts: an empty image, an unknown or missing media type, no kind.
		{everyAPI, content.Image(nil, "image/png"), "no data"},
		{everyAPI, content.Image(png, "png"), "not a media type"},
		{everyAPI, content.Image(png, ""), "without a media type"},
		{everyAPI, content.Document([]byte("x"), "image/png", "x.png"), `"image/png" for a document part`},
		{everyAPI, content.Part{Data: png}, "part has no kind"},
		{everyAPI, content.Part{Kind: "video", Data: png, MediaType: "video/mp4"}, `unknown part kind "video"`},
	} {
		for _, api := range tc.apis {
			for _, where := range []string{"user", "tool result", "answer", "system"} {
				t.Run(api+"/"+where+"/"+tc.want, func(t *testing.T) {
					msgs := []chat.Message{chat.User("look", tc.part)}
					switch where {
					case "tool result":
						msgs = []chat.Message{chat.User("look"), chat.Assistant("", chat.ToolCall{ID: "call1abcd", Name: "shot", Arguments: "{}"}),
							chat.ToolMessage(chat.ToolResult{ID: "call1abcd", Name: "shot", Content: "here", Parts: []content.Part{tc.part}})}
					case "answer":
						msgs = []chat.Message{chat.User("look"), {Role: chat.RoleAssistant, Content: "here", Parts: []content.Part{tc.part}}, chat.User("and?")}
					case "system":
						msgs = []chat.Message{{Role: chat.RoleSystem, Content: "be brief", Parts: []content.Part{tc.part}}, chat.User("look")}
					}
					srv := replay.NewServer(t)
					m := models[api](t, srv.URL)
					for _, stream := range []bool{false, true} {
						_, err := providertest.Run(context.Background(), m, &chat.Prompt{Messages: msgs}, stream)
						want := tc.want
						if where == "system" && strings.Contains(want, ": cannot send") {
							want = "a system message takes text only"
						}
						if err == nil || !strings.Contains(err.Error(), want) {
							t.Fatalf("stream=%v: err = %v, want %q", stream, err, want)
						}
						var u *content.Unsupported
						if strings.Contains(want, "cannot send") || strings.Contains(want, "takes text only") {
							if !errors.As(err, &u) {
								t.Errorf("%v is not a *content.Unsupported", err)
							}
						} else if !errors.Is(err, content.ErrEmpty) && !errors.Is(err, content.ErrMediaType) && !strings.Contains(want, "kind") {
							t.Errorf("%v wraps neither content.ErrEmpty nor content.ErrMediaType", err)
						}
					}
					if n := len(srv.Requests()); n != 0 {
						t.Errorf("%d requests sent", n)
					}
				})
			}
		}
	}
}

// Mistral's differences: input_audio is the base64 text itself, PDFs go by URL in document_url
// chunks, and a tool's media stay in its tool message as content chunks, since Mistral refuses a
// user message right after tool messages.
func TestMistralParts(t *testing.T) {
	png := []byte("\x89PNG\r\n\x1a\n")
	wav := []byte("RIFF\x24\x00\x00\x00WAVEfmt ")
	ownAudio := content.Audio(wav, "audio/wav") // an audio answer of OpenAI's, not sent
	ownAudio.Signature = "audio_abc"
	msgs := []chat.Message{
		chat.User("Listen, read and look:", content.Audio(wav, "audio/wav"),
			content.DocumentURL("https://example.com/report.pdf", "application/pdf"), content.Image(png, "image/png")),
		chat.Assistant("", chat.ToolCall{ID: "abcDEF123", Name: "chart", Arguments: `{}`}),
		chat.ToolMessage(chat.ToolResult{ID: "abcDEF123", Name: "chart", Content: "sales:", Parts: []content.Part{content.Image(png, "image/png")}}),
		{Role: chat.RoleAssistant, Content: "Here is the chart again:", Parts: []content.Part{content.Image(png, "image/png"), ownAudio}},
	}
	got := sentMessages(t, newTestModel(t, NewMistral, "http://127.0.0.1:1", Config{Model: "mistral-small-latest"}), msgs)
	want := `[{"role":"user","content":[{"type":"text","text":"Listen, read and look:"},{"type":"input_audio","input_audio":"UklGRiQAAABXQVZFZm10IA=="},
			{"type":"document_url","document_url":"https://example.com/report.pdf"},{"type":"image_url","image_url":{"url":"data:image/png;base64,iVBORw0KGgo="}}]},
		{"role":"assistant","tool_calls":[{"id":"abcDEF123","type":"function","function":{"name":"chart","arguments":"{}"}}]},
		{"role":"tool","tool_call_id":"abcDEF123","name":"chart","content":[{"type":"text","text":"sales:"},{"type":"image_url","image_url":{"url":"data:image/png;base64,iVBORw0KGgo="}}]},
		{"role":"assistant","content":[{"type":"text","text":"Here is the chart again:"},{"type":"image_url","image_url":{"url":"data:image/png;base64,iVBORw0KGgo="}}]}]`
	if !providertest.JSONEqual(t, string(got), want) {
		t.Errorf("Mistral messages:\n%s", got)
	}
}

// An assistant message's media (an image another provider generated, say) cannot go in an
// assistant message of these APIs: they follow it in a user message, after the outputs of its
// calls. Audio Chat Completions generated is left out, its transcript being the text; images the
// Responses API generated go back as image_generation_call items. Text parts, signed or not,
// are joined in order.
func TestAssistantMedia(t *testing.T) {
	png := []byte("\x89PNG\r\n\x1a\n")
	generated, ownAudio, signed := answerMedia(png, "second")
	msgs := []chat.Message{
		chat.User("Draw and check."),
		{Role: chat.RoleAssistant, Content: "first ", Parts: []content.Part{signed, content.Image(png, "image/png"), ownAudio, generated},
			ToolCalls: []chat.ToolCall{{ID: "c1", Name: "check", Arguments: `{}`}}},
		chat.ToolMessage(chat.ToolResult{ID: "c1", Name: "check", Content: "fine", Parts: []content.Part{content.Image(png, "image/png")}}),
		chat.User("Thanks."),
	}
	img := `{"type":"image_url","image_url":{"url":"data:image/png;base64,iVBORw0KGgo="}}`
	got := sentMessages(t, newTestModel(t, New, "http://127.0.0.1:1", Config{Model: "gpt-5"}), msgs)
	want := `[{"role":"user","content":"Draw and check."},
		{"role":"assistant","content":"first second","tool_calls":[{"id":"c1","type":"function","function":{"name":"check","arguments":"{}"}}]},
		{"role":"tool","tool_call_id":"c1","content":"fine\n(The result's images and files follow in the next message.)"},
		{"role":"user","content":[{"type":"text","text":"Images and files of your previous answer:"},` + img + `,` + img + `,
			{"type":"text","text":"Images and files the check call c1 returned:"},` + img + `]},
		{"role":"user","content":"Thanks."}]`
	if !providertest.JSONEqual(t, string(got), want) {
		t.Errorf("chat messages:\n%s", got)
	}

	got = sentInput(t, msgs)
	rimg := `{"type":"input_image","image_url":"data:image/png;base64,iVBORw0KGgo=","detail":"auto"}`
	want = `[{"role":"user","content":"Draw and check."},
		{"type":"image_generation_call","id":"ig_123","result":"iVBORw0KGgo=","status":"completed"},
		{"role":"assistant","content":"first second"},
		{"type":"function_call","call_id":"c1","name":"check","arguments":"{}"},
		{"type":"function_call_output","call_id":"c1","output":[{"type":"input_text","text":"fine"},{"type":"input_image","image_url":"data:image/png;base64,iVBORw0KGgo="}]},
		{"role":"user","content":[{"type":"input_text","text":"Images and files of your previous answer:"},` + rimg + `]},
		{"role":"user","content":"Thanks."}]`
	if !providertest.JSONEqual(t, string(got), want) {
		t.Errorf("responses input:\n%s", got)
	}
}

// answerMedia are the parts of an answer with media, one of each kind these APIs treat apart: an
// image the Responses API generated (its item id kept as the signature), audio Chat Completions
// generated (sent back as its transcript, the text), and a text part saying text that another
// provider signed.
func answerMedia(png []byte, text string) (generated, ownAudio, signed content.Part) {
	generated = content.Image(png, "image/png")
	generated.Signature = "ig_123"
	ownAudio = content.Audio([]byte("RIFF\x24\x00\x00\x00WAVEfmt "), "audio/wav")
	ownAudio.Signature = "audio_abc"
	signed = content.Text(text)
	signed.Signature = "gemini-signature"
	return generated, ownAudio, signed
}

// A tool result whose only part beside its text is a text document is all text: nothing follows
// the tool messages, and the tool message does not say anything does.
func TestToolResultTextDocument(t *testing.T) {
	msgs := []chat.Message{
		chat.User("Read the table."),
		chat.Assistant("", chat.ToolCall{ID: "c1", Name: "table", Arguments: `{}`}),
		chat.ToolMessage(chat.ToolResult{ID: "c1", Name: "table", Content: "the table: ", Parts: []content.Part{content.Document([]byte("a,b\n1,2\n"), "text/csv", "t.csv")}}),
	}
	for _, mistral := range []bool{false, true} {
		m := newTestModel(t, New, "http://127.0.0.1:1", Config{Model: "gpt-5"})
		if mistral {
			m = newTestModel(t, NewMistral, "http://127.0.0.1:1", Config{Model: "mistral-small-latest"})
		}
		got := sentMessages(t, m, msgs)
		var sent []map[string]any
		if err := json.Unmarshal(got, &sent); err != nil {
			t.Fatal(err)
		}
		if len(sent) != 3 || sent[2]["content"] != "the table: t.csv:\na,b\n1,2\n" {
			t.Errorf("mistral=%v: %s", mistral, got)
		}
	}
}

// sentMessages returns, as JSON, the messages of the Chat Completions request m builds for msgs.
func sentMessages(t testing.TB, m *ChatModel, msgs []chat.Message) []byte {
	t.Helper()
	req, err := m.request(&chat.Prompt{Messages: msgs}, false)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(req.params.Messages)
	return b
}

// sentInput returns, as JSON, the input of the Responses request a gpt-5 model builds for
// msgs.
func sentInput(t testing.TB, msgs []chat.Message) []byte {
	t.Helper()
	req, err := newTestModel(t, NewResponses, "http://127.0.0.1:1", Config{Model: "gpt-5"}).request(&chat.Prompt{Messages: msgs})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(req.params.Input)
	return b
}
