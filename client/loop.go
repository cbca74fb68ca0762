package client

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/toolcall"
)

// DefaultMaxIterations is the iteration cap of a tool loop whose config sets none.
const DefaultMaxIterations = 20

// EligibilityChecker decides whether a model response starts a tool round. The default is
// [chat.Response.HasToolCalls].
type EligibilityChecker func(resp *chat.Response) bool

// ToolAdvisor is implemented by tool-calling advisors: [*ToolCallingAdvisor] and any type that
// embeds one. A chain holds at most one: a custom one replaces the auto-registered default, and
// two custom ones fail the call with [ErrTwoToolAdvisors].
type ToolAdvisor interface {
	CallAdvisor
	StreamAdvisor
	toolAdvisor()
}

// ToolLoopHooks customise the tool loop without re-implementing it. Every hook is optional. The
// call path uses the first six; the stream path uses the Stream variants and, where one is nil,
// the call hook of the same step, so a customisation that does not care about streaming sets
// only the call hooks.
//
// Hooks run on the goroutine of the loop, one at a time. State for one turn belongs in
// [Loop.SetValue], never in the hook's closure, since one advisor serves concurrent calls.
type ToolLoopHooks struct {
	// InitializeLoop runs once per turn, before the first model call: index tools, set up
	// per-turn state, augment the system prompt.
	InitializeLoop func(ctx context.Context, req *Request) (*Request, error)
	// BeforeCall runs before each model call; the request it returns is what the rest of the
	// chain and the model receive for this iteration: inject or remove tools, change options,
	// add per-iteration context. Each iteration starts again from the loop's own request (as
	// InitializeLoop left it, with the messages of the iteration), so a hook that adds a tool
	// adds it once per call, never cumulatively.
	BeforeCall func(ctx context.Context, req *Request) (*Request, error)
	// AfterCall runs after each model call, before the loop decides whether to run tools: record
	// observations or transform the response.
	AfterCall func(ctx context.Context, req *Request, resp *Response) (*Response, error)
	// NextInstructions returns the messages of the next iteration's request after a tool round.
	// The default is [Loop.NextMessages].
	NextInstructions func(ctx context.Context, req *Request, resp *Response, result *toolcall.Result) ([]chat.Message, error)
	// FinalizeLoop runs once when the loop ends with an answer (not after an error): emit
	// aggregate metrics, clean up state, transform the final response.
	FinalizeLoop func(ctx context.Context, req *Request, resp *Response) (*Response, error)
	// EndLoop runs exactly once for every turn whose InitializeLoop ran (even if it failed),
	// however the turn ends, so it is where a turn releases what InitializeLoop took. On success
	// it runs after FinalizeLoop with the turn's response and a nil error; on failure resp is
	// nil and err is what ended the turn: a hook's, the model's or a tool's error, the context's
	// error, [context.Canceled] when a stream's consumer stopped before the end, or
	// [ErrLoopAborted] when a hook, advisor, model or stream consumer panicked, in which case the
	// panic goes on once EndLoop returns. req is the loop's request as of the turn's last step,
	// with its [Loop]. ctx may be done: clean-up that needs a live context should use
	// [context.WithoutCancel]. EndLoop cannot change the outcome.
	EndLoop func(ctx context.Context, req *Request, resp *Response, err error)

	InitializeLoopStream   func(ctx context.Context, req *Request) (*Request, error)
	BeforeStream           func(ctx context.Context, req *Request) (*Request, error)
	AfterStream            func(ctx context.Context, req *Request, resp *Response) (*Response, error)
	NextInstructionsStream func(ctx context.Context, req *Request, resp *Response, result *toolcall.Result) ([]chat.Message, error)
	FinalizeLoopStream     func(ctx context.Context, req *Request, resp *Response) (*Response, error)
	EndLoopStream          func(ctx context.Context, req *Request, resp *Response, err error)
}

// ErrLoopAborted is the error [ToolLoopHooks.EndLoop] receives when the turn's goroutine is
// unwinding from a panic (or runtime.Goexit) rather than returning: the panic is not recovered.
var ErrLoopAborted = errors.New("client: tool loop aborted by a panic")

// endLoop runs hook, if set, as a turn ends. r is the loop's request (nil before the loop was
// set up, when no hook runs); returned is false while a panic unwinds the turn.
func endLoop(ctx context.Context, hook func(context.Context, *Request, *Response, error), r *Request, resp *Response, err error, returned bool) {
	if hook == nil || r == nil {
		return
	}
	switch {
	case !returned:
		resp, err = nil, ErrLoopAborted
	case err != nil:
		resp = nil
	}
	hook(ctx, r, resp, err)
}

// ToolLoopConfig configures a [ToolCallingAdvisor]. The zero value is the auto-registered
// default.
type ToolLoopConfig struct {
	// Manager executes tool calls; nil uses the client's.
	Manager *toolcall.Manager
	// Order places the advisor in the chain; zero means [OrderToolCalling].
	Order int
	// Eligible decides whether a response starts a tool round; nil means it has tool calls.
	Eligible EligibilityChecker
	// DisableHistory stops the loop from sending the whole conversation on each iteration: the
	// next request holds only the system messages and the new tool results, for an advisor
	// inside the loop that supplies history. The client does this automatically when a
	// [HistoryKeeper] sits inside the loop.
	DisableHistory bool
	// MaxIterations caps the tool rounds of one turn; zero means [DefaultMaxIterations]. When
	// the cap is reached the loop makes one last model call with ToolChoice "none" (the tool
	// definitions stay, since providers reject tool history without them), does not run any
	// tool it still asks for, and ends with [OutcomeIterationLimit].
	MaxIterations int
	// Hooks customise the loop.
	Hooks ToolLoopHooks
}

// ToolCallingAdvisor is the tool loop: it calls the rest of the chain, runs the tool calls of
// the response through a [toolcall.Manager], sends the results back, and repeats until the
// model answers without tool calls, every tool called is return-direct, or the iteration cap is
// reached. Advisors with a higher order run inside the loop, once per model call.
//
// It is the only place the loop lives. Customise it with [ToolLoopConfig] and its hooks, and
// build other tool advisors by embedding one (the embedding type is then a [ToolAdvisor]).
type ToolCallingAdvisor struct {
	cfg ToolLoopConfig
}

// NewToolCallingAdvisor returns a tool-calling advisor.
func NewToolCallingAdvisor(cfg ToolLoopConfig) *ToolCallingAdvisor {
	if cfg.Order == 0 {
		cfg.Order = OrderToolCalling
	}
	if cfg.MaxIterations <= 0 {
		cfg.MaxIterations = DefaultMaxIterations
	}
	return &ToolCallingAdvisor{cfg: cfg}
}

// Order implements [Advisor].
func (a *ToolCallingAdvisor) Order() int { return a.cfg.Order }

// Config returns the advisor's configuration, defaults filled in.
func (a *ToolCallingAdvisor) Config() ToolLoopConfig { return a.cfg }

func (a *ToolCallingAdvisor) toolAdvisor() {}

// Loop is the state of one turn of a tool loop, shared by its iterations' requests.
type Loop struct {
	// Iteration counts the tool rounds done so far: 0 during the first model call.
	Iteration int
	// MaxIterations is the loop's iteration cap.
	MaxIterations int
	// Usage sums the usage of the model calls made so far.
	Usage chat.Usage
	// History reports whether the loop sends the whole conversation on each iteration.
	History bool
	// Final is true during the last model call, made with tool use turned off because the
	// iteration cap was reached.
	Final bool

	system []chat.Message
	values map[any]any
	// calls counts the turn's tool calls for the manager's limits when the rounds are sent
	// without the turn's history, which is where the manager would otherwise count them.
	calls *toolcall.Counter
}

// execContext is the context for executing a round's tool calls.
func (l *Loop) execContext(ctx context.Context) context.Context {
	if l.calls == nil {
		return ctx
	}
	return toolcall.WithCounter(ctx, l.calls)
}

// Value returns the per-turn value stored under key, or nil.
func (l *Loop) Value(key any) any { return l.values[key] }

// SetValue stores a per-turn value, for hooks that keep state across iterations. Use a key of
// an unexported type, as with context values.
func (l *Loop) SetValue(key, value any) {
	if l.values == nil {
		l.values = make(map[any]any)
	}
	l.values[key] = value
}

// NextMessages returns the default messages of the next iteration after a tool round: with
// history, the whole conversation the manager returned; without, the first request's system
// messages followed by the new tool results.
func (l *Loop) NextMessages(result *toolcall.Result) []chat.Message {
	if l.History {
		return result.History
	}
	h := result.History
	start := len(h)
	for start > 0 && h[start-1].Role == chat.RoleTool {
		start--
	}
	out := make([]chat.Message, 0, len(l.system)+len(h)-start)
	out = append(out, l.system...)
	return append(out, h[start:]...)
}

func leadingSystem(msgs []chat.Message) []chat.Message {
	n := 0
	for n < len(msgs) && msgs[n].Role == chat.RoleSystem {
		n++
	}
	return msgs[:n:n]
}

// ErrNoManager is returned when a tool loop runs outside a client and its config has no manager.
var ErrNoManager = errors.New("client: tool loop has no toolcall.Manager")

func (a *ToolCallingAdvisor) manager(req *Request) (*toolcall.Manager, error) {
	if a.cfg.Manager != nil {
		return a.cfg.Manager, nil
	}
	if req.rt != nil && req.rt.manager != nil {
		return req.rt.manager, nil
	}
	return nil, ErrNoManager
}

func (a *ToolCallingAdvisor) eligible(resp *Response) bool {
	if resp == nil || resp.Chat == nil {
		return false
	}
	if a.cfg.Eligible != nil {
		return a.cfg.Eligible(resp.Chat)
	}
	return resp.Chat.HasToolCalls()
}

// start sets up a turn's loop state and runs the initialize hook. If the hook fails, the
// request it was given comes back with the error, for the end hook.
func (a *ToolCallingAdvisor) start(ctx context.Context, req *Request, span loopSpan, init func(context.Context, *Request) (*Request, error)) (*Request, *Loop, error) {
	loop := &Loop{MaxIterations: a.cfg.MaxIterations, History: !a.cfg.DisableHistory && !req.memoryInLoop}
	if !loop.History {
		loop.system = leadingSystem(req.Prompt.Messages)
		loop.calls = &toolcall.Counter{}
	}
	r := req.Clone()
	r.Loop = loop
	r.untraced = span.off
	if r.Prompt.Options == nil {
		r.Prompt.Options = &chat.Options{}
	}
	if init != nil {
		out, err := init(ctx, r)
		if err != nil {
			return r, loop, fmt.Errorf("client: tool loop: initialize: %w", err)
		}
		if out == nil {
			return r, loop, errors.New("client: tool loop: initialize hook returned no request")
		}
		r = out
	}
	return r, loop, nil
}

// prepare runs the before hook and, past the cap, turns tool use off for this call only.
func (a *ToolCallingAdvisor) prepare(ctx context.Context, r *Request, loop *Loop, before func(context.Context, *Request) (*Request, error)) (base, cur *Request, err error) {
	loop.Final = loop.Iteration >= loop.MaxIterations
	if before != nil {
		if r, err = before(ctx, r); err != nil {
			return nil, nil, fmt.Errorf("client: tool loop: before call: %w", err)
		}
		if r == nil {
			return nil, nil, errors.New("client: tool loop: before-call hook returned no request")
		}
	}
	cur = r
	if loop.Final {
		o := r.Prompt.Options.Clone()
		o.ToolChoice = "none"
		cur = r.WithOptions(o)
	}
	return r, cur, nil
}

// after sums usage and runs the after hook.
func (a *ToolCallingAdvisor) after(ctx context.Context, cur *Request, resp *Response, loop *Loop, hook func(context.Context, *Request, *Response) (*Response, error)) (*Response, error) {
	if resp == nil || resp.Chat == nil {
		return nil, ErrNoResponse
	}
	loop.Usage = loop.Usage.Add(resp.Usage)
	if hook != nil {
		var err error
		if resp, err = hook(ctx, cur, resp); err != nil {
			return nil, fmt.Errorf("client: tool loop: after call: %w", err)
		}
		if resp == nil || resp.Chat == nil {
			return nil, errors.New("client: tool loop: after-call hook returned no response")
		}
	}
	return resp, nil
}

// next computes the request of the next iteration from the loop's request r; sent is the
// request of the iteration that just ended.
func (a *ToolCallingAdvisor) next(ctx context.Context, r, sent *Request, resp *Response, result *toolcall.Result, loop *Loop,
	hook func(context.Context, *Request, *Response, *toolcall.Result) ([]chat.Message, error)) (*Request, error) {
	var msgs []chat.Message
	if hook != nil {
		var err error
		if msgs, err = hook(ctx, sent, resp, result); err != nil {
			return nil, fmt.Errorf("client: tool loop: next instructions: %w", err)
		}
	} else {
		msgs = loop.NextMessages(result)
	}
	loop.Iteration++
	return r.WithMessages(msgs), nil
}

// finish turns the last call's response, which the loop owns, into the turn's response.
func (a *ToolCallingAdvisor) finish(resp *Response, loop *Loop, calls int) *Response {
	out := resp
	out.Usage = loop.Usage
	out.ModelCalls = calls
	switch {
	case loop.Final:
		out.Outcome = OutcomeIterationLimit
	case resp.Chat.HasToolCalls():
		out.Outcome = OutcomeToolCalls // declined by the eligibility checker
	default:
		out.Outcome = OutcomeAnswer
	}
	return out
}

// direct builds the response of a return-direct round from the tool results.
func direct(resp *Response, result *toolcall.Result, loop *Loop, calls int) *Response {
	var results []chat.ToolResult
	h := result.History
	for i := len(h) - 1; i >= 0 && h[i].Role == chat.RoleTool; i-- {
		results = append(h[i].ToolResults[:len(h[i].ToolResults):len(h[i].ToolResults)], results...)
	}
	texts := make([]string, len(results))
	for i, r := range results {
		texts[i] = r.Content
	}
	return &Response{
		Chat: &chat.Response{
			ID:    resp.Chat.ID,
			Model: resp.Chat.Model,
			Generations: []chat.Generation{{
				Message:      chat.Assistant(strings.Join(texts, "\n")),
				FinishReason: chat.FinishStop,
			}},
			Usage: resp.Chat.Usage,
		},
		Usage:       loop.Usage,
		Outcome:     OutcomeReturnDirect,
		ModelCalls:  calls,
		ToolResults: results,
	}
}

// Call runs the tool loop for a call.
func (a *ToolCallingAdvisor) Call(ctx context.Context, req *Request, next CallNext) (resp *Response, err error) {
	mgr, err := a.manager(req)
	if err != nil {
		return nil, err
	}
	obs := req.rt.telemetry()
	ctx, span := obs.startLoop(ctx, req)
	defer func() { span.end(resp, err) }()

	var r *Request // the loop's request, once there is a loop
	returned := false
	defer func() { endLoop(ctx, a.cfg.Hooks.EndLoop, r, resp, err, returned) }()
	resp, err = a.call(ctx, req, next, mgr, obs, span, &r)
	returned = true
	return resp, err
}

// call is the loop of [ToolCallingAdvisor.Call]; it keeps *loopReq at the loop's current request.
func (a *ToolCallingAdvisor) call(ctx context.Context, req *Request, next CallNext, mgr *toolcall.Manager, obs *telemetry, span loopSpan, loopReq **Request) (*Response, error) {
	h := &a.cfg.Hooks
	r, loop, err := a.start(ctx, req, span, h.InitializeLoop)
	*loopReq = r
	if err != nil {
		return nil, err
	}
	for calls := 1; ; calls++ {
		base, cur, err := a.prepare(ctx, r, loop, h.BeforeCall)
		if err != nil {
			return nil, err
		}
		resp, err := next(ctx, cur)
		if err != nil {
			return nil, err
		}
		if resp, err = a.after(ctx, cur, resp, loop, h.AfterCall); err != nil {
			return nil, err
		}
		var final *Response
		if loop.Final || !a.eligible(resp) {
			final = a.finish(resp, loop, calls)
		} else {
			obs.logRound(ctx, loop, resp.Chat)
			result, err := mgr.Execute(loop.execContext(ctx), &cur.Prompt, resp.Chat)
			if err != nil {
				return nil, fmt.Errorf("client: tool loop: %w", err)
			}
			if result.ReturnDirect {
				final = direct(resp, result, loop, calls)
			} else {
				if r, err = a.next(ctx, r, base, resp, result, loop, h.NextInstructions); err != nil {
					return nil, err
				}
				*loopReq = r
			}
		}
		if final != nil {
			if h.FinalizeLoop != nil {
				if final, err = h.FinalizeLoop(ctx, r, final); err != nil {
					return nil, fmt.Errorf("client: tool loop: finalize: %w", err)
				}
			}
			return final, nil
		}
	}
}
