package client_test

import (
	"context"
	"strings"
	"testing"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/chattest"
	"github.com/wield-ai/wield/client"
	"github.com/wield-ai/wield/internal/clienttest"
	"github.com/wield-ai/wield/internal/providertest"
	"github.com/wield-ai/wield/tool"
)

// collect runs a streamed turn and returns its events.
func collect(t *testing.T, s *client.Spec) []*client.Event {
	t.Helper()
	var events []*client.Event
	for ev, err := range s.Stream(context.Background()).Events() {
		if err != nil {
			t.Fatal(err)
		}
		events = append(events, ev)
	}
	return events
}

// A long argument reaches the consumer in pieces, in order, each naming its call, before the
// call starts; two calls of one message keep their fragments apart.
func TestToolCallDeltas(t *testing.T) {
	long := `{"path":"/notes","text":"` + strings.Repeat("abc", 20) + `"}`
	m := chattest.New(
		chattest.Calls(chat.ToolCall{ID: "c1", Name: "write", Arguments: long},
			chat.ToolCall{ID: "c2", Name: "write", Arguments: `{"path":"/b","text":"x"}`}).WithText("Writing."),
		chattest.Text("Done."),
	).WithChunkSize(7)
	write := constTool("write", "ok")
	events := collect(t, clienttest.New(t, m, client.WithTools(write)).Prompt("write"))
	providertest.CheckDeltas(t, events)

	var kinds []string
	pieces := map[string][]string{}
	for _, ev := range events {
		switch {
		case ev.ToolDelta != nil:
			d := ev.ToolDelta
			if d.Name != "write" || ev.Text() != "" {
				t.Fatalf("delta %+v", *d)
			}
			pieces[d.ID] = append(pieces[d.ID], d.Arguments)
			if k := "delta " + d.ID; len(kinds) == 0 || kinds[len(kinds)-1] != k {
				kinds = append(kinds, k)
			}
		case ev.Tool != nil && ev.Tool.Kind == client.ToolStarted:
			kinds = append(kinds, "start "+ev.Tool.Call.ID)
		case ev.Chunk != nil && ev.Text() != "":
			if k := "text"; len(kinds) == 0 || kinds[len(kinds)-1] != k {
				kinds = append(kinds, k)
			}
		}
	}
	if got := strings.Join(kinds, ", "); !strings.HasPrefix(got, "text, delta c1, delta c2, start c") || !strings.HasSuffix(got, ", text") {
		t.Fatalf("event order: %s", got)
	}
	if len(pieces["c1"]) < 10 || strings.Join(pieces["c1"], "") != long {
		t.Fatalf("c1 fragments %q", pieces["c1"])
	}
}

// A sub-agent's fragments are attributed to it, as its other events are.
func TestToolCallDeltasOfSubAgent(t *testing.T) {
	cm := chattest.New(
		chattest.Calls(chattest.Call("write", `{"path":"/notes","text":"a long text"}`)),
		chattest.Text("Written."),
	).WithChunkSize(4)
	child := clienttest.New(t, cm, client.WithTools(constTool("write", "ok")))
	helper := tool.Must(client.AgentTool(child, "helper", "Writes files"))
	pm := chattest.New(
		chattest.Calls(chattest.Call("helper", `{"input":"write the notes"}`)),
		chattest.Text("The helper wrote the notes."),
	).WithChunkSize(4)
	events := collect(t, clienttest.New(t, pm, client.WithTools(helper)).Prompt("notes"))
	providertest.CheckDeltas(t, events)
	own, sub := "", ""
	for _, ev := range events {
		if d := ev.ToolDelta; d != nil {
			switch ev.Agent() {
			case "":
				own += d.Arguments
			case "helper":
				sub += d.Arguments
			default:
				t.Fatalf("delta from %q", ev.Agent())
			}
		}
	}
	if own != `{"input":"write the notes"}` || sub != `{"path":"/notes","text":"a long text"}` {
		t.Fatalf("own %q, sub-agent %q", own, sub)
	}
}

// A call waiting for approval was streamed too; a text consumer sees no fragment.
func TestToolCallDeltasApprovalAndText(t *testing.T) {
	m := chattest.New(chattest.Calls(chattest.Call("rm", `{"path":"/tmp/x"}`))).WithChunkSize(3)
	rm := fileTool("rm", tool.Metadata{RequiresApproval: true})
	events := collect(t, clienttest.New(t, m, client.WithTools(rm)).Prompt("clean"))
	providertest.CheckDeltas(t, events)
	n := 0
	for _, ev := range events {
		if ev.ToolDelta != nil {
			n++
		}
	}
	if n < 5 {
		t.Fatalf("%d fragments", n)
	}

	m2 := chattest.New(chattest.Calls(chattest.Call("echo", `{"text":"hi"}`)), chattest.Text("Said hi.")).WithChunkSize(3)
	var text strings.Builder
	for piece, err := range clienttest.New(t, m2, client.WithTools(constTool("echo", "hi"))).Prompt("x").Stream(context.Background()).Text() {
		if err != nil {
			t.Fatal(err)
		}
		text.WriteString(piece)
	}
	if text.String() != "Said hi." {
		t.Fatalf("text %q", text.String())
	}
}
