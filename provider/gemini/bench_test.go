package gemini

import (
	"context"
	"fmt"
	"testing"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/internal/providertest"
	"github.com/wield-ai/wield/provider"
)

// BenchmarkStreamAggregate measures a whole recorded stream (19 events of thoughts and text,
// CRLF-framed) going through the SDK's SSE decoding, wield's conversion and chat.Aggregate,
// against a baseline that only scans the same bytes for their data lines. The ratio of the two
// MB/s figures is the cost of everything above reading the bytes.
func BenchmarkStreamAggregate(b *testing.B) {
	body := providertest.Load(b, "adk-text-stream-gemini-2.5-flash")[0].Body
	b.Run("baseline-scan", func(b *testing.B) { providertest.BenchScan(b, body, providertest.ScanSSE, 19) })
	b.Run("gemini", func(b *testing.B) {
		m, err := New(context.Background(), Config{APIKey: "k", Transport: provider.Transport{HTTPClient: providertest.MemoryClient("text/event-stream", body)}})
		if err != nil {
			b.Fatal(err)
		}
		p := &chat.Prompt{Messages: []chat.Message{chat.User("What is the sum of the first 50 prime numbers?")}}
		providertest.BenchStream(b, body, m, p, func(resp *chat.Response) error {
			if len(resp.Text()) < 100 {
				return fmt.Errorf("text %q", resp.Text())
			}
			return nil
		})
	})
}
