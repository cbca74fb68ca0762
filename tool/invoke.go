package tool

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"time"
)

// Invoke calls t with the model's arguments, the way every runtime does (the tool loop, the MCP
// server): it applies [Metadata.Timeout] to the call's context, turns a panic into a
// [*PanicError], and gives up on a tool that ignores its context once the timeout or ctx ends,
// returning without waiting for it. A call that times out fails with an error matching
// [ErrTimeout] (and context.DeadlineExceeded).
//
// The call runs on a goroutine of its own only when something can end it early: a timeout, or
// a ctx that can be cancelled. Otherwise it runs on the caller's goroutine, at the cost of a
// plain Call.
//
// A [PartsTool] is called through CallParts, so images and documents it returns are kept.
//
// Arguments are checked by the tool itself: tools built by [Func], [Methods] and [New] validate
// them once per call, whoever calls them.
func Invoke(ctx context.Context, t Tool, args string) (Result, error) {
	if t == nil {
		return Result{}, errors.New("tool: Invoke of a nil tool")
	}
	d := t.Metadata().Timeout
	if d <= 0 && ctx.Done() == nil {
		return callRecovered(ctx, t, args)
	}
	callCtx := ctx
	if d > 0 {
		var cancel context.CancelFunc
		callCtx, cancel = context.WithTimeoutCause(ctx, d, timeoutError(d))
		defer cancel()
	}
	type outcome struct {
		out Result
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		returned := false
		defer func() {
			if returned {
				return
			}
			if r := recover(); r != nil {
				done <- outcome{err: &PanicError{Value: r, Stack: debug.Stack()}}
				return
			}
			// runtime.Goexit: the tool's goroutine was stopped.
			done <- outcome{err: errors.New("the tool stopped without returning a result")}
		}()
		out, err := call(callCtx, t, args)
		returned = true
		done <- outcome{out, err}
	}()
	select {
	case o := <-done:
		if o.err != nil && ctx.Err() == nil && callCtx.Err() != nil {
			return Result{}, context.Cause(callCtx) // the tool gave up because of its timeout
		}
		return o.out, o.err
	case <-callCtx.Done():
		return Result{}, context.Cause(callCtx)
	}
}

// callRecovered calls t on this goroutine, turning a panic into a [*PanicError].
func callRecovered(ctx context.Context, t Tool, args string) (out Result, err error) {
	defer func() {
		if r := recover(); r != nil {
			out, err = Result{}, &PanicError{Value: r, Stack: debug.Stack()}
		}
	}()
	return call(ctx, t, args)
}

func call(ctx context.Context, t Tool, args string) (Result, error) {
	if pt, ok := t.(PartsTool); ok {
		return pt.CallParts(ctx, args)
	}
	text, err := t.Call(ctx, args)
	return Result{Text: text}, err
}

// timeoutError is the cause of a call that outlived its timeout. Its text is what the model
// reads, so it names the limit and nothing else; it matches [ErrTimeout] and
// context.DeadlineExceeded.
type timeoutError time.Duration

func (e timeoutError) Error() string { return fmt.Sprintf("%v after %v", ErrTimeout, time.Duration(e)) }

func (e timeoutError) Is(target error) bool {
	return target == ErrTimeout || target == context.DeadlineExceeded
}
