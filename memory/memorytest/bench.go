package memorytest

import (
	"context"
	"testing"

	"github.com/wield-ai/wield/memory"
)

// BenchWindow measures [memory.Window.Get] of the default size over conversation id of repo
// (sub-benchmark "window") against the baseline of reading the whole conversation and trimming
// it (sub-benchmark "whole"), which is what Get did before it read only the window. Fill the
// conversation first; report the ratio window/whole.
func BenchWindow(b *testing.B, repo memory.Repository, id string) {
	ctx := context.Background()
	w := memory.NewWindow(repo, memory.DefaultWindowSize)
	b.Run("whole", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			msgs, err := repo.Messages(ctx, id)
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
			msgs, err := w.Get(ctx, id)
			if err != nil || len(msgs) == 0 {
				b.Fatal(len(msgs), err)
			}
		}
	})
}
