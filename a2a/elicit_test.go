package a2a

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	sdk "github.com/a2aproject/a2a-go/a2a"
	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/chattest"
	"github.com/wield-ai/wield/client"
	"github.com/wield-ai/wield/internal/clienttest"
	"github.com/wield-ai/wield/mcp"
	"github.com/wield-ai/wield/mcp/mcptest"
)

// bookingServer is an MCP server whose tool "book" asks its client how many seats (an
// elicitation with a schema) and reports the answer it got, counting its runs.
func bookingServer(runs *atomic.Int32) *mcpsdk.Server {
	s := mcpsdk.NewServer(&mcpsdk.Implementation{Name: "booking"}, nil)
	schema := json.RawMessage(`{"type":"object","properties":{"seats":{"type":"integer","minimum":1}},"required":["seats"]}`)
	mcpsdk.AddTool(s, &mcpsdk.Tool{Name: "book", InputSchema: map[string]any{"type": "object"}},
		func(ctx context.Context, req *mcpsdk.CallToolRequest, _ map[string]any) (*mcpsdk.CallToolResult, any, error) {
			runs.Add(1)
			res, ok := req.Params.InputResponses["seats"].(*mcpsdk.ElicitResult)
			if !ok {
				return &mcpsdk.CallToolResult{InputRequests: mcpsdk.InputRequestMap{"seats": &mcpsdk.ElicitParams{Message: "How many seats?", RequestedSchema: schema}}}, nil, nil
			}
			c, _ := json.Marshal(res.Content)
			return &mcpsdk.CallToolResult{Content: []mcpsdk.Content{&mcpsdk.TextContent{Text: fmt.Sprintf("booked: %s %s", res.Action, c)}}}, nil, nil
		})
	return s
}

// bookingAgent is an agent whose model books through bookingServer's tool, which asks its
// question as an interrupt, then answers "Booked.".
func bookingAgent(t *testing.T, runs *atomic.Int32) (*client.Client, *chattest.Model) {
	t.Helper()
	cfg := mcptest.InMemory("booking", bookingServer(runs))
	cfg.InterruptOnElicitation = true
	tools, err := mcptest.Connect(t, cfg).Tools(context.Background())
	if err != nil || len(tools) != 1 {
		t.Fatalf("tools %v %v", tools, err)
	}
	m := chattest.New(chattest.Calls(chat.ToolCall{ID: "c1", Name: "book", Arguments: `{}`}), chattest.Text("Booked."))
	return clienttest.New(t, m, client.WithTools(tools[0])), m
}

// An MCP server's question during a served agent's tool call (an elicitation, which the mcp
// package surfaces as the call's interrupt) makes the task input-required, the pending call
// describing the question and the schema of its answer; the caller's answer (a restart of the
// call with an mcp.ElicitationAnswer) reaches the server, whose tool runs again with it.
func TestServeElicitation(t *testing.T) {
	var runs atomic.Int32
	c, m := bookingAgent(t, &runs)
	s := serve(t, c, ServerConfig{})

	task := sendTask(t, s.sdk, userMsg("book a table"))
	if task.Status.State != sdk.TaskStateInputRequired {
		t.Fatalf("state %s %q", task.Status.State, partsText(task.Status.Message.Parts))
	}
	pending := pendingOf(t, task.Status.Message)
	if len(pending) != 1 || pending[0].ID != "c1" || pending[0].Reason != "interrupt" || pending[0].Message != "How many seats?" {
		t.Fatalf("pending %+v", pending)
	}
	var asked mcp.Elicitation
	if err := json.Unmarshal(pending[0].Data, &asked); err != nil || asked.Server != "booking" || !strings.Contains(string(asked.RequestedSchema), `"seats"`) {
		t.Fatalf("the question's data %s: %v", pending[0].Data, err)
	}
	if text := partsText(task.Status.Message.Parts); !strings.Contains(text, "How many seats?") || !strings.Contains(text, `"restart": true`) {
		t.Fatalf("the text for people %q", text)
	}
	// A text reply cannot be an answer that follows the schema: the task waits still, saying so,
	// and the server's tool does not run.
	before := runs.Load()
	again := sendTask(t, s.sdk, onTask(task, sdk.TextPart{Text: "3"}))
	if again.Status.State != sdk.TaskStateInputRequired || !strings.Contains(partsText(again.Status.Message.Parts), "schema") || runs.Load() != before {
		t.Fatalf("a text reply: %s %q, server ran %d more", again.Status.State, partsText(again.Status.Message.Parts), runs.Load()-before)
	}
	answer := map[string]any{"decisions": []any{map[string]any{"id": "c1", "restart": true, "data": map[string]any{"action": "accept", "content": map[string]any{"seats": 3}}}}}
	done := sendTask(t, s.sdk, onTask(task, sdk.DataPart{Data: answer}))
	if done.Status.State != sdk.TaskStateCompleted || answerOf(done) != "Booked." {
		t.Fatalf("after the answer: %s %q", done.Status.State, answerOf(done))
	}
	if res := m.ToolResults(t, 1); len(res) != 1 || res[0].Content != `booked: accept {"seats":3}` {
		t.Fatalf("the model read %+v", res)
	}
}

// pendingOf reads the pending calls of a status message's data part.
func pendingOf(t *testing.T, m *sdk.Message) []PendingView {
	t.Helper()
	var pending []PendingView
	for _, p := range m.Parts {
		if d, ok := p.(sdk.DataPart); ok {
			b, _ := json.Marshal(d.Data["pending"])
			if err := json.Unmarshal(b, &pending); err != nil {
				t.Fatal(err)
			}
		}
	}
	return pending
}

// The same question reaches a wield agent calling the served one as a remote agent: its turn
// stops with the remote call's interrupt, whose pending call carries the schema, and its resume
// with the answer completes both turns, the server's tool having run with the answer.
func TestRemoteAgentElicitation(t *testing.T) {
	var runs atomic.Int32
	c, m := bookingAgent(t, &runs)
	s := serve(t, c, ServerConfig{Name: "booker"})
	ctx := context.Background()
	remote, err := RemoteAgent(ctx, Config{CardURL: s.http.URL})
	if err != nil {
		t.Fatal(err)
	}
	cm := chattest.New(chattest.Calls(chat.ToolCall{ID: "a1", Name: "booker", Arguments: `{"input":"book a table"}`}), chattest.Text("Your table is booked."))
	caller := clienttest.New(t, cm, client.WithTools(remote))
	resp, err := caller.Prompt("book me a table").Call(ctx).Response()
	if err != nil {
		t.Fatal(err)
	}
	if resp.Pending == nil || len(resp.Pending.Pending()) != 1 {
		t.Fatalf("the caller's turn: %s", resp.Outcome)
	}
	pc := resp.Pending.Pending()[0]
	var p Pending
	if err := json.Unmarshal(pc.Interrupt.Data, &p); err != nil || len(p.Calls) != 1 {
		t.Fatalf("the remote call's interrupt %s: %v", pc.Interrupt.Data, err)
	}
	var asked mcp.Elicitation
	if err := json.Unmarshal(p.Calls[0].Data, &asked); err != nil || !strings.Contains(string(asked.RequestedSchema), `"seats"`) || asked.Message != "How many seats?" {
		t.Fatalf("the question the caller sees %+v: %v", p.Calls[0], err)
	}
	answer, _ := json.Marshal(Answer{Decisions: []CallDecision{{ID: p.Calls[0].ID, Restart: true, Data: json.RawMessage(`{"action":"accept","content":{"seats":2}}`)}}})
	resp, err = caller.Resume(resp.Pending, pc.Restart("", answer)).Call(ctx).Response()
	if err != nil || resp.Pending != nil || resp.Text() != "Your table is booked." {
		t.Fatalf("after the answer: %+v %v", resp, err)
	}
	if res := m.ToolResults(t, 1); len(res) != 1 || res[0].Content != `booked: accept {"seats":2}` {
		t.Fatalf("the served agent's model read %+v", res)
	}
	if res := cm.ToolResults(t, 1); len(res) != 1 || res[0].Content != "Booked." {
		t.Fatalf("the caller's model read %+v", res)
	}
}
