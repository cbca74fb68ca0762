package temporal_test

import (
	"context"
	"crypto/rand"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	enumspb "go.temporal.io/api/enums/v1"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/client"
	"github.com/wield-ai/wield/temporal"
	"github.com/wield-ai/wield/tool"
)

// TestSubAgentChildWorkflows: a sub-agent of a durable turn runs as a child workflow with a
// history of its own. Its tool needs approval: the child ends with its stop, the turn waits with
// the sub-agent's call nested in its pending state, and the decision runs the sub-agent's next
// turn in a second child, where the tool runs once and the sub-agent's own agent runs in a
// grandchild.
// The turn's history replays.
func TestSubAgentChildWorkflows(t *testing.T) {
	tc := dial(t)
	var runs atomic.Int32
	pay := tool.Must(tool.Func("pay", "Pays", func(_ context.Context, in pathIn) (string, error) {
		runs.Add(1)
		return "paid " + in.Path, nil
	}, tool.RequiresApproval()))
	lookup := tool.Must(tool.Func("lookup", "Looks up", func(_ context.Context, in pathIn) (string, error) { return "found " + in.Path, nil }, tool.ReadOnly()))
	clerk := tool.Must(client.AgentTool(newClient(script(chat.ToolCall{ID: "k1", Name: "lookup", Arguments: `{"path":"invoice"}`}), client.WithTools(lookup)), "clerk", "Looks things up"))
	payer := newClient(script(
		chat.ToolCall{ID: "a1", Name: "clerk", Arguments: `{"input":"find the invoice"}`},
		chat.ToolCall{ID: "p1", Name: "pay", Arguments: `{"path":"invoice 7"}`}), client.WithTools(pay, clerk))
	agent := tool.Must(client.AgentTool(payer, "payer", "Pays invoices"))
	parent := newClient(script(chat.ToolCall{ID: "c1", Name: "payer", Arguments: `{"input":"pay invoice 7"}`}), client.WithTools(agent))
	cfg := temporal.Config{TaskQueue: "agents-" + rand.Text()[:8], EventPoll: 20 * time.Millisecond}
	startWorker(t, tc, parent, cfg)
	ctx, turn := startTurn(t, tc, cfg, 2*time.Minute, temporal.Request{Messages: []chat.Message{chat.User("pay invoice 7")}})

	st, err := turn.WaitPending(ctx)
	if err != nil || st == nil {
		t.Fatalf("pending = %+v, %v", st, err)
	}
	p := st.Pending()
	if len(p) != 1 || p[0].Agent != "payer" || p[0].Call.Name != "pay" {
		t.Fatalf("pending calls = %+v", p)
	}
	if runs.Load() != 0 {
		t.Fatal("the tool ran before its approval")
	}
	if err := turn.Decide(ctx, st.Seq, p[0].Approve()); err != nil {
		t.Fatal(err)
	}
	resp, err := turn.Result(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if runs.Load() != 1 || resp.Text() != "Done: Done: Done: found invoice; paid invoice 7" {
		t.Fatalf("runs %d, answer %q", runs.Load(), resp.Text())
	}

	// The turn's events hold its sub-agents', attributed: read after the end, from the children.
	got := map[string]bool{}
	for ev, err := range turn.Events(ctx) {
		if err != nil {
			t.Fatal(err)
		}
		if ev.Tool != nil && ev.Tool.Kind == client.ToolFinished {
			got[ev.Agent()+" "+ev.Tool.Call.Name] = true
		}
	}
	for _, want := range []string{" payer", "payer pay", "payer clerk", "payer/clerk lookup"} {
		if !got[want] {
			t.Fatalf("no finished call %q among the events: %v", want, got)
		}
	}

	// The children: the payer's first turn (with the clerk's in a grandchild), then its resumed one.
	var children []string
	for _, ev := range fetchHistory(t, tc, turn.ID()).Events {
		if ev.EventType == enumspb.EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED {
			children = append(children, ev.GetStartChildWorkflowExecutionInitiatedEventAttributes().WorkflowId)
		}
	}
	if len(children) != 2 || !strings.Contains(children[0], "/agent/") || !strings.HasSuffix(children[1], "/payer") {
		t.Fatalf("child workflows %q", children)
	}
	// The round waits for the decision before any of its calls runs: the clerk's turn is a child
	// of the payer's second.
	var grandchildren []string
	for _, id := range children {
		for _, ev := range fetchHistory(t, tc, id).Events {
			if ev.EventType == enumspb.EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED {
				grandchildren = append(grandchildren, ev.GetStartChildWorkflowExecutionInitiatedEventAttributes().WorkflowId)
			}
		}
	}
	if len(grandchildren) != 1 || !strings.HasSuffix(grandchildren[0], "/agent/1/clerk") {
		t.Fatalf("grandchildren %q", grandchildren)
	}
	checkReplay(t, tc, parent, cfg, turn.ID(), "agents")
	checkReplay(t, tc, parent, cfg, children[1], "agents-child")
}
