package toolcall

import (
	"context"
	"time"

	"github.com/wield-ai/wield/chat"
)

// Observer sees each tool call start and finish; the client's event stream uses it.
// It must not panic: it runs on the goroutines executing the calls.
//
// Both methods are called for every call Execute starts, including unknown tools, calls refused by
// a limit and failed calls; ToolFinished gets the result sent to the model (for a call cut short by
// the end of the turn, an error result saying so). Calls of one response run in parallel, so an
// Observer must be safe for concurrent use. ctx is the call's context: it carries the call's span
// and [tool.CallFrom].
type Observer interface {
	// ToolStarted is called before the call runs.
	ToolStarted(ctx context.Context, call chat.ToolCall)
	// ToolFinished is called with the call's result and how long it took.
	ToolFinished(ctx context.Context, call chat.ToolCall, result chat.ToolResult, elapsed time.Duration)
}

type observerKey struct{}

// WithObserver returns ctx carrying obs for the Execute calls made with it. Observers accumulate:
// one added to a context that already carries others is called after them.
func WithObserver(ctx context.Context, obs Observer) context.Context {
	if obs == nil {
		return ctx
	}
	prev := observersFrom(ctx)
	next := make([]Observer, len(prev), len(prev)+1)
	copy(next, prev)
	return context.WithValue(ctx, observerKey{}, append(next, obs))
}

func observersFrom(ctx context.Context) []Observer {
	obs, _ := ctx.Value(observerKey{}).([]Observer)
	return obs
}
