package providertest

import (
	"context"
	"slices"
	"testing"

	"github.com/wield-ai/wield/toolsearch"
)

// Hashed returns the vectors toolsearch.HashingEmbedder makes of texts with dim dimensions (zero
// for its default): what the fake embedding APIs of the provider tests answer, since texts
// sharing words get similar vectors from it.
func Hashed(t testing.TB, dim int, texts ...string) [][]float32 {
	t.Helper()
	vecs, err := (&toolsearch.HashingEmbedder{Dim: dim}).Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	return vecs
}

// EqualVectors reports whether a and b hold the same vectors, value for value, in the same order.
func EqualVectors(a, b [][]float32) bool {
	return slices.EqualFunc(a, b, func(x, y []float32) bool { return slices.Equal(x, y) })
}
