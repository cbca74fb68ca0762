package bedrock

import (
	"bytes"
	"context"
	"fmt"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws/protocol/eventstream"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/internal/providertest"
	"github.com/wield-ai/wield/provider"
)

// BenchmarkStreamAggregate streams the recorded ConverseStream answer (text in 15 deltas, a tool
// call in 5 fragments, padded events) through Model.Stream and chat.Aggregate. Baselines in the
// same run: the AWS SDK's own ConverseStream decoding of the same bytes into its event types
// (what any SDK user pays), and decoding the event-stream frames alone (the floor). Compare MB/s
// across the three.
func BenchmarkStreamAggregate(b *testing.B) {
	body := recordedStream(b).Body
	const contentType = "application/vnd.amazon.eventstream"
	prompt := weatherPrompt()

	b.Run("wield", func(b *testing.B) {
		m := newTestModel(b, "http://bedrock.invalid", Config{Transport: provider.Transport{HTTPClient: providertest.MemoryClient(contentType, body)}})
		providertest.BenchStream(b, body, m, prompt, func(resp *chat.Response) error {
			if len(resp.ToolCalls()) != 1 || resp.Text() == "" {
				return fmt.Errorf("answer %+v", resp)
			}
			return nil
		})
	})

	b.Run("sdk-decode", func(b *testing.B) {
		m := newTestModel(b, "http://bedrock.invalid", Config{Transport: provider.Transport{HTTPClient: providertest.MemoryClient(contentType, body)}})
		req, err := m.request(prompt)
		if err != nil {
			b.Fatal(err)
		}
		in := req.streamInput()
		b.SetBytes(int64(len(body)))
		b.ReportAllocs()
		for b.Loop() {
			out, err := m.client.ConverseStream(context.Background(), in, func(o *bedrockruntime.Options) {})
			if err != nil {
				b.Fatal(err)
			}
			stream := out.GetStream()
			n := 0
			for range stream.Events() {
				n++
			}
			if stream.Err() != nil || n == 0 {
				b.Fatal(n, stream.Err())
			}
			_ = stream.Close()
		}
	})

	b.Run("frames-only", func(b *testing.B) {
		b.SetBytes(int64(len(body)))
		b.ReportAllocs()
		dec := eventstream.NewDecoder()
		for b.Loop() {
			r := bytes.NewReader(body)
			n := 0
			for r.Len() > 0 {
				if _, err := dec.Decode(r, nil); err != nil {
					b.Fatal(err)
				}
				n++
			}
			if n == 0 {
				b.Fatal("no frames")
			}
		}
	})
}
