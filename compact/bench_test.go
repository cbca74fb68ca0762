package compact_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/wield-ai/wield/budget"
	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/chattest"
	"github.com/wield-ai/wield/client"
	"github.com/wield-ai/wield/compact"
	"github.com/wield-ai/wield/internal/benchratio"
	"github.com/wield-ai/wield/tool"
)

// benchModel is the client's turn benchmark's model: one tool call, then text.
func benchModel() *chattest.Model {
	return chattest.New(
		chattest.Calls(chattest.Call("weather", `{"city":"Paris"}`)).WithUsage(20, 5),
		chattest.Text("It is sunny in Paris.").WithUsage(40, 8),
	).Repeat().DiscardPrompts()
}

func benchTurn(b *testing.B, c *client.Client, weather tool.Tool) func() {
	ctx := context.Background()
	return func() {
		text, err := c.Prompt("Weather in Paris?").Tools(weather).Call(ctx).Content()
		if err != nil || text == "" {
			b.Fatal(err, text)
		}
	}
}

// BenchmarkBudgetCheck is the overhead of the compactor on an ordinary turn (the client's
// BenchmarkTurn: one tool round, nothing to cut): ratio is the turn with the compactor's hooks
// and advisor against the same turn without, alternated in one run (target under 1.02);
// control (the turn against itself) shows what the machine's noise leaves of a ratio of 1.
func BenchmarkBudgetCheck(b *testing.B) {
	weather := newTextTool("weather", `{"temp":25,"unit":"C"}`)
	opts := client.WithOptions(&chat.Options{Model: "gpt-4o"})
	plain, err := client.New(benchModel(), opts)
	if err != nil {
		b.Fatal(err)
	}
	cp := compact.New(compact.Config{})
	withBudget, err := client.New(benchModel(), opts, client.WithAdvisors(compactLoop(cp)...))
	if err != nil {
		b.Fatal(err)
	}
	// check is the hooks alone (the budget check before the call, the calibration after it) on
	// the turn's second request (a call and its result), for a steadier figure than the ratio
	// on a loaded machine: twice it (a turn makes two calls) over the turn's cpu-ns.
	b.Run("check", func(b *testing.B) {
		req := &client.Request{Prompt: chat.Prompt{
			Messages: []chat.Message{chat.User("Weather in Paris?"),
				chat.Assistant("", chat.ToolCall{ID: "c1", Name: "weather", Arguments: `{"city":"Paris"}`}),
				chat.ToolMessage(chat.ToolResult{ID: "c1", Name: "weather", Content: `{"temp":25,"unit":"C"}`})},
			Options: &chat.Options{Model: "gpt-4o", Tools: []tool.Tool{weather}}},
			Turn: &client.Turn{}}
		before, after := cp.Hooks().BeforeCall, cp.Hooks().AfterCall
		resp := &client.Response{Chat: &chat.Response{Usage: chat.Usage{InputTokens: 40, OutputTokens: 8}}}
		ctx := context.Background()
		b.ReportAllocs()
		for b.Loop() {
			if _, err := before(ctx, req); err != nil {
				b.Fatal(err)
			}
			if _, err := after(ctx, req, resp); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("ratio", func(b *testing.B) {
		benchratio.Run(b, 32, "turn", benchTurn(b, plain, weather), "budgeted", benchTurn(b, withBudget, weather))
	})
	b.Run("control", func(b *testing.B) {
		benchratio.Run(b, 32, "turn", benchTurn(b, plain, weather), "again", benchTurn(b, plain, weather))
	})
}

// BenchmarkBudgetCheckLong is the compactor's hooks on every call of an ordinary long turn: 40
// rounds of 4 KB results, each round's history built anew as the loop builds it, the last
// requests at about a third of gpt-4o's budget (over the cheap bound of their lengths, under the
// budget) and reported as such by their usage, so calibration reads them too. ns/op is one call.
func BenchmarkBudgetCheckLong(b *testing.B) {
	const rounds = 40
	weather := newTextTool("weather", `{"temp":25,"unit":"C"}`)
	opts := &chat.Options{Model: "gpt-4o", Tools: []tool.Tool{weather}}
	result := strings.Repeat("0123456789abcdef, ", 4096/18)
	reqs := make([]*client.Request, rounds)
	msgs := []chat.Message{chat.System("You answer from the tools' results."), chat.User("Weather in Paris?")}
	for i := range reqs {
		id := fmt.Sprint("c", i)
		next := make([]chat.Message, 0, len(msgs)+2)
		next = append(append(next, msgs...),
			chat.Assistant("", chat.ToolCall{ID: id, Name: "weather", Arguments: `{"city":"Paris"}`}),
			chat.ToolMessage(chat.ToolResult{ID: id, Name: "weather", Content: result}))
		msgs = next
		reqs[i] = &client.Request{Prompt: chat.Prompt{Messages: msgs, Options: opts}}
	}
	// Each response reports the tokens the estimate gives: the calibration's path, no correction.
	resps := make([]*client.Response, rounds)
	for i, req := range reqs {
		used := budget.For(budget.FamilyOpenAI).Prompt(&req.Prompt)
		resps[i] = &client.Response{Chat: &chat.Response{Usage: chat.Usage{InputTokens: used}}}
	}
	cp := compact.New(compact.Config{Family: budget.FamilyOpenAI})
	h := cp.Hooks()
	ctx := context.Background()
	b.ReportAllocs()
	calls := 0
	for b.Loop() {
		turn := &client.Turn{}
		for i, req := range reqs {
			req.Turn = turn
			out, err := h.BeforeCall(ctx, req)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := h.AfterCall(ctx, out, resps[i]); err != nil {
				b.Fatal(err)
			}
			calls++
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(calls), "ns/call")
}

// BenchmarkLongScenarioTokens runs the 200-round scenario with compaction and, as the baseline,
// without it on a model that accepts any size; sent-ratio is the tokens sent in all with
// compaction over those without.
func BenchmarkLongScenarioTokens(b *testing.B) {
	for b.Loop() {
		with := &longModel{}
		if _, _, err := runLong(b, with, compact.New(scripted(compact.Config{}))); err != nil {
			b.Fatal(err)
		}
		without := &longModel{noWindow: true}
		if _, _, err := runLong(b, without, nil); err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(with.sent), "tokens-with")
		b.ReportMetric(float64(without.sent), "tokens-without")
		b.ReportMetric(float64(with.sent)/float64(without.sent), "sent-ratio")
	}
}
