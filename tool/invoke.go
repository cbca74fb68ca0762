package tool

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"runtime/pprof"
	"sync"
	"sync/atomic"
	"time"

	"github.com/wield-ai/wield/engine"
	"github.com/wield-ai/wield/internal/workers"
)

// Invoke calls t with the model's arguments, the way every runtime does (the tool loop, the MCP
// server): it applies [Metadata.Timeout] to the call's context, turns a panic into a
// [*PanicError], and gives up on a tool that ignores its context once the timeout or ctx ends,
// returning without waiting for it. A call that times out fails with an error matching
// [ErrTimeout] (and context.DeadlineExceeded).
//
// The call runs on another goroutine only when something can end it early: a timeout, or a ctx
// that can be cancelled. Otherwise it runs on the caller's goroutine, at the cost of a plain
// Call. The other goroutines are kept for later calls for a while, their stacks grown.
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
	if d <= 0 && ctx.Done() == nil || engine.From(ctx) != nil {
		// A durable engine's code runs on its coroutines only: no goroutine of ours, and no
		// timer (the engine bounds a step's time).
		return callRecovered(ctx, t, args)
	}
	callCtx := ctx
	if d > 0 {
		var cancel context.CancelFunc
		callCtx, cancel = context.WithTimeoutCause(ctx, d, timeoutError(d))
		defer cancel()
	}
	c := invocations.Get().(*invocation)
	c.ctx, c.t, c.args = callCtx, t, args
	c.state.Store(invRunning)
	w := workers.WaiterFrom(ctx)
	claimed := w != nil && w.Claim()
	workers.Go(c)
	var finished bool
	if claimed {
		finished = w.Wait(c.done, callCtx.Done()) // a stream's turn, emitting while it waits
	} else {
		select {
		case <-c.done:
			finished = true
		case <-callCtx.Done():
		}
	}
	if !finished {
		if c.state.CompareAndSwap(invRunning, invAbandoned) {
			return Result{}, context.Cause(callCtx) // c is the worker's now
		}
		<-c.done // it finished meanwhile
	}
	out, err := c.out, c.err
	c.recycle()
	if err != nil && ctx.Err() == nil && callCtx.Err() != nil {
		return Result{}, context.Cause(callCtx) // the tool gave up because of its timeout
	}
	return out, err
}

// invocation is a call run on a worker goroutine (internal/workers), whose stack has grown for
// calls before; invocations are reused, so that a call allocates none of its own.
type invocation struct {
	ctx   context.Context
	t     Tool
	args  string
	out   Result
	err   error
	state atomic.Int32  // invRunning, then invFinished or invAbandoned, whichever comes first
	done  chan struct{} // the worker's word that it finished: buffered, so it never waits
}

const (
	invRunning int32 = iota
	invFinished
	invAbandoned // the caller returned without the result
)

var invocations = sync.Pool{New: func() any { return &invocation{done: make(chan struct{}, 1)} }}

// Run calls the tool on the worker, with the labels of the call's context for profiles (a go
// statement would have given it the caller's).
func (c *invocation) Run() {
	pprof.SetGoroutineLabels(c.ctx)
	returned := false
	defer func() {
		if !returned {
			if r := recover(); r != nil {
				c.out, c.err = Result{}, &PanicError{Value: r, Stack: debug.Stack()}
			} else {
				// runtime.Goexit: the tool's goroutine was stopped.
				c.out, c.err = Result{}, errors.New("the tool stopped without returning a result")
			}
		}
		pprof.SetGoroutineLabels(context.Background())
		if c.state.CompareAndSwap(invRunning, invFinished) {
			c.done <- struct{}{}
			return
		}
		c.recycle() // nobody waits for it
	}()
	c.out, c.err = call(c.ctx, c.t, c.args)
	returned = true
}

func (c *invocation) recycle() {
	c.ctx, c.t, c.args, c.out, c.err = nil, nil, "", Result{}, nil
	invocations.Put(c)
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
