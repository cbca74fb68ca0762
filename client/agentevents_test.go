package client_test

import (
	"context"
	"testing"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/chattest"
	"github.com/wield-ai/wield/client"
	"github.com/wield-ai/wield/internal/clienttest"
	"github.com/wield-ai/wield/tool"
)

// A tool running an agent of its own sends that agent's events to the calling turn's stream,
// attributed as a sub-agent's; a call that is not streamed has nowhere to send them.
func TestAgentEvents(t *testing.T) {
	var streamed []bool
	remote := tool.Must(tool.Func("remote", "a remote agent", func(ctx context.Context, _ struct{}) (string, error) {
		send, ok := client.AgentEvents(ctx, "remote")
		streamed = append(streamed, ok)
		if !ok {
			return "answer", nil
		}
		text := &chat.Response{Generations: []chat.Generation{{Message: chat.Assistant("working on it")}}}
		if !send(&client.Event{Chunk: text}, "") {
			t.Error("the calling turn refused an event")
		}
		call := chat.ToolCall{ID: "x1", Name: "lookup", Arguments: `{}`}
		send(&client.Event{Tool: &client.ToolEvent{Kind: client.ToolStarted, Call: call}}, "inner")
		send(&client.Event{Done: &client.Response{}}, "") // not sent on
		return "answer", nil
	}))
	m := chattest.New(chattest.Calls(chattest.Call("remote", `{}`)), chattest.Text("done")).Repeat()
	c := clienttest.New(t, m, client.WithTools(remote))
	var got []string
	for ev, err := range c.Prompt("go").Stream(context.Background()).Events() {
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case ev.Agent() != "" && ev.Tool != nil:
			got = append(got, ev.Agent()+" tool "+ev.Tool.Call.Name)
		case ev.Agent() != "":
			got = append(got, ev.Agent()+" text "+ev.Text())
		}
	}
	if want := []string{"remote text working on it", "remote/inner tool lookup"}; len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("events %q, want %q", got, want)
	}
	if _, err := c.Prompt("go").Call(context.Background()).Response(); err != nil {
		t.Fatal(err)
	}
	if len(streamed) != 2 || !streamed[0] || streamed[1] {
		t.Fatalf("streamed %v", streamed)
	}
}

// A tool call run away from its turn's stream gets its agents' events through WithAgentEvents,
// attributed, and their attribution survives JSON.
func TestWithAgentEvents(t *testing.T) {
	inner := tool.Must(tool.Func("lookup", "looks up", func(context.Context, struct{}) (string, error) { return "found", nil }))
	sub := clienttest.New(t, chattest.New(chattest.Calls(chattest.Call("lookup", `{}`)), chattest.Text("sub answer")).Repeat(), client.WithTools(inner))
	at, err := client.AgentTool(sub, "researcher", "researches")
	if err != nil {
		t.Fatal(err)
	}
	var got []*client.Event
	ctx := client.WithAgentEvents(context.Background(), func(ev *client.Event) bool {
		got = append(got, ev)
		return true
	})
	res, err := tool.Invoke(ctx, at, `{"input":"go"}`)
	if err != nil || res.Text != "sub answer" {
		t.Fatalf("result %q, %v", res.Text, err)
	}
	var tools, text int
	for _, ev := range got {
		if ev.Agent() != "researcher" {
			t.Fatalf("event of %q", ev.Agent())
		}
		if ev.Done != nil {
			t.Fatal("a Done event was sent")
		}
		if ev.Tool != nil {
			tools++
		}
		text += len(ev.Text())
	}
	if tools != 2 || text == 0 {
		t.Fatalf("%d tool events, %d bytes of text", tools, text)
	}

	// Without it the call runs unstreamed, as before.
	if res, err := tool.Invoke(context.Background(), at, `{"input":"go"}`); err != nil || res.Text != "sub answer" {
		t.Fatalf("result %q, %v", res.Text, err)
	}

	for _, ev := range []*client.Event{got[0], {Chunk: &chat.Response{Generations: []chat.Generation{{Message: chat.Assistant("own")}}}}} {
		back := roundTrip(t, ev)
		if back.Agent() != ev.Agent() || back.Text() != ev.Text() || (back.Tool == nil) != (ev.Tool == nil) {
			t.Fatalf("agent %q text %q came back as agent %q text %q", ev.Agent(), ev.Text(), back.Agent(), back.Text())
		}
	}
}
