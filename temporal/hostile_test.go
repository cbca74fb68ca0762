package temporal_test

import (
	"context"
	"crypto/rand"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/client"
	"github.com/wield-ai/wield/temporal"
	"github.com/wield-ai/wield/tool"
	"github.com/wield-ai/wield/toolcall"
)

// A model's call id becomes part of the call's activity id. One longer than the server takes
// (a hostile or broken model's) left the turn stuck: its workflow task failed on every attempt,
// and the turn neither ended nor went on.
func TestLongCallIDDoesNotStickTheTurn(t *testing.T) {
	tc := dial(t)
	queue := "long-id-" + rand.Text()[:8]
	cfg := temporal.Config{TaskQueue: queue}
	id := strings.Repeat("é", 2000) // 4,000 bytes
	echo := tool.Must(tool.Func("echo", "Echoes a path", func(ctx context.Context, in pathIn) (string, error) {
		return "read " + in.Path, nil
	}))
	m := script(chat.ToolCall{ID: id, Name: "echo", Arguments: `{"path":"/x"}`})
	startWorker(t, tc, newClient(m, client.WithTools(echo)), cfg)
	ctx, turn := startTurn(t, tc, cfg, 30*time.Second, temporal.Request{Messages: []chat.Message{chat.User("go")}})
	resp, err := turn.Result(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Outcome != client.OutcomeAnswer || resp.Text() != "Done: read /x" || resp.Messages[1].ToolResults[0].ID != id {
		t.Fatalf("outcome %v, answer %.200q", resp.Outcome, resp.Text())
	}
}

// A tool's progress report becomes the call's heartbeat details. One too large for the server, or
// one that JSON cannot encode (NaN), failed every heartbeat: the call was lost after it ran and
// the turn never ended.
func TestHostileProgressDoesNotLoseTheCall(t *testing.T) {
	tc := dial(t)
	queue := "progress-" + rand.Text()[:8]
	cfg := temporal.Config{TaskQueue: queue, HeartbeatTimeout: 2 * time.Second}
	progress := make(chan []temporal.ToolProgress, 1)
	var turn *temporal.Turn
	slow := tool.Must(tool.Func("slow", "Works slowly", func(ctx context.Context, in pathIn) (string, error) {
		tool.ReportProgress(ctx, tool.Progress{Progress: math.NaN(), Total: math.Inf(1), Message: strings.Repeat("p", 3<<20)})
		time.Sleep(4 * time.Second) // two heartbeat timeouts
		p, _ := turn.Progress(ctx)
		progress <- p
		return "worked on " + in.Path, nil
	}))
	m := script(chat.ToolCall{ID: "c1", Name: "slow", Arguments: `{"path":"/x"}`})
	startWorker(t, tc, newClient(m, client.WithTools(slow)), cfg)
	var ctx context.Context
	ctx, turn = startTurn(t, tc, cfg, 40*time.Second, temporal.Request{Messages: []chat.Message{chat.User("go")}})
	resp, err := turn.Result(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Outcome != client.OutcomeAnswer || resp.Text() != "Done: worked on /x" {
		t.Fatalf("outcome %v, answer %.200q", resp.Outcome, resp.Text())
	}
	p := <-progress
	if len(p) != 1 || p[0].Progress == nil || len(p[0].Progress.Message) > 64<<10 || !strings.HasPrefix(p[0].Progress.Message, "ppp") {
		t.Fatalf("progress = %+v", p)
	}
}

// A tool that interrupts the turn with data over Temporal's payload limit had its call lost
// after it ran, as a huge result was: the turn waited for a decision on a call that seemed still
// running. The model now reads that the interrupt was too large, and the turn goes on.
func TestHugeInterruptReachesTheModelAsAnError(t *testing.T) {
	overTheCap(t, "huge-interrupt", func() (string, error) {
		return "", toolcall.InterruptWith("which one?", strings.Repeat("d", 3<<20))
	})
}
