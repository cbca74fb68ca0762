package agui_test

import (
	"context"
	"strings"
	"testing"

	"github.com/wield-ai/wield/agui"
	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/chattest"
	"github.com/wield-ai/wield/client"
	"github.com/wield-ai/wield/internal/clienttest"
	"github.com/wield-ai/wield/memory"
	"github.com/wield-ai/wield/tool"
	"github.com/wield-ai/wield/toolcall"
)

// A tool's question is an interrupt the next run answers; a sub-agent's calls are attributed to
// it and its approval is answered through the path of calls leading to it.
func TestInterruptAndSubAgent(t *testing.T) {
	ask := chattest.NewTool("ask", func(context.Context, string) (string, error) {
		return "", toolcall.Interrupt("Which file?")
	})
	write := chattest.NewTool("write", func(context.Context, string) (string, error) { return "written", nil }).
		WithMetadata(tool.Metadata{RequiresApproval: true})
	cm := chattest.New(
		chattest.Calls(chat.ToolCall{ID: "c1", Name: "write", Arguments: `{"path":"/x"}`}),
		chattest.Text("Child wrote."),
	).WithChunkSize(4)
	child := clienttest.New(t, cm, client.WithTools(write))
	helper := tool.Must(client.AgentTool(child, "helper", "Writes"))
	pm := chattest.New(
		chattest.Calls(chat.ToolCall{ID: "p1", Name: "ask", Arguments: `{}`}),
		chattest.Calls(chat.ToolCall{ID: "p2", Name: "helper", Arguments: `{"input":"write /x"}`}),
		chattest.Text("All done."),
	).WithChunkSize(4)
	repo := memory.NewInMemory()
	c := clienttest.New(t, pm, client.WithTools(ask, helper),
		client.WithAdvisors(memory.NewAdvisor(memory.NewWindow(repo, 100), memory.AdvisorConfig{})))
	f := (&fixture{model: pm, repo: repo}).serve(t, agui.Config{}, c)

	evs := run(t, f, input("t5", "r1", "go"))
	in := interrupts(t, evs)
	if len(in) != 1 || in[0]["reason"] != agui.ReasonInterrupt || in[0]["message"] != "Which file?" || in[0]["id"] != "p1" {
		t.Fatalf("interrupts %v", in)
	}
	next := input("t5", "r2", "")
	next["resume"] = []any{map[string]any{"interruptId": "p1", "status": "resolved", "payload": map[string]any{"answer": "/x"}}}
	evs = run(t, f, next)
	in = interrupts(t, evs)
	if len(in) != 1 || in[0]["id"] != "p2/c1" || in[0]["toolCallId"] != "helper:c1" || in[0]["reason"] != agui.ReasonApproval {
		t.Fatalf("interrupts %v", in)
	}
	var subArgs strings.Builder
	for _, e := range evs {
		md, _ := e["metadata"].(map[string]any)
		if e.kind() == "TOOL_CALL_ARGS" && e["toolCallId"] == "helper:c1" {
			if md["agent"] != "helper" {
				t.Fatalf("sub-agent's fragment %v", e)
			}
			subArgs.WriteString(e["delta"].(string))
		}
	}
	if subArgs.String() != `{"path":"/x"}` {
		t.Fatalf("sub-agent's arguments %q", subArgs.String())
	}
	if res := pm.ToolResults(t, 1); len(res) != 1 || res[0].Content != "/x" {
		t.Fatalf("the model read %v", res)
	}
	last := input("t5", "r3", "")
	last["resume"] = []any{map[string]any{"interruptId": "p2/c1", "status": "resolved", "payload": map[string]any{"approved": true}}}
	evs = run(t, f, last)
	if e := evs[len(evs)-1]; e["result"] != "All done." || len(write.Args()) != 1 {
		t.Fatalf("last %v, runs %v", e, write.Args())
	}
}

func interrupts(t *testing.T, evs []event) []map[string]any {
	t.Helper()
	last := evs[len(evs)-1]
	outcome, _ := last["outcome"].(map[string]any)
	if last.kind() != "RUN_FINISHED" || outcome["type"] != "interrupt" {
		t.Fatalf("last event %v", last)
	}
	var out []map[string]any
	for _, i := range outcome["interrupts"].([]any) {
		out = append(out, i.(map[string]any))
	}
	return out
}
