package a2a

import (
	"context"
	"iter"

	"github.com/wield-ai/wield/client"
)

// Runner runs the turns of a served agent's tasks: the seam between the [Server], which keeps
// the tasks and speaks the protocol, and what runs a turn (a client in this process, as
// [ClientRunner] does, or a durable engine).
//
// A task's first message starts a turn; the turn either ends (the task completes, or fails) or
// stops with a pending state (the task waits for input), and the task's next message resumes
// that state with the caller's decisions. The server keeps the pending state with the task and
// hands it back in the resuming [TurnRun], so a runner need keep nothing between runs; one
// that keeps its turns itself (a durable engine) names them by [TurnRun.TaskID].
type Runner interface {
	// Run runs r and yields the turn's events as they come (text, tool calls, sub-agents'
	// events), the last a Done event: the answer, or, when the turn stops, a response whose
	// Pending is the stopped state, whose Pending calls the caller decides. The turn ends when
	// ctx does (the task was cancelled, or its run timed out). The Done response's Tree is what
	// this run spent of the caller's share ([client.TreeAccountOf] ctx), not the turn's whole
	// spend since its first message: the caller settles each message's share with it.
	Run(ctx context.Context, r TurnRun) iter.Seq2[*client.Event, error]
}

// TurnCanceler is a [Runner] whose turns outlive the run's context (a durable engine's): the
// server calls CancelTurn when a task is cancelled, running or waiting, so that its turn ends
// too. A run's context also ends when its process stops, which must not end a durable turn.
type TurnCanceler interface {
	CancelTurn(ctx context.Context, taskID string) error
}

// TurnFollower is a [TurnCanceler] whose turns go on when the process serving their task ends
// (a durable engine's). A task whose process ended mid-turn is then not failed: the replica that
// finds it (a look at the task, a sweep) reads where its turn is, and the task follows the turn.
// It keeps working while the turn runs, waits for input when the turn stopped (its next message
// resumes the turn, as after any stop), and ends as the turn ended.
type TurnFollower interface {
	TurnCanceler
	// TurnStatus returns where the task's turn is now, without waiting for it.
	TurnStatus(ctx context.Context, taskID string) (TurnStatus, error)
}

// TurnStatus is where a task's turn is, as a [TurnFollower] reads it: running, stopped
// (Response.Pending), ended (Response), or failed.
type TurnStatus struct {
	Running bool
	// Response is the turn's answer once it ended, or, when it stopped, a response whose
	// Pending is the stopped state: the last event of the run that the ended process followed.
	Response *client.Response
	// Failed says why the turn failed (or never started); it is logged, not shown.
	Failed error
}

// TurnRun is one run of a task's turn: a new turn on Text, or State resumed with Decisions.
type TurnRun struct {
	// TaskID is the A2A task's id, the same for every run of the task.
	TaskID string
	// Conversation names the conversation of the task's context and caller
	// (client.ParamConversationID): a context's tasks share its history.
	Conversation string
	// Text is a new turn's input: the message's text and data parts.
	Text string
	// State is the stopped turn a resumed run continues (the Pending of the run before), and
	// Decisions decide its pending calls, already checked against them.
	State     *client.TurnState
	Decisions []client.Decision
}

// ClientRunner runs tasks' turns with c in this process: Prompt for a new turn and Resume for a
// stopped one, streamed, in the task's conversation. It is the runner of a [Server] given only
// a Client.
func ClientRunner(c *client.Client) Runner { return clientRunner{c} }

type clientRunner struct{ c *client.Client }

func (r clientRunner) Run(ctx context.Context, tr TurnRun) iter.Seq2[*client.Event, error] {
	var spec *client.Spec
	if tr.State != nil {
		spec = r.c.Resume(tr.State, tr.Decisions...)
	} else {
		spec = r.c.Prompt(tr.Text)
	}
	spec.Param(client.ParamConversationID, tr.Conversation)
	return spec.Stream(ctx).Events()
}
