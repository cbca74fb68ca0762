package toolcall

import (
	"context"
	"sync"

	"github.com/wield-ai/wield/chat"
)

// DefaultPerToolLimit and DefaultTotalLimit are the per-turn limits used when [Limits] leaves them
// zero, as in Spring AI 2.0.1: generous for legitimate iterative use
// (pagination, retries) while stopping a runaway loop long before it gets expensive.
const (
	DefaultPerToolLimit = 40
	DefaultTotalLimit   = 150
)

// LimitBehavior says what happens when a call would exceed a limit.
type LimitBehavior int

const (
	// LimitFail ends the turn: Execute returns a *[LimitError] and runs none of the response's
	// calls. It is the default, as Spring AI's THROW; unlike Spring AI, which first runs the calls
	// before the one over the limit, the whole response is refused, so a turn that fails has no
	// half-done side effects.
	LimitFail LimitBehavior = iota
	// LimitTellModel skips the call and gives the model an error result saying the limit was
	// reached; the response's other calls still run (Spring AI's RETURN_ERROR_RESPONSE).
	LimitTellModel
)

// Limits cap the tool calls of one turn. A turn starts at the last user message of the prompt: the
// calls counted are those answered by tool results after it plus the calls being executed, taken in
// the model's order, so the limits hold across the rounds of a tool loop without the Manager keeping
// state, and a long history replayed by chat memory does not count against them. A loop whose
// rounds do not carry the turn's history counts with a [Counter] instead.
//
// For every limit, zero means the default and a negative value means unlimited.
type Limits struct {
	// PerTool caps the calls of each tool; default [DefaultPerToolLimit].
	PerTool int
	// Tools overrides PerTool for the tools named; a negative value exempts the tool.
	Tools map[string]int
	// Total caps the calls of all tools together; default [DefaultTotalLimit].
	Total int
	// OnExceeded is what a breach does; default [LimitFail].
	OnExceeded LimitBehavior
}

func (l *Limits) perTool(name string) int {
	if n, ok := l.Tools[name]; ok && n != 0 {
		return n
	}
	if l.PerTool == 0 {
		return DefaultPerToolLimit
	}
	return l.PerTool
}

func (l *Limits) total() int {
	if l.Total == 0 {
		return DefaultTotalLimit
	}
	return l.Total
}

// Counter counts the tool calls of one turn across Execute calls. Without one, Execute counts the
// calls answered in the prompt since the last user message, which needs the turn's whole history
// in every prompt. A runtime that sends each round without the earlier ones (a tool loop whose
// history is kept by a memory advisor inside the loop) passes a Counter with [WithCounter]
// instead, so the limits still hold for the whole turn. Use a new Counter for each turn.
type Counter struct {
	mu     sync.Mutex
	counts map[string]int
	total  int
}

type counterKey struct{}

// WithCounter returns ctx carrying c: the Execute calls made with it count against c and record
// their calls in it.
func WithCounter(ctx context.Context, c *Counter) context.Context {
	return context.WithValue(ctx, counterKey{}, c)
}

func counterFrom(ctx context.Context) *Counter {
	c, _ := ctx.Value(counterKey{}).(*Counter)
	return c
}

// Calls returns how many calls the counter has recorded, in all and of the named tool.
func (c *Counter) Calls(name string) (ofTool, total int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.counts[name], c.total
}

// check returns, for each call, the limit it breaches (nil when within limits). With a counter,
// the turn's earlier calls are the counter's and the calls are recorded in it; without one, they
// are read from the history.
func (l *Limits) check(c *Counter, history []chat.Message, calls []chat.ToolCall) []*LimitError {
	counts := make(map[string]int)
	total := 0
	if c != nil {
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.counts == nil {
			c.counts = make(map[string]int)
		}
		for _, call := range calls {
			counts[call.Name] = c.counts[call.Name]
		}
		total = c.total
		defer func() {
			// Refused and unknown calls count too, as when counting from the history.
			for _, call := range calls {
				c.counts[call.Name]++
			}
			c.total += len(calls)
		}()
	} else {
		for i := len(history) - 1; i >= 0 && history[i].Role != chat.RoleUser; i-- {
			for _, r := range history[i].ToolResults {
				counts[r.Name]++
				total++
			}
		}
	}
	var breaches []*LimitError
	maxTotal := l.total()
	for i, c := range calls {
		total++
		counts[c.Name]++
		var b *LimitError
		if max := l.perTool(c.Name); max >= 0 && counts[c.Name] > max {
			b = &LimitError{Tool: c.Name, Limit: max, CallID: c.ID}
		} else if maxTotal >= 0 && total > maxTotal {
			b = &LimitError{Limit: maxTotal, CallID: c.ID}
		}
		if b != nil {
			if breaches == nil {
				breaches = make([]*LimitError, len(calls))
			}
			breaches[i] = b
		}
	}
	return breaches
}
