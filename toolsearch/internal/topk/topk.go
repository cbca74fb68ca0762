// Package topk keeps the best k of a stream of scored items without sorting them all.
package topk

// Item is a scored item, identified by a number.
type Item struct {
	ID    int
	Score float64
}

// better orders items: higher score first, and on a tie the lower ID.
func better(a, b Item) bool {
	if a.Score != b.Score {
		return a.Score > b.Score
	}
	return a.ID < b.ID
}

// Heap keeps the best k items offered to it. Its zero value is empty and ready; Reset makes it
// reusable without allocating.
type Heap struct {
	items []Item // a min-heap: the worst kept item is at the root
}

// Reset empties the heap.
func (h *Heap) Reset() { h.items = h.items[:0] }

// Offer adds x if fewer than k items are kept or x is better than the worst of them.
func (h *Heap) Offer(x Item, k int) {
	s := h.items
	if len(s) < k {
		s = append(s, x)
		for i := len(s) - 1; i > 0; {
			p := (i - 1) / 2
			if !better(s[p], s[i]) {
				break
			}
			s[p], s[i] = s[i], s[p]
			i = p
		}
		h.items = s
		return
	}
	if k <= 0 || !better(x, s[0]) {
		return
	}
	s[0] = x
	down(s, 0, len(s))
}

// Worst returns the worst of the items kept when k are kept, the item any other must be better
// than to be kept; ok is false while fewer than k are kept, when any item is.
func (h *Heap) Worst(k int) (worst Item, ok bool) {
	if k <= 0 || len(h.items) < k {
		return Item{}, false
	}
	return h.items[0], true
}

// Sorted empties the heap into a new slice, best item first.
func (h *Heap) Sorted() []Item {
	s := h.items
	out := make([]Item, len(s))
	for n := len(s); n > 0; n-- {
		out[n-1] = s[0]
		s[0] = s[n-1]
		down(s, 0, n-1)
	}
	h.items = s[:0]
	return out
}

func down(s []Item, i, n int) {
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		w := l
		if r := l + 1; r < n && better(s[w], s[r]) {
			w = r
		}
		if !better(s[i], s[w]) {
			return
		}
		s[i], s[w] = s[w], s[i]
		i = w
	}
}
