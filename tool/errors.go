package tool

import (
	"context"
	"errors"
	"fmt"

	"github.com/wield-ai/wield/internal/schema"
)

// ExecutionError is a tool call that failed: the tool's name, the model's call id and the cause.
type ExecutionError struct {
	Tool   string
	CallID string
	Err    error
}

// Error names the tool and the call, then the cause.
func (e *ExecutionError) Error() string {
	if e.CallID != "" {
		return fmt.Sprintf("tool %q (call %s): %v", e.Tool, e.CallID, e.Err)
	}
	return fmt.Sprintf("tool %q: %v", e.Tool, e.Err)
}

// Unwrap returns the cause, for errors.Is and errors.As.
func (e *ExecutionError) Unwrap() error { return e.Err }

// ErrorProcessor decides what a failed tool call becomes: text the caller's peer reads as the
// call's error result, or an error that ends the turn (in a tool loop's Manager, package
// toolcall) or fails the request (in an MCP server, package mcp). Both take the same processors;
// each documents which failures it passes and what its default does. It is called from several
// goroutines at once and must not panic.
type ErrorProcessor interface {
	// Process returns the text sent back for the failed call, or an error ending the turn or
	// failing the request. ctx is the call's context.
	Process(ctx context.Context, err *ExecutionError) (string, error)
}

// ErrorProcessorFunc adapts a function to [ErrorProcessor].
type ErrorProcessorFunc func(ctx context.Context, err *ExecutionError) (string, error)

// Process calls f.
func (f ErrorProcessorFunc) Process(ctx context.Context, err *ExecutionError) (string, error) {
	return f(ctx, err)
}

// fatalError marks an error that must end the turn instead of going back to the model.
type fatalError struct{ err error }

func (e fatalError) Error() string { return e.err.Error() }
func (e fatalError) Unwrap() error { return e.err }

// Fatal marks err as one that must end the turn: the runtime returns it to the caller instead of
// reporting it to the model as a failed tool result. Fatal(nil) is nil.
func Fatal(err error) error {
	if err == nil {
		return nil
	}
	return fatalError{err}
}

// IsFatal reports whether err, or an error it wraps, was marked with [Fatal].
func IsFatal(err error) bool {
	var f fatalError
	return errors.As(err, &f)
}

// ArgumentError reports tool arguments that cannot be used: text that is not JSON, or JSON that
// does not match the tool's input schema or cannot be held by its Go type. Its message is
// written for the model, which is expected to correct its call, for example
//
//	invalid arguments: /unit: "K" is not one of ["C","F"]
//
// and the runtime can tell it apart from a failure of the tool itself with errors.As. Its
// fields: Syntax is set when the arguments are not JSON (Offset is then the byte offset of the
// problem); Issues lists what is wrong, each at the JSON Pointer of the offending value.
// Error quotes the model's values; Redacted lists only paths and the rules broken, for logs
// and traces that must not record arguments.
type ArgumentError = schema.ArgumentError

// Issue is one problem with tool arguments: Path, the JSON Pointer (RFC 6901) of the value ("" for
// the arguments object itself); Message, what is wrong and what was expected; Keyword, the rule
// broken without the value ("type", "enum", "required", "syntax", …).
type Issue = schema.Issue

// ErrTimeout is the cause when a call outlives its tool's [Metadata.Timeout]; [Invoke]'s error
// matches it with errors.Is, and says how long the call was given.
var ErrTimeout = errors.New("tool call timed out")

// PanicError is a tool call that panicked, as [Invoke] reports it. Error gives the panic value
// only: the stack, with its file paths, is for logs and never for a model or a remote client.
type PanicError struct {
	Value any
	Stack []byte
}

// Error says the tool panicked, and with what.
func (e *PanicError) Error() string { return fmt.Sprintf("the tool panicked: %v", e.Value) }
