package gemini

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net/http"
	"testing"

	"github.com/wield-ai/wield/chat"
)

// memoryTransport answers every request with the same body, without a network.
type memoryTransport struct {
	body        []byte
	contentType string
}

func (m *memoryTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body != nil {
		_, _ = io.Copy(io.Discard, r.Body)
		_ = r.Body.Close()
	}
	return &http.Response{
		StatusCode: http.StatusOK,
		Header:     http.Header{"Content-Type": {m.contentType}},
		Body:       io.NopCloser(bytes.NewReader(m.body)),
		Request:    r,
	}, nil
}

// BenchmarkStreamAggregate measures a whole recorded stream (19 events of thoughts and text,
// CRLF-framed) going through the SDK's SSE decoding, wield's conversion and chat.Aggregate,
// against a baseline that only scans the same bytes for their data lines. The ratio of the two
// MB/s figures is the cost of everything above reading the bytes.
func BenchmarkStreamAggregate(b *testing.B) {
	body := load(b, "adk-text-stream-gemini-2.5-flash")[0].Body
	b.Run("baseline-scan", func(b *testing.B) {
		b.SetBytes(int64(len(body)))
		for b.Loop() {
			sc := bufio.NewScanner(bytes.NewReader(body))
			n := 0
			for sc.Scan() {
				if bytes.HasPrefix(sc.Bytes(), []byte("data:")) {
					n++
				}
			}
			if n != 19 {
				b.Fatalf("%d data lines", n)
			}
		}
	})
	b.Run("gemini", func(b *testing.B) {
		m, err := New(context.Background(), Config{APIKey: "k",
			HTTPClient: &http.Client{Transport: &memoryTransport{body: body, contentType: "text/event-stream"}}})
		if err != nil {
			b.Fatal(err)
		}
		p := &chat.Prompt{Messages: []chat.Message{chat.User("What is the sum of the first 50 prime numbers?")}}
		b.SetBytes(int64(len(body)))
		for b.Loop() {
			resp, err := chat.Aggregate(m.Stream(context.Background(), p))
			if err != nil {
				b.Fatal(err)
			}
			if len(resp.Text()) < 100 {
				b.Fatalf("text %q", resp.Text())
			}
		}
	})
}
