package client

import (
	"context"
	"errors"
	"iter"
	"math"
	"strings"
	"time"

	"github.com/wield-ai/wield/chat"
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
	// OrderToolCalling is the default order of the [ToolCallingAdvisor].
	OrderToolCalling = HighestPrecedence + 300
)

// ParamConversationID is the request parameter naming the conversation, read by memory advisors
// and by anything else that keeps per-conversation state. Set it with [Spec.Param].
const ParamConversationID = "conversation_id"

// Advisor is a step of the advisor chain. It must also implement [CallAdvisor],
// [StreamAdvisor] or both; the call chain uses the first kind, the stream chain the second.
type Advisor interface {
	// Order places the advisor in the chain: lower is outer.
	Order() int
}

// CallNext continues a call chain: the next advisor, or the model.
type CallNext func(ctx context.Context, req *Request) (*Response, error)

// StreamNext continues a stream chain: the next advisor, or the model.
type StreamNext func(ctx context.Context, req *Request) iter.Seq2[*Event, error]

// CallAdvisor wraps the rest of a call chain, like HTTP middleware wraps a handler: it may change
// the request, call next zero or more times, and change the response.
type CallAdvisor interface {
	Advisor
	Call(ctx context.Context, req *Request, next CallNext) (*Response, error)
}

// StreamAdvisor wraps the rest of a stream chain. The stream it returns must end, when it does
// not fail, with an event carrying [Event.Done], as the model's stream does.
type StreamAdvisor interface {
	Advisor
	Stream(ctx context.Context, req *Request, next StreamNext) iter.Seq2[*Event, error]
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
// tool loop, the loop's state. Advisors treat a Request as read-only and pass a changed copy on
// (see [Request.WithMessages] and [Request.WithOptions]), as HTTP middleware does.
type Request struct {
	// Prompt holds the messages and the options of the call. In the chain Options is never nil,
	// Tools holds every tool of the call (ToolNames already resolved) and ToolContext the tool
	// context; the model is sent neither names nor tool context.
	Prompt chat.Prompt
	// Params are values for advisors, such as [ParamConversationID].
	Params map[string]any
	// Loop is the state of the tool loop the request belongs to, nil outside one.
	Loop *Loop

	rt           *runtime
	memoryInLoop bool
	untraced     bool // see telemetry.startChat
}

// Param returns the parameter key, or nil.
func (r *Request) Param(key string) any { return r.Params[key] }

// StringParam returns the parameter key if it is a non-empty string.
func (r *Request) StringParam(key string) (string, bool) {
	s, ok := r.Params[key].(string)
	return s, ok && s != ""
}

// Clone returns a shallow copy of r: the messages slice, options, params and loop are shared.
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
	}
	return "unknown"
}

// Response is what flows back up the advisor chain.
type Response struct {
	// Chat is the model's final response. After a return-direct turn it is built from the tool
	// results: one generation whose text is the results' contents, one per line.
	Chat *chat.Response
	// Usage is the token usage of every model call of the turn, summed.
	Usage chat.Usage
	// Outcome says how the turn ended.
	Outcome Outcome
	// ModelCalls is the number of model calls the turn made.
	ModelCalls int
	// ToolResults are the results that became the answer of a return-direct turn.
	ToolResults []chat.ToolResult
}

// Text returns the text of the final response's first generation.
func (r *Response) Text() string {
	if r == nil {
		return ""
	}
	return r.Chat.Text()
}

// Event is one element of a streamed turn. Exactly one of its fields is set.
type Event struct {
	// Chunk is a piece of the model's answer as the provider sent it. Out of the tool loop, chunks
	// carry only text and reasoning: tool-call fragments are consumed by the loop.
	Chunk *chat.Response
	// Tool reports a tool call starting or finishing.
	Tool *ToolEvent
	// Done is the whole response of the turn (or, inside the loop, of one model call); it is the
	// last event of a stream that did not fail.
	Done *Response
}

// Text returns the text the event carries: the text of every generation of its chunk.
func (e *Event) Text() string {
	if e == nil || e.Chunk == nil {
		return ""
	}
	gens := e.Chunk.Generations
	if len(gens) == 1 {
		return gens[0].Message.Content
	}
	var b strings.Builder
	for _, g := range gens {
		b.WriteString(g.Message.Content)
	}
	return b.String()
}

// ToolEventKind says whether a tool call started or finished.
type ToolEventKind int

// The kinds of tool events.
const (
	ToolStarted ToolEventKind = iota + 1
	ToolFinished
)

// ToolEvent reports a tool call for user interfaces: its name, id and arguments when it starts;
// also its result and duration when it finishes.
type ToolEvent struct {
	Kind ToolEventKind
	// Call is the model's call: Name, ID and Arguments.
	Call chat.ToolCall
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
