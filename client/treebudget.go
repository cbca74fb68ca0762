package client

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/wield-ai/wield/chat"
)

// TreeBudget bounds what one top-level turn may spend across its whole agent tree: its own
// model and tool calls and those of every sub-agent ([AgentTool]) it runs, at any depth. The
// per-turn limits ([ToolLoopConfig.MaxIterations], the manager's call limits) multiply with each
// level of agents; this does not. A zero field takes the default's value, a negative one has no
// limit.
type TreeBudget struct {
	// ModelCalls caps the model calls of the tree.
	ModelCalls int64
	// ToolCalls caps the tool calls the tree's rounds ask for.
	ToolCalls int64
	// Tokens caps the tokens the tree's model calls report (chat.Usage.TotalTokens, or input
	// plus output); the call that goes over it is the last.
	Tokens int64
}

// DefaultTreeBudget is the budget of a client without [WithTreeBudget]: far above what an
// ordinary tree spends (a turn of 20 rounds running a few agents of 20 rounds each makes a few
// hundred model calls), far below a runaway fan-out.
var DefaultTreeBudget = TreeBudget{ModelCalls: 2_000, ToolCalls: 10_000, Tokens: 50_000_000}

// WithTreeBudget sets the budget of the agent trees of the client's top-level turns. A client
// that runs as a sub-agent spends its caller's tree budget, not its own.
func WithTreeBudget(b TreeBudget) Option { return func(c *config) { c.tree = b.withDefaults() } }

func (b TreeBudget) withDefaults() TreeBudget {
	fill := func(v, d int64) int64 {
		if v == 0 {
			return d
		}
		return v
	}
	return TreeBudget{
		ModelCalls: fill(b.ModelCalls, DefaultTreeBudget.ModelCalls),
		ToolCalls:  fill(b.ToolCalls, DefaultTreeBudget.ToolCalls),
		Tokens:     fill(b.Tokens, DefaultTreeBudget.Tokens),
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
	ModelCalls, ToolCalls, Tokens int64
}

// tree is the shared account of one agent tree, found by its turns in the context.
type tree struct {
	limit                         TreeBudget
	modelCalls, toolCalls, tokens atomic.Int64
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

// treeOf returns the context's tree, or starts one with limit for a top-level turn.
func treeOf(ctx context.Context, limit TreeBudget) (context.Context, *tree) {
	if t, ok := ctx.Value(treeKey{}).(*tree); ok {
		return ctx, t
	}
	t := &tree{limit: limit.withDefaults()}
	return context.WithValue(ctx, treeKey{}, t), t
}

func (t *tree) spent() TreeSpent {
	return TreeSpent{ModelCalls: t.modelCalls.Load(), ToolCalls: t.toolCalls.Load(), Tokens: t.tokens.Load()}
}

func (t *tree) refuse(resource string, limit int64) error {
	return &TreeBudgetError{Resource: resource, Limit: limit, Spent: t.spent()}
}

// modelCall accounts for a model call about to be made, or refuses it.
func (t *tree) modelCall() error {
	if l := t.limit.Tokens; l >= 0 && t.tokens.Load() >= l {
		return t.refuse("tokens", l)
	}
	if l := t.limit.ModelCalls; l >= 0 && t.modelCalls.Add(1) > l {
		t.modelCalls.Add(-1)
		return t.refuse("model calls", l)
	}
	return nil
}

// used accounts for the tokens a model call reported.
func (t *tree) used(u chat.Usage) {
	n := u.TotalTokens
	if n == 0 {
		n = u.InputTokens + u.OutputTokens
	}
	t.tokens.Add(int64(n))
}

// toolCalls accounts for the n calls of a round about to run, or refuses them all.
func (t *tree) toolCallsOf(n int) error {
	if l := t.limit.ToolCalls; l >= 0 && t.toolCalls.Add(int64(n)) > l {
		t.toolCalls.Add(int64(-n))
		return t.refuse("tool calls", l)
	}
	return nil
}
