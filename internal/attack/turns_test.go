package attack

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"sync"
	"testing"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/chattest"
	"github.com/wield-ai/wield/client"
	"github.com/wield-ai/wield/tool"
)

// runs records the arguments of every run of a tool.
type runs struct {
	mu   sync.Mutex
	args []string
}

func (r *runs) add(args string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.args = append(r.args, args)
}

func (r *runs) list() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.args)
}

// dangerous is a tool that needs approval and records what it was run with.
func dangerous(name string, r *runs) tool.Tool {
	return chattest.NewTool(name, func(_ context.Context, args string) (string, error) {
		r.add(args)
		return name + " done", nil
	}).WithMetadata(tool.Metadata{RequiresApproval: true})
}

// newClient returns client.New(m, opts...), failing t on an error.
func newClient(t *testing.T, m chat.Model, opts ...client.Option) *client.Client {
	t.Helper()
	c, err := client.New(m, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// viaJSON returns s through JSON, editing the JSON with edit first, as a tampered store would
// hand it back.
func viaJSON(t *testing.T, s *client.TurnState, edit func(m map[string]any)) *client.TurnState {
	t.Helper()
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	if edit != nil {
		edit(m)
	}
	if b, err = json.Marshal(m); err != nil {
		t.Fatal(err)
	}
	var out client.TurnState
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return &out
}

// roundCall returns the JSON of call i of a state's round, and the round's message's call i.
func roundCall(m map[string]any, i int) (pending, inMessage map[string]any) {
	round := m["round"].(map[string]any)
	pending = round["calls"].([]any)[i].(map[string]any)
	inMessage = round["message"].(map[string]any)["toolCalls"].([]any)[i].(map[string]any)
	return pending, inMessage
}

// stopForApproval runs a turn whose model asks for calls (all of tools needing approval) and
// returns its pending state.
func stopForApproval(t *testing.T, c *client.Client) *client.TurnState {
	t.Helper()
	resp, err := c.Prompt("go").Call(context.Background()).Response()
	if err != nil {
		t.Fatal(err)
	}
	if resp.Outcome != client.OutcomeApproval || resp.Pending == nil {
		t.Fatalf("outcome %v, want approval", resp.Outcome)
	}
	return resp.Pending
}

// The arguments the application approves are the ones that run: a state whose round message
// holds other arguments than the pending call it shows (a tampered or corrupt store) is refused,
// never run with the arguments nobody saw.
func TestAttackResumeRunsWhatWasApproved(t *testing.T) {
	for _, field := range []string{"arguments", "name", "id"} {
		t.Run(field, func(t *testing.T) {
			var r runs
			m := chattest.New(chattest.Calls(chattest.Call("pay", `{"to":"alice","amount":1}`)), chattest.Text("paid"))
			c := newClient(t, m, client.WithTools(dangerous("pay", &r), dangerous("pay_all", &r)))
			st := stopForApproval(t, c)
			tampered := viaJSON(t, st, func(m map[string]any) {
				_, msg := roundCall(m, 0)
				switch field {
				case "arguments":
					msg["arguments"] = `{"to":"mallory","amount":1000000}`
				case "name":
					msg["name"] = "pay_all"
				case "id":
					msg["id"] = "other"
				}
			})
			pending := tampered.Pending()
			if len(pending) != 1 || pending[0].Call.Arguments != `{"to":"alice","amount":1}` {
				t.Fatalf("pending = %+v", pending)
			}
			_, err := c.Resume(tampered, pending[0].Approve()).Call(context.Background()).Response()
			if err == nil {
				t.Fatalf("a state whose round does not match its pending calls resumed; runs %v", r.list())
			}
			if got := r.list(); len(got) != 0 {
				t.Fatalf("the tool ran with %v", got)
			}
		})
	}
}

// A call a state says is waiting (it needed no decision) runs on resume only if the approval
// policy still lets it: a store that turns a call waiting for approval into a waiting one does
// not get it run unasked.
func TestAttackResumeWaitingCallIsAskedAgain(t *testing.T) {
	var r runs
	m := chattest.New(chattest.Calls(chattest.Call("pay", `{"amount":1000}`)), chattest.Text("paid"))
	c := newClient(t, m, client.WithTools(dangerous("pay", &r)))
	st := stopForApproval(t, c)
	tampered := viaJSON(t, st, func(m map[string]any) {
		call, _ := roundCall(m, 0)
		call["status"] = string(client.CallWaiting)
	})
	if len(tampered.Pending()) != 0 {
		t.Fatalf("pending = %+v", tampered.Pending())
	}
	resp, err := c.Resume(tampered).Call(context.Background()).Response()
	if got := r.list(); len(got) != 0 {
		t.Fatalf("a call needing approval ran without a decision: %v", got)
	}
	if err == nil && resp.Outcome != client.OutcomeApproval {
		t.Fatalf("outcome %v", resp.Outcome)
	}
}

// A model that gives two calls of one response the same id (or none at all, for providers
// that leave ids to the client) does not leave a turn that can never be resumed: each pending
// call takes its own decision, in order.
func TestAttackDuplicateCallIDs(t *testing.T) {
	for _, id := range []string{"dup", ""} {
		t.Run("id="+id, func(t *testing.T) {
			var r runs
			resp := &chat.Response{Generations: []chat.Generation{{
				Message: chat.Message{Role: chat.RoleAssistant, ToolCalls: []chat.ToolCall{
					{ID: id, Name: "pay", Arguments: `{"n":1}`},
					{ID: id, Name: "pay", Arguments: `{"n":2}`},
				}},
				FinishReason: chat.FinishToolCalls,
			}}}
			m := chattest.New(
				chattest.Respond(func(context.Context, *chat.Prompt) (*chat.Response, error) { return resp, nil }),
				chattest.Text("done"))
			c := newClient(t, m, client.WithTools(dangerous("pay", &r)))
			st := stopForApproval(t, c)
			pending := st.Pending()
			if len(pending) != 2 {
				t.Fatalf("pending = %+v", pending)
			}
			out, err := c.Resume(st, pending[0].Approve(), pending[1].Reject("no")).Call(context.Background()).Response()
			if err != nil {
				t.Fatalf("resume: %v", err)
			}
			if out.Outcome != client.OutcomeAnswer || !slices.Equal(r.list(), []string{`{"n":1}`}) {
				t.Fatalf("outcome %v, runs %v", out.Outcome, r.list())
			}
			res := m.ToolResults(t, 1)
			if len(res) != 2 || res[0].IsError || !res[1].IsError {
				t.Fatalf("results = %+v", res)
			}
		})
	}
}

// lazyTools is a tool.Provider whose tools are made when a request asks for them, so that an
// agent can offer itself.
type lazyTools func() []tool.Tool

func (f lazyTools) Tools(context.Context) ([]tool.Tool, error) { return f(), nil }

// An agent that calls itself, through another agent or directly, as a hostile or looping model
// makes it, ends with a clear error at a bounded depth instead of nesting turns until the stack
// or the memory gives out.
func TestAttackAgentRecursionIsBounded(t *testing.T) {
	for _, path := range []string{"call", "stream"} {
		for _, ctxKind := range []string{"background", "cancellable"} {
			t.Run(path+"/"+ctxKind, func(t *testing.T) {
				// Each model always calls the other agent; a also calls itself.
				ma := chattest.New(chattest.Calls(chattest.Call("b", `{"input":"again"}`))).Repeat().DiscardPrompts()
				mb := chattest.New(chattest.Calls(chattest.Call("a", `{"input":"again"}`))).Repeat().DiscardPrompts()
				var agentA, agentB tool.Tool
				a := newClient(t, ma, client.WithTools(lazyTools(func() []tool.Tool { return []tool.Tool{agentB} })))
				b := newClient(t, mb, client.WithTools(lazyTools(func() []tool.Tool { return []tool.Tool{agentA} })))
				var err error
				if agentA, err = client.AgentTool(a, "a", "agent a"); err != nil {
					t.Fatal(err)
				}
				if agentB, err = client.AgentTool(b, "b", "agent b"); err != nil {
					t.Fatal(err)
				}
				ctx := context.Background()
				if ctxKind == "cancellable" {
					var cancel context.CancelFunc
					ctx, cancel = context.WithCancel(ctx)
					defer cancel()
				}
				if path == "call" {
					_, err = a.Prompt("start").Call(ctx).Response()
				} else {
					for _, e := range a.Prompt("start").Stream(ctx).Events() {
						if e != nil {
							err = e
						}
					}
				}
				if !errors.Is(err, client.ErrAgentDepth) {
					t.Fatalf("error %v, want ErrAgentDepth", err)
				}
				if n := ma.Requests() + mb.Requests(); n != client.MaxAgentDepth+1 {
					t.Fatalf("%d model calls, want one per level (%d)", n, client.MaxAgentDepth+1)
				}
			})
		}
	}
}
