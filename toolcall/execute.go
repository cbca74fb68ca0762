package toolcall

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/wield-ai/wield/chat"
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
	ctx       context.Context // the turn's context: the caller's, with the tool context
	cancel    context.CancelCauseFunc
	observer  Observer
	available []tool.Definition
	debug     bool
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
// turn's tool context and observer; the limits count the turn's calls (turn may be nil).
//
// Failed calls become error results for the model unless the [ErrorProcessor] ends the turn.
// ExecuteTurn returns an error, and no Result, when the turn ends: a [tool.Fatal] error from a
// tool (as a *[tool.ExecutionError]), an error from the ErrorProcessor, a breached limit under
// [LimitFail] (a *[LimitError], before any call runs), or ctx being cancelled or expiring (the
// error matches ctx.Err() with errors.Is). Calls still running are then cancelled. It also
// fails when resp has no tool calls ([ErrNoToolCalls]) or two tools of p.Options share a name.
func (m *Manager) ExecuteTurn(ctx context.Context, turn *Turn, p *chat.Prompt, resp *chat.Response) (*Result, error) {
	if p == nil {
		return nil, errors.New("toolcall: Execute needs a prompt")
	}
	calls := resp.ToolCalls()
	if len(calls) == 0 {
		return nil, ErrNoToolCalls
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
	if turn != nil {
		t.observer = turn.Observer
	}
	if t.debug {
		log.DebugContext(ctx, "toolcall: executing tool calls", "calls", len(calls), "tools", len(tools))
	}

	breaches := m.cfg.Limits.check(turn, p.Messages, calls)
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

	states := make([]callState, len(calls))
	find := toolFinder(defs)
	for i, c := range calls {
		st := &states[i]
		st.call = c
		if breaches != nil {
			st.refused = breaches[i]
		}
		if j := find(c.Name); j >= 0 {
			st.tool, st.description, st.meta = tools[j], defs[j].Description, tools[j].Metadata()
		}
	}

	if turn != nil {
		ctx = tool.WithContext(ctx, turn.ToolContext)
	}
	turnCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	t.ctx, t.cancel = turnCtx, cancel

	// Sequential tools split the calls into groups run one after the other; the calls within a
	// group run in parallel.
	for lo := 0; lo < len(states) && turnCtx.Err() == nil; {
		hi := lo + 1
		if !states[lo].alone() {
			for hi < len(states) && !states[hi].alone() {
				hi++
			}
		}
		m.runGroup(t, states[lo:hi])
		lo = hi
	}

	if cause := context.Cause(turnCtx); cause != nil {
		if end, ok := cause.(*turnEnd); ok && end.round == t {
			if t.debug {
				log.DebugContext(ctx, "toolcall: the turn ends with an error", "error", end.err)
			}
			return nil, end.err
		}
		if t.debug {
			log.DebugContext(ctx, "toolcall: interrupted", "error", cause)
		}
		return nil, contextError(ctx)
	}

	results := make([]chat.ToolResult, len(states))
	direct := true
	for i := range states {
		results[i] = states[i].result
		direct = direct && states[i].tool != nil && states[i].meta.ReturnDirect && !results[i].IsError
	}
	history := make([]chat.Message, 0, len(p.Messages)+2)
	history = append(history, p.Messages...)
	history = append(history, assistantMessage(resp, calls), chat.ToolMessage(results...))
	if t.debug {
		log.DebugContext(ctx, "toolcall: tool calls executed", "calls", len(calls), "return_direct", direct)
	}
	return &Result{History: history, ReturnDirect: direct}, nil
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
			m.runCall(t, &group[i])
		}
		return
	}
	var next atomic.Int64
	work := func() {
		for {
			i := int(next.Add(1) - 1)
			if i >= len(group) || t.ctx.Err() != nil {
				return
			}
			m.runCall(t, &group[i])
		}
	}
	workers := min(len(group), m.concurrency)
	var wg sync.WaitGroup
	for range workers - 1 {
		wg.Go(work)
	}
	work() // this goroutine is the last worker
	wg.Wait()
}

// runCall executes one call and records its outcome in st.
func (m *Manager) runCall(t *round, st *callState) {
	start := time.Now()
	ctx := tool.WithCall(t.ctx, tool.Call{ID: st.call.ID, Name: st.call.Name})
	ctx, span := m.startSpan(ctx, st)
	if t.observer != nil {
		t.observer.ToolStarted(ctx, st.call)
	}

	switch {
	case st.refused != nil:
		st.errType, st.errText = errTypeLimit, st.refused.Error()
		st.result = chat.ToolResult{ID: st.call.ID, Name: st.call.Name, Content: st.refused.modelText(), IsError: true}
	case st.tool == nil:
		m.fail(ctx, t, st, unknownTool(st.call.Name, t.available), errTypeUnknownTool)
	default:
		args := st.call.Arguments
		if strings.TrimSpace(args) == "" {
			args = "{}" // streamed calls of tools without parameters may carry no arguments at all
		}
		out, err := tool.Invoke(ctx, st.tool, args)
		if err != nil {
			var pe *tool.PanicError
			if errors.As(err, &pe) {
				m.logger().ErrorContext(ctx, "toolcall: tool panicked",
					"tool", st.call.Name, "call_id", st.call.ID, "panic", fmt.Sprint(pe.Value), "stack", string(pe.Stack))
			}
			m.fail(ctx, t, st, err, classify(err))
			break
		}
		st.result = chat.ToolResult{ID: st.call.ID, Name: st.call.Name, Content: out}
	}

	elapsed := time.Since(start)
	if t.observer != nil {
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

// fail records a failed call: an error result for the model, or the end of the turn.
func (m *Manager) fail(ctx context.Context, t *round, st *callState, cause error, errType string) {
	ee := &tool.ExecutionError{Tool: st.call.Name, CallID: st.call.ID, Err: cause}
	st.errType, st.errText = errType, cause.Error()
	text := ""
	switch {
	case t.ctx.Err() != nil:
		// The turn ended while the call ran (the caller cancelled, or another call ended it):
		// whatever the call returned is a consequence, not its own failure.
		st.errType = errTypeCanceled
		st.errText = context.Cause(t.ctx).Error()
		text = "The call was cancelled: " + st.errText
	case tool.IsFatal(cause):
		st.errType = errTypeFatal
		t.cancel(&turnEnd{t, ee})
		text = cause.Error()
	default:
		var err error
		text, err = m.processor.Process(ctx, ee)
		if err != nil {
			t.cancel(&turnEnd{t, err})
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

// unknownTool is the cause reported for a call of a tool the request does not offer.
func unknownTool(name string, available []tool.Definition) error {
	if len(available) == 0 {
		return fmt.Errorf("%w %q: no tools are available", ErrUnknownTool, name)
	}
	var b strings.Builder
	for i, d := range available {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(d.Name)
	}
	return fmt.Errorf("%w %q; the available tools are: %s", ErrUnknownTool, name, b.String())
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
