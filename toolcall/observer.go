package toolcall

import (
	"context"
	"maps"
	"sync"
	"time"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/tool"
)

// Observer sees each tool call start and finish; the client's event stream uses it.
// It must not panic: it runs on the goroutines executing the calls.
//
// Both methods are called for every call Execute starts, including unknown tools, calls refused by
// a limit, calls whose result a resumed round was given, and failed calls; ToolFinished gets the
// result sent to the model (for a call cut short by the end of the turn, an error result saying
// so). A call that interrupts the turn ([InterruptError]) has no result yet: ToolFinished is not
// called for it, and [Result.Calls] reports it. Calls of one response run in parallel, so an
// Observer must be safe for concurrent use; a round of one call, though, is observed on the
// goroutine that called [Manager.ExecuteTurn] (the call itself may run elsewhere). ctx is the call's context: it carries the call's span
// and [tool.CallFrom].
type Observer interface {
	// ToolStarted is called before the call runs.
	ToolStarted(ctx context.Context, call chat.ToolCall)
	// ToolFinished is called with the call's result and how long it took.
	ToolFinished(ctx context.Context, call chat.ToolCall, result chat.ToolResult, elapsed time.Duration)
}

// Turn is the state of one turn's tool execution, passed explicitly to [Manager.ExecuteTurn]
// for every round of the turn: the tool context, who observes the calls, and the count of the
// turn's calls for the [Limits]. Nothing of it travels in a context.Context, so a turn run inside
// a tool (a sub-agent) has limits and observers of its own.
//
// Use a new Turn for each turn; its fields must not change while a round runs.
type Turn struct {
	// ToolContext reaches the tools through their context ([tool.ContextFrom]); never the model.
	ToolContext tool.Context
	// Observer, if set, sees every call of the turn start and finish.
	Observer Observer
	// Approval decides which calls wait for the application's approval; nil means
	// [AskFlagged].
	Approval ApprovalPolicy
	// BeforeRun, if set, is called once per round after the limits and the approval policy let
	// it go on and before any of its calls runs, with where each call stands (CallDone for
	// calls whose result needs no run, CallWaiting for those about to run): the moment to
	// record that the calls are starting. An error ends the round with nothing run and is
	// returned as it is.
	BeforeRun func(ctx context.Context, calls []CallOutcome) error

	mu      sync.Mutex
	counted bool // counts hold the turn's calls (false: count them from the next round's history)
	counts  callCounts
	total   int
}

// Calls returns how many calls the turn has executed, in all and of the named tool. Refused and
// unknown calls count too, as the limits count them.
func (t *Turn) Calls(name string) (ofTool, total int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.counts.get(name), t.total
}

// Counts returns a copy of the turn's call counts, per tool and in all, for a turn that is to be
// continued elsewhere ([Turn.SetCounts]). Nil counts mean the turn has not counted yet.
func (t *Turn) Counts() (perTool map[string]int, total int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.counted {
		return nil, 0
	}
	return t.counts.toMap(), t.total
}

// SetCounts sets the turn's call counts, as [Turn.Counts] returned them, to continue a turn
// stopped before. Nil perTool leaves the turn to count from the history of its next round.
func (t *Turn) SetCounts(perTool map[string]int, total int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.counts = callCounts{}
	if perTool == nil {
		t.counted, t.total = false, 0
		return
	}
	for name, n := range perTool {
		t.counts.add(name, n)
	}
	t.counted, t.total = true, total
}

// callCounts counts calls per tool name: a short list, as a turn calls a few tools, and a map
// once it has called many.
type callCounts struct {
	list []nameCount
	m    map[string]int
}

type nameCount struct {
	name string
	n    int
}

const callCountsListMax = 16

func (c *callCounts) get(name string) int {
	if c.m != nil {
		return c.m[name]
	}
	for _, e := range c.list {
		if e.name == name {
			return e.n
		}
	}
	return 0
}

// add adds n to name's count and returns the new count.
func (c *callCounts) add(name string, n int) int {
	if c.m != nil {
		c.m[name] += n
		return c.m[name]
	}
	for i := range c.list {
		if c.list[i].name == name {
			c.list[i].n += n
			return c.list[i].n
		}
	}
	if len(c.list) < callCountsListMax {
		if c.list == nil {
			c.list = make([]nameCount, 0, 4)
		}
		c.list = append(c.list, nameCount{name, n})
		return n
	}
	c.m = c.toMap()
	c.list = nil
	c.m[name] += n
	return c.m[name]
}

func (c *callCounts) toMap() map[string]int {
	if c.m != nil {
		return maps.Clone(c.m)
	}
	m := make(map[string]int, len(c.list))
	for _, e := range c.list {
		m[e.name] = e.n
	}
	return m
}
