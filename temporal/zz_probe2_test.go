package temporal_test

import (
	"context"
	"crypto/rand"
	"strings"
	"testing"
	"time"

	sdkclient "go.temporal.io/sdk/client"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/client"
	"github.com/wield-ai/wield/temporal"
	"github.com/wield-ai/wield/tool"
	"github.com/wield-ai/wield/toolcall"
)

func dumpHistory(t *testing.T, tc sdkclient.Client, id string) {
	it := tc.GetWorkflowHistory(context.Background(), id, "", false, 0)
	for it.HasNext() {
		ev, err := it.Next()
		if err != nil {
			t.Log(err)
			return
		}
		s := ev.String()
		if len(s) > 400 {
			s = s[:400]
		}
		t.Logf("%d %v %s", ev.GetEventId(), ev.GetEventType(), s)
	}
}

func TestZZRoundOverLimit(t *testing.T) {
	tc := dial(t)
	queue := "zz-" + rand.Text()[:8]
	cfg := temporal.Config{TaskQueue: queue}
	echo := tool.Must(tool.Func("echo", "Echo", func(ctx context.Context, in pathIn) (string, error) { return strings.Repeat("r", 450<<10), nil }, tool.ReadOnly()))
	var calls []chat.ToolCall
	for _, id := range []string{"a", "b", "c", "d", "e"} {
		calls = append(calls, chat.ToolCall{ID: id, Name: "echo", Arguments: `{"path":"/x"}`})
	}
	m := script(calls...)
	startWorker(t, tc, newClient(m, client.WithTools(echo)), cfg)
	ctx, turn := startTurn(t, tc, cfg, 20*time.Second, temporal.Request{Messages: []chat.Message{chat.User("go")}})
	n := 0
	for ev, err := range turn.Events(ctx) {
		if err != nil {
			t.Logf("events err: %v", err)
			break
		}
		n++
		_ = ev
	}
	t.Logf("events %d", n)
	resp, err := turn.Result(ctx)
	t.Logf("resp %v err %v", resp != nil, err)
	dumpHistory(t, tc, turn.ID())
}

func TestZZHugeInterrupt(t *testing.T) {
	tc := dial(t)
	queue := "zz-" + rand.Text()[:8]
	cfg := temporal.Config{TaskQueue: queue}
	echo := tool.Must(tool.Func("echo", "Echo", func(ctx context.Context, in pathIn) (string, error) {
		if r, ok := toolcall.Resumed(ctx); ok {
			_ = r
			return "resumed", nil
		}
		return "", toolcall.InterruptWith("need input", strings.Repeat("d", 3<<20))
	}))
	m := script(chat.ToolCall{ID: "c1", Name: "echo", Arguments: `{"path":"/x"}`})
	startWorker(t, tc, newClient(m, client.WithTools(echo)), cfg)
	ctx, turn := startTurn(t, tc, cfg, 20*time.Second, temporal.Request{Messages: []chat.Message{chat.User("go")}})
	st, err := turn.WaitPending(ctx)
	if st != nil {
		for _, c := range st.Round.Calls {
			t.Logf("call %s status %s interrupt %v", c.Call.ID, c.Status, c.Interrupt != nil)
		}
	}
	t.Logf("pending err %v", err)
}
