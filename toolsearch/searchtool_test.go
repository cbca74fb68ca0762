package toolsearch

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/wield-ai/wield/tool"
)

func TestSearchToolCall(t *testing.T) {
	var c calls
	tools := testCatalog(t, &c)
	ix := NewKeywordIndex(nil)
	ctx := context.Background()
	var defs []tool.Definition
	catalog := map[string]tool.Tool{}
	for _, tl := range tools {
		defs = append(defs, tl.Definition())
		catalog[tl.Definition().Name] = tl
	}
	// The index knows one more tool than the turn has: it must not be offered.
	extra := tool.Definition{Name: "weatherRadar", Description: "Weather radar images of a city."}
	if err := ix.IndexTools(ctx, "s", append(slices.Clone(defs), extra)); err != nil {
		t.Fatal(err)
	}
	st := &searchTool{def: SearchToolDefinition(""), index: ix, session: "s", maxResults: 5, catalog: catalog}

	out, err := st.Call(ctx, `{"query":"weather radar forecast"}`)
	if err != nil || strings.Contains(out, "weatherRadar") || !strings.Contains(out, "getWeatherForecast") {
		t.Errorf("Call = %q, %v", out, err)
	}
	// Thirty tools match; the model may not pull more than MaxSearchResults at once.
	many := map[string]tool.Tool{}
	var manyDefs []tool.Definition
	for i := range 30 {
		d := tool.Definition{Name: fmt.Sprintf("report%02d", i), Description: "Builds a sales report."}
		manyDefs = append(manyDefs, d)
		many[d.Name] = tool.Must(tool.New(d, func(context.Context, map[string]any) (any, error) { return nil, nil }))
	}
	if err := ix.IndexTools(ctx, "many", manyDefs); err != nil {
		t.Fatal(err)
	}
	greedy := &searchTool{def: SearchToolDefinition(""), index: ix, session: "many", maxResults: 5, catalog: many}
	if _, err := greedy.Call(ctx, `{"query":"sales report","maxResults":1000}`); err != nil {
		t.Fatal(err)
	}
	if n := len(greedy.discovered()); n != MaxSearchResults {
		t.Errorf("maxResults 1000 found %d tools, want the cap %d", n, MaxSearchResults)
	}
	if _, err := greedy.Call(ctx, `{"query":"sales report","maxResults":2}`); err != nil || len(greedy.discovered()) != MaxSearchResults {
		t.Errorf("found tools are not kept across searches: %d", len(greedy.discovered()))
	}
	// A second search finding the same tool does not list it twice.
	if _, err := st.Call(ctx, `{"query":"weather forecast"}`); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range st.discovered() {
		names = append(names, f.Definition().Name)
	}
	if names[0] != "getWeatherForecast" || slices.Index(names[1:], "getWeatherForecast") >= 0 {
		t.Errorf("found %v: want getWeatherForecast first and once", names)
	}

	for _, bad := range []string{`{`, `{"query":1}`, `{"query":"x","other":1}`, `{"query":"   "}`} {
		if _, err := st.Call(ctx, bad); err == nil {
			t.Errorf("Call(%s) accepted", bad)
		}
	}

	// A query the index refuses is the model's to fix; other index failures are reported too.
	rx := NewRegexIndex()
	if err := rx.IndexTools(ctx, "s", defs); err != nil {
		t.Fatal(err)
	}
	st.index = rx
	if _, err := st.Call(ctx, `{"query":"weather("}`); err == nil || !strings.Contains(err.Error(), "missing closing )") {
		t.Errorf("invalid regex: %v", err)
	}
	st.index = failingIndex{}
	if _, err := st.Call(ctx, `{"query":"x"}`); err == nil || !strings.Contains(err.Error(), "search failed") {
		t.Errorf("failing index: %v", err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := st.Call(cctx, `{"query":"x"}`); err != context.Canceled {
		t.Errorf("cancelled: %v", err)
	}
}

type failingIndex struct{ Index }

func (failingIndex) Search(context.Context, SearchRequest) ([]Hit, error) {
	return nil, fmt.Errorf("backend down")
}
