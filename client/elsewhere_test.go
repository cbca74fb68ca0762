package client_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/chattest"
	"github.com/wield-ai/wield/client"
	"github.com/wield-ai/wield/internal/clienttest"
	"github.com/wield-ai/wield/internal/testenv"
	"github.com/wield-ai/wield/tool"
	"github.com/wield-ai/wield/toolcall"
)

// The tests of this file run a turn's steps outside the client, as a durable workflow does,
// with Spec.Request, Request.Approval, NewRound and TurnState.Plans, and check that the steps
// decide what the client's own loop decides.

func TestSpecRequest(t *testing.T) {
	a, b := constTool("a", "A"), constTool("b", "B")
	resolver, rerr := tool.NewStaticResolver(b)
	if rerr != nil {
		t.Fatal(rerr)
	}
	m := chattest.New()
	temp := 0.5
	c := clienttest.New(t, m,
		client.WithSystem("be brief"),
		client.WithTools(a),
		client.WithOptions(&chat.Options{Model: "m1", Temperature: &temp}),
		client.WithToolContext(tool.Context{"tenant": "t1", "user": "u0"}),
		client.WithApproval(toolcall.AskTools("a")),
		client.WithManager(toolcall.New(toolcall.Config{Resolver: resolver})),
	)
	req, err := c.Prompt("hi").ToolNames("b").ToolContext(tool.Context{"user": "u1"}).
		Options(&chat.Options{MaxTokens: 9}).Param(client.ParamConversationID, "conv").Request(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	msgs := req.Prompt.Messages
	if len(msgs) != 2 || msgs[0].Role != chat.RoleSystem || msgs[0].Content != "be brief" || msgs[1].Content != "hi" {
		t.Fatalf("messages = %v", msgs)
	}
	o := req.Prompt.Options
	if o.Model != "m1" || *o.Temperature != 0.5 || o.MaxTokens != 9 || !slices.Equal(toolNames(&req.Prompt), []string{"a", "b"}) {
		t.Fatalf("options = %+v, tools %v", o, toolNames(&req.Prompt))
	}
	if req.ToolContext["tenant"] != "t1" || req.ToolContext["user"] != "u1" {
		t.Fatalf("tool context = %v", req.ToolContext)
	}
	if id, _ := req.StringParam(client.ParamConversationID); id != "conv" {
		t.Fatalf("params = %v", req.Params)
	}
	ask := req.Approval()
	if ask == nil || !ask(context.Background(), toolcall.ApprovalRequest{Call: chat.ToolCall{Name: "a"}}) ||
		ask(context.Background(), toolcall.ApprovalRequest{Call: chat.ToolCall{Name: "b"}}) {
		t.Fatal("the request's approval policy is not the client's")
	}
	// The spec's policy wins; without any, the request has none (the manager asks the flagged).
	req, err = c.Prompt("hi").Approval(toolcall.AskNone()).Request(context.Background())
	if err != nil || req.Approval()(context.Background(), toolcall.ApprovalRequest{Call: chat.ToolCall{Name: "a"}}) {
		t.Fatalf("spec policy: %v", err)
	}
	plain := clienttest.New(t, m)
	if req, err = plain.Prompt("hi").Request(context.Background()); err != nil || req.Approval() != nil {
		t.Fatalf("plain request: %v", err)
	}
	// A spec's error is the request's.
	if _, err := c.Prompt("hi").ToolNames("nope").Request(context.Background()); err == nil {
		t.Fatal("an unknown tool name resolved")
	}
	if len(m.Prompts()) != 0 {
		t.Fatal("Request sent something to the model")
	}
}

func TestNewRoundMatchesTheLoop(t *testing.T) {
	del := fileTool("delete", tool.Metadata{RequiresApproval: true})
	list := fileTool("list", tool.Metadata{ReadOnly: true})
	resp := &chat.Response{ID: "r1", Model: "m", Generations: []chat.Generation{{Message: chat.Message{
		Role: chat.RoleAssistant, Content: "Cleaning up.",
		ToolCalls: []chat.ToolCall{{ID: "c1", Name: "list", Arguments: `{"path":"/tmp"}`}, {ID: "c2", Name: "delete", Arguments: `{"path":"/tmp/a"}`}},
	}}}}
	m := chattest.New(chattest.Respond(func(context.Context, *chat.Prompt) (*chat.Response, error) { return resp, nil }))
	c := clienttest.New(t, m, client.WithTools(del, list))
	stopped, err := c.Prompt("clean").Call(context.Background()).Response()
	if err != nil || stopped.Pending == nil {
		t.Fatalf("the client's turn did not stop: %v", err)
	}

	req, err := c.Prompt("clean").Request(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	turn := &toolcall.Turn{Approval: req.Approval()}
	result, err := c.Manager().ExecuteTurn(context.Background(), turn, &req.Prompt, resp)
	if err != nil || !result.Stopped {
		t.Fatalf("manager: %+v, %v", result, err)
	}
	round := client.NewRound(resp, result.Calls, false)
	if a, b := testenv.JSON(t, round), testenv.JSON(t, stopped.Pending.Round); a != b {
		t.Fatalf("NewRound = %+v, the loop's = %+v", round, stopped.Pending.Round)
	}
	if running := client.NewRound(resp, result.Calls, true); running.Calls[0].Status != client.CallRunning ||
		running.Calls[1].Status != client.CallApproval {
		t.Fatalf("a running round: %+v", running.Calls)
	}
}

func TestNewRoundNestsAStoppedSubAgent(t *testing.T) {
	write := fileTool("write", tool.Metadata{RequiresApproval: true})
	child := clienttest.New(t, chattest.New(chattest.Calls(chat.ToolCall{ID: "w1", Name: "write", Arguments: `{"path":"x"}`})),
		client.WithTools(write))
	helper := tool.Must(client.AgentTool(child, "helper", "Writes"))
	resp := &chat.Response{Generations: []chat.Generation{{Message: chat.Message{Role: chat.RoleAssistant,
		ToolCalls: []chat.ToolCall{{ID: "h1", Name: "helper", Arguments: `{"input":"write x"}`}}}}}}
	p := &chat.Prompt{Options: &chat.Options{Tools: []tool.Tool{helper}}}
	result, err := toolcall.New(toolcall.Config{}).ExecuteTurn(context.Background(), &toolcall.Turn{}, p, resp)
	if err != nil || !result.Stopped {
		t.Fatalf("%+v, %v", result, err)
	}
	round := client.NewRound(resp, result.Calls, false)
	call := round.Calls[0]
	if call.Status != client.CallInterrupted || call.Child == nil || call.Child.Round.Calls[0].Call.ID != "w1" {
		t.Fatalf("round = %+v", round.Calls)
	}
	state := &client.TurnState{Version: client.TurnStateVersion, ID: "t", Seq: 1, Status: client.TurnInterrupted, Round: round}
	pending := state.Pending()
	if len(pending) != 1 || pending[0].Agent != "helper" || pending[0].Call.Name != "write" {
		t.Fatalf("pending = %+v", pending)
	}
	// The plans resume the sub-agent with the routed decision; its own tools check it first.
	if _, err := state.Plans(context.Background(), []client.Decision{pending[0].ApproveWith(`{"path":1}`)}, p.Options.Tools); !errors.Is(err, client.ErrInvalidDecision) {
		t.Fatalf("bad edit in a sub-agent: %v", err)
	}
	plans, err := state.Plans(context.Background(), []client.Decision{pending[0].Approve()}, p.Options.Tools)
	if err != nil || len(plans) != 1 || !plans[0].Approved || plans[0].Resume == nil || len(plans[0].Resume.Data) == 0 {
		t.Fatalf("plans = %+v, %v", plans, err)
	}
	result, err = toolcall.New(toolcall.Config{}).ResumeTurn(context.Background(), &toolcall.Turn{}, p, resp, plans)
	if err != nil || result.Stopped || !slices.Equal(write.Args(), []string{`{"path":"x"}`}) {
		t.Fatalf("resumed: %+v, %v, runs %v", result, err, write.Args())
	}
}

func TestPlans(t *testing.T) {
	del := fileTool("delete", tool.Metadata{RequiresApproval: true})
	list := fileTool("list", tool.Metadata{ReadOnly: true})
	ask := recordingTool("ask", tool.Metadata{}, func(ctx context.Context, args string) (string, error) {
		if r, ok := toolcall.Resumed(ctx); ok {
			return "told " + string(r.Data), nil
		}
		return "", toolcall.Interrupt("which?")
	})
	tools := []tool.Tool{del, list, ask}
	resp := &chat.Response{Generations: []chat.Generation{{Message: chat.Message{Role: chat.RoleAssistant, ToolCalls: []chat.ToolCall{
		{ID: "c1", Name: "list", Arguments: `{"path":"/"}`},
		{ID: "c2", Name: "ask", Arguments: `{}`},
		{ID: "c3", Name: "delete", Arguments: `{"path":"/a"}`},
	}}}}}
	outcomes := []toolcall.CallOutcome{
		{Call: resp.Generations[0].Message.ToolCalls[0], Status: toolcall.CallDone, Result: chat.ToolResult{ID: "c1", Name: "list", Content: "a b"}},
		{Call: resp.Generations[0].Message.ToolCalls[1], Status: toolcall.CallInterrupted, Interrupt: &toolcall.InterruptError{Message: "which?"}},
		{Call: resp.Generations[0].Message.ToolCalls[2], Status: toolcall.CallNeedsApproval},
	}
	state := &client.TurnState{Version: client.TurnStateVersion, ID: "t", Seq: 1, Status: client.TurnApproval,
		Round: client.NewRound(resp, outcomes, false)}
	ctx := context.Background()

	for name, decisions := range map[string][]client.Decision{
		"missing":      {client.Approve("c3")},
		"unknown":      {client.Approve("c3"), client.Answer("c2", "x"), client.Approve("c9")},
		"twice":        {client.Approve("c3"), client.Approve("c3"), client.Answer("c2", "x")},
		"bad edit":     {client.ApproveWith("c3", `{"path":3}`), client.Answer("c2", "x")},
		"done call":    {client.Approve("c1"), client.Approve("c3"), client.Answer("c2", "x")},
		"unknown kind": {{CallID: "c3", Kind: "maybe"}, client.Answer("c2", "x")},
	} {
		if _, err := state.Plans(ctx, decisions, tools); !errors.Is(err, client.ErrInvalidDecision) {
			t.Errorf("%s: err = %v", name, err)
		}
	}
	if _, err := (&client.TurnState{Version: client.TurnStateVersion, Status: client.TurnReady}).Plans(ctx, nil, tools); err == nil {
		t.Error("a ready state has plans")
	}

	plans, err := state.Plans(ctx, []client.Decision{client.Restart("c2", "", []byte(`"the red one"`)), client.Reject("c3", "")}, tools)
	if err != nil {
		t.Fatal(err)
	}
	if plans[0].Result == nil || plans[0].Result.Content != "a b" || !plans[1].Approved || plans[1].Resume == nil ||
		plans[2].Result == nil || plans[2].Result.Content != client.DefaultRejection || !plans[2].Result.IsError {
		t.Fatalf("plans = %+v", plans)
	}
	result, err := toolcall.New(toolcall.Config{}).ResumeTurn(ctx, nil, &chat.Prompt{Options: &chat.Options{Tools: tools}}, resp, plans)
	if err != nil {
		t.Fatal(err)
	}
	got := result.ToolResults()
	if len(got) != 3 || got[1].Content != `told "the red one"` || len(list.Args())+len(del.Args()) != 0 {
		t.Fatalf("results = %+v", got)
	}
}
