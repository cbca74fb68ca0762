package memory_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/chattest"
	"github.com/wield-ai/wield/client"
	"github.com/wield-ai/wield/internal/clienttest"
	"github.com/wield-ai/wield/memory"
	"github.com/wield-ai/wield/tool"
)

func TestTurnsStore(t *testing.T) {
	repo := memory.NewInMemory()
	pay := chattest.NewTool("pay", nil).WithMetadata(tool.Metadata{RequiresApproval: true})
	m := chattest.New(chattest.Calls(chattest.Call("pay", `{}`)), chattest.Text("Paid."))
	c := clienttest.New(t, m, client.WithTools(pay), client.WithTurnStore(memory.Turns(repo)))
	resp, err := c.Prompt("pay").Param(client.ParamConversationID, "c1").Call(context.Background()).Response()
	if err != nil || resp.Outcome != client.OutcomeApproval {
		t.Fatalf("first: %v, %v", resp, err)
	}
	// Another client, as another process would, finds the turn in the repository.
	store := memory.Turns(repo)
	st, err := store.LoadTurn(context.Background(), "c1")
	if err != nil || st == nil || st.ID != resp.Pending.ID || st.Status != client.TurnApproval {
		t.Fatalf("loaded %+v, %v", st, err)
	}
	if none, err := store.LoadTurn(context.Background(), "other"); none != nil || err != nil {
		t.Fatalf("other conversation: %v, %v", none, err)
	}
	c2 := clienttest.New(t, m, client.WithTools(pay), client.WithTurnStore(memory.Turns(repo)))
	text, err := c2.Resume(st, client.Approve(st.Pending()[0].Call.ID)).Call(context.Background()).Content()
	if err != nil || text != "Paid." {
		t.Fatalf("resume: %q, %v", text, err)
	}
	// The first process's state is refused: the turn was resumed (and is over).
	err = c.Resume(resp.Pending, client.Approve(st.Pending()[0].Call.ID)).Call(context.Background()).Err()
	if !errors.Is(err, client.ErrAlreadyResumed) || !errors.Is(err, client.ErrTurnConflict) || !errors.Is(err, memory.ErrTurnConflict) {
		t.Fatalf("second resume: %v", err)
	}
	if len(pay.Args()) != 1 {
		t.Fatalf("pay ran %d times", len(pay.Args()))
	}
	if st, _ := store.LoadTurn(context.Background(), "c1"); st != nil {
		t.Fatalf("a finished turn is still stored: %+v", st)
	}
}

func TestTurnsStoreRefusesForeignState(t *testing.T) {
	repo := memory.NewInMemory()
	if err := repo.SaveTurn(context.Background(), "c", memory.TurnRecord{ID: "t", Seq: 1, State: []byte(`{"id":"x","seq":1}`)}); err != nil {
		t.Fatal(err)
	}
	if _, err := memory.Turns(repo).LoadTurn(context.Background(), "c"); err == nil {
		t.Fatal("a state that does not match its record was loaded")
	}
	if err := memory.Turns(repo).SaveTurn(context.Background(), "c", nil); err == nil {
		t.Fatal("a nil state was saved")
	}
}

func summary(msgs []chat.Message) string {
	s := ""
	for _, m := range msgs {
		switch {
		case len(m.ToolCalls) > 0:
			s += fmt.Sprintf("[call %s]", m.ToolCalls[0].Name)
		case len(m.ToolResults) > 0:
			s += fmt.Sprintf("[result %s]", m.ToolResults[0].Content)
		default:
			s += fmt.Sprintf("[%s %s]", m.Role, m.Content)
		}
	}
	return s
}

func TestAdvisorStoresStoppedAndResumedTurns(t *testing.T) {
	bothPaths(t, func(t *testing.T, stream bool) {
		repo := memory.NewInMemory()
		look := chattest.NewTool("look", nil).WithMetadata(tool.Metadata{})
		pay := chattest.NewTool("pay", nil).WithMetadata(tool.Metadata{RequiresApproval: true})
		m := chattest.New(
			chattest.Calls(chattest.Call("look", `{}`)),
			chattest.Calls(chattest.Call("pay", `{}`)),
			chattest.Text("Paid."),
			chattest.Text("You paid."),
		)
		c := clienttest.New(t, m, client.WithTools(look, pay),
			client.WithAdvisors(memory.NewAdvisor(memory.NewWindow(repo, 50), memory.AdvisorConfig{})))
		resp := respond(t, c.Prompt("pay the bill").Param(client.ParamConversationID, "c"), stream)
		stored, _ := repo.Messages(context.Background(), "c")
		if got := summary(stored); got != "[user pay the bill][call look][result look done]" {
			t.Fatalf("stored at the stop: %s", got)
		}
		if got := run(t, c.Resume(resp.Pending, client.Approve(resp.Pending.Pending()[0].Call.ID)), stream); got != "Paid." {
			t.Fatalf("resume = %q", got)
		}
		stored, _ = repo.Messages(context.Background(), "c")
		want := "[user pay the bill][call look][result look done][call pay][result pay done][assistant Paid.]"
		if got := summary(stored); got != want {
			t.Fatalf("stored after the resume: %s", got)
		}
		// The next turn sees the whole of it.
		if got := run(t, c.Prompt("what did I do?").Param(client.ParamConversationID, "c"), stream); got != "You paid." {
			t.Fatalf("next = %q", got)
		}
		if got := summary(m.Prompt(3).Messages); got != want+"[user what did I do?]" {
			t.Fatalf("next prompt: %s", got)
		}
	})
}

// failAfterCharge returns a charge tool and a model that calls it, fails at its next call, then
// answers final: a turn that fails after one round ran.
func failAfterCharge(final string) (*chattest.Tool, *chattest.Model) {
	return chattest.NewTool("charge", nil).WithMetadata(tool.Metadata{}), chattest.New(
		chattest.Calls(chattest.Call("charge", `{}`)),
		chattest.Fail(errors.New("provider down")),
		chattest.Text(final),
	)
}

// turnError runs prompt in conversation "c" and returns the turn's error, which must be a
// *client.TurnError.
func turnError(t *testing.T, c *client.Client, prompt string) *client.TurnError {
	t.Helper()
	err := c.Prompt(prompt).Param(client.ParamConversationID, "c").Call(context.Background()).Err()
	var te *client.TurnError
	if !errors.As(err, &te) {
		t.Fatalf("%s: err = %v, want a *client.TurnError", prompt, err)
	}
	return te
}

func TestAdvisorKeepsRoundsOfAFailedTurn(t *testing.T) {
	repo := memory.NewInMemory()
	charge, m := failAfterCharge("You were charged already.")
	c := clienttest.New(t, m, client.WithTools(charge),
		client.WithAdvisors(memory.NewAdvisor(memory.NewWindow(repo, 50), memory.AdvisorConfig{})))
	turnError(t, c, "charge me")
	stored, _ := repo.Messages(context.Background(), "c")
	if got := summary(stored); got != "[user charge me][call charge][result charge done]" {
		t.Fatalf("stored: %s", got)
	}
	// A new turn (the user asks again) sees that the charge ran.
	if got := run(t, c.Prompt("charge me").Param(client.ParamConversationID, "c"), false); got != "You were charged already." {
		t.Fatalf("next = %q", got)
	}
	if got := summary(m.Prompt(2).Messages); got != "[user charge me][call charge][result charge done][user charge me]" {
		t.Fatalf("next prompt: %s", got)
	}
	if len(charge.Args()) != 1 {
		t.Fatalf("charge ran %d times", len(charge.Args()))
	}
}

func TestAdvisorInsideLoopRetriedTurn(t *testing.T) {
	// Memory inside the loop stores the round's results before the model call that fails; the
	// retry sends them again, and they are stored once.
	repo := memory.NewInMemory()
	charge, m := failAfterCharge("Charged.")
	c := clienttest.New(t, m, client.WithTools(charge), client.WithAdvisors(memory.NewAdvisor(memory.NewWindow(repo, 50),
		memory.AdvisorConfig{Order: client.OrderToolCalling + 1})))
	te := turnError(t, c, "charge me")
	text, err := c.Resume(te.State).Call(context.Background()).Content()
	if err != nil || text != "Charged." {
		t.Fatalf("retry: %q, %v", text, err)
	}
	stored, _ := repo.Messages(context.Background(), "c")
	if got := summary(stored); got != "[user charge me][call charge][result charge done][assistant Charged.]" {
		t.Fatalf("stored: %s", got)
	}
	if got := summary(m.Prompt(2).Messages); got != "[user charge me][call charge][result charge done]" {
		t.Fatalf("retried prompt: %s", got)
	}
	if len(charge.Args()) != 1 {
		t.Fatalf("charge ran %d times", len(charge.Args()))
	}
}

// failingAppends is a repository whose appends fail while fail is set.
type failingAppends struct {
	memory.Repository
	fail bool
}

func (r *failingAppends) Append(ctx context.Context, id string, msgs ...chat.Message) error {
	if r.fail {
		return errors.New("store down")
	}
	return r.Repository.Append(ctx, id, msgs...)
}

func TestAdvisorInsideLoopResumeStoresResultsOfAReusedCallID(t *testing.T) {
	// A model that numbers its calls per response reuses ids from turn to turn. When the store
	// failed to keep a round's results, the resumed turn must store them, though an earlier turn
	// holds a result of the same id and text.
	repo := &failingAppends{Repository: memory.NewInMemory()}
	charges := 0
	charge := chattest.NewTool("charge", func(context.Context, string) (string, error) {
		if charges++; charges == 2 {
			repo.fail = true // the second turn's round runs; storing its results fails
		}
		return "done", nil
	}).WithMetadata(tool.Metadata{})
	call := chat.ToolCall{ID: "call_0", Name: "charge", Arguments: `{}`}
	m := chattest.New(
		chattest.Calls(call), chattest.Text("Charged once."),
		chattest.Calls(call), chattest.Text("Charged twice."),
	)
	c := clienttest.New(t, m, client.WithTools(charge), client.WithAdvisors(memory.NewAdvisor(memory.NewWindow(repo, 50),
		memory.AdvisorConfig{Order: client.OrderToolCalling + 1})))
	if got := run(t, c.Prompt("charge me").Param(client.ParamConversationID, "c"), false); got != "Charged once." {
		t.Fatalf("first turn: %q", got)
	}
	te := turnError(t, c, "again")
	repo.fail = false
	if text, err := c.Resume(te.State).Call(context.Background()).Content(); err != nil || text != "Charged twice." {
		t.Fatalf("resumed: %q, %v", text, err)
	}
	stored, _ := repo.Messages(context.Background(), "c")
	want := "[user charge me][call charge][result done][assistant Charged once.]" +
		"[user again][call charge][result done][assistant Charged twice.]"
	if got := summary(stored); got != want {
		t.Fatalf("stored:\n%s\nwant\n%s", got, want)
	}
}
