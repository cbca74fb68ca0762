package toolcall

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/internal/schema"
	"github.com/wield-ai/wield/tool"
)

// ApprovalRequest is what an [ApprovalPolicy] decides on: one call of a model response and the
// tool it calls.
type ApprovalRequest struct {
	// Call is the model's call: name, id and arguments.
	Call chat.ToolCall
	// Definition is the called tool's definition.
	Definition tool.Definition
	// Metadata is the called tool's metadata, with its approval flag and MCP hints.
	Metadata tool.Metadata
}

// ApprovalPolicy reports whether a call must wait for the application's decision before it runs.
// When any call of a model response must wait, none of that response's calls runs: the round
// stops ([Result.Stopped]) with those calls marked [CallNeedsApproval]. A policy is called once
// per call of a known tool, on the goroutine of the round, and must not block for long; one that
// panics ends the turn with an error, before any call runs.
//
// A nil policy is [AskFlagged]: only tools whose metadata sets RequiresApproval ask.
type ApprovalPolicy func(ctx context.Context, req ApprovalRequest) bool

// AskFlagged asks for the calls of tools whose [tool.Metadata] sets RequiresApproval. It is the
// policy in force when none is set.
func AskFlagged() ApprovalPolicy {
	return func(_ context.Context, req ApprovalRequest) bool { return req.Metadata.RequiresApproval }
}

// AskDestructive asks, besides the flagged tools, for the calls of tools that may destroy data
// by their MCP hints: those whose Destructive hint is true, or unknown while the tool does not
// declare itself ReadOnly (MCP reads a missing destructiveHint as true). A ReadOnly tool never
// asks unless flagged.
func AskDestructive() ApprovalPolicy {
	return func(_ context.Context, req ApprovalRequest) bool {
		m := req.Metadata
		if m.RequiresApproval {
			return true
		}
		if m.ReadOnly {
			return false
		}
		return m.Destructive == nil || *m.Destructive
	}
}

// AskTools asks for the calls of the named tools, and of the flagged ones.
func AskTools(names ...string) ApprovalPolicy {
	set := make(map[string]struct{}, len(names))
	for _, n := range names {
		set[n] = struct{}{}
	}
	return func(_ context.Context, req ApprovalRequest) bool {
		_, ok := set[req.Call.Name]
		return ok || req.Metadata.RequiresApproval
	}
}

// AskNone never asks, not even for flagged tools: every call runs as the model asked.
func AskNone() ApprovalPolicy {
	return func(context.Context, ApprovalRequest) bool { return false }
}

// AskAny asks when any of policies asks; nil policies are skipped. Combine it with a policy of
// one's own to decide by arguments:
//
//	toolcall.AskAny(toolcall.AskDestructive(), func(ctx context.Context, r toolcall.ApprovalRequest) bool {
//		return r.Call.Name == "transfer" && amountOver(r.Call.Arguments, 100)
//	})
func AskAny(policies ...ApprovalPolicy) ApprovalPolicy {
	return func(ctx context.Context, req ApprovalRequest) bool {
		for _, p := range policies {
			if p != nil && p(ctx, req) {
				return true
			}
		}
		return false
	}
}

// InterruptError is returned by a tool to stop the turn and ask the application something: a
// missing detail, a choice, a confirmation. The call does not get a result; the round's other
// calls finish, and the round stops ([Result.Stopped]) with the call marked [CallInterrupted].
// On resume the application answers (the answer becomes the call's result) or restarts the call,
// possibly with new arguments, and the tool finds the interrupt and the application's data with
// [Resumed]. Build it with [Interrupt] or [InterruptWith].
type InterruptError struct {
	// Message is what the tool asks, for the application to show.
	Message string `json:"message"`
	// Data is what the tool attached for the application, as JSON.
	Data json.RawMessage `json:"data,omitempty"`
}

// MaxInterruptBytes caps an interrupt's Message and Data together (1 MiB): an interrupt is kept
// in the turn's state, stored and sent to the application. A tool's larger interrupt fails its
// call instead, with an error saying so, which the model reads as the call's result.
const MaxInterruptBytes = 1 << 20

// oversize returns the error of an interrupt over [MaxInterruptBytes], or nil.
func (e *InterruptError) oversize() error {
	if n := len(e.Message) + len(e.Data); n > MaxInterruptBytes {
		return fmt.Errorf("toolcall: the tool's interrupt is %d bytes, over the cap of %d", n, MaxInterruptBytes)
	}
	return nil
}

// Error returns the message.
func (e *InterruptError) Error() string { return "tool interrupted the turn: " + e.Message }

// Interrupt returns an error that stops the turn to ask message.
func Interrupt(message string) error { return &InterruptError{Message: message} }

// InterruptWith returns an error that stops the turn to ask message, with data (any value that
// marshals to JSON) for the application. If data does not marshal, the error says so and the
// call fails as with any tool error.
func InterruptWith(message string, data any) error {
	b, err := json.Marshal(data)
	if err != nil {
		return fmt.Errorf("toolcall: interrupt data: %w", err)
	}
	return &InterruptError{Message: message, Data: b}
}

// Resumption is what a restarted call's tool finds with [Resumed]: the interrupt it returned
// before, if any, and the data the application sent with the restart.
type Resumption struct {
	// Interrupt is the tool's earlier interrupt; nil when the call is run again for another
	// reason (its process ended while it ran).
	Interrupt *InterruptError
	// Data is the application's data for the tool, as JSON; may be empty.
	Data json.RawMessage
}

type resumptionKey struct{}

// WithResumption returns ctx with r as what [Resumed] finds: for a program that runs a
// restarted call's tool itself, such as a durable engine's worker.
func WithResumption(ctx context.Context, r *Resumption) context.Context {
	if r == nil {
		return ctx
	}
	return context.WithValue(ctx, resumptionKey{}, r)
}

// Resumed returns the resumption of the call ctx belongs to, when the call is a restart.
func Resumed(ctx context.Context) (*Resumption, bool) {
	r, ok := ctx.Value(resumptionKey{}).(*Resumption)
	return r, ok && r != nil
}

// CallStatus says where a call of a stopped round stands: in a [Result] of the Manager, and in
// a turn's saved state (client.PendingCall). Its values are the words a saved state's JSON holds.
type CallStatus string

// The statuses of a call in [Result.Calls] and in a saved turn.
const (
	// CallDone: the call has its result (it ran, or its result was given or computed without
	// running it, as for a call a limit refused); it never runs again.
	CallDone CallStatus = "done"
	// CallApproval: the call waits for the application's approval.
	CallApproval CallStatus = "approval"
	// CallInterrupted: the tool interrupted the turn to ask something, or the tool is a sub-agent
	// that stopped.
	CallInterrupted CallStatus = "interrupted"
	// CallWaiting: the call has not run and needs no decision; it runs when the round resumes,
	// once the approval policy, asked again, lets it.
	CallWaiting CallStatus = "waiting"
	// CallRunning: the call was running when its turn's state was saved. The Manager never
	// reports it; a saved turn does, for a round saved while it ran.
	CallRunning CallStatus = "running"
)

// CallNeedsApproval is the former name of [CallApproval].
//
// Deprecated: use [CallApproval].
const CallNeedsApproval = CallApproval

// String returns the status's word, or "unknown" for the zero value.
func (s CallStatus) String() string {
	if s == "" {
		return "unknown"
	}
	return string(s)
}

// CallOutcome is where one call of a round stands, in the model's order.
type CallOutcome struct {
	// Call is the call, with edited arguments if a [Plan] gave them.
	Call chat.ToolCall
	// Status says where the call stands.
	Status CallStatus
	// Result is the call's result when Status is CallDone.
	Result chat.ToolResult
	// Interrupt is the tool's interrupt when Status is CallInterrupted.
	Interrupt *InterruptError
	// Err is the error the tool returned when it interrupted: the interrupt itself or an error
	// wrapping it, for callers that attach more to it.
	Err error
}

// Plan tells [Manager.ResumeTurn] what to do with one call of a response that was stopped
// before, instead of what a new round does (ask the approval policy, then run).
type Plan struct {
	// Result, when set, is the call's result: the call does not run. Rejections and answers to
	// interrupts are given this way; its ID and Name are filled in from the call when empty.
	Result *chat.ToolResult
	// Arguments, when not empty, replace the model's arguments, also in the assistant message of
	// the history, so the conversation records what ran.
	Arguments string
	// Approved runs the call without asking the approval policy.
	Approved bool
	// Resume, when set, reaches the tool through [Resumed].
	Resume *Resumption
}

// ErrPlanMismatch is returned by [Manager.ResumeTurn] when the plans do not match the
// response's calls one to one.
var ErrPlanMismatch = errors.New("toolcall: the plans do not match the response's tool calls")

// ValidateArguments checks args against t's input schema, as the tool does before it runs, so
// that arguments an application edited can be refused before anything runs. The error is a
// *[tool.ArgumentError] saying what is wrong.
func ValidateArguments(t tool.Tool, args string) error {
	def := t.Definition()
	input := def.InputSchema
	if len(input) == 0 {
		input = json.RawMessage(`{"type":"object"}`)
	}
	v, err := schema.Compile(input)
	if err != nil {
		return fmt.Errorf("toolcall: tool %q: %w", def.Name, err)
	}
	return v.ValidateString(args)
}
