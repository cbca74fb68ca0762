package gemini

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/content"
	"github.com/wield-ai/wield/internal/providertest"
	"github.com/wield-ai/wield/internal/replay"
	"github.com/wield-ai/wield/tool"
)

// A user's image is sent as the recorded inlineData part, called and streamed.
func TestReplayImageInput(t *testing.T) {
	for _, stream := range []bool{false, true} {
		name := map[bool]string{false: "fantasy-image-input-gemini-2.5-pro", true: "fantasy-image-input-stream-gemini-2.5-pro"}[stream]
		t.Run(name, func(t *testing.T) {
			exs := providertest.Load(t, "multimodal", name)
			srv := replay.NewServer(t, exs...)
			m, _ := newTestModel(t, srv, Config{Model: "gemini-2.5-pro"})
			var rec struct {
				Contents []struct {
					Parts []struct {
						InlineData struct{ Data string } `json:"inlineData"`
					} `json:"parts"`
				} `json:"contents"`
			}
			if err := json.Unmarshal(exs[0].RequestBody, &rec); err != nil {
				t.Fatal(err)
			}
			png, err := base64.StdEncoding.DecodeString(rec.Contents[0].Parts[1].InlineData.Data)
			if err != nil || len(png) == 0 {
				t.Fatalf("recorded image: %v", err)
			}
			p := &chat.Prompt{Messages: []chat.Message{
				chat.System("You are a helpful assistant"),
				chat.User("Describe the image briefly in English.", content.Image(png, "image/png")),
			}, Options: &chat.Options{MaxTokens: 4000}}
			resp, err := providertest.Run(context.Background(), m, p, stream)
			if err != nil {
				t.Fatal(err)
			}
			checkRequest(t, 0, srv.Requests()[0], exs[0], false)
			if want := parseRecorded(t, exs[0]).Text; resp.Text() != want {
				t.Errorf("answer %q, recorded %q", resp.Text(), want)
			}
		})
	}
}

// A signature that arrives on its own empty part goes back on its own empty part, in its place,
// whether the answer was called or streamed; it is never merged into the text before it.
func TestSignatureOnItsOwnEmptyPart(t *testing.T) {
	call := `{"functionCall":{"id":"fc-1","name":"weather","args":{"location":"Paris"}},"thoughtSignature":"` + sig1 + `"}`
	whole := `{"candidates":[{"content":{"role":"model","parts":[{"text":"Checking the weather."},{"text":"","thoughtSignature":"` + sig2 + `"},` + call + `]},"finishReason":"STOP","index":0}],"responseId":"r1"}`
	chunks := []string{
		`{"candidates":[{"content":{"role":"model","parts":[{"text":"Checking "}]},"index":0}],"responseId":"r1"}`,
		`{"candidates":[{"content":{"role":"model","parts":[{"text":"the weather."}]},"index":0}],"responseId":"r1"}`,
		`{"candidates":[{"content":{"role":"model","parts":[{"text":"","thoughtSignature":"` + sig2 + `"}]},"index":0}],"responseId":"r1"}`,
		`{"candidates":[{"content":{"role":"model","parts":[` + call + `]},"finishReason":"STOP","index":0}],"responseId":"r1"}`,
	}
	final := `{"candidates":[{"content":{"role":"model","parts":[{"text":"Sunny."}]},"finishReason":"STOP","index":0}],"responseId":"r2"}`
	// The SDK leaves an empty text out of the JSON, as Google's own clients send such a part.
	wantModel := `{"role":"model","parts":[{"text":"Checking the weather."},{"thoughtSignature":"` + sig2 + `"},` + call + `]}`
	for _, stream := range []bool{false, true} {
		first := replay.Exchange{Header: jsonHeader(), Body: []byte(whole)}
		if stream {
			var b strings.Builder
			for _, c := range chunks {
				b.WriteString("data: " + c + "\r\n\r\n")
			}
			first = replay.Exchange{Header: http.Header{"Content-Type": {"text/event-stream"}}, Body: []byte(b.String())}
		}
		srv := replay.NewServer(t, first, replay.Exchange{Header: jsonHeader(), Body: []byte(final)})
		m, _ := newTestModel(t, srv, Config{})
		opts := &chat.Options{Tools: []tool.Tool{fantasyWeather(t)}}
		history := []chat.Message{chat.User("Weather in Paris?")}
		resp, err := providertest.Run(context.Background(), m, &chat.Prompt{Messages: history, Options: opts}, stream)
		if err != nil {
			t.Fatal(err)
		}
		msg := resp.Generations[0].Message
		if msg.Text() != "Checking the weather." || !reflect.DeepEqual(msg.Parts, []content.Part{{Kind: content.KindText, Signature: sig2}}) {
			t.Fatalf("stream=%v: message %s", stream, jsonString(msg))
		}
		history = providertest.Execute(t, &chat.Prompt{Messages: history, Options: opts}, resp)
		if _, err := m.Call(context.Background(), &chat.Prompt{Messages: history, Options: opts}); err != nil {
			t.Fatal(err)
		}
		var sent struct {
			Contents []json.RawMessage `json:"contents"`
		}
		if err := json.Unmarshal(srv.Requests()[1].Body, &sent); err != nil {
			t.Fatal(err)
		}
		if len(sent.Contents) != 3 || !sameJSON(t, sent.Contents[1], wantModel) {
			t.Fatalf("stream=%v: sent %s", stream, srv.Requests()[1].Body)
		}
	}
}

// A conversation stored before messages had parts kept a text signature as a reasoning item; it
// still goes back on the text.
func TestStoredTextSignature(t *testing.T) {
	msg := chat.Message{Role: chat.RoleAssistant, Content: "Hi.", Reasoning: []chat.Reasoning{{Provider: "gemini", Signature: sig2}}}
	parts, err := modelParts(msg, map[string]string{})
	if err != nil {
		t.Fatal(err)
	}
	if len(parts) != 1 || parts[0].Text != "Hi." || string(parts[0].ThoughtSignature) != "signature two" {
		t.Fatalf("parts %s", jsonString(parts))
	}
}

// User media and tool-result media: inline bytes, file URIs, function-response parts; parts the
// API cannot take are refused before any request.
func TestPartsRequest(t *testing.T) {
	png := []byte("\x89PNG\r\n\x1a\n")
	msgs := []chat.Message{
		chat.User("compare", content.Image(png, "image/png"), content.ImageURL("gs://bucket/a.jpg", "image/jpeg"),
			content.Document([]byte("%PDF-1.4"), "application/pdf", "r.pdf"), content.Audio([]byte("RIFF"), "audio/wav")),
		chat.Assistant("", chat.ToolCall{ID: "fc-1", Name: "chart", Arguments: `{}`}),
		chat.ToolMessage(chat.ToolResult{ID: "fc-1", Name: "chart", Content: "chart:", Parts: []content.Part{content.Image(png, "image/png")}}),
	}
	_, contents, err := contents(msgs)
	if err != nil {
		t.Fatal(err)
	}
	want := `[
		{"role":"user","parts":[{"text":"compare"},{"inlineData":{"mimeType":"image/png","data":"iVBORw0KGgo="}},
			{"fileData":{"fileUri":"gs://bucket/a.jpg","mimeType":"image/jpeg"}},
			{"inlineData":{"mimeType":"application/pdf","data":"JVBERi0xLjQ=","displayName":"r.pdf"}},
			{"inlineData":{"mimeType":"audio/wav","data":"UklGRg=="}}]},
		{"role":"model","parts":[{"functionCall":{"id":"fc-1","name":"chart"}}]},
		{"role":"user","parts":[{"functionResponse":{"id":"fc-1","name":"chart","response":{"result":"chart:"},
			"parts":[{"inlineData":{"mimeType":"image/png","data":"iVBORw0KGgo="}}]}}]}]`
	got, _ := json.Marshal(contents)
	if !sameJSON(t, got, want) {
		t.Fatalf("contents %s", got)
	}

	for _, tc := range []struct {
		name string
		part content.Part
		want string
	}{
		{"URL without media type", content.ImageURL("https://example.com/a.png"), "gemini: cannot send an image part by URL: a file URI needs its media type"},
		{"empty image", content.Image(nil, "image/png"), "no data"},
		{"unknown media type", content.Image(png, "png"), "not a media type"},
	} {
		srv := replay.NewServer(t)
		m, _ := newTestModel(t, srv, Config{})
		for _, stream := range []bool{false, true} {
			_, err := providertest.Run(context.Background(), m, &chat.Prompt{Messages: []chat.Message{chat.User("look", tc.part)}}, stream)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%s, stream=%v: err = %v, want %q", tc.name, stream, err, tc.want)
			}
			var u *content.Unsupported
			if strings.Contains(tc.want, "cannot send") && !errors.As(err, &u) {
				t.Errorf("%s: %v is not a *content.Unsupported", tc.name, err)
			}
		}
		if len(srv.Requests()) != 0 {
			t.Errorf("%s: %d requests sent", tc.name, len(srv.Requests()))
		}
	}
}

// An image the model draws arrives as an image part.
func TestImageAnswer(t *testing.T) {
	body := `{"candidates":[{"content":{"role":"model","parts":[{"text":"Here it is:"},{"inlineData":{"mimeType":"image/png","data":"iVBORw0KGgo="}}]},"finishReason":"STOP","index":0}]}`
	srv := replay.NewServer(t, replay.Exchange{Header: jsonHeader(), Body: []byte(body)})
	m, _ := newTestModel(t, srv, Config{})
	resp, err := m.Call(context.Background(), &chat.Prompt{Messages: []chat.Message{chat.User("draw")}})
	if err != nil {
		t.Fatal(err)
	}
	msg := resp.Generations[0].Message
	if msg.Content != "Here it is:" || len(msg.Parts) != 1 || msg.Parts[0].Kind != content.KindImage || string(msg.Parts[0].Data) != "\x89PNG\r\n\x1a\n" {
		t.Fatalf("message %s", jsonString(msg))
	}
}
