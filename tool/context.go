package tool

import (
	"context"
	"fmt"
	"maps"
)

// Context is application data for tools, such as a tenant id or the current user. It travels in
// a [context.Context] and is never part of a schema or of a request to a model.
type Context map[string]any

type contextKey struct{}

// WithContext returns ctx carrying tc. Keys already present in ctx's tool context are kept unless
// tc sets them too, so a per-call context merged over a default one wins.
func WithContext(ctx context.Context, tc Context) context.Context {
	if len(tc) == 0 {
		return ctx
	}
	if prev := ContextFrom(ctx); len(prev) > 0 {
		merged := make(Context, len(prev)+len(tc))
		maps.Copy(merged, prev)
		maps.Copy(merged, tc)
		tc = merged
	}
	return context.WithValue(ctx, contextKey{}, tc)
}

// ContextFrom returns the tool context carried by ctx, or nil. The map must not be modified.
func ContextFrom(ctx context.Context) Context {
	tc, _ := ctx.Value(contextKey{}).(Context)
	return tc
}

// Call identifies the model's tool call a tool is running for.
type Call struct {
	// ID is the model's id for the call (may be empty for models that do not send one).
	ID string
	// Name is the tool name the model used.
	Name string
	// Parallel is how many calls of the round may run at once with this one, itself included: 1
	// when it runs alone, 0 when not known. Work that takes a share of something the calls
	// share (the agent tree's budget, client.ShareTree) divides it by this.
	Parallel int
}

type callKey struct{}

// WithCall returns ctx carrying c; the runtime sets it before calling a tool.
func WithCall(ctx context.Context, c Call) context.Context {
	return &callContext{Context: ctx, call: c}
}

// callContext carries a Call in one allocation, where context.WithValue would take two (the
// context and the boxed Call): it is made for every tool call.
type callContext struct {
	context.Context
	call Call
}

func (c *callContext) Value(key any) any {
	if key == (callKey{}) {
		return c.call
	}
	return c.Context.Value(key)
}

func (c *callContext) String() string { return fmt.Sprintf("%v.WithCall(%+v)", c.Context, c.call) }

// CallFrom returns the tool call ctx was set up for, if any.
func CallFrom(ctx context.Context) (Call, bool) {
	c, ok := ctx.Value(callKey{}).(Call)
	return c, ok
}
