package client_test

import (
	"context"
	"strings"
	"testing"

	"github.com/wield-ai/wield/chattest"
	"github.com/wield-ai/wield/client"
	"github.com/wield-ai/wield/internal/clienttest"
)

// TestToolArgumentsStream: a stream's consumer sees each call's arguments as the model writes
// them, in order, with the call's id and name on every fragment, before the call starts; a
// sub-agent's come attributed to it; a text consumer sees none.
func TestToolArgumentsStream(t *testing.T) {
	long := `{"path":"notes.txt","content":"` + strings.Repeat("line of text ", 20) + `"}`
	inner := chattest.New(chattest.Calls(chattest.Call("write", long)), chattest.Text("written")).WithChunkSize(7)
	sub, err := client.AgentTool(clienttest.New(t, inner, client.WithTools(constTool("write", "ok"))), "writer", "writes files")
	if err != nil {
		t.Fatal(err)
	}
	outer := chattest.New(
		chattest.Calls(chattest.Call("writer", `{"input":"write the notes"}`), chattest.Call("read", `{"path":"a"}`)),
		chattest.Text("done")).WithChunkSize(5)
	c := clienttest.New(t, outer, client.WithTools(sub, constTool("read", "contents")))

	type call struct {
		id, name string
		args     strings.Builder
		frags    int
		started  bool
	}
	calls := map[string]*call{} // by agent and name
	for ev, err := range c.Prompt("go").Stream(context.Background()).Events() {
		if err != nil {
			t.Fatal(err)
		}
		if ev.Tool == nil {
			continue
		}
		key := ev.Agent() + "/" + ev.Tool.Call.Name
		switch ev.Tool.Kind {
		case client.ToolArguments:
			if ev.Tool.Call.ID == "" || ev.Tool.Call.Name == "" {
				t.Fatalf("a fragment without the call's id or name: %+v", ev.Tool.Call)
			}
			cl := calls[key]
			if cl == nil {
				cl = &call{id: ev.Tool.Call.ID, name: ev.Tool.Call.Name}
				calls[key] = cl
			}
			if cl.started {
				t.Fatalf("a fragment of %s after it started", key)
			}
			if cl.id != ev.Tool.Call.ID {
				t.Fatalf("fragments of %s under ids %s and %s", key, cl.id, ev.Tool.Call.ID)
			}
			cl.args.WriteString(ev.Tool.Call.Arguments)
			cl.frags++
		case client.ToolStarted:
			cl := calls[key]
			if cl == nil {
				t.Fatalf("%s started with no fragment before", key)
			}
			cl.started = true
			if cl.args.String() != ev.Tool.Call.Arguments {
				t.Fatalf("%s: fragments joined %q, the call's arguments %q", key, cl.args.String(), ev.Tool.Call.Arguments)
			}
		}
	}
	for key, want := range map[string]string{"/writer": `{"input":"write the notes"}`, "/read": `{"path":"a"}`, "writer/write": long} {
		cl := calls[key]
		if cl == nil || !cl.started || cl.args.String() != want || cl.frags < 2 {
			t.Fatalf("%s: %+v", key, cl)
		}
	}

	// A text consumer gets text only.
	m := chattest.New(chattest.Calls(chattest.Call("read", `{"path":"a"}`)), chattest.Text("read it")).WithChunkSize(3)
	var text strings.Builder
	for chunk, err := range clienttest.New(t, m, client.WithTools(constTool("read", "x"))).Prompt("go").Stream(context.Background()).Text() {
		if err != nil {
			t.Fatal(err)
		}
		text.WriteString(chunk)
	}
	if text.String() != "read it" {
		t.Fatalf("text %q", text.String())
	}
}
