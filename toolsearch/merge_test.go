package toolsearch

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/wield-ai/wield/tool"
)

func hits(pairs ...any) []Hit {
	var out []Hit
	for i := 0; i < len(pairs); i += 2 {
		out = append(out, Hit{Name: pairs[i].(string), Score: pairs[i+1].(float64)})
	}
	return out
}

func TestMerge(t *testing.T) {
	tests := []struct {
		name    string
		k       int
		results [][]Hit
		want    []string
	}{
		{"no room", 0, [][]Hit{hits("a", 1.0)}, []string{}},
		{"nothing", 3, nil, []string{}},
		{"one search is cut to k", 2, [][]Hit{hits("a", 3.0, "b", 2.0, "c", 1.0)}, []string{"a", "b"}},
		// A union by score would give a1 a2 a3 b1: the strong query would take every place.
		{"turns by rank", 4, [][]Hit{hits("a1", 10.0, "a2", 9.0, "a3", 8.0), hits("b1", 3.0, "b2", 2.0)},
			[]string{"a1", "b1", "a2", "b2"}},
		{"better score first within a round", 3, [][]Hit{hits("a1", 1.0, "a2", 0.5), hits("b1", 7.0, "b2", 6.0)},
			[]string{"b1", "a1", "b2"}},
		// a is found by two queries: its weight (5+1) beats b's 5.5.
		{"agreement first within a round", 3, [][]Hit{hits("a", 5.0), hits("b", 5.5), hits("a", 1.0, "c", 0.5)},
			[]string{"a", "b", "c"}},
		// a2 and a3 score under half of a1: the b search, undecided, gets the places first.
		{"weak tools wait", 4, [][]Hit{hits("a1", 10.0, "a2", 2.0, "a3", 1.5), hits("b1", 5.0, "b2", 4.5, "b3", 4.0)},
			[]string{"a1", "b1", "b2", "b3"}},
		{"weak tools in rounds after", 6, [][]Hit{hits("a1", 10.0, "a2", 2.0, "a3", 1.5), hits("b1", 5.0, "b2", 1.0)},
			[]string{"a1", "b1", "a2", "b2", "a3"}},
		{"each tool once", 5, [][]Hit{hits("x", 5.0, "y", 4.0), hits("x", 2.0, "z", 1.0)}, []string{"x", "y", "z"}},
		{"lists of unequal length", 10, [][]Hit{hits("a", 1.0), hits(), hits("b", 3.0, "c", 2.0, "d", 1.0)},
			[]string{"b", "a", "c", "d"}},
		{"a round cut at k", 3, [][]Hit{hits("a1", 1.0, "a2", 1.0), hits("b1", 2.0, "b2", 2.0), hits("c1", 3.0, "c2", 3.0)},
			[]string{"c1", "b1", "a1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := names(Merge(tt.k, tt.results...)); !slices.Equal(got, tt.want) {
				t.Errorf("Merge = %v, want %v", got, tt.want)
			}
		})
	}
	// The result is the caller's: it never aliases a search's slice.
	in := hits("a", 2.0, "b", 1.0)
	out := Merge(2, in)
	out[0].Name = "changed"
	if in[0].Name != "a" {
		t.Error("Merge returned the input slice")
	}
	// Scores are those of the search a hit was taken from.
	if m := Merge(2, hits("a", 2.0), hits("a", 7.0, "b", 1.0)); m[0] != (Hit{"a", 2.0}) {
		t.Errorf("merged hit %+v: want a's score in the first search", m[0])
	}
}

func TestSearchAll(t *testing.T) {
	ctx := context.Background()
	_, defs := multiCatalog(t)
	ix := NewKeywordIndex(nil)
	mustIndex(t, ix, "s", defs)
	req := SearchRequest{Session: "s", MaxResults: 3, Query: "ignored",
		Filter: func(d tool.Definition) bool { return d.Name != "getWeatherRadar" }}
	merged, each, err := SearchAll(ctx, ix, req, []string{"weather forecast", "send mail"})
	if err != nil {
		t.Fatal(err)
	}
	if len(each) != 2 || len(merged) != 3 {
		t.Fatalf("merged %v, each %v", merged, each)
	}
	for i, q := range []string{"weather forecast", "send mail"} {
		one, _ := ix.Search(ctx, SearchRequest{Session: "s", Query: q, MaxResults: 3, Filter: req.Filter})
		if !slices.Equal(one, each[i]) {
			t.Errorf("query %q: SearchAll gave %v, a search gives %v", q, each[i], one)
		}
	}
	if want := names(Merge(3, each...)); !slices.Equal(names(merged), want) {
		t.Errorf("merged %v, want Merge of the searches %v", names(merged), want)
	}
	if slices.Contains(names(merged), "getWeatherRadar") {
		t.Error("filter not applied")
	}
	if _, _, err := SearchAll(ctx, ix, SearchRequest{Session: "nope"}, []string{"x"}); !errors.Is(err, ErrUnknownSession) {
		t.Errorf("unknown session: %v", err)
	}
}
