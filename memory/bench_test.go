package memory_test

import (
	"context"
	"testing"

	"github.com/wield-ai/wield/memory"
	"github.com/wield-ai/wield/memory/memorytest"
)

// BenchmarkWindow measures Window.Get over a conversation of 50,000 messages (tool-call turns)
// against the baseline of reading the whole conversation and trimming it, which is what Get did
// before it read only the window. Report the ratio window/whole.
func BenchmarkWindow(b *testing.B) {
	ctx := context.Background()
	repo := memory.NewInMemory()
	for i := range 50 {
		if err := repo.Append(ctx, "c", memorytest.Batch("w", i, 1000)...); err != nil {
			b.Fatal(err)
		}
	}
	w := memory.NewWindow(repo, memory.DefaultWindowSize)
	b.Run("whole", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			msgs, err := repo.Messages(ctx, "c")
			if err != nil {
				b.Fatal(err)
			}
			if len(memory.Trim(msgs, w.Size())) == 0 {
				b.Fatal("empty window")
			}
		}
	})
	b.Run("window", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			msgs, err := w.Get(ctx, "c")
			if err != nil || len(msgs) == 0 {
				b.Fatal(len(msgs), err)
			}
		}
	})
}
