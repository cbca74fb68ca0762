package compact_test

import (
	"context"
	"testing"

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
// and advisor against the same turn without, alternated in one run (target under 1.02).
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
	// the turn's second request (a call and its result), for a
	// steadier figure than the ratio on a loaded machine: divide by the turn's cpu-ns.
	b.Run("check", func(b *testing.B) {
		req := &client.Request{Prompt: chat.Prompt{
			Messages: []chat.Message{chat.User("Weather in Paris?"),
				chat.Assistant("", chat.ToolCall{ID: "c1", Name: "weather", Arguments: `{"city":"Paris"}`}),
				chat.ToolMessage(chat.ToolResult{ID: "c1", Name: "weather", Content: `{"temp":25,"unit":"C"}`})},
			Options: &chat.Options{Model: "gpt-4o", Tools: []tool.Tool{weather}}}}
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
