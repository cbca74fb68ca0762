package ollama

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
type memoryTransport struct{ body []byte }

func (m *memoryTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body != nil {
		_, _ = io.Copy(io.Discard, r.Body)
		_ = r.Body.Close()
	}
	return &http.Response{
		StatusCode: http.StatusOK,
		Header:     http.Header{"Content-Type": {"application/x-ndjson"}},
		Body:       io.NopCloser(bytes.NewReader(m.body)),
		Request:    r,
	}, nil
}

// BenchmarkStreamAggregate measures a recorded NDJSON stream (51 lines from a real Ollama
// server) going through Ollama's client, wield's conversion and chat.Aggregate, against a
// baseline that only scans the same bytes line by line. The ratio of the two MB/s figures is the
// cost of everything above reading the bytes.
func BenchmarkStreamAggregate(b *testing.B) {
	body := load(b, "lcgo-text-stream-default-gemma3-1b")[0].Body
	b.Run("baseline-scan", func(b *testing.B) {
		b.SetBytes(int64(len(body)))
		for b.Loop() {
			sc := bufio.NewScanner(bytes.NewReader(body))
			n := 0
			for sc.Scan() {
				if len(sc.Bytes()) > 0 && sc.Bytes()[0] == '{' {
					n++
				}
			}
			if n != 51 {
				b.Fatalf("%d lines", n)
			}
		}
	})
	b.Run("ollama", func(b *testing.B) {
		m, err := New(Config{Model: "gemma3:1b", HTTPClient: &http.Client{Transport: &memoryTransport{body: body}}})
		if err != nil {
			b.Fatal(err)
		}
		p := &chat.Prompt{Messages: []chat.Message{chat.User("Hello, how are you?")}}
		b.SetBytes(int64(len(body)))
		for b.Loop() {
			resp, err := chat.Aggregate(m.Stream(context.Background(), p))
			if err != nil {
				b.Fatal(err)
			}
			if resp.Generations[0].FinishReason != chat.FinishLength {
				b.Fatalf("finish %q", resp.Generations[0].FinishReason)
			}
		}
	})
}
