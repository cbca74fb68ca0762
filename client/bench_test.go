package client_test

import (
	"context"
	"testing"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/chattest"
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

// BenchmarkTurn measures one full turn: a model call that asks for one tool, the tool call, and
// a model call that answers. Baseline does the same by hand; the difference is the framework's
// overhead (client, advisor chain, tool loop, manager).
func BenchmarkTurn(b *testing.B) {
	ctx := context.Background()
	weather := constTool("weather", `{"temp":25,"unit":"C"}`)

	b.Run("Baseline", func(b *testing.B) {
		m := benchModel()
		tools := []tool.Tool{weather}
		b.ReportAllocs()
		for b.Loop() {
			p := &chat.Prompt{Messages: []chat.Message{chat.User("Weather in Paris?")}, Options: &chat.Options{Tools: tools}}
			r1, err := m.Call(ctx, p)
			if err != nil {
				b.Fatal(err)
			}
			call := r1.ToolCalls()[0]
			out, err := weather.Call(ctx, call.Arguments)
			if err != nil {
				b.Fatal(err)
			}
			msgs := append(p.Messages, r1.Generations[0].Message,
				chat.ToolMessage(chat.ToolResult{ID: call.ID, Name: call.Name, Content: out}))
			r2, err := m.Call(ctx, &chat.Prompt{Messages: msgs, Options: p.Options})
			if err != nil {
				b.Fatal(err)
			}
			if r2.Text() == "" {
				b.Fatal("no answer")
			}
		}
	})

	b.Run("Client", func(b *testing.B) {
		c := clienttest.New(b, benchModel())
		b.ReportAllocs()
		for b.Loop() {
			text, err := c.Prompt("Weather in Paris?").Tools(weather).Call(ctx).Content()
			if err != nil {
				b.Fatal(err)
			}
			if text == "" {
				b.Fatal("no answer")
			}
		}
	})
}

// BenchmarkTurnStream is BenchmarkTurn over streams: the baseline aggregates each model stream
// by hand and passes its text on; the client runs the streaming loop.
func BenchmarkTurnStream(b *testing.B) {
	ctx := context.Background()
	weather := constTool("weather", `{"temp":25,"unit":"C"}`)

	b.Run("Baseline", func(b *testing.B) {
		m := benchModel()
		tools := []tool.Tool{weather}
		b.ReportAllocs()
		for b.Loop() {
			p := &chat.Prompt{Messages: []chat.Message{chat.User("Weather in Paris?")}, Options: &chat.Options{Tools: tools}}
			var text int
			var agg chat.Aggregator
			for c, err := range m.Stream(ctx, p) {
				if err != nil {
					b.Fatal(err)
				}
				agg.Add(c)
				text += len(c.Text())
			}
			r1 := agg.Response()
			call := r1.ToolCalls()[0]
			out, err := weather.Call(ctx, call.Arguments)
			if err != nil {
				b.Fatal(err)
			}
			msgs := append(p.Messages, r1.Generations[0].Message,
				chat.ToolMessage(chat.ToolResult{ID: call.ID, Name: call.Name, Content: out}))
			var agg2 chat.Aggregator
			for c, err := range m.Stream(ctx, &chat.Prompt{Messages: msgs, Options: p.Options}) {
				if err != nil {
					b.Fatal(err)
				}
				agg2.Add(c)
				text += len(c.Text())
			}
			if text == 0 || agg2.Response().Text() == "" {
				b.Fatal("no answer")
			}
		}
	})

	b.Run("Client", func(b *testing.B) {
		c := clienttest.New(b, benchModel())
		b.ReportAllocs()
		for b.Loop() {
			n := 0
			for chunk, err := range c.Prompt("Weather in Paris?").Tools(weather).Stream(ctx).Text() {
				if err != nil {
					b.Fatal(err)
				}
				n += len(chunk)
			}
			if n == 0 {
				b.Fatal("no answer")
			}
		}
	})
}
