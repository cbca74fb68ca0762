package ollama

import (
	"context"
	"encoding/base64"
	"net/http"
	"reflect"
	"testing"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/content"
	"github.com/wield-ai/wield/internal/providertest"
	"github.com/wield-ai/wield/internal/replay"
)

// An answer's images (the "images" of the response message in Ollama's API description) are image
// parts after its text, called or streamed; bytes that are no image are skipped.
func TestAnswerImages(t *testing.T) {
	png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
	jpeg := []byte("\xff\xd8\xff\xe0\x00\x10JFIF\x00")
	b64 := base64.StdEncoding.EncodeToString
	body := `{"model":"img","created_at":"2025-01-01T00:00:00Z","message":{"role":"assistant","content":"A dot","images":["` + b64(png) + `"]},"done":false}
{"model":"img","created_at":"2025-01-01T00:00:01Z","message":{"role":"assistant","content":" and a square.","images":["` + b64(jpeg) + `","` + b64([]byte("not an image")) + `"]},"done":false}
{"model":"img","created_at":"2025-01-01T00:00:02Z","message":{"role":"assistant","content":""},"done":true,"done_reason":"stop","prompt_eval_count":3,"eval_count":4}
`
	for _, stream := range []bool{false, true} {
		srv := replay.NewServer(t, replay.Exchange{Header: http.Header{"Content-Type": {"application/x-ndjson"}}, Body: []byte(body)})
		m, _ := newTestModel(t, srv.URL, Config{Model: "img"})
		resp, err := providertest.Run(context.Background(), m, &chat.Prompt{Messages: []chat.Message{chat.User("Draw.")}}, stream)
		if err != nil {
			t.Fatal(err)
		}
		got := resp.Generations[0].Message
		want := []content.Part{content.Image(png, "image/png"), content.Image(jpeg, "image/jpeg")}
		if got.Content != "A dot and a square." || !reflect.DeepEqual(got.Parts, want) {
			t.Errorf("stream=%v: %+v", stream, got)
		}
	}
}
