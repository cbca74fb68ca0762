package bedrock

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/types"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/content"
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
