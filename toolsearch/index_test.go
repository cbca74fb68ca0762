package toolsearch

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"github.com/wield-ai/wield/tool"
	"github.com/wield-ai/wield/toolsearch/internal/catalogtest"
)

// def builds a definition whose parameters are given as name, description pairs.
var def = catalogtest.Def

var catalog = catalogtest.Catalog()

// mustIndex indexes defs as the tool set of session in ix, failing t if it cannot.
func mustIndex(t *testing.T, ix Index, session string, defs []tool.Definition) {
	t.Helper()
	if err := ix.IndexTools(context.Background(), session, defs); err != nil {
		t.Fatal(err)
	}
}

func names(hits []Hit) []string {
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = h.Name
	}
	return out
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
		mustIndex(t, ix, fmt.Sprint("s", i), tools)
	}
	if s, sets := ix.store.counts(); s != 10 || sets != 1 {
		t.Fatalf("%d sessions share %d sets, want 10 sharing 1", s, sets)
	}
	changed := slices.Clone(catalog)
	changed[0] = def(changed[0].Name, changed[0].Description, "city", "Another parameter doc")
	mustIndex(t, ix, "s0", changed)
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
