package temporal_test

import (
	"context"
	"crypto/rand"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/chattest"
	"github.com/wield-ai/wield/client"
	"github.com/wield-ai/wield/compact"
	"github.com/wield-ai/wield/temporal"
	"github.com/wield-ai/wield/tool"
)

// TestCompactedTurnContinuesAsNew: a durable turn whose first result was cut by compaction goes
// on in new runs of its workflow, and its last model call still fetches the cut original: the
// compactor's state goes with the turn's state across continue-as-new, the runtime knowing
// nothing of it. Without that carry the fetch finds nothing.
func TestCompactedTurnContinuesAsNew(t *testing.T) {
	const rounds, fact = 12, "the code is 7391-ALPHA"
	read := tool.Must(tool.Func("read", "Reads a file", func(_ context.Context, in pathIn) (string, error) {
		if in.Path == "secret" {
			return strings.Repeat("filler ", 600) + fact, nil
		}
		return "short " + in.Path, nil
	}, tool.ReadOnly()))
	m := chattest.New(chattest.Respond(func(_ context.Context, p *chat.Prompt) (*chat.Response, error) {
		done, fetched := 0, ""
		for _, m := range p.Messages {
			for _, r := range m.ToolResults {
				if r.Name == compact.FetchToolName {
					fetched = r.Content
				} else {
					done++
				}
			}
		}
		msg := chat.Message{Role: chat.RoleAssistant}
		finish := chat.FinishToolCalls
		switch {
		case done < rounds:
			path := fmt.Sprintf("f%d", done)
			if done == 0 {
				path = "secret"
			}
			msg.ToolCalls = []chat.ToolCall{{ID: fmt.Sprintf("c%d", done), Name: "read", Arguments: fmt.Sprintf(`{"path":%q}`, path)}}
		case fetched == "":
			msg.ToolCalls = []chat.ToolCall{{ID: "f", Name: compact.FetchToolName, Arguments: `{"id":"c0","offset":4000}`}}
		default:
			msg.Content, finish = "fetched: "+fetched, chat.FinishStop
		}
		return &chat.Response{Model: "compacting", Generations: []chat.Generation{{Message: msg, FinishReason: finish}}}, nil
	})).Repeat().DiscardPrompts()
	cmp := compact.New(compact.Config{ResultCap: 64})
	c := newClient(m, client.WithTools(read), client.WithAdvisors(client.NewToolLoop(client.ToolLoopConfig{MaxIterations: rounds + 2, Hooks: cmp.Hooks()})))

	tc := dial(t)
	cfg := temporal.Config{TaskQueue: "compact-" + rand.Text()[:8], EventPoll: 20 * time.Millisecond, MaxHistoryEvents: 40}
	startWorker(t, tc, c, cfg)
	ctx, turn := startTurn(t, tc, cfg, 3*time.Minute, temporal.Request{Messages: []chat.Message{chat.User("read them")}})
	resp, err := turn.Result(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(resp.Text(), fact) {
		t.Fatalf("answer %.300q", resp.Text())
	}
	desc, err := tc.DescribeWorkflowExecution(ctx, turn.ID(), "")
	if err != nil {
		t.Fatal(err)
	}
	if first := desc.GetWorkflowExecutionInfo().GetFirstRunId(); first == desc.GetWorkflowExecutionInfo().GetExecution().GetRunId() {
		t.Fatal("the turn ran in one run")
	}
}
