package bm25f

import (
	"math"
	"math/rand/v2"
	"sort"
	"testing"
)

// reference scores every document against query straight from the formula in the package doc.
func reference(docs []Doc, p Params, query []string) []float64 {
	nf := len(p.Fields)
	avg := make([]float64, nf)
	for _, d := range docs {
		for f := range nf {
			avg[f] += float64(len(d[f]))
		}
	}
	for f := range avg {
		avg[f] /= float64(len(docs))
	}
	df := func(t string) int {
		n := 0
		for _, d := range docs {
			found := false
			for f := range nf {
				for _, x := range d[f] {
					if x == t && p.Fields[f].Weight != 0 {
						found = true
					}
				}
			}
			if found {
				n++
			}
		}
		return n
	}
	scores := make([]float64, len(docs))
	for i, d := range docs {
		for _, t := range query {
			tf := 0.0
			for f := range nf {
				c := 0
				for _, x := range d[f] {
					if x == t {
						c++
					}
				}
				if c == 0 {
					continue
				}
				fp := p.Fields[f]
				tf += fp.Weight * float64(c) / (1 - fp.B + fp.B*float64(len(d[f]))/avg[f])
			}
			if tf == 0 {
				continue
			}
			n, m := float64(len(docs)), float64(df(t))
			idf := math.Log(1 + (n-m+0.5)/(m+0.5))
			scores[i] += idf * tf / (p.K1 + tf)
		}
	}
	return scores
}

func TestSearchMatchesFormula(t *testing.T) {
	vocab := []string{"weather", "get", "city", "forecast", "stock", "price", "send", "mail", "user", "id"}
	rng := rand.New(rand.NewPCG(1, 2))
	params := []Params{
		{K1: 1.2, Fields: []Field{{1, 0.75}}},
		{K1: 0.9, Fields: []Field{{3, 0.5}, {1, 0.75}, {0.5, 1}}},
		{K1: 2, Fields: []Field{{2, 0}, {0, 0.75}}},
	}
	for pi, p := range params {
		docs := make([]Doc, 60)
		for i := range docs {
			d := make(Doc, len(p.Fields))
			for f := range d {
				for range 1 + rng.IntN(12) {
					d[f] = append(d[f], vocab[rng.IntN(len(vocab))])
				}
			}
			docs[i] = d
		}
		ix := Build(docs, p)
		for qi := range 20 {
			query := []string{vocab[rng.IntN(len(vocab))], vocab[rng.IntN(len(vocab))]}
			if qi%5 == 0 {
				query = append(query, query[0]) // repeated term counts twice
			}
			want := reference(docs, p, query)
			order := make([]int, len(docs))
			for i := range order {
				order[i] = i
			}
			sort.SliceStable(order, func(a, b int) bool { return want[order[a]] > want[order[b]] })
			got := ix.Search(query, 10, nil)
			for r, h := range got {
				if math.Abs(h.Score-want[h.ID]) > 1e-4 {
					t.Fatalf("params %d query %q: doc %d score %v, formula %v", pi, query, h.ID, h.Score, want[h.ID])
				}
				if math.Abs(h.Score-want[order[r]]) > 1e-4 {
					t.Fatalf("params %d query %q: rank %d score %v, want %v", pi, query, r, h.Score, want[order[r]])
				}
				if r > 0 && got[r-1].Score == h.Score && got[r-1].ID > h.ID {
					t.Fatalf("tie not broken by document number: %v", got)
				}
			}
		}
	}
}

func TestSearchEdges(t *testing.T) {
	docs := []Doc{{{"a", "b"}}, {{"b"}}, {{"c"}}, {{"a"}}}
	ix := Build(docs, Params{K1: 1.2, Fields: []Field{{1, 0.75}}})
	if ix.Len() != 4 || ix.Terms() != 3 {
		t.Fatalf("Len %d Terms %d", ix.Len(), ix.Terms())
	}
	if got := ix.Search([]string{"a"}, 0, nil); got != nil {
		t.Errorf("k=0 gave %v", got)
	}
	if got := ix.Search([]string{"zzz"}, 5, nil); len(got) != 0 {
		t.Errorf("unknown term gave %v", got)
	}
	got := ix.Search([]string{"a", "b"}, 5, func(doc int) bool { return doc != 0 })
	if len(got) != 2 || got[0].ID == 0 || got[1].ID == 0 {
		t.Errorf("filter kept doc 0: %v", got)
	}
	if got := ix.Search([]string{"a", "b", "c"}, 2, nil); len(got) != 2 || got[0].ID != 2 || got[1].ID != 0 { // rare c in a short doc beats a and b
		t.Errorf("k=2: %v", got)
	}
	empty := Build(nil, Params{K1: 1.2, Fields: []Field{{1, 0.75}}})
	if got := empty.Search([]string{"a"}, 3, nil); got != nil {
		t.Errorf("empty index gave %v", got)
	}
}

func TestSearchAfterPanickingFilter(t *testing.T) {
	ix := Build([]Doc{{{"a"}}, {{"a", "b"}}}, Params{K1: 1.2, Fields: []Field{{1, 0.75}}})
	want := ix.Search([]string{"a"}, 5, nil)
	func() {
		defer func() { _ = recover() }()
		ix.Search([]string{"a"}, 5, func(int) bool { panic("boom") })
	}()
	got := ix.Search([]string{"a"}, 5, nil)
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("after a panic: %v, want %v", got, want)
	}
}

// TestSearchFilter checks that a filtered search returns the best k of the documents kept, and
// asks the filter only of documents that could enter the results.
func TestSearchFilter(t *testing.T) {
	vocab := []string{"weather", "get", "city", "forecast", "stock", "price", "send", "mail"}
	rng := rand.New(rand.NewPCG(3, 4))
	p := Params{K1: 1.2, Fields: []Field{{2, 0.75}, {1, 0.75}}}
	docs := make([]Doc, 500)
	for i := range docs {
		docs[i] = Doc{{vocab[rng.IntN(len(vocab))]}, {vocab[rng.IntN(len(vocab))], vocab[rng.IntN(len(vocab))]}}
	}
	ix := Build(docs, p)
	for qi := range 30 {
		query := []string{vocab[rng.IntN(len(vocab))], vocab[rng.IntN(len(vocab))]}
		mod := 2 + qi%3
		asked := 0
		got := ix.Search(query, 5, func(d int) bool { asked++; return d%mod != 0 })
		want := reference(docs, p, query)
		var kept []int
		for d, s := range want {
			if s > 0 && d%mod != 0 {
				kept = append(kept, d)
			}
		}
		sort.SliceStable(kept, func(a, b int) bool { return want[kept[a]] > want[kept[b]] })
		if len(got) != min(5, len(kept)) {
			t.Fatalf("query %q: %d hits, want %d", query, len(got), min(5, len(kept)))
		}
		for r, h := range got {
			if h.ID%mod == 0 || math.Abs(h.Score-want[kept[r]]) > 1e-4 {
				t.Fatalf("query %q: rank %d is %v, want doc %d (%v)", query, r, h, kept[r], want[kept[r]])
			}
		}
		if matched := countPositive(want); asked >= matched {
			t.Errorf("query %q: the filter was asked of %d documents, every one of the %d matched", query, asked, matched)
		}
	}
}

func countPositive(scores []float64) int {
	n := 0
	for _, s := range scores {
		if s > 0 {
			n++
		}
	}
	return n
}
