package temporal

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	sdktemporal "go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/client"
)

// maxCallIDInActivityID bounds the part of a tool activity's id that is the model's call id:
// the server refuses ids over 1,000 bytes by default, and a longer call id (a hostile or broken
// model's) would fail the workflow task on every attempt, leaving the turn stuck.
const maxCallIDInActivityID = 200

// cut returns s cut to at most n bytes, without splitting a character.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "")
}

// toolGrace is the time a tool call's attempt gets beyond its tool's own timeout, so that the
// tool's timeout, which the model reads as the call's failure, comes first.
const toolGrace = time.Minute

// turnWorkflow is an agent's workflow: one turn of its tool loop.
type turnWorkflow struct {
	cfg Config
	c   *client.Client // the worker's; nil in a replayer of turns that run the workflow's own loop
}

// turnSettings are the settings of the worker that started a turn which decide its path.
type turnSettings struct {
	Memory        bool `json:"memory,omitempty"`
	MaxIterations int  `json:"maxIterations"`
	// MaxPayload and MaxResult are the bounds of Config.MaxPayloadBytes and MaxToolResultBytes
	// that the workflow applies; 0, in a turn started before they were recorded, means none, as
	// then (a negative one too).
	MaxPayload int `json:"maxPayload,omitempty"`
	MaxResult  int `json:"maxResult,omitempty"`
	// Bounds is the version of the checks that keep the turn's payloads and workflow tasks
	// under the server's limits; 0, in a turn started before it was recorded, means those of
	// then. 1 adds: activity inputs carry the turn without its messages, the round's calls
	// travel in the plan's marker once, a round that cannot fit the next model input ends the
	// turn before any call runs, the calls of a round start in batches whose inputs stay under
	// the payload bound, and decisions' arguments and data are bounded as results are. 2 adds:
	// the decisions' marker holds no part of the plans that the round holds (results,
	// interrupts, sub-agents' states).
	Bounds int `json:"bounds,omitempty"`
	// Engine says which loop runs the turn: 0, in a turn started before it was recorded, the
	// workflow's own (turn.loop); engineLoop the client's (turn.runEngine).
	Engine int `json:"engine,omitempty"`
	// HistoryEvents and HistoryBytes bound a client-loop turn's history before it continues as
	// new (Config.MaxHistoryEvents, MaxHistoryBytes).
	HistoryEvents int `json:"historyEvents,omitempty"`
	HistoryBytes  int `json:"historyBytes,omitempty"`
}

// bounds is the version of the payload checks a turn started now applies (turnSettings.Bounds).
const bounds = 2

// turn is the state of one running turn: the workflow's variables, read by its query and update
// handlers.
type turn struct {
	cfg           Config
	c             *client.Client // the worker's client (or the sub-agent's), whose loop runs an engine turn
	engine        int            // turnSettings.Engine
	historyEvents int            // a client-loop turn continues as new past these; 0: never
	historyBytes  int
	in            *Request
	memory        bool // the conversation is kept in the workers' memory
	maxIterations int
	maxPayload    int // bounds each payload the turn makes; <= 0: none
	maxResult     int // bounds a result a decision gives; <= 0: none
	bounds        int // the version of the payload checks (turnSettings.Bounds)
	// act is the turn's request as the activities get it: without its messages, which no
	// activity reads (the conversation travels beside it), in a turn whose bounds say so.
	act *Request

	messages   []chat.Message // the conversation the model sees next
	added      []chat.Message // what the turn added to it
	iteration  int
	modelCalls int
	usage      chat.Usage
	callCounts map[string]int
	totalCalls int
	seq        int64 // the Seq of the last pending state
	steps      int   // tool activities scheduled, for their ids

	events   []client.Event
	finished bool

	pending     *client.TurnState // what the turn waits for; nil while it runs
	sized       *client.TurnState // the pending state whose size pendingSize is, for the events query
	pendingSize int
	// encoded is the pending state whose JSON encodedPending is, for the part query.
	encoded        *client.TurnState
	encodedPending []byte
	deciding       bool                // a decision is being checked
	decided        *decideOutput       // the plans of the accepted decision
	decisions      []client.Decision   // the accepted decisions, for a turn that runs the client's loop
	decidedTree    *client.TreeAccount // the share of its caller's tree the decisions' run spends
	modeling       bool                // a model call runs, whose text its heartbeats may stream
	calling        int                 // tool calls run, whose agents' events their heartbeats may carry
	agents         []agentRef          // the sub-agents' turns started as child workflows
}

// run is the workflow function.
func (w *turnWorkflow) run(ctx workflow.Context, in *Request) (*client.Response, error) {
	if in == nil {
		in = &Request{}
	}
	// What the workflow carries from one of its own runs to another is refused from anyone else:
	// a forged continuation or sub-agent call could hand a tool decisions no one made.
	info := workflow.GetInfo(ctx)
	if in.Continued != nil && info.ContinuedExecutionRunID == "" {
		return nil, sdktemporal.NewNonRetryableApplicationError("temporal: a turn's request carries a continuation only from the turn's own earlier run", errTypeConfig, nil)
	}
	if in.Agent != nil && info.ParentWorkflowExecution == nil {
		return nil, sdktemporal.NewNonRetryableApplicationError("temporal: a sub-agent's turn is started by its caller's turn only", errTypeConfig, nil)
	}
	t := &turn{cfg: w.cfg, c: w.c, in: in}
	if err := t.handlers(ctx); err != nil {
		return nil, err
	}
	// What of the worker's config decides the turn's path is recorded, so that a replay on a
	// worker configured otherwise takes the same path.
	var settings turnSettings
	err := workflow.SideEffect(ctx, func(workflow.Context) any {
		s := turnSettings{Memory: w.cfg.Memory != nil, MaxIterations: w.cfg.MaxIterations,
			MaxPayload: w.cfg.MaxPayloadBytes, MaxResult: w.cfg.MaxToolResultBytes, Bounds: bounds}
		// A continued turn runs the loop it ran; a sub-agent's, the loop that started it.
		if !w.cfg.WorkflowLoop || in.Continued != nil || in.Agent != nil {
			s.Engine, s.HistoryEvents, s.HistoryBytes = w.cfg.knownEngine(), w.cfg.MaxHistoryEvents, w.cfg.MaxHistoryBytes
		}
		return s
	}).Get(&settings)
	if err != nil {
		return nil, err
	}
	if settings.Bounds > bounds || settings.Engine > w.cfg.knownEngine() {
		// A turn started by a newer build: this one cannot know its path and must not guess.
		// A panic fails the workflow task, not the turn: Temporal retries the task until a
		// worker of a build that knows the turn takes it.
		panic(fmt.Sprintf("temporal: turn %s was started by a newer build (bounds %d, engine %d); this worker knows bounds up to %d and engines up to %d: run the newer build's workers",
			workflow.GetInfo(ctx).WorkflowExecution.ID, settings.Bounds, settings.Engine, bounds, w.cfg.knownEngine()))
	}
	t.engine = settings.Engine
	if in.Agent != nil && t.c != nil {
		if t.c, err = agentClient(t.c, in.Agent.Path); err != nil {
			return nil, err
		}
	}
	t.memory, t.maxIterations = settings.Memory && in.ConversationID != "", settings.MaxIterations
	t.maxPayload, t.maxResult, t.bounds = settings.MaxPayload, settings.MaxResult, settings.Bounds
	t.historyEvents, t.historyBytes = settings.HistoryEvents, settings.HistoryBytes
	t.act = in
	if t.bounds >= 1 {
		lean := *in
		lean.Messages = nil
		t.act = &lean
	}
	var resp *client.Response
	switch settings.Engine {
	case 0:
		resp, err = t.loop(ctx)
	default: // engineLoop
		if t.c == nil {
			// Only a replayer made by NewReplayer has no client; a panic, unlike an error, is
			// what its replay reports.
			panic("temporal: this turn runs the client's loop, and the replayer has no client: make it with NewClientReplayer")
		}
		resp, err = t.runEngine(ctx)
	}
	t.pending = nil // a turn cancelled while it waited waits no more
	// A run that continues as new has not finished the turn: a reader goes on with the next run.
	t.finished = !workflow.IsContinueAsNewError(err)
	return resp, err
}

// handlers sets the query and update handlers of the turn.
func (t *turn) handlers(ctx workflow.Context) error {
	if err := workflow.SetQueryHandler(ctx, queryPending, func() (*client.TurnState, error) {
		return t.pending, nil
	}); err != nil {
		return err
	}
	if err := workflow.SetQueryHandler(ctx, queryEvents, t.page); err != nil {
		return err
	}
	if err := workflow.SetQueryHandler(ctx, queryPart, t.part); err != nil {
		return err
	}
	return workflow.SetUpdateHandlerWithOptions(ctx, updateDecide, t.decide, workflow.UpdateHandlerOptions{
		Validator: t.validate,
	})
}

// page answers the events query: the events after the first after and the pending state. An
// answer stays under answerBound with one event at least for a client that does not read
// answers in parts (version 0), which finds the pending state in every page whatever its
// size. For one that does (version 1), the page leaves out a pending state that does not fit
// beside its events (Waiting gives its Seq) and stops before an event over the bound alone
// (Large), which the client reads with the part query.
func (t *turn) page(after, version int) (*eventsPage, error) {
	after = max(0, min(after, len(t.events)))
	if t.pending != nil && t.pending != t.sized {
		t.sized, t.pendingSize = t.pending, encodedSize(t.pending)
	}
	page := &eventsPage{Pending: t.pending, Finished: t.finished, Modeling: t.modeling, Calling: t.calling > 0}
	if n := len(t.agents); n > 0 {
		page.AgentsFrom = max(0, n-maxAgentRefs)
		page.Agents = t.agents[page.AgentsFrom:]
	}
	bound := t.answerBound()
	next, size := after, 0
	if version < 1 && t.pending != nil {
		size = t.pendingSize
	}
	for next < len(t.events) {
		n := encodedSize(t.events[next])
		if size+n > bound && (version >= 1 || next > after) {
			page.Large = version >= 1 && next == after
			break
		}
		size += n
		next++
	}
	if version >= 1 && t.pending != nil && size+t.pendingSize > bound {
		page.Pending, page.Waiting = nil, t.pending.Seq
	}
	page.Events, page.Next, page.More = t.events[after:next], next, next < len(t.events)
	return page, nil
}

// part answers the part query: the part from offset of the JSON encoding of the pending state
// whose Seq is key (what is kind partPending) or of the event at index key (partEvent), in
// parts of half an answer's bound. Found is false when the turn no longer waits at that step
// or has no such event.
func (t *turn) part(what string, key int64, offset int) (*partAnswer, error) {
	var b []byte
	switch what {
	case partPending:
		if t.pending == nil || t.pending.Seq != key {
			return &partAnswer{}, nil
		}
		if t.encoded != t.pending {
			enc, err := json.Marshal(t.pending)
			if err != nil {
				return nil, err
			}
			t.encoded, t.encodedPending = t.pending, enc
		}
		b = t.encodedPending
	case partEvent:
		if key < 0 || key >= int64(len(t.events)) {
			return &partAnswer{}, nil
		}
		enc, err := json.Marshal(t.events[key])
		if err != nil {
			return nil, err
		}
		b = enc
	default:
		return nil, fmt.Errorf("temporal: no part of %q", what)
	}
	offset = max(0, min(offset, len(b)))
	end := min(len(b), offset+max(t.answerBound()/2, 1))
	return &partAnswer{Found: true, Total: len(b), Data: b[offset:end]}, nil
}

// answerBound bounds a query's answer (see page), measured as JSON. A query that comes while a
// workflow task runs is answered in the task's completion, one gRPC message with the task's
// commands, which may carry two payloads of the turn's bound: the answer gets what they leave
// of gRPC's 4 MiB (maxAnswer at the default bound), and at most half the bound, which is set
// lower when the server's payload limit is.
func (t *turn) answerBound() int {
	if t.maxPayload > 0 {
		return min(maxAnswer, t.maxPayload/2)
	}
	return maxAnswer
}

// validate admits a decision only while the turn waits for one, for the stop it was made for.
func (t *turn) validate(_ workflow.Context, req *decideRequest) error {
	switch {
	case req == nil || len(req.Decisions) == 0:
		return sdktemporal.NewNonRetryableApplicationError("temporal: no decisions", errTypeInvalidDecision, nil)
	case t.pending == nil || t.decided != nil:
		return sdktemporal.NewNonRetryableApplicationError("temporal: the turn waits for no decision (it was resumed, or it runs or ended)", errTypeNotWaiting, nil)
	case req.Seq != 0 && req.Seq != t.pending.Seq:
		return sdktemporal.NewNonRetryableApplicationError(
			fmt.Sprintf("temporal: the decisions are for step %d, the turn waits at step %d", req.Seq, t.pending.Seq), errTypeNotWaiting, nil)
	case t.deciding:
		return sdktemporal.NewNonRetryableApplicationError("temporal: other decisions for the turn are being checked; if they fail, send these again", errTypeBusy, nil)
	}
	if t.maxResult > 0 {
		// A given result travels in the turn's history and the model's input as a tool's does,
		// and is bounded alike; refused here, it never reaches the history.
		for _, d := range req.Decisions {
			if d.Kind != client.DecideReject && d.Kind != client.DecideAnswer {
				continue
			}
			if n := encodedSize(chat.ToolResult{ID: d.CallID, Content: d.Text, IsError: true}); n > t.maxResult {
				return sdktemporal.NewNonRetryableApplicationError(fmt.Sprintf(
					"temporal: the decision for call %q gives a result of %d bytes, over the %d bytes a result may have in this turn (MaxToolResultBytes)",
					cut(d.CallID, maxCallIDInActivityID), n, t.maxResult), errTypeInvalidDecision, nil)
			}
		}
	}
	if t.bounds >= 1 {
		if msg := t.oversized(req); msg != "" {
			return sdktemporal.NewNonRetryableApplicationError(msg, errTypeInvalidDecision, nil)
		}
	}
	return nil
}

// oversized says how decisions are over what the turn's payloads take, or returns "". Edited
// arguments and a restart's data are bounded as a result is: they travel in the history and a
// call's input, the arguments in the model's next input too, which the round must still fit.
// The decisions together take at most half the payload bound, since the workflow task that
// accepts them carries them twice (the update's acceptance and the decisions' marker) beside
// the calls it starts.
func (t *turn) oversized(req *decideRequest) string {
	for _, d := range req.Decisions {
		if t.maxResult <= 0 {
			break
		}
		if n := encodedSize(d.Arguments); d.Arguments != "" && n > t.maxResult {
			return fmt.Sprintf("temporal: the decision for call %q gives arguments of %d bytes, over the %d bytes a result may have in this turn (MaxToolResultBytes)",
				cut(d.CallID, maxCallIDInActivityID), n, t.maxResult)
		}
		if n := len(d.Data); n > t.maxResult {
			return fmt.Sprintf("temporal: the decision for call %q gives data of %d bytes, over the %d bytes a result may have in this turn (MaxToolResultBytes)",
				cut(d.CallID, maxCallIDInActivityID), n, t.maxResult)
		}
	}
	if t.maxPayload <= 0 {
		return ""
	}
	if n := encodedSize(req); n > t.maxPayload/2 {
		return fmt.Sprintf("temporal: the decisions are %d bytes, over the %d bytes they may have together in this turn (half MaxPayloadBytes)", n, t.maxPayload/2)
	}
	msg := t.pending.Round.Message
	msg.ToolCalls = slices.Clone(msg.ToolCalls)
	edited := false
	for _, d := range req.Decisions {
		if d.Arguments == "" || len(d.Path) > 0 {
			continue
		}
		for i := range msg.ToolCalls {
			if msg.ToolCalls[i].ID == d.CallID {
				msg.ToolCalls[i].Arguments, edited = d.Arguments, true
			}
		}
	}
	if edited {
		return t.roundOver(msg, "the round with the decisions' arguments")
	}
	return ""
}

// decide checks the decisions against the tools, by an activity, and hands the round's plans to
// the loop. Decisions that do not fit fail the update and leave the turn waiting.
func (t *turn) decide(ctx workflow.Context, req *decideRequest) error {
	if err := t.validate(ctx, req); err != nil {
		return err // the validator does not run on replay; the handler checks again
	}
	t.deciding = true
	defer func() { t.deciding = false }()
	p := t.pending
	state := &client.TurnState{ // the plans do not read the messages
		Version: p.Version, ID: p.ID, Seq: p.Seq, ConversationID: p.ConversationID, Status: p.Status,
		Iteration: p.Iteration, Round: p.Round, CallCounts: p.CallCounts, TotalCalls: p.TotalCalls,
	}
	var out decideOutput
	err := workflow.ExecuteLocalActivity(t.local(ctx), t.cfg.activity(actDecide), decideInput{
		Turn: t.act, State: state, Decisions: req.Decisions, Lean: t.bounds >= 2,
	}).Get(ctx, &out)
	if err != nil {
		return err
	}
	if err := restore(out.Plans, out.Kept, p.Round); err != nil {
		return err
	}
	t.decided, t.decisions, t.decidedTree = &out, req.Decisions, req.Tree
	return nil
}

func (t *turn) emit(ev client.Event) { t.events = append(t.events, ev) }

// maxAnswer bounds a query's answer (answerBound): what two payloads of the default bound
// leave of gRPC's 4 MiB, less 64 KiB for the rest of a workflow task's completion.
const maxAnswer = 4<<20 - 2*DefaultMaxPayloadBytes - 64<<10

// payloadError is the error of something over the turn's payload bound; [Turn] maps it to
// [ErrPayloadTooLarge].
func payloadError(msg string) error {
	return sdktemporal.NewNonRetryableApplicationError(msg, errTypePayload, nil)
}

// model returns ctx with the options of a model call.
func (t *turn) model(ctx workflow.Context) workflow.Context {
	return workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		TaskQueue:           t.cfg.TaskQueue,
		StartToCloseTimeout: t.cfg.ModelTimeout,
		HeartbeatTimeout:    t.cfg.HeartbeatTimeout,
		RetryPolicy:         retryPolicy(t.cfg.ModelRetry),
	})
}

// tool returns ctx with the options of a tool call: on the tool queue, with its tool's timeout,
// retried only when the tool is idempotent.
func (t *turn) tool(ctx workflow.Context, id string, info callInfo) workflow.Context {
	timeout := t.cfg.ToolTimeout
	if info.Timeout > 0 {
		timeout = info.Timeout + toolGrace
	}
	retry := &sdktemporal.RetryPolicy{MaximumAttempts: 1}
	if info.Retry {
		retry = retryPolicy(t.cfg.ToolRetry)
	}
	return workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		ActivityID:          id,
		TaskQueue:           t.cfg.ToolTaskQueue,
		StartToCloseTimeout: timeout,
		HeartbeatTimeout:    t.cfg.HeartbeatTimeout,
		RetryPolicy:         retry,
	})
}

// local returns ctx with the options of the decisions made by local activities.
func (t *turn) local(ctx workflow.Context) workflow.Context {
	return workflow.WithLocalActivityOptions(ctx, workflow.LocalActivityOptions{
		ScheduleToCloseTimeout: time.Minute,
		RetryPolicy:            &sdktemporal.RetryPolicy{MaximumAttempts: 3},
	})
}

// retryPolicy returns p with wield's errors that no retry can fix made non-retryable.
func retryPolicy(p *sdktemporal.RetryPolicy) *sdktemporal.RetryPolicy {
	out := *p
	out.NonRetryableErrorTypes = append(out.NonRetryableErrorTypes[:len(out.NonRetryableErrorTypes):len(out.NonRetryableErrorTypes)],
		errTypeConfig, errTypeProvider, errTypeTurnEnded, errTypeLimit, errTypeInvalidDecision, errTypePayload, errTypeTreeBudget)
	return &out
}
