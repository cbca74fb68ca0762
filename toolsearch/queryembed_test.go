package toolsearch

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
)

// recordingEmbedder embeds with a HashingEmbedder after rewriting each text, and records the
// texts it was given.
type recordingEmbedder struct {
	rewrite func(string) string
	mu      sync.Mutex
	texts   []string
}

func (r *recordingEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	r.mu.Lock()
	r.texts = append(r.texts, texts...)
	r.mu.Unlock()
	rewritten := make([]string, len(texts))
	for i, t := range texts {
		rewritten[i] = r.rewrite(t)
	}
	return (&HashingEmbedder{}).Embed(ctx, rewritten)
}

func TestVectorQueryEmbedder(t *testing.T) {
	same := func(s string) string { return s }
	docs := &recordingEmbedder{rewrite: same}
	// The query side knows that a share's value is a stock's price; the document side does not,
	// so only a search through the query embedder finds the stock tool.
	queries := &recordingEmbedder{rewrite: func(s string) string { return strings.ReplaceAll(s, "share value", "stock price") }}
	ix := NewVectorIndex(docs, &VectorOptions{QueryEmbedder: queries})
	plain := NewVectorIndex(docs, nil)
	for _, x := range []*VectorIndex{ix, plain} {
		mustIndex(t, x, "s", catalog)
	}
	docs.texts = nil

	if got := search(t, ix, "s", "share value", 1); !slices.Equal(got, []string{"get_stock_price"}) {
		t.Errorf("with QueryEmbedder: %v, want [get_stock_price]", got)
	}
	if !slices.Equal(queries.texts, []string{"share value"}) || len(docs.texts) != 0 {
		t.Errorf("query embedder got %q, document embedder %q; want only the query, to the query embedder", queries.texts, docs.texts)
	}
	if got := search(t, plain, "s", "share value", 1); slices.Contains(got, "get_stock_price") {
		t.Errorf("without QueryEmbedder the document embedder embeds the query, yet found %v", got)
	}
	if !slices.Equal(docs.texts, []string{"share value"}) {
		t.Errorf("document embedder got %q for the plain index's query", docs.texts)
	}
}
