package temporal

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	sdktemporal "go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/client"
	"github.com/wield-ai/wield/toolcall"
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
	c             *client.Client // the worker's client, whose loop runs an engine turn
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
	deciding       bool              // a decision is being checked
	decided        *decideOutput     // the plans of the accepted decision
	decisions      []client.Decision // the accepted decisions, for a turn that runs the client's loop
}

// run is the workflow function.
func (w *turnWorkflow) run(ctx workflow.Context, in *Request) (*client.Response, error) {
	if in == nil {
		in = &Request{}
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
		if w.cfg.ClientLoop || in.Continued != nil { // a continued turn runs the loop it ran
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
			return nil, errors.New("temporal: this turn runs the client's loop, and the workflow has no client (a replayer made by NewReplayer: use NewClientReplayer)")
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
	page := &eventsPage{Pending: t.pending, Finished: t.finished}
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
	t.decided, t.decisions = &out, req.Decisions
	return nil
}

// loop runs the turn.
func (t *turn) loop(ctx workflow.Context) (*client.Response, error) {
	msgs := t.in.Messages
	if t.memory {
		var hist []chat.Message
		err := workflow.ExecuteActivity(t.memoryOptions(ctx), t.cfg.activity(actLoad), memoryInput{
			ConversationID: t.in.ConversationID, Messages: t.in.Messages, MaxBytes: max(t.maxPayload, 0),
		}).Get(ctx, &hist)
		if err != nil {
			return nil, err
		}
		msgs = hist
	}
	t.messages = msgs
	for {
		final := t.iteration >= t.maxIterations
		in := modelInput{Turn: t.act, Messages: t.messages, Final: final, MaxBytes: max(t.maxPayload, 0)}
		if err := t.fits(in, "the model's input (the conversation and the turn's request)"); err != nil {
			return nil, err
		}
		var resp chat.Response
		t.modelCalls++
		err := workflow.ExecuteActivity(t.model(ctx), t.cfg.activity(actModel), in).Get(ctx, &resp)
		if err != nil {
			return nil, err
		}
		t.usage = t.usage.Add(resp.Usage)
		if c := textOnly(&resp); c != nil {
			t.emit(client.Event{Chunk: c})
		}
		if final || !resp.HasToolCalls() {
			return t.answer(ctx, &resp, final)
		}
		if t.bounds >= 1 {
			// The calls go into the model's next input whatever their results: a round that
			// cannot fit there cannot go on, and ends before any call runs.
			if err := t.roundFits(resp.Message(), "the model's tool calls"); err != nil {
				return nil, err
			}
		}
		msgs, direct, err := t.round(ctx, &resp)
		if err != nil {
			return nil, err
		}
		t.messages = append(t.messages[:len(t.messages):len(t.messages)], msgs...)
		t.added = append(t.added, msgs...)
		if err := t.remember(ctx, msgs...); err != nil {
			return nil, err
		}
		if direct {
			return t.direct(ctx, &resp, msgs[len(msgs)-1].ToolResults)
		}
		t.iteration++
	}
}

// round runs the tool round resp asks for, stopping for decisions as often as it must, and
// returns its two messages (the calls and their results) and whether the results are the answer.
func (t *turn) round(ctx workflow.Context, resp *chat.Response) ([]chat.Message, bool, error) {
	var plan planOutput
	err := workflow.ExecuteLocalActivity(t.local(ctx), t.cfg.activity(actPlan), planInput{
		Turn: t.act, Messages: t.messages, Response: resp, CallCounts: t.callCounts, TotalCalls: t.totalCalls,
		Lean: t.bounds >= 1,
	}).Get(ctx, &plan)
	if err != nil {
		return nil, false, err
	}
	t.callCounts, t.totalCalls = plan.CallCounts, plan.TotalCalls
	round, info := plan.Round, plan.Info
	if round == nil || len(round.Calls) != len(info) || len(round.Message.ToolCalls) != len(round.Calls) {
		return nil, false, fmt.Errorf("temporal: the plan of the round does not match its calls")
	}
	if t.bounds >= 1 {
		// The plan's marker holds the calls without their arguments; they are the response's.
		calls := resp.ToolCalls()
		if len(calls) != len(round.Calls) {
			return nil, false, fmt.Errorf("temporal: the plan of the round has %d calls, the response %d", len(round.Calls), len(calls))
		}
		for i, c := range calls {
			round.Calls[i].Call.Arguments = c.Arguments
			round.Message.ToolCalls[i].Arguments = c.Arguments
		}
	}
	plans := make([]toolcall.Plan, len(round.Calls))
	var refused []int // calls a limit refused: they get their result without running
	for i, c := range round.Calls {
		if c.Status == client.CallDone && c.Result != nil {
			r := *c.Result
			plans[i].Result = &r
			refused = append(refused, i)
		} else {
			plans[i].Approved = true
		}
	}
	if plan.Stopped {
		var err error
		if plans, info, err = t.wait(ctx, resp, round, client.TurnApproval); err != nil {
			return nil, false, err
		}
	}
	for _, i := range refused {
		c := &round.Calls[i]
		t.emit(client.Event{Tool: &client.ToolEvent{Kind: client.ToolStarted, Call: c.Call}})
		t.emit(client.Event{Tool: &client.ToolEvent{Kind: client.ToolFinished, Call: c.Call, Result: *c.Result}})
	}
	for {
		stopped, err := t.run(ctx, resp, round, plans, info)
		if err != nil {
			return nil, false, err
		}
		if stopped == "" {
			break
		}
		if plans, info, err = t.wait(ctx, resp, round, stopped); err != nil {
			return nil, false, err
		}
	}
	for i := range plans {
		plans[i].Arguments = round.Calls[i].Call.Arguments // the conversation records what ran
	}
	in := assembleInput{Turn: t.act, Response: resp, Plans: plans}
	if t.maxPayload > 0 {
		// The round's two messages get what the next model input leaves them (two commas join
		// them to the conversation); with nothing left, every result is dropped, and the model
		// input's own check ends the turn.
		base := encodedSize(modelInput{Turn: t.act, Messages: t.messages, Final: true, MaxBytes: t.maxPayload})
		in.MaxBytes = max(t.maxPayload-base-2, 1)
	}
	var out assembleOutput
	err = workflow.ExecuteLocalActivity(t.local(ctx), t.cfg.activity(actAssemble), in).Get(ctx, &out)
	if err != nil {
		return nil, false, err
	}
	if len(out.Messages) != 2 {
		return nil, false, fmt.Errorf("temporal: the round assembled into %d messages", len(out.Messages))
	}
	return out.Messages, out.ReturnDirect, nil
}

// run runs the calls of a round that plans do not give a result yet, in groups: the calls of a
// group in parallel, a sequential tool's call alone. It records each outcome in round and plans
// (a result becomes the call's plan), and returns the status the turn stops in when a call
// interrupted it or its worker was lost, once the group's other calls have finished; later
// groups wait. The empty status means every call has its result.
func (t *turn) run(ctx workflow.Context, resp *chat.Response, round *client.Round, plans []toolcall.Plan, info []callInfo) (client.TurnStatus, error) {
	alone := func(i int) bool { return info[i].Known && info[i].Alone && round.Calls[i].Status != client.CallDone }
	var stopped client.TurnStatus
	for lo := 0; lo < len(plans) && stopped == ""; {
		hi := lo + 1
		if !alone(lo) {
			for hi < len(plans) && !alone(hi) {
				hi++
			}
		}
		s, err := t.group(ctx, round, plans, info, lo, hi)
		if err != nil {
			return "", err
		}
		stopped = s
		lo = hi
	}
	return stopped, nil
}

// group runs the calls lo to hi of a round in parallel and waits for all of them.
func (t *turn) group(ctx workflow.Context, round *client.Round, plans []toolcall.Plan, info []callInfo, lo, hi int) (client.TurnStatus, error) {
	type running struct {
		i   int
		f   workflow.Future
		out toolOutput
		err error
	}
	type queued struct {
		i    int
		in   toolInput
		size int
	}
	var queue []queued
	for i := lo; i < hi; i++ {
		pc := &round.Calls[i]
		p := &plans[i]
		in := toolInput{Turn: t.act, Call: pc.Call, Resume: p.Resume}
		size := 0
		if p.Result == nil && t.bounds >= 1 && t.maxPayload > 0 {
			// An input over the bound would fail the workflow task on every attempt; the call
			// fails for the model instead, without running.
			if size = encodedSize(in); size > t.maxPayload {
				p.Result = &chat.ToolResult{ID: pc.Call.ID, Name: pc.Call.Name, IsError: true, Content: fmt.Sprintf(
					"The call did not run: its input (its arguments and what it resumes with) is %d bytes, over the %d bytes one may have in this turn.", size, t.maxPayload)}
			}
		}
		if p.Result != nil {
			if pc.Status != client.CallDone { // given now: a refusal, rejection or answer
				t.emit(client.Event{Tool: &client.ToolEvent{Kind: client.ToolStarted, Call: pc.Call}})
				t.emit(client.Event{Tool: &client.ToolEvent{Kind: client.ToolFinished, Call: pc.Call, Result: *p.Result}})
				pc.Status, pc.Result, pc.Interrupt, pc.Child = client.CallDone, p.Result, nil, nil
			}
			continue
		}
		queue = append(queue, queued{i: i, in: in, size: size})
	}
	// The calls start together, unless their inputs together are over the payload bound: a
	// workflow task's commands travel in one gRPC message, which the server takes up to 4 MiB,
	// and one over it ends the turn. Then they start as the earlier ones finish, with inputs
	// in flight under the bound (one call at least).
	batch := 0
	if t.bounds >= 1 && t.maxPayload > 0 {
		batch = t.maxPayload
	}
	var calls []*running
	// A call whose error ends the turn cancels the others, as in the client's loop.
	gctx, cancel := workflow.WithCancel(ctx)
	defer cancel()
	var ended error
	sel := workflow.NewSelector(ctx)
	inFlight, waiting := 0, 0
	start := func(q queued) {
		pc := &round.Calls[q.i]
		r := &running{i: q.i}
		t.steps++
		r.f = workflow.ExecuteActivity(t.tool(gctx, fmt.Sprintf("tool/%d/%s", t.steps, cut(pc.Call.ID, maxCallIDInActivityID)), info[q.i]),
			t.cfg.activity(actTool), q.in)
		calls = append(calls, r)
		inFlight += q.size
		waiting++
		t.emit(client.Event{Tool: &client.ToolEvent{Kind: client.ToolStarted, Call: pc.Call}})
		sel.AddFuture(r.f, func(f workflow.Future) {
			inFlight -= q.size
			r.err = f.Get(ctx, &r.out)
			var ae *sdktemporal.ApplicationError
			if errors.As(r.err, &ae) && ae.Type() == errTypeTurnEnded && ended == nil {
				ended = r.err
				cancel()
			}
			if r.err == nil && r.out.Stopped == nil {
				t.emit(client.Event{Tool: &client.ToolEvent{Kind: client.ToolFinished, Call: pc.Call, Result: r.out.Result, Elapsed: r.out.Elapsed}})
			}
		})
	}
	for next := 0; ; {
		for next < len(queue) && (batch <= 0 || ended == nil && ctx.Err() == nil && (waiting == 0 || inFlight+queue[next].size <= batch)) {
			start(queue[next])
			next++
		}
		if waiting == 0 {
			break
		}
		sel.Select(ctx)
		waiting--
	}
	if ended != nil {
		return "", ended
	}
	if len(calls) < len(queue) { // the turn was cancelled before every call started
		return "", ctx.Err()
	}
	var stopped client.TurnStatus
	for _, r := range calls {
		pc := &round.Calls[r.i]
		switch {
		case r.err != nil:
			if ctx.Err() != nil {
				return "", r.err // the turn was cancelled
			}
			// The call's attempts are spent or its worker was lost: whether it had its effect is
			// unknown, so the application decides, as for a call running when a process died.
			pc.Status, pc.Result, pc.Interrupt, pc.Child = client.CallRunning, nil, nil, nil
			plans[r.i] = toolcall.Plan{Approved: true}
			t.emit(client.Event{Tool: &client.ToolEvent{Kind: client.ToolInterrupted, Call: pc.Call,
				Interrupt: &toolcall.InterruptError{Message: "the call did not finish: " + r.err.Error()}}})
			stopped = client.TurnRunning
		case r.out.Stopped != nil:
			s := *r.out.Stopped
			s.Call = pc.Call
			*pc = s
			plans[r.i] = toolcall.Plan{Approved: true}
			if stopped == "" {
				stopped = client.TurnInterrupted
			}
		default:
			res := r.out.Result
			pc.Status, pc.Result, pc.Interrupt, pc.Child = client.CallDone, &res, nil, nil
			plans[r.i] = toolcall.Plan{Result: &res}
		}
	}
	return stopped, nil
}

// wait makes round the turn's pending state and waits for the application's decisions, which
// it returns as the round's plans. The round's calls stand as the plans say from then on: edited
// arguments are the calls', and the calls to run wait until they do.
func (t *turn) wait(ctx workflow.Context, resp *chat.Response, round *client.Round, status client.TurnStatus) ([]toolcall.Plan, []callInfo, error) {
	t.seq++
	if status == client.TurnInterrupted {
		for _, c := range round.Calls {
			if c.Status == client.CallApproval {
				status = client.TurnApproval
			}
		}
	}
	round.ResponseID, round.Model = resp.ID, resp.Model
	state := &client.TurnState{
		Version:        client.TurnStateVersion,
		ID:             workflow.GetInfo(ctx).WorkflowExecution.ID,
		Seq:            t.seq,
		ConversationID: t.in.ConversationID,
		Status:         status,
		Iteration:      t.iteration,
		Messages:       t.messages,
		Round:          cloneRound(round),
		CallCounts:     maps.Clone(t.callCounts),
		TotalCalls:     t.totalCalls,
	}
	for _, c := range state.Round.Calls {
		switch {
		case c.Status == client.CallApproval:
			t.emit(client.Event{Tool: &client.ToolEvent{Kind: client.ToolApprovalRequired, Call: c.Call}})
		case c.Status == client.CallInterrupted:
			t.emit(client.Event{Tool: &client.ToolEvent{Kind: client.ToolInterrupted, Call: c.Call, Interrupt: c.Interrupt}})
		}
	}
	t.pending, t.decided = state, nil
	if err := workflow.Await(ctx, func() bool { return t.decided != nil }); err != nil {
		return nil, nil, err
	}
	out := t.decided
	t.pending, t.decided = nil, nil
	if len(out.Plans) != len(round.Calls) || len(out.Info) != len(round.Calls) {
		return nil, nil, fmt.Errorf("temporal: %d plans for %d calls", len(out.Plans), len(round.Calls))
	}
	for i, p := range out.Plans {
		c := &round.Calls[i]
		if p.Arguments != "" {
			c.Call.Arguments = p.Arguments
			round.Message.ToolCalls[i].Arguments = p.Arguments
		}
		if p.Result == nil {
			c.Status, c.Result, c.Interrupt, c.Child = client.CallWaiting, nil, nil, nil
		}
	}
	return out.Plans, out.Info, nil
}

// answer ends the turn with the model's answer.
func (t *turn) answer(ctx workflow.Context, resp *chat.Response, final bool) (*client.Response, error) {
	out := &client.Response{Chat: resp, Usage: t.usage, ModelCalls: t.modelCalls}
	if len(resp.Generations) > 0 {
		msg := resp.Message()
		t.added = append(t.added, msg)
		if err := t.remember(ctx, msg); err != nil {
			return nil, err
		}
	}
	out.Messages = t.added
	switch {
	case final:
		out.Outcome = client.OutcomeIterationLimit
	case resp.HasToolCalls():
		out.Outcome = client.OutcomeToolCalls
	default:
		out.Outcome = client.OutcomeAnswer
	}
	if err := t.fits(out, "the turn's response (the answer and the messages the turn added)"); err != nil {
		return nil, err
	}
	return out, nil
}

// direct ends the turn with the results of a return-direct round as the answer, as the client's
// loop does: one generation whose text is the results', one per line.
func (t *turn) direct(ctx workflow.Context, resp *chat.Response, results []chat.ToolResult) (*client.Response, error) {
	texts := make([]string, len(results))
	for i, r := range results {
		texts[i] = r.Content
	}
	answer := chat.Assistant(strings.Join(texts, "\n"))
	if err := t.remember(ctx, answer); err != nil {
		return nil, err
	}
	out := &client.Response{
		Chat: &chat.Response{
			ID:          resp.ID,
			Model:       resp.Model,
			Generations: []chat.Generation{{Message: answer, FinishReason: chat.FinishStop}},
			Usage:       resp.Usage,
		},
		Messages:    t.added,
		Usage:       t.usage,
		Outcome:     client.OutcomeReturnDirect,
		ModelCalls:  t.modelCalls,
		ToolResults: results,
	}
	if err := t.fits(out, "the turn's response (the round's results, three times: as the answer, the messages the turn added and the results)"); err != nil {
		return nil, err
	}
	return out, nil
}

// remember stores msgs in the turn's conversation, when the agent keeps memory.
func (t *turn) remember(ctx workflow.Context, msgs ...chat.Message) error {
	if !t.memory || len(msgs) == 0 {
		return nil
	}
	in := memoryInput{ConversationID: t.in.ConversationID, Messages: msgs}
	if err := t.fits(in, "the messages to store in the conversation"); err != nil {
		return err
	}
	return workflow.ExecuteActivity(t.memoryOptions(ctx), t.cfg.activity(actRemember), in).Get(ctx, nil)
}

func (t *turn) emit(ev client.Event) { t.events = append(t.events, ev) }

// maxAnswer bounds a query's answer (answerBound): what two payloads of the default bound
// leave of gRPC's 4 MiB, less 64 KiB for the rest of a workflow task's completion.
const maxAnswer = 4<<20 - 2*DefaultMaxPayloadBytes - 64<<10

// fits checks that v, which the turn is about to put into a payload, is within the turn's
// bound: a payload over the server's limit fails the workflow task on every attempt, and the
// turn would never end.
func (t *turn) fits(v any, what string) error {
	if t.maxPayload <= 0 {
		return nil
	}
	if n := encodedSize(v); n > t.maxPayload {
		return payloadError(fmt.Sprintf("temporal: %s is %d bytes, over the turn's bound of %d (MaxPayloadBytes)", what, n, t.maxPayload))
	}
	return nil
}

// roundFits checks that a round whose assistant message is msg fits the model's next input
// with each of its results at its smallest (an error result saying the result was dropped,
// which a round over the bound gets): the calls' arguments are in that input whatever their
// results, so a round that does not fit cannot go on.
func (t *turn) roundFits(msg chat.Message, what string) error {
	if msg := t.roundOver(msg, what); msg != "" {
		return payloadError(msg + "; no call of the round ran")
	}
	return nil
}

// roundOver says how a round whose assistant message is msg is over the model's next input
// (see roundFits), or returns "" when it fits.
func (t *turn) roundOver(msg chat.Message, what string) string {
	if t.maxPayload <= 0 {
		return ""
	}
	results := make([]chat.ToolResult, len(msg.ToolCalls))
	for i, c := range msg.ToolCalls {
		results[i] = chat.ToolResult{ID: c.ID, Name: c.Name, IsError: true, Content: droppedNote(t.maxPayload, t.maxPayload)}
	}
	base := encodedSize(modelInput{Turn: t.act, Messages: t.messages, Final: true, MaxBytes: t.maxPayload})
	round := encodedSize(msg)
	if n := base + 2 + round + 1 + encodedSize(chat.ToolMessage(results...)); n > t.maxPayload {
		return fmt.Sprintf("temporal: %s (%d bytes) would take the model's next input to %d bytes at least, over the turn's bound of %d (MaxPayloadBytes)",
			what, round, n, t.maxPayload)
	}
	return ""
}

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

// memoryOptions returns ctx with the options of a memory activity.
func (t *turn) memoryOptions(ctx workflow.Context) workflow.Context {
	return workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		TaskQueue:           t.cfg.TaskQueue,
		StartToCloseTimeout: time.Minute,
		RetryPolicy:         retryPolicy(t.cfg.ModelRetry),
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
		errTypeConfig, errTypeProvider, errTypeTurnEnded, errTypeLimit, errTypeInvalidDecision, errTypePayload)
	return &out
}

// cloneRound returns a copy of r that the turn's later changes to r do not reach.
func cloneRound(r *client.Round) *client.Round {
	out := *r
	out.Message.ToolCalls = append([]chat.ToolCall(nil), r.Message.ToolCalls...)
	out.Calls = append([]client.PendingCall(nil), r.Calls...)
	return &out
}

// textOnly returns the part of resp a consumer of events reads (text and reasoning, no tool-call
// fragments), or nil when there is none.
func textOnly(resp *chat.Response) *chat.Response {
	var gens []chat.Generation
	for _, g := range resp.Generations {
		if g.Message.Content == "" && len(g.Message.Reasoning) == 0 {
			continue
		}
		g.Message.ToolCalls = nil
		gens = append(gens, g)
	}
	if gens == nil {
		return nil
	}
	out := *resp
	out.Generations = gens
	return &out
}
