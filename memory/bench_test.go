package memory_test

import (
	"context"
	"testing"

	"github.com/wield-ai/wield/memory"
	"github.com/wield-ai/wield/memory/memorytest"
)

// BenchmarkWindow measures Window.Get over a conversation of 50,000 messages (tool-call turns)
// against reading the whole conversation and trimming it (memorytest.BenchWindow). Report the
// ratio window/whole.
func BenchmarkWindow(b *testing.B) {
	ctx := context.Background()
	repo := memory.NewInMemory()
	for i := range 50 {
		if err := repo.Append(ctx, "c", memorytest.Batch("w", i, 1000)...); err != nil {
			b.Fatal(err)
		}
	}
	memorytest.BenchWindow(b, repo, "c")
}
