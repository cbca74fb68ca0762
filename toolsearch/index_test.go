package toolsearch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/wield-ai/wield/tool"
)

// def builds a definition whose parameters are given as name, description pairs.
func def(name, desc string, params ...string) tool.Definition {
	props := map[string]any{}
	for i := 0; i+1 < len(params); i += 2 {
		props[params[i]] = map[string]any{"type": "string", "description": params[i+1]}
	}
	schema, _ := json.Marshal(map[string]any{"type": "object", "properties": props})
	return tool.Definition{Name: name, Description: desc, InputSchema: schema}
}

var catalog = []tool.Definition{
	def("getWeatherForecast", "Returns the weather forecast for a city for the next days.", "city", "Name of the city", "days", "Number of days"),
	def("get_stock_price", "Current price of a stock on an exchange.", "ticker", "Stock ticker symbol"),
	def("send-email", "Sends an email message to a recipient.", "to", "Recipient address", "body", "Message text"),
	def("calendar.createEvent", "Creates an event in the user's calendar.", "title", "Event title", "start", "Start time"),
	def("translateText", "Translates text between languages.", "text", "The text", "target", "Target language code"),
	def("weather_history", "Historical temperatures recorded at a weather station.", "station", "Station id"),
}

// indexes returns one fresh index of each kind.
func indexes() map[string]func() Index {
	return map[string]func() Index{
		"keyword": func() Index { return NewKeywordIndex(nil) },
		"regex":   func() Index { return NewRegexIndex() },
		"vector":  func() Index { return NewVectorIndex(&HashingEmbedder{}, nil) },
	}
}

// query is a query that finds getWeatherForecast first in every index.
func query(kind string) string {
	if kind == "regex" {
		return "weather.*forecast"
	}
	return "weather forecast for Paris"
}

func names(hits []Hit) []string {
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = h.Name
	}
	return out
}

func TestIndexContract(t *testing.T) {
	ctx := context.Background()
	for kind, newIndex := range indexes() {
		t.Run(kind, func(t *testing.T) {
			ix := newIndex()
			if _, err := ix.Search(ctx, SearchRequest{Session: "s1", Query: query(kind)}); !errors.Is(err, ErrUnknownSession) {
				t.Fatalf("search before indexing: %v, want ErrUnknownSession", err)
			}
			if err := ix.IndexTools(ctx, "s1", catalog); err != nil {
				t.Fatal(err)
			}
			hits, err := ix.Search(ctx, SearchRequest{Session: "s1", Query: query(kind)})
			if err != nil {
				t.Fatal(err)
			}
			if len(hits) == 0 || hits[0].Name != "getWeatherForecast" {
				t.Fatalf("hits %v, want getWeatherForecast first", names(hits))
			}
			for i := 1; i < len(hits); i++ {
				if hits[i].Score > hits[i-1].Score {
					t.Errorf("hits not best first: %v", hits)
				}
			}

			// Sessions are isolated: s2 has other tools.
			if err := ix.IndexTools(ctx, "s2", catalog[1:3]); err != nil {
				t.Fatal(err)
			}
			hits, err = ix.Search(ctx, SearchRequest{Session: "s2", Query: query(kind)})
			if err != nil {
				t.Fatal(err)
			}
			if slices.Contains(names(hits), "getWeatherForecast") {
				t.Errorf("session s2 found s1's tool: %v", names(hits))
			}

			// MaxResults and Filter.
			q := "weather"
			hits, err = ix.Search(ctx, SearchRequest{Session: "s1", Query: q, MaxResults: 1})
			if err != nil || len(hits) != 1 {
				t.Fatalf("MaxResults 1: %v %v", hits, err)
			}
			hits, err = ix.Search(ctx, SearchRequest{Session: "s1", Query: q,
				Filter: func(d tool.Definition) bool { return d.Name != "getWeatherForecast" }})
			if err != nil || len(hits) == 0 || slices.Contains(names(hits), "getWeatherForecast") {
				t.Fatalf("Filter: %v %v", names(hits), err)
			}

			// Re-indexing replaces the set.
			if err := ix.IndexTools(ctx, "s1", catalog[1:2]); err != nil {
				t.Fatal(err)
			}
			hits, _ = ix.Search(ctx, SearchRequest{Session: "s1", Query: query(kind)})
			if slices.Contains(names(hits), "getWeatherForecast") {
				t.Errorf("re-indexed session still finds the old set: %v", names(hits))
			}

			// Clear forgets the session only.
			if err := ix.Clear(ctx, "s1"); err != nil {
				t.Fatal(err)
			}
			if _, err := ix.Search(ctx, SearchRequest{Session: "s1", Query: "x"}); !errors.Is(err, ErrUnknownSession) {
				t.Errorf("after Clear: %v, want ErrUnknownSession", err)
			}
			if _, err := ix.Search(ctx, SearchRequest{Session: "s2", Query: "email"}); err != nil {
				t.Errorf("Clear(s1) touched s2: %v", err)
			}
			if err := ix.Clear(ctx, "never-seen"); err != nil {
				t.Errorf("Clear of an unknown session: %v", err)
			}

			// An empty tool set is a valid, empty session.
			if err := ix.IndexTools(ctx, "empty", nil); err != nil {
				t.Fatal(err)
			}
			if hits, err := ix.Search(ctx, SearchRequest{Session: "empty", Query: query(kind)}); err != nil || len(hits) != 0 {
				t.Errorf("empty session: %v %v", hits, err)
			}

			// Bad tool sets are refused and leave the session as it was.
			dup := []tool.Definition{catalog[0], catalog[0]}
			if err := ix.IndexTools(ctx, "s2", dup); err == nil || !strings.Contains(err.Error(), "duplicate tool name") {
				t.Errorf("duplicate names: %v", err)
			}
			if err := ix.IndexTools(ctx, "s2", []tool.Definition{{Description: "x"}}); err == nil {
				t.Error("empty name accepted")
			}
			if hits, _ := ix.Search(ctx, SearchRequest{Session: "s2", Query: "email"}); !slices.Contains(names(hits), "send-email") {
				t.Errorf("failed IndexTools changed s2: %v", names(hits))
			}

			// A cancelled context is reported.
			cctx, cancel := context.WithCancel(ctx)
			cancel()
			if err := ix.IndexTools(cctx, "s3", catalog); !errors.Is(err, context.Canceled) {
				t.Errorf("IndexTools with cancelled context: %v", err)
			}
		})
	}
}

// TestConcurrentSessions indexes, searches and clears many sessions at once; run with -race.
func TestConcurrentSessions(t *testing.T) {
	ctx := context.Background()
	for kind, newIndex := range indexes() {
		t.Run(kind, func(t *testing.T) {
			ix := newIndex()
			var wg sync.WaitGroup
			errs := make(chan error, 64)
			for w := range 8 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := range 20 {
						session := fmt.Sprintf("w%d-%d", w, i%4)
						// Half the workers share one tool set, the others index their own.
						tools := catalog
						if w%2 == 1 {
							tools = append(slices.Clone(catalog[1:]),
								def(fmt.Sprintf("weatherForecastW%d", w), "Own weather forecast tool"))
						}
						if err := ix.IndexTools(ctx, session, tools); err != nil {
							errs <- err
							return
						}
						hits, err := ix.Search(ctx, SearchRequest{Session: session, Query: query(kind), MaxResults: 10})
						if err != nil && !errors.Is(err, ErrUnknownSession) {
							errs <- err
							return
						}
						for _, h := range hits {
							if strings.HasPrefix(h.Name, "weatherForecastW") && h.Name != fmt.Sprintf("weatherForecastW%d", w) {
								errs <- fmt.Errorf("session %s found another session's tool %s", session, h.Name)
								return
							}
						}
						if i%5 == 4 {
							_ = ix.Clear(ctx, session)
						}
					}
				}()
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Error(err)
			}
		})
	}
}

func TestSharedSets(t *testing.T) {
	ctx := context.Background()
	ix := NewKeywordIndex(nil)
	reversed := slices.Clone(catalog)
	slices.Reverse(reversed)
	for i := range 10 {
		tools := catalog
		if i%2 == 1 {
			tools = reversed // order does not matter
		}
		if err := ix.IndexTools(ctx, fmt.Sprint("s", i), tools); err != nil {
			t.Fatal(err)
		}
	}
	if s, sets := ix.store.counts(); s != 10 || sets != 1 {
		t.Fatalf("%d sessions share %d sets, want 10 sharing 1", s, sets)
	}
	changed := slices.Clone(catalog)
	changed[0] = def(changed[0].Name, changed[0].Description, "city", "Another parameter doc")
	if err := ix.IndexTools(ctx, "s0", changed); err != nil {
		t.Fatal(err)
	}
	if _, sets := ix.store.counts(); sets != 2 {
		t.Errorf("a changed schema should build its own set, have %d sets", sets)
	}
	for i := range 10 {
		_ = ix.Clear(ctx, fmt.Sprint("s", i))
	}
	if s, sets := ix.store.counts(); s != 0 || sets != 0 {
		t.Errorf("after clearing every session: %d sessions, %d sets", s, sets)
	}
}

func TestContentKey(t *testing.T) {
	base := contentKey(catalog)
	reversed := slices.Clone(catalog)
	slices.Reverse(reversed)
	if contentKey(reversed) != base {
		t.Error("key depends on order")
	}
	for name, change := range map[string]func(*tool.Definition){
		"schema":      func(d *tool.Definition) { *d = def(d.Name, d.Description, "other", "param") },
		"description": func(d *tool.Definition) { d.Description += "!" },
		"name":        func(d *tool.Definition) { d.Name = "x" },
		"output":      func(d *tool.Definition) { d.OutputSchema = json.RawMessage(`{"properties":{"id":{}}}`) },
	} {
		changed := slices.Clone(catalog)
		change(&changed[0])
		if contentKey(changed) == base {
			t.Errorf("key ignores the %s", name)
		}
	}
	if contentKey(catalog[:5]) == base {
		t.Error("key ignores a missing tool")
	}
	// Field boundaries count: moving text from name to description changes the key.
	a := []tool.Definition{{Name: "ab", Description: "c"}}
	b := []tool.Definition{{Name: "a", Description: "bc"}}
	if contentKey(a) == contentKey(b) {
		t.Error("key is ambiguous across field boundaries")
	}
	in := []tool.Definition{{Name: "a", InputSchema: json.RawMessage(`{}`)}}
	out := []tool.Definition{{Name: "a", OutputSchema: json.RawMessage(`{}`)}}
	if contentKey(in) == contentKey(out) {
		t.Error("key is ambiguous across input and output schemas")
	}
	if contentKey(nil) != contentKey([]tool.Definition{}) {
		t.Error("nil and empty sets differ")
	}
}
