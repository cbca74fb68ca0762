package client_test

import (
	"context"
	"testing"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/chattest"
	"github.com/wield-ai/wield/client"
	"github.com/wield-ai/wield/internal/clienttest"
	"github.com/wield-ai/wield/tool"
	"github.com/wield-ai/wield/toolcall"
)

// TestWithoutToolLoopStream: a user-controlled loop on the stream path. The consumer sees the
// tool-call fragments (no loop consumes them), the turn ends with the calls unrun, and the
// caller runs them and streams the next request itself.
func TestWithoutToolLoopStream(t *testing.T) {
	runs := 0
	weather := newTool("weather", func(context.Context, string) (string, error) { runs++; return "sunny", nil })
	m := chattest.New(chattest.Calls(chattest.Call("weather", `{"city":"Oslo"}`)).WithText("checking"), chattest.Text("It is sunny."))
	c := clienttest.New(t, m, client.WithoutToolLoop())
	ctx := context.Background()

	s := c.Prompt("weather?").Tools(weather).Stream(ctx)
	var text, args string
	var calls int
	for ev, err := range s.Events() {
		if err != nil {
			t.Fatal(err)
		}
		if ev.Tool != nil {
			t.Fatalf("tool event %+v without a loop", ev.Tool)
		}
		text += ev.Text()
		if ev.Chunk != nil {
			for _, g := range ev.Chunk.Generations {
				for _, tc := range g.Message.ToolCalls {
					args += tc.Arguments
					calls++
				}
			}
		}
	}
	resp := s.Response()
	if resp == nil || resp.Outcome != client.OutcomeToolCalls || text != "checking" || runs != 0 {
		t.Fatalf("response %+v, text %q, tool runs %d", resp, text, runs)
	}
	if calls == 0 || args != `{"city":"Oslo"}` {
		t.Fatalf("the consumer saw %d call fragments with arguments %q, want the call's", calls, args)
	}
	got := resp.Chat.ToolCalls()
	if len(got) != 1 || got[0].Name != "weather" || got[0].Arguments != `{"city":"Oslo"}` {
		t.Fatalf("calls %+v", got)
	}

	// The caller runs the calls and sends the results back on a second stream.
	mgr := toolcall.New(toolcall.Config{})
	p := &chat.Prompt{Messages: []chat.Message{chat.User("weather?")}, Options: &chat.Options{Tools: []tool.Tool{weather}}}
	result, err := mgr.Execute(ctx, p, resp.Chat)
	if err != nil || runs != 1 {
		t.Fatalf("execute: %v, %d runs", err, runs)
	}
	var answer string
	for chunk, err := range c.Prompt().Messages(result.History...).Tools(weather).Stream(ctx).Text() {
		if err != nil {
			t.Fatal(err)
		}
		answer += chunk
	}
	if answer != "It is sunny." || m.Requests() != 2 || runs != 1 {
		t.Fatalf("answer %q after %d model calls and %d tool runs", answer, m.Requests(), runs)
	}
	if sent := m.Prompt(1).Messages; len(sent) != 3 || sent[2].Role != chat.RoleTool || sent[2].ToolResults[0].Content != "sunny" {
		t.Fatalf("second request %+v", sent)
	}
}
