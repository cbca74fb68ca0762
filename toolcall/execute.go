package toolcall

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/engine"
	"github.com/wield-ai/wield/tool"
)

// Result is the outcome of executing a response's tool calls.
type Result struct {
	// History is the conversation to send next: the prompt's messages, the assistant message with
	// the calls and one tool message holding a result per call, in the model's order.
	History []chat.Message
	// ReturnDirect is set when every call went to a return-direct tool and none failed: the
	// results are the final answer of the turn instead of going back to the model.
	ReturnDirect bool
	// Stopped is set when the round did not finish: calls wait for approval (then none ran) or
	// a tool interrupted the turn. History is nil then, and Calls says where each call stands;
	// [Manager.ResumeTurn] finishes the round once the application has decided.
	Stopped bool
	// Calls are the round's calls and where they stand, in the model's order; set only when the
	// round stopped.
	Calls []CallOutcome
}

// ToolResults returns the results of the executed calls: those of the last message of History.
func (r *Result) ToolResults() []chat.ToolResult {
	if r == nil || len(r.History) == 0 {
		return nil
	}
	return r.History[len(r.History)-1].ToolResults
}

// callState is one call of a response as it goes through Execute.
type callState struct {
	call        chat.ToolCall
	tool        tool.Tool // nil for an unknown tool
	description string
	meta        tool.Metadata
	refused     *LimitError // set when a limit refuses the call and the model is to be told
	plan        *Plan       // set when a stopped round is resumed
	asks        bool        // waits for approval
	ran         bool        // runCall started it
	interrupted error       // the tool's error, which interrupted the turn
	result      chat.ToolResult
	errType     string // error.type of a failed call; empty on success
	errText     string
}

// turnEnd wraps the error that ends a turn as the cause of the round's context, so Execute can
// tell it from a cancellation by the caller (whose cause may itself be an outer Execute's turnEnd).
type turnEnd struct {
	round *round
	err   error
}

func (e *turnEnd) Error() string { return e.err.Error() }
func (e *turnEnd) Unwrap() error { return e.err }

// round is the shared state of one Execute.
type round struct {
	ctx context.Context // the turn's context: the caller's, with the tool context
	// cancel ends the calls of a round of several; a round of one call has none to stop, so its
	// context is the caller's and ended holds what ended the turn.
	cancel    context.CancelCauseFunc
	ended     error
	observer  Observer
	available []tool.Definition
	debug     bool
	runner    ToolRunner  // a durable engine's, which runs the tools' bodies; nil in a process
	stopped   atomic.Bool // a call interrupted the turn
}

// Execute runs every tool call of resp (all generations) with the tools of p.Options and returns
// the history to send next: p.Messages, the assistant message with the calls, and ONE tool message
// holding a result per call in the model's order. It is ExecuteTurn without a turn: the limits
// count the calls answered in p.Messages since the last user message, and no tool context or
// observer applies.
func (m *Manager) Execute(ctx context.Context, p *chat.Prompt, resp *chat.Response) (*Result, error) {
	return m.ExecuteTurn(ctx, nil, p, resp)
}

// ExecuteTurn runs the tool calls of one round of turn, as [Manager.Execute] describes, with the
// turn's tool context, observer and approval policy; the limits count the turn's calls (turn may
// be nil).
//
// Failed calls become error results for the model unless the [ErrorProcessor] ends the turn.
// ExecuteTurn returns an error, and no Result, when the turn ends: a [tool.Fatal] error from a
// tool (as a *[tool.ExecutionError]), an error from the ErrorProcessor, a breached limit under
// [LimitFail] (a *[LimitError], before any call runs), an error from [Turn.BeforeRun], or ctx
// being cancelled or expiring (the error matches ctx.Err() with errors.Is). Calls still running
// are then cancelled. It also fails when resp has no tool calls ([ErrNoToolCalls]) or two tools
// of p.Options share a name.
//
// The round stops instead of finishing ([Result.Stopped]) when the approval policy asks for any
// of its calls (then none runs) or a tool returns an [InterruptError] (then the calls started
// finish, later sequential groups do not start); [Manager.ResumeTurn] continues it.
func (m *Manager) ExecuteTurn(ctx context.Context, turn *Turn, p *chat.Prompt, resp *chat.Response) (*Result, error) {
	return m.execute(ctx, turn, p, resp, nil)
}

// ResumeTurn finishes a round that stopped: plans hold, for each call of resp in order, what to
// do with it instead of what [Manager.ExecuteTurn] does (see [Plan]); a call whose plan is the
// zero value is treated as in a new round. The round's calls are not counted against the limits
// again: they were when it first ran. Arguments that a plan replaces should be checked with
// [ValidateArguments] first; the tool checks them again when it runs. The round may stop again
// if a tool interrupts or an unapproved call asks.
func (m *Manager) ResumeTurn(ctx context.Context, turn *Turn, p *chat.Prompt, resp *chat.Response, plans []Plan) (*Result, error) {
	if plans == nil {
		plans = []Plan{}
	}
	return m.execute(ctx, turn, p, resp, plans)
}

// execute runs a round; plans is nil for a new round.
func (m *Manager) execute(ctx context.Context, turn *Turn, p *chat.Prompt, resp *chat.Response, plans []Plan) (*Result, error) {
	if p == nil {
		return nil, errors.New("toolcall: Execute needs a prompt")
	}
	calls := roundCalls(resp, plans != nil)
	if len(calls) == 0 {
		return nil, ErrNoToolCalls
	}
	if plans != nil && len(plans) != len(calls) {
		return nil, fmt.Errorf("%w: %d plans for %d calls", ErrPlanMismatch, len(plans), len(calls))
	}
	var offered []tool.Tool
	if p.Options != nil {
		offered = p.Options.Tools
	}
	tools, defs, err := m.resolve(ctx, offered, nil)
	if err != nil {
		return nil, err
	}
	log := m.logger()
	t := &round{available: defs, debug: log.Enabled(ctx, slog.LevelDebug)}
	if rt := engine.From(ctx); rt != nil {
		t.runner, _ = rt.(ToolRunner)
	}
	var policy ApprovalPolicy
	if turn != nil {
		t.observer, policy = turn.Observer, turn.Approval
	}
	if t.debug {
		log.DebugContext(ctx, "toolcall: executing tool calls", "calls", len(calls), "tools", len(tools), "resumed", plans != nil)
	}

	var breaches []*LimitError
	if plans == nil {
		breaches = m.cfg.Limits.check(turn, p.Messages, calls)
	}
	if breaches != nil && m.cfg.Limits.OnExceeded != LimitTellModel {
		for _, b := range breaches {
			if b != nil {
				if t.debug {
					log.DebugContext(ctx, "toolcall: limit exceeded, ending the turn", "tool", b.Tool, "limit", b.Limit, "call_id", b.CallID)
				}
				return nil, b
			}
		}
	}

	states, asks, err := m.callStates(ctx, calls, plans, breaches, policy, tools, defs)
	if err != nil {
		return nil, err
	}
	if asks {
		if t.debug {
			log.DebugContext(ctx, "toolcall: calls need approval; none runs", "calls", len(calls))
		}
		return &Result{Stopped: true, Calls: outcomes(states)}, nil
	}
	if turn != nil && turn.BeforeRun != nil {
		if err := turn.BeforeRun(ctx, outcomes(states)); err != nil {
			return nil, err
		}
	}

	if turn != nil {
		ctx = tool.WithContext(ctx, turn.ToolContext)
	}
	t.ctx = ctx
	if len(states) > 1 {
		var cancel context.CancelCauseFunc
		t.ctx, cancel = context.WithCancelCause(ctx)
		defer cancel(nil)
		t.cancel = cancel
	}

	m.runGroups(t, states)
	if err := m.roundError(ctx, t); err != nil {
		return nil, err
	}
	if t.stopped.Load() {
		if t.debug {
			log.DebugContext(ctx, "toolcall: a tool interrupted the turn", "calls", len(calls))
		}
		return &Result{Stopped: true, Calls: outcomes(states)}, nil
	}

	res := roundResult(p, resp, calls, states)
	if t.debug {
		log.DebugContext(ctx, "toolcall: tool calls executed", "calls", len(calls), "return_direct", res.ReturnDirect)
	}
	return res, nil
}

// runGroups runs a round's calls. Sequential tools split the calls into groups run one after
// the other; the calls within a group run in parallel. After an interrupt, later groups wait for
// the resume.
func (m *Manager) runGroups(t *round, states []callState) {
	for lo := 0; lo < len(states) && t.ctx.Err() == nil && !t.stopped.Load(); {
		hi := lo + 1
		if !states[lo].alone() {
			for hi < len(states) && !states[hi].alone() {
				hi++
			}
		}
		m.runGroup(t, states[lo:hi])
		lo = hi
	}
}

// callStates pairs each call of a round with its tool, its plan (when resumed), its limit
// breach, and whether it asks for approval; asks reports that one does.
func (m *Manager) callStates(ctx context.Context, calls []chat.ToolCall, plans []Plan, breaches []*LimitError, policy ApprovalPolicy, tools []tool.Tool, defs []tool.Definition) (states []callState, asks bool, err error) {
	states = make([]callState, len(calls))
	find := toolFinder(defs)
	for i := range calls {
		st := &states[i]
		if plans != nil {
			pl := &plans[i]
			if pl.Arguments != "" {
				calls[i].Arguments = pl.Arguments
			}
			st.plan = pl
		}
		st.call = calls[i]
		if breaches != nil {
			st.refused = breaches[i]
		}
		if j := find(st.call.Name); j >= 0 {
			st.tool, st.description, st.meta = tools[j], defs[j].Description, tools[j].Metadata()
			if st.refused == nil && (st.plan == nil || st.plan.Result == nil && !st.plan.Approved) {
				if policy == nil {
					st.asks = st.meta.RequiresApproval
				} else if st.asks, err = m.ask(ctx, policy, ApprovalRequest{Call: st.call, Definition: defs[j], Metadata: st.meta}); err != nil {
					return nil, false, err
				}
				asks = asks || st.asks
			}
		}
	}
	return states, asks, nil
}

// roundError returns the error that ended the round t once its calls ran, if any: a tool's or
// processor's error, or the context's.
func (m *Manager) roundError(ctx context.Context, t *round) error {
	if t.ended != nil {
		if t.debug {
			m.logger().DebugContext(ctx, "toolcall: the turn ends with an error", "error", m.errorText(t.ended))
		}
		return t.ended
	}
	if cause := context.Cause(t.ctx); cause != nil {
		if end, ok := cause.(*turnEnd); ok && end.round == t {
			if t.debug {
				m.logger().DebugContext(ctx, "toolcall: the turn ends with an error", "error", m.errorText(end.err))
			}
			return end.err
		}
		if t.debug {
			m.logger().DebugContext(ctx, "toolcall: interrupted", "error", m.errorText(cause))
		}
		return contextError(ctx)
	}
	return nil
}

// roundResult is a finished round's history: the prompt's, the assistant message and the results.
func roundResult(p *chat.Prompt, resp *chat.Response, calls []chat.ToolCall, states []callState) *Result {
	results := make([]chat.ToolResult, len(states))
	direct := true
	for i := range states {
		results[i] = states[i].result
		direct = direct && states[i].tool != nil && states[i].meta.ReturnDirect && !results[i].IsError
	}
	history := make([]chat.Message, 0, len(p.Messages)+2)
	history = append(history, p.Messages...)
	history = append(history, assistantMessage(resp, calls), chat.ToolMessage(results...))
	return &Result{History: history, ReturnDirect: direct}
}

// roundCalls returns the tool calls of resp. Those of a response of one generation are its own
// (clipped: appends go elsewhere), unless the round changes them (plans may replace arguments).
func roundCalls(resp *chat.Response, changed bool) []chat.ToolCall {
	if resp != nil && len(resp.Generations) == 1 && !changed {
		return slices.Clip(resp.Generations[0].Message.ToolCalls)
	}
	return resp.ToolCalls()
}

// ask asks policy about a call. A policy that panics (on arguments it did not expect, say) ends
// the turn with an error, before any call runs: a round may run on a goroutine of its own, where
// the panic would end the program.
func (m *Manager) ask(ctx context.Context, policy ApprovalPolicy, req ApprovalRequest) (asks bool, err error) {
	defer func() {
		if v := recover(); v != nil {
			m.logger().ErrorContext(ctx, "toolcall: approval policy panicked",
				"tool", req.Call.Name, "call_id", req.Call.ID, "panic", m.panicValue(v), "stack", string(debug.Stack()))
			msg, _, _ := strings.Cut(fmt.Sprint(v), "\n")
			if len(msg) > maxPanicText {
				msg = msg[:maxPanicText] + "…"
			}
			asks, err = false, fmt.Errorf("toolcall: the approval policy panicked on call %s (%s): %s", req.Call.ID, req.Call.Name, msg)
		}
	}()
	return policy(ctx, req), nil
}

// outcomes reports where each call of a round stands.
func outcomes(states []callState) []CallOutcome {
	out := make([]CallOutcome, len(states))
	for i := range states {
		st := &states[i]
		o := &out[i]
		o.Call = st.call
		switch {
		case st.interrupted != nil:
			o.Status, o.Err = CallInterrupted, st.interrupted
			errors.As(st.interrupted, &o.Interrupt)
		case st.ran:
			o.Status, o.Result = CallDone, st.result
		case st.refused != nil:
			o.Status, o.Result = CallDone, refusedResult(st)
		case st.given() != nil:
			o.Status, o.Result = CallDone, givenResult(st)
		case st.asks:
			o.Status = CallApproval
		default:
			o.Status = CallWaiting
		}
	}
	return out
}

func refusedResult(st *callState) chat.ToolResult {
	return chat.ToolResult{ID: st.call.ID, Name: st.call.Name, Content: st.refused.modelText(), IsError: true}
}

// given returns the result a plan gives the call, or nil.
func (st *callState) given() *chat.ToolResult {
	if st.plan == nil {
		return nil
	}
	return st.plan.Result
}

func givenResult(st *callState) chat.ToolResult {
	r := *st.given()
	if r.ID == "" {
		r.ID = st.call.ID
	}
	if r.Name == "" {
		r.Name = st.call.Name
	}
	return r
}

// alone reports whether the call must run without any other call beside it.
func (st *callState) alone() bool {
	return st.tool != nil && st.meta.Sequential && st.refused == nil
}

// runGroup runs calls in parallel, at most m.concurrency at once, and returns when the calls it
// started have finished. Calls not yet started when the turn ends are skipped.
func (m *Manager) runGroup(t *round, group []callState) {
	if len(group) == 1 || m.concurrency == 1 {
		for i := range group {
			if t.ctx.Err() != nil {
				return
			}
			m.runCall(t, t.ctx, &group[i], 1)
		}
		return
	}
	workers := min(len(group), m.concurrency)
	var next atomic.Int64
	work := func(ctx context.Context) {
		for {
			i := int(next.Add(1) - 1)
			if i >= len(group) || t.ctx.Err() != nil {
				return
			}
			m.runCall(t, ctx, &group[i], workers)
		}
	}
	if t.runner != nil {
		// A durable engine's concurrency: its coroutines, each with a context of its own.
		tasks := make([]func(context.Context), workers)
		for i := range tasks {
			tasks[i] = work
		}
		engine.Go(t.ctx, tasks...)
		return
	}
	var wg sync.WaitGroup
	for range workers - 1 {
		wg.Go(func() { work(t.ctx) })
	}
	work(t.ctx) // this goroutine is the last worker
	wg.Wait()
}

// runCall executes one call and records its outcome in st. base is the round's context, or one
// derived from it for the engine coroutine that runs the call; parallel is how many calls may
// run at once with it.
func (m *Manager) runCall(t *round, base context.Context, st *callState, parallel int) {
	start := time.Now()
	ctx := tool.WithCall(base, tool.Call{ID: st.call.ID, Name: st.call.Name, Parallel: parallel})
	ctx, span := m.startSpan(ctx, st)
	if t.observer != nil {
		t.observer.ToolStarted(ctx, st.call)
	}

	st.ran = true
	switch {
	case st.refused != nil:
		st.errType, st.errText = errTypeLimit, st.refused.Error()
		st.result = refusedResult(st)
	case st.given() != nil:
		st.result = givenResult(st)
		if st.result.IsError {
			st.errType, st.errText = errTypeRejected, m.failureText(errTypeRejected, errors.New(st.result.Content))
		}
	case st.tool == nil:
		m.fail(ctx, t, st, unknownTool(st.call.Name, t.available), errTypeUnknownTool)
	default:
		args := st.call.Arguments
		if strings.TrimSpace(args) == "" {
			args = "{}" // streamed calls of tools without parameters may carry no arguments at all
		}
		var resume *Resumption
		if st.plan != nil && st.plan.Resume != nil {
			resume = st.plan.Resume
			ctx = WithResumption(ctx, resume)
		}
		var out tool.Result
		var err error
		if t.runner != nil {
			out, err = t.runner.RunTool(ctx, st.tool, chat.ToolCall{ID: st.call.ID, Name: st.call.Name, Arguments: args}, resume)
		} else {
			out, err = tool.Invoke(ctx, st.tool, args)
		}
		if err != nil {
			var ie *InterruptError
			if errors.As(err, &ie) && ie.oversize() != nil {
				err = ie.oversize()
			} else if errors.As(err, &ie) && t.ctx.Err() == nil {
				// Not a failure: the call waits for the application, with no result yet.
				st.interrupted = err
				t.stopped.Store(true)
				break
			}
			var pe *tool.PanicError
			if errors.As(err, &pe) {
				m.logger().ErrorContext(ctx, "toolcall: tool panicked",
					"tool", st.call.Name, "call_id", st.call.ID, "panic", m.panicValue(pe.Value), "stack", string(pe.Stack))
			}
			m.fail(ctx, t, st, err, classify(err))
			break
		}
		st.result = chat.ToolResult{ID: st.call.ID, Name: st.call.Name, Content: out.Text, Parts: out.Parts}
	}

	elapsed := time.Since(start)
	if t.observer != nil && st.interrupted == nil {
		t.observer.ToolFinished(ctx, st.call, st.result, elapsed)
	}
	m.endSpan(ctx, span, st, elapsed)
	if t.debug {
		attrs := []any{"tool", st.call.Name, "call_id", st.call.ID, "elapsed", elapsed, "is_error", st.result.IsError}
		if st.errType != "" {
			attrs = append(attrs, "error.type", st.errType, "error", st.errText)
		}
		if m.cfg.RecordContent {
			attrs = append(attrs, "arguments", st.call.Arguments, "result", st.result.Content)
		}
		m.logger().DebugContext(ctx, "toolcall: call finished", attrs...)
	}
}

// end ends the turn with err, stopping the round's other calls.
func (t *round) end(err error) {
	if t.cancel == nil {
		t.ended = err // the round's only call
		return
	}
	t.cancel(&turnEnd{t, err})
}

// fail records a failed call: an error result for the model, or the end of the turn.
func (m *Manager) fail(ctx context.Context, t *round, st *callState, cause error, errType string) {
	ee := &tool.ExecutionError{Tool: st.call.Name, CallID: st.call.ID, Err: cause}
	st.errType, st.errText = errType, m.failureText(errType, cause)
	text := ""
	switch {
	case t.ctx.Err() != nil:
		// The turn ended while the call ran (the caller cancelled, or another call ended it):
		// whatever the call returned is a consequence, not its own failure.
		st.errType = errTypeCanceled
		st.errText = m.failureText(errTypeCanceled, context.Cause(t.ctx))
		text = "The call was cancelled: " + context.Cause(t.ctx).Error()
	case tool.IsFatal(cause):
		st.errType = errTypeFatal
		t.end(ee)
		text = cause.Error()
	default:
		var err error
		text, err = m.processor.Process(ctx, ee)
		if err != nil {
			t.end(err)
			text = err.Error()
		}
	}
	st.result = chat.ToolResult{ID: st.call.ID, Name: st.call.Name, Content: text, IsError: true}
}

// classify returns the error.type of a tool's error.
func classify(err error) string {
	var pe *tool.PanicError
	var ae *tool.ArgumentError
	switch {
	case errors.As(err, &ae):
		return errTypeInvalidArguments
	case errors.As(err, &pe):
		return errTypePanic
	case errors.Is(err, tool.ErrTimeout):
		return errTypeTimeout
	case tool.IsFatal(err):
		return errTypeFatal
	}
	return errTypeTool
}

// contextError is the error Execute returns when the caller's context ends the turn.
func contextError(ctx context.Context) error {
	err, cause := ctx.Err(), context.Cause(ctx)
	if cause == nil || cause == err {
		return fmt.Errorf("toolcall: tool calls interrupted: %w", err)
	}
	return fmt.Errorf("toolcall: tool calls interrupted: %w: %w", err, cause)
}

// assistantMessage is the assistant message holding the calls, with the generations of a
// split answer joined (see [chat.Response.Message]).
func assistantMessage(resp *chat.Response, calls []chat.ToolCall) chat.Message {
	msg := resp.Message()
	msg.ToolCalls = calls
	return msg
}

// toolFinder returns a lookup of a tool's index in defs by name, -1 when absent.
func toolFinder(defs []tool.Definition) func(string) int {
	if len(defs) <= nameSetSliceMax {
		return func(name string) int {
			for i := range defs {
				if defs[i].Name == name {
					return i
				}
			}
			return -1
		}
	}
	idx := make(map[string]int, len(defs))
	for i, d := range defs {
		idx[d.Name] = i
	}
	return func(name string) int {
		if i, ok := idx[name]; ok {
			return i
		}
		return -1
	}
}
