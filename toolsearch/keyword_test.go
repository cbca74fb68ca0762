package toolsearch

import (
	"context"
	"slices"
	"testing"

	"github.com/wield-ai/wield/tool"
)

func search(t *testing.T, ix Index, session, q string, k int) []string {
	t.Helper()
	hits, err := ix.Search(context.Background(), SearchRequest{Session: session, Query: q, MaxResults: k})
	if err != nil {
		t.Fatal(err)
	}
	return names(hits)
}

func TestKeywordFindsIdentifiersFromProse(t *testing.T) {
	ix := NewKeywordIndex(nil)
	if err := ix.IndexTools(context.Background(), "s", catalog); err != nil {
		t.Fatal(err)
	}
	tests := []struct{ query, want string }{
		{"what will the weather be like in Rome next days?", "getWeatherForecast"},
		{"how much does an AAPL share cost (stock price)", "get_stock_price"},
		{"email my boss", "send-email"},
		{"create a calendar event", "calendar.createEvent"},
		{"translate this into German", "translateText"},
		{"historical temperature readings", "weather_history"},
		{"ticker symbol", "get_stock_price"}, // parameter descriptions are searched
	}
	for _, tt := range tests {
		got := search(t, ix, "s", tt.query, 3)
		if len(got) == 0 || got[0] != tt.want {
			t.Errorf("%q: got %v, want %s first", tt.query, got, tt.want)
		}
	}
	if got := search(t, ix, "s", "the of and", 3); len(got) != 0 {
		t.Errorf("stop words only found %v", got)
	}
}

func TestKeywordFieldWeights(t *testing.T) {
	tools := []tool.Definition{
		def("lookup", "Looks up a record. Also handles invoices in passing."),
		def("invoice", "Fetches a document."),
	}
	ctx := context.Background()
	byName := NewKeywordIndex(&KeywordOptions{Name: &FieldParams{Weight: 5, B: 0.75}})
	byDesc := NewKeywordIndex(&KeywordOptions{Name: &FieldParams{Weight: 0}, Description: &FieldParams{Weight: 1, B: 0.75}})
	for _, ix := range []*KeywordIndex{byName, byDesc} {
		if err := ix.IndexTools(ctx, "s", tools); err != nil {
			t.Fatal(err)
		}
	}
	if got := search(t, byName, "s", "invoice", 2); !slices.Equal(got, []string{"invoice", "lookup"}) {
		t.Errorf("name-weighted: %v", got)
	}
	if got := search(t, byDesc, "s", "invoice", 2); !slices.Equal(got, []string{"lookup"}) {
		t.Errorf("name ignored: %v", got)
	}
}

func TestKeywordCustomAnalyzer(t *testing.T) {
	// Without identifier splitting and stemming, prose does not meet camelCase names.
	ix := NewKeywordIndex(&KeywordOptions{Analyzer: &TextAnalyzer{}, Description: &FieldParams{Weight: 0}})
	tools := []tool.Definition{def("getWeatherForecasts", "")}
	if err := ix.IndexTools(context.Background(), "s", tools); err != nil {
		t.Fatal(err)
	}
	if got := search(t, ix, "s", "weather forecast", 3); len(got) != 0 {
		t.Errorf("plain analyzer matched %v", got)
	}
	if got := search(t, ix, "s", "getweatherforecasts", 3); len(got) != 1 {
		t.Errorf("plain analyzer missed the whole name: %v", got)
	}
	eng := NewKeywordIndex(&KeywordOptions{Description: &FieldParams{Weight: 0}})
	if err := eng.IndexTools(context.Background(), "s", tools); err != nil {
		t.Fatal(err)
	}
	if got := search(t, eng, "s", "weather forecast", 3); len(got) != 1 {
		t.Errorf("English analyzer missed: %v", got)
	}
}
