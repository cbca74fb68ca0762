package client

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"time"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/tool"
	"github.com/wield-ai/wield/toolcall"
)

// Advisor orders are relative to HighestPrecedence: lower runs first (outer), and an advisor
// with a higher order than the tool-calling advisor runs inside the tool loop, once per model
// call.
const (
	// HighestPrecedence is the order of the outermost position in the chain.
	HighestPrecedence = 0
	// LowestPrecedence is the order of the innermost position, next to the model.
	LowestPrecedence = math.MaxInt32
	// OrderMemory is the default order of memory advisors: outside the tool loop, so they load
	// history once per turn and store only the user's message and the final answer.
	OrderMemory = HighestPrecedence + 200
	// OrderToolCalling is the default order of the [ToolLoop].
	OrderToolCalling = HighestPrecedence + 300
)

// ParamConversationID is the request parameter naming the conversation, read by memory advisors
// and by anything else that keeps per-conversation state. Set it with [Spec.Param].
const ParamConversationID = "conversation_id"

// Advisor is a step of the advisor chain. It wraps the rest of the chain like HTTP middleware
// wraps a handler: it may change the request, call next zero or more times, and change the
// response. One method serves calls and streams alike: on a stream, the events the consumer sees
// flow through [Request.Emit] while the chain runs, and the response comes back as for a call, so
// an advisor written for calls is right for streams too. An advisor that wants to see or change
// the stream's events wraps them with [Request.WithEvents].
type Advisor interface {
	// Order places the advisor in the chain: lower is outer.
	Order() int
	// Advise handles req, passing it on with next.
	Advise(ctx context.Context, req *Request, next Next) (*Response, error)
}

// Next continues the chain: the next advisor, or the model.
type Next func(ctx context.Context, req *Request) (*Response, error)

// NewAdvisor returns an advisor at order that runs fn, for middleware without state of its own.
func NewAdvisor(order int, fn func(ctx context.Context, req *Request, next Next) (*Response, error)) Advisor {
	return funcAdvisor{order: order, fn: fn}
}

type funcAdvisor struct {
	order int
	fn    func(ctx context.Context, req *Request, next Next) (*Response, error)
}

func (a funcAdvisor) Order() int { return a.order }

func (a funcAdvisor) Advise(ctx context.Context, req *Request, next Next) (*Response, error) {
	return a.fn(ctx, req, next)
}

// HistoryKeeper is implemented by advisors that load and store the conversation themselves, such
// as the memory advisor. When such an advisor sits inside the tool loop (a higher order than the
// tool-calling advisor's) and KeepsHistory is true, the loop stops keeping its own history and
// sends each next iteration only the system messages and the new tool results, since the
// advisor supplies the rest.
type HistoryKeeper interface {
	KeepsHistory() bool
}

// Request is what flows down the advisor chain: the prompt, the call's parameters and, inside the
// tool loop, the turn's state. Advisors treat a Request as read-only and pass a changed copy on
// (see [Request.WithMessages] and [Request.WithOptions]), as HTTP middleware does.
type Request struct {
	// Prompt holds the messages and the options of the model call: what a provider reads. In
	// the chain Options is never nil and Options.Tools holds every tool of the call, names
	// already resolved.
	Prompt chat.Prompt
	// ToolContext reaches the tools through their context.Context ([tool.ContextFrom]) and never
	// the model.
	ToolContext tool.Context
	// Params are values for advisors, such as [ParamConversationID].
	Params map[string]any
	// Turn is the state of the tool loop's turn the request belongs to, nil outside one.
	Turn *Turn

	rt     *runtime
	stream *Stream // the stream whose consumer gets the events; nil on a call
	// emit, when set, takes the events on their way to the consumer ([Request.WithEvents], the
	// tool loop's filter); nil sends them to stream straight.
	emit func(*Event) bool
	// borrow: the consumer reads an event during the call only (it keeps none), so the model
	// end may reuse one event for every chunk.
	borrow bool
	// text: the consumer reads the answer's text only ([Stream.Text]): the model end hands
	// stream each chunk's text and no event, and the events of a tool round (calls starting and
	// finishing, sub-agents) reach no one, so the round runs as on a call.
	text         bool
	memoryInLoop bool
	untraced     bool        // see telemetry.startChat
	replay       bool        // a durable engine replays the turn (loopSpan.replay)
	turnIn       *turnInputs // nil for a plain turn
}

// turnInputs are a request's inputs for stopping and resuming turns, apart so that requests,
// copied at every step of the chain, stay small when there are none.
type turnInputs struct {
	approval toolcall.ApprovalPolicy
	store    TurnStore
	resume   *resumption
}

func (r *Request) resumption() *resumption {
	if r.turnIn == nil {
		return nil
	}
	return r.turnIn.resume
}

// Resuming reports whether the request continues a stopped turn ([Client.Resume]) rather than
// starting one: its messages are not new, and the response's messages continue those of the
// response that stopped.
func (r *Request) Resuming() bool { return r.resumption() != nil }

// Approval returns the approval policy of the request's turn: the [Spec]'s, else the client's
// ([WithApproval]); nil means [toolcall.AskFlagged], as for the [toolcall.Turn] it configures.
func (r *Request) Approval() toolcall.ApprovalPolicy {
	if r.turnIn == nil {
		return nil
	}
	return r.turnIn.approval
}

// Param returns the parameter key, or nil.
func (r *Request) Param(key string) any { return r.Params[key] }

// StringParam returns the parameter key if it is a non-empty string.
func (r *Request) StringParam(key string) (string, bool) {
	s, ok := r.Params[key].(string)
	return s, ok && s != ""
}

// Streaming reports whether the request belongs to a stream, whose consumer sees events as they
// happen, rather than to a call.
func (r *Request) Streaming() bool { return r.stream != nil }

// Emit sends ev to the stream's consumer and reports whether the consumer wants more; on a call
// it does nothing and reports true. An advisor that gets false must stop and return an error
// (the chain's own steps return one matching [context.Canceled]). Emit must be called on the
// goroutine that runs the advisor, never concurrently.
func (r *Request) Emit(ev *Event) bool {
	if r.stream == nil {
		return true
	}
	return r.send(ev)
}

// send hands ev on to the stream's consumer, through what takes events on their way.
func (r *Request) send(ev *Event) bool {
	if r.emit != nil {
		return r.emit(ev)
	}
	return r.stream.emit(ev)
}

// sender returns the function that sends events on to the stream's consumer.
func (r *Request) sender() func(*Event) bool {
	if r.emit != nil {
		return r.emit
	}
	return r.stream.emit
}

// WithEvents returns a copy of r whose events pass through fn before reaching the stream's
// consumer: fn gets each event with the function that sends it on, and returns what that
// function returned (or false to stop the stream). On a call it returns r unchanged.
func (r *Request) WithEvents(fn func(ev *Event, send func(*Event) bool) bool) *Request {
	if r.stream == nil {
		return r
	}
	c := *r
	send := r.sender()
	c.emit = func(ev *Event) bool { return fn(ev, send) }
	c.borrow = false // fn may keep events
	c.text = false   // fn may read any event
	return &c
}

// Clone returns a shallow copy of r: the messages slice, options, params and turn are shared.
func (r *Request) Clone() *Request {
	c := *r
	return &c
}

// WithMessages returns a copy of r with msgs as its messages.
func (r *Request) WithMessages(msgs []chat.Message) *Request {
	c := *r
	c.Prompt.Messages = msgs
	return &c
}

// WithOptions returns a copy of r with opts as its options.
func (r *Request) WithOptions(opts *chat.Options) *Request {
	c := *r
	c.Prompt.Options = opts
	return &c
}

// Outcome says how a turn ended.
type Outcome int

// The outcomes of a turn.
const (
	// OutcomeAnswer: the model answered without asking for (further) tools.
	OutcomeAnswer Outcome = iota
	// OutcomeToolCalls: the model asked for tools and the calls are returned to the caller
	// unexecuted, because no tool loop ran (the user-controlled loop, delegation) or the
	// eligibility checker declined them.
	OutcomeToolCalls
	// OutcomeReturnDirect: every tool called was return-direct; the answer is their results.
	OutcomeReturnDirect
	// OutcomeIterationLimit: the loop reached its iteration cap and made one last model call with
	// tool use turned off; the answer may be incomplete.
	OutcomeIterationLimit
	// OutcomeApproval: calls of the model's response need approval (a sub-agent's included) and
	// none of them ran; [Response.Pending] holds the turn's state, [Client.Resume] continues it
	// with the application's decisions.
	OutcomeApproval
	// OutcomeInterrupted: a tool (or a sub-agent's tool) interrupted the turn to ask something;
	// [Response.Pending] holds the turn's state, [Client.Resume] continues it.
	OutcomeInterrupted
)

func (o Outcome) String() string {
	switch o {
	case OutcomeAnswer:
		return "answer"
	case OutcomeToolCalls:
		return "tool_calls"
	case OutcomeReturnDirect:
		return "return_direct"
	case OutcomeIterationLimit:
		return "iteration_limit"
	case OutcomeApproval:
		return "approval_required"
	case OutcomeInterrupted:
		return "interrupted"
	}
	return "unknown"
}

// Response is what flows back up the advisor chain.
type Response struct {
	// Chat is the model's final response. After a return-direct turn it is built from the tool
	// results: one generation whose text is the results' contents, one per line.
	Chat *chat.Response
	// Messages are the messages the turn added to the conversation, in order: each tool round's
	// assistant message with its calls and the tool message with their results, then the answer.
	// Outside a tool loop it is the model's answer alone. A turn that stops holds its completed
	// rounds only (the stopped round is in Pending), and a resumed turn holds what it added
	// since the resume, so the messages of a stop and of its resume, appended in order, are the
	// conversation.
	Messages []chat.Message
	// Usage is the token usage of every model call of the turn (since the resume, for a resumed
	// turn), summed.
	Usage chat.Usage
	// Outcome says how the turn ended.
	Outcome Outcome
	// ModelCalls is the number of model calls the turn made (since the resume, for a resumed
	// turn).
	ModelCalls int
	// ToolResults are the results that became the answer of a return-direct turn.
	ToolResults []chat.ToolResult
	// Pending is the state of a turn that stopped ([OutcomeApproval], [OutcomeInterrupted]):
	// the calls awaiting a decision ([TurnState.Pending]) and everything needed to continue.
	Pending *TurnState
	// Tree is what a top-level turn's agent tree spent ([TreeBudget]): its own calls and its
	// sub-agents', counted on across resumes; zero for a sub-agent's turn run in its caller's.
	Tree TreeSpent
}

// Text returns the text of the final response's first generation.
func (r *Response) Text() string {
	if r == nil {
		return ""
	}
	return r.Chat.Text()
}

// Event is one element of a streamed turn. Exactly one of Chunk, ToolDelta, Tool, Compaction
// and Done is set.
type Event struct {
	// Chunk is a piece of the model's answer as the provider sent it. Out of the tool loop, chunks
	// carry only text and reasoning: tool-call fragments come as ToolDelta events.
	Chunk *chat.Response
	// ToolDelta is a fragment of a tool call as the model writes it, sent by the tool loop to
	// consumers of events (never to [Stream.Text]).
	ToolDelta *ToolCallDelta
	// Tool reports a tool call starting or finishing.
	Tool *ToolEvent
	// Compaction reports that the conversation was shortened to fit the model's context window
	// before a model call (the compact package sends it).
	Compaction *Compaction
	// Done is the whole response of the turn, the last event of a stream that did not fail. It is
	// never emitted inside the chain: there the response is what next returns.
	Done *Response

	agent *string // see Agent; a pointer keeps events, made for every chunk, small
}

// Agent names the sub-agent ([AgentTool]) the event comes from, outermost first, joined by "/";
// empty for the turn's own events.
func (e *Event) Agent() string {
	if e == nil || e.agent == nil {
		return ""
	}
	return *e.agent
}

// eventFields is Event without its methods, for its JSON.
type eventFields Event

// MarshalJSON encodes the event with its attribution (Agent), which a runtime that carries
// events elsewhere (a durable turn's) keeps.
func (e Event) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		eventFields
		Agent string `json:",omitempty"`
	}{eventFields(e), e.Agent()})
}

// UnmarshalJSON decodes an event MarshalJSON encoded.
func (e *Event) UnmarshalJSON(b []byte) error {
	var v struct {
		eventFields
		Agent string
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*e = Event(v.eventFields)
	if v.Agent != "" {
		e.agent = &v.Agent
	}
	return nil
}

// Text returns the text the event carries, a sub-agent's included: that of the first generation
// (Index 0), the rule of [chat.Response.Text], so a stream's texts join to the response's text.
// Other generations are alternatives (Options.N), read from Chunk.
func (e *Event) Text() string {
	if e == nil {
		return ""
	}
	return chunkText(e.Chunk)
}

// chunkText is the text of a stream chunk's first generation.
func chunkText(c *chat.Response) string {
	if c == nil {
		return ""
	}
	for i := range c.Generations {
		if c.Generations[i].Index == 0 {
			return c.Generations[i].Message.Text()
		}
	}
	return ""
}

// Compaction says how a conversation was shortened before a model call: which tool results were
// capped or cleared (by call id), how many messages a summary replaced, and the estimated input
// tokens before and after, against the budget.
type Compaction struct {
	// Before and After are the estimated input tokens of the request; Budget is its limit.
	Before, After, Budget int
	// Scale is the correction the estimate applied, in thousandths of the heuristic's count, as
	// the usage of earlier responses calibrated it (1000: none).
	Scale int `json:",omitempty"`
	// Capped and Cleared name the tool results (by call id) cut to an excerpt or to a stub;
	// their full text stays retrievable by id.
	Capped, Cleared []string
	// Summarized is the number of messages a summary replaced (0 when none), and SummaryID the
	// id the summary names, by which what it replaced stays retrievable.
	Summarized int
	SummaryID  string `json:",omitempty"`
	// SummaryError is why summarising failed, when it did; the turn went on without a summary.
	SummaryError string `json:",omitempty"`
	// Retry is true when the compaction followed the provider's context-length refusal.
	Retry bool
}

// ToolEventKind says what happened to a tool call.
type ToolEventKind int

// The kinds of tool events.
const (
	ToolStarted ToolEventKind = iota + 1
	ToolFinished
	// ToolApprovalRequired: the call waits for approval and the turn stops; sent for each such
	// call, after which the stream ends with a Done event whose response is Pending.
	ToolApprovalRequired
	// ToolInterrupted: the tool interrupted the turn to ask something (Interrupt), or the tool is
	// a sub-agent that stopped; the stream then ends as for an approval.
	ToolInterrupted
)

// ToolEvent reports a tool call for user interfaces: its name, id and arguments when it starts;
// also its result and duration when it finishes; what it asks when it interrupts the turn.
type ToolEvent struct {
	Kind ToolEventKind
	// Call is the model's call: Name, ID and Arguments.
	Call chat.ToolCall
	// Interrupt is what the tool asked (ToolInterrupted only).
	Interrupt *toolcall.InterruptError
	// Result is the result sent back to the model (ToolFinished only).
	Result chat.ToolResult
	// Elapsed is how long the call ran (ToolFinished only).
	Elapsed time.Duration
}

// Err returns the failure a finished call reported to the model, or nil.
func (e *ToolEvent) Err() error {
	if e.Kind != ToolFinished || !e.Result.IsError {
		return nil
	}
	return errors.New(e.Result.Content)
}
