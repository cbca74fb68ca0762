package anthropic

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"testing"

	sdk "github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"
	"github.com/anthropics/anthropic-sdk-go/packages/ssestream"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/internal/providertest"
	"github.com/wield-ai/wield/provider"
)

// BenchmarkStreamAggregate streams a recorded answer (text, ping, a tool call in fragments, padded
// JSON) through Model.Stream and chat.Aggregate. Baselines in the same run: the SDK's own SSE
// decoding of the same bytes into its event type (what any SDK user pays), and a raw scan of the
// SSE lines that only finds the data payloads (the floor). Compare MB/s across the three.
func BenchmarkStreamAggregate(b *testing.B) {
	body := providertest.Load(b, "sdk-tool-runner-next-streaming")[0].Body
	prompt := weatherPrompt()

	b.Run("wield", func(b *testing.B) {
		m := newTestModel(b, "http://anthropic.invalid", Config{Transport: provider.Transport{HTTPClient: providertest.MemoryClient("text/event-stream", body)}})
		providertest.BenchStream(b, body, m, prompt, func(resp *chat.Response) error {
			if len(resp.ToolCalls()) != 1 {
				return fmt.Errorf("tool calls %+v", resp.ToolCalls())
			}
			return nil
		})
	})

	b.Run("sdk-decode", func(b *testing.B) {
		client := sdk.NewClient(option.WithAPIKey("k"), option.WithBaseURL("http://anthropic.invalid"),
			option.WithHTTPClient(providertest.MemoryClient("text/event-stream", body)))
		req, err := newTestModel(b, "http://anthropic.invalid", Config{}).request(prompt)
		if err != nil {
			b.Fatal(err)
		}
		b.SetBytes(int64(len(body)))
		b.ReportAllocs()
		for b.Loop() {
			stream := client.Messages.NewStreaming(context.Background(), req.params)
			n := 0
			for stream.Next() {
				n++
			}
			if stream.Err() != nil || n == 0 {
				b.Fatal(stream.Err())
			}
			_ = stream.Close()
		}
	})

	b.Run("sdk-sse-only", func(b *testing.B) {
		b.SetBytes(int64(len(body)))
		b.ReportAllocs()
		for b.Loop() {
			res := &http.Response{Header: http.Header{"Content-Type": {"text/event-stream"}}, Body: io.NopCloser(bytes.NewReader(body))}
			dec := ssestream.NewDecoder(res)
			n := 0
			for dec.Next() {
				n++
			}
			if n == 0 {
				b.Fatal("no events")
			}
		}
	})

	b.Run("raw-scan", func(b *testing.B) { providertest.BenchScan(b, body, providertest.ScanSSE, 0) })
}
