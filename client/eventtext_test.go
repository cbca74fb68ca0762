package client

import (
	"testing"

	"github.com/wield-ai/wield/chat"
)

// TestEventTextFirstGeneration: an event's text follows chat.Response.Text's rule, the first
// generation's, so that the streamed texts join to the answer's text and alternatives (Options.N)
// are not interleaved into it.
func TestEventTextFirstGeneration(t *testing.T) {
	two := &chat.Response{Generations: []chat.Generation{
		{Index: 0, Message: chat.Message{Role: chat.RoleAssistant, Content: "first"}},
		{Index: 1, Message: chat.Message{Role: chat.RoleAssistant, Content: "second"}},
	}}
	if got, want := (&Event{Chunk: two}).Text(), two.Text(); got != want {
		t.Errorf("Event.Text of two generations = %q, Response.Text = %q", got, want)
	}
	other := chat.Delta(1, chat.Message{Role: chat.RoleAssistant, Content: "alternative"}, "")
	if got := (&Event{Chunk: other}).Text(); got != "" {
		t.Errorf("Event.Text of the second generation's chunk = %q, want none", got)
	}
	// Streamed chunks of two alternatives, aggregated: the events' texts join to the response's.
	chunks := []*chat.Response{
		chat.Delta(0, chat.Message{Role: chat.RoleAssistant, Content: "Hel"}, ""),
		chat.Delta(1, chat.Message{Role: chat.RoleAssistant, Content: "Bon"}, ""),
		chat.Delta(0, chat.Message{Role: chat.RoleAssistant, Content: "lo"}, chat.FinishStop),
		chat.Delta(1, chat.Message{Role: chat.RoleAssistant, Content: "jour"}, chat.FinishStop),
	}
	var agg chat.Aggregator
	streamed := ""
	for _, c := range chunks {
		streamed += (&Event{Chunk: c}).Text()
		agg.Add(c)
	}
	resp := agg.Response()
	if streamed != resp.Text() || streamed != "Hello" {
		t.Errorf("streamed %q, response %q, want both %q", streamed, resp.Text(), "Hello")
	}
}
