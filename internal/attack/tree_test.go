package attack

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/chattest"
	"github.com/wield-ai/wield/client"
	"github.com/wield-ai/wield/tool"
)

// fanOut returns a scripted agent model: asked at "level N" (N below depth), it calls the agent
// tool fan times at level N+1, then answers once the results are in; at depth it answers. Each
// call reports 100 tokens and counts in calls.
func fanOut(fan, depth int, calls *atomic.Int64) chat.Model {
	return chattest.New(chattest.Respond(func(_ context.Context, p *chat.Prompt) (*chat.Response, error) {
		calls.Add(1)
		msgs := p.Messages
		msg := chat.Assistant("done")
		reason := chat.FinishStop
		level := 0
		for _, m := range msgs {
			if m.Role == chat.RoleUser {
				level, _ = strconv.Atoi(strings.TrimPrefix(m.Content, "level "))
			}
		}
		if last := msgs[len(msgs)-1]; last.Role == chat.RoleUser && level < depth {
			for i := range fan {
				msg.ToolCalls = append(msg.ToolCalls, chat.ToolCall{ID: fmt.Sprintf("call_%d", i), Name: "agent",
					Arguments: fmt.Sprintf(`{"input":"level %d"}`, level+1)})
			}
			msg.Content, reason = "", chat.FinishToolCalls
		}
		return &chat.Response{Generations: []chat.Generation{{Message: msg, FinishReason: reason}},
			Usage: chat.Usage{InputTokens: 60, OutputTokens: 40, TotalTokens: 100}}, nil
	})).Repeat().DiscardPrompts()
}

// agentTree returns a client whose model fans out as fanOut says, through an agent tool that
// runs the same client.
func agentTree(t *testing.T, fan, depth int, calls *atomic.Int64, opts ...client.Option) *client.Client {
	var agent tool.Tool
	c := newClient(t, fanOut(fan, depth, calls), append(opts, client.WithTools(lazyTools(func() []tool.Tool { return []tool.Tool{agent} })))...)
	var err error
	if agent, err = client.AgentTool(c, "agent", "a helper"); err != nil {
		t.Fatal(err)
	}
	return c
}

// TestAttackAgentTreeBudget: the review's tree (fan-out 8, depth 5, which made 42,130 model
// calls in one top-level turn) stops at the tree's budget, whichever part is spent first, with a
// TreeBudgetError that ends the top-level turn; the default budget stops it too, and an
// ordinary tree never meets the default.
func TestAttackAgentTreeBudget(t *testing.T) {
	for _, tc := range []struct {
		name     string
		budget   *client.TreeBudget
		resource string
		check    func(calls int64) bool
	}{
		// Calls counted but not made: the turn ended while they were about to start.
		{"model calls", &client.TreeBudget{ModelCalls: 300}, "model calls", func(n int64) bool { return n <= 300 }},
		// 8 calls a round: the 7th round of calls would pass 50.
		{"tool calls", &client.TreeBudget{ToolCalls: 50}, "tool calls", func(n int64) bool { return n <= 50/8+1+50 }},
		// 100 tokens a call; calls in flight when the cap is reached finish.
		{"tokens", &client.TreeBudget{Tokens: 5_000}, "tokens", func(n int64) bool { return n >= 50 && n <= 50+8*5 }},
		{"default", nil, "model calls", func(n int64) bool { return n <= client.DefaultTreeBudget.ModelCalls }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var calls atomic.Int64
			var opts []client.Option
			if tc.budget != nil {
				opts = append(opts, client.WithTreeBudget(*tc.budget))
			}
			c := agentTree(t, 8, 5, &calls, opts...)
			err := c.Prompt("level 0").Call(context.Background()).Err()
			var be *client.TreeBudgetError
			if !errors.Is(err, client.ErrTreeBudget) || !errors.As(err, &be) || be.Resource != tc.resource {
				t.Fatalf("error %v, want a TreeBudgetError on %s", err, tc.resource)
			}
			if tc.resource == "model calls" && be.Spent.ModelCalls != be.Limit {
				t.Fatalf("spent %+v, limit %d", be.Spent, be.Limit)
			}
			if n := calls.Load(); !tc.check(n) {
				t.Fatalf("%d model calls; spent %+v", n, be.Spent)
			}
			t.Logf("%d model calls, spent %+v", calls.Load(), be.Spent)
		})
	}
	t.Run("ordinary tree", func(t *testing.T) {
		var calls atomic.Int64
		c := agentTree(t, 3, 3, &calls)
		if text, err := c.Prompt("level 0").Call(context.Background()).Content(); err != nil || text != "done" {
			t.Fatalf("%q, %v", text, err)
		}
		if n := calls.Load(); n != 2*(1+3+9)+27 {
			t.Fatalf("%d model calls", n)
		}
	})
}
