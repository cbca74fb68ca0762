package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wield-ai/wield/chattest"
	"github.com/wield-ai/wield/client"
	"github.com/wield-ai/wield/internal/clienttest"
	"github.com/wield-ai/wield/mcp"
	"github.com/wield-ai/wield/mcp/mcptest"
	"github.com/wield-ai/wield/tool"
	"github.com/wield-ai/wield/toolcall"
)

// elicitingServer is an SDK server whose tool "book" asks the client for a seat count and
// reports the answer it got, counting how often it ran.
func elicitingServer(runs *atomic.Int32) *sdk.Server {
	return mcptest.AskingServer("booking", "book", &sdk.ElicitParams{Message: "How many seats?",
		RequestedSchema: json.RawMessage(`{"type":"object","properties":{"seats":{"type":"integer","minimum":1}},"required":["seats"]}`)}, runs)
}

func bookTool(t *testing.T, cfg mcp.ServerConfig) tool.Tool {
	t.Helper()
	c := mcptest.Connect(t, cfg)
	tools, err := c.Tools(context.Background())
	if err != nil || len(tools) != 1 {
		t.Fatalf("tools: %v %v", tools, err)
	}
	return tools[0]
}

// TestElicitationInterrupts: a server's question during a tool call stops the call with an
// interrupt carrying the question and its schema; the answer given on resume reaches the server
// when the call is made again; an answer off the schema is refused before the call is remade.
func TestElicitationInterrupts(t *testing.T) {
	ctx := context.Background()
	var runs atomic.Int32
	cfg := mcptest.InMemory("booking", elicitingServer(&runs))
	cfg.InterruptOnElicitation = true
	book := bookTool(t, cfg)
	_, err := book.(tool.PartsTool).CallParts(ctx, `{}`)
	in, ok := errors.AsType[*toolcall.InterruptError](err)
	if !ok {
		t.Fatalf("call: %v, want an interrupt", err)
	}
	var asked mcp.Elicitation
	if err := json.Unmarshal(in.Data, &asked); err != nil || asked.Message != "How many seats?" || asked.Server != "booking" || !strings.Contains(string(asked.RequestedSchema), `"seats"`) {
		t.Fatalf("interrupt %q data %s (%v)", in.Message, in.Data, err)
	}

	resume := func(answer string) (tool.Result, error) {
		return book.(tool.PartsTool).CallParts(toolcall.WithResumption(ctx, &toolcall.Resumption{Interrupt: in, Data: json.RawMessage(answer)}), `{}`)
	}
	res, err := resume(`{"action":"accept","content":{"seats":3}}`)
	if err != nil || res.Text != `accept {"seats":3}` {
		t.Fatalf("accepted: %+v %v", res, err)
	}
	if res, err := resume(`{"action":"decline"}`); err != nil || !strings.HasPrefix(res.Text, "decline") {
		t.Errorf("declined: %+v %v", res, err)
	}
	if res, err := resume(`{"action":"cancel"}`); err != nil || !strings.HasPrefix(res.Text, "cancel") {
		t.Errorf("cancelled: %+v %v", res, err)
	}
	before := runs.Load()
	if _, err := resume(`{"action":"accept","content":{"seats":0}}`); err == nil || !strings.Contains(err.Error(), "requested schema") {
		t.Errorf("an answer off the schema: %v", err)
	}
	if _, err := resume(`{"action":"maybe"}`); err == nil {
		t.Error("an unknown action was taken")
	}
	if runs.Load() != before {
		t.Errorf("the server's tool ran %d more times for refused answers", runs.Load()-before)
	}
}

// TestElicitationWithoutInterrupts: with elicitation not offered the server cannot ask, and its
// tool gets an error rather than hanging.
func TestElicitationWithoutInterrupts(t *testing.T) {
	var runs atomic.Int32
	book := bookTool(t, mcptest.InMemory("booking", elicitingServer(&runs)))
	if _, err := book.Call(context.Background(), `{}`); err == nil {
		t.Error("a server asked a client that does not offer elicitation")
	}
}

// TestEverythingElicitation answers server-everything's elicitation tool through an interrupt.
func TestEverythingElicitation(t *testing.T) {
	ctx := context.Background()
	cfg := nodeServer(t, "everything", "mcp-server-everything", "stdio")
	cfg.InterruptOnElicitation = true
	c := mcptest.Connect(t, cfg)
	tools, err := c.Tools(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var elicit tool.Tool
	for _, tl := range tools {
		if tl.Definition().Name == "trigger-elicitation-request" {
			elicit = tl
		}
	}
	if elicit == nil {
		t.Fatal("no trigger-elicitation-request tool")
	}
	_, err = elicit.Call(ctx, `{}`)
	in, ok := errors.AsType[*toolcall.InterruptError](err)
	if !ok {
		t.Fatalf("call: %v, want an interrupt", err)
	}
	var asked mcp.Elicitation
	if err := json.Unmarshal(in.Data, &asked); err != nil || len(asked.RequestedSchema) == 0 {
		t.Fatalf("interrupt data %s: %v", in.Data, err)
	}
	out, err := elicit.Call(toolcall.WithResumption(ctx, &toolcall.Resumption{Interrupt: in, Data: json.RawMessage(`{"action":"decline"}`)}), `{}`)
	if err != nil || !strings.Contains(strings.ToLower(out), "decline") {
		t.Errorf("declined: %q %v", out, err)
	}
}

// TestElicitationThroughTurn: through the client's turn, a server's question stops the turn as
// an interrupted call; resuming it with an answer restarts the call, the server gets the answer,
// and the model reads the server's result.
func TestElicitationThroughTurn(t *testing.T) {
	var runs atomic.Int32
	cfg := mcptest.InMemory("booking", elicitingServer(&runs))
	cfg.InterruptOnElicitation = true
	book := bookTool(t, cfg)
	m := chattest.New(chattest.Calls(chattest.Call("book", `{}`)), chattest.Text("Booked."))
	c := clienttest.New(t, m, client.WithTools(book))
	resp, err := c.Prompt("book me in").Call(context.Background()).Response()
	if err != nil {
		t.Fatal(err)
	}
	if resp.Outcome != client.OutcomeInterrupted {
		t.Fatalf("outcome %v", resp.Outcome)
	}
	p := resp.Pending.Pending()
	if len(p) != 1 || p[0].Interrupt == nil || p[0].Interrupt.Message != "How many seats?" {
		t.Fatalf("pending %+v", p)
	}
	resp, err = c.Resume(resp.Pending, p[0].Restart("", json.RawMessage(`{"action":"accept","content":{"seats":2}}`))).Call(context.Background()).Response()
	if err != nil || resp.Text() != "Booked." {
		t.Fatalf("resume: %v %v", resp, err)
	}
	if r := m.ToolResults(t, 1); len(r) != 1 || r[0].Content != `accept {"seats":2}` {
		t.Fatalf("the model read %+v", r)
	}
}
