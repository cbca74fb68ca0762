package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/wield-ai/wield/engine"
	"github.com/wield-ai/wield/tool"
	"github.com/wield-ai/wield/toolcall"
)

// AgentInput is the input of an [AgentTool]: what the model asks the sub-agent to do.
type AgentInput struct {
	Input string `json:"input" jsonschema:"the task for the agent, with everything it needs to know"`
}

// AgentTool turns a client (its model, tools, advisors and defaults) into a tool that another
// client's model can call: each call runs one turn of c with the model's input as the user
// message, and the turn's answer is the result.
//
// The sub-agent's turn is its own: its tool loop, limits, call counts and observers are those of
// c, never the caller's. When the calling turn is streamed, the sub-agent's turn is streamed too
// and its events (text, tool calls, approvals) reach the caller's stream attributed to it
// ([Event.Agent] names the tool). When the sub-agent's turn stops for approval or an
// interrupt, the calling turn stops as well, with the sub-agent's state inside its own
// ([PendingCall.Child]): the top-level caller sees the sub-agent's pending calls in
// [TurnState.Pending], decides them, and its resume resumes the sub-agent where it stopped.
//
// Agents nest at most [MaxAgentDepth] deep; a deeper call ends the whole turn with
// [ErrAgentDepth].
//
// opts configure the tool as for any constructor of package tool (a timeout, approval, MCP
// hints); its input is always [AgentInput].
func AgentTool(c *Client, name, description string, opts ...tool.Option) (tool.Tool, error) {
	if c == nil {
		return nil, fmt.Errorf("client: agent tool %q: nil client", name)
	}
	a := &agentTool{c: c, name: name}
	fopts := make([]tool.FuncOption, len(opts))
	for i, o := range opts {
		fopts[i] = o
	}
	t, err := tool.Func(name, description, a.call, fopts...)
	if err != nil {
		return nil, err
	}
	a.Tool = t
	return a, nil
}

// agentTool is the tool.Tool of AgentTool, which also checks the decisions for its sub-agent's
// pending calls.
type agentTool struct {
	tool.Tool
	c    *Client
	name string
}

// MaxAgentDepth bounds how deeply agents run inside agents ([AgentTool]): a model that makes an
// agent call itself, directly or through others, would otherwise nest turns until the memory
// gives out.
const MaxAgentDepth = 16

// ErrAgentDepth ends a turn whose agents nested deeper than [MaxAgentDepth]. It ends every turn
// up to the top-level one (it is [tool.Fatal]): a caller that read it as a failed call could
// only try again, as deep.
var ErrAgentDepth = fmt.Errorf("client: agents nested deeper than %d", MaxAgentDepth)

// agentDepthKey holds, in a sub-agent's context, how many agents it runs inside.
type agentDepthKey struct{}

func (a *agentTool) call(ctx context.Context, in AgentInput) (string, error) {
	depth, _ := ctx.Value(agentDepthKey{}).(int)
	if depth >= MaxAgentDepth {
		return "", tool.Fatal(fmt.Errorf("%w: agent %q", ErrAgentDepth, a.name))
	}
	call := AgentCall{Name: a.name, Depth: depth + 1, Input: in.Input}
	if r, ok := toolcall.Resumed(ctx); ok && len(r.Data) > 0 {
		var ar agentResume
		if err := json.Unmarshal(r.Data, &ar); err != nil || ar.State == nil {
			return "", tool.Fatal(fmt.Errorf("client: agent %q: resuming: not a sub-agent's state: %v", a.name, err))
		}
		call.Input, call.State, call.Decisions = "", ar.State, ar.Decisions
	}
	var resp *Response
	var err error
	ran := false
	if r, ok := engine.From(ctx).(AgentRunner); ok {
		resp, ran, err = r.RunAgent(ctx, a.c, call)
	}
	if !ran {
		resp, err = a.run(call.Context(ctx), call.Spec(a.c))
	}
	if errors.Is(err, ErrTreeBudget) {
		return "", tool.Fatal(err) // the whole tree is out of budget, not this call
	}
	if err != nil {
		return "", err
	}
	if resp.Pending != nil {
		what := "was interrupted"
		if resp.Outcome == OutcomeApproval {
			what = "needs approval"
		}
		return "", &agentStop{
			state:     resp.Pending,
			interrupt: &toolcall.InterruptError{Message: fmt.Sprintf("the agent %q %s", a.name, what)},
		}
	}
	return resp.Text(), nil
}

// run runs the sub-agent's turn: streamed, with its events sent on to the caller's stream, when
// the caller streams.
func (a *agentTool) run(ctx context.Context, spec *Spec) (*Response, error) {
	parent, ok := ctx.Value(eventsKey{}).(eventSink)
	if !ok {
		return spec.Call(ctx).Response()
	}
	var resp *Response
	for ev, err := range spec.Stream(ctx).events(true) { // each event is copied on
		if err != nil {
			return nil, err
		}
		if ev.Done != nil {
			resp = ev.Done
			continue
		}
		fwd := *ev
		if ev.agent == nil {
			fwd.agent = &a.name
		} else {
			name := joinAgent(a.name, *ev.agent)
			fwd.agent = &name
		}
		if !parent.send(&fwd) {
			return nil, errStopped
		}
	}
	if resp == nil {
		return nil, errors.New("client: the sub-agent's stream ended without a response")
	}
	return resp, nil
}

// checkDecisions checks decisions for the calls of the sub-agent's stopped state against the
// sub-agent's own tools, before the calling turn claims anything.
func (a *agentTool) checkDecisions(ctx context.Context, state *TurnState, decisions []Decision) error {
	if err := state.check(); err != nil {
		return err
	}
	if state.Round == nil {
		return nil
	}
	req, _, err := a.c.Prompt().request(ctx)
	if err != nil {
		return err
	}
	_, err = plans(ctx, state, decisions, req.Prompt.Options.Tools)
	return err
}

// AgentEvents returns how a tool that runs an agent of its own, one [AgentTool] does not run (a
// remote agent), sends that agent's events to the calling turn's stream, attributed to name as
// an AgentTool's are: send attributes ev to name, or to name/inner when the agent reports its
// own sub-agent inner, and returns false once the calling turn no longer takes events. ok is
// false when the calling turn is not streamed. ctx is the tool call's; ev must not be used after
// send, and a Done event is not sent.
func AgentEvents(ctx context.Context, name string) (send func(ev *Event, inner string) bool, ok bool) {
	parent, ok := ctx.Value(eventsKey{}).(eventSink)
	if !ok {
		return nil, false
	}
	return func(ev *Event, inner string) bool {
		if ev == nil || ev.Done != nil {
			return true
		}
		agent := joinAgent(name, inner)
		ev.agent = &agent
		return parent.send(ev)
	}, true
}

// WithAgentEvents returns ctx for a tool call that runs away from its turn's stream (a durable
// turn's activity, say): the agents the call runs ([AgentTool], and tools that use
// [AgentEvents]) stream their turns under it, and each of their events goes to send, attributed
// ([Event.Agent]), until send returns false. send is called from the agents' goroutines, and ev
// is send's to keep.
func WithAgentEvents(ctx context.Context, send func(ev *Event) bool) context.Context {
	return context.WithValue(ctx, eventsKey{}, funcSink(send))
}

// eventSink takes the events of the agents a tool call runs.
type eventSink interface{ send(*Event) bool }

// funcSink is the eventSink of WithAgentEvents.
type funcSink func(*Event) bool

func (f funcSink) send(ev *Event) bool { return f(ev) }
