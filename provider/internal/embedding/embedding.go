// Package embedding holds what the providers' embedders share: splitting texts into requests
// within an API's limits, and checking the vectors that come back before they are returned.
package embedding

import (
	"fmt"
	"iter"
	"math"
)

// Batches yields consecutive batches of texts, each with the offset of its first text. A batch
// holds at most maxItems texts and, when maxBytes is positive, at most maxBytes bytes of text in
// all; a single text longer than maxBytes makes a batch of its own, for the API to accept or
// reject. maxItems below 1 counts as 1.
//
// A byte bound is also a token bound: every token of a byte-level tokenizer stands for at least
// one byte, so n bytes never make more than n tokens.
func Batches(texts []string, maxItems, maxBytes int) iter.Seq2[int, []string] {
	maxItems = max(maxItems, 1)
	return func(yield func(int, []string) bool) {
		start, size := 0, 0
		for i, t := range texts {
			full := i-start == maxItems || (maxBytes > 0 && i > start && size+len(t) > maxBytes)
			if full {
				if !yield(start, texts[start:i]) {
					return
				}
				start, size = i, 0
			}
			size += len(t)
		}
		if start < len(texts) {
			yield(start, texts[start:])
		}
	}
}

// Vectors collects the vectors of one Embed call, batch by batch, and checks them: one
// non-empty vector per text, each set once, all of one length (the requested dimensions, when
// the caller asked for a number).
type Vectors struct {
	out  [][]float32
	dim  int
	want int
	set  int
}

// NewVectors expects n vectors of dimensions values each; dimensions 0 accepts any length, as
// long as all vectors share it.
func NewVectors(n, dimensions int) *Vectors {
	return &Vectors{out: make([][]float32, n), want: dimensions}
}

// Put stores vec as the vector of text i.
func (v *Vectors) Put(i int, vec []float32) error {
	switch {
	case i < 0 || i >= len(v.out):
		return fmt.Errorf("embedding for input %d, but there are %d inputs", i, len(v.out))
	case v.out[i] != nil:
		return fmt.Errorf("two embeddings for input %d", i)
	case len(vec) == 0:
		return fmt.Errorf("empty embedding for input %d", i)
	case v.want > 0 && len(vec) != v.want:
		return fmt.Errorf("embedding of %d dimensions for input %d, %d were asked for", len(vec), i, v.want)
	case v.dim > 0 && len(vec) != v.dim:
		return fmt.Errorf("embeddings of %d and %d dimensions in one call", v.dim, len(vec))
	}
	for _, x := range vec {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return fmt.Errorf("NaN or infinite value in the embedding for input %d", i)
		}
	}
	v.dim = len(vec)
	v.out[i] = vec
	v.set++
	return nil
}

// Count checks that a response to a batch of n texts holds n embeddings, before they are put.
func Count(got, n int) error {
	if got != n {
		return fmt.Errorf("%d embeddings for %d inputs", got, n)
	}
	return nil
}

// Result returns the vectors, in the order of the texts, once every text has one.
func (v *Vectors) Result() ([][]float32, error) {
	if v.set != len(v.out) {
		for i, vec := range v.out {
			if vec == nil {
				return nil, fmt.Errorf("no embedding for input %d", i)
			}
		}
	}
	return v.out, nil
}
