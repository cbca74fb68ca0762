package gemini

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
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
			m, _ := newTestModel(t, srv.URL, Config{Model: "gemini-2.5-pro"})
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
			resp, err := providertest.Run(context.Background(), m, providertest.ImagePrompt(png), stream)
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

// Every signature goes back on the part it came with, in the order the parts came, whether the
// answer was called or streamed: a signature on its own empty part as that empty part (text and
// all, as Google documents the part), never merged into the text before it; one after the
// function calls after them; one on a drawn image on the image; a signed text part apart from the
// unsigned text after it.
func TestSignaturesKeepTheirPlace(t *testing.T) {
	call := `{"functionCall":{"id":"fc-1","name":"weather","args":{"location":"Paris"}},"thoughtSignature":"` + sig1 + `"}`
	bareCall := `{"functionCall":{"id":"fc-1","name":"weather","args":{"location":"Paris"}}}`
	emptySigned := `{"text":"","thoughtSignature":"` + sig2 + `"}`
	chunk := func(parts string, finish bool) string {
		s := `{"candidates":[{"content":{"role":"model","parts":[` + parts + `]},"index":0`
		if finish {
			s += `,"finishReason":"STOP"`
		}
		return s + `}],"responseId":"r1"}`
	}
	for _, tc := range []struct {
		name   string
		chunks []string // the answer streamed; called, the parts of all chunks in one answer
		// wantMsg checks the answer as read.
		wantText  string
		wantParts []content.Part
		// sent is the model turn sent back.
		sent string
		// callOnly: streamed, unsigned text joins the signed part before it (a stream's chunks
		// are pieces of parts), so only the called answer keeps them apart.
		callOnly bool
	}{
		{
			name:      "empty part after the text",
			chunks:    []string{`{"text":"Checking "}`, `{"text":"the weather."}`, emptySigned, call},
			wantText:  "Checking the weather.",
			wantParts: []content.Part{{Kind: content.KindText, Signature: sig2}},
			sent:      `[{"text":"Checking the weather."},` + emptySigned + `,` + call + `]`,
		},
		{
			name:      "empty part after the calls",
			chunks:    []string{`{"text":"Checking."}`, bareCall, emptySigned},
			wantText:  "Checking.",
			wantParts: nil,
			sent:      `[{"text":"Checking."},` + bareCall + `,` + emptySigned + `]`,
		},
		{
			name:      "signed image",
			chunks:    []string{`{"text":"Here:"}`, `{"inlineData":{"mimeType":"image/png","data":"iVBORw0KGgo="},"thoughtSignature":"` + sig1 + `"}`, emptySigned},
			wantText:  "Here:",
			wantParts: []content.Part{{Kind: content.KindImage, MediaType: "image/png", Data: []byte("\x89PNG\r\n\x1a\n"), Signature: sig1}, {Kind: content.KindText, Signature: sig2}},
			sent:      `[{"text":"Here:"},{"inlineData":{"mimeType":"image/png","data":"iVBORw0KGgo="},"thoughtSignature":"` + sig1 + `"},` + emptySigned + `]`,
		},
		{
			name:      "signed text, then unsigned text",
			chunks:    []string{`{"text":"One.","thoughtSignature":"` + sig1 + `"}`, `{"text":" Two."}`},
			wantText:  "One. Two.",
			wantParts: []content.Part{{Kind: content.KindText, Text: "One.", Signature: sig1}, {Kind: content.KindText, Text: " Two."}},
			sent:      `[{"text":"One.","thoughtSignature":"` + sig1 + `"},{"text":" Two."}]`,
			callOnly:  true,
		},
	} {
		for _, stream := range []bool{false, true} {
			if stream && tc.callOnly {
				continue
			}
			t.Run(fmt.Sprintf("%s/stream=%v", tc.name, stream), func(t *testing.T) {
				first := replay.Exchange{Header: jsonHeader(), Body: []byte(chunk(strings.Join(tc.chunks, ","), true))}
				if stream {
					var b strings.Builder
					for i, c := range tc.chunks {
						b.WriteString("data: " + chunk(c, i == len(tc.chunks)-1) + "\r\n\r\n")
					}
					first = replay.Exchange{Header: http.Header{"Content-Type": {"text/event-stream"}}, Body: []byte(b.String())}
				}
				final := `{"candidates":[{"content":{"role":"model","parts":[{"text":"Sunny."}]},"finishReason":"STOP","index":0}],"responseId":"r2"}`
				srv := replay.NewServer(t, first, replay.Exchange{Header: jsonHeader(), Body: []byte(final)})
				m, _ := newTestModel(t, srv.URL, Config{})
				opts := &chat.Options{Tools: []tool.Tool{fantasyWeather(t)}}
				history := []chat.Message{chat.User("Weather in Paris?")}
				resp, err := providertest.Run(context.Background(), m, &chat.Prompt{Messages: history, Options: opts}, stream)
				if err != nil {
					t.Fatal(err)
				}
				msg := resp.Generations[0].Message
				if msg.Text() != tc.wantText || !reflect.DeepEqual(msg.Parts, tc.wantParts) {
					t.Fatalf("message %s", providertest.Indent(msg))
				}
				if resp.HasToolCalls() {
					history = providertest.Execute(t, &chat.Prompt{Messages: history, Options: opts}, resp)
				} else {
					history = append(history, msg, chat.User("Thanks."))
				}
				if _, err := m.Call(context.Background(), &chat.Prompt{Messages: history, Options: opts}); err != nil {
					t.Fatal(err)
				}
				if got := sentModelTurn(t, srv.Requests()[1].Body); !providertest.JSONEqual(t, string(got), tc.sent) {
					t.Fatalf("sent %s\nwant %s", got, tc.sent)
				}
			})
		}
	}
}

// A conversation stored before messages had parts kept a text signature as a reasoning item; it
// still goes back on the text.
func TestStoredTextSignature(t *testing.T) {
	msg := chat.Message{Role: chat.RoleAssistant, Content: "Hi.", Reasoning: []chat.Reasoning{{Provider: "gemini", Signature: sig2}}}
	parts, err := backend{}.modelParts(msg, map[string]string{})
	if err != nil {
		t.Fatal(err)
	}
	if len(parts) != 1 || parts[0].Text != "Hi." || string(parts[0].ThoughtSignature) != "signature two" {
		t.Fatalf("parts %s", providertest.Indent(parts))
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
		chat.ToolMessage(chat.ToolResult{ID: "fc-1", Name: "chart", Content: `{"chart":{"$ref":"chart.png"}}`, Parts: []content.Part{
			{Kind: content.KindImage, Data: png, MediaType: "image/png", Name: "chart.png"}}}),
	}
	userTurn := func(name string) string {
		return `{"role":"user","parts":[{"text":"compare"},{"inlineData":{"mimeType":"image/png","data":"iVBORw0KGgo="}},
			{"fileData":{"fileUri":"gs://bucket/a.jpg","mimeType":"image/jpeg"}},
			{"inlineData":{"mimeType":"application/pdf","data":"JVBERi0xLjQ="` + name + `}},
			{"inlineData":{"mimeType":"audio/wav","data":"UklGRg=="}}]}`
	}
	rest := `{"role":"model","parts":[{"functionCall":{"id":"fc-1","name":"chart"}}]},
		{"role":"user","parts":[{"functionResponse":{"id":"fc-1","name":"chart","response":{"chart":{"$ref":"chart.png"}},
			"parts":[{"inlineData":{"mimeType":"image/png","data":"iVBORw0KGgo=","displayName":"chart.png"}}]}}]}`
	for _, tc := range []struct {
		vertex bool
		want   string
	}{
		// The Gemini API refuses a display name on a prompt's media (Google's SDKs check it).
		{false, `[` + userTurn(``) + `,` + rest + `]`},
		{true, `[` + userTurn(`,"displayName":"r.pdf"`) + `,` + rest + `]`},
	} {
		srv := replay.NewServer(t, replay.Exchange{Header: jsonHeader(), Body: []byte(`{"candidates":[{"content":{"role":"model","parts":[{"text":"ok"}]},"finishReason":"STOP"}]}`)})
		var m *Model
		if tc.vertex {
			m = newVertexModel(t, srv, "p", "us-east5", Config{})
		} else {
			m, _ = newTestModel(t, srv.URL, Config{})
		}
		if _, err := m.Call(context.Background(), &chat.Prompt{Messages: msgs}); err != nil {
			t.Fatal(err)
		}
		var sent struct{ Contents json.RawMessage }
		if err := json.Unmarshal(srv.Requests()[0].Body, &sent); err != nil {
			t.Fatal(err)
		}
		if !providertest.JSONEqual(t, string(sent.Contents), tc.want) {
			t.Errorf("vertex=%v: contents %s", tc.vertex, sent.Contents)
		}
	}

	call := chat.Assistant("", chat.ToolCall{ID: "fc-1", Name: "chart", Arguments: `{}`})
	result := func(p content.Part) []chat.Message {
		return []chat.Message{chat.User("chart it"), call, chat.ToolMessage(chat.ToolResult{ID: "fc-1", Name: "chart", Parts: []content.Part{p}})}
	}
	for _, tc := range []struct {
		name   string
		msgs   []chat.Message
		vertex bool
		want   string
	}{
		{"URL without media type", []chat.Message{chat.User("look", content.ImageURL("https://example.com/a.png"))}, false,
			"gemini: cannot send an image part by URL: a file URI needs its media type"},
		{"empty image", []chat.Message{chat.User("look", content.Image(nil, "image/png"))}, false, "no data"},
		{"unknown media type", []chat.Message{chat.User("look", content.Image(png, "png"))}, false, "not a media type"},
		{"file URI in a function response", result(content.ImageURL("gs://bucket/chart.png", "image/png")), false,
			"gemini: cannot send an image part (image/png) by URL: the Gemini API takes a function response's media as bytes only"},
		{"file URI without media type in a function response", result(content.ImageURL("gs://bucket/chart.png")), true,
			"gemini: cannot send an image part by URL: a file URI needs its media type"},
		{"empty image in a function response", result(content.Image(nil, "image/png")), false, "no data"},
		{"text part with bytes in a function response", result(content.Part{Kind: content.KindText, Data: []byte("x")}), false, "a text part carries data"},
		{"image in the system prompt", []chat.Message{{Role: chat.RoleSystem, Content: "be brief", Parts: []content.Part{content.Image(png, "image/png")}}, chat.User("hi")}, false,
			"gemini: cannot send an image part (image/png): the system instruction is text only; put media in a user message (message 0)"},
	} {
		srv := replay.NewServer(t)
		var m *Model
		if tc.vertex {
			m = newVertexModel(t, srv, "p", "us-east5", Config{})
		} else {
			m, _ = newTestModel(t, srv.URL, Config{})
		}
		for _, stream := range []bool{false, true} {
			_, err := providertest.Run(context.Background(), m, &chat.Prompt{Messages: tc.msgs}, stream)
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
	for _, mimeType := range []string{`"mimeType":"image/png",`, ``} {
		body := `{"candidates":[{"content":{"role":"model","parts":[{"text":"Here it is:"},{"inlineData":{` + mimeType + `"data":"iVBORw0KGgo="}}]},"finishReason":"STOP","index":0}]}`
		srv := replay.NewServer(t, replay.Exchange{Header: jsonHeader(), Body: []byte(body)})
		m, _ := newTestModel(t, srv.URL, Config{})
		resp, err := m.Call(context.Background(), &chat.Prompt{Messages: []chat.Message{chat.User("draw")}})
		if err != nil {
			t.Fatal(err)
		}
		// Without a media type the bytes tell it, so the part can go back.
		msg := resp.Generations[0].Message
		if msg.Content != "Here it is:" || len(msg.Parts) != 1 || msg.Parts[0].Kind != content.KindImage ||
			msg.Parts[0].MediaType != "image/png" || string(msg.Parts[0].Data) != "\x89PNG\r\n\x1a\n" {
			t.Fatalf("message %s", providertest.Indent(msg))
		}
	}
}
