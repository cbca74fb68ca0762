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
// Observer must be safe for concurrent use. ctx is the call's context: it carries the call's span
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

	mu     sync.Mutex
	counts map[string]int
	total  int
}

// Calls returns how many calls the turn has executed, in all and of the named tool. Refused and
// unknown calls count too, as the limits count them.
func (t *Turn) Calls(name string) (ofTool, total int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.counts[name], t.total
}

// Counts returns a copy of the turn's call counts, per tool and in all, for a turn that is to be
// continued elsewhere ([Turn.SetCounts]). Nil counts mean the turn has not counted yet.
func (t *Turn) Counts() (perTool map[string]int, total int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.counts == nil {
		return nil, 0
	}
	return maps.Clone(t.counts), t.total
}

// SetCounts sets the turn's call counts, as [Turn.Counts] returned them, to continue a turn
// stopped before. Nil perTool leaves the turn to count from the history of its next round.
func (t *Turn) SetCounts(perTool map[string]int, total int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if perTool == nil {
		t.counts, t.total = nil, 0
		return
	}
	t.counts, t.total = maps.Clone(perTool), total
}
