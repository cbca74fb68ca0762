package toolsearch

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/wield-ai/wield/chattest"
	"github.com/wield-ai/wield/client"
	"github.com/wield-ai/wield/internal/clienttest"
	"github.com/wield-ai/wield/tool"
)

func printOf(defs []tool.Definition, prev *fingerprint) *fingerprint {
	p := printer{prev: prev}
	for i, d := range defs {
		p.add(i, d)
	}
	return p.done()
}

// A fingerprint's key is the content key of the definitions it was given, whatever the
// fingerprint it was compared with; the same definitions give back the fingerprint itself.
func TestFingerprint(t *testing.T) {
	base := slices.Clone(catalog)
	fp := printOf(base, nil)
	if fp.key != contentKey(base) {
		t.Fatal("key differs from contentKey")
	}
	if again := printOf(slices.Clone(base), fp); again != fp {
		t.Error("the same definitions in a new slice: a new fingerprint")
	}
	// Equal content in other memory: compared in full, still the same.
	copied := make([]tool.Definition, len(base))
	for i, d := range base {
		copied[i] = tool.Definition{Name: strings.Clone(d.Name), Description: strings.Clone(d.Description), InputSchema: slices.Clone(d.InputSchema)}
	}
	if printOf(copied, fp) != fp {
		t.Error("equal definitions in other memory: a new fingerprint")
	}
	edits := map[string]func([]tool.Definition) []tool.Definition{
		"description": func(d []tool.Definition) []tool.Definition { d[3].Description += "!"; return d },
		"name":        func(d []tool.Definition) []tool.Definition { d[0].Name = "renamed"; return d },
		"schema": func(d []tool.Definition) []tool.Definition {
			d[len(d)-1].InputSchema = def("x", "", "other", "param").InputSchema
			return d
		},
		"output schema": func(d []tool.Definition) []tool.Definition {
			d[2].OutputSchema = def("x", "", "returned").InputSchema
			return d
		},
		"reversed":      func(d []tool.Definition) []tool.Definition { slices.Reverse(d); return d },
		"appended":      func(d []tool.Definition) []tool.Definition { return append(d, def("extra", "An extra tool.")) },
		"removed":       func(d []tool.Definition) []tool.Definition { return d[:len(d)-2] },
		"first removed": func(d []tool.Definition) []tool.Definition { return d[1:] },
		"swapped two": func(d []tool.Definition) []tool.Definition {
			d[1], d[2] = d[2], d[1]
			return d
		},
	}
	for name, edit := range edits {
		changed := edit(slices.Clone(base))
		got := printOf(changed, fp)
		if got.key != contentKey(changed) {
			t.Errorf("%s: key is not the content key of the definitions", name)
		}
		if name != "reversed" && name != "swapped two" && got.key == fp.key {
			t.Errorf("%s: the change went unnoticed", name)
		}
		if name == "reversed" && got.key != fp.key {
			t.Error("reversed: the key depends on order")
		}
		// And back again, compared with the changed fingerprint.
		if back := printOf(base, got); back.key != fp.key {
			t.Errorf("%s: back to the first tools, another key", name)
		}
	}
}

// Random sequences of edits: the key always equals the content key computed from scratch.
func TestFingerprintRandomEdits(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	pool := newSynthetic(60, 1, 11).tools
	cur := slices.Clone(pool[:30])
	var fp *fingerprint
	for step := range 2000 {
		switch r.IntN(6) {
		case 0: // change a description
			i := r.IntN(len(cur))
			cur[i].Description = fmt.Sprintf("changed %d", step)
		case 1: // replace a tool
			cur[r.IntN(len(cur))] = pool[r.IntN(len(pool))]
		case 2: // swap two
			i, j := r.IntN(len(cur)), r.IntN(len(cur))
			cur[i], cur[j] = cur[j], cur[i]
		case 3: // append
			cur = append(cur, pool[r.IntN(len(pool))])
		case 4: // drop the last
			if len(cur) > 1 {
				cur = cur[:len(cur)-1]
			}
		case 5: // nothing
		}
		next := printOf(slices.Clone(cur), fp)
		if next.key != contentKey(cur) {
			t.Fatalf("step %d: key differs from the content key", step)
		}
		fp = next
	}
}

// mutableTool returns whatever definition it holds now: the same tool value with a new
// description.
type mutableTool struct {
	tool.Tool
	def atomic.Pointer[tool.Definition]
}

func (m *mutableTool) Definition() tool.Definition { return *m.def.Load() }

// The advisor notices a changed catalog however it changed (a tool value replaced, or the same
// value with a new definition), in a conversation and outside one, and indexes an unchanged
// catalog once.
func TestAdvisorNoticesChangedTools(t *testing.T) {
	for _, conv := range []string{"conversation", ""} {
		t.Run(fmt.Sprintf("conversation=%q", conv), func(t *testing.T) {
			var c calls
			ctx := context.Background()
			ix := &countingIndex{Index: NewKeywordIndex(nil)}
			model := chattest.New(agent("meteorology", "Weather", `{"city":"Oslo"}`)).Repeat()
			cl := clienttest.New(t, model, client.WithAdvisors(New(Config{Index: ix})))
			tools := testCatalog(t, &c)
			weather := &mutableTool{Tool: tools[0]}
			d := tools[0].Definition()
			d.Description = "Returns the temperature of a town."
			weather.def.Store(&d)
			tools[0] = weather
			turn := func() string {
				t.Helper()
				s := cl.Prompt("x").Tools(toTools(tools)...)
				if conv != "" {
					s = s.Param(client.ParamConversationID, conv)
				}
				got, err := s.Call(ctx).Content()
				if err != nil {
					t.Fatal(err)
				}
				return got
			}
			if got := turn(); !strings.HasPrefix(got, "no tool found") {
				t.Fatalf("found a tool before its description says meteorology: %q", got)
			}
			turn()
			if n := ix.indexed.Load(); n != 1 {
				t.Fatalf("indexed %d times for one unchanged tool set", n)
			}
			d2 := d
			d2.Description = "Meteorology of tomorrow in a city."
			weather.def.Store(&d2) // the same tool value, a new definition
			if got := turn(); got != "answer: sunny in Oslo" {
				t.Errorf("after the description changed: %q", got)
			}
			if n := ix.indexed.Load(); n != 2 {
				t.Errorf("indexed %d times, want 2 (the changed set)", n)
			}
		})
	}
}
