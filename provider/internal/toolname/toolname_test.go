package toolname

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/tool"
)

// The rules as the providers' documentation writes them, to check Rule against.
var documented = map[string]*regexp.Regexp{
	"openai":    regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`),
	"anthropic": regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`),
	"gemini":    regexp.MustCompile(`^[a-zA-Z_][a-zA-Z0-9_.-]{0,63}$`),
}

var rules = map[string]Rule{"openai": OpenAI, "anthropic": Anthropic, "gemini": Gemini}

var long = "github." + strings.Repeat("very_long_segment.", 6) + "list_issues" // 126 bytes

func TestValidMatchesDocumentation(t *testing.T) {
	names := []string{"", "a", "get_weather", "get-weather", "github.list.issues", "ns:tool", "3d_render", "_private",
		"-dash", ".dot", "météo", "天气", "a b", strings.Repeat("x", 63), strings.Repeat("x", 64), strings.Repeat("x", 65), long}
	for provider, re := range documented {
		for _, n := range names {
			if got, want := rules[provider].Valid(n), re.MatchString(n); got != want {
				t.Errorf("%s: Valid(%q) = %v, documentation says %v", provider, n, got, want)
			}
		}
	}
}

func TestWireNames(t *testing.T) {
	hash := func(n string) string { return New(OpenAI).Wire(n)[len(New(OpenAI).Wire(n))-8:] }
	for _, tc := range []struct {
		name  string
		rule  Rule
		names []string
		want  map[string]string
	}{{
		name:  "valid names are kept",
		rule:  OpenAI,
		names: []string{"get_weather", "get-time", "A1"},
		want:  map[string]string{"get_weather": "get_weather", "get-time": "get-time", "A1": "A1"},
	}, {
		name:  "dots become underscores",
		rule:  OpenAI,
		names: []string{"github.list.issues", "fs/read file"},
		want:  map[string]string{"github.list.issues": "github_list_issues", "fs/read file": "fs_read_file"},
	}, {
		name:  "Gemini keeps dots",
		rule:  Gemini,
		names: []string{"github.list.issues", "ns:tool", "3d.render"},
		want:  map[string]string{"github.list.issues": "github.list.issues", "ns:tool": "ns_tool", "3d.render": "_3d.render"},
	}, {
		name:  "accents are dropped",
		rule:  OpenAI,
		names: []string{"météo.du.jour"},
		want:  map[string]string{"météo.du.jour": "meteo_du_jour"},
	}, {
		name:  "a collision with a valid name is hashed",
		rule:  OpenAI,
		names: []string{"a.b", "a_b"},
		want:  map[string]string{"a_b": "a_b", "a.b": "a_b_" + hash("a.b")},
	}, {
		name:  "two names with one replacement are both hashed",
		rule:  OpenAI,
		names: []string{"a.b", "a:b"},
		want:  map[string]string{"a.b": "a_b_" + hash("a.b"), "a:b": "a_b_" + hash("a:b")},
	}, {
		name:  "characters without a transliteration are hashed",
		rule:  OpenAI,
		names: []string{"天气", "get_天气"},
		want:  map[string]string{"天气": "tool_" + hash("天气"), "get_天气": "get_" + hash("get_天气")},
	}, {
		name:  "a long name is cut and hashed",
		rule:  OpenAI,
		names: []string{long},
		want:  map[string]string{long: "github_very_long_segment_very_long_segment_very_long_se_" + hash(long)},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			m := New(tc.rule, tc.names...)
			for n, w := range tc.want {
				if got := m.Wire(n); got != w {
					t.Errorf("Wire(%q) = %q, want %q", n, got, w)
				}
				if got := m.User(w); got != n {
					t.Errorf("User(%q) = %q, want %q", w, got, n)
				}
				if !tc.rule.Valid(w) {
					t.Errorf("wire name %q breaks the rule", w)
				}
			}
		})
	}
}

// TestDeterministic checks that a name's wire name depends on the set of names, not their order,
// and is the same in a new Map.
func TestDeterministic(t *testing.T) {
	names := []string{"a.b", "a:b", "a_b", long, long + "x", "天气", "weather"}
	want := New(OpenAI, names...)
	for i := range names {
		rotated := append(slices.Clone(names[i:]), names[:i]...)
		slices.Reverse(rotated)
		m := New(OpenAI, rotated...)
		for _, n := range names {
			if m.Wire(n) != want.Wire(n) {
				t.Fatalf("order %q: Wire(%q) = %q, want %q", rotated, n, m.Wire(n), want.Wire(n))
			}
		}
	}
}

func TestUnknownNames(t *testing.T) {
	m := New(OpenAI, "a.b")
	if got := m.User("invented"); got != "invented" {
		t.Errorf("User of a name never given out = %q", got)
	}
	if w := m.Wire("x.y"); !OpenAI.Valid(w) || !strings.HasPrefix(w, "x_y_") {
		t.Errorf("Wire of a name the Map was not built with = %q", w)
	}
	var nilMap *Map
	if nilMap.Wire("a.b") != "a.b" || nilMap.User("a_b") != "a_b" || nilMap.Renames() {
		t.Error("the nil Map renames")
	}
	if New(OpenAI, "a", "b").Renames() {
		t.Error("a Map of valid names renames")
	}
}

type named string

func (n named) Definition() tool.Definition                { return tool.Definition{Name: string(n)} }
func (named) Metadata() tool.Metadata                      { return tool.Metadata{} }
func (named) Call(context.Context, string) (string, error) { return "", nil }

func TestForPromptAndRestore(t *testing.T) {
	history := []chat.Message{
		chat.Assistant("", chat.ToolCall{Name: "old.tool", Arguments: "{}"}),
		chat.ToolMessage(chat.ToolResult{Name: "old.result", Content: "ok"}),
	}
	m := ForPrompt(OpenAI, []tool.Tool{named("new.tool"), nil}, history)
	for _, n := range []string{"new.tool", "old.tool", "old.result"} {
		if w := m.Wire(n); w != strings.ReplaceAll(n, ".", "_") {
			t.Errorf("Wire(%q) = %q", n, w)
		}
	}
	r := &chat.Response{Generations: []chat.Generation{
		{Message: chat.Assistant("", chat.ToolCall{Name: "new_tool"}, chat.ToolCall{Name: "other"})},
		{Message: chat.Assistant("", chat.ToolCall{Name: "old_tool"})},
	}}
	m.Restore(r)
	if got := []string{r.ToolCalls()[0].Name, r.ToolCalls()[1].Name, r.ToolCalls()[2].Name}; !slices.Equal(got, []string{"new.tool", "other", "old.tool"}) {
		t.Errorf("restored names %q", got)
	}
	found := &chat.Response{Generations: []chat.Generation{{Message: chat.Message{Role: chat.RoleAssistant,
		ServerTools: []chat.ServerTool{{Provider: "openai", Result: true, Tools: []string{"new_tool", "other"}}}}}}}
	m.Restore(found)
	if got := found.Generations[0].Message.ServerTools[0].Tools; !slices.Equal(got, []string{"new.tool", "other"}) {
		t.Errorf("tools a search loaded, restored: %q", got)
	}
}

// FuzzMap checks, for any set of names, that every wire name obeys the rule, that wire names
// are distinct, and that each maps back to its name.
func FuzzMap(f *testing.F) {
	f.Add("a.b", "a_b", "天气", long)
	f.Add("", "_", "__", "-")
	f.Add("get_weather", "get.weather", "get:weather", "get weather")
	f.Add(strings.Repeat("é", 70), strings.Repeat("e", 70), "x_"+strings.Repeat("0", 8), "x")
	f.Fuzz(func(t *testing.T, a, b, c, d string) {
		names := []string{a, b, c, d}
		for _, rule := range []Rule{OpenAI, Gemini, {Max: 5, Punct: "_"}} {
			m := New(rule, names...)
			seen := map[string]string{}
			for _, n := range names {
				if n == "" {
					continue
				}
				w := m.Wire(n)
				if !rule.Valid(w) {
					t.Fatalf("rule %+v: Wire(%q) = %q breaks the rule", rule, n, w)
				}
				if other, ok := seen[w]; ok && other != n {
					t.Fatalf("rule %+v: %q and %q share the wire name %q", rule, other, n, w)
				}
				seen[w] = n
				if u := m.User(w); u != n {
					t.Fatalf("rule %+v: User(Wire(%q)) = %q", rule, n, u)
				}
			}
		}
	})
}

// BenchmarkNew measures building a request's Map for 50 tools, against the baseline of what every
// provider already does per request with the names: putting them in a set to find duplicates.
func BenchmarkNew(b *testing.B) {
	valid := make([]string, 50)
	dotted := make([]string, 50)
	for i := range valid {
		valid[i] = fmt.Sprintf("server_tool_%d", i)
		dotted[i] = fmt.Sprintf("server.tool.%d", i)
	}
	b.Run("baseline-set", func(b *testing.B) {
		for b.Loop() {
			seen := make(map[string]bool, len(valid))
			for _, n := range valid {
				seen[n] = true
			}
		}
	})
	b.Run("valid", func(b *testing.B) {
		for b.Loop() {
			New(OpenAI, valid...)
		}
	})
	b.Run("dotted", func(b *testing.B) {
		for b.Loop() {
			New(OpenAI, dotted...)
		}
	})
}
