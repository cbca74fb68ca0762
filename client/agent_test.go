package client_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/wield-ai/wield/chattest"
	"github.com/wield-ai/wield/client"
	"github.com/wield-ai/wield/internal/clienttest"
	"github.com/wield-ai/wield/tool"
	"github.com/wield-ai/wield/toolcall"
)

// agentSetup builds a parent client whose model calls the sub-agent "helper" once, and the
// sub-agent's client, whose model calls "write" (which needs approval) and then answers.
func agentSetup(t *testing.T) (parent *client.Client, pm, cm *chattest.Model, write *chattest.Tool) {
	t.Helper()
	write = fileTool("write", tool.Metadata{RequiresApproval: true})
	cm = chattest.New(
		chattest.Calls(chattest.Call("write", `{"path":"/notes"}`)).WithText("I will write."),
		chattest.Text("Written."),
	)
	child := clienttest.New(t, cm, client.WithTools(write), client.WithSystem("You write files."))
	helper, err := client.AgentTool(child, "helper", "Writes files")
	if err != nil {
		t.Fatal(err)
	}
	pm = chattest.New(
		chattest.Calls(chattest.Call("helper", `{"input":"write the notes"}`)),
		chattest.Text("The helper wrote the notes."),
	)
	return clienttest.New(t, pm, client.WithTools(helper)), pm, cm, write
}

func TestSubAgentApproval(t *testing.T) {
	for _, path := range paths {
		t.Run(path.name, func(t *testing.T) {
			parent, pm, cm, write := agentSetup(t)
			resp, events, err := drive(t, parent.Prompt("take notes"), path.stream)
			if err != nil {
				t.Fatal(err)
			}
			if resp.Outcome != client.OutcomeApproval || len(write.Args()) != 0 {
				t.Fatalf("outcome %v, runs %v", resp.Outcome, write.Args())
			}
			pending := resp.Pending.Pending()
			helperCall := resp.Pending.Round.Calls[0]
			if len(pending) != 1 || pending[0].Call.Name != "write" || pending[0].Agent != "helper" ||
				!slices.Equal(pending[0].Path, []string{helperCall.Call.ID}) || pending[0].Status != client.CallApproval {
				t.Fatalf("pending = %+v", pending)
			}
			if helperCall.Child == nil || helperCall.Status != client.CallInterrupted || helperCall.Child.Status != client.TurnApproval {
				t.Fatalf("helper call = %+v", helperCall)
			}
			if path.stream {
				got := toolEvents(events)
				want := []string{":start:helper", "helper:approval:write", ":interrupted:helper"}
				if !slices.Equal(got, want) {
					t.Fatalf("events = %v, want %v", got, want)
				}
				if text := agentText(events, "helper"); text != "I will write." {
					t.Fatalf("sub-agent text = %q", text)
				}
			}

			// The decision reaches down through the state, after a trip through JSON.
			resp, events, err = drive(t, parent.Resume(roundTrip(t, resp.Pending), pending[0].Approve()), path.stream)
			if err != nil {
				t.Fatal(err)
			}
			if resp.Text() != "The helper wrote the notes." || resp.Outcome != client.OutcomeAnswer {
				t.Fatalf("response: %v %q", resp.Outcome, resp.Text())
			}
			if !slices.Equal(write.Args(), []string{`{"path":"/notes"}`}) {
				t.Fatalf("runs = %v", write.Args())
			}
			if r := pm.ToolResults(t, 1); r[0].Content != "Written." {
				t.Fatalf("parent's results = %+v", r)
			}
			// The sub-agent went on from where it stopped: its system prompt, task, call, result.
			if p := cm.Prompt(1); len(p.Messages) != 4 || p.Messages[0].Content != "You write files." || p.Messages[1].Content != "write the notes" ||
				p.Messages[3].ToolResults[0].Content != "write done" {
				t.Fatalf("sub-agent's prompt = %v", p.Messages)
			}
			if pm.Requests() != 2 || cm.Requests() != 2 {
				t.Fatalf("requests: parent %d, sub-agent %d", pm.Requests(), cm.Requests())
			}
			if path.stream {
				got := toolEvents(events)
				want := []string{":start:helper", "helper:start:write", "helper:finish:write", ":finish:helper"}
				if !slices.Equal(got, want) {
					t.Fatalf("events = %v, want %v", got, want)
				}
				if text := agentText(events, "helper"); text != "Written." {
					t.Fatalf("sub-agent text = %q", text)
				}
				if text := agentText(events, ""); text != "The helper wrote the notes." {
					t.Fatalf("parent text = %q", text)
				}
			}
		})
	}
}

// agentText joins the text of the events attributed to agent.
func agentText(events []*client.Event, agent string) string {
	var b strings.Builder
	for _, ev := range events {
		if ev.Agent() == agent {
			b.WriteString(ev.Text())
		}
	}
	return b.String()
}

func TestSubAgentDecisionByID(t *testing.T) {
	parent, _, _, write := agentSetup(t)
	resp, err := parent.Prompt("take notes").Call(context.Background()).Response()
	if err != nil {
		t.Fatal(err)
	}
	id := resp.Pending.Pending()[0].Call.ID
	// Rejected by id alone: found in the sub-agent.
	resp, err = parent.Resume(resp.Pending, client.Reject(id, "no writing today")).Call(context.Background()).Response()
	if err != nil || resp.Text() != "The helper wrote the notes." {
		t.Fatalf("resume: %v, %v", resp, err)
	}
	if len(write.Args()) != 0 {
		t.Fatalf("runs = %v", write.Args())
	}
}

func TestSubAgentInvalidDecisionRunsNothing(t *testing.T) {
	parent, pm, cm, write := agentSetup(t)
	resp, err := parent.Prompt("take notes").Call(context.Background()).Response()
	if err != nil {
		t.Fatal(err)
	}
	p := resp.Pending.Pending()[0]
	err = parent.Resume(resp.Pending, p.ApproveWith(`{"file":"x"}`)).Call(context.Background()).Err()
	var ae *tool.ArgumentError
	if !errors.Is(err, client.ErrInvalidDecision) || !errors.As(err, &ae) {
		t.Fatalf("err = %v", err)
	}
	if len(write.Args()) != 0 || pm.Requests() != 1 || cm.Requests() != 1 {
		t.Fatal("something ran")
	}
	if err := parent.Resume(resp.Pending, p.ApproveWith(`{"path":"/other"}`)).Call(context.Background()).Err(); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(write.Args(), []string{`{"path":"/other"}`}) {
		t.Fatalf("runs = %v", write.Args())
	}
}

func TestSubAgentInterrupt(t *testing.T) {
	for _, path := range paths {
		t.Run(path.name, func(t *testing.T) {
			ask := newTool("ask", func(ctx context.Context, _ string) (string, error) {
				return "", toolcall.Interrupt("Which colour?")
			})
			cm := chattest.New(chattest.Calls(chattest.Call("ask", `{}`)), chattest.Text("Blue it is."))
			helper := tool.Must(client.AgentTool(clienttest.New(t, cm, client.WithTools(ask)), "painter", "Paints"))
			pm := chattest.New(chattest.Calls(chattest.Call("painter", `{"input":"paint"}`)), chattest.Text("Painted blue."))
			parent := clienttest.New(t, pm, client.WithTools(helper))
			resp, events, err := drive(t, parent.Prompt("paint"), path.stream)
			if err != nil || resp.Outcome != client.OutcomeInterrupted {
				t.Fatalf("first: %v, %v", resp, err)
			}
			p := resp.Pending.Pending()
			if len(p) != 1 || p[0].Agent != "painter" || p[0].Interrupt.Message != "Which colour?" {
				t.Fatalf("pending = %+v", p)
			}
			if path.stream && !slices.Contains(toolEvents(events), "painter:interrupted:ask") {
				t.Fatalf("events = %v", toolEvents(events))
			}
			resp, _, err = drive(t, parent.Resume(resp.Pending, p[0].Answer("blue")), path.stream)
			if err != nil || resp.Text() != "Painted blue." {
				t.Fatalf("resume: %v, %v", resp, err)
			}
			if r := cm.ToolResults(t, 1); r[0].Content != "blue" {
				t.Fatalf("sub-agent's results = %+v", r)
			}
		})
	}
}

func TestSubAgentLimitsAreItsOwn(t *testing.T) {
	for _, path := range paths {
		t.Run(path.name, func(t *testing.T) {
			// The sub-agent makes three calls in a turn; the parent allows one call per turn.
			cm := chattest.New(
				chattest.Calls(chattest.Call("step", `{}`), chattest.Call("step", `{}`), chattest.Call("step", `{}`)),
				chattest.Text("three steps"),
			)
			child := clienttest.New(t, cm, client.WithTools(constTool("step", "ok")))
			helper := tool.Must(client.AgentTool(child, "worker", "Works"))
			pm := chattest.New(chattest.Calls(chattest.Call("worker", `{"input":"work"}`)), chattest.Text("worked"))
			strict := toolcall.New(toolcall.Config{Limits: toolcall.Limits{Total: 1}})
			var counts []int
			hooks := client.ToolLoopHooks{FinalizeLoop: func(_ context.Context, req *client.Request, resp *client.Response) (*client.Response, error) {
				_, total := req.Turn.Calls("")
				counts = append(counts, total)
				return resp, nil
			}}
			parent := clienttest.New(t, pm, client.WithTools(helper), client.WithManager(strict),
				client.WithAdvisors(client.NewToolLoop(client.ToolLoopConfig{Hooks: hooks})))
			resp, events, err := drive(t, parent.Prompt("go"), path.stream)
			if err != nil || resp.Text() != "worked" {
				t.Fatalf("turn: %v, %v", resp, err)
			}
			if r := pm.ToolResults(t, 1); r[0].Content != "three steps" {
				t.Fatalf("results = %+v", r)
			}
			if !slices.Equal(counts, []int{1}) {
				t.Fatalf("parent counted %v calls", counts)
			}
			if path.stream {
				n := 0
				for _, e := range toolEvents(events) {
					if e == "worker:finish:step" {
						n++
					}
				}
				if n != 3 {
					t.Fatalf("events = %v", toolEvents(events))
				}
			}
		})
	}
}

func TestStreamTextLeavesSubAgentsOut(t *testing.T) {
	cm := chattest.New(chattest.Text("sub-agent text"))
	helper := tool.Must(client.AgentTool(clienttest.New(t, cm), "helper", "Helps"))
	pm := chattest.New(chattest.Calls(chattest.Call("helper", `{"input":"x"}`)), chattest.Text("parent text"))
	var text strings.Builder
	for chunk, err := range clienttest.New(t, pm, client.WithTools(helper)).Prompt("go").Stream(context.Background()).Text() {
		if err != nil {
			t.Fatal(err)
		}
		text.WriteString(chunk)
	}
	if text.String() != "parent text" {
		t.Fatalf("text = %q", text.String())
	}
	if r := pm.ToolResults(t, 1); r[0].Content != "sub-agent text" {
		t.Fatalf("results = %+v", r)
	}
}

func TestAgentToolInput(t *testing.T) {
	if _, err := client.AgentTool(nil, "x", "y"); err == nil {
		t.Fatal("nil client accepted")
	}
	helper := tool.Must(client.AgentTool(clienttest.New(t, chattest.New()), "helper", "Helps", tool.WithTimeout(time.Minute)))
	if helper.Metadata().Timeout != time.Minute || !strings.Contains(string(helper.Definition().InputSchema), `"input"`) {
		t.Fatalf("tool = %+v %s", helper.Metadata(), helper.Definition().InputSchema)
	}
	if _, err := helper.Call(context.Background(), `{"task":"x"}`); err == nil {
		t.Fatal("bad input accepted")
	}
}

func TestNestedSubAgents(t *testing.T) {
	for _, path := range paths {
		t.Run(path.name, func(t *testing.T) {
			// top → planner → writer, whose tool needs approval.
			write := fileTool("write", tool.Metadata{RequiresApproval: true})
			wm := chattest.New(chattest.Calls(chattest.Call("write", `{"path":"/plan"}`)).WithText("writing"), chattest.Text("written"))
			writer := tool.Must(client.AgentTool(clienttest.New(t, wm, client.WithTools(write)), "writer", "Writes"))
			pm := chattest.New(chattest.Calls(chattest.Call("writer", `{"input":"write the plan"}`)), chattest.Text("planned"))
			planner := tool.Must(client.AgentTool(clienttest.New(t, pm, client.WithTools(writer)), "planner", "Plans"))
			tm := chattest.New(chattest.Calls(chattest.Call("planner", `{"input":"plan"}`)), chattest.Text("all done"))
			top := clienttest.New(t, tm, client.WithTools(planner))

			resp, events, err := drive(t, top.Prompt("go"), path.stream)
			if err != nil || resp.Outcome != client.OutcomeApproval {
				t.Fatalf("first: %+v, %v", resp, err)
			}
			p := resp.Pending.Pending()
			if len(p) != 1 || p[0].Agent != "planner/writer" || len(p[0].Path) != 2 || p[0].Call.Name != "write" {
				t.Fatalf("pending = %+v", p)
			}
			if path.stream {
				want := []string{":start:planner", "planner:start:writer", "planner/writer:approval:write", "planner:interrupted:writer", ":interrupted:planner"}
				if got := toolEvents(events); !slices.Equal(got, want) {
					t.Fatalf("events = %v, want %v", got, want)
				}
				if text := agentText(events, "planner/writer"); text != "writing" {
					t.Fatalf("writer's text = %q", text)
				}
			}
			resp, events, err = drive(t, top.Resume(roundTrip(t, resp.Pending), p[0].Approve()), path.stream)
			if err != nil || resp.Text() != "all done" {
				t.Fatalf("resume: %+v, %v", resp, err)
			}
			if !slices.Equal(write.Args(), []string{`{"path":"/plan"}`}) {
				t.Fatalf("runs = %v", write.Args())
			}
			if path.stream && !slices.Contains(toolEvents(events), "planner/writer:finish:write") {
				t.Fatalf("events = %v", toolEvents(events))
			}
			if tm.Requests() != 2 || pm.Requests() != 2 || wm.Requests() != 2 {
				t.Fatalf("requests %d %d %d", tm.Requests(), pm.Requests(), wm.Requests())
			}
		})
	}
}

func TestSubAgentStreamConsumerStops(t *testing.T) {
	// The consumer stops while the sub-agent streams: the whole turn ends, cancelled.
	cm := chattest.New(chattest.Text(strings.Repeat("long sub-agent answer ", 20)))
	helper := tool.Must(client.AgentTool(clienttest.New(t, cm), "helper", "Helps"))
	pm := chattest.New(chattest.Calls(chattest.Call("helper", `{"input":"x"}`)), chattest.Text("never"))
	s := clienttest.New(t, pm, client.WithTools(helper)).Prompt("go").Stream(context.Background())
	n := 0
	for ev, err := range s.Events() {
		if err != nil {
			t.Fatal(err)
		}
		if ev.Agent() == "helper" && ev.Chunk != nil {
			n++
			if n == 3 {
				break
			}
		}
	}
	if n != 3 || pm.Requests() != 1 || s.Response() != nil {
		t.Fatalf("n = %d, parent requests %d", n, pm.Requests())
	}
}
