package toolsearch

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/wield-ai/wield/tool"
	"github.com/wield-ai/wield/toolsearch/internal/topk"
	"github.com/wield-ai/wield/toolsearch/internal/vecdot"
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
	for _, s := range []string{"a", "b", "c"} {
		mustIndex(t, ix, s, catalog)
	}
	if e.texts.Load() != int64(len(catalog)) || e.calls.Load() != 2 {
		t.Errorf("embedded %d texts in %d calls, want %d in 2 batches", e.texts.Load(), e.calls.Load(), len(catalog))
	}
}

func TestVectorMinScore(t *testing.T) {
	loose := NewVectorIndex(&HashingEmbedder{}, nil)
	strict := NewVectorIndex(&HashingEmbedder{}, &VectorOptions{MinScore: 0.3})
	for _, ix := range []*VectorIndex{loose, strict} {
		mustIndex(t, ix, "s", catalog)
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
	mustIndex(t, ix, "s", catalog)
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
	mustIndex(t, ix, "s", catalog)
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

// tableEmbedder embeds each text as the vector the table gives it.
type tableEmbedder map[string][]float32

func (e tableEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		v, ok := e[t]
		if !ok {
			return nil, fmt.Errorf("no vector for %q", t)
		}
		out[i] = v
	}
	return out, nil
}

// exactScan is what the vector index's search must return: every tool scored with the exact
// dot product, MinScore and the filter applied, the best k by score, ties to the lower index.
func exactScan(set *vectorSet, q []float32, minScore float64, filter func(tool.Definition) bool, k int) []Hit {
	var all []topk.Item
	scores := make([]float32, len(set.defs))
	vecdot.Dots(q, set.vecs, scores)
	for i, s := range scores {
		if float64(s) > minScore && (filter == nil || filter(set.defs[i])) {
			all = append(all, topk.Item{ID: i, Score: float64(s)})
		}
	}
	slices.SortStableFunc(all, func(a, b topk.Item) int { return cmp.Compare(b.Score, a.Score) })
	var hits []Hit
	for _, it := range all[:min(k, len(all))] {
		hits = append(hits, Hit{Name: set.defs[it.ID].Name, Score: it.Score})
	}
	return hits
}

// TestVectorSearchMatchesExactScan checks that skipping tools by their quantized scores never
// changes a search's results or scores, on dense random vectors of several sizes, on vectors
// with many exact ties and near-ties, and on the hashing embedder's sparse ones; with and
// without a minimum score and a filter.
func TestVectorSearchMatchesExactScan(t *testing.T) {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(5, 6))
	gauss := func(dim int) []float32 {
		v := make([]float32, dim)
		for i := range v {
			v[i] = float32(r.NormFloat64())
		}
		return v
	}
	type dataset struct {
		name    string
		emb     Embedder
		defs    []tool.Definition
		queries []string
		text    func(tool.Definition) string
	}
	var sets []dataset
	for _, dim := range []int{1, 5, 13, 64, 384, 512} {
		for _, kind := range []string{"dense", "ties"} {
			e := tableEmbedder{}
			var defs []tool.Definition
			base := [][]float32{gauss(dim), gauss(dim), gauss(dim)}
			for i := range 600 {
				name := fmt.Sprintf("t%04d", i)
				v := gauss(dim)
				if kind == "ties" {
					// Copies, scaled copies (equal after normalisation) and copies nudged by
					// one unit in the last place of one value.
					v = slices.Clone(base[i%3])
					switch i % 4 {
					case 1:
						for j := range v {
							v[j] *= 3
						}
					case 2:
						v[i%dim] = math.Nextafter32(v[i%dim], float32(math.Inf(1)))
					}
				}
				e[name] = v
				defs = append(defs, tool.Definition{Name: name})
			}
			var queries []string
			for i := range 12 {
				q := fmt.Sprintf("query %d", i)
				e[q] = gauss(dim)
				if i%4 == 0 {
					e[q] = slices.Clone(base[i%3]) // a query equal to many rows
				}
				queries = append(queries, q)
			}
			sets = append(sets, dataset{fmt.Sprintf("%s/dim=%d", kind, dim), e, defs, queries, func(d tool.Definition) string { return d.Name }})
		}
	}
	syn := newSynthetic(1000, 12, 9)
	sets = append(sets, dataset{name: "hashing", emb: &HashingEmbedder{}, defs: syn.tools, queries: syn.queries})

	filter := func(d tool.Definition) bool { return len(d.Name)%3 != 0 || strings.HasSuffix(d.Name, "7") }
	for _, ds := range sets {
		t.Run(ds.name, func(t *testing.T) {
			for _, minScore := range []float64{-1, 0, 0.2} {
				ix := NewVectorIndex(ds.emb, &VectorOptions{MinScore: minScore, Text: ds.text})
				mustIndex(t, ix, "s", ds.defs)
				set, err := ix.store.get(context.Background(), "s")
				if err != nil {
					t.Fatal(err)
				}
				for _, query := range ds.queries {
					qv, err := ds.emb.Embed(ctx, []string{query})
					if err != nil {
						t.Fatal(err)
					}
					q := make([]float32, set.stride)
					copy(q, qv[0])
					normalize(q)
					for _, k := range []int{1, 5, 50, len(ds.defs) + 1} {
						for _, f := range []func(tool.Definition) bool{nil, filter} {
							got, err := ix.Search(ctx, SearchRequest{Session: "s", Query: query, MaxResults: k, Filter: f})
							if err != nil {
								t.Fatal(err)
							}
							if want := exactScan(set, q, minScore, f, k); !slices.Equal(got, want) {
								t.Fatalf("min score %v, query %q, k %d, filter %v:\n got %v\nwant %v",
									minScore, query, k, f != nil, got, want)
							}
						}
					}
				}
			}
		})
	}
}

// TestVectorScoresAreCosines checks the scores against cosine similarity computed in float64
// from the embedder's vectors.
func TestVectorScoresAreCosines(t *testing.T) {
	ctx := context.Background()
	e := tableEmbedder{"a": {3, 4, 0}, "b": {-1, 2, 2}, "c": {0, 0, 5}, "q": {1, 1, 1}}
	ix := NewVectorIndex(e, &VectorOptions{MinScore: -1, Text: func(d tool.Definition) string { return d.Name }})
	mustIndex(t, ix, "s", []tool.Definition{{Name: "a"}, {Name: "b"}, {Name: "c"}})
	hits, err := ix.Search(ctx, SearchRequest{Session: "s", Query: "q"})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{"a": 7 / (5 * math.Sqrt(3)), "b": 3 / (3 * math.Sqrt(3)), "c": 5 / (5 * math.Sqrt(3))}
	if len(hits) != 3 || hits[0].Name != "a" {
		t.Fatalf("hits %v", hits)
	}
	for _, h := range hits {
		if math.Abs(h.Score-want[h.Name]) > 1e-6 {
			t.Errorf("%s: score %v, cosine %v", h.Name, h.Score, want[h.Name])
		}
	}
}

func TestVectorRejectsNonFiniteVectors(t *testing.T) {
	ctx := context.Background()
	for _, bad := range []float32{float32(math.NaN()), float32(math.Inf(-1))} {
		e := tableEmbedder{"a": {1, bad}, "b": {1, 0}, "q": {1, 0}, "nan query": {bad, 1}}
		text := func(d tool.Definition) string { return d.Name }
		ix := NewVectorIndex(e, &VectorOptions{Text: text})
		if err := ix.IndexTools(ctx, "s", []tool.Definition{{Name: "a"}, {Name: "b"}}); err == nil || !strings.Contains(err.Error(), "NaN") {
			t.Errorf("tool vector with %v: %v", bad, err)
		}
		mustIndex(t, ix, "s", []tool.Definition{{Name: "b"}})
		if _, err := ix.Search(ctx, SearchRequest{Session: "s", Query: "nan query"}); err == nil || !strings.Contains(err.Error(), "NaN") {
			t.Errorf("query vector with %v: %v", bad, err)
		}
	}
}
