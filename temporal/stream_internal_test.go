package temporal

import (
	"strings"
	"testing"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/client"
)

// TestAfterStreamed: a response's chunk comes without the text shown as it streamed; a lost
// attempt's pieces are followed by the response whole; a tool event ends the call's pieces.
func TestAfterStreamed(t *testing.T) {
	chunk := func(s string) *client.Event {
		return &client.Event{Chunk: &chat.Response{Generations: []chat.Generation{{Message: chat.Assistant(s)}}}}
	}
	ev := chunk("hello world")
	out, left := afterStreamed(ev, "hello ")
	if out.Text() != "world" || left != "" || ev.Text() != "hello world" {
		t.Fatalf("prefix: %q, left %q, original %q", out.Text(), left, ev.Text())
	}
	if out, left := afterStreamed(chunk("goodbye"), "hello "); out.Text() != "goodbye" || left != "" {
		t.Fatalf("lost attempt: %q, left %q", out.Text(), left)
	}
	if out, left := afterStreamed(&client.Event{Tool: &client.ToolEvent{Kind: client.ToolStarted}}, "hello "); out.Tool == nil || left != "" {
		t.Fatalf("tool event: %+v, left %q", out, left)
	}
	if out, left := afterStreamed(chunk("hi"), ""); out.Text() != "hi" || left != "" {
		t.Fatalf("nothing streamed: %q, left %q", out.Text(), left)
	}
}

// TestAgentLog: text not yet sent joins the chunk before it, of the same agent only; a sent
// chunk no longer changes; past the bound the oldest events go, and one over it alone is left
// out.
func TestAgentLog(t *testing.T) {
	var evs []*client.Event
	ctx := client.WithAgentEvents(t.Context(), func(ev *client.Event) bool { evs = append(evs, ev); return true })
	for _, a := range []string{"a", "a", "b"} {
		send, _ := client.AgentEvents(ctx, a)
		send(&client.Event{Chunk: &chat.Response{Generations: []chat.Generation{{Message: chat.Assistant("x")}}}}, "")
	}
	var l agentLog
	l.add(evs[0])
	l.add(evs[1])
	l.add(evs[2])
	var b toolBeat
	if !l.beat(&b) || len(b.Events) != 2 || b.Events[0].Text() != "xx" || b.Events[0].Agent() != "a" || b.Events[1].Agent() != "b" {
		t.Fatalf("joined: %+v", b.Events)
	}
	l.add(evs[2])
	if l.beat(&b); len(b.Events) != 3 || b.Events[1].Text() != "x" {
		t.Fatalf("a sent chunk changed: %d events", len(b.Events))
	}
	if l.beat(&b) {
		t.Fatal("nothing changed, yet the log says so")
	}
	big := strings.Repeat("y", maxAgentBeat/3)
	for range 4 {
		l.add(&client.Event{Tool: &client.ToolEvent{Kind: client.ToolFinished, Result: chat.ToolResult{Content: big}}})
	}
	l.beat(&b)
	if b.First == 0 || l.bytes > maxAgentBeat || b.First+len(b.Events) != 7 {
		t.Fatalf("over the bound: first %d, %d events, %d bytes", b.First, len(b.Events), l.bytes)
	}
	l.add(&client.Event{Tool: &client.ToolEvent{Kind: client.ToolFinished, Result: chat.ToolResult{Content: big + big + big + big}}})
	if l.beat(&b); b.First+len(b.Events) != 7 {
		t.Fatal("an event over the bound alone was kept")
	}
}
