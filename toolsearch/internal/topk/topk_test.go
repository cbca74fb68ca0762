package topk

import (
	"math/rand/v2"
	"slices"
	"sort"
	"testing"
)

func TestHeapMatchesSort(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var h Heap
	for trial := range 200 {
		n := rng.IntN(50)
		k := rng.IntN(12)
		items := make([]Item, n)
		for i := range items {
			items[i] = Item{ID: i, Score: float64(rng.IntN(8))} // many ties
		}
		h.Reset()
		for _, it := range items {
			h.Offer(it, k)
		}
		want := slices.Clone(items)
		sort.SliceStable(want, func(a, b int) bool { return want[a].Score > want[b].Score })
		want = want[:min(k, n)]
		if worst, ok := h.Worst(k); ok != (k > 0 && n >= k) || ok && worst != want[k-1] {
			t.Fatalf("trial %d (n=%d k=%d): worst %v %v, want %v", trial, n, k, worst, ok, want)
		}
		got := h.Sorted()
		if !slices.Equal(got, want) {
			t.Fatalf("trial %d (n=%d k=%d): got %v, want %v", trial, n, k, got, want)
		}
	}
}
