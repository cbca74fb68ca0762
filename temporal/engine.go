package temporal

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	sdktemporal "go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/client"
	"github.com/wield-ai/wield/content"
	"github.com/wield-ai/wield/engine"
	"github.com/wield-ai/wield/internal/toolresult"
	"github.com/wield-ai/wield/memory"
	"github.com/wield-ai/wield/tool"
	"github.com/wield-ai/wield/toolcall"
)

// engineLoop is the turnSettings.Engine of a turn that runs the client's own loop in the
// workflow (runEngine); 0, in a turn started before it was recorded, is the workflow's own loop
// (turn.loop), kept so that those turns replay as they ran.
const engineLoop = 1

// engineAgents is the turnSettings.Engine of a client-loop turn whose sub-agents (the worker's
// client's agent tools) run as child workflows (wfRuntime.RunAgent); an engineLoop turn runs
// them inside a tool activity, as it did when it started.
const engineAgents = 2

// knownEngine is the newest turnSettings.Engine this worker runs and records: this build's,
// unless a test plays a newer build or an older one (Config.engine).
func (c Config) knownEngine() int {
	if c.engine != 0 {
		return c.engine
	}
	return engineAgents
}

// runEngine runs the turn with the worker's client: its advisor chain and tool loop, as in a
// process, with a runtime (wfRuntime) through which the model and tool calls, the tools of
// providers and resolvers, and advisors' I/O become activities, and concurrency the workflow's.
// A stop is a wait for the decide update, after which the client resumes the turn as it would
// in a process.
func (t *turn) runEngine(ctx workflow.Context) (*client.Response, error) {
	rt := &wfRuntime{t: t, root: ctx}
	bctx := engine.With(context.WithValue(context.Background(), wfKey{}, ctx), rt)
	if t.in.Agent != nil {
		call := t.in.Agent.Call
		if t.in.Continued != nil {
			call.Tree = nil // the continued state carries the account, with what it spent
		}
		bctx = call.Context(bctx)
	}
	if t.in.Tree != nil && t.in.Continued == nil { // a continued state carries its account
		bctx = client.WithTreeAccount(bctx, *t.in.Tree)
	}
	var err error
	if rt.served, err = rt.workerTools(bctx); err != nil {
		return nil, err
	}
	var state *client.TurnState
	var decisions []client.Decision
	carried := t.in.Continued
	if carried != nil {
		state = carried.State
		t.events = carried.Events
		t.usage, t.modelCalls = carried.Usage, carried.ModelCalls
	}
	runCtx := bctx
	for {
		spec := t.spec(state, decisions)
		var resp *client.Response
		for ev, err := range spec.Stream(runCtx).Events() {
			if errors.Is(err, errContinueAsNew) {
				return nil, t.continueAsNew(ctx, err)
			}
			if err != nil {
				return nil, engineError(err)
			}
			if ev.Done != nil {
				resp = ev.Done
				continue
			}
			t.emit(*ev)
		}
		if resp == nil {
			return nil, client.ErrNoResponse
		}
		if carried != nil {
			// The turn's response is of all its runs.
			resp.Messages = append(carried.Messages[:len(carried.Messages):len(carried.Messages)], resp.Messages...)
		}
		resp.Usage, resp.ModelCalls = t.usage, t.modelCalls
		if resp.Pending == nil {
			if err := t.responseFits(resp); err != nil {
				return nil, err
			}
			return resp, nil
		}
		if t.in.Agent != nil {
			// A sub-agent's stop is its caller's: the caller's turn stops with it, and its resume
			// runs the sub-agent's next turn with the decisions (RunAgent).
			return resp, nil
		}
		st := resp.Pending
		st.ID = workflow.GetInfo(ctx).WorkflowExecution.ID
		t.pending, t.decided, t.decisions = st, nil, nil
		if err := workflow.UpsertMemo(ctx, map[string]any{memoPending: leanPending(st)}); err != nil {
			return nil, err
		}
		if err := workflow.Await(ctx, func() bool { return t.decided != nil }); err != nil {
			return nil, err
		}
		state, decisions = st, t.decisions
		if t.decidedTree != nil {
			runCtx = client.WithTreeAccount(bctx, *t.decidedTree)
		}
		t.pending, t.decided, t.decisions, t.decidedTree = nil, nil, nil, nil
		if err := workflow.UpsertMemo(ctx, map[string]any{memoPending: memoState{}}); err != nil { // running
			return nil, err
		}
	}
}

// responseFits checks that the turn's response fits the payload bound: it is the workflow's
// result, and one over the server's limit would fail the workflow task on every attempt.
func (t *turn) responseFits(resp *client.Response) error {
	if t.maxPayload <= 0 {
		return nil
	}
	n := approxSize(resp.Messages) + approxSize([]chat.Message{{ToolResults: resp.ToolResults}})
	if resp.Chat != nil {
		for _, g := range resp.Chat.Generations {
			n += approxSize([]chat.Message{g.Message})
		}
	}
	if n > t.maxPayload {
		return payloadError(fmt.Sprintf("temporal: the turn's response (its answer, the messages the turn added and any results returned directly) is about %d bytes, over the turn's bound of %d (MaxPayloadBytes)", n, t.maxPayload))
	}
	return nil
}

// spec returns the turn's request on the worker's client, resuming state with decisions when
// state is set.
func (t *turn) spec(state *client.TurnState, decisions []client.Decision) *client.Spec {
	in := t.in
	if in.Agent != nil {
		call := in.Agent.Call
		if state != nil { // a run continued as new
			call.Input, call.State, call.Decisions = "", state, decisions
		}
		return call.Spec(t.c)
	}
	spec := t.c.Prompt().ToolNames(in.ToolNames...)
	if state != nil {
		spec.Resume(state, decisions...)
	} else {
		spec.Messages(in.Messages...)
	}
	if in.System != nil {
		spec.System(*in.System)
	}
	if in.Options != nil {
		spec.Options(in.Options)
	}
	if len(in.ToolContext) > 0 {
		spec.ToolContext(in.ToolContext)
	}
	if in.ConversationID != "" {
		spec.Param(client.ParamConversationID, in.ConversationID)
		if t.memory {
			// Inside the loop, as the workflow's own loop keeps memory: each round is stored as
			// it completes, so a later turn knows which tools ran. The turn recorded that it
			// keeps memory; a replayer without Config.Memory reads its steps from the history.
			var mem memory.Memory = noMemory{}
			if t.cfg.Memory != nil {
				mem = t.cfg.Memory
			}
			spec.Advisors(memory.NewAdvisor(mem, memory.AdvisorConfig{Order: client.OrderToolCalling + 100}))
		}
	}
	return spec
}

// wfKey finds, in a turn's context, the workflow context of the coroutine that runs it.
type wfKey struct{}

// wfRuntime is the engine.Runtime of a turn's workflow.
type wfRuntime struct {
	t    *turn
	root workflow.Context
	// served names the tools the worker's client gathers for the turn, which a tool activity
	// finds by name (on a tool worker, maybe); tools an advisor adds to a request (the tool
	// search tool) run in a local activity on the turn's worker, where their value lives.
	served map[string]bool
	// defs is the size of the tool definitions of the last model call, which the model's next
	// input carries too (FitRound).
	defs int
	// inFlight is the size of the inputs of the tool calls started and not yet ended: a workflow
	// task's commands travel in one gRPC message (4 MiB on the server), so a round's calls start
	// in batches under the payload bound.
	inFlight int
}

var (
	_ engine.Runtime      = (*wfRuntime)(nil)
	_ client.ModelRunner  = (*wfRuntime)(nil)
	_ client.ToolLister   = (*wfRuntime)(nil)
	_ toolcall.ToolRunner = (*wfRuntime)(nil)
	_ client.RoundFitter  = (*wfRuntime)(nil)
	_ client.AgentRunner  = (*wfRuntime)(nil)
	_ tool.Tool           = (*proxy)(nil)
)

// wf returns the workflow context of the coroutine that runs ctx.
func (r *wfRuntime) wf(ctx context.Context) workflow.Context {
	if w, ok := ctx.Value(wfKey{}).(workflow.Context); ok {
		return w
	}
	return r.root
}

// Go runs each task on a coroutine of its own and waits for them all, on the caller's.
func (r *wfRuntime) Go(ctx context.Context, tasks []func(context.Context)) {
	if len(tasks) == 1 {
		tasks[0](ctx)
		return
	}
	wctx := r.wf(ctx)
	done := workflow.NewChannel(wctx)
	for _, task := range tasks {
		workflow.Go(wctx, func(g workflow.Context) {
			defer done.Send(g, nil)
			task(context.WithValue(ctx, wfKey{}, g))
		})
	}
	for range tasks {
		done.Receive(wctx, nil)
	}
}

// Do runs an effect as a local activity on the turn's worker, where fn's values live; its
// result is recorded, and a replay reads it back without running fn.
func (r *wfRuntime) Do(ctx context.Context, name string, fn func(context.Context) ([]byte, error)) ([]byte, error) {
	wctx := workflow.WithLocalActivityOptions(r.wf(ctx), workflow.LocalActivityOptions{
		ScheduleToCloseTimeout: r.t.cfg.ModelTimeout,
		RetryPolicy:            retryPolicy(r.t.cfg.ModelRetry),
	})
	var out []byte
	err := workflow.ExecuteLocalActivity(wctx, func(actx context.Context) ([]byte, error) {
		b, err := fn(actx)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		return b, nil
	}).Get(wctx, &out)
	return out, err
}

// Now is the workflow's time.
func (r *wfRuntime) Now(ctx context.Context) time.Time { return workflow.Now(r.wf(ctx)) }

// Replaying reports whether the workflow replays its history.
func (r *wfRuntime) Replaying(ctx context.Context) bool { return workflow.IsReplaying(r.wf(ctx)) }

// workerTools records the names of the tools the worker's client gathers for the turn.
func (r *wfRuntime) workerTools(ctx context.Context) (map[string]bool, error) {
	a := newActivities(r.t.c, r.t.cfg)
	in := r.t.act
	if in.Agent != nil { // t.c is the sub-agent's client already
		lean := *in
		lean.Agent = nil
		in = &lean
	}
	names, err := engine.Effect(ctx, "tools.names", func(actx context.Context) ([]string, error) {
		req, err := a.request(actx, in, nil)
		if err != nil {
			return nil, err
		}
		out := make([]string, len(req.Prompt.Options.Tools))
		for i, tl := range req.Prompt.Options.Tools {
			out[i] = tl.Definition().Name
		}
		return out, nil
	})
	if err != nil {
		return nil, err
	}
	served := make(map[string]bool, len(names))
	for _, n := range names {
		served[n] = true
	}
	return served, nil
}

// toolInfo is what the workflow keeps of a gathered tool: it runs elsewhere.
type toolInfo struct {
	Definition tool.Definition `json:"definition"`
	Metadata   tool.Metadata   `json:"metadata"`
}

// ListTools gathers tools on the worker as a recorded step and returns stand-ins for them.
func (r *wfRuntime) ListTools(ctx context.Context, list func(context.Context) ([]tool.Tool, error)) ([]tool.Tool, error) {
	infos, err := engine.Effect(ctx, "tools.list", func(actx context.Context) ([]toolInfo, error) {
		ts, err := list(actx)
		if err != nil {
			return nil, err
		}
		out := make([]toolInfo, len(ts))
		for i, tl := range ts {
			out[i] = toolInfo{Definition: tl.Definition(), Metadata: tl.Metadata()}
		}
		return out, nil
	})
	if err != nil {
		return nil, err
	}
	out := make([]tool.Tool, len(infos))
	for i, in := range infos {
		out[i] = &proxy{info: in}
	}
	return out, nil
}

// proxy stands in the workflow for a tool the worker gathered; its calls run as activities.
type proxy struct{ info toolInfo }

func (p *proxy) Definition() tool.Definition { return p.info.Definition }
func (p *proxy) Metadata() tool.Metadata     { return p.info.Metadata }
func (p *proxy) Call(context.Context, string) (string, error) {
	return "", errors.New("temporal: a durable turn's tool runs as an activity")
}

// CallModel calls the model as an activity with the prompt as the chain made it.
func (r *wfRuntime) CallModel(ctx context.Context, p *chat.Prompt, chunk func(*chat.Response) bool) (*chat.Response, error) {
	in := invokeModelInput{Messages: p.Messages, MaxBytes: max(r.t.maxPayload, 0)}
	if r.t.in.Agent != nil {
		in.Agent = r.t.in.Agent.Path
	}
	if p.Options != nil {
		o := *p.Options
		o.Tools = nil
		in.Options = &o
		in.Tools = make([]tool.Definition, len(p.Options.Tools))
		for i, tl := range p.Options.Tools {
			in.Tools[i] = tl.Definition()
		}
	}
	r.defs = defsSize(in.Tools)
	sent := approxSize(p.Messages)
	if bound := r.t.maxPayload; bound > 0 {
		// A payload over the server's limit would fail the workflow task on every attempt.
		if n := sent + r.defs; n > bound {
			return nil, payloadError(fmt.Sprintf("temporal: the model's input (the conversation) is about %d bytes, over the turn's bound of %d (MaxPayloadBytes)", n, bound))
		}
	}
	wctx := r.wf(ctx)
	var resp chat.Response
	r.t.modelCalls++
	r.t.modeling = true
	err := workflow.ExecuteActivity(r.t.model(wctx), r.t.cfg.activity(actInvokeModel), in).Get(wctx, &resp)
	r.t.modeling = false
	if err != nil {
		return nil, err
	}
	r.t.usage = r.t.usage.Add(resp.Usage)
	if bound := r.t.maxPayload; bound > 0 && resp.HasToolCalls() {
		// The calls' arguments are in the model's next input whatever their results: a round that
		// cannot fit it with every result at its smallest ends the turn before any call runs.
		msg := resp.Message()
		if n := sent + r.defs + approxSize([]chat.Message{msg}) + approxSize([]chat.Message{droppedRound(msg, bound)}); n > bound {
			return nil, payloadError(fmt.Sprintf("temporal: the model's tool calls (%d bytes) would take the model's next input to %d bytes at least, over the turn's bound of %d (MaxPayloadBytes); no call of the round ran",
				approxSize([]chat.Message{msg}), n, bound))
		}
	}
	if chunk != nil {
		chunk(&resp)
	}
	return &resp, nil
}

// RunTool runs a call's tool: a gathered tool as an activity (on the tool queue, retried only
// when idempotent), a tool an advisor added in the workflow. An attempt of a tool that is
// not retried, lost with its worker or timed out by Temporal, stops the turn for a decision:
// the call may or may not have run.
func (r *wfRuntime) RunTool(ctx context.Context, tl tool.Tool, call chat.ToolCall, resume *toolcall.Resumption) (tool.Result, error) {
	in := invokeInput{Turn: r.t.act, Call: call, Resume: resume, ToolContext: tool.ContextFrom(ctx)}
	meta := tl.Metadata()
	wctx := r.wf(ctx)
	var out invokeOutput
	var err error
	if sub, ok := client.AgentClient(tl); ok && r.t.engine >= engineAgents {
		if own, ok := r.t.c.Agent(call.Name); ok && own == sub {
			// The agent's tool runs here, and its turn in a child workflow (RunAgent).
			c, _ := tool.CallFrom(ctx)
			ictx := tool.WithCall(ctx, tool.Call{ID: call.ID, Name: call.Name, Parallel: c.Parallel})
			return tool.Invoke(toolcall.WithResumption(ictx, resume), tl, call.Arguments)
		}
	}
	if _, ok := tl.(*proxy); ok || r.served[call.Name] {
		size := 0
		if bound := r.t.maxPayload; bound > 0 {
			size = invokeSize(&in)
			if size > bound {
				// An input over the bound would fail the workflow task on every attempt; the call
				// fails for the model instead, without running.
				return tool.Result{}, fmt.Errorf("the call did not run: its input (its arguments, tool context and what it resumes with) is about %d bytes, over the %d bytes one may have in this turn", size, bound)
			}
			// The round's calls start together unless their inputs together are over the bound;
			// then each waits until the earlier ones in flight leave room (one call at least).
			if err := workflow.Await(wctx, func() bool { return r.inFlight == 0 || r.inFlight+size <= bound || ctx.Err() != nil }); err != nil {
				return tool.Result{}, err
			}
			if ctx.Err() != nil {
				return tool.Result{}, context.Cause(ctx)
			}
			r.inFlight += size
			defer func() { r.inFlight -= size }()
		}
		r.t.steps++
		id := fmt.Sprintf("tool/%d/%s", r.t.steps, cut(call.ID, maxCallIDInActivityID)) // as Turn.Progress reads it
		info := callInfo{Known: true, Retry: meta.ReadOnly || meta.Idempotent, Timeout: meta.Timeout}
		actx, cancel := workflow.WithCancel(wctx)
		r.t.calling++
		defer func() { r.t.calling-- }()
		f := workflow.ExecuteActivity(r.t.tool(actx, id, info), r.t.cfg.activity(actInvokeTool), in)
		// The round's context ends when another call ends the turn (a fatal error): Await
		// sees it, since the condition is checked again whenever a coroutine has run, and the
		// call is cancelled rather than waited for.
		if err := workflow.Await(wctx, func() bool { return f.IsReady() || ctx.Err() != nil }); err != nil {
			cancel()
			return tool.Result{}, err
		}
		if !f.IsReady() {
			cancel()
			return tool.Result{}, context.Cause(ctx)
		}
		err = f.Get(wctx, &out)
		if err != nil && !info.Retry && lost(err) {
			return tool.Result{}, toolcall.InterruptWith(
				"The call's attempt was lost (its worker stopped or it timed out); it may or may not have run. Decide whether to run it again.",
				map[string]string{"lost": err.Error()})
		}
	} else {
		// A tool an advisor added (the tool search tool) is the advisor's code, and runs in the
		// workflow as the advisor does: deterministic, its I/O through engine.Effect.
		return tool.Invoke(ctx, tl, call.Arguments)
	}
	if err != nil {
		return tool.Result{}, err
	}
	return out.result()
}

// maxAgentRefs bounds the sub-agents' turns an events page names: a reader polls more often
// than a turn starts that many.
const maxAgentRefs = 16

// RunAgent implements client.AgentRunner: a sub-agent of the turn's client runs its turn as a
// child workflow on the turn's queue, with its own history, limits and events; its stop ends
// the child with its state, which stops this turn as a sub-agent's stop does in a process. An
// agent tool that is not the client's own (an advisor's) runs its turn here.
func (r *wfRuntime) RunAgent(ctx context.Context, c *client.Client, call client.AgentCall) (*client.Response, bool, error) {
	if own, ok := r.t.c.Agent(call.Name); !ok || own != c {
		return nil, false, nil
	}
	var path []string
	if r.t.in.Agent != nil {
		path = r.t.in.Agent.Path
	}
	in := &Request{Agent: &AgentTurn{Path: append(path[:len(path):len(path)], call.Name), Call: call}}
	if bound := r.t.maxPayload; bound > 0 {
		n := 256 + len(call.Input) // estimated, not encoded, in workflow code
		if call.State != nil {
			n += approxSize(call.State.Messages)
			if rd := call.State.Round; rd != nil {
				n += approxSize([]chat.Message{rd.Message})
			}
		}
		if n > bound {
			return nil, true, fmt.Errorf("the agent's turn did not start: its input is about %d bytes, over the %d bytes one may have in this turn", n, bound)
		}
	}
	// The child spends a share of this turn's tree, and reports what it spent.
	share, err := client.ShareTree(ctx)
	if err != nil {
		return nil, true, err
	}
	var spent client.TreeSpent // what the child reports; nothing when it cannot
	if share != nil {
		in.Agent.Call.Tree = &client.TreeAccount{Budget: share.Budget}
		defer func() { share.Settle(spent) }()
	}
	wctx := r.wf(ctx)
	r.t.steps++
	// Named after the run, not the turn's id: a replay knows the run's id from its history (as
	// the SDK's own child ids do), while a replayer not told the turn's id uses one of its own.
	id := fmt.Sprintf("%s/agent/%d/%s", workflow.GetInfo(wctx).WorkflowExecution.RunID, r.t.steps, cut(call.Name, 64))
	cctx, cancel := workflow.WithCancel(wctx)
	cctx = workflow.WithChildOptions(cctx, workflow.ChildWorkflowOptions{WorkflowID: id, TaskQueue: r.t.cfg.TaskQueue})
	r.t.calling++
	defer func() { r.t.calling-- }()
	f := workflow.ExecuteChildWorkflow(cctx, r.t.cfg.workflowName(), in)
	r.t.agents = append(r.t.agents, agentRef{ID: id, Name: call.Name})
	if err := workflow.Await(wctx, func() bool { return f.IsReady() || ctx.Err() != nil }); err != nil {
		cancel()
		return nil, true, err
	}
	if !f.IsReady() {
		cancel()
		return nil, true, context.Cause(ctx)
	}
	var resp client.Response
	if err := f.Get(wctx, &resp); err != nil {
		var ae *sdktemporal.ApplicationError
		if errors.As(err, &ae) {
			var be client.TreeBudgetError
			if ae.Type() == errTypeTreeBudget && ae.HasDetails() && ae.Details(&be) == nil {
				spent = be.Spent
				return nil, true, tool.Fatal(fmt.Errorf("the agent %q spent its share of the tree: %w", call.Name, &be))
			}
			msg := fmt.Errorf("the agent %q failed: %s", call.Name, ae.Error())
			if ae.Type() == errTypeTurnEnded {
				return nil, true, tool.Fatal(msg)
			}
			return nil, true, msg
		}
		return nil, true, err
	}
	spent = resp.Tree
	return &resp, true, nil
}

// FitRound implements client.RoundFitter: a round whose results would take the model's next
// input over the payload bound has its largest results replaced by error results that say so,
// as few as bring it under; a round that cannot fit even so ends the turn. The sizes are
// estimated, not encoded, in workflow code.
func (r *wfRuntime) FitRound(_ context.Context, sent []chat.Message, calls, results chat.Message) (chat.Message, bool, error) {
	bound := r.t.maxPayload
	if bound <= 0 {
		return results, false, nil
	}
	left := bound - approxSize(sent) - r.defs - approxSize([]chat.Message{calls})
	size := approxSize([]chat.Message{results})
	if size <= left {
		return results, false, nil
	}
	fitted, size, _ := toolresult.Fit(results, size, left, func(v any) (int, error) {
		res := v.(chat.ToolResult)
		return approxSize([]chat.Message{{ToolResults: []chat.ToolResult{res}}}), nil
	}, func(n int) string { return droppedNote(n, max(left, 0)) })
	if size > left {
		return results, false, payloadError(fmt.Sprintf("temporal: the round's results would take the model's next input over the turn's bound of %d (MaxPayloadBytes), with every result dropped", bound))
	}
	return fitted, true, nil
}

// droppedRound is the tool message of a round whose calls are msg's, with each result at its
// smallest: the note of a result dropped to fit the bound.
func droppedRound(msg chat.Message, bound int) chat.Message {
	results := make([]chat.ToolResult, len(msg.ToolCalls))
	for i, c := range msg.ToolCalls {
		results[i] = chat.ToolResult{ID: c.ID, Name: c.Name, IsError: true, Content: droppedNote(bound, bound)}
	}
	return chat.ToolMessage(results...)
}

// defsSize estimates the JSON size of tool definitions, as approxSize does messages.
func defsSize(defs []tool.Definition) int {
	n := 2
	for i := range defs {
		n += 64 + len(defs[i].Name) + len(defs[i].Description) + len(defs[i].InputSchema) + len(defs[i].OutputSchema)
	}
	return n
}

// invokeSize estimates the JSON size of a tool call's input.
func invokeSize(in *invokeInput) int {
	n := 256 + len(in.Call.ID) + len(in.Call.Name) + len(in.Call.Arguments)
	for k, v := range in.ToolContext {
		n += 8 + len(k) + approxValue(v)
	}
	if r := in.Resume; r != nil {
		n += 64 + len(r.Data)
		if r.Interrupt != nil {
			n += 64 + len(r.Interrupt.Message) + len(r.Interrupt.Data)
		}
	}
	return n
}

// approxValue estimates the JSON size of a value decoded from JSON (a tool context's), walking
// it rather than encoding it in workflow code.
func approxValue(v any) int {
	switch v := v.(type) {
	case nil:
		return 4
	case string:
		return 2 + len(v)
	case json.RawMessage:
		return len(v)
	case []byte:
		return 2 + (len(v)+2)/3*4
	case bool, float64, float32, int, int64, int32, uint, uint64, uint32, json.Number:
		return 24
	case map[string]any:
		n := 2
		for k, e := range v {
			n += 4 + len(k) + approxValue(e)
		}
		return n
	case []any:
		n := 2
		for _, e := range v {
			n += 1 + approxValue(e)
		}
		return n
	default:
		return encodedSize(v)
	}
}

// lost reports whether a tool activity's error says its attempt was lost rather than failed.
func lost(err error) bool {
	var te *sdktemporal.TimeoutError
	var ce *sdktemporal.CanceledError
	return errors.As(err, &te) && !errors.As(err, &ce)
}

// invokeModelInput is a model call of a durable turn: the prompt as the chain made it.
type invokeModelInput struct {
	Agent    []string          `json:"agent,omitempty"` // a sub-agent's turn: the path to its client
	Messages []chat.Message    `json:"messages"`
	Options  *chat.Options     `json:"options,omitempty"` // without Tools
	Tools    []tool.Definition `json:"tools,omitempty"`
	MaxBytes int               `json:"maxBytes,omitempty"` // bounds the response; 0: none
}

// invokeInput is a tool call of a durable turn.
type invokeInput struct {
	Turn        *Request             `json:"turn"`
	Call        chat.ToolCall        `json:"call"`
	Resume      *toolcall.Resumption `json:"resume,omitempty"`
	ToolContext tool.Context         `json:"toolContext,omitempty"`
}

// invokeOutput is what a tool returned: its result or its error, kind kept.
type invokeOutput struct {
	Text    string         `json:"text,omitempty"`
	Parts   []content.Part `json:"parts,omitempty"`
	Error   *invokeError   `json:"error,omitempty"`
	Elapsed time.Duration  `json:"elapsed,omitempty"`
}

// invokeError is a tool's error as the loop reads it.
type invokeError struct {
	Kind      string                   `json:"kind"`
	Message   string                   `json:"message"`
	Argument  *tool.ArgumentError      `json:"argument,omitempty"`
	Interrupt *toolcall.InterruptError `json:"interrupt,omitempty"`
	Child     *client.TurnState        `json:"child,omitempty"`
}

// The kinds of invokeError.
const (
	errKindTool      = "tool"
	errKindArgument  = "argument"
	errKindPanic     = "panic"
	errKindTimeout   = "timeout"
	errKindFatal     = "fatal"
	errKindInterrupt = "interrupt"
	errKindAgent     = "agent"
)

// result gives the output back as tool.Invoke would have returned it.
func (o *invokeOutput) result() (tool.Result, error) {
	e := o.Error
	if e == nil {
		return tool.Result{Text: o.Text, Parts: o.Parts}, nil
	}
	msg := errors.New(e.Message)
	switch e.Kind {
	case errKindArgument:
		if e.Argument != nil {
			return tool.Result{}, e.Argument
		}
	case errKindPanic:
		return tool.Result{}, &tool.PanicError{Value: e.Message}
	case errKindTimeout:
		return tool.Result{}, fmt.Errorf("%s: %w", e.Message, tool.ErrTimeout)
	case errKindFatal:
		return tool.Result{}, tool.Fatal(msg)
	case errKindInterrupt:
		if e.Interrupt != nil {
			return tool.Result{}, e.Interrupt
		}
	case errKindAgent:
		if e.Interrupt != nil && e.Child != nil {
			return tool.Result{}, client.StoppedAgent(e.Child, e.Interrupt)
		}
	}
	return tool.Result{}, msg
}

// invoke calls t as the loop would (tool.Invoke), in the context the workflow gave, and says
// how it ended. What the tool stopped with, and its result, are bounded by maxResult as JSON: a
// larger one fails the call for the model.
func invoke(ctx context.Context, t tool.Tool, in invokeInput, maxResult int) *invokeOutput {
	ctx = tool.WithContext(ctx, in.ToolContext)
	ctx = tool.WithCall(ctx, tool.Call{ID: in.Call.ID, Name: in.Call.Name})
	ctx = toolcall.WithResumption(ctx, in.Resume)
	start := time.Now()
	res, err := tool.Invoke(ctx, t, in.Call.Arguments)
	out := &invokeOutput{Elapsed: time.Since(start)}
	if err == nil {
		out.Text, out.Parts = res.Text, res.Parts
		if n := encodedSize(out); maxResult > 0 && n > maxResult {
			out.Text, out.Parts = "", nil
			out.Error = &invokeError{Kind: errKindTool, Message: fmt.Sprintf(
				"the tool's result is %d bytes, over the %d bytes a result may have in this turn; it was dropped. Ask for less.", n, maxResult)}
		}
		return out
	}
	e := &invokeError{Kind: errKindTool, Message: err.Error()}
	var ae *tool.ArgumentError
	var pe *tool.PanicError
	var ie *toolcall.InterruptError
	if state, interrupt, ok := client.AsStoppedAgent(err); ok {
		e.Kind, e.Child, e.Interrupt = errKindAgent, state, interrupt
	} else if errors.As(err, &ie) {
		e.Kind, e.Interrupt = errKindInterrupt, ie
	} else if errors.As(err, &ae) {
		e.Kind, e.Argument = errKindArgument, ae
	} else if errors.As(err, &pe) {
		e.Kind, e.Message = errKindPanic, fmt.Sprint(pe.Value)
	} else if errors.Is(err, tool.ErrTimeout) {
		e.Kind = errKindTimeout
	} else if tool.IsFatal(err) {
		e.Kind = errKindFatal
	}
	if e.Kind == errKindAgent || e.Kind == errKindInterrupt {
		if n := encodedSize(e); maxResult > 0 && n > maxResult {
			e = &invokeError{Kind: errKindTool, Message: fmt.Sprintf(
				"the tool stopped the turn for a decision, but what it stopped with is %d bytes, over the %d bytes a result may have in this turn; it was dropped.", n, maxResult)}
		}
	}
	out.Error = e
	return out
}

// InvokeTool runs one call of a durable turn with the tool the worker's client gathers under its
// name.
func (a *activities) InvokeTool(ctx context.Context, in invokeInput) (*invokeOutput, error) {
	req, err := a.request(ctx, in.Turn, nil)
	if err != nil {
		return nil, err
	}
	var t tool.Tool
	for _, tl := range req.Prompt.Options.Tools {
		if tl.Definition().Name == in.Call.Name {
			t = tl
			break
		}
	}
	if t == nil {
		return nil, sdktemporal.NewNonRetryableApplicationError(
			fmt.Sprintf("temporal: the worker's client has no tool %q", cut(in.Call.Name, maxCallIDInActivityID)), errTypeConfig, nil)
	}
	ctx, hb := heartbeat(ctx)
	defer hb.stop()
	if a.cfg.StreamInterval > 0 {
		// The agents the call runs stream their turns, and their events travel with the
		// heartbeats for Turn.Events to show while the call runs.
		log, stop := streamAgents(hb, a.cfg.StreamInterval)
		defer stop()
		ctx = client.WithAgentEvents(ctx, log.add)
	}
	out := invoke(ctx, t, in, a.cfg.MaxToolResultBytes)
	if ctx.Err() != nil {
		return nil, ctx.Err() // the attempt was cancelled or timed out: Temporal decides what next
	}
	return out, nil
}

// InvokeModel calls the worker's client's model with a prompt the turn's chain made.
func (a *activities) InvokeModel(ctx context.Context, in invokeModelInput) (*chat.Response, error) {
	c, err := agentClient(a.c, in.Agent)
	if err != nil {
		return nil, err
	}
	p := &chat.Prompt{Messages: in.Messages, Options: in.Options}
	if len(in.Tools) > 0 {
		if p.Options == nil {
			p.Options = &chat.Options{}
		}
		p.Options.Tools = make([]tool.Tool, len(in.Tools))
		for i, d := range in.Tools {
			p.Options.Tools[i] = &proxy{info: toolInfo{Definition: d}}
		}
	}
	return a.callModel(ctx, c.Model(), p, in.MaxBytes, a.cfg.StreamInterval > 0)
}

// approxSize estimates, without encoding them, the JSON size of messages: the length of their
// strings, the base64 of their media, and a fixed allowance per message, call, result and part.
// It errs high for plain text (escapes are rare), so that a turn refuses an input before the
// server does, and costs no encoding in workflow code, where a large one could stall the task.
func approxSize(msgs []chat.Message) int {
	n := 2
	parts := func(ps []content.Part) {
		for _, p := range ps {
			n += 64 + len(p.MediaType) + len(p.Text) + (len(p.Data)+2)/3*4 + len(p.URL) + len(p.Name) + len(p.Signature)
		}
	}
	for i := range msgs {
		m := &msgs[i]
		n += 64 + len(m.Content)
		parts(m.Parts)
		for _, c := range m.ToolCalls {
			n += 64 + len(c.ID) + len(c.Name) + len(c.Arguments)
		}
		for _, r := range m.ToolResults {
			n += 64 + len(r.ID) + len(r.Name) + len(r.Content)
			parts(r.Parts)
		}
		for _, r := range m.Reasoning {
			n += 64 + len(r.Provider) + len(r.ID) + len(r.Text) + len(r.Signature) + len(r.Encrypted)
		}
		for _, s := range m.ServerTools {
			n += 64 + len(s.Arguments) + len(s.Data) + 32*len(s.Tools)
		}
	}
	return n
}

// noMemory is the memory of a worker without Config.Memory that runs a turn which keeps one: a
// replayer reads the memory's steps from the history; a live worker fails them, saying why.
type noMemory struct{}

var errNoMemory = errors.New("temporal: the turn keeps a conversation, and this worker's config has no Memory")

func (noMemory) Add(context.Context, string, ...chat.Message) error  { return errNoMemory }
func (noMemory) Get(context.Context, string) ([]chat.Message, error) { return nil, errNoMemory }
func (noMemory) Clear(context.Context, string) error                 { return errNoMemory }

// memoPending is the memo of a client-loop turn that holds what it waits for, so that the
// state can be read with no worker running ([Turn.Pending]).
const memoPending = "wield.pending"

// maxMemoPending bounds the pending state a memo holds: a memo is part of the history.
const maxMemoPending = 256 << 10

// memoState is the memo of a waiting turn: its state without the conversation (the decisions
// need only the round), or, when even that is over maxMemoPending, its step alone; Seq 0 once
// the turn runs again.
type memoState struct {
	State *client.TurnState `json:"state,omitempty"`
	Seq   int64             `json:"seq"`
}

// leanPending returns the memo of a turn waiting in st. Its size is estimated from what the
// round holds, without encoding it in workflow code.
func leanPending(st *client.TurnState) memoState {
	out := memoState{Seq: st.Seq}
	if st.Round == nil {
		return out
	}
	msgs := []chat.Message{st.Round.Message}
	for _, c := range st.Round.Calls {
		if c.Result != nil {
			msgs = append(msgs, chat.ToolMessage(*c.Result))
		}
		if c.Interrupt != nil {
			msgs = append(msgs, chat.Message{Content: c.Interrupt.Message + string(c.Interrupt.Data)})
		}
		if c.Child != nil {
			msgs = append(msgs, c.Child.Messages...)
		}
	}
	if approxSize(msgs) > maxMemoPending {
		return out
	}
	out.State = &client.TurnState{Version: st.Version, ID: st.ID, Seq: st.Seq, ConversationID: st.ConversationID, Status: st.Status,
		Iteration: st.Iteration, Round: st.Round, CallCounts: st.CallCounts, TotalCalls: st.TotalCalls}
	return out
}

// engineError is the error a client-loop turn fails with: the client's error, typed as the
// workflow's own are, so that [Turn] maps it back to wield's errors (a breached limit, a
// payload over the bound, a provider's refusal).
func engineError(err error) error {
	var le *toolcall.LimitError
	if errors.As(err, &le) {
		return sdktemporal.NewNonRetryableApplicationError(err.Error(), errTypeLimit, err, *le)
	}
	var be *client.TreeBudgetError
	if errors.As(err, &be) {
		return sdktemporal.NewNonRetryableApplicationError(err.Error(), errTypeTreeBudget, err, *be)
	}
	var ae *sdktemporal.ApplicationError
	if errors.As(err, &ae) {
		switch ae.Type() {
		case errTypePayload, errTypeProvider, errTypeConfig, errTypeTurnEnded:
			return sdktemporal.NewNonRetryableApplicationError(err.Error(), ae.Type(), err)
		}
	}
	return err
}

// errContinueAsNew ends a run of a client-loop turn whose history grew past its bounds, between
// two rounds; the turn goes on in a new run (continueAsNew).
var errContinueAsNew = errors.New("temporal: the turn's history is long: it continues as new")

// Checkpoint implements client.Checkpointer: past the turn's history bounds, or when Temporal
// suggests it, the turn continues as new. Both are read from the history, so a replay decides
// alike.
func (r *wfRuntime) Checkpoint(ctx context.Context) error {
	if r.t.historyEvents <= 0 {
		return nil
	}
	info := workflow.GetInfo(r.wf(ctx))
	if info.GetContinueAsNewSuggested() || info.GetCurrentHistoryLength() > r.t.historyEvents || info.GetCurrentHistorySize() > r.t.historyBytes {
		return errContinueAsNew
	}
	return nil
}

// continueAsNew ends this run of the turn with a new run of its workflow that carries the state
// of the turn's error on, with what this run and earlier ones made.
func (t *turn) continueAsNew(ctx workflow.Context, err error) error {
	var te *client.TurnError
	if !errors.As(err, &te) || te.State == nil {
		return fmt.Errorf("temporal: the turn was to continue as new without a state to continue: %w", err)
	}
	next := *t.in
	c := &Continuation{State: te.State, Events: t.events, Usage: t.usage, ModelCalls: t.modelCalls, Runs: 1}
	if prev := t.in.Continued; prev != nil {
		c.Messages, c.Runs = prev.Messages[:len(prev.Messages):len(prev.Messages)], prev.Runs+1
	}
	c.Messages = append(c.Messages, te.Messages...)
	next.Continued = c
	n := approxSize(c.State.Messages) + approxSize(c.Messages)
	for _, v := range c.State.Carried { // what the client's hooks carry (compaction's state)
		n += len(v)
	}
	if t.maxPayload > 0 && n > t.maxPayload {
		return payloadError(fmt.Sprintf("temporal: the turn's history is long, and what it would carry into a new run is about %d bytes, over the turn's bound of %d (MaxPayloadBytes)", n, t.maxPayload))
	}
	return workflow.NewContinueAsNewError(ctx, t.cfg.workflowName(), &next)
}
