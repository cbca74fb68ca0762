package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/pprof"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/content"
	"github.com/wield-ai/wield/engine"
	"github.com/wield-ai/wield/internal/workers"
	"github.com/wield-ai/wield/toolcall"
)

// DefaultMaxIterations is the iteration cap of a tool loop whose config sets none.
const DefaultMaxIterations = 20

// EligibilityChecker decides whether a model response starts a tool round. The default is
// [chat.Response.HasToolCalls].
type EligibilityChecker func(resp *chat.Response) bool

// ToolLoopHooks customise the tool loop without re-implementing it. Every hook is optional, and
// each serves calls and streams alike; a hook that must tell them apart asks
// [Request.Streaming].
//
// Hooks run on the goroutine of the loop, one at a time. State for one turn belongs in
// [Turn.SetValue], never in the hook's closure, since one loop serves concurrent calls. Combine
// the hooks of several extensions with [ChainHooks].
type ToolLoopHooks struct {
	// InitializeLoop runs once per turn, before the first model call: index tools, set up
	// per-turn state, augment the system prompt. A resumed turn ([Client.Resume]) is a new turn
	// for the hooks: InitializeLoop runs again, with the stopped turn's messages, and per-turn
	// values start empty ([Turn.Resumed] tells).
	InitializeLoop func(ctx context.Context, req *Request) (*Request, error)
	// BeforeCall runs before each model call; the request it returns is what the rest of the
	// chain and the model receive for this iteration: inject or remove tools, change options,
	// add per-iteration context. Each iteration starts again from the loop's own request (as
	// InitializeLoop left it, with the messages of the iteration), so a hook that adds a tool
	// adds it once per call, never cumulatively. When a resumed turn finishes its stopped round,
	// BeforeCall runs to rebuild that round's request (its tools), though the model is not
	// called.
	BeforeCall func(ctx context.Context, req *Request) (*Request, error)
	// AfterCall runs after each model call, before the loop decides whether to run tools: record
	// observations or transform the response.
	AfterCall func(ctx context.Context, req *Request, resp *Response) (*Response, error)
	// NextInstructions returns the messages of the next iteration's request after a tool round.
	// The default is [Turn.NextMessages].
	NextInstructions func(ctx context.Context, req *Request, resp *Response, result *toolcall.Result) ([]chat.Message, error)
	// FinalizeLoop runs once when the loop ends with an answer (not after an error, nor when the
	// turn stops for approval or an interrupt): emit aggregate metrics, clean up state,
	// transform the final response.
	FinalizeLoop func(ctx context.Context, req *Request, resp *Response) (*Response, error)
	// EndLoop runs exactly once for every turn whose InitializeLoop ran (even if it failed),
	// however the turn ends, so it is where a turn releases what InitializeLoop took. On success
	// it runs after FinalizeLoop with the turn's response and a nil error (a turn that stops for
	// approval or an interrupt succeeds: its response holds Pending); on failure resp is
	// nil and err is what ended the turn: a hook's, the model's or a tool's error, the context's
	// error, an error matching [context.Canceled] when a stream's consumer stopped before the
	// end, or [ErrLoopAborted] when a hook, advisor, model or stream consumer panicked, in which
	// case the panic goes on once EndLoop returns. req is the loop's request as of the turn's
	// last step, with its [Turn]. ctx may be done: clean-up that needs a live context should use
	// [context.WithoutCancel]. EndLoop cannot change the outcome.
	EndLoop func(ctx context.Context, req *Request, resp *Response, err error)
}

// ChainHooks combines the hooks of several loop extensions into one set: InitializeLoop,
// BeforeCall, AfterCall and FinalizeLoop run in the order given, each on what the one before
// returned; EndLoop hooks run in the reverse order, like deferred calls, and all of them run even
// if one panics; NextInstructions is the last one set, since a round's next messages can have
// only one author.
func ChainHooks(hooks ...ToolLoopHooks) ToolLoopHooks {
	var out ToolLoopHooks
	for _, h := range hooks {
		out.InitializeLoop = thenRequest(out.InitializeLoop, h.InitializeLoop)
		out.BeforeCall = thenRequest(out.BeforeCall, h.BeforeCall)
		out.AfterCall = thenResponse(out.AfterCall, h.AfterCall)
		out.FinalizeLoop = thenResponse(out.FinalizeLoop, h.FinalizeLoop)
		if h.NextInstructions != nil {
			out.NextInstructions = h.NextInstructions
		}
		if first, later := out.EndLoop, h.EndLoop; later != nil {
			if first == nil {
				out.EndLoop = later
			} else {
				out.EndLoop = func(ctx context.Context, req *Request, resp *Response, err error) {
					defer first(ctx, req, resp, err)
					later(ctx, req, resp, err)
				}
			}
		}
	}
	return out
}

type requestHook = func(context.Context, *Request) (*Request, error)
type responseHook = func(context.Context, *Request, *Response) (*Response, error)

func thenRequest(first, second requestHook) requestHook {
	if first == nil || second == nil {
		if first == nil {
			return second
		}
		return first
	}
	return func(ctx context.Context, req *Request) (*Request, error) {
		req, err := first(ctx, req)
		if err != nil || req == nil {
			return req, err
		}
		return second(ctx, req)
	}
}

func thenResponse(first, second responseHook) responseHook {
	if first == nil || second == nil {
		if first == nil {
			return second
		}
		return first
	}
	return func(ctx context.Context, req *Request, resp *Response) (*Response, error) {
		resp, err := first(ctx, req, resp)
		if err != nil || resp == nil {
			return resp, err
		}
		return second(ctx, req, resp)
	}
}

// ErrLoopAborted is the error [ToolLoopHooks.EndLoop] receives when the turn's goroutine is
// unwinding from a panic (or runtime.Goexit) rather than returning: the panic is not recovered.
var ErrLoopAborted = errors.New("client: tool loop aborted by a panic")

// errStopped ends a stream whose consumer stopped iterating.
var errStopped = fmt.Errorf("client: the stream's consumer stopped: %w", context.Canceled)

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

// ToolLoopConfig configures a [ToolLoop]. The zero value is the auto-registered default.
type ToolLoopConfig struct {
	// Manager executes tool calls; nil uses the client's.
	Manager *toolcall.Manager
	// Order places the loop in the chain; zero means [OrderToolCalling].
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

// ToolLoop is the advisor that runs tools: it calls the rest of the chain, runs the tool calls
// of the response through a [toolcall.Manager], sends the results back, and repeats until the
// model answers without tool calls, every tool called is return-direct, or the iteration cap is
// reached. Advisors with a higher order run inside the loop, once per model call.
//
// It is the only place the loop lives, for calls and streams alike. Customise it with
// [ToolLoopConfig] and its hooks, and build other tool loops by embedding one: a chain holds at
// most one tool loop, and one added to the chain replaces the auto-registered default.
type ToolLoop struct {
	cfg ToolLoopConfig
}

// NewToolLoop returns a tool loop.
func NewToolLoop(cfg ToolLoopConfig) *ToolLoop {
	if cfg.Order == 0 {
		cfg.Order = OrderToolCalling
	}
	if cfg.MaxIterations <= 0 {
		cfg.MaxIterations = DefaultMaxIterations
	}
	return &ToolLoop{cfg: cfg}
}

// Order implements [Advisor].
func (l *ToolLoop) Order() int { return l.cfg.Order }

// Config returns the loop's configuration, defaults filled in.
func (l *ToolLoop) Config() ToolLoopConfig { return l.cfg }

func (l *ToolLoop) toolLoop() *ToolLoop { return l }

// toolLooper is implemented by *ToolLoop and every type that embeds one.
type toolLooper interface {
	Advisor
	toolLoop() *ToolLoop
}

// Turn is the state of one turn of a tool loop, shared by its iterations' requests.
type Turn struct {
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
	// resumable: a failure now leaves a ready state (a round completed, or a ready state was
	// resumed). Beside the bools above, it takes no room.
	resumable bool

	system   []chat.Message
	values   map[any]any
	carried  map[string]json.RawMessage // see SetCarried
	tree     *tree                      // the agent tree the turn started; nil for a sub-agent's
	messages []chat.Message             // what the turn added to the conversation
	exec     toolcall.Turn              // the turn's tool context, limit counts and observer
	calls    int                        // model calls made
	dur      *durable                   // nil until the turn has a store, resumes, stops or fails
	kept     []chat.Message             // a before-call hook's rewrite of the history (KeepMessages)
}

// durable is what a turn keeps to stop, be stored and resume.
type durable struct {
	id      string     // the turn's id, once it has a state
	seq     int64      // the Seq of the state saved last (or resumed from)
	conv    string     // the conversation, for the store
	store   TurnStore  // nil: states are built only when the turn stops or fails
	resumed *TurnState // the state the turn continues
	claimed bool       // the resumed state is this turn's now
	key     []byte     // signs the states handed out and saved ([WithTurnKey])
	lease   time.Duration
	renewal *renewal   // renewing the lease of the round whose calls run
	running *TurnState // the running round's state, when it is the one stored last
	// savedTree is the tree account of the state saved last: a failure returns the stored state,
	// and the failed step may have spent since.
	savedTree *TreeAccount
}

// Resumed reports whether the turn continues one that stopped ([Client.Resume]).
func (t *Turn) Resumed() bool { return t.dur != nil && t.dur.resumed != nil }

// Value returns the per-turn value stored under key, or nil.
func (t *Turn) Value(key any) any { return t.values[key] }

// SetCarried keeps data, a hook's per-turn state as JSON, under name (the hook's package, say)
// in the turn's saved and stopped states ([TurnState.Carried]), so that the hook finds it with
// [Turn.Carried] wherever the turn resumes; nil removes it. Keep it small: it travels with every
// state the turn saves.
func (t *Turn) SetCarried(name string, data json.RawMessage) {
	if data == nil {
		delete(t.carried, name)
		return
	}
	if t.carried == nil {
		t.carried = make(map[string]json.RawMessage)
	}
	t.carried[name] = data
}

// KeepMessages makes msgs, a BeforeCall hook's rewrite of the request's history, the loop's own
// messages from this call on: what the states the turn saves and stops with hold, and what the
// next iteration starts from. Compaction calls it, so that a turn that stops or fails before its
// next model call keeps the compacted form rather than the originals. A hook that adds messages
// for one call only does not call it.
func (t *Turn) KeepMessages(msgs []chat.Message) { t.kept = msgs }

// Carried returns what the turn carries under name ([Turn.SetCarried]): set in this run, or in
// the state it resumed.
func (t *Turn) Carried(name string) json.RawMessage { return t.carried[name] }

// SetValue stores a per-turn value, for hooks that keep state across iterations. Use a key of
// an unexported type, as with context values.
func (t *Turn) SetValue(key, value any) {
	if t.values == nil {
		t.values = make(map[any]any)
	}
	t.values[key] = value
}

// Calls returns how many tool calls the turn has made, in all and of the named tool, as the
// manager's limits count them.
func (t *Turn) Calls(name string) (ofTool, total int) { return t.exec.Calls(name) }

// NextMessages returns the default messages of the next iteration after a tool round: with
// history, the whole conversation the manager returned; without, the first request's system
// messages followed by the new tool results.
func (t *Turn) NextMessages(result *toolcall.Result) []chat.Message {
	if t.History {
		return result.History
	}
	h := result.History
	start := len(h)
	for start > 0 && h[start-1].Role == chat.RoleTool {
		start--
	}
	out := make([]chat.Message, 0, len(t.system)+len(h)-start)
	out = append(out, t.system...)
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

func (l *ToolLoop) manager(req *Request) (*toolcall.Manager, error) {
	if l.cfg.Manager != nil {
		return l.cfg.Manager, nil
	}
	if req.rt != nil && req.rt.manager != nil {
		return req.rt.manager, nil
	}
	return nil, ErrNoManager
}

func (l *ToolLoop) eligible(resp *Response) bool {
	if resp == nil || resp.Chat == nil {
		return false
	}
	if l.cfg.Eligible != nil {
		return l.cfg.Eligible(resp.Chat)
	}
	return resp.Chat.HasToolCalls()
}

// Advise implements [Advisor]: it runs the turn's tool loop.
func (l *ToolLoop) Advise(ctx context.Context, req *Request, next Next) (resp *Response, err error) {
	mgr, err := l.manager(req)
	if err != nil {
		return nil, err
	}
	obs := req.rt.telemetry()
	ctx, span := obs.startLoop(ctx, req)
	defer func() { span.end(resp, err) }()

	var limit TreeBudget
	if req.rt != nil {
		limit = req.rt.tree
	}
	var resumed *TreeAccount
	if rs := req.resumption(); rs != nil {
		resumed = rs.state.Tree
	}
	ctx, tr, own := treeOf(ctx, limit, resumed) // a sub-agent's turn spends its caller's tree
	if !own {
		tr = nil
	}

	var r *Request // the loop's request, once there is a loop
	returned := false
	defer func() { endLoop(ctx, l.cfg.Hooks.EndLoop, r, resp, err, returned) }()
	resp, err = l.run(ctx, req, next, mgr, obs, span, &r, tr)
	returned = true
	if tr != nil && resp != nil {
		resp.Tree = tr.spent()
	}
	return resp, err
}

// run is the loop of [ToolLoop.Advise]; it keeps *loopReq at the loop's current request. own is
// the agent tree the turn started, whose account its states carry; nil for a sub-agent's turn.
func (l *ToolLoop) run(ctx context.Context, req *Request, next Next, mgr *toolcall.Manager, obs *telemetry, span loopSpan, loopReq **Request, own *tree) (*Response, error) {
	h := &l.cfg.Hooks
	r, turn, err := l.start(ctx, req, span, h.InitializeLoop)
	*loopReq = r
	if err != nil {
		return nil, err
	}
	turn.tree = own
	defer func() {
		if turn.dur != nil {
			turn.dur.release(ctx) // a round left running by an error
		}
	}()
	var round *Round // a stopped round to finish first
	rs := req.resumption()
	if rs != nil {
		round = rs.state.Round
	}
	for {
		base, cur, err := l.prepare(ctx, r, turn, h.BeforeCall)
		if err != nil {
			return nil, turn.failed(r, err)
		}
		if turn.kept != nil {
			r, turn.kept = r.WithMessages(turn.kept), nil
			*loopReq = r
		}
		var resp *Response
		var plans []toolcall.Plan
		if round != nil {
			if plans, err = turn.plans(ctx, cur, rs.decisions); err != nil {
				return nil, err
			}
			resp = &Response{Chat: round.response()}
			round = nil
		} else if resp, err = l.callModel(ctx, r, cur, turn, next); err != nil {
			return nil, err
		}
		var final *Response
		if turn.Final || !l.eligible(resp) {
			final = l.finish(resp, turn)
		} else {
			obs.logRound(ctx, turn, resp.Chat)
			result, err := l.execute(ctx, mgr, turn, r, cur, resp.Chat, plans)
			if err != nil {
				return nil, err
			}
			if result.Stopped {
				return l.stop(ctx, turn, r, cur, resp, result)
			}
			if err := fitRound(ctx, cur.Prompt.Messages, result); err != nil {
				return nil, err
			}
			if turn.messages == nil {
				turn.messages = make([]chat.Message, 0, 3) // a round and the answer
			}
			h := result.History
			turn.messages = append(turn.messages, h[len(h)-2:]...)
			if result.ReturnDirect {
				final = direct(resp, result, turn)
			} else {
				if r, err = l.next(ctx, r, base, resp, result, turn, l.cfg.Hooks.NextInstructions); err != nil {
					return nil, err
				}
				*loopReq = r
				turn.resumable = true
				if turn.dur != nil && turn.dur.store != nil {
					if err := turn.save(ctx, turn.readyState(r)); err != nil {
						return nil, err
					}
				}
				if err := checkpoint(ctx); err != nil {
					return nil, turn.failed(r, err)
				}
			}
		}
		if final != nil {
			if h.FinalizeLoop != nil {
				if final, err = h.FinalizeLoop(ctx, r, final); err != nil {
					return nil, fmt.Errorf("client: tool loop: finalize: %w", err)
				}
				if final == nil {
					return nil, errors.New("client: tool loop: finalize hook returned no response")
				}
			}
			if err := turn.end(ctx); err != nil {
				return nil, err
			}
			return final, nil
		}
	}
}

// callModel makes a round's model call, cur, of the loop's request r, counted against the
// agent tree's budget, and runs the after-call hook.
func (l *ToolLoop) callModel(ctx context.Context, r, cur *Request, turn *Turn, next Next) (*Response, error) {
	if turn.claiming() {
		if err := turn.save(ctx, turn.readyState(r)); err != nil {
			return nil, err
		}
	}
	tr := ctx.Value(treeKey{}).(*tree)
	if err := tr.modelCall(); err != nil {
		return nil, turn.failed(r, err)
	}
	turn.calls++
	resp, err := next(ctx, cur)
	if err != nil {
		return nil, turn.failed(r, err)
	}
	if resp != nil {
		tr.used(resp.Usage)
	}
	if resp, err = l.after(ctx, cur, resp, turn, l.cfg.Hooks.AfterCall); err != nil {
		return nil, turn.failed(r, err)
	}
	return resp, nil
}

// start sets up a turn's state and runs the initialize hook. If the hook fails, the request it
// was given comes back with the error, for the end hook.
func (l *ToolLoop) start(ctx context.Context, req *Request, span loopSpan, init requestHook) (*Request, *Turn, error) {
	turn := &Turn{MaxIterations: l.cfg.MaxIterations, History: !l.cfg.DisableHistory && !req.memoryInLoop}
	r := req.Clone()
	r.Turn = turn
	r.untraced, r.replay = span.off, span.replay
	if in := req.turnIn; in != nil {
		turn.exec.Approval = in.approval
		if in.resume != nil { // the loop's requests continue the turn, they do not resume it
			loopIn := *in
			loopIn.resume = nil
			r.turnIn = &loopIn
		}
	}
	if r.Prompt.Options == nil {
		r.Prompt.Options = &chat.Options{}
	}
	if r.stream != nil && !r.text {
		r.emit = streamEvents(r.sender()) // a text consumer gets no chunk events
	}
	if err := turn.setUp(ctx, req, r); err != nil {
		return r, turn, err
	}
	if !turn.History {
		turn.system = leadingSystem(r.Prompt.Messages)
	}
	if init != nil {
		out, err := init(ctx, r)
		if err != nil {
			return r, turn, fmt.Errorf("client: tool loop: initialize: %w", err)
		}
		if out == nil {
			return r, turn, errors.New("client: tool loop: initialize hook returned no request")
		}
		r = out
	}
	return r, turn, nil
}

// prepare runs the before hook and, past the cap, turns tool use off for this call only.
func (l *ToolLoop) prepare(ctx context.Context, r *Request, turn *Turn, before requestHook) (base, cur *Request, err error) {
	turn.Final = turn.Iteration >= turn.MaxIterations
	if before != nil {
		if r, err = before(ctx, r); err != nil {
			return nil, nil, fmt.Errorf("client: tool loop: before call: %w", err)
		}
		if r == nil {
			return nil, nil, errors.New("client: tool loop: before-call hook returned no request")
		}
	}
	cur = r
	if turn.Final {
		o := r.Prompt.Options.Clone()
		o.ToolChoice = "none"
		cur = r.WithOptions(o)
	}
	return r, cur, nil
}

// after sums usage and runs the after hook.
func (l *ToolLoop) after(ctx context.Context, cur *Request, resp *Response, turn *Turn, hook responseHook) (*Response, error) {
	if resp == nil || resp.Chat == nil {
		return nil, ErrNoResponse
	}
	turn.Usage = turn.Usage.Add(resp.Usage)
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

// execute runs a round's tool calls, or finishes a stopped round with plans. On a stream, each
// call's start and finish reach the consumer as they happen, and so do the events of sub-agents;
// if the consumer stops, the calls are cancelled.
func (l *ToolLoop) execute(ctx context.Context, mgr *toolcall.Manager, turn *Turn, r, cur *Request, resp *chat.Response, plans []toolcall.Plan) (result *toolcall.Result, err error) {
	turn.exec.ToolContext = cur.ToolContext
	if tr, ok := ctx.Value(treeKey{}).(*tree); ok && plans == nil {
		if err := tr.toolCallsOf(countCalls(resp)); err != nil {
			return nil, err
		}
	}
	if d := turn.dur; d != nil && (d.store != nil || turn.claiming()) {
		var lost context.CancelCauseFunc
		if d.store != nil && engine.From(ctx) == nil {
			// The round holds a lease while its calls run; if another process takes it over, the
			// calls are cancelled. A durable engine owns its turn already, and runs no goroutine
			// or clock of ours.
			ctx, lost = context.WithCancelCause(ctx)
			defer lost(nil)
			defer func() {
				if d.stopRenewal() && err == nil {
					result, err = nil, fmt.Errorf("%w: turn %s", errLeaseLost, d.id)
				}
			}()
		}
		turn.exec.BeforeRun = func(ctx context.Context, calls []toolcall.CallOutcome) error {
			st := turn.roundState(r, TurnRunning, resp, calls)
			if lost != nil {
				st.Lease = &Lease{Owner: leaseOwner, Until: time.Now().Add(d.lease)}
			}
			if err := turn.save(ctx, st); err != nil {
				return err
			}
			if lost != nil {
				d.renew(ctx, st, lost)
			}
			return nil
		}
	} else {
		turn.exec.BeforeRun = nil
	}
	if cur.stream == nil || cur.text {
		if plans == nil {
			result, err = mgr.ExecuteTurn(ctx, &turn.exec, &cur.Prompt, resp)
		} else {
			result, err = mgr.ResumeTurn(ctx, &turn.exec, &cur.Prompt, resp, plans)
		}
	} else if engine.From(ctx) != nil {
		result, err = executeInEngine(ctx, mgr, &turn.exec, &cur.Prompt, resp, plans, cur.sender())
	} else {
		result, err = executeObserved(ctx, mgr, &turn.exec, &cur.Prompt, resp, plans, cur.sender())
	}
	if err != nil && !errors.Is(err, errStopped) && !errors.Is(err, ErrAlreadyResumed) && !errors.Is(err, ErrTurnConflict) {
		err = fmt.Errorf("client: tool loop: %w", err)
	}
	return result, err
}

// stop ends the turn at a stopped round: it saves the turn's state, tells a stream's consumer
// which calls wait, and returns the response holding the state.
func (l *ToolLoop) stop(ctx context.Context, turn *Turn, r, cur *Request, resp *Response, result *toolcall.Result) (*Response, error) {
	status := TurnInterrupted
	for _, o := range result.Calls {
		if o.Status == toolcall.CallApproval {
			status = TurnApproval
		}
	}
	st := turn.roundState(r, status, resp.Chat, result.Calls)
	if err := turn.save(ctx, st); err != nil {
		return nil, err
	}
	if cur.stream != nil {
		for i, o := range result.Calls {
			var ev *ToolEvent
			switch o.Status {
			case toolcall.CallApproval:
				ev = &ToolEvent{Kind: ToolApprovalRequired, Call: o.Call}
			case toolcall.CallInterrupted:
				ev = &ToolEvent{Kind: ToolInterrupted, Call: o.Call, Interrupt: st.Round.Calls[i].Interrupt}
			default:
				continue
			}
			if !cur.send(&Event{Tool: ev}) {
				return nil, errStopped
			}
		}
	}
	return &Response{
		Chat:       resp.Chat,
		Messages:   turn.messages,
		Usage:      turn.Usage,
		Outcome:    stopOutcome(st),
		ModelCalls: turn.calls,
		Pending:    st,
	}, nil
}

// next computes the request of the next iteration from the loop's request r; sent is the
// request of the iteration that just ended.
func (l *ToolLoop) next(ctx context.Context, r, sent *Request, resp *Response, result *toolcall.Result, turn *Turn,
	hook func(context.Context, *Request, *Response, *toolcall.Result) ([]chat.Message, error)) (*Request, error) {
	var msgs []chat.Message
	if hook != nil {
		var err error
		if msgs, err = hook(ctx, sent, resp, result); err != nil {
			return nil, fmt.Errorf("client: tool loop: next instructions: %w", err)
		}
	} else {
		msgs = turn.NextMessages(result)
	}
	turn.Iteration++
	return r.WithMessages(msgs), nil
}

// finish turns the last call's response, which the loop owns, into the turn's response.
func (l *ToolLoop) finish(resp *Response, turn *Turn) *Response {
	out := resp
	out.Usage = turn.Usage
	out.ModelCalls = turn.calls
	if len(resp.Chat.Generations) > 0 {
		turn.messages = append(turn.messages, resp.Chat.Message())
	}
	out.Messages = turn.messages
	switch {
	case turn.Final:
		out.Outcome = OutcomeIterationLimit
	case resp.Chat.HasToolCalls():
		out.Outcome = OutcomeToolCalls // declined by the eligibility checker
	default:
		out.Outcome = OutcomeAnswer
	}
	return out
}

// direct builds the response of a return-direct round from the tool results.
func direct(resp *Response, result *toolcall.Result, turn *Turn) *Response {
	var results []chat.ToolResult
	h := result.History
	for i := len(h) - 1; i >= 0 && h[i].Role == chat.RoleTool; i-- {
		results = append(h[i].ToolResults[:len(h[i].ToolResults):len(h[i].ToolResults)], results...)
	}
	texts := make([]string, len(results))
	var parts []content.Part
	for i, r := range results {
		texts[i] = r.Content
		parts = append(parts, r.Parts...)
	}
	answer := chat.Assistant(strings.Join(texts, "\n"))
	answer.Parts = parts
	return &Response{
		Chat: &chat.Response{
			ID:    resp.Chat.ID,
			Model: resp.Chat.Model,
			Generations: []chat.Generation{{
				Message:      answer,
				FinishReason: chat.FinishStop,
			}},
			Usage: resp.Chat.Usage,
		},
		Messages:    turn.messages,
		Usage:       turn.Usage,
		Outcome:     OutcomeReturnDirect,
		ModelCalls:  turn.calls,
		ToolResults: results,
	}
}

// textOnly returns the chunk without its tool-call fragments, or nil if nothing is left to
// show.
func textOnly(c *chat.Response) *chat.Response {
	hasCalls, hasContent := false, false
	for i := range c.Generations {
		m := &c.Generations[i].Message
		if len(m.ToolCalls) > 0 {
			hasCalls = true
		}
		if m.Content != "" || len(m.Parts) > 0 || len(m.Reasoning) > 0 {
			hasContent = true
		}
	}
	if !hasCalls {
		if hasContent {
			return c
		}
		return nil
	}
	if !hasContent {
		return nil
	}
	out := *c
	out.Generations = make([]chat.Generation, 0, len(c.Generations))
	for _, g := range c.Generations {
		g.Message.ToolCalls = nil
		if g.Message.Content != "" || len(g.Message.Parts) > 0 || len(g.Message.Reasoning) > 0 {
			out.Generations = append(out.Generations, g)
		}
	}
	return &out
}

// eventObserver turns the manager's observer calls into events for the loop's goroutine, the
// only one that may emit. It is also the round's context, through which a sub-agent's tool finds
// it ([eventsKey]) and sends its events on.
//
// A round of one call runs on the loop's goroutine (lone): the manager calls the observer there,
// so its events are emitted directly, and while the call runs on a worker, the loop's goroutine
// waits for it as the round's [workers.Waiter], emitting sub-agents' events as they come. A
// round of several calls runs on a worker goroutine (Run), whose events come through the
// channel.
type eventObserver struct {
	context.Context // the round's; cancelled once nobody will receive any more
	cancel          context.CancelFunc
	events          chan *Event
	mu              sync.RWMutex // held by senders; taken to close events
	closed          bool

	// A lone round, on the loop's goroutine.
	lone    bool
	emit    func(*Event) bool
	pending *Event // a ToolStarted, emitted once the call started: its consumer may wait for it
	claimed atomic.Bool
	stopped bool // the consumer stopped

	// A round of several calls, run on a worker.
	mgr    *toolcall.Manager
	turn   *toolcall.Turn
	prompt *chat.Prompt
	resp   *chat.Response
	plans  []toolcall.Plan
	result *toolcall.Result
	err    error
	// panicked holds what the round panicked with, to be raised again on the loop's goroutine:
	// on a worker it would end the program, out of the caller's reach.
	panicked *roundPanic
}

// roundPanic is the value of a panic on the worker of a round of several calls.
type roundPanic struct{ value any }

// eventsKey finds the eventObserver of a streamed round in the context of its tools.
type eventsKey struct{}

// noWaiter answers workers.WaiterKey for a round with none, hiding any of an enclosing round.
type noWaiter struct{}

// Value implements context.Context: the observer under eventsKey, the waiter of a lone round,
// the round's values otherwise.
func (o *eventObserver) Value(key any) any {
	switch key {
	case eventsKey{}:
		return o
	case workers.WaiterKey{}:
		if o.lone {
			return o
		}
		return noWaiter{}
	}
	return o.Context.Value(key)
}

// send hands ev to the loop's goroutine and reports whether the stream goes on.
func (o *eventObserver) send(ev *Event) bool {
	o.mu.RLock()
	defer o.mu.RUnlock()
	if o.closed {
		return false // a sub-agent the round abandoned
	}
	select {
	case o.events <- ev:
		return true
	case <-o.Done():
		return false
	}
}

func (o *eventObserver) ToolStarted(_ context.Context, call chat.ToolCall) {
	ev := toolEvent(ToolEvent{Kind: ToolStarted, Call: call})
	if o.lone {
		o.flush()
		o.pending = ev
		return
	}
	o.send(ev)
}

func (o *eventObserver) ToolFinished(_ context.Context, call chat.ToolCall, result chat.ToolResult, elapsed time.Duration) {
	ev := toolEvent(ToolEvent{Kind: ToolFinished, Call: call, Result: result, Elapsed: elapsed})
	if o.lone {
		o.flush()
		o.deliver(ev)
		return
	}
	o.send(ev)
}

// toolEvent returns an event of te, both in one allocation.
func toolEvent(te ToolEvent) *Event {
	b := &struct {
		ev   Event
		tool ToolEvent
	}{tool: te}
	b.ev.Tool = &b.tool
	return &b.ev
}

// deliver emits ev on the loop's goroutine, unless the consumer stopped; when it stops, the
// round is cancelled.
func (o *eventObserver) deliver(ev *Event) {
	if o.stopped {
		return
	}
	if !o.emit(ev) {
		o.stopped = true
		o.cancel()
	}
}

// flush emits a pending ToolStarted.
func (o *eventObserver) flush() {
	if ev := o.pending; ev != nil {
		o.pending = nil
		o.deliver(ev)
	}
}

// Claim implements workers.Waiter: a lone round's call is waited for by the round.
func (o *eventObserver) Claim() bool { return o.lone && o.claimed.CompareAndSwap(false, true) }

// Wait implements workers.Waiter, on the loop's goroutine: the call has started, so its
// ToolStarted goes out, then sub-agents' events until the call is done or stopped.
func (o *eventObserver) Wait(done, stop <-chan struct{}) bool {
	o.flush()
	for {
		select {
		case <-done:
			return true
		case <-stop:
			return false
		case ev := <-o.events:
			o.deliver(ev)
		}
	}
}

// close ends the round: whoever sends now is a tool the round abandoned, and gives up.
func (o *eventObserver) close() {
	o.cancel()
	o.mu.Lock()
	o.closed = true
	close(o.events)
	o.mu.Unlock()
}

// Run runs a round of several calls on a worker goroutine, with the labels of the round's
// context for profiles, then closes the events.
func (o *eventObserver) Run() {
	pprof.SetGoroutineLabels(o.Context)
	defer pprof.SetGoroutineLabels(context.Background())
	returned := false
	defer func() {
		if !returned {
			if v := recover(); v != nil {
				o.panicked = &roundPanic{v}
			} else {
				o.err = errors.New("client: the round's goroutine stopped without returning (runtime.Goexit)")
			}
			o.close()
		}
	}()
	o.result, o.err = o.execute()
	returned = true
	o.close()
}

// repanic raises again, on the loop's goroutine, a panic of the round's worker.
func (o *eventObserver) repanic() {
	if o.panicked != nil {
		panic(o.panicked.value)
	}
}

func (o *eventObserver) execute() (*toolcall.Result, error) {
	if o.plans == nil {
		return o.mgr.ExecuteTurn(o, o.turn, o.prompt, o.resp)
	}
	return o.mgr.ResumeTurn(o, o.turn, o.prompt, o.resp, o.plans)
}

// executeObserved runs the tool calls and emits their events as they happen. If the consumer
// stops, the calls are cancelled and the error is errStopped.
func executeObserved(ctx context.Context, mgr *toolcall.Manager, turn *toolcall.Turn, p *chat.Prompt, resp *chat.Response,
	plans []toolcall.Plan, emit func(*Event) bool) (*toolcall.Result, error) {
	obs := &eventObserver{events: make(chan *Event), mgr: mgr, turn: turn, prompt: p, resp: resp, plans: plans}
	obs.Context, obs.cancel = context.WithCancel(ctx)
	defer obs.cancel()
	turn.Observer = obs
	defer func() { turn.Observer = nil }()
	if countCalls(resp) == 1 {
		// The manager runs a lone call's observer on this goroutine (see toolcall.Observer).
		obs.lone, obs.emit = true, emit
		result, err := obs.execute()
		obs.flush() // a call that interrupted the turn has no ToolFinished
		obs.close()
		if obs.stopped {
			return nil, errStopped
		}
		return result, err
	}
	workers.Go(obs)
	for ev := range obs.events {
		if !emit(ev) {
			obs.cancel()
			for range obs.events {
			}
			obs.repanic()
			return nil, errStopped
		}
	}
	obs.repanic()
	return obs.result, obs.err
}

// countCalls counts the tool calls of resp.
func countCalls(resp *chat.Response) int {
	n := 0
	for i := range resp.Generations {
		n += len(resp.Generations[i].Message.ToolCalls)
	}
	return n
}
