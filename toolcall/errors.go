package toolcall

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/wield-ai/wield/tool"
)

// Errors found as causes of a *[tool.ExecutionError] handed to an [ErrorProcessor], and returned
// by [Manager.Execute] and [Manager.Resolve].
var (
	// ErrUnknownTool is the cause when the model calls a tool the request did not offer.
	ErrUnknownTool = errors.New("unknown tool")
	// ErrNoToolCalls is returned by Execute for a response without tool calls.
	ErrNoToolCalls = errors.New("toolcall: the response has no tool calls")
	// ErrDuplicateTool is returned when two tools of one request share a name.
	ErrDuplicateTool = errors.New("toolcall: duplicate tool name")
	// ErrNoResolver is returned when options name tools but the Manager has no Resolver.
	ErrNoResolver = errors.New("toolcall: tool names given but no resolver configured")
	// ErrLimitExceeded matches every [LimitError] with errors.Is.
	ErrLimitExceeded = errors.New("tool call limit exceeded")
)

// LimitError reports a call that would exceed a per-turn limit (see [Limits]).
type LimitError struct {
	// Tool is the tool whose per-tool limit was exceeded; empty when the total limit was.
	Tool string
	// Limit is the limit that was exceeded.
	Limit int
	// CallID is the id of the model's call that would have exceeded it.
	CallID string
}

// Error names the limit exceeded.
func (e *LimitError) Error() string {
	if e.Tool != "" {
		return fmt.Sprintf("toolcall: tool call limit (%d) exceeded for tool %q in this turn", e.Limit, e.Tool)
	}
	return fmt.Sprintf("toolcall: total tool call limit (%d) exceeded in this turn", e.Limit)
}

// Is makes errors.Is(err, [ErrLimitExceeded]) true.
func (e *LimitError) Is(target error) bool { return target == ErrLimitExceeded }

// modelText is what the model is told when the limit refuses a call.
func (e *LimitError) modelText() string {
	if e.Tool != "" {
		return fmt.Sprintf("Tool call limit (%d) reached for tool %q: no further calls to this tool are allowed in this turn.", e.Limit, e.Tool)
	}
	return fmt.Sprintf("Total tool call limit (%d) reached: no further tool calls are allowed in this turn.", e.Limit)
}

// ErrorProcessor is [tool.ErrorProcessor], one interface for the Manager and an MCP server.
// In a Manager, like Spring AI's ToolExecutionExceptionProcessor, it decides the text the model
// reads as a failed call's error result, or an error that ends the turn and is returned by
// [Manager.Execute].
//
// It sees every failure that can go back to the model: unknown tools ([ErrUnknownTool]), arguments
// the tool rejects (*[tool.ArgumentError] from tools built by the tool package), other tool errors,
// panics (*[tool.PanicError]) and timeouts ([tool.ErrTimeout]). Errors marked with [tool.Fatal]
// and the cancellation of the caller's context end the turn without consulting it.
//
// Deprecated: use [tool.ErrorProcessor].
type ErrorProcessor = tool.ErrorProcessor

// ErrorProcessorFunc is [tool.ErrorProcessorFunc].
//
// Deprecated: use [tool.ErrorProcessorFunc].
type ErrorProcessorFunc = tool.ErrorProcessorFunc

// DefaultErrorProcessor sends the failure back to the model: the text is the cause's message (the
// tool's own error text, which should tell the model what to fix). It never ends the turn.
func DefaultErrorProcessor() tool.ErrorProcessor { return tool.ErrorProcessorFunc(defaultProcess) }

func defaultProcess(_ context.Context, err *tool.ExecutionError) (string, error) {
	if err.Err == nil {
		return "The tool failed without saying why.", nil
	}
	// The panic itself, as tool.Invoke returns it; a wrapper (an MCP server's neutral internal
	// failure) has its own say.
	if pe, ok := err.Err.(*tool.PanicError); ok {
		return panicText(pe), nil
	}
	if msg := strings.TrimSpace(err.Err.Error()); msg != "" {
		return msg, nil
	}
	return "The tool failed without saying why.", nil
}

// maxPanicText bounds the panic value a model reads.
const maxPanicText = 200

// panicText tells the model that a tool panicked, with the first line of the panic's value. A
// value may carry a stack trace, with the program's file paths (a panic re-raised with
// debug.Stack, some libraries' recovered panics); that stays in the log, with the stack of the
// panic itself.
func panicText(pe *tool.PanicError) string {
	msg, _, _ := strings.Cut(fmt.Sprint(pe.Value), "\n")
	msg = strings.TrimSpace(msg)
	if len(msg) > maxPanicText {
		msg = msg[:maxPanicText] + "…"
	}
	if msg == "" {
		return "The tool panicked."
	}
	return "the tool panicked: " + msg
}

// AlwaysFail ends the turn on any failed call, returning the *[tool.ExecutionError] from Execute
// (Spring AI's alwaysThrow). Use it when a failure must never reach the model, for instance
// because error texts could reveal internals.
func AlwaysFail() tool.ErrorProcessor {
	return tool.ErrorProcessorFunc(func(_ context.Context, err *tool.ExecutionError) (string, error) {
		return "", err
	})
}
