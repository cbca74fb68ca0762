package temporal

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"math"

	"go.temporal.io/api/serviceerror"

	"github.com/wield-ai/wield/a2a"
	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/client"
)

// TaskRunner runs the tasks of an A2A server ([a2a.ServerConfig.Runner]) as durable turns of
// the client's agent: a task's first message starts a turn whose workflow id is [TaskTurnID]
// of the task, the turn's stop (approval, an interrupt) is the task's input-required, and the
// task's next message is the turn's decisions. The turn lives in Temporal, so a waiting task is
// resumed from any replica, and a cancelled task cancels it. A task whose serving process ended
// while its turn ran follows the turn on the replica that finds it ([a2a.TurnFollower]): it
// works on, waits for input when the turn stops, and ends as the turn ends. Each message's share
// of its caller's tree ([a2a.MetaTree]) bounds that message's run (the first starts the turn
// with it, a reply's decisions carry it), and the run reports what it spent. Give the worker's
// [Config.Memory] for a context's history.
//
// The task's progress is the turn's events as [Turn.Events] reads them (text as a model call
// streams it, tool calls, sub-agents' events); a resumed run starts after the events its stop
// had shown.
type TaskRunner struct {
	c    *Client
	opts []StartOption
}

// TaskRunner returns the runner of an A2A server's tasks on c's agent; opts start each turn
// (a [StartTimeout] at least the server's KeepWaiting ends a turn whose task expired waiting).
func (c *Client) TaskRunner(opts ...StartOption) *TaskRunner { return &TaskRunner{c: c, opts: opts} }

// TaskTurnID is the workflow id of the turn of an A2A task.
func TaskTurnID(taskID string) string { return "a2a-task-" + taskID }

var _ a2a.TurnFollower = (*TaskRunner)(nil)

// Run starts the task's turn or sends its decisions, and follows the turn until it ends or
// stops again; see [a2a.Runner].
func (r *TaskRunner) Run(ctx context.Context, tr a2a.TurnRun) iter.Seq2[*client.Event, error] {
	return func(yield func(*client.Event, error) bool) {
		var turn *Turn
		var from eventsFrom
		seq := int64(0)
		if tr.State == nil {
			req := Request{ID: TaskTurnID(tr.TaskID), ConversationID: tr.Conversation, Messages: []chat.Message{chat.User(tr.Text)}}
			if acct, ok := client.TreeAccountOf(ctx); ok { // the caller's share
				req.Tree = &acct
			}
			t, err := r.c.Start(ctx, req, r.opts...)
			if err != nil {
				yield(nil, err)
				return
			}
			turn = t
		} else {
			if tr.State.ID != TaskTurnID(tr.TaskID) {
				yield(nil, fmt.Errorf("temporal: task %s waits on turn %q, not its own", tr.TaskID, tr.State.ID))
				return
			}
			turn = r.c.Turn(tr.State.ID)
			// The turn waits: no event comes before the decisions, so what it has shown is all
			// before them.
			page, err := turn.page(ctx, math.MaxInt)
			if err != nil {
				yield(nil, err)
				return
			}
			from, seq = eventsFrom{event: page.Next, agents: page.AgentsFrom + len(page.Agents)}, tr.State.Seq
			req := &decideRequest{Seq: seq, Decisions: tr.Decisions}
			if acct, ok := client.TreeAccountOf(ctx); ok { // this message's share
				req.Tree = &acct
			}
			if err := turn.decide(ctx, req); err != nil {
				yield(nil, err)
				return
			}
		}
		for ev, err := range turn.events(ctx, from, seq) {
			if !yield(ev, err) || err != nil {
				return
			}
		}
	}
}

// CancelTurn cancels the task's turn; a turn that ended already is left as it ended.
func (r *TaskRunner) CancelTurn(ctx context.Context, taskID string) error {
	t := r.c.Turn(TaskTurnID(taskID))
	if err := t.Cancel(ctx); err != nil {
		if closed, cerr := t.closed(ctx); cerr == nil && closed {
			return nil
		}
		return err
	}
	return nil
}

// stopped is the response of a run that stopped at st: its Tree is what the run spent of its
// tree, as st's account says.
func stopped(st *client.TurnState) *client.Response {
	outcome := client.OutcomeApproval
	for _, pc := range st.Pending() {
		if pc.Status != client.CallApproval {
			outcome = client.OutcomeInterrupted
		}
	}
	resp := &client.Response{Outcome: outcome, Pending: st}
	if st.Tree != nil {
		resp.Tree = st.Tree.Spent
	}
	return resp
}

// TurnStatus reads where the task's turn is, for a server that finds the task's process ended
// ([a2a.TurnFollower]): the turn went on without it in Temporal.
func (r *TaskRunner) TurnStatus(ctx context.Context, taskID string) (a2a.TurnStatus, error) {
	t := r.c.Turn(TaskTurnID(taskID))
	closed, err := t.closed(ctx)
	var nf *serviceerror.NotFound
	switch {
	case errors.As(err, &nf):
		// The process ended before it started the turn.
		return a2a.TurnStatus{Failed: fmt.Errorf("temporal: task %s has no turn: %w", taskID, err)}, nil
	case err != nil:
		return a2a.TurnStatus{}, fmt.Errorf("temporal: reading turn %s: %w", t.id, err)
	case closed:
		resp, err := t.Result(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return a2a.TurnStatus{}, err
			}
			return a2a.TurnStatus{Failed: err}, nil
		}
		return a2a.TurnStatus{Response: resp}, nil
	}
	st, err := t.queriedPending(ctx)
	switch {
	case err != nil:
		return a2a.TurnStatus{}, err
	case st == nil:
		return a2a.TurnStatus{Running: true}, nil
	}
	return a2a.TurnStatus{Response: stopped(st)}, nil
}
