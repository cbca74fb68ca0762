// Package clienttest builds clients, and runtimes for their turns, for tests.
package clienttest

import (
	"context"
	"testing"
	"time"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/client"
)

// New returns client.New(m, opts...), failing tb on a construction error.
func New(tb testing.TB, m chat.Model, opts ...client.Option) *client.Client {
	tb.Helper()
	c, err := client.New(m, opts...)
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

// Serial is an engine runtime (engine.Runtime) that runs tasks one after another and effects
// directly, on the wall clock: an engine whose coroutines run one at a time, on a first run.
// Test runtimes embed it and replace what they record.
type Serial struct{}

// Go runs tasks in order.
func (Serial) Go(ctx context.Context, tasks []func(context.Context)) {
	for _, task := range tasks {
		task(ctx)
	}
}

// Do runs fn.
func (Serial) Do(ctx context.Context, _ string, fn func(context.Context) ([]byte, error)) ([]byte, error) {
	return fn(ctx)
}

// Now is the wall clock.
func (Serial) Now(context.Context) time.Time { return time.Now() }

// Replaying is false: nothing is replayed.
func (Serial) Replaying(context.Context) bool { return false }
