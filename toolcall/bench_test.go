package toolcall

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/tool"
)

// benchTurn returns a prompt offering t and a response with n calls of it.
func benchTurn(t tool.Tool, n int) (*chat.Prompt, *chat.Response) {
	calls := make([]chat.ToolCall, n)
	for i := range calls {
		calls[i] = call(fmt.Sprintf("call_%d", i), t.Definition().Name, `{"city":"Paris"}`)
	}
	return prompt(t), response(calls...)
}

func quietManager(cfg Config) *Manager {
	cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, &slog.HandlerOptions{Level: slog.LevelInfo}))
	return New(cfg)
}

// benchExecute times m executing the calls of resp.
func benchExecute(b *testing.B, m *Manager, p *chat.Prompt, resp *chat.Response) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := m.Execute(context.Background(), p, resp); err != nil {
			b.Fatal(err)
		}
	}
}

// benchFanOut times calls of t run each in a goroutine of its own, the least a parallel
// execution costs.
func benchFanOut(b *testing.B, t tool.Tool, calls []chat.ToolCall) {
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		results := make([]string, len(calls))
		var wg sync.WaitGroup
		for i := range calls {
			wg.Go(func() { results[i], _ = t.Call(ctx, calls[i].Arguments) })
		}
		wg.Wait()
	}
}

// BenchmarkExecuteParallel runs 8 calls that each sleep 50 ms (goal: ≤ 60 ms per op). Baselines:
// the bare goroutine+WaitGroup fan-out of the same calls (the floor), and the calls run one after
// the other (what no parallelism costs).
func BenchmarkExecuteParallel(b *testing.B) {
	const n, pause = 8, 50 * time.Millisecond
	sleeper := newTool("sleeper", func(context.Context, string) (string, error) {
		time.Sleep(pause)
		return "18°C", nil
	})
	p, resp := benchTurn(sleeper, n)
	ctx := context.Background()

	b.Run("manager", func(b *testing.B) {
		benchExecute(b, quietManager(Config{}), p, resp)
	})
	b.Run("baseline=waitgroup", func(b *testing.B) {
		benchFanOut(b, sleeper, resp.ToolCalls())
	})
	b.Run("baseline=sequential", func(b *testing.B) {
		calls := resp.ToolCalls()
		b.ReportAllocs()
		for b.Loop() {
			results := make([]string, n)
			for i := range calls {
				results[i], _ = sleeper.Call(ctx, calls[i].Arguments)
			}
		}
	})
}

// BenchmarkExecuteOne measures the overhead of executing one fast call through the Manager (tool
// lookup, argument check, context, goroutine, span, metric, observer hooks, history) against
// calling the tool directly.
func BenchmarkExecuteOne(b *testing.B) {
	fast := newTool("fast", func(context.Context, string) (string, error) { return "18°C", nil })
	p, resp := benchTurn(fast, 1)
	ctx := context.Background()

	b.Run("baseline=direct", func(b *testing.B) {
		args := resp.ToolCalls()[0].Arguments
		b.ReportAllocs()
		for b.Loop() {
			if _, err := fast.Call(ctx, args); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("manager", func(b *testing.B) {
		benchExecute(b, quietManager(Config{}), p, resp)
	})
	b.Run("manager+sdk-tracing", func(b *testing.B) {
		// Spans sampled and recorded by the OpenTelemetry SDK (exported nowhere).
		tp := sdktrace.NewTracerProvider()
		defer tp.Shutdown(ctx)
		benchExecute(b, quietManager(Config{TracerProvider: tp}), p, resp)
	})
}

// BenchmarkExecuteEightFast measures the fan-out overhead on 8 fast calls against a bare
// goroutine+WaitGroup fan-out.
func BenchmarkExecuteEightFast(b *testing.B) {
	fast := newTool("fast", func(context.Context, string) (string, error) { return "18°C", nil })
	p, resp := benchTurn(fast, 8)

	b.Run("baseline=waitgroup", func(b *testing.B) {
		benchFanOut(b, fast, resp.ToolCalls())
	})
	b.Run("manager", func(b *testing.B) {
		benchExecute(b, quietManager(Config{}), p, resp)
	})
}
