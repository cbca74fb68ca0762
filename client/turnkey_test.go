package client_test

import (
	"context"
	"errors"
	"testing"

	"github.com/wield-ai/wield/chattest"
	"github.com/wield-ai/wield/client"
	"github.com/wield-ai/wield/internal/clienttest"
	"github.com/wield-ai/wield/tool"
	"github.com/wield-ai/wield/toolcall"
)

var testTurnKey = []byte("a turn key of thirty-two bytes!!")

// With a turn key on parent and sub-agent, a sub-agent's interrupt nests a signed state in a
// signed state, and the copy the application keeps resumes through both.
func TestTurnKeySubAgent(t *testing.T) {
	ask := newTool("ask", func(ctx context.Context, _ string) (string, error) {
		return "", toolcall.Interrupt("Which colour?")
	})
	cm := chattest.New(chattest.Calls(chattest.Call("ask", `{}`)), chattest.Text("Blue it is."))
	helper := tool.Must(client.AgentTool(clienttest.New(t, cm, client.WithTools(ask), client.WithTurnKey(testTurnKey)), "painter", "Paints"))
	pm := chattest.New(chattest.Calls(chattest.Call("painter", `{"input":"paint"}`)), chattest.Text("Painted blue."))
	parent := clienttest.New(t, pm, client.WithTools(helper), client.WithTurnKey(testTurnKey))
	resp, err := parent.Prompt("paint").Call(context.Background()).Response()
	if err != nil || resp.Outcome != client.OutcomeInterrupted {
		t.Fatalf("first: %v, %v", resp, err)
	}
	if resp.Pending.MAC == "" || resp.Pending.Round.Calls[0].Child == nil || resp.Pending.Round.Calls[0].Child.MAC == "" {
		t.Fatal("the states are not signed")
	}
	p := resp.Pending.Pending()
	text, err := parent.Resume(roundTrip(t, resp.Pending), p[0].Answer("blue")).Call(context.Background()).Content()
	if err != nil || text != "Painted blue." {
		t.Fatalf("resume: %q, %v", text, err)
	}
}

// The state of a turn that failed after a round is signed too, and resumes.
func TestTurnKeyFailedTurn(t *testing.T) {
	m := chattest.New(chattest.Calls(chattest.Call("step", `{}`)), chattest.Fail(errors.New("provider down")), chattest.Text("done"))
	c := clienttest.New(t, m, client.WithTools(constTool("step", "ok")), client.WithTurnKey(testTurnKey))
	err := c.Prompt("go").Call(context.Background()).Err()
	var te *client.TurnError
	if !errors.As(err, &te) || te.State == nil || te.State.MAC == "" {
		t.Fatalf("err = %v", err)
	}
	if text, err := c.Resume(roundTrip(t, te.State)).Call(context.Background()).Content(); err != nil || text != "done" {
		t.Fatalf("resume: %q, %v", text, err)
	}
	if err := c.Resume(roundTrip(t, te.State)).Call(context.Background()).Err(); !errors.Is(err, client.ErrAlreadyResumed) {
		t.Fatalf("second resume of a copy: %v", err)
	}
}
