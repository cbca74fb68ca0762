package client

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"maps"
	"slices"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/content"
	"github.com/wield-ai/wield/engine"
	"github.com/wield-ai/wield/tool"
	"github.com/wield-ai/wield/toolcall"
)

// Spec is one request being built: c.Prompt("…").Tools(…).Call(ctx). Its methods add to the
// request and return the Spec; Call and Stream send it. A Spec is not safe for concurrent use.
type Spec struct {
	c         *Client
	system    *string
	msgs      []chat.Message
	tools     toolSet
	toolNames []string
	toolCtx   tool.Context
	opts      *chat.Options
	advisors  []Advisor
	params    map[string]any
	noLoop    bool
	approval  toolcall.ApprovalPolicy
	resume    *resumption
	nested    bool // a sub-agent's turn: its state lives in the parent's, never in a store
	err       error
	one       [1]chat.Message // holds a lone user message, the common case, without an allocation
}

// Prompt starts a request; each text is a user message.
func (c *Client) Prompt(user ...string) *Spec {
	s := &Spec{c: c}
	if len(user) == 1 {
		s.one[0] = chat.User(user[0])
		s.msgs = s.one[:1:1]
		return s
	}
	for _, u := range user {
		s.msgs = append(s.msgs, chat.User(u))
	}
	return s
}

// System replaces the client's default system message for this call; "" removes it.
func (s *Spec) System(text string) *Spec {
	s.system = &text
	return s
}

// User adds a user message: text, then any parts (images, documents, audio).
func (s *Spec) User(text string, parts ...content.Part) *Spec {
	s.msgs = append(s.msgs, chat.User(text, parts...))
	return s
}

// Messages adds messages, such as a conversation the caller keeps itself.
func (s *Spec) Messages(msgs ...chat.Message) *Spec {
	s.msgs = append(s.msgs, msgs...)
	return s
}

// Tools adds tools for this call, after the client's defaults. Each argument is a [tool.Tool],
// a []tool.Tool, a [tool.Provider], or a value of a type that registers method tools, whose
// methods become tools through [tool.Methods] (see [WithTools]). Two tools with one name fail
// the call.
func (s *Spec) Tools(tools ...any) *Spec {
	if err := s.tools.add(tools...); err != nil && s.err == nil {
		s.err = fmt.Errorf("client: tools: %w", err)
	}
	return s
}

// ToolNames adds names of tools to resolve through the manager's resolver.
func (s *Spec) ToolNames(names ...string) *Spec {
	s.toolNames = append(s.toolNames, names...)
	return s
}

// ToolContext adds tool context for this call, merged over the client's; it reaches the tools
// and never the model.
func (s *Spec) ToolContext(tc tool.Context) *Spec {
	if s.toolCtx == nil {
		s.toolCtx = make(tool.Context, len(tc))
	}
	maps.Copy(s.toolCtx, tc)
	return s
}

// Options merges opts over the client's default options for this call.
func (s *Spec) Options(opts *chat.Options) *Spec {
	s.opts = chat.Merge(s.opts, opts)
	return s
}

// Advisors adds advisors for this call. A [ToolLoop] given here replaces the default one.
func (s *Spec) Advisors(advisors ...Advisor) *Spec {
	s.advisors = append(s.advisors, advisors...)
	return s
}

// Param sets a request parameter for the advisors, such as [ParamConversationID].
func (s *Spec) Param(key string, value any) *Spec {
	if s.params == nil {
		s.params = make(map[string]any, 2)
	}
	s.params[key] = value
	return s
}

// Approval sets the approval policy of this call, in place of the client's ([WithApproval]).
func (s *Spec) Approval(policy toolcall.ApprovalPolicy) *Spec {
	s.approval = policy
	return s
}

// Resume makes the request continue the turn that stopped in state, with the application's
// decisions for its pending calls ([TurnState.Pending]; every one needs a decision). The turn
// continues exactly where it stopped: calls with a result never run again, approved and
// restarted calls run, and the loop goes on with the next model call. The request offers the
// tools and advisors as the first one did (the client's defaults, plus what the Spec adds); it
// takes no new messages, and names the state's conversation unless [Spec.Param] names one.
//
// A state resumes once: a second resume of the same state is refused with [ErrAlreadyResumed],
// by this process, and by any process sharing the client's [TurnStore]. With a store, the state
// must be the one stored for its step: another (edited on its way back) fails with
// [ErrTurnConflict]. Decisions that do not fit fail with [ErrInvalidDecision] before anything
// runs, and the state can be resumed again.
func (s *Spec) Resume(state *TurnState, decisions ...Decision) *Spec {
	s.resume = &resumption{state: state, decisions: decisions}
	return s
}

// Resume starts a request that continues the turn that stopped in state; see [Spec.Resume].
func (c *Client) Resume(state *TurnState, decisions ...Decision) *Spec {
	return c.Prompt().Resume(state, decisions...)
}

// WithoutToolLoop turns off the automatic tool loop for this call: tool calls come back to the
// caller with [OutcomeToolCalls].
func (s *Spec) WithoutToolLoop() *Spec {
	s.noLoop = true
	return s
}

// Request returns the request the spec sends down the advisor chain, without sending it: the
// system and user messages, the options merged over the client's with every tool gathered and
// resolved, the tool context merged over the client's, the parameters and the approval policy
// ([Request.Approval]). It is the client's configuration made concrete, for programs that run
// the turn's steps elsewhere, such as a durable workflow that calls the model and the tools as
// separate tasks.
func (s *Spec) Request(ctx context.Context) (*Request, error) {
	req, _, err := s.request(ctx)
	return req, err
}

// request assembles the request and picks the chain.
func (s *Spec) request(ctx context.Context) (*Request, *chain, error) {
	c := s.c
	if s.err != nil {
		return nil, nil, s.err
	}
	ch := c.chain
	if len(s.advisors) > 0 || (s.noLoop && !c.noLoop) {
		var err error
		ch, err = c.buildChain(append(c.advisors[:len(c.advisors):len(c.advisors)], s.advisors...), c.noLoop || s.noLoop)
		if err != nil {
			return nil, nil, err
		}
	}

	system := c.system
	if s.system != nil {
		system = *s.system
	}
	var msgs []chat.Message
	if system != "" {
		msgs = make([]chat.Message, 0, len(s.msgs)+1)
		msgs = append(msgs, chat.System(system))
		msgs = append(msgs, s.msgs...)
	} else {
		msgs = slices.Clip(s.msgs) // appends down the chain must not write into the spec
	}

	// The request and its options in one allocation. Options are the client's, or merged with
	// the spec's; a copy of the client's needs no allocation of its own when it holds none of
	// the slices and maps Clone copies.
	box := new(requestBox)
	opts := &box.opts
	if s.opts == nil && plainOptions(c.opts) {
		box.opts = *c.opts
	} else {
		opts = chat.Merge(c.opts, s.opts)
	}
	if err := s.resolveTools(ctx, opts); err != nil {
		return nil, nil, err
	}
	params, err := s.resumeParams()
	if err != nil {
		return nil, nil, err
	}
	var in *turnInputs
	if c.approval != nil || s.approval != nil || (c.store != nil && !s.nested) || s.resume != nil {
		in = &turnInputs{approval: c.approval, resume: s.resume}
		if s.approval != nil {
			in.approval = s.approval
		}
		if !s.nested {
			in.store = c.store
		}
	}
	toolCtx := c.toolCtx
	if len(s.toolCtx) > 0 {
		toolCtx = make(tool.Context, len(c.toolCtx)+len(s.toolCtx))
		maps.Copy(toolCtx, c.toolCtx)
		maps.Copy(toolCtx, s.toolCtx)
	}
	box.Request = Request{
		Prompt:       chat.Prompt{Messages: msgs, Options: opts},
		ToolContext:  toolCtx,
		Params:       params,
		rt:           c.rt,
		memoryInLoop: ch.memoryInLoop,
		turnIn:       in,
	}
	return &box.Request, ch, nil
}

// resolveTools adds to opts the client's and the spec's tools, and those their names resolve to.
func (s *Spec) resolveTools(ctx context.Context, opts *chat.Options) error {
	c := s.c
	if !c.tools.empty() || !s.tools.empty() {
		var err error
		if opts.Tools, err = c.tools.appendTo(ctx, opts.Tools, false); err == nil {
			opts.Tools, err = s.tools.appendTo(ctx, opts.Tools, true)
		}
		if err != nil {
			return fmt.Errorf("client: %w", err)
		}
	}
	names := c.names
	if len(s.toolNames) > 0 {
		names = append(names[:len(names):len(names)], s.toolNames...)
	}
	if len(names) > 0 && engine.From(ctx) != nil {
		// A durable turn resolves names as one recorded step: resolvers may do I/O.
		named, err := listTools(ctx, func(ctx context.Context) ([]tool.Tool, error) {
			return c.rt.manager.Resolve(ctx, nil, unoffered(opts.Tools, names))
		})
		if err != nil {
			return fmt.Errorf("client: tools: %w", err)
		}
		opts.Tools, names = append(opts.Tools, named...), nil
	}
	if len(opts.Tools) > 0 || len(names) > 0 {
		tools, err := c.rt.manager.Resolve(ctx, opts.Tools, names)
		if err != nil {
			return fmt.Errorf("client: tools: %w", err)
		}
		opts.Tools = tools
	}
	return nil
}

// resumeParams returns the spec's params, with the conversation of the turn it resumes.
func (s *Spec) resumeParams() (map[string]any, error) {
	params := s.params
	if s.resume != nil {
		if err := s.resume.state.check(); err != nil {
			return nil, err
		}
		for _, m := range s.msgs {
			if m.Role != chat.RoleSystem {
				return nil, errors.New("client: a resumed turn takes no new messages")
			}
		}
		if id := s.resume.state.ConversationID; id != "" {
			if _, ok := params[ParamConversationID]; !ok {
				params = maps.Clone(params)
				if params == nil {
					params = make(map[string]any, 1)
				}
				params[ParamConversationID] = id
			}
		}
	}
	return params, nil
}

// requestBox holds a spec's request and the options it points to.
type requestBox struct {
	Request
	opts chat.Options
}

// plainOptions reports options whose copy shares nothing that [chat.Options.Clone] copies: a
// shallow copy of them is their Clone.
func plainOptions(o *chat.Options) bool {
	return o != nil && o.Stop == nil && o.Tools == nil && o.Extra == nil
}

// run sends req through the chain; a response without the turn's messages (no tool loop ran)
// gets the model's answer as its one message, unless the turn stopped.
func run(ctx context.Context, ch *chain, req *Request) (*Response, error) {
	resp, err := ch.next(ctx, req)
	if err != nil {
		return nil, err
	}
	if resp == nil || resp.Chat == nil {
		return nil, ErrNoResponse
	}
	if resp.Messages == nil && resp.Pending == nil && len(resp.Chat.Generations) > 0 {
		resp.Messages = []chat.Message{resp.Chat.Message()}
	}
	return resp, nil
}

// Call sends the request through the advisor chain and waits for the answer.
func (s *Spec) Call(ctx context.Context) *CallResponse {
	req, ch, err := s.request(ctx)
	if err != nil {
		return &CallResponse{err: err}
	}
	resp, err := run(ctx, ch, req)
	return &CallResponse{resp: resp, err: err}
}

// CallResponse is the outcome of [Spec.Call].
type CallResponse struct {
	resp *Response
	err  error
}

// Content returns the text of the answer.
func (r *CallResponse) Content() (string, error) {
	if r.err != nil {
		return "", r.err
	}
	return r.resp.Text(), nil
}

// Response returns the whole response: the final chat response, the turn's messages, usage over
// every model call, and how the turn ended.
func (r *CallResponse) Response() (*Response, error) { return r.resp, r.err }

// ChatResponse returns the model's final response.
func (r *CallResponse) ChatResponse() (*chat.Response, error) {
	if r.err != nil {
		return nil, r.err
	}
	return r.resp.Chat, nil
}

// Err returns the error of the call, if any.
func (r *CallResponse) Err() error { return r.err }

// Stream sends the request through the chain as a stream. Nothing is sent until the returned
// stream is iterated.
func (s *Spec) Stream(ctx context.Context) *Stream {
	return &Stream{ctx: ctx, spec: s}
}

// Stream is a streamed turn. Iterate it once, with [Stream.Text] or [Stream.Events]; afterwards
// [Stream.Response] holds the whole response.
type Stream struct {
	ctx     context.Context
	spec    *Spec
	resp    *Response
	stopped bool // the consumer of the running iteration stopped it
	// The consumer of the running iteration, one of the two: the model end and the chain's steps
	// reach it through the request ([Request.stream]), so that a turn needs no function values
	// of its own to carry events.
	onEvent func(*Event, error) bool
	onText  func(string, error) bool
}

// Events yields the turn's events: text chunks of every round as they arrive, the fragments of
// tool calls as the model writes them ([Event.ToolDelta]), tool calls as they start and finish, the calls that wait for approval or interrupted the turn when it stops, the
// events of sub-agents ([AgentTool]) as they happen, attributed to them ([Event.Agent]), and the
// whole response last. Stopping the iteration cancels the turn.
func (s *Stream) Events() iter.Seq2[*Event, error] { return s.events(false) }

// events is Events; with borrow, the consumer reads each event during its step only and keeps
// none, so the events of chunks may be one event reused.
func (s *Stream) events(borrow bool) iter.Seq2[*Event, error] {
	return func(yield func(*Event, error) bool) {
		s.onEvent, s.onText = yield, nil
		s.run(borrow)
	}
}

// Text yields the text of the answer as it arrives, from every model call of the turn; the text
// of sub-agents ([AgentTool]) is not the answer's and is left out. Since no event of a tool round
// reaches its consumer, a round runs as on a call (sub-agents called, not streamed), unless an
// advisor reads the stream's events ([Request.WithEvents]).
func (s *Stream) Text() iter.Seq2[string, error] {
	return func(yield func(string, error) bool) {
		s.onEvent, s.onText = nil, yield
		s.run(true)
	}
}

// run runs the turn, handing each event to the consumer, its last the Done event, or its error;
// a text consumer gets the text of chunks from the model end instead, unless an advisor takes the
// events on their way ([Request.WithEvents]), and no Done event. The consumer returning false
// stops the turn.
func (s *Stream) run(borrow bool) {
	defer func() {
		// A request kept past its turn reaches a consumer that has gone: refuse its events.
		s.onEvent, s.onText, s.stopped = nil, nil, true
	}()
	s.stopped = false
	req, ch, err := s.spec.request(s.ctx)
	if err != nil {
		s.fail(err)
		return
	}
	req.stream, req.borrow, req.text = s, borrow, s.onText != nil
	resp, err := run(s.ctx, ch, req)
	switch {
	case s.stopped:
	case err != nil:
		s.fail(err)
	default:
		s.resp = resp
		if s.onText == nil {
			s.onEvent(&Event{Done: resp}, nil)
		}
	}
}

// fail hands err to the consumer.
func (s *Stream) fail(err error) {
	if s.onText != nil {
		s.onText("", err)
		return
	}
	s.onEvent(nil, err)
}

// emit hands ev to the consumer and reports whether it wants more. A text consumer gets the text
// of chunks that come as events (when an advisor reads them on their way), not a sub-agent's.
func (s *Stream) emit(ev *Event) bool {
	if s.stopped {
		return false
	}
	if s.onText == nil {
		s.stopped = !s.onEvent(ev, nil)
	} else if t := ev.Text(); t != "" && ev.agent == nil {
		s.stopped = !s.onText(t, nil)
	}
	return !s.stopped
}

// text hands a text consumer the text of a chunk and reports whether it wants more.
func (s *Stream) text(t string) bool {
	if s.stopped {
		return false
	}
	s.stopped = !s.onText(t, nil)
	return !s.stopped
}

// Response returns the whole response once the stream has been iterated to its end, or nil.
func (s *Stream) Response() *Response { return s.resp }
