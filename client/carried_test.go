package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/wield-ai/wield/chattest"
	"github.com/wield-ai/wield/client"
	"github.com/wield-ai/wield/internal/clienttest"
	"github.com/wield-ai/wield/tool"
)

// What a hook carries goes with the turn's stopped state, through JSON and its MAC, into the
// resumed turn of another client; an edit of it is refused like any other.
func TestTurnCarried(t *testing.T) {
	var seen []string
	hooks := client.ToolLoopHooks{BeforeCall: func(_ context.Context, req *client.Request) (*client.Request, error) {
		seen = append(seen, string(req.Turn.Carried("counter")))
		if req.Turn.Carried("counter") == nil {
			req.Turn.SetCarried("counter", json.RawMessage(`"x"`))
		}
		return req, nil
	}}
	pay := tool.Must(tool.Func("pay", "pays", func(context.Context, struct{}) (string, error) { return "paid", nil }, tool.RequiresApproval()))
	key := []byte("0123456789abcdef0123456789abcdef")
	mk := func() *client.Client {
		return clienttest.New(t, chattest.New(chattest.Calls(chattest.Call("pay", `{}`)), chattest.Text("done")).Repeat(),
			client.WithTools(pay), client.WithTurnKey(key), client.WithAdvisors(client.NewToolLoop(client.ToolLoopConfig{Hooks: hooks})))
	}
	resp, err := mk().Prompt("pay").Call(context.Background()).Response()
	if err != nil || resp.Pending == nil {
		t.Fatalf("%+v, %v", resp, err)
	}
	if got := string(resp.Pending.Carried["counter"]); got != `"x"` {
		t.Fatalf("the stopped state carries %q", got)
	}
	b, err := json.Marshal(resp.Pending)
	if err != nil {
		t.Fatal(err)
	}
	var st, edited client.TurnState
	if err := json.Unmarshal(b, &st); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &edited); err != nil {
		t.Fatal(err)
	}
	edited.Carried["counter"] = json.RawMessage(`"forged"`)
	if _, err := mk().Resume(&edited, client.Approve(st.Pending()[0].Call.ID)).Call(context.Background()).Response(); !errors.Is(err, client.ErrTurnTampered) {
		t.Fatalf("an edited carried value: %v", err)
	}
	seen = nil
	if _, err := mk().Resume(&st, client.Approve(st.Pending()[0].Call.ID)).Call(context.Background()).Response(); err != nil {
		t.Fatal(err)
	}
	if len(seen) == 0 || seen[0] != `"x"` {
		t.Fatalf("the resumed turn's hook saw %q", seen)
	}
}
