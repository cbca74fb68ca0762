package a2a

import (
	"context"
	"iter"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	sdk "github.com/a2aproject/a2a-go/a2a"

	"github.com/wield-ai/wield/client"
)

// recordingRunner records the runs a server asks of its runner.
type recordingRunner struct {
	inner Runner
	mu    sync.Mutex
	runs  []TurnRun
}

func (r *recordingRunner) Run(ctx context.Context, tr TurnRun) iter.Seq2[*client.Event, error] {
	r.mu.Lock()
	r.runs = append(r.runs, tr)
	r.mu.Unlock()
	return r.inner.Run(ctx, tr)
}

// A server given a Runner (and no Client) runs its tasks' turns through it: the first message a
// new turn on its text, the reply the stopped state with the decisions read from it, both named
// by the task and in its context's conversation.
func TestServeRunner(t *testing.T) {
	if _, err := NewServer(context.Background(), ServerConfig{}); err == nil || !strings.Contains(err.Error(), "Client or Runner") {
		t.Fatalf("neither a client nor a runner: %v", err)
	}
	var runs atomic.Int32
	c, _ := approvalAgent(t, &runs)
	rr := &recordingRunner{inner: ClientRunner(c)}
	s := serve(t, nil, ServerConfig{Runner: rr, Name: "runner"})
	if len(s.card.Skills) != 0 {
		t.Fatalf("a runner's card names skills it cannot know: %+v", s.card.Skills)
	}
	cl := s.sdk
	task := sendTask(t, cl, userMsg("delete my notes"))
	if task.Status.State != sdk.TaskStateInputRequired || runs.Load() != 0 {
		t.Fatalf("first run: %s, tool ran %d times", task.Status.State, runs.Load())
	}
	done := sendTask(t, cl, onTask(task, sdk.TextPart{Text: "yes"}))
	if done.Status.State != sdk.TaskStateCompleted || answerOf(done) != "Done." || runs.Load() != 1 {
		t.Fatalf("after approval: %s %q, tool ran %d times", done.Status.State, answerOf(done), runs.Load())
	}
	rr.mu.Lock()
	defer rr.mu.Unlock()
	if len(rr.runs) != 2 {
		t.Fatalf("%d runs", len(rr.runs))
	}
	first, second := rr.runs[0], rr.runs[1]
	conv := conversation("", task.ContextID)
	if first.TaskID != string(task.ID) || first.Conversation != conv || first.Text != "delete my notes" || first.State != nil || first.Decisions != nil {
		t.Fatalf("first run %+v", first)
	}
	if second.TaskID != string(task.ID) || second.Conversation != conv || second.Text != "" || second.State == nil ||
		len(second.State.Pending()) != 1 || second.State.Pending()[0].Call.ID != "c1" || len(second.Decisions) != 1 {
		t.Fatalf("second run %+v", second)
	}
}
