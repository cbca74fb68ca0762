package client

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/tool"
)

// TreeBudget bounds what one top-level turn may spend across its whole agent tree: its own
// model and tool calls and those of every sub-agent ([AgentTool]) it runs, at any depth. The
// per-turn limits ([ToolLoopConfig.MaxIterations], the manager's call limits) multiply with each
// level of agents; this does not. A zero field takes the default's value, a negative one has no
// limit.
type TreeBudget struct {
	// ModelCalls caps the model calls of the tree.
	ModelCalls int64 `json:"modelCalls,omitempty"`
	// ToolCalls caps the tool calls the tree's rounds ask for.
	ToolCalls int64 `json:"toolCalls,omitempty"`
	// Tokens caps the tokens the tree's model calls report (chat.Usage.TotalTokens, or input
	// plus output); the call that goes over it is the last.
	Tokens int64 `json:"tokens,omitempty"`
}

// DefaultTreeBudget is the budget of a client without [WithTreeBudget]: far above what an
// ordinary tree spends (a turn of 20 rounds running a few agents of 20 rounds each makes a few
// hundred model calls), far below a runaway fan-out.
var DefaultTreeBudget = TreeBudget{ModelCalls: 2_000, ToolCalls: 10_000, Tokens: 50_000_000}

// WithTreeBudget sets the budget of the agent trees of the client's top-level turns. A client
// that runs as a sub-agent spends its caller's tree budget, not its own.
func WithTreeBudget(b TreeBudget) Option { return func(c *config) { c.tree = b.withDefaults() } }

func (b TreeBudget) withDefaults() TreeBudget {
	return TreeBudget{
		ModelCalls: cmp.Or(b.ModelCalls, DefaultTreeBudget.ModelCalls),
		ToolCalls:  cmp.Or(b.ToolCalls, DefaultTreeBudget.ToolCalls),
		Tokens:     cmp.Or(b.Tokens, DefaultTreeBudget.Tokens),
	}
}

// ErrTreeBudget is matched by the error of a turn whose agent tree spent its [TreeBudget]: it
// ends every turn of the tree, up to the top-level one.
var ErrTreeBudget = errors.New("client: the agent tree's budget is spent")

// TreeBudgetError says which part of the [TreeBudget] was spent; it matches [ErrTreeBudget].
type TreeBudgetError struct {
	// Resource is "model calls", "tool calls" or "tokens"; Limit is its cap.
	Resource string
	Limit    int64
	// Spent is what the tree had spent when the next step was refused.
	Spent TreeSpent
}

func (e *TreeBudgetError) Error() string {
	return fmt.Sprintf("%v: %s over the cap of %d (%d model calls, %d tool calls, %d tokens spent)",
		ErrTreeBudget, e.Resource, e.Limit, e.Spent.ModelCalls, e.Spent.ToolCalls, e.Spent.Tokens)
}

// Is makes the error match [ErrTreeBudget].
func (e *TreeBudgetError) Is(target error) bool { return target == ErrTreeBudget }

// TreeSpent is what an agent tree has spent so far.
type TreeSpent struct {
	ModelCalls int64 `json:"modelCalls,omitempty"`
	ToolCalls  int64 `json:"toolCalls,omitempty"`
	Tokens     int64 `json:"tokens,omitempty"`
}

// TreeAccount is an agent tree's budget and what it has spent: what a top-level turn's stopped
// state carries so that its resume goes on counting ([TurnState.Tree]), and what a turn that
// runs part of another's tree starts from ([WithTreeAccount]).
type TreeAccount struct {
	Budget TreeBudget `json:"budget"`
	Spent  TreeSpent  `json:"spent"`
}

// The resources of a tree, as the arrays of its account index them.
const (
	resModelCalls = iota
	resToolCalls
	resTokens
	resources
)

var resourceNames = [resources]string{"model calls", "tool calls", "tokens"}

func (b TreeBudget) each() [resources]int64 { return [...]int64{b.ModelCalls, b.ToolCalls, b.Tokens} }

func (s TreeSpent) each() [resources]int64 { return [...]int64{s.ModelCalls, s.ToolCalls, s.Tokens} }

// tree is the shared account of one agent tree, found by its turns in the context.
type tree struct {
	limit TreeBudget
	count [resources]atomic.Int64
	// shared is what the shares not yet settled hold of count ([ShareTree]).
	shared [resources]atomic.Int64
}

type accountKey struct{}

// WithTreeAccount returns ctx whose top-level turns start their agent tree from acct: what it
// has spent counts already, and its budget applies where it is below the client's
// ([WithTreeBudget]). A process running a turn for part of another's tree uses it with the share
// it was given ([ShareTree]): a Temporal child workflow, an agent served to remote callers. It
// takes precedence over the account a resumed state carries; turns inside a turn (sub-agents)
// spend their caller's tree and do not read it.
func WithTreeAccount(ctx context.Context, acct TreeAccount) context.Context {
	return context.WithValue(ctx, accountKey{}, acct)
}

// TreeAccountOf returns the account ctx starts agent trees from ([WithTreeAccount]), if any: a
// runner that starts the turn elsewhere passes it on.
func TreeAccountOf(ctx context.Context) (TreeAccount, bool) {
	acct, ok := ctx.Value(accountKey{}).(TreeAccount)
	return acct, ok
}

// TreeShare is a part of an agent tree's budget reserved for work that runs in another run or
// process, such as a Temporal child workflow or a remote agent ([ShareTree]).
type TreeShare struct {
	// Budget is what the work may spend: each resource's share, or negative where the tree has
	// no limit. Pass it on with [WithTreeAccount] (or the protocol's equivalent).
	Budget TreeBudget

	t       *tree
	held    [resources]int64
	settled atomic.Bool
}

// ShareTree reserves, for work that the tool call running with ctx hands to another run or
// process, a share of what remains of the call's agent tree: the remainder divided by the calls
// of the round that may run at once ([tool.Call.Parallel]), so that the first of them does not
// starve the others. The share counts as spent at once, so the tree never spends over its
// budget whatever the other side does; [TreeShare.Settle] puts what the other side spent in its
// place. It returns nil outside a turn, and a *[TreeBudgetError] when a resource has nothing
// left.
func ShareTree(ctx context.Context) (*TreeShare, error) {
	t, ok := ctx.Value(treeKey{}).(*tree)
	if !ok {
		return nil, nil
	}
	parts := int64(1)
	if c, ok := tool.CallFrom(ctx); ok && c.Parallel > 1 {
		parts = int64(c.Parallel)
	}
	s := &TreeShare{t: t}
	limits := t.limit.each()
	var share [resources]int64
	for i, limit := range limits {
		if limit < 0 {
			share[i] = -1
			continue
		}
		for {
			cur := t.count[i].Load()
			left := limit - cur
			if left <= 0 {
				s.release()
				return nil, t.refuse(resourceNames[i], limit)
			}
			// A part of what remained before the round's other shares, so that the calls that
			// ask later get as much as the first.
			n := max(min((limit-(cur-t.shared[i].Load()))/parts, left), 1)
			if t.count[i].CompareAndSwap(cur, cur+n) {
				t.shared[i].Add(n)
				share[i], s.held[i] = n, n
				break
			}
		}
	}
	s.Budget = TreeBudget{ModelCalls: share[resModelCalls], ToolCalls: share[resToolCalls], Tokens: share[resTokens]}
	return s, nil
}

// Settle puts spent, what the work reported it spent, in the place of the share: what is over
// the share counts in full, so the tree's next step is refused. Work that failed without saying
// what it spent is settled with nothing. Only the first call counts.
func (s *TreeShare) Settle(spent TreeSpent) {
	if s == nil || !s.settled.CompareAndSwap(false, true) {
		return
	}
	for i, n := range spent.each() {
		s.t.count[i].Add(max(n, 0))
	}
	s.release()
}

// release takes what the share holds out of the tree's account.
func (s *TreeShare) release() {
	for i, n := range s.held {
		s.t.count[i].Add(-n)
		s.t.shared[i].Add(-n)
	}
}

type treeKey struct{}

// TreeSpentFrom returns what the agent tree of the turn running with ctx (a tool's context, or a
// hook's) has spent, and false outside a turn.
func TreeSpentFrom(ctx context.Context) (TreeSpent, bool) {
	t, ok := ctx.Value(treeKey{}).(*tree)
	if !ok {
		return TreeSpent{}, false
	}
	return t.spent(), true
}

// treeOf returns the context's tree, or starts one for a top-level turn (own is true): with
// the client's limit, from the context's account ([WithTreeAccount]) or else the resumed
// state's.
func treeOf(ctx context.Context, limit TreeBudget, resumed *TreeAccount) (_ context.Context, _ *tree, own bool) {
	if t, ok := ctx.Value(treeKey{}).(*tree); ok {
		return ctx, t, false
	}
	t := &tree{limit: limit.withDefaults()}
	acct, ok := ctx.Value(accountKey{}).(TreeAccount)
	if !ok && resumed != nil {
		acct, ok = *resumed, true
	}
	if ok {
		t.limit = t.limit.within(acct.Budget.withDefaults())
		for i, n := range acct.Spent.each() {
			t.count[i].Store(max(n, 0)) // a state from outside may lie
		}
	}
	return context.WithValue(ctx, treeKey{}, t), t, true
}

// within returns the smaller of b and o in each resource, a negative one having no limit.
func (b TreeBudget) within(o TreeBudget) TreeBudget {
	least := func(x, y int64) int64 {
		switch {
		case x < 0:
			return y
		case y < 0:
			return x
		}
		return min(x, y)
	}
	return TreeBudget{ModelCalls: least(b.ModelCalls, o.ModelCalls), ToolCalls: least(b.ToolCalls, o.ToolCalls), Tokens: least(b.Tokens, o.Tokens)}
}

// account returns the tree's budget and spending; nil for no tree.
func (t *tree) account() *TreeAccount {
	if t == nil {
		return nil
	}
	return &TreeAccount{Budget: t.limit, Spent: t.spent()}
}

func (t *tree) spent() TreeSpent {
	return TreeSpent{ModelCalls: t.count[resModelCalls].Load(), ToolCalls: t.count[resToolCalls].Load(), Tokens: t.count[resTokens].Load()}
}

func (t *tree) refuse(resource string, limit int64) error {
	return &TreeBudgetError{Resource: resource, Limit: limit, Spent: t.spent()}
}

// modelCall accounts for a model call about to be made, or refuses it.
func (t *tree) modelCall() error {
	if l := t.limit.Tokens; l >= 0 && t.count[resTokens].Load() >= l {
		return t.refuse("tokens", l)
	}
	if n := t.count[resModelCalls].Add(1); t.limit.ModelCalls >= 0 && n > t.limit.ModelCalls {
		t.count[resModelCalls].Add(-1)
		return t.refuse("model calls", t.limit.ModelCalls)
	}
	return nil
}

// used accounts for the tokens a model call reported.
func (t *tree) used(u chat.Usage) {
	n := u.TotalTokens
	if n == 0 {
		n = u.InputTokens + u.OutputTokens
	}
	t.count[resTokens].Add(int64(n))
}

// toolCalls accounts for the n calls of a round about to run, or refuses them all.
func (t *tree) toolCallsOf(n int) error {
	if k := t.count[resToolCalls].Add(int64(n)); t.limit.ToolCalls >= 0 && k > t.limit.ToolCalls {
		t.count[resToolCalls].Add(int64(-n))
		return t.refuse("tool calls", t.limit.ToolCalls)
	}
	return nil
}
