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
	mustIndex(t, ix, "s", append(slices.Clone(defs), extra))
	st := &searchTool{def: SearchToolDefinition(""), index: ix, session: "s", maxResults: 5, lookup: mapLookup(catalog)}

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
	mustIndex(t, ix, "many", manyDefs)
	greedy := &searchTool{def: SearchToolDefinition(""), index: ix, session: "many", maxResults: 5, lookup: mapLookup(many)}
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
	mustIndex(t, rx, "s", defs)
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

// multiCatalog is a small catalog of weather tools, mail tools and a translator.
func multiCatalog(t *testing.T) (map[string]tool.Tool, []tool.Definition) {
	t.Helper()
	defs := []tool.Definition{
		{Name: "getWeatherForecast", Description: "Weather forecast for a city: temperature, rain and wind."},
		{Name: "getWeatherAlerts", Description: "Weather alerts for a city: storms and temperature warnings."},
		{Name: "getCityWeatherHistory", Description: "Past weather of a city: temperature and rain by day."},
		{Name: "getWeatherRadar", Description: "Weather radar image of a city region with the forecast."},
		{Name: "sendMail", Description: "Sends a mail."},
		{Name: "readMail", Description: "Reads the mail inbox."},
		{Name: "translateText", Description: "Translates text between languages."},
	}
	catalog := map[string]tool.Tool{}
	for _, d := range defs {
		catalog[d.Name] = tool.Must(tool.New(d, func(context.Context, map[string]any) (any, error) { return "ok", nil }))
	}
	return catalog, defs
}

func TestSearchToolSeveralQueries(t *testing.T) {
	ctx := context.Background()
	catalog, defs := multiCatalog(t)
	ix := NewKeywordIndex(nil)
	mustIndex(t, ix, "s", defs)
	newTool := func(perQuery int) *searchTool {
		return &searchTool{def: SearchToolDefinition(""), index: ix, session: "s", maxResults: perQuery, lookup: mapLookup(catalog)}
	}

	// One query per capability: each gets its best in the first round; readMail, scoring under
	// half of sendMail, waits behind the weather query's close matches.
	st := newTool(2)
	out, err := st.Call(ctx, `{"queries":["weather forecast city temperature", "send mail", "  ", "SEND MAIL"]}`)
	if err != nil {
		t.Fatal(err)
	}
	got := toolNames(st.discovered())
	if len(got) != 4 || !slices.Contains(got[:2], "getWeatherForecast") || !slices.Contains(got[:2], "sendMail") || slices.Contains(got, "readMail") {
		t.Errorf("found %v: want 4 (2 per query, blank and repeated queries dropped), each query's best first, readMail not", got)
	}
	want := "Found 4 tools, callable from your next step:\n\"weather forecast city temperature\": "
	if !strings.HasPrefix(out, want) || !strings.HasSuffix(out, "\n\"send mail\": sendMail") || strings.Contains(out, "SEND MAIL") {
		t.Errorf("report:\n%s", out)
	}

	// A query that finds nothing is reported as such, so the model can search again.
	out, err = newTool(2).Call(ctx, `{"queries":["translate text", "zebra unicorn"]}`)
	if err != nil || !strings.Contains(out, "\"zebra unicorn\": nothing found; search again") || !strings.Contains(out, "\"translate text\": translateText") {
		t.Errorf("report %q, %v", out, err)
	}
	// A query whose tools an earlier query already found says so.
	out, err = newTool(1).Call(ctx, `{"queries":["translate text", "translates text between languages"]}`)
	if err != nil || !strings.Contains(out, "\"translates text between languages\": the same tools as above") {
		t.Errorf("report %q, %v", out, err)
	}
	out, err = newTool(1).Call(ctx, `{"queries":["zebra", "unicorn"]}`)
	if err != nil || out != "No tool found for any query. Search again with other words." {
		t.Errorf("nothing found: %q, %v", out, err)
	}

	// The results of one call stay within MaxSearchResults however many queries and results per
	// query the model asks for.
	greedy := newTool(5)
	if _, err := greedy.Call(ctx, `{"queries":["weather","mail","text","city","forecast","rain","temperature"],"maxResults":20}`); err != nil {
		t.Fatal(err)
	}
	if n := len(greedy.discovered()); n != len(defs) {
		t.Errorf("found %d tools, want the whole small catalog (%d)", n, len(defs))
	}

	for _, bad := range []struct{ args, want string }{
		{`{"queries":[]}`, "no query"},
		{`{"queries":"weather"}`, "invalid arguments"},
		{`{"queries":["a","b","c","d","e","f","g","h","i","j","k"]}`, "11 queries: send at most 10"},
	} {
		if _, err := newTool(2).Call(ctx, bad.args); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("Call(%s) = %v, want an error with %q", bad.args, err, bad.want)
		}
	}
}

func toolNames(tools []tool.Tool) []string {
	var out []string
	for _, t := range tools {
		out = append(out, t.Definition().Name)
	}
	return out
}

// mapLookup looks tools up in a map.
func mapLookup(m map[string]tool.Tool) func(string) (tool.Tool, bool) {
	return func(name string) (tool.Tool, bool) {
		t, ok := m[name]
		return t, ok
	}
}

// The search tool declares itself read-only, so an approval policy that asks before destructive
// calls lets the model search.
func TestSearchToolReadOnly(t *testing.T) {
	m := (&searchTool{}).Metadata()
	if !m.ReadOnly || m.OpenWorld == nil || *m.OpenWorld {
		t.Errorf("metadata %+v", m)
	}
}
