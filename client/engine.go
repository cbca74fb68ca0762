package client

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/engine"
	"github.com/wield-ai/wield/tool"
	"github.com/wield-ai/wield/toolcall"
)

// ModelRunner is implemented by a [engine.Runtime] that calls the model as a step of its
// engine (an activity, in a Temporal workflow). The chain's model end calls it instead of the
// client's model, with the prompt as the advisors and the loop made it; chunk, set on a stream,
// takes the model's chunks as they come, in order, and reports whether the consumer goes on.
type ModelRunner interface {
	CallModel(ctx context.Context, p *chat.Prompt, chunk func(*chat.Response) bool) (*chat.Response, error)
}

// ToolLister is implemented by a [engine.Runtime] that gathers tools as a step of its engine:
// asking a [tool.Provider] (an MCP server) or a resolver may do I/O. list gathers the tools with
// the live ones; the engine records what it needs of them (definitions and metadata) and
// returns tools its [toolcall.ToolRunner] runs.
type ToolLister interface {
	ListTools(ctx context.Context, list func(context.Context) ([]tool.Tool, error)) ([]tool.Tool, error)
}

// Checkpointer is implemented by a [engine.Runtime] that may end a turn between two rounds to
// go on elsewhere, such as a Temporal workflow that continues as new before its history grows
// too long. After each round, before the next model call, the loop calls Checkpoint; an error
// ends the turn with a *[TurnError] whose State continues it from that model call
// ([Client.Resume]) and whose Err is the checkpoint's.
type Checkpointer interface {
	Checkpoint(ctx context.Context) error
}

// AgentRunner is implemented by a [engine.Runtime] that runs a sub-agent's turn ([AgentTool])
// as a turn of its own elsewhere, such as a Temporal child workflow with its own history. The
// agent's tool calls RunAgent in place of running the turn in the caller's; the runtime runs
// call's turn with the agent's client ([AgentCall.Spec] under [AgentCall.Context]), found
// elsewhere by the path of agent names from its own client ([Client.Agent]). A response with Pending stops the caller's turn as a sub-agent's stop
// does in a process: the caller's resume calls RunAgent again with the state and decisions.
type AgentRunner interface {
	// RunAgent runs call's turn with c, the agent's client, and returns its response; ok false
	// leaves the turn to the caller's, as in a process.
	RunAgent(ctx context.Context, c *Client, call AgentCall) (resp *Response, ok bool, err error)
}

// Agent returns the client of the agent tool ([AgentTool]) named name among c's own tools
// ([WithTools]; a provider's are not looked at), and whether there is one: a runtime that runs
// sub-agents elsewhere finds a sub-agent's client by the path of names from its own.
func (c *Client) Agent(name string) (*Client, bool) {
	for _, t := range c.tools.tools {
		if a, ok := t.(*agentTool); ok && a.name == name {
			return a.c, true
		}
	}
	return nil, false
}

// AgentCall is one turn of a sub-agent, as an [AgentRunner] runs it.
type AgentCall struct {
	// Name is the agent's tool name.
	Name string `json:"name"`
	// Depth is how many agents the turn runs inside, itself included (see [MaxAgentDepth]).
	Depth int `json:"depth"`
	// Input is the model's task for the agent, for a turn that starts.
	Input string `json:"input,omitempty"`
	// State, with Decisions, is the agent's stopped turn to resume.
	State     *TurnState `json:"state,omitempty"`
	Decisions []Decision `json:"decisions,omitempty"`
	// Tree is the share of the caller's agent tree the turn may spend ([ShareTree]), for a
	// runner that runs it apart from its caller's; its turn reports what it spent in
	// [Response.Tree].
	Tree *TreeAccount `json:"tree,omitempty"`
}

// Spec returns the agent's turn on c, its client: a nested turn, whose state lives in its
// caller's.
func (call AgentCall) Spec(c *Client) *Spec {
	var spec *Spec
	if call.State != nil {
		spec = c.Resume(call.State, call.Decisions...)
	} else {
		spec = c.Prompt(call.Input)
	}
	spec.nested = true
	return spec
}

// Context returns ctx for the agent's turn: agents it runs count their depth from its, and it
// spends the share of its caller's tree the call carries.
func (call AgentCall) Context(ctx context.Context) context.Context {
	if call.Tree != nil {
		ctx = WithTreeAccount(ctx, *call.Tree)
	}
	return context.WithValue(ctx, agentDepthKey{}, call.Depth)
}

// AgentClient returns the client of an agent's tool ([AgentTool]), and whether t is one.
func AgentClient(t tool.Tool) (*Client, bool) {
	a, ok := t.(*agentTool)
	if !ok {
		return nil, false
	}
	return a.c, true
}

// RoundFitter is implemented by a [engine.Runtime] whose steps carry bounded payloads (a
// Temporal workflow's): after a round's calls ran, the loop gives it the conversation the model
// saw and the round (the assistant message with the calls and the tool message with their
// results), and goes on with the tool message it returns. The runtime may replace results with
// error results that say why, so that the next model input fits (dropped reports that it did:
// a return-direct round then goes back to the model, which reads the errors), or end the turn
// with an error.
type RoundFitter interface {
	FitRound(ctx context.Context, sent []chat.Message, calls, results chat.Message) (fitted chat.Message, dropped bool, err error)
}

// fitRound lets the runtime of ctx, if it fits rounds, fit result's round under its bound.
func fitRound(ctx context.Context, sent []chat.Message, result *toolcall.Result) error {
	d := engine.From(ctx)
	if d == nil {
		return nil
	}
	f, ok := d.(RoundFitter)
	if h := result.History; !ok || len(h) < 2 || h[len(h)-1].Role != chat.RoleTool {
		return nil
	}
	h := result.History
	msg, dropped, err := f.FitRound(ctx, sent, h[len(h)-2], h[len(h)-1])
	if err != nil {
		return err
	}
	h[len(h)-1] = msg
	if dropped {
		result.ReturnDirect = false
	}
	return nil
}

// checkpoint asks the runtime of ctx, if it checkpoints, whether the turn goes on here.
func checkpoint(ctx context.Context) error {
	if d := engine.From(ctx); d != nil {
		if c, ok := d.(Checkpointer); ok {
			return c.Checkpoint(ctx)
		}
	}
	return nil
}

// listTools gathers tools with list, through the runtime of ctx when it lists tools.
func listTools(ctx context.Context, list func(context.Context) ([]tool.Tool, error)) ([]tool.Tool, error) {
	if d := engine.From(ctx); d != nil {
		if l, ok := d.(ToolLister); ok {
			return l.ListTools(ctx, list)
		}
	}
	return list(ctx)
}

// unoffered returns the names that name none of tools.
func unoffered(tools []tool.Tool, names []string) []string {
	out := make([]string, 0, len(names))
	for _, n := range names {
		if !slices.ContainsFunc(tools, func(t tool.Tool) bool { return t.Definition().Name == n }) && !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

// executeInEngine runs a streamed round inside a durable engine, whose coroutines run one at a
// time: the manager's observer emits the tool events directly, where in a process a round's
// events are funnelled to the loop's goroutine.
func executeInEngine(ctx context.Context, mgr *toolcall.Manager, turn *toolcall.Turn, p *chat.Prompt, resp *chat.Response,
	plans []toolcall.Plan, emit func(*Event) bool) (*toolcall.Result, error) {
	turn.Observer = engineObserver{emit}
	defer func() { turn.Observer = nil }()
	if plans == nil {
		return mgr.ExecuteTurn(ctx, turn, p, resp)
	}
	return mgr.ResumeTurn(ctx, turn, p, resp, plans)
}

// engineObserver emits a round's tool events as they happen.
type engineObserver struct{ emit func(*Event) bool }

func (o engineObserver) ToolStarted(_ context.Context, call chat.ToolCall) {
	o.emit(toolEvent(ToolEvent{Kind: ToolStarted, Call: call}))
}

func (o engineObserver) ToolFinished(_ context.Context, call chat.ToolCall, result chat.ToolResult, elapsed time.Duration) {
	o.emit(toolEvent(ToolEvent{Kind: ToolFinished, Call: call, Result: result, Elapsed: elapsed}))
}

// StoppedAgent returns the error of a sub-agent's call ([AgentTool]) whose turn stopped in
// state, with interrupt as what the call asks: what the tool itself returns, for a program that
// runs the tool elsewhere (a durable engine's worker) and must hand its outcome to the loop.
func StoppedAgent(state *TurnState, interrupt *toolcall.InterruptError) error {
	return &agentStop{state: state, interrupt: interrupt}
}

// AsStoppedAgent reports whether err is, or wraps, a sub-agent's stop ([StoppedAgent]), and
// returns its state and interrupt.
func AsStoppedAgent(err error) (*TurnState, *toolcall.InterruptError, bool) {
	var as *agentStop
	if !errors.As(err, &as) {
		return nil, nil, false
	}
	return as.state, as.interrupt, true
}
