package temporal_test

import (
	"crypto/rand"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/client"
	"github.com/wield-ai/wield/temporal"
	"github.com/wield-ai/wield/tool"
)

// The tests of this file stop a turn with a round whose calls, results or interrupts are large:
// what the turn waits for, and what it records when the application decides, must still fit
// the server's limits (2 MB for a payload or a query's answer).

// A call waiting for approval with arguments of 1 MiB: the pending state holds them twice (the
// round's message and its call) and its events again, over what a query may answer. Pending,
// WaitPending and Events read it in parts, whole.
func TestLargePendingRoundIsReadInParts(t *testing.T) {
	tc := dial(t)
	cfg := temporal.Config{TaskQueue: "large-pending-" + rand.Text()[:8], EventPoll: 20 * time.Millisecond}
	var runs atomic.Int32
	path := strings.Repeat("a", 1<<20)
	args := fmt.Sprintf(`{"path":%q}`, path)
	m := script(chat.ToolCall{ID: "c1", Name: "size", Arguments: args})
	startWorker(t, tc, newClient(m, client.WithTools(sizeTool(&runs, tool.RequiresApproval()))), cfg)
	ctx, turn := startTurn(t, tc, cfg, 2*time.Minute, temporal.Request{Messages: []chat.Message{chat.User("measure")}})
	st, err := turn.WaitPending(ctx)
	if err != nil || st == nil {
		t.Fatalf("pending = %v, %v", st != nil, err)
	}
	if p := st.Pending(); len(p) != 1 || p[0].Call.ID != "c1" || p[0].Call.Arguments != args || st.Round.Message.ToolCalls[0].Arguments != args || st.Status != client.TurnApproval {
		t.Fatalf("pending calls %d, status %s", len(p), st.Status)
	}
	if again, err := turn.Pending(ctx); err != nil || again == nil || again.Seq != st.Seq || again.Round.Calls[0].Call.Arguments != args {
		t.Fatalf("Pending = %v, %v", again != nil, err)
	}
	var approvals, finished int
	var done *client.Response
	for ev, err := range turn.Events(ctx) {
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case ev.Done != nil:
			done = ev.Done
		case ev.Tool != nil && ev.Tool.Kind == client.ToolApprovalRequired:
			if ev.Tool.Call.Arguments != args {
				t.Fatalf("the approval event's arguments are %d bytes", len(ev.Tool.Call.Arguments))
			}
			approvals++
			if err := turn.Decide(ctx, st.Seq, client.Approve("c1")); err != nil {
				t.Fatal(err)
			}
		case ev.Tool != nil && ev.Tool.Kind == client.ToolFinished:
			finished++
		}
	}
	if done == nil || done.Text() != fmt.Sprintf("Done: %d", len(path)) || approvals != 1 || finished != 1 || runs.Load() != 1 {
		t.Fatalf("approvals %d, finished %d, runs %d, response %v", approvals, finished, runs.Load(), done != nil)
	}
	checkReplay(t, tc, cfg, turn.ID(), "large-pending")
}
