package client_test

import (
	"context"
	"testing"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/chattest"
	"github.com/wield-ai/wield/client"
	"github.com/wield-ai/wield/internal/benchratio"
	"github.com/wield-ai/wield/internal/clienttest"
	"github.com/wield-ai/wield/tool"
)

// benchModel answers every odd request with one tool call and every even one with text.
func benchModel() *chattest.Model {
	return chattest.New(
		chattest.Calls(chattest.Call("weather", `{"city":"Paris"}`)).WithUsage(20, 5),
		chattest.Text("It is sunny in Paris.").WithUsage(40, 8),
	).Repeat().DiscardPrompts()
}

// turn runs one turn and fails tb if it goes wrong.
type turn func(tb testing.TB)

// baselineTurn does by hand what a client's turn does: a model call asking for one tool, the
// tool call, and a model call that answers.
func baselineTurn(ctx context.Context, weather tool.Tool) turn {
	m := benchModel()
	tools := []tool.Tool{weather}
	return func(tb testing.TB) {
		p := &chat.Prompt{Messages: []chat.Message{chat.User("Weather in Paris?")}, Options: &chat.Options{Tools: tools}}
		r1, err := m.Call(ctx, p)
		if err != nil {
			tb.Fatal(err)
		}
		msgs := toolRound(ctx, tb, weather, p, r1)
		r2, err := m.Call(ctx, &chat.Prompt{Messages: msgs, Options: p.Options})
		if err != nil {
			tb.Fatal(err)
		}
		if r2.Text() == "" {
			tb.Fatal("no answer")
		}
	}
}

// toolRound runs the tool call r1 asks for, by hand, and returns the conversation that follows:
// p's messages, r1's and the tool's result.
func toolRound(ctx context.Context, tb testing.TB, weather tool.Tool, p *chat.Prompt, r1 *chat.Response) []chat.Message {
	call := r1.ToolCalls()[0]
	out, err := weather.Call(ctx, call.Arguments)
	if err != nil {
		tb.Fatal(err)
	}
	return append(p.Messages, r1.Generations[0].Message,
		chat.ToolMessage(chat.ToolResult{ID: call.ID, Name: call.Name, Content: out}))
}

func clientTurn(ctx context.Context, c *client.Client, weather tool.Tool) turn {
	return func(tb testing.TB) {
		text, err := c.Prompt("Weather in Paris?").Tools(weather).Call(ctx).Content()
		if err != nil {
			tb.Fatal(err)
		}
		if text == "" {
			tb.Fatal("no answer")
		}
	}
}

// baselineStreamTurn is baselineTurn over streams: each model stream aggregated by hand, its
// text passed on.
func baselineStreamTurn(ctx context.Context, weather tool.Tool) turn {
	m := benchModel()
	tools := []tool.Tool{weather}
	return func(tb testing.TB) {
		p := &chat.Prompt{Messages: []chat.Message{chat.User("Weather in Paris?")}, Options: &chat.Options{Tools: tools}}
		var text int
		var agg chat.Aggregator
		for c, err := range m.Stream(ctx, p) {
			if err != nil {
				tb.Fatal(err)
			}
			agg.Add(c)
			text += len(c.Text())
		}
		r1 := agg.Response()
		msgs := toolRound(ctx, tb, weather, p, r1)
		var agg2 chat.Aggregator
		for c, err := range m.Stream(ctx, &chat.Prompt{Messages: msgs, Options: p.Options}) {
			if err != nil {
				tb.Fatal(err)
			}
			agg2.Add(c)
			text += len(c.Text())
		}
		if text == 0 || agg2.Response().Text() == "" {
			tb.Fatal("no answer")
		}
	}
}

func clientStreamTurn(ctx context.Context, c *client.Client, weather tool.Tool) turn {
	return func(tb testing.TB) {
		n := 0
		for chunk, err := range c.Prompt("Weather in Paris?").Tools(weather).Stream(ctx).Text() {
			if err != nil {
				tb.Fatal(err)
			}
			n += len(chunk)
		}
		if n == 0 {
			tb.Fatal("no answer")
		}
	}
}

func run(b *testing.B, t turn) {
	b.ReportAllocs()
	for b.Loop() {
		t(b)
	}
}

// benchWeather is the tool every benchmarked turn calls.
func benchWeather() tool.Tool { return constTool("weather", `{"temp":25,"unit":"C"}`) }

// benchTurns runs a turn benchmark's rows: Baseline, a turn done by hand; Client, the same turn
// through a client; ratio, the two alternated in one run.
func benchTurns(b *testing.B, baseline func(context.Context, tool.Tool) turn, withClient func(context.Context, *client.Client, tool.Tool) turn) {
	ctx, weather := context.Background(), benchWeather()
	b.Run("Baseline", func(b *testing.B) { run(b, baseline(ctx, weather)) })
	b.Run("Client", func(b *testing.B) { run(b, withClient(ctx, clienttest.New(b, benchModel()), weather)) })
	b.Run("ratio", func(b *testing.B) {
		base, c := baseline(ctx, weather), withClient(ctx, clienttest.New(b, benchModel()), weather)
		benchratio.Run(b, 32, "baseline", func() { base(b) }, "client", func() { c(b) })
	})
}

// BenchmarkTurn measures one full turn: a model call that asks for one tool, the tool call, and
// a model call that answers. Baseline does the same by hand; the difference is the framework's
// overhead (client, advisor chain, tool loop, manager). ratio alternates the two in one run.
func BenchmarkTurn(b *testing.B) {
	benchTurns(b, baselineTurn, clientTurn)
}

// BenchmarkTurnStream is BenchmarkTurn over streams: the baseline aggregates each model stream
// by hand and passes its text on; the client runs the streaming loop. stream/call compares the
// client's streamed turn with its called one.
func BenchmarkTurnStream(b *testing.B) {
	benchTurns(b, baselineStreamTurn, clientStreamTurn)
	b.Run("stream-vs-call", func(b *testing.B) {
		ctx, weather := context.Background(), benchWeather()
		called := clientTurn(ctx, clienttest.New(b, benchModel()), weather)
		streamed := clientStreamTurn(ctx, clienttest.New(b, benchModel()), weather)
		benchratio.Run(b, 32, "call", func() { called(b) }, "stream", func() { streamed(b) })
	})
}
