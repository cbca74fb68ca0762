package openai

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net/http"
	"testing"

	"github.com/wield-ai/wield/chat"
)

// memTransport answers every request with a recorded body, without a network.
type memTransport struct {
	body []byte
}

func (m memTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body != nil {
		_, _ = io.Copy(io.Discard, r.Body)
		_ = r.Body.Close()
	}
	return &http.Response{StatusCode: http.StatusOK, Header: http.Header{"Content-Type": {"text/event-stream"}},
		Body: io.NopCloser(bytes.NewReader(m.body)), ContentLength: int64(len(m.body)), Request: r}, nil
}

// scanSSE is the baseline: the least any reader of the stream must do, splitting the body into
// lines and picking out the data payloads.
func scanSSE(body []byte) int {
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	n := 0
	for sc.Scan() {
		if bytes.HasPrefix(sc.Bytes(), []byte("data:")) {
			n++
		}
	}
	return n
}

// BenchmarkStreamAggregate measures a whole recorded stream going through Stream (request built,
// SSE decoded by the SDK, chunks mapped) and chat.Aggregate, against the baseline of scanning the
// same bytes for SSE data lines. Both report MB/s of stream body.
func BenchmarkStreamAggregate(b *testing.B) {
	for _, bc := range []struct {
		name, api, rec string
		newM           func(cfg Config) (chat.Model, error)
	}{
		{"chat-text", "chat", "vercel-text-stream-gpt-4.1-nano", func(cfg Config) (chat.Model, error) { return New(cfg) }},
		{"chat-tool-call", "chat", "fantasy-tool-loop-streaming-gpt-4o", func(cfg Config) (chat.Model, error) { return New(cfg) }},
		{"responses-reasoning-tool-call", "responses", "vercel-reasoning-tool-loop-stream-gpt-5.1-codex-max", func(cfg Config) (chat.Model, error) { return NewResponses(cfg) }},
	} {
		body := loadCase(b, bc.api, bc.rec)[0].Body
		b.Run(bc.name+"/baseline-scan", func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			for b.Loop() {
				if scanSSE(body) == 0 {
					b.Fatal("no data lines")
				}
			}
		})
		b.Run(bc.name+"/stream-aggregate", func(b *testing.B) {
			m, err := bc.newM(Config{BaseURL: "http://127.0.0.1:1/v1", APIKey: "k", Model: "m", HTTPClient: &http.Client{Transport: memTransport{body}}})
			if err != nil {
				b.Fatal(err)
			}
			p := &chat.Prompt{Messages: []chat.Message{chat.User("hi")}, Options: &chat.Options{Tools: nil}}
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			for b.Loop() {
				r, err := chat.Aggregate(m.Stream(context.Background(), p))
				if err != nil {
					b.Fatal(err)
				}
				if r.Text() == "" && !r.HasToolCalls() {
					b.Fatal("empty answer")
				}
			}
		})
	}
}
