package temporal

import (
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
