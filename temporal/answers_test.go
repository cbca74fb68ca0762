package temporal_test

import (
	"context"
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
	"github.com/wield-ai/wield/toolcall"
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
	agent := newClient(m, client.WithTools(sizeTool(&runs, tool.RequiresApproval())))
	startWorker(t, tc, agent, cfg)
	ctx, turn := startTurn(t, tc, cfg, 2*time.Minute, temporal.Request{Messages: []chat.Message{chat.User("measure")}})
	st := waitPending(t, ctx, turn)
	if p := st.Pending(); len(p) != 1 || p[0].Call.ID != "c1" || p[0].Call.Arguments != args || st.Round.Message.ToolCalls[0].Arguments != args || st.Status != client.TurnApproval {
		t.Fatalf("pending calls %d, status %s", len(p), st.Status)
	}
	if again, err := turn.Pending(ctx); err != nil || again == nil || again.Seq != st.Seq || again.Round.Calls[0].Call.Arguments != args {
		t.Fatalf("Pending = %v, %v", again != nil, err)
	}
	var approvals, finished int
	done := readEvents(t, ctx, turn, func(ev *client.Event) {
		switch {
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
	})
	if done == nil || done.Text() != fmt.Sprintf("Done: %d", len(path)) || approvals != 1 || finished != 1 || runs.Load() != 1 {
		t.Fatalf("approvals %d, finished %d, runs %d, response %v", approvals, finished, runs.Load(), done != nil)
	}
	checkReplay(t, tc, agent, cfg, turn.ID(), "large-pending")
}

// Four calls with results of 500 KB each and one that interrupts with 200 KB of data: the
// decisions' plans copied the results and the interrupt, and their marker was over the
// server's limit, failing the workflow task on every attempt. The plans now record only what
// the turn does not hold already, and the turn goes on.
func TestDecisionsBesideLargeResultsGoOn(t *testing.T) {
	tc := dial(t)
	cfg := temporal.Config{TaskQueue: "large-decide-" + rand.Text()[:8], EventPoll: 20 * time.Millisecond}
	read := tool.Must(tool.Func("read", "Reads a file", func(ctx context.Context, in pathIn) (string, error) {
		return in.Path + ":" + strings.Repeat("x", 500<<10), nil
	}, tool.ReadOnly()))
	var asked atomic.Int32
	ask := tool.Must(tool.Func("ask", "Asks the user", func(ctx context.Context, in pathIn) (string, error) {
		if r, ok := toolcall.Resumed(ctx); ok {
			return "answered " + string(r.Data), nil
		}
		asked.Add(1)
		return "", toolcall.InterruptWith("which color?", strings.Repeat("d", 200<<10))
	}))
	var calls []chat.ToolCall
	for i := range 4 {
		calls = append(calls, chat.ToolCall{ID: fmt.Sprint("c", i), Name: "read", Arguments: fmt.Sprintf(`{"path":"f%d"}`, i)})
	}
	calls = append(calls, chat.ToolCall{ID: "c4", Name: "ask", Arguments: `{"path":"color"}`})
	m := callsThenCount(calls)
	agent := newClient(m, client.WithTools(read, ask))
	startWorker(t, tc, agent, cfg)
	ctx, turn := startTurn(t, tc, cfg, 2*time.Minute, temporal.Request{Messages: []chat.Message{chat.User("read and ask")}})
	st := waitPending(t, ctx, turn)
	for i, c := range st.Round.Calls[:4] {
		if c.Status != client.CallDone || c.Result == nil || !strings.HasPrefix(c.Result.Content, fmt.Sprintf("f%d:xxx", i)) {
			t.Fatalf("call %d: %s", i, c.Status)
		}
	}
	if c := st.Round.Calls[4]; c.Status != client.CallInterrupted || c.Interrupt == nil || c.Interrupt.Message != "which color?" || len(c.Interrupt.Data) < 200<<10 {
		t.Fatalf("call 4: %s %+v", c.Status, c.Interrupt != nil)
	}
	dctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := turn.Decide(dctx, st.Seq, client.Restart("c4", "", []byte(`"blue"`))); err != nil {
		t.Fatal(err)
	}
	resp, err := turn.Result(ctx)
	if err != nil {
		t.Fatal(err)
	}
	results := resp.Messages[1].ToolResults
	if resp.Text() != "read 5 results" || len(results) != 5 || results[4].Content != `answered "blue"` || asked.Load() != 1 {
		t.Fatalf("results %d, asked %d, answer %.300q", len(results), asked.Load(), resp.Text())
	}
	kept := 0
	for i, r := range results[:4] {
		switch {
		case !r.IsError && strings.HasPrefix(r.Content, fmt.Sprintf("f%d:xxx", i)):
			kept++
		case r.IsError && strings.Contains(r.Content, "too large for the turn"):
		default:
			t.Fatalf("result %d = %.200q", i, r.Content)
		}
	}
	if kept != 3 {
		t.Fatalf("kept %d results", kept)
	}
	checkReplay(t, tc, agent, cfg, turn.ID(), "large-decide")
}

// A call with arguments of 1.2 MB whose tool interrupts with a short question: the interrupt
// was measured with the call's arguments and dropped as too large. It is measured alone, and
// the turn waits for the answer.
func TestSmallInterruptOfALargeCallWaits(t *testing.T) {
	tc := dial(t)
	cfg := temporal.Config{TaskQueue: "large-call-interrupt-" + rand.Text()[:8], EventPoll: 20 * time.Millisecond}
	path := strings.Repeat("a", 1200<<10)
	ask := tool.Must(tool.Func("ask", "Asks the user", func(ctx context.Context, in pathIn) (string, error) {
		if r, ok := toolcall.Resumed(ctx); ok {
			return fmt.Sprintf("%d bytes, %s", len(in.Path), r.Data), nil
		}
		return "", toolcall.Interrupt("which one?")
	}))
	m := script(chat.ToolCall{ID: "c1", Name: "ask", Arguments: fmt.Sprintf(`{"path":%q}`, path)})
	agent := newClient(m, client.WithTools(ask))
	startWorker(t, tc, agent, cfg)
	ctx, turn := startTurn(t, tc, cfg, 2*time.Minute, temporal.Request{Messages: []chat.Message{chat.User("go")}})
	st := waitPending(t, ctx, turn)
	if p := st.Pending(); len(p) != 1 || p[0].Status != client.CallInterrupted || p[0].Interrupt == nil || p[0].Interrupt.Message != "which one?" {
		t.Fatalf("pending = %+v", st.Pending())
	}
	if err := turn.Decide(ctx, st.Seq, client.Restart("c1", "", []byte(`"the first"`))); err != nil {
		t.Fatal(err)
	}
	resp, err := turn.Result(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf(`Done: %d bytes, "the first"`, len(path)); resp.Text() != want {
		t.Fatalf("answer %.300q", resp.Text())
	}
	checkReplay(t, tc, agent, cfg, turn.ID(), "large-call-interrupt")
}

// A payload bound over the default cannot be kept: a workflow task may carry two payloads of
// the bound, and the server takes at most 4 MiB in one gRPC message whatever its payload limit.
// Workers and clients refuse it.
func TestPayloadBoundOverTheDefaultIsRefused(t *testing.T) {
	tc := dial(t)
	cfg := temporal.Config{TaskQueue: "over-bound-" + rand.Text()[:8], MaxPayloadBytes: temporal.DefaultMaxPayloadBytes + 1}
	if _, err := temporal.NewWorker(tc, newClient(script()), cfg); err == nil || !strings.Contains(err.Error(), "MaxPayloadBytes") {
		t.Fatalf("NewWorker: %v", err)
	}
	if _, err := temporal.NewClient(tc, cfg); err == nil || !strings.Contains(err.Error(), "MaxPayloadBytes") {
		t.Fatalf("NewClient: %v", err)
	}
	cfg.MaxPayloadBytes = temporal.DefaultMaxPayloadBytes
	if _, err := temporal.NewWorker(tc, newClient(script()), cfg); err != nil {
		t.Fatal(err)
	}
	if _, err := temporal.NewClient(tc, cfg); err != nil {
		t.Fatal(err)
	}
}
