package temporal_test

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	enumspb "go.temporal.io/api/enums/v1"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/chattest"
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

	st := waitPending(t, ctx, turn)
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
	readEvents(t, ctx, turn, func(ev *client.Event) {
		if ev.Tool != nil && ev.Tool.Kind == client.ToolFinished {
			got[ev.Agent()+" "+ev.Tool.Call.Name] = true
		}
	})
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

// fanOut is a model that, asked at "level N" below depth, calls the agent tool fan times at level
// N+1 and answers once their results are in; at depth it answers. Each call counts in calls.
func fanOut(fan, depth int, calls *atomic.Int64) chat.Model {
	return chattest.New(chattest.Respond(func(_ context.Context, p *chat.Prompt) (*chat.Response, error) {
		calls.Add(1)
		level := 0
		for _, m := range p.Messages {
			if m.Role == chat.RoleUser {
				level, _ = strconv.Atoi(strings.TrimPrefix(m.Content, "level "))
			}
		}
		msg, finish := chat.Assistant("done"), chat.FinishStop
		if last := p.Messages[len(p.Messages)-1]; last.Role == chat.RoleUser && level < depth {
			for i := range fan {
				msg.ToolCalls = append(msg.ToolCalls, chat.ToolCall{ID: fmt.Sprintf("call_%d", i), Name: "agent",
					Arguments: fmt.Sprintf(`{"input":"level %d"}`, level+1)})
			}
			msg.Content, finish = "", chat.FinishToolCalls
		}
		return &chat.Response{Model: "script", Generations: []chat.Generation{{Message: msg, FinishReason: finish}},
			Usage: chat.Usage{InputTokens: 10, OutputTokens: 2, TotalTokens: 12}}, nil
	})).Repeat().DiscardPrompts()
}

// TestTreeBudgetAcrossChildWorkflows: sub-agents run as child workflows spend shares of the
// top-level turn's tree budget, and report what they spent: a runaway tree ends with the tree's
// error within the budget, and an ordinary tree's response counts every call of every child.
func TestTreeBudgetAcrossChildWorkflows(t *testing.T) {
	tc := dial(t)
	run := func(t *testing.T, fan, depth int, opts ...client.Option) (*client.Response, error, int64) {
		var calls atomic.Int64
		// A client per level, each offering the next as its agent: a worker finds a child's
		// client by the path of agent names among its clients' own tools.
		c := newClient(fanOut(fan, depth, &calls))
		for range depth {
			agent := tool.Must(client.AgentTool(c, "agent", "a helper"))
			c = newClient(fanOut(fan, depth, &calls), client.WithTools(agent))
		}
		if len(opts) > 0 {
			agent, _ := c.Agent("agent")
			c = newClient(fanOut(fan, depth, &calls), append(opts, client.WithTools(tool.Must(client.AgentTool(agent, "agent", "a helper"))))...)
		}
		cfg := temporal.Config{TaskQueue: "tree-" + rand.Text()[:8], EventPoll: 20 * time.Millisecond}
		startWorker(t, tc, c, cfg)
		ctx, turn := startTurn(t, tc, cfg, 2*time.Minute, temporal.Request{Messages: []chat.Message{chat.User("level 0")}})
		resp, err := turn.Result(ctx)
		return resp, err, calls.Load()
	}
	t.Run("runaway", func(t *testing.T) {
		// In one process each child would start a tree of its own: 53 model calls, and done.
		_, err, calls := run(t, 3, 3, client.WithTreeBudget(client.TreeBudget{ModelCalls: 20}))
		var be *client.TreeBudgetError
		if !errors.Is(err, client.ErrTreeBudget) || !errors.As(err, &be) {
			t.Fatalf("error %v, want the tree's budget spent", err)
		}
		if calls > 20 {
			t.Fatalf("%d model calls under a budget of 20", calls)
		}
		t.Logf("%d model calls; %v", calls, err)
	})
	t.Run("ordinary", func(t *testing.T) {
		resp, err, calls := run(t, 2, 2)
		if err != nil {
			t.Fatal(err)
		}
		want := client.TreeSpent{ModelCalls: 2*(1+2) + 4, ToolCalls: 2 + 4, Tokens: 12 * 10}
		if calls != want.ModelCalls || resp.Tree != want {
			t.Fatalf("%d model calls, the response's tree %+v, want %+v", calls, resp.Tree, want)
		}
	})
}
