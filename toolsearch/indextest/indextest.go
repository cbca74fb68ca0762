// Package indextest checks that a [toolsearch.Index] keeps the interface's contract, in the
// way testing/slogtest checks a slog.Handler: an index of one's own (a search service, a
// database) passes [Run] before the advisor relies on it, and every index of package
// toolsearch runs it too.
//
// The contract: a search in a session that was never indexed, or was cleared, is an error
// wrapping [toolsearch.ErrUnknownSession]; sessions never see each other's tools; hits come
// best first, at most MaxResults of them, without the tools Filter drops; IndexTools replaces a
// session's set, refuses empty and duplicate names without touching the session, takes an empty
// set as a valid empty session and reports a cancelled context; Clear forgets one session only
// and does nothing for an unknown one; and all of it is safe for concurrent use (run with -race).
package indextest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/wield-ai/wield/tool"
	"github.com/wield-ai/wield/toolsearch"
	"github.com/wield-ai/wield/toolsearch/internal/catalogtest"
)

// Config is what [Run] needs to know of the index under test.
type Config struct {
	// New returns a fresh, empty index; Run calls it once per subtest.
	New func() toolsearch.Index
	// ForecastQuery is a query that finds the tool getWeatherForecast ("Returns the weather
	// forecast for a city for the next days.") first among Run's catalog; "" means
	// "weather forecast for Paris". An index whose queries are not words gives one in its own
	// language, such as "weather.*forecast" for a regular-expression index.
	ForecastQuery string
	// Word returns a query that finds the tools whose name or description contains the given
	// word; nil means the word itself, which suits word and regular-expression indexes alike.
	Word func(word string) string
}

// Catalog is the tool set Run indexes: tools named in the styles catalogs use (camelCase,
// snake_case, kebab-case, dotted), two of them about the weather.
func Catalog() []tool.Definition { return catalogtest.Catalog() }

func names(hits []toolsearch.Hit) []string {
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = h.Name
	}
	return out
}

// Run checks the contract (see the package documentation) on indexes made by cfg.New, each
// part in a subtest of its own.
func Run(t *testing.T, cfg Config) {
	t.Helper()
	if cfg.New == nil {
		t.Fatal("indextest: Config.New is nil")
	}
	if cfg.ForecastQuery == "" {
		cfg.ForecastQuery = "weather forecast for Paris"
	}
	if cfg.Word == nil {
		cfg.Word = func(w string) string { return w }
	}
	t.Run("UnknownSession", func(t *testing.T) { unknownSession(t, cfg) })
	t.Run("Search", func(t *testing.T) { search(t, cfg) })
	t.Run("Sessions", func(t *testing.T) { sessions(t, cfg) })
	t.Run("MaxResultsAndFilter", func(t *testing.T) { maxResultsAndFilter(t, cfg) })
	t.Run("Reindex", func(t *testing.T) { reindex(t, cfg) })
	t.Run("Clear", func(t *testing.T) { clearSession(t, cfg) })
	t.Run("EmptySet", func(t *testing.T) { emptySet(t, cfg) })
	t.Run("BadSets", func(t *testing.T) { badSets(t, cfg) })
	t.Run("Cancelled", func(t *testing.T) { cancelled(t, cfg) })
	t.Run("Concurrent", func(t *testing.T) { concurrent(t, cfg) })
}

// indexed returns a new index with Catalog as session s1's set.
func indexed(t *testing.T, cfg Config) toolsearch.Index {
	t.Helper()
	ix := cfg.New()
	if err := ix.IndexTools(context.Background(), "s1", Catalog()); err != nil {
		t.Fatalf("IndexTools: %v", err)
	}
	return ix
}

func unknownSession(t *testing.T, cfg Config) {
	ix := cfg.New()
	if _, err := ix.Search(context.Background(), toolsearch.SearchRequest{Session: "s1", Query: cfg.ForecastQuery}); !errors.Is(err, toolsearch.ErrUnknownSession) {
		t.Errorf("search before indexing: %v, want an error wrapping ErrUnknownSession", err)
	}
}

func search(t *testing.T, cfg Config) {
	ix := indexed(t, cfg)
	hits, err := ix.Search(context.Background(), toolsearch.SearchRequest{Session: "s1", Query: cfg.ForecastQuery})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) == 0 || hits[0].Name != "getWeatherForecast" {
		t.Fatalf("%q found %v, want getWeatherForecast first", cfg.ForecastQuery, names(hits))
	}
	for i := 1; i < len(hits); i++ {
		if hits[i].Score > hits[i-1].Score {
			t.Errorf("hits not best first: %v", hits)
		}
	}
}

func sessions(t *testing.T, cfg Config) {
	ix := indexed(t, cfg)
	if found := indexAndFind(t, cfg, ix, "s2", Catalog()[1:3]); slices.Contains(found, "getWeatherForecast") {
		t.Errorf("session s2 found s1's tool: %v", found)
	}
	hits, err := ix.Search(context.Background(), toolsearch.SearchRequest{Session: "s1", Query: cfg.ForecastQuery})
	if err != nil || len(hits) == 0 || hits[0].Name != "getWeatherForecast" {
		t.Errorf("indexing s2 changed s1: %v %v", names(hits), err)
	}
}

func maxResultsAndFilter(t *testing.T, cfg Config) {
	ctx := context.Background()
	ix := indexed(t, cfg)
	q := cfg.Word("weather")
	hits, err := ix.Search(ctx, toolsearch.SearchRequest{Session: "s1", Query: q, MaxResults: 1})
	if err != nil || len(hits) != 1 {
		t.Errorf("MaxResults 1: %v %v", names(hits), err)
	}
	hits, err = ix.Search(ctx, toolsearch.SearchRequest{Session: "s1", Query: q,
		Filter: func(d tool.Definition) bool { return d.Name != "getWeatherForecast" }})
	if err != nil || len(hits) == 0 || slices.Contains(names(hits), "getWeatherForecast") {
		t.Errorf("Filter dropping getWeatherForecast: %v %v", names(hits), err)
	}
}

func reindex(t *testing.T, cfg Config) {
	if found := indexAndFind(t, cfg, indexed(t, cfg), "s1", Catalog()[1:2]); slices.Contains(found, "getWeatherForecast") {
		t.Errorf("re-indexed session still finds the old set: %v", found)
	}
}

// indexAndFind indexes defs as session's tool set in ix and returns the names a search there for
// cfg.ForecastQuery finds.
func indexAndFind(t *testing.T, cfg Config, ix toolsearch.Index, session string, defs []tool.Definition) []string {
	t.Helper()
	ctx := context.Background()
	if err := ix.IndexTools(ctx, session, defs); err != nil {
		t.Fatal(err)
	}
	hits, err := ix.Search(ctx, toolsearch.SearchRequest{Session: session, Query: cfg.ForecastQuery})
	if err != nil {
		t.Fatal(err)
	}
	return names(hits)
}

func clearSession(t *testing.T, cfg Config) {
	ctx := context.Background()
	ix := indexed(t, cfg)
	if err := ix.IndexTools(ctx, "s2", Catalog()[1:3]); err != nil {
		t.Fatal(err)
	}
	if err := ix.Clear(ctx, "s1"); err != nil {
		t.Fatal(err)
	}
	if _, err := ix.Search(ctx, toolsearch.SearchRequest{Session: "s1", Query: cfg.Word("x")}); !errors.Is(err, toolsearch.ErrUnknownSession) {
		t.Errorf("after Clear: %v, want an error wrapping ErrUnknownSession", err)
	}
	if hits, err := ix.Search(ctx, toolsearch.SearchRequest{Session: "s2", Query: cfg.Word("email")}); err != nil || !slices.Contains(names(hits), "send-email") {
		t.Errorf("Clear(s1) touched s2: %v %v", names(hits), err)
	}
	if err := ix.Clear(ctx, "never-seen"); err != nil {
		t.Errorf("Clear of an unknown session: %v", err)
	}
}

func emptySet(t *testing.T, cfg Config) {
	ctx := context.Background()
	ix := cfg.New()
	if err := ix.IndexTools(ctx, "empty", nil); err != nil {
		t.Fatal(err)
	}
	if hits, err := ix.Search(ctx, toolsearch.SearchRequest{Session: "empty", Query: cfg.ForecastQuery}); err != nil || len(hits) != 0 {
		t.Errorf("empty session: %v %v", names(hits), err)
	}
}

func badSets(t *testing.T, cfg Config) {
	ctx := context.Background()
	ix := cfg.New()
	if err := ix.IndexTools(ctx, "s2", Catalog()[1:3]); err != nil {
		t.Fatal(err)
	}
	c := Catalog()
	if err := ix.IndexTools(ctx, "s2", []tool.Definition{c[0], c[0]}); err == nil || !strings.Contains(err.Error(), "duplicate tool name") {
		t.Errorf("duplicate names: %v, want an error saying duplicate tool name", err)
	}
	if err := ix.IndexTools(ctx, "s2", []tool.Definition{{Description: "x"}}); err == nil {
		t.Error("a tool with an empty name was accepted")
	}
	if hits, _ := ix.Search(ctx, toolsearch.SearchRequest{Session: "s2", Query: cfg.Word("email")}); !slices.Contains(names(hits), "send-email") {
		t.Errorf("a refused IndexTools changed the session: %v", names(hits))
	}
}

func cancelled(t *testing.T, cfg Config) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := cfg.New().IndexTools(ctx, "s3", Catalog()); !errors.Is(err, context.Canceled) {
		t.Errorf("IndexTools with a cancelled context: %v, want context.Canceled", err)
	}
}

// concurrent indexes, searches and clears many sessions at once; half the workers share one
// tool set, the others each add a tool of their own that no other session may find.
func concurrent(t *testing.T, cfg Config) {
	ctx := context.Background()
	ix := cfg.New()
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for w := range 8 {
		wg.Go(func() {
			for i := range 20 {
				session := fmt.Sprintf("w%d-%d", w, i%4)
				tools := Catalog()
				if w%2 == 1 {
					tools = append(tools[1:], catalogtest.Def(fmt.Sprintf("weatherForecastW%d", w), "Own weather forecast tool"))
				}
				if err := ix.IndexTools(ctx, session, tools); err != nil {
					errs <- err
					return
				}
				hits, err := ix.Search(ctx, toolsearch.SearchRequest{Session: session, Query: cfg.ForecastQuery, MaxResults: 10})
				if err != nil && !errors.Is(err, toolsearch.ErrUnknownSession) {
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
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
