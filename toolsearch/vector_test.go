package toolsearch

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/wield-ai/wield/tool"
)

// countingEmbedder counts the texts it embeds and can be told to misbehave.
type countingEmbedder struct {
	inner  HashingEmbedder
	texts  atomic.Int64
	calls  atomic.Int64
	mutate func(vecs [][]float32) ([][]float32, error)
}

func (c *countingEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	c.calls.Add(1)
	c.texts.Add(int64(len(texts)))
	vecs, err := c.inner.Embed(ctx, texts)
	if err == nil && c.mutate != nil {
		return c.mutate(vecs)
	}
	return vecs, err
}

func TestVectorEmbedsSharedSetsOnce(t *testing.T) {
	e := &countingEmbedder{}
	ix := NewVectorIndex(e, &VectorOptions{BatchSize: 4})
	ctx := context.Background()
	for _, s := range []string{"a", "b", "c"} {
		if err := ix.IndexTools(ctx, s, catalog); err != nil {
			t.Fatal(err)
		}
	}
	if e.texts.Load() != int64(len(catalog)) || e.calls.Load() != 2 {
		t.Errorf("embedded %d texts in %d calls, want %d in 2 batches", e.texts.Load(), e.calls.Load(), len(catalog))
	}
}

func TestVectorMinScore(t *testing.T) {
	ctx := context.Background()
	loose := NewVectorIndex(&HashingEmbedder{}, nil)
	strict := NewVectorIndex(&HashingEmbedder{}, &VectorOptions{MinScore: 0.3})
	for _, ix := range []*VectorIndex{loose, strict} {
		if err := ix.IndexTools(ctx, "s", catalog); err != nil {
			t.Fatal(err)
		}
	}
	all := search(t, loose, "s", "weather forecast", 10)
	some := search(t, strict, "s", "weather forecast", 10)
	if len(all) < 2 || len(some) != 1 || some[0] != "getWeatherForecast" {
		t.Errorf("MinScore 0: %v; MinScore 0.3: %v", all, some)
	}
	if got := search(t, loose, "s", "zebra", 10); len(got) != 0 {
		t.Errorf("unrelated query found %v", got)
	}
}

func TestVectorCustomText(t *testing.T) {
	ix := NewVectorIndex(&HashingEmbedder{}, &VectorOptions{Text: func(d tool.Definition) string {
		if d.Name == "translateText" {
			return "umbrella"
		}
		return d.Name
	}})
	if err := ix.IndexTools(context.Background(), "s", catalog); err != nil {
		t.Fatal(err)
	}
	if got := search(t, ix, "s", "umbrella", 3); !slices.Equal(got, []string{"translateText"}) {
		t.Errorf("custom text: %v", got)
	}
}

func TestVectorEmbedderFailures(t *testing.T) {
	ctx := context.Background()
	boom := errors.New("rate limited")
	tests := []struct {
		name   string
		mutate func([][]float32) ([][]float32, error)
		want   string
	}{
		{"error", func([][]float32) ([][]float32, error) { return nil, boom }, "rate limited"},
		{"too few vectors", func(v [][]float32) ([][]float32, error) { return v[:len(v)-1], nil }, "vectors for"},
		{"empty vector", func(v [][]float32) ([][]float32, error) { v[0] = nil; return v, nil }, "empty vector"},
		{"mixed dimensions", func(v [][]float32) ([][]float32, error) {
			v[len(v)-1] = v[len(v)-1][:3]
			return v, nil
		}, "dimensions"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ix := NewVectorIndex(&countingEmbedder{mutate: tt.mutate}, nil)
			err := ix.IndexTools(ctx, "s", catalog)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("IndexTools: %v, want %q", err, tt.want)
			}
			if _, err := ix.Search(ctx, SearchRequest{Session: "s", Query: "x"}); !errors.Is(err, ErrUnknownSession) {
				t.Errorf("failed indexing left a session: %v", err)
			}
		})
	}

	// A query embedding of the wrong size is an error, not a panic.
	e := &countingEmbedder{}
	ix := NewVectorIndex(e, nil)
	if err := ix.IndexTools(ctx, "s", catalog); err != nil {
		t.Fatal(err)
	}
	e.mutate = func(v [][]float32) ([][]float32, error) { v[0] = v[0][:7]; return v, nil }
	if _, err := ix.Search(ctx, SearchRequest{Session: "s", Query: "weather"}); err == nil || !strings.Contains(err.Error(), "dimensions") {
		t.Errorf("query of wrong size: %v", err)
	}
	e.mutate = func([][]float32) ([][]float32, error) { return nil, boom }
	if _, err := ix.Search(ctx, SearchRequest{Session: "s", Query: "weather"}); !errors.Is(err, boom) {
		t.Errorf("query embedding error: %v", err)
	}

	if err := NewVectorIndex(nil, nil).IndexTools(ctx, "s", catalog); err == nil {
		t.Error("nil embedder accepted")
	}
}

func TestHashingEmbedderDeterministic(t *testing.T) {
	e := &HashingEmbedder{Dim: 64}
	a, _ := e.Embed(context.Background(), []string{"get the weather", "weather get"})
	if len(a[0]) != 64 || !slices.Equal(a[0], a[1]) {
		t.Errorf("same terms, different vectors: %v %v", a[0], a[1])
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := e.Embed(ctx, []string{"x"}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}
