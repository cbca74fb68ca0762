package toolsearch

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/wield-ai/wield/chattest"
	"github.com/wield-ai/wield/client"
	"github.com/wield-ai/wield/internal/clienttest"
	"github.com/wield-ai/wield/tool"
)

// countedTool counts the reads of its definition.
type countedTool struct {
	tool.Tool
	reads *atomic.Int64
}

func (c countedTool) Definition() tool.Definition {
	c.reads.Add(1)
	return c.Tool.Definition()
}

func TestNewCatalog(t *testing.T) {
	var c calls
	tools := testCatalog(t, &c)
	cat, err := NewCatalog(tools...)
	if err != nil {
		t.Fatal(err)
	}
	if cat.Len() != len(tools) || !slices.Equal(cat.Tools(), tools) {
		t.Errorf("Len %d, Tools %d", cat.Len(), len(cat.Tools()))
	}
	cat.Tools()[0] = nil
	if got, ok := cat.Lookup("getWeatherForecast"); !ok || got != tools[0] {
		t.Error("Lookup failed, or Tools returned the catalog's own slice")
	}
	if _, ok := cat.Lookup("nope"); ok {
		t.Error("Lookup found an unknown tool")
	}
	reordered := slices.Clone(tools)
	slices.Reverse(reordered)
	if other, _ := NewCatalog(reordered...); other.key != cat.key {
		t.Error("the same tools in another order make another catalog key")
	}

	search := tool.Must(tool.New(tool.Definition{Name: SearchToolName}, func(context.Context, map[string]any) (any, error) { return nil, nil }))
	for _, tt := range []struct {
		name  string
		tools []tool.Tool
		want  string
	}{
		{"empty", nil, "empty catalog"},
		{"nil tool", []tool.Tool{tools[0], nil}, "tool 1 is nil"},
		{"duplicate", []tool.Tool{tools[0], tools[1], tools[0]}, `two tools named "getWeatherForecast"`},
		{"search tool's name", []tool.Tool{search}, "the search tool's name"},
		{"empty name", []tool.Tool{unnamed{}}, "empty name"},
	} {
		if _, err := NewCatalog(tt.tools...); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want an error with %q", tt.name, err, tt.want)
		}
	}
}

type unnamed struct{ tool.Tool }

func (unnamed) Definition() tool.Definition { return tool.Definition{} }

func TestAdvisorWithCatalog(t *testing.T) {
	var c calls
	ctx := context.Background()
	all := testCatalog(t, &c)
	cat, err := NewCatalog(all[:len(all)-1]...)
	if err != nil {
		t.Fatal(err)
	}
	extra := all[len(all)-1] // a request's own tool, not in the catalog
	ix := &countingIndex{Index: NewKeywordIndex(nil)}
	adv := New(Config{Index: ix, Catalog: cat, Pinned: []string{"send-email", "get_stock_price"}})
	model := chattest.New(
		chattest.Calls(chattest.Call(SearchToolName, `{"queries":["weather forecast","stock price"],"maxResults":1}`)),
		chattest.Calls(chattest.Call("getWeatherForecast", `{"city":"Oslo"}`)),
		chattest.Text("done"),
	)
	cl := clienttest.New(t, model, client.WithAdvisors(adv))
	got, err := cl.Prompt("x").Tools(extra).Param(client.ParamConversationID, "a").Call(ctx).Content()
	if err != nil || got != "done" {
		t.Fatalf("%q, %v", got, err)
	}
	// The request's tool and the pinned tools are sent; the tools found follow the search tool,
	// a pinned tool found again not twice.
	want := [][]string{
		{extra.Definition().Name, "send-email", "get_stock_price", SearchToolName},
		{extra.Definition().Name, "send-email", "get_stock_price", SearchToolName, "getWeatherForecast"},
	}
	for i, w := range want {
		if got := toolNamesOf(model.Prompt(i)); !slices.Equal(got, w) {
			t.Errorf("request %d: tools %v, want %v", i, got, w)
		}
	}
	if c.get("getWeatherForecast") != 1 {
		t.Error("the tool found in the catalog was not called")
	}

	// Every conversation on the catalog shares its index.
	cl = clienttest.New(t, chattest.New(chattest.Text("ok")).Repeat(), client.WithAdvisors(adv))
	for i := range 20 {
		if _, err := cl.Prompt("x").Param(client.ParamConversationID, fmt.Sprint("c", i)).Call(ctx).Content(); err != nil {
			t.Fatal(err)
		}
	}
	if ix.indexed.Load() != 1 {
		t.Errorf("indexed %d times for 21 conversations on one catalog", ix.indexed.Load())
	}

	// A request's tool may not take a catalog tool's name.
	_, err = clienttest.New(t, chattest.New(chattest.Text("x")), client.WithAdvisors(adv)).Prompt("x").Tools(all[0]).Call(ctx).Content()
	if err == nil || !strings.Contains(err.Error(), `tool named "getWeatherForecast" and so has the catalog`) {
		t.Errorf("name clash: %v", err)
	}
}

func TestCatalogParam(t *testing.T) {
	var c calls
	ctx := context.Background()
	all := testCatalog(t, &c)
	small, _ := NewCatalog(all[:3]...)
	big, _ := NewCatalog(all...)
	adv := New(Config{Catalog: small})
	search := func(cat any) string {
		t.Helper()
		model := chattest.New(chattest.Calls(chattest.Call(SearchToolName, `{"query":"filler thing number 7"}`)), chattest.Text("ok"))
		spec := clienttest.New(t, model, client.WithAdvisors(adv)).Prompt("x")
		if cat != nil {
			spec = spec.Param(ParamCatalog, cat)
		}
		if _, err := spec.Call(ctx).Content(); err != nil {
			t.Fatal(err)
		}
		res, _ := lastToolResult(model.Prompt(1))
		return res.Content
	}
	if got := search(nil); strings.Contains(got, "filler07") {
		t.Errorf("the configured catalog has no fillers, found %q", got)
	}
	if got := search(big); !strings.Contains(got, "filler07") {
		t.Errorf("the request's catalog: %q", got)
	}
	_, err := clienttest.New(t, chattest.New(chattest.Text("x")), client.WithAdvisors(adv)).Prompt("x").Param(ParamCatalog, "big").Call(ctx).Content()
	if err == nil || !strings.Contains(err.Error(), ParamCatalog) {
		t.Errorf("a catalog parameter of the wrong type: %v", err)
	}
}

// TestCatalogTurnsDoNotReadTheCatalog checks that a turn on a catalog costs the same whatever
// the catalog's size: after NewCatalog, turns that do not search read no definition of it.
func TestCatalogTurnsDoNotReadTheCatalog(t *testing.T) {
	var reads atomic.Int64
	var tools []tool.Tool
	for i := range 500 {
		d := tool.Definition{Name: fmt.Sprintf("tool%03d", i), Description: fmt.Sprintf("Does thing %d.", i)}
		tools = append(tools, countedTool{tool.Must(tool.New(d, func(context.Context, map[string]any) (any, error) { return nil, nil })), &reads})
	}
	cat, err := NewCatalog(tools...)
	if err != nil {
		t.Fatal(err)
	}
	built := reads.Load()
	adv := New(Config{Catalog: cat})
	model := chattest.New(chattest.Text("ok")).Repeat()
	cl := clienttest.New(t, model, client.WithAdvisors(adv))
	for i := range 10 {
		if _, err := cl.Prompt("x").Param(client.ParamConversationID, fmt.Sprint(i%3)).Call(context.Background()).Content(); err != nil {
			t.Fatal(err)
		}
	}
	if n := reads.Load() - built; n != 0 {
		t.Errorf("10 turns read %d definitions of the catalog", n)
	}
	if got := toolNamesOf(model.Prompt(9)); !slices.Equal(got, []string{SearchToolName}) {
		t.Errorf("tools sent %v", got)
	}
}
