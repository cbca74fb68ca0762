// Package redact renders errors for telemetry kept without content: spans, span statuses and
// logs that must not carry what a model passed a tool or what a tool returned. Traces and logs
// travel to other systems and other people than the conversation does.
//
// A tool's own error text is content: it is what the model reads as the call's result, and it
// often quotes the arguments ("no such file: /home/alice/notes.txt"). So is a validation
// error's, which quotes the offending values. What remains is the kind of failure and, for
// invalid arguments, the paths and rules they broke.
package redact

import (
	"context"
	"errors"
	"strconv"
	"strings"

	"github.com/wield-ai/wield/tool"
)

// Redactor is an error that can describe itself without content, as [tool.ArgumentError] does
// with its paths and rule names. [Cause] uses it when it finds one in an error's chain.
type Redactor interface {
	error
	Redacted() string
}

// Cause returns a tool call's error, as a tool or the envelope around it returned it, described
// without content: the Redacted text of a [Redactor] in its chain (invalid arguments: paths and
// rules), or its kind ("the tool panicked", "the tool timed out", "the tool failed").
func Cause(err error) string {
	var r Redactor
	var pe *tool.PanicError
	switch {
	case err == nil:
		return ""
	case errors.As(err, &r):
		return r.Redacted()
	case errors.As(err, &pe):
		return "the tool panicked"
	case errors.Is(err, tool.ErrTimeout), errors.Is(err, context.DeadlineExceeded):
		return "the tool timed out"
	case errors.Is(err, context.Canceled):
		return "the tool call was cancelled"
	case tool.IsFatal(err):
		return "the tool failed and ended the turn"
	}
	return "the tool failed"
}

// Error returns err's text with the part a tool call's failure contributed described as [Cause]
// describes it: the cause of a [*tool.ExecutionError] in the chain, or else an argument error
// (a [Redactor]) in it, whose own texts are replaced where the wrapping texts quote them. An
// error holding neither keeps its text. When the wrapping does not quote its cause verbatim,
// so that it cannot be cut out, only the description is returned.
func Error(err error) string {
	if err == nil {
		return ""
	}
	text := err.Error()
	var ee *tool.ExecutionError
	if errors.As(err, &ee) && ee.Err != nil {
		return replace(text, ee.Err.Error(), Cause(ee.Err), "tool "+strconv.Quote(ee.Tool)+": ")
	}
	var r Redactor
	if errors.As(err, &r) {
		return replace(text, r.Error(), r.Redacted(), "")
	}
	return text
}

// replace returns text with old replaced by repl, or prefix and repl when text does not hold
// old.
func replace(text, old, repl, prefix string) string {
	if old == "" || old == repl {
		return text
	}
	if !strings.Contains(text, old) {
		return prefix + repl
	}
	return strings.ReplaceAll(text, old, repl)
}
