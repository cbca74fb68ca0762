package compact

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/wield-ai/wield/budget"
	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/content"
	"github.com/wield-ai/wield/tool"
)

type defTool tool.Definition

func (d defTool) Definition() tool.Definition                { return tool.Definition(d) }
func (defTool) Metadata() tool.Metadata                      { return tool.Metadata{} }
func (defTool) Call(context.Context, string) (string, error) { return "", nil }

var families = []budget.Family{budget.FamilyGeneric, budget.FamilyOpenAI, budget.FamilyAnthropic, budget.FamilyGemini, budget.FamilyBedrock, budget.FamilyOllama}

// randomText mixes ASCII with two-, three- and four-byte runes.
func randomText(r *rand.Rand, n int) string {
	alphabet := []string{"a", "{", " ", "\n", "é", "ж", "中", "😀"}
	var b strings.Builder
	for range n {
		b.WriteString(alphabet[r.IntN(len(alphabet))])
	}
	return b.String()
}

// randomMessage is a message of every kind of text the estimate counts.
func randomMessage(r *rand.Rand, i int) chat.Message {
	text := func() string { return randomText(r, r.IntN(300)) }
	switch i % 4 {
	case 0:
		return chat.User(text(), content.Text(text()))
	case 1:
		m := chat.Assistant(text(), chat.ToolCall{ID: fmt.Sprint("c", i), Name: "search", Arguments: text()})
		m.Reasoning = []chat.Reasoning{{Provider: "p", Text: text(), Encrypted: text(), Signature: text()}}
		m.ServerTools = []chat.ServerTool{{Provider: "p", Name: "tool_search", Arguments: text(), Tools: []string{"a", "b"}}}
		return m
	case 2:
		return chat.ToolMessage(chat.ToolResult{ID: fmt.Sprint("c", i-1), Name: "search", Content: text(), Parts: []content.Part{content.Text(text())}})
	}
	return chat.System(text())
}

// The one pass over lengths bounds every family's estimate of text from above, media aside.
func TestQuickBoundsEveryEstimate(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for round := range 200 {
		var msgs []chat.Message
		for i := range r.IntN(12) {
			msgs = append(msgs, randomMessage(r, i))
		}
		schema, _ := json.Marshal(map[string]string{"type": "object", "description": randomText(r, 50)})
		p := &chat.Prompt{Messages: msgs, Options: &chat.Options{Tools: []tool.Tool{
			defTool{Name: "search", Description: randomText(r, 80), InputSchema: schema}}}}
		n, found := quick(p, 1<<30)
		if found != 0 {
			t.Fatalf("round %d: found %b in text only", round, found)
		}
		for _, f := range families {
			if est := budget.For(f).Prompt(p); est > n {
				t.Fatalf("round %d, family %q: estimate %d over the bound %d", round, f, est, n)
			}
		}
	}
	// Each kind of text alone, long enough that leaving it out of the bound shows.
	long := strings.Repeat("abcd", 500)
	for name, m := range map[string]chat.Message{
		"content":     chat.User(long),
		"text part":   chat.User("", content.Text(long)),
		"call":        chat.Assistant("", chat.ToolCall{Name: "t", Arguments: long}),
		"result":      chat.ToolMessage(chat.ToolResult{Name: "t", Content: long}),
		"result part": chat.ToolMessage(chat.ToolResult{Name: "t", Parts: []content.Part{content.Text(long)}}),
		"reasoning":   {Role: chat.RoleAssistant, Reasoning: []chat.Reasoning{{Text: long}}},
		"encrypted":   {Role: chat.RoleAssistant, Reasoning: []chat.Reasoning{{Encrypted: long + long + long + long + long}}},
		"server tool": {Role: chat.RoleAssistant, ServerTools: []chat.ServerTool{{Name: "tool_search", Arguments: long}}},
		"found tools": {Role: chat.RoleAssistant, ServerTools: []chat.ServerTool{{Name: "tool_search", Tools: make([]string, 500)}}},
	} {
		p := &chat.Prompt{Messages: []chat.Message{m}}
		n, _ := quick(p, 1<<30)
		for _, f := range families {
			if est := budget.For(f).Prompt(p); est > n {
				t.Fatalf("%s, family %q: estimate %d over the bound %d", name, f, est, n)
			}
		}
	}
	tools := &chat.Prompt{Options: &chat.Options{Tools: []tool.Tool{defTool{Name: "t", Description: long, InputSchema: json.RawMessage(`"` + long + `"`)}}}}
	if n, _ := quick(tools, 1<<30); budget.For(budget.FamilyGeneric).Prompt(tools) > n {
		t.Fatalf("a tool's definition: the bound %d under the estimate", n)
	}
	img := &chat.Prompt{Messages: []chat.Message{chat.User("see", content.Image([]byte("\x89PNG"), "image/png"))}}
	if _, found := quick(img, 1<<30); found != foundMedia {
		t.Errorf("an image: found %b, want foundMedia", found)
	}
	native := &chat.Prompt{Messages: []chat.Message{{Role: chat.RoleAssistant, ServerTools: []chat.ServerTool{{Name: NativeCompaction}}}}}
	if _, found := quick(native, 1<<30); found != foundNative {
		t.Errorf("a compaction item: found %b, want foundNative", found)
	}
	over := &chat.Prompt{Messages: []chat.Message{chat.ToolMessage(chat.ToolResult{ID: "c", Content: "0123456789"})}}
	if _, found := quick(over, 9); found != foundLong {
		t.Errorf("a result over the cap's bytes: found %b, want foundLong", found)
	}
}

// The turn's estimate of a request is always the whole estimate: as the loop copies and extends
// its history, as compaction replaces a message or the start, as the tools change.
func TestSizesIsTheWholeEstimate(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	e := budget.For(budget.FamilyAnthropic)
	var s sizes
	tools := []tool.Tool{defTool{Name: "search", Description: "finds", InputSchema: json.RawMessage(`{"type":"object"}`)}}
	check := func(step string, p *chat.Prompt) {
		t.Helper()
		if got, want := s.raw(e, p), e.Prompt(p); got != want {
			t.Fatalf("%s: estimate %d, want %d", step, got, want)
		}
	}
	p := &chat.Prompt{Messages: []chat.Message{chat.System("be brief"), chat.User("find it")}, Options: &chat.Options{Tools: tools}}
	check("first", p)
	for round := range 20 {
		p = &chat.Prompt{Messages: nextRound(p.Messages, randomMessage(r, 1), randomMessage(r, 2)), Options: p.Options}
		check(fmt.Sprint("round ", round), p)
	}
	// A result compacted in a copy of its message.
	h := slices.Clone(p.Messages)
	h[3] = cloneResults(h[3])
	h[3].ToolResults[0].Content = "[cleared]"
	p = &chat.Prompt{Messages: h, Options: p.Options}
	check("a result cleared", p)
	// A summary in place of the start.
	p = &chat.Prompt{Messages: append([]chat.Message{chat.User("[summary]")}, h[10:]...), Options: p.Options}
	check("summarised", p)
	// More tools, and the same request shorter.
	p = &chat.Prompt{Messages: p.Messages[:3], Options: &chat.Options{Tools: append(slices.Clone(tools), tools[0])}}
	check("tools added, history cut", p)
	p = &chat.Prompt{Messages: p.Messages}
	check("no options", p)
}

// nextRound is how the loop builds a round's history: a copy of the messages sent, and the round.
func nextRound(sent []chat.Message, round ...chat.Message) []chat.Message {
	next := make([]chat.Message, 0, len(sent)+len(round))
	return append(append(next, sent...), round...)
}

// What the turn estimated of a message is reused while the message is the same, and only then.
func TestSizesReusesTheSameMessages(t *testing.T) {
	e := budget.For(budget.FamilyOpenAI)
	var s sizes
	first := []chat.Message{chat.User("find it"), chat.Assistant("", chat.ToolCall{ID: "c1", Name: "search", Arguments: "{}"})}
	s.raw(e, &chat.Prompt{Messages: first})
	s.msgs[1].raw += 1000 // marks the assistant message's estimate
	next := nextRound(first, chat.ToolMessage(chat.ToolResult{ID: "c1", Name: "search", Content: "found"}))
	if got, want := s.raw(e, &chat.Prompt{Messages: next}), e.Prompt(&chat.Prompt{Messages: next})+1000; got != want {
		t.Fatalf("a copied history extended: %d, want %d (the copied messages' estimate reused)", got, want)
	}
	changed := slices.Clone(next)
	changed[1].ToolCalls = []chat.ToolCall{{ID: "c1", Name: "search", Arguments: `{"q":1}`}}
	if got, want := s.raw(e, &chat.Prompt{Messages: changed}), e.Prompt(&chat.Prompt{Messages: changed}); got != want {
		t.Fatalf("a message changed in a copy: %d, want %d (estimated again)", got, want)
	}
}
