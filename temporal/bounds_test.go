package temporal_test

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/client"
	"github.com/wield-ai/wield/internal/testenv"
	"github.com/wield-ai/wield/temporal"
	"github.com/wield-ai/wield/tool"
)

// The tests of this file give a turn what a stranger controls, a model's tool calls, a user's
// message, an application's decisions, at sizes that used to take one of Temporal's payloads
// over the server's limit (2 MB, which fails the workflow task on every attempt: the turn
// hangs) or a workflow task's commands over gRPC's (4 MiB, which terminates the turn).

// sizeTool answers with the size of the path it is given, counting its runs.
func sizeTool(runs *atomic.Int32, opts ...tool.FuncOption) tool.Tool {
	return tool.Must(tool.Func("size", "Measures a path", func(ctx context.Context, in pathIn) (string, error) {
		runs.Add(1)
		return fmt.Sprint(len(in.Path)), nil
	}, opts...))
}

// A call whose arguments are about 1.2 MB: the plan's marker held them twice, over the limit.
// The call runs and the turn answers.
func TestLargeArgumentsGoOn(t *testing.T) {
	tc := dial(t)
	cfg := temporal.Config{TaskQueue: "large-args-" + rand.Text()[:8]}
	var runs atomic.Int32
	path := strings.Repeat("a", 1200<<10)
	m := script(chat.ToolCall{ID: "c1", Name: "size", Arguments: fmt.Sprintf(`{"path":%q}`, path)})
	agent := newClient(m, client.WithTools(sizeTool(&runs)))
	startWorker(t, tc, agent, cfg)
	ctx, turn := startTurn(t, tc, cfg, time.Minute, temporal.Request{Messages: []chat.Message{chat.User("measure")}})
	resp, err := turn.Result(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Text() != fmt.Sprintf("Done: %d", len(path)) || runs.Load() != 1 {
		t.Fatalf("runs %d, answer %.200q", runs.Load(), resp.Text())
	}
	checkReplay(t, tc, agent, cfg, turn.ID(), "large-args")
}

// Tool calls whose arguments, with the conversation, cannot fit the model's next input whatever
// their results: the turn cannot go on with them, and ends with ErrPayloadTooLarge before any
// call runs.
func TestArgumentsOverTheNextInputEndTheTurnBeforeAnyCall(t *testing.T) {
	tc := dial(t)
	cfg := temporal.Config{TaskQueue: "huge-args-" + rand.Text()[:8]}
	var runs atomic.Int32
	m := script(chat.ToolCall{ID: "c1", Name: "size", Arguments: fmt.Sprintf(`{"path":%q}`, strings.Repeat("a", 1600<<10))})
	startWorker(t, tc, newClient(m, client.WithTools(sizeTool(&runs))), cfg)
	ctx, turn := startTurn(t, tc, cfg, time.Minute, temporal.Request{Messages: []chat.Message{chat.User(strings.Repeat("u", 400<<10))}})
	_, err := turn.Result(ctx)
	if !errors.Is(err, temporal.ErrPayloadTooLarge) || !strings.Contains(err.Error(), "the model's tool calls") || !strings.Contains(err.Error(), "no call of the round ran") || runs.Load() != 0 {
		t.Fatalf("runs %d, err = %v", runs.Load(), err)
	}
}

// Eight parallel calls in a turn whose first message is 700 KB: each call's input carried the
// turn's messages, and the workflow task starting them was over gRPC's limit. A call's input
// now carries the turn without its messages.
func TestParallelCallsOfALargeTurn(t *testing.T) {
	tc := dial(t)
	cfg := temporal.Config{TaskQueue: "large-turn-" + rand.Text()[:8]}
	var runs atomic.Int32
	var calls []chat.ToolCall
	for i := range 8 {
		calls = append(calls, chat.ToolCall{ID: fmt.Sprint("c", i), Name: "size", Arguments: fmt.Sprintf(`{"path":"%d"}`, i)})
	}
	agent := newClient(script(calls...), client.WithTools(sizeTool(&runs, tool.ReadOnly())))
	startWorker(t, tc, agent, cfg)
	ctx, turn := startTurn(t, tc, cfg, time.Minute, temporal.Request{Messages: []chat.Message{chat.User(strings.Repeat("u", 700<<10))}})
	resp, err := turn.Result(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Text() != "Done: 1; 1; 1; 1; 1; 1; 1; 1" || runs.Load() != 8 {
		t.Fatalf("runs %d, answer %.200q", runs.Load(), resp.Text())
	}
	checkReplay(t, tc, agent, cfg, turn.ID(), "large-turn")
}

// Sixteen parallel calls of a turn whose tool context is 300 KB: each call's input carries it,
// 4.8 MB together, over what one workflow task may carry. The calls start in batches whose
// inputs stay under the payload bound, and all run.
func TestParallelCallsOverTheMessageLimitStartInBatches(t *testing.T) {
	tc := dial(t)
	cfg := temporal.Config{TaskQueue: "batches-" + rand.Text()[:8]}
	var runs atomic.Int32
	var peak testenv.Peak
	blob := strings.Repeat("k", 300<<10)
	slow := tool.Must(tool.Func("size", "Measures a path", func(ctx context.Context, in pathIn) (string, error) {
		runs.Add(1)
		peak.Enter()
		defer peak.Leave()
		time.Sleep(300 * time.Millisecond)
		if tool.ContextFrom(ctx)["blob"] != blob {
			return "", errors.New("the tool context did not arrive")
		}
		return fmt.Sprint(len(in.Path)), nil
	}, tool.ReadOnly()))
	var calls []chat.ToolCall
	for i := range 16 {
		calls = append(calls, chat.ToolCall{ID: fmt.Sprint("c", i), Name: "size", Arguments: fmt.Sprintf(`{"path":"%02d"}`, i)})
	}
	agent := newClient(script(calls...), client.WithTools(slow))
	startWorker(t, tc, agent, cfg)
	ctx, turn := startTurn(t, tc, cfg, 2*time.Minute, temporal.Request{Messages: []chat.Message{chat.User("measure")}, ToolContext: tool.Context{"blob": blob}})
	resp, err := turn.Result(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Text() != "Done: "+strings.TrimSuffix(strings.Repeat("2; ", 16), "; ") || runs.Load() != 16 {
		t.Fatalf("runs %d, answer %.200q", runs.Load(), resp.Text())
	}
	// 300 KB each: six fit a batch under the bound.
	if peak.Most() > 6 || peak.Most() < 2 {
		t.Fatalf("%d calls ran at once", peak.Most())
	}
	checkReplay(t, tc, agent, cfg, turn.ID(), "batches")
}

// Edited arguments and a restart's data travel in the history and a call's input as a result
// does, and are bounded alike: decisions giving larger ones, or larger together than half the
// payload bound, are refused, and the turn keeps waiting for decisions that fit.
func TestDecisionsArgumentsAndDataAreBounded(t *testing.T) {
	path := strings.Repeat("p", 1500<<10)
	data, _ := json.Marshal(path)
	half, _ := json.Marshal(path[:500<<10-2]) // 500 KiB with its quotes
	text, runs := decideAfterRefusals(t, "big-edit", []refusal{
		{"huge arguments", client.ApproveWith("d1", fmt.Sprintf(`{"path":%q}`, path)), "gives arguments of"},
		{"huge data", client.Decision{CallID: "d1", Kind: client.DecideRestart, Data: data}, "gives data of"},
		{"large together", client.Decision{CallID: "d1", Kind: client.DecideApprove, Arguments: fmt.Sprintf(`{"path":%q}`, path[:500<<10]), Data: half}, "half MaxPayloadBytes"},
	}, client.ApproveWith("d1", `{"path":"/tmp/b"}`))
	if text != "Done: deleted /tmp/b" || len(runs) != 1 || !strings.HasSuffix(runs[0], "/tmp/b") {
		t.Fatalf("response %q, runs %v", text, runs)
	}
}

// refusal is a decision a waiting turn refuses with client.ErrInvalidDecision, saying want.
type refusal struct {
	what string
	d    client.Decision
	want string
}

// decideAfterRefusals starts an approval turn (startApprovalTurn) named name and, once it waits,
// gives it each of refused, which it must refuse and keep waiting, then d; it returns the
// turn's answer and the calls that ran.
func decideAfterRefusals(t *testing.T, name string, refused []refusal, d client.Decision) (string, []string) {
	t.Helper()
	ctx, turn, _, runs := startApprovalTurn(t, dial(t), name, 2*time.Minute)
	st := waitPending(t, ctx, turn)
	for _, r := range refused {
		if err := turn.Decide(ctx, st.Seq, r.d); !errors.Is(err, client.ErrInvalidDecision) || !strings.Contains(err.Error(), r.want) {
			t.Fatalf("%s: %v", r.what, err)
		}
	}
	if again, err := turn.Pending(ctx); err != nil || again == nil || again.Seq != st.Seq {
		t.Fatalf("after refused decisions: %+v, %v", again, err)
	}
	if err := turn.Decide(ctx, st.Seq, d); err != nil {
		t.Fatal(err)
	}
	resp, err := turn.Result(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return resp.Text(), lines(t, runs)
}
