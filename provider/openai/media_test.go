package openai

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/content"
	"github.com/wield-ai/wield/internal/providertest"
	"github.com/wield-ai/wield/internal/replay"
)

// No recording has media in an answer; these answers are built in the shapes of OpenAI's spec
// (ChatCompletionResponseMessage.audio, the stream's delta.audio, ImageGenToolCall) and of
// OpenRouter's documented "images" member.

var (
	answerWAV = []byte("RIFF\x24\x00\x00\x00WAVEfmt \x10\x00\x00\x00\x01\x00\x01\x00")
	answerPNG = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01")
)

func b64(b []byte) string { return base64.StdEncoding.EncodeToString(b) }

func jsonExchange(body string) replay.Exchange {
	return replay.Exchange{Header: http.Header{"Content-Type": {"application/json"}}, Body: []byte(body)}
}

func sseExchange(events ...string) replay.Exchange {
	var b strings.Builder
	for _, e := range events {
		b.WriteString(e)
		b.WriteString("\n\n")
	}
	return replay.Exchange{Header: http.Header{"Content-Type": {"text/event-stream"}}, Body: []byte(b.String())}
}

// answerOf calls or streams the prompt against one prepared answer and returns the message.
func answerOf(t *testing.T, m func(url string) chat.Model, ex replay.Exchange, p *chat.Prompt, stream bool) chat.Message {
	t.Helper()
	srv := replay.NewServer(t, ex)
	resp, err := providertest.Run(context.Background(), m(srv.URL), p, stream)
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Generations) != 1 {
		t.Fatalf("%d generations", len(resp.Generations))
	}
	return resp.Generations[0].Message
}

func wantParts(t *testing.T, got chat.Message, text string, parts ...content.Part) {
	t.Helper()
	if got.Content != text || !reflect.DeepEqual(got.Parts, parts) {
		gj, _ := json.Marshal(got)
		t.Fatalf("answer: %s\nwant text %q and %d parts", gj, text, len(parts))
	}
}

// An audio answer of Chat Completions is an audio part carrying its id, its transcript the text;
// streamed, its fragments (each base64 on its own) are joined into the same part, passed on
// after the transcript. Sent back, the answer is its transcript.
func TestAudioAnswer(t *testing.T) {
	prompt := &chat.Prompt{Messages: []chat.Message{chat.User("Say hello.")}, Options: &chat.Options{Extra: map[string]any{
		ExtraBody: map[string]any{"modalities": []string{"text", "audio"}, "audio": map[string]any{"voice": "alloy", "format": "wav"}}}}}
	newModel := func(url string) chat.Model { return newTestModel(t, New, url, Config{Model: "gpt-4o-audio-preview"}) }
	want := content.Audio(answerWAV, "audio/wav")
	want.Signature = "audio_abc"

	call := jsonExchange(fmt.Sprintf(`{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"gpt-4o-audio-preview",
		"choices":[{"index":0,"message":{"role":"assistant","content":null,"refusal":null,
		"audio":{"id":"audio_abc","data":%q,"expires_at":1729018505,"transcript":"Hello there."}},"finish_reason":"stop"}],
		"usage":{"prompt_tokens":5,"completion_tokens":20,"total_tokens":25}}`, b64(answerWAV)))
	got := answerOf(t, newModel, call, prompt, false)
	wantParts(t, got, "Hello there.", want)

	chunk := func(delta string, finish string) string {
		f := "null"
		if finish != "" {
			f = `"` + finish + `"`
		}
		return `data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"gpt-4o-audio-preview","choices":[{"index":0,"delta":` + delta + `,"finish_reason":` + f + `}]}`
	}
	stream := sseExchange(
		chunk(`{"role":"assistant","content":null,"audio":{"id":"audio_abc","transcript":"Hello "}}`, ""),
		chunk(fmt.Sprintf(`{"audio":{"data":%q,"transcript":"there."}}`, b64(answerWAV[:10])), ""),
		chunk(fmt.Sprintf(`{"audio":{"data":%q,"expires_at":1729018505}}`, b64(answerWAV[10:])), ""),
		chunk(`{}`, "stop"),
		"data: [DONE]")
	got = answerOf(t, newModel, stream, prompt, true)
	wantParts(t, got, "Hello there.", want)

	// Sent back: the transcript, without the audio, which OpenAI keeps for a while only.
	srv := replay.NewServer(t, call)
	m := newTestModel(t, New, srv.URL, Config{Model: "gpt-4o-audio-preview"})
	if _, err := m.Call(context.Background(), &chat.Prompt{Messages: []chat.Message{chat.User("Say hello."), got, chat.User("Again.")}}); err != nil {
		t.Fatal(err)
	}
	var sent struct{ Messages []json.RawMessage }
	if err := json.Unmarshal(srv.Requests()[0].Body, &sent); err != nil {
		t.Fatal(err)
	}
	if len(sent.Messages) != 3 || !providertest.JSONEqual(t, string(sent.Messages[1]), `{"role":"assistant","content":"Hello there."}`) {
		t.Errorf("messages sent: %s", srv.Requests()[0].Body)
	}
}

// The format asked for names the audio; without one, the bytes do (raw PCM when they tell
// nothing).
func TestAudioMediaType(t *testing.T) {
	for _, tc := range []struct {
		format string
		data   []byte
		want   string
	}{
		{"pcm16", []byte{1, 2, 3, 4}, "audio/L16"},
		{"opus", []byte("OggS"), "audio/ogg"},
		{"mp3", []byte{0, 0}, "audio/mpeg"},
		{"", answerWAV, "audio/wav"},
		{"", []byte("ID3\x04\x00"), "audio/mpeg"},
		{"", []byte{0xFF, 0xFB, 0x90, 0x00}, "audio/mpeg"},
		{"", []byte{0xFF, 0xF1, 0x50, 0x80}, "audio/aac"},
		{"", []byte("fLaC\x00"), "audio/flac"},
		{"", []byte("OggS\x00"), "audio/ogg"},
		{"", []byte{0, 1, 0, 1}, "audio/L16"},
	} {
		if got := audioMediaType(tc.format, tc.data); got != tc.want {
			t.Errorf("audioMediaType(%q, % x) = %q, want %q", tc.format, tc.data, got, tc.want)
		}
		if err := content.Audio(tc.data, tc.want).Validate(); err != nil {
			t.Error(err)
		}
	}
}

// Images a compatible server (OpenRouter, Vercel's AI Gateway) returns in "images" beside the text
// are image parts after the text, called or streamed.
func TestImagesBesideText(t *testing.T) {
	newModel := func(url string) chat.Model {
		return newTestModel(t, New, url+"/api/v1", Config{Model: "google/gemini-2.5-flash-image"})
	}
	prompt := &chat.Prompt{Messages: []chat.Message{chat.User("Draw a dot.")}, Options: &chat.Options{Extra: map[string]any{
		ExtraBody: map[string]any{"modalities": []string{"image", "text"}}}}}
	images := fmt.Sprintf(`[{"type":"image_url","image_url":{"url":"data:image/png;base64,%s"}},{"type":"image_url","image_url":{"url":"https://example.com/b.webp"}},{"type":"image_url","image_url":{"url":"data:text/plain;base64,aGk="}}]`, b64(answerPNG))
	call := jsonExchange(`{"id":"gen-1","object":"chat.completion","created":1,"model":"google/gemini-2.5-flash-image",
		"choices":[{"index":0,"message":{"role":"assistant","content":"Here is a dot.","images":` + images + `},"finish_reason":"stop"}]}`)
	want := []content.Part{content.Image(answerPNG, "image/png"), content.ImageURL("https://example.com/b.webp")}
	wantParts(t, answerOf(t, newModel, call, prompt, false), "Here is a dot.", want...)

	stream := sseExchange(
		`data: {"id":"gen-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":"Here is "},"finish_reason":null}]}`,
		`data: {"id":"gen-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"","images":`+images+`},"finish_reason":null}]}`,
		`data: {"id":"gen-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"a dot."},"finish_reason":null}]}`,
		`data: {"id":"gen-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`,
		"data: [DONE]")
	wantParts(t, answerOf(t, newModel, stream, prompt, true), "Here is a dot.", want...)
}

// The Responses API's image_generation_call items are image parts carrying their item id, after
// the text, called or streamed (partial images skipped); sent back, they are
// image_generation_call items again.
func TestGeneratedImages(t *testing.T) {
	newModel := func(url string) chat.Model { return newTestModel(t, NewResponses, url, Config{Model: "gpt-5"}) }
	prompt := &chat.Prompt{Messages: []chat.Message{chat.User("Draw a dot.")}}
	item := fmt.Sprintf(`{"type":"image_generation_call","id":"ig_1","status":"completed","output_format":"png","result":%q}`, b64(answerPNG))
	message := `{"type":"message","id":"msg_1","status":"completed","role":"assistant","content":[{"type":"output_text","text":"Here is a dot.","annotations":[]}]}`
	resp := func(status, output string) string {
		return `{"id":"resp_1","object":"response","created_at":1,"status":"` + status + `","model":"gpt-5","output":[` + output + `],"usage":{"input_tokens":5,"output_tokens":9,"total_tokens":14}}`
	}
	want := content.Image(answerPNG, "image/png")
	want.Signature = "ig_1"

	got := answerOf(t, newModel, jsonExchange(resp("completed", item+","+message)), prompt, false)
	wantParts(t, got, "Here is a dot.", want)

	event := func(typ, body string) string {
		return "event: " + typ + "\ndata: {\"type\":\"" + typ + "\"," + body + "}"
	}
	stream := sseExchange(
		event("response.created", `"response":`+resp("in_progress", "")),
		event("response.output_item.added", `"output_index":0,"item":{"type":"image_generation_call","id":"ig_1","status":"in_progress","result":null}`),
		event("response.image_generation_call.partial_image", `"output_index":0,"item_id":"ig_1","partial_image_index":0,"partial_image_b64":"`+b64(answerPNG[:8])+`"`),
		event("response.output_item.done", `"output_index":0,"item":`+item),
		event("response.output_item.added", `"output_index":1,"item":{"type":"message","id":"msg_1","status":"in_progress","role":"assistant","content":[]}`),
		event("response.output_text.delta", `"output_index":1,"item_id":"msg_1","content_index":0,"delta":"Here is a dot."`),
		event("response.output_item.done", `"output_index":1,"item":`+message),
		event("response.completed", `"response":`+resp("completed", item+","+message)))
	got = answerOf(t, newModel, stream, prompt, true)
	wantParts(t, got, "Here is a dot.", want)

	input := sentInput(t, []chat.Message{chat.User("Draw a dot."), got, chat.User("Bigger.")})
	if !providertest.JSONEqual(t, string(input), `[{"role":"user","content":"Draw a dot."},
		{"type":"image_generation_call","id":"ig_1","status":"completed","result":"`+b64(answerPNG)+`"},
		{"role":"assistant","content":"Here is a dot."},{"role":"user","content":"Bigger."}]`) {
		t.Errorf("input: %s", input)
	}
}
