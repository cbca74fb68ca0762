package temporal

import (
	"errors"
	"fmt"
	"maps"
	"strings"
	"time"

	sdktemporal "go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/client"
	"github.com/wield-ai/wield/toolcall"
)

// The workflow's own loop, of the releases before the client's loop: turns it started replay
// on it (turnSettings.Engine 0), and Config.WorkflowLoop (deprecated) still starts turns on it.
// No rule changes here; the client's loop is where they live.

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

// memoryOptions returns ctx with the options of a memory activity.
func (t *turn) memoryOptions(ctx workflow.Context) workflow.Context {
	return workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		TaskQueue:           t.cfg.TaskQueue,
		StartToCloseTimeout: time.Minute,
		RetryPolicy:         retryPolicy(t.cfg.ModelRetry),
	})
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
