package toolcall

import "github.com/wield-ai/wield/chat"

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
// state, and a long history replayed by chat memory does not count against them. Calls executed
// with a [Turn] are counted by the turn instead, whatever the prompts hold.
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

// check returns, for each call, the limit it breaches (nil when within limits). With a turn, the
// turn's earlier calls are the turn's and the calls are recorded in it (a turn's first round takes
// its count from the history, which may hold calls answered before the turn was handed over);
// without one, they are read from the history.
func (l *Limits) check(c *Turn, history []chat.Message, calls []chat.ToolCall) []*LimitError {
	var counts *callCounts
	var own callCounts
	total := 0
	if c != nil {
		c.mu.Lock()
		defer c.mu.Unlock()
		if !c.counted {
			c.counts, c.total = countAnswered(history)
			c.counted = true
		}
		// The calls are counted into the turn as they are checked: refused and unknown calls
		// count too, as when counting from the history.
		counts, total = &c.counts, c.total
		defer func() { c.total = total }()
	} else {
		own, total = countAnswered(history)
		counts = &own
	}
	var breaches []*LimitError
	maxTotal := l.total()
	for i, c := range calls {
		total++
		n := counts.add(c.Name, 1)
		var b *LimitError
		if limit := l.perTool(c.Name); limit >= 0 && n > limit {
			b = &LimitError{Tool: c.Name, Limit: limit, CallID: c.ID}
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

// countAnswered counts the tool results of the turn in history: those after its last user message.
func countAnswered(history []chat.Message) (callCounts, int) {
	var counts callCounts
	total := 0
	for i := len(history) - 1; i >= 0 && history[i].Role != chat.RoleUser; i-- {
		for _, r := range history[i].ToolResults {
			counts.add(r.Name, 1)
			total++
		}
	}
	return counts, total
}
