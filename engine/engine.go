// Package engine is the seam through which a durable engine drives a turn. A turn's rules (the
// tool loop, advisors, the tool-call manager) are plain Go code that runs the same way in a
// process and inside a durable engine's deterministic code, such as a Temporal workflow. What
// must not run there as plain code goes through this package: concurrency, effects (I/O whose
// result must be recorded and replayed) and the question of whether the code is replaying.
//
// In a process no [Runtime] is set, and every function here runs its argument directly, at the
// cost of one context lookup. An engine sets its Runtime on the turn's context with [With];
// packages that call models and tools ask for it with [From] and type-assert the optional
// interfaces they define (client's model calls, toolcall's tool calls), as net/http does with
// http.Flusher.
//
// The rule for code that runs in a durable turn (advisors, loop hooks, approval policies):
// decide from the turn's inputs only; do I/O through [Effect] or [Do], never directly; start no
// goroutines (use [Go]); read no clock other than [Now].
package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"
)

// Runtime drives the steps of a turn that an engine must control.
type Runtime interface {
	// Go runs tasks concurrently and returns once every one has returned. Each task receives
	// the context it must use (an engine's coroutine is known by it).
	Go(ctx context.Context, tasks []func(context.Context))
	// Do runs an effect named name once and returns its result, recorded by the engine so that
	// a replay returns it again without running fn.
	Do(ctx context.Context, name string, fn func(context.Context) ([]byte, error)) ([]byte, error)
	// Now is the turn's clock.
	Now(ctx context.Context) time.Time
	// Replaying reports whether the engine is replaying recorded steps: spans and logs made now
	// were made before.
	Replaying(ctx context.Context) bool
}

type runtimeKey struct{}

// With returns ctx with rt as its runtime.
func With(ctx context.Context, rt Runtime) context.Context {
	return context.WithValue(ctx, runtimeKey{}, rt)
}

// From returns the runtime of ctx, or nil in a process.
func From(ctx context.Context) Runtime {
	rt, _ := ctx.Value(runtimeKey{}).(Runtime)
	return rt
}

// Go runs tasks concurrently, on goroutines in a process and as the runtime of ctx says
// otherwise, and returns once every one has returned. A task that panics in a process panics
// on the caller's goroutine, after the others returned.
func Go(ctx context.Context, tasks ...func(context.Context)) {
	if rt := From(ctx); rt != nil {
		rt.Go(ctx, tasks)
		return
	}
	switch len(tasks) {
	case 0:
		return
	case 1:
		tasks[0](ctx)
		return
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var panicked any
	// keep, deferred by each task, keeps the first panic to raise once every task returned.
	keep := func() {
		if v := recover(); v != nil {
			mu.Lock()
			if panicked == nil {
				panicked = v
			}
			mu.Unlock()
		}
	}
	for _, t := range tasks[1:] {
		wg.Go(func() {
			defer keep()
			t(ctx)
		})
	}
	func() {
		defer keep()
		tasks[0](ctx)
	}()
	wg.Wait()
	if panicked != nil {
		panic(panicked)
	}
}

// Do runs the effect fn: directly in a process, through the runtime of ctx otherwise.
func Do(ctx context.Context, name string, fn func(context.Context) error) error {
	rt := From(ctx)
	if rt == nil {
		return fn(ctx)
	}
	_, err := rt.Do(ctx, name, func(ctx context.Context) ([]byte, error) { return nil, fn(ctx) })
	return err
}

// Effect runs fn, an effect whose result is a T, and returns its result: directly in a process;
// through the runtime of ctx otherwise, where the result travels and is recorded as JSON (so a
// T must survive a JSON round trip).
func Effect[T any](ctx context.Context, name string, fn func(context.Context) (T, error)) (T, error) {
	rt := From(ctx)
	if rt == nil {
		return fn(ctx)
	}
	var out T
	b, err := rt.Do(ctx, name, func(ctx context.Context) ([]byte, error) {
		v, err := fn(ctx)
		if err != nil {
			return nil, err
		}
		return json.Marshal(v)
	})
	if err != nil {
		return out, err
	}
	if err := json.Unmarshal(b, &out); err != nil {
		return out, fmt.Errorf("engine: effect %s: reading its recorded result: %w", name, err)
	}
	return out, nil
}

// Now returns the turn's time: the runtime's clock, or time.Now in a process.
func Now(ctx context.Context) time.Time {
	if rt := From(ctx); rt != nil {
		return rt.Now(ctx)
	}
	return time.Now()
}

// Replaying reports whether the runtime of ctx is replaying recorded steps; never in a process.
func Replaying(ctx context.Context) bool {
	rt := From(ctx)
	return rt != nil && rt.Replaying(ctx)
}
