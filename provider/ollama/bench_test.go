package ollama

import (
	"fmt"
	"testing"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/internal/providertest"
	"github.com/wield-ai/wield/provider"
)

// BenchmarkStreamAggregate measures a recorded NDJSON stream (51 lines from a real Ollama
// server) going through Ollama's client, wield's conversion and chat.Aggregate, against a
// baseline that only scans the same bytes line by line. The ratio of the two MB/s figures is the
// cost of everything above reading the bytes.
func BenchmarkStreamAggregate(b *testing.B) {
	body := load(b, "lcgo-text-stream-default-gemma3-1b")[0].Body
	b.Run("baseline-scan", func(b *testing.B) { providertest.BenchScan(b, body, providertest.ScanNDJSON, 51) })
	b.Run("ollama", func(b *testing.B) {
		m, err := New(Config{Model: "gemma3:1b", Transport: provider.Transport{HTTPClient: providertest.MemoryClient("application/x-ndjson", body)}})
		if err != nil {
			b.Fatal(err)
		}
		p := &chat.Prompt{Messages: []chat.Message{chat.User("Hello, how are you?")}}
		providertest.BenchStream(b, body, m, p, func(resp *chat.Response) error {
			if resp.Generations[0].FinishReason != chat.FinishLength {
				return fmt.Errorf("finish %q", resp.Generations[0].FinishReason)
			}
			return nil
		})
	})
}
