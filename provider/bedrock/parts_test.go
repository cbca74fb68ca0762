package bedrock

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/types"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/content"
	"github.com/wield-ai/wield/internal/providertest"
	"github.com/wield-ai/wield/internal/replay"
)

// Images, documents and audio become Converse's blocks (bytes as base64 in the JSON, s3://
// locations as s3Location), in a user message and in a tool result; document names are made
// valid and distinct.
func TestPartsOnTheWire(t *testing.T) {
	png := []byte("\x89PNG\r\n\x1a\n")
	srv := replay.NewServer(t, answer(t, types.StopReasonEndTurn, tokens(1, 1), &types.ContentBlockMemberText{Value: "ok"}))
	m := newTestModel(t, srv.URL, Config{})
	history := []chat.Message{
		chat.User("Compare:", content.Image(png, "image/png"), content.Document([]byte("%PDF-1.4"), "application/pdf", "Q3 report.v2.pdf"),
			content.ImageURL("s3://bucket/chart.jpg", "image/jpeg"), content.Audio([]byte("RIFF"), "audio/wav")),
		chat.Assistant("", chat.ToolCall{ID: "t1", Name: "get_weather", Arguments: `{"city":"Oslo"}`}),
		chat.ToolMessage(chat.ToolResult{ID: "t1", Name: "get_weather", Content: "radar:", Parts: []content.Part{
			content.Image(png, "image/png"), content.Document([]byte("a,b"), "text/csv", "")}}),
	}
	if _, err := m.Call(context.Background(), &chat.Prompt{Messages: history, Options: &chat.Options{}}); err != nil {
		t.Fatal(err)
	}
	unavailable := `{"tools":[{"toolSpec":{"name":"get_weather","description":"Not available in this turn; answer without calling it.","inputSchema":{"json":{"type":"object","properties":{}}}}}]}`
	checkBody(t, srv.Requests()[0].Body, `{"messages":[
		{"role":"user","content":[{"text":"Compare:"},
			{"image":{"format":"png","source":{"bytes":"iVBORw0KGgo="}}},
			{"document":{"format":"pdf","name":"Q3 report v2 1","source":{"bytes":"JVBERi0xLjQ="}}},
			{"image":{"format":"jpeg","source":{"s3Location":{"uri":"s3://bucket/chart.jpg"}}}},
			{"audio":{"format":"wav","source":{"bytes":"UklGRg=="}}}]},
		{"role":"assistant","content":[{"toolUse":{"toolUseId":"t1","name":"get_weather","input":{"city":"Oslo"}}}]},
		{"role":"user","content":[{"toolResult":{"toolUseId":"t1","content":[{"text":"radar:"},
			{"image":{"format":"png","source":{"bytes":"iVBORw0KGgo="}}},
			{"document":{"format":"csv","name":"document 2","source":{"bytes":"YSxi"}}}]}}]}],
		"toolConfig":`+unavailable+`}`)
}

func TestUnsupportedParts(t *testing.T) {
	for _, p := range []content.Part{
		content.ImageURL("https://example.com/a.png", "image/png"),
		content.Image([]byte("BM"), "image/bmp"),
		content.Document([]byte("{}"), "application/zip", "a.zip"),
		content.Audio([]byte("x"), "audio/x-unknown"),
	} {
		srv := replay.NewServer(t)
		m := newTestModel(t, srv.URL, Config{})
		_, err := m.Call(context.Background(), &chat.Prompt{Messages: []chat.Message{chat.User("look", p)}})
		var u *content.Unsupported
		if !errors.As(err, &u) || !strings.HasPrefix(err.Error(), "bedrock: cannot send") {
			t.Errorf("%s: err = %v", p, err)
		}
		if len(srv.Requests()) != 0 {
			t.Errorf("%s: a request was sent", p)
		}
	}
}

// Converse refuses, before any request: malformed parts, media types and URLs it does not take,
// audio in a tool result, and images and documents over its size limits.
func TestRefusedParts(t *testing.T) {
	png := []byte("\x89PNG\r\n\x1a\n")
	inResult := func(p content.Part) []chat.Message {
		return []chat.Message{chat.User("chart it"), chat.Assistant("", chat.ToolCall{ID: "t1", Name: "chart", Arguments: `{}`}),
			chat.ToolMessage(chat.ToolResult{ID: "t1", Name: "chart", Parts: []content.Part{p}})}
	}
	for _, tc := range []struct {
		name string
		msgs []chat.Message
		want string
		is   error
	}{
		{"empty image", []chat.Message{chat.User("look", content.Image(nil, "image/png"))}, "bedrock: message 0: content: part has no data", content.ErrEmpty},
		{"media type that is none", []chat.Message{chat.User("look", content.Image(png, "png"))}, `"png" is not a media type`, content.ErrMediaType},
		{"image over 3.75 MB", []chat.Message{chat.User("look", content.Image(make([]byte, 4<<20), "image/png"))},
			"bedrock: message 0: content: part too large: image/png image of 4.0 MB; Converse takes images up to 3.75 MB", content.ErrTooLarge},
		{"document over 4.5 MB", []chat.Message{chat.User("read", content.Document(make([]byte, 5<<20), "application/pdf", "big.pdf"))},
			"content: part too large: application/pdf document of 5.0 MB; Converse takes documents up to 4.5 MB", content.ErrTooLarge},
		{"image over 3.75 MB in a tool result", inResult(content.Image(make([]byte, 4<<20), "image/png")), "part too large", content.ErrTooLarge},
		{"audio in a tool result", inResult(content.Audio([]byte("RIFF"), "audio/wav")),
			"bedrock: cannot send an audio part (audio/wav): a Converse tool result takes text, images and documents (message 2)", nil},
		{"https image in a tool result", inResult(content.ImageURL("https://example.com/a.png", "image/png")),
			"bedrock: cannot send an image part (image/png) by URL: Converse takes media as bytes or s3:// locations (message 2)", nil},
		{"audio by s3 location", []chat.Message{chat.User("hear", content.Part{Kind: content.KindAudio, URL: "s3://b/a.wav", MediaType: "audio/wav"})},
			"bedrock: cannot send an audio part (audio/wav) by URL", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := replay.NewServer(t)
			m := newTestModel(t, srv.URL, Config{})
			for _, stream := range []bool{false, true} {
				_, err := providertest.Run(context.Background(), m, &chat.Prompt{Messages: tc.msgs}, stream)
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Errorf("stream=%v: err = %v, want %q", stream, err, tc.want)
				}
				var u *content.Unsupported
				if tc.is != nil && !errors.Is(err, tc.is) || tc.is == nil && !errors.As(err, &u) {
					t.Errorf("stream=%v: err %v is not the expected kind", stream, err)
				}
			}
			if len(srv.Requests()) != 0 {
				t.Errorf("%d requests sent", len(srv.Requests()))
			}
		})
	}
}

// Document names are made of what Converse takes (ASCII letters and digits, single spaces,
// hyphens, parentheses, brackets), 200 characters at most, numbered apart.
func TestDocumentNames(t *testing.T) {
	for _, tc := range []struct {
		name string
		n    int
		want string
	}{
		{"Q3 report.v2.pdf", 1, "Q3 report v2 1"},
		{"notes (draft) [final].md", 2, "notes (draft) [final] 2"},
		{"Résumé été.pdf", 3, "R sum t 3"},
		{"報告.pdf", 4, "document 4"},
		{"", 5, "document 5"},
		{"a\t\tb  c.txt", 6, "a b c 6"},
		{strings.Repeat("x", 300) + ".pdf", 12, strings.Repeat("x", 197) + " 12"},
	} {
		got := documentName(tc.name, tc.n)
		if got != tc.want || len(got) > 200 {
			t.Errorf("documentName(%q, %d) = %q, want %q", tc.name, tc.n, got, tc.want)
		}
	}
}

func evImageStart(i int32, f types.ImageFormat) types.ConverseStreamOutput {
	return &types.ConverseStreamOutputMemberContentBlockStart{Value: types.ContentBlockStartEvent{
		ContentBlockIndex: aws.Int32(i), Start: &types.ContentBlockStartMemberImage{Value: types.ImageBlockStart{Format: f}}}}
}

func evImageData(i int32, b []byte) types.ConverseStreamOutput {
	return &types.ConverseStreamOutputMemberContentBlockDelta{Value: types.ContentBlockDeltaEvent{
		ContentBlockIndex: aws.Int32(i), Delta: &types.ContentBlockDeltaMemberImage{Value: types.ImageBlockDelta{Source: &types.ImageSourceMemberBytes{Value: b}}}}}
}

// An image in an answer (the Converse output's image block, or an image streamed in pieces)
// becomes an image part in its place: the text before it in Content, the text after it a part.
func TestImageAnswer(t *testing.T) {
	png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
	want := chat.Message{Role: chat.RoleAssistant, Content: "Here:", Parts: []content.Part{content.Image(png, "image/png"), content.Text(" Done.")}}
	called := answer(t, types.StopReasonEndTurn, tokens(3, 9), &types.ContentBlockMemberText{Value: "Here:"},
		&types.ContentBlockMemberImage{Value: types.ImageBlock{Format: types.ImageFormatPng, Source: &types.ImageSourceMemberBytes{Value: png}}},
		&types.ContentBlockMemberText{Value: " Done."})
	streamed := streamExchange(frames(t, evStart(), evText(0, "Here:"), evStop(0),
		evImageStart(1, types.ImageFormatPng), evImageData(1, png[:5]), evImageData(1, png[5:]), evStop(1),
		evText(2, " Done."), evStop(2), evMessageStop(types.StopReasonEndTurn), evMetadata(tokens(3, 9))))
	for _, stream := range []bool{false, true} {
		ex := called
		if stream {
			ex = streamed
		}
		srv := replay.NewServer(t, ex)
		m := newTestModel(t, srv.URL, Config{})
		resp, err := providertest.Run(context.Background(), m, &chat.Prompt{Messages: []chat.Message{chat.User("draw")}}, stream)
		if err != nil {
			t.Fatal(err)
		}
		if got := resp.Generations[0].Message; !reflect.DeepEqual(got, want) {
			t.Errorf("stream=%v: message %+v, want %+v", stream, got, want)
		}
	}

	for _, tc := range []struct {
		name   string
		events []types.ConverseStreamOutput
		want   string
	}{
		{"image data for a text block", []types.ConverseStreamOutput{evStart(), evText(0, "a"), evImageData(0, png)}, "image data for content block 0, which is not an image"},
		{"image without data", []types.ConverseStreamOutput{evStart(), evImageStart(0, types.ImageFormatPng), evStop(0)}, "image in content block 0 has no data"},
		{"image of unknown format", []types.ConverseStreamOutput{evStart(), evImageStart(0, "tiff")}, `image of unknown format "tiff"`},
	} {
		srv := replay.NewServer(t, streamExchange(frames(t, tc.events...)))
		m := newTestModel(t, srv.URL, Config{MaxAttempts: 1})
		_, err := chat.Aggregate(m.Stream(context.Background(), &chat.Prompt{Messages: []chat.Message{chat.User("draw")}}))
		if err == nil || !strings.Contains(err.Error(), "bedrock: malformed stream: "+tc.want) {
			t.Errorf("%s: err = %v", tc.name, err)
		}
	}
}
