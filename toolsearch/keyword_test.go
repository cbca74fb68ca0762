package toolsearch

import (
	"context"
	"encoding/json"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/wield-ai/wield/tool"
	"github.com/wield-ai/wield/toolsearch/internal/bm25f"
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
	mustIndex(t, ix, "s", catalog)
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

// A request spells out what names abbreviate: the abbreviation in the name, not a word the
// descriptions share with every tool, decides.
func TestKeywordExpandsAbbreviations(t *testing.T) {
	tools := []tool.Definition{
		def("getCompanyInfo", "Retrieves details about a company."),
		def("checkCompanyCompliance", "Checks that a company complies with the regulations of the company's sector."),
		def("repo_stats", "Counts of commits, stars and forks."),
		def("list_commits", "Lists the commits of a repository."),
		def("getWeather", "Retrieves the weather information of a city."),
	}
	ix := NewKeywordIndex(nil)
	mustIndex(t, ix, "s", tools)
	for _, tt := range []struct{ query, want string }{
		{"company information", "getCompanyInfo"},
		{"repository statistics", "repo_stats"},
		{"repo stats", "repo_stats"},
	} {
		if got := search(t, ix, "s", tt.query, 3); len(got) == 0 || got[0] != tt.want {
			t.Errorf("%q: got %v, want %s first", tt.query, got, tt.want)
		}
	}
	// Without expansion the name does not meet the query's word.
	plain := English()
	plain.Expand = nil
	ix = NewKeywordIndex(&KeywordOptions{Analyzer: plain})
	mustIndex(t, ix, "s", tools)
	if got := search(t, ix, "s", "repository statistics", 3); len(got) > 0 && got[0] == "repo_stats" {
		t.Errorf("without expansion %v: the test does not need it", got)
	}
}

func TestKeywordFieldWeights(t *testing.T) {
	tools := []tool.Definition{
		def("lookup", "Looks up a record. Also handles invoices in passing."),
		def("invoice", "Fetches a document."),
	}
	byName := NewKeywordIndex(&KeywordOptions{Name: &FieldParams{Weight: 5, B: 0.75}})
	byDesc := NewKeywordIndex(&KeywordOptions{Name: &FieldParams{Weight: 0}, Description: &FieldParams{Weight: 1, B: 0.75}})
	for _, ix := range []*KeywordIndex{byName, byDesc} {
		mustIndex(t, ix, "s", tools)
	}
	if got := search(t, byName, "s", "invoice", 2); !slices.Equal(got, []string{"invoice", "lookup"}) {
		t.Errorf("name-weighted: %v", got)
	}
	if got := search(t, byDesc, "s", "invoice", 2); !slices.Equal(got, []string{"lookup"}) {
		t.Errorf("name ignored: %v", got)
	}
}

// A request often says what it wants back: the output schema's properties are searched, unless
// their fields weigh nothing.
func TestKeywordSearchesOutputs(t *testing.T) {
	book := def("getBookDetails", "Retrieves a book.", "book_id", "The book.")
	book.OutputSchema = json.RawMessage(`{"properties":{"isbn":{"type":"string"},"availability":{"description":"Whether a copy is on the shelf."}}}`)
	tools := []tool.Definition{book,
		def("getBookInfo", "Retrieves information about a book.", "title", "The title of the book."),
		def("reserveBook", "Reserves a book.", "title", "The title of the book."),
	}
	zero := &FieldParams{}
	with, without := NewKeywordIndex(nil), NewKeywordIndex(&KeywordOptions{OutputNames: zero, OutputDescriptions: zero})
	for _, ix := range []*KeywordIndex{with, without} {
		mustIndex(t, ix, "s", tools)
	}
	for _, q := range []string{"book isbn", "is the book on the shelf"} {
		if got := search(t, with, "s", q, 3); len(got) == 0 || got[0] != "getBookDetails" {
			t.Errorf("%q: %v, want getBookDetails first", q, got)
		}
	}
	if got := search(t, without, "s", "isbn shelf", 3); len(got) != 0 {
		t.Errorf("outputs weighing nothing found %v", got)
	}
}

func TestKeywordCustomAnalyzer(t *testing.T) {
	// Without identifier splitting and stemming, prose does not meet camelCase names.
	ix := NewKeywordIndex(&KeywordOptions{Analyzer: &TextAnalyzer{}, Description: &FieldParams{Weight: 0}})
	tools := []tool.Definition{def("getWeatherForecasts", "")}
	mustIndex(t, ix, "s", tools)
	if got := search(t, ix, "s", "weather forecast", 3); len(got) != 0 {
		t.Errorf("plain analyzer matched %v", got)
	}
	if got := search(t, ix, "s", "getweatherforecasts", 3); len(got) != 1 {
		t.Errorf("plain analyzer missed the whole name: %v", got)
	}
	eng := NewKeywordIndex(&KeywordOptions{Description: &FieldParams{Weight: 0}})
	mustIndex(t, eng, "s", tools)
	if got := search(t, eng, "s", "weather forecast", 3); len(got) != 1 {
		t.Errorf("English analyzer missed: %v", got)
	}
}

// FuzzTermCacheMatchesTerms checks that building reads texts as searching does: the term
// numbers the build's cache gives are those of the terms the analyzer gives.
func FuzzTermCacheMatchesTerms(f *testing.F) {
	for _, s := range []string{"getWeatherForecast for the City", "HTTPServer_URL-parser.v2", "Ünïcode_Wörter ÉTÉ", "The the THE running runs"} {
		f.Add(s, s+" again")
	}
	analyzers := []Analyzer{English(), &TextAnalyzer{}, &TextAnalyzer{SplitIdentifiers: true, KeepJoined: true}, upperAnalyzer{}}
	f.Fuzz(func(t *testing.T, a, b string) {
		for _, an := range analyzers {
			bld := bm25f.NewBuilder(bm25f.Params{K1: 1, Fields: []bm25f.Field{{Weight: 1}}})
			c := newTermCache(an, bld)
			for _, text := range []string{a, b, a} { // the second a comes from the cache
				ids := c.terms(nil, text)
				want := an.Terms(nil, text)
				if len(ids) != len(want) {
					t.Fatalf("%T: %q gave %d terms, want %q", an, text, len(ids), want)
				}
				for i, id := range ids {
					if got := bld.Term(want[i]); got != id {
						t.Fatalf("%T: %q: term %d is number %d, want %d (%q)", an, text, i, id, got, want[i])
					}
				}
			}
		}
	})
}

// upperAnalyzer is an analyzer other than TextAnalyzer: upper-cased fields.
type upperAnalyzer struct{}

func (upperAnalyzer) Terms(dst []string, text string) []string {
	for _, w := range strings.Fields(text) {
		dst = append(dst, strings.ToUpper(w))
	}
	return dst
}

// TestParallelBuildIsTheSequentialOne checks that a set large enough to be analysed by several
// goroutines gets the index one goroutine builds: same hits, same scores.
func TestParallelBuildIsTheSequentialOne(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(3))
	s := newSynthetic(2*minPerWorker+17, 60, 9) // two workers, the second with more tools
	for i := range s.tools {
		if i%2 == 0 { // outputs read too, and missing
			s.tools[i].OutputSchema = s.tools[i].InputSchema
		}
	}
	k := NewKeywordIndex(nil)
	sorted, err := sortDefs(s.tools)
	if err != nil {
		t.Fatal(err)
	}
	parallel := k.build(sorted)
	b := bm25f.NewBuilder(k.params)
	var a analysed
	a.analyse(k.analyzer, b, sorted, k.outputs())
	a.addTo(b, nil)
	sequential := b.Build()
	if parallel.Terms() != sequential.Terms() || parallel.Len() != sequential.Len() {
		t.Fatalf("parallel: %d terms, %d docs; sequential: %d, %d", parallel.Terms(), parallel.Len(), sequential.Terms(), sequential.Len())
	}
	for _, q := range s.queries {
		terms := k.analyzer.Terms(nil, q)
		if got, want := parallel.Search(terms, 10, nil), sequential.Search(terms, 10, nil); !slices.Equal(got, want) {
			t.Fatalf("query %q: parallel %v, sequential %v", q, got, want)
		}
	}
}
