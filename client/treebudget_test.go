package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/chattest"
	"github.com/wield-ai/wield/client"
	"github.com/wield-ai/wield/internal/clienttest"
	"github.com/wield-ai/wield/tool"
	"github.com/wield-ai/wield/toolcall"
)

// TestShareTree: a round's calls that hand work elsewhere each reserve an even share of what
// remains, the shares count at once, and what the work reports spent replaces them.
func TestShareTree(t *testing.T) {
	if s, err := client.ShareTree(context.Background()); s != nil || err != nil {
		t.Fatalf("outside a turn: %v, %v", s, err)
	}
	var mu sync.Mutex
	var shares []client.TreeBudget
	var all sync.WaitGroup // the four calls hold their shares at once
	all.Add(4)
	remote := chattest.NewTool("remote", func(ctx context.Context, _ string) (string, error) {
		s, err := client.ShareTree(ctx)
		all.Done()
		if err != nil {
			return "", err
		}
		mu.Lock()
		shares = append(shares, s.Budget)
		mu.Unlock()
		all.Wait()
		s.Settle(client.TreeSpent{ModelCalls: 3, ToolCalls: 1, Tokens: 50})
		s.Settle(client.TreeSpent{ModelCalls: 1000}) // only the first counts
		return "ok", nil
	})
	calls := make([]chat.ToolCall, 4)
	for i := range calls {
		calls[i] = chat.ToolCall{ID: fmt.Sprintf("c%d", i), Name: "remote", Arguments: "{}"}
	}
	m := chattest.New(chattest.Calls(calls...).WithUsage(60, 40), chattest.Text("done").WithUsage(60, 40))
	c := clienttest.New(t, m, client.WithTools(remote),
		client.WithTreeBudget(client.TreeBudget{ModelCalls: 101, ToolCalls: -1, Tokens: 1000}))
	resp, err := c.Prompt("go").Call(context.Background()).Response()
	if err != nil {
		t.Fatal(err)
	}
	if len(shares) != 4 {
		t.Fatalf("%d shares", len(shares))
	}
	// Each share is a quarter of what remained before the round's shares, however the calls
	// interleave.
	for _, s := range shares {
		if s.ToolCalls != -1 || s.ModelCalls < (101-1)/4 || s.Tokens < (1000-100)/4 {
			t.Fatalf("shares %+v, want at least a quarter each of the 100 model calls and 900 tokens left", shares)
		}
	}
	want := client.TreeSpent{ModelCalls: 2 + 4*3, ToolCalls: 4 + 4*1, Tokens: 2*100 + 4*50}
	if resp.Tree != want {
		t.Fatalf("the turn's tree spent %+v, want %+v", resp.Tree, want)
	}
}

// TestShareTreeSpent: a share is refused when nothing is left, and work that spent over its
// share ends the tree at its next step.
func TestShareTreeSpent(t *testing.T) {
	var shareErr error
	remote := chattest.NewTool("remote", func(ctx context.Context, _ string) (string, error) {
		s, err := client.ShareTree(ctx)
		if err != nil {
			shareErr = err
			return "", tool.Fatal(err)
		}
		s.Settle(client.TreeSpent{ModelCalls: s.Budget.ModelCalls + 5})
		return "ok", nil
	})
	script := func() *chattest.Model {
		return chattest.New(chattest.Calls(chattest.Call("remote", "{}")), chattest.Text("done"))
	}
	c := clienttest.New(t, script(), client.WithTools(remote), client.WithTreeBudget(client.TreeBudget{ModelCalls: 1}))
	err := c.Prompt("go").Call(context.Background()).Err()
	var be *client.TreeBudgetError
	if !errors.As(err, &be) || be.Resource != "model calls" || !errors.As(shareErr, &be) {
		t.Fatalf("error %v (share: %v), want the share refused", err, shareErr)
	}

	shareErr = nil
	c = clienttest.New(t, script(), client.WithTools(remote), client.WithTreeBudget(client.TreeBudget{ModelCalls: 10}))
	err = c.Prompt("go").Call(context.Background()).Err()
	if shareErr != nil || !errors.As(err, &be) || be.Spent.ModelCalls != 1+9+5 {
		t.Fatalf("error %v (share: %v), want the next model call refused with 15 spent", err, shareErr)
	}
}

// TestTreeAccount: a turn started with an account (another process's share) spends from it,
// under the smaller budget; a stopped top-level turn's state carries its account, so its resume
// goes on counting, while a state from outside cannot raise the budget or spend less than zero.
func TestTreeAccount(t *testing.T) {
	twoRounds := func() *chattest.Model {
		return chattest.New(chattest.Calls(chattest.Call("ls", "{}")), chattest.Text("done"))
	}
	ls := chattest.NewTool("ls", func(context.Context, string) (string, error) { return "a b", nil })
	rm := chattest.NewTool("rm", func(context.Context, string) (string, error) { return "gone", nil }).
		WithMetadata(tool.Metadata{RequiresApproval: true})

	c := clienttest.New(t, twoRounds(), client.WithTools(ls))
	ctx := client.WithTreeAccount(context.Background(), client.TreeAccount{
		Budget: client.TreeBudget{ModelCalls: 3, ToolCalls: -1}, Spent: client.TreeSpent{ModelCalls: 2}})
	var be *client.TreeBudgetError
	if err := c.Prompt("go").Call(ctx).Err(); !errors.As(err, &be) || be.Limit != 3 || be.Spent.ModelCalls != 3 {
		t.Fatalf("error %v, want the second model call refused under the account's 3", err)
	}

	stopping := func() *chattest.Model {
		return chattest.New(chattest.Calls(chat.ToolCall{ID: "c1", Name: "rm", Arguments: "{}"}), chattest.Text("done"))
	}
	newC := func(budget int64) *client.Client {
		return clienttest.New(t, stopping(), client.WithTools(rm), client.WithApproval(toolcall.AskFlagged()),
			client.WithTreeBudget(client.TreeBudget{ModelCalls: budget}))
	}
	c = newC(1)
	resp, err := c.Prompt("go").Call(context.Background()).Response()
	if err != nil || resp.Pending == nil || resp.Pending.Tree == nil || resp.Pending.Tree.Spent.ModelCalls != 1 {
		t.Fatalf("stop: %+v, %v", resp, err)
	}
	if resp.Tree.ModelCalls != 1 {
		t.Fatalf("the stop's tree spent %+v", resp.Tree)
	}
	st := resp.Pending
	if err := c.Resume(st, client.Approve("c1")).Call(context.Background()).Err(); !errors.As(err, &be) || be.Spent.ModelCalls != 1 {
		t.Fatalf("resume: %v, want the resumed turn's model call refused: the stop spent the budget", err)
	}

	// A roomier client resumes the same state, and counts on from it.
	c = newC(5)
	resp, err = c.Prompt("go").Call(context.Background()).Response()
	if err != nil {
		t.Fatal(err)
	}
	resp, err = c.Resume(resp.Pending, client.Approve("c1")).Call(context.Background()).Response()
	if err != nil || resp.Tree.ModelCalls != 2 || resp.Tree.ToolCalls != 1 {
		t.Fatalf("resume: %+v, %v", resp, err)
	}

	// A state edited to spend less than nothing, or to have no limit: neither counts.
	for _, tc := range []struct {
		acct client.TreeAccount
		ok   bool // the resume's one model call is within the client's budget of 2
	}{
		{client.TreeAccount{Budget: client.TreeBudget{ModelCalls: -1}, Spent: client.TreeSpent{ModelCalls: -100}}, true},
		{client.TreeAccount{Budget: client.TreeBudget{ModelCalls: -1}, Spent: client.TreeSpent{ModelCalls: 2}}, false},
	} {
		c = newC(2)
		resp, err := c.Prompt("go").Call(context.Background()).Response()
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := json.Marshal(resp.Pending)
		var forged client.TurnState
		if err := json.Unmarshal(raw, &forged); err != nil {
			t.Fatal(err)
		}
		forged.Tree = &tc.acct
		resp, err = c.Resume(&forged, client.Approve("c1")).Call(context.Background()).Response()
		if tc.ok && (err != nil || resp.Tree.ModelCalls != 1) {
			t.Fatalf("%+v: %+v, %v", tc.acct, resp, err)
		}
		if !tc.ok && !errors.As(err, &be) {
			t.Fatalf("%+v: %v, want the client's budget kept", tc.acct, err)
		}
	}
}
