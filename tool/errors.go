package tool

import (
	"errors"
	"fmt"
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
