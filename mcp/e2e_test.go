package mcp_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/chattest"
	"github.com/wield-ai/wield/internal/clienttest"
	"github.com/wield-ai/wield/mcp/mcptest"
)

// answerFromToolResults is a scripted model turn that answers with the tool results it was sent,
// the way a real model would quote them.
func answerFromToolResults(prefix string) chattest.Reply {
	return chattest.Respond(func(_ context.Context, p *chat.Prompt) (*chat.Response, error) {
		last := p.Messages[len(p.Messages)-1]
		if last.Role != chat.RoleTool || len(last.ToolResults) == 0 {
			return nil, errors.New("the last message carries no tool results")
		}
		var parts []string
		for _, r := range last.ToolResults {
			parts = append(parts, r.Content)
		}
		return &chat.Response{Generations: []chat.Generation{{
			Message:      chat.Assistant(prefix + strings.Join(parts, " / ")),
			FinishReason: chat.FinishStop,
		}}}, nil
	})
}

// TestEndToEndGetSum: a model asks for get-sum; the client's tool loop runs it on
// server-everything and the model's answer carries the server's result.
func TestEndToEndGetSum(t *testing.T) {
	t.Parallel()
	server := mcptest.Connect(t, nodeServer(t, "everything", "mcp-server-everything", "stdio"))
	model := chattest.New(
		chattest.Calls(chattest.Call("get-sum", `{"a": 19, "b": 23}`)),
		answerFromToolResults("The server says: "),
	)
	answer, err := clienttest.New(t, model).Prompt("What is 19 + 23? Use the get-sum tool.").Tools(server).Call(testContext(t)).Content()
	if err != nil {
		t.Fatal(err)
	}
	if want := "The server says: The sum of 19 and 23 is 42."; answer != want {
		t.Errorf("answer = %q, want %q", answer, want)
	}

	prompts := model.Prompts()
	if len(prompts) != 2 {
		t.Fatalf("model called %d times, want 2", len(prompts))
	}
	var offered []string
	for _, tl := range prompts[0].Options.Tools {
		offered = append(offered, tl.Definition().Name)
	}
	if !strings.Contains(strings.Join(offered, ","), "get-sum") {
		t.Errorf("tools offered to the model: %v", offered)
	}
	results := prompts[1].Messages[len(prompts[1].Messages)-1].ToolResults
	if len(results) != 1 || results[0].IsError || results[0].Name != "get-sum" {
		t.Errorf("tool results sent back = %+v", results)
	}
}

// TestEndToEndToolError: a server's isError result and a call with bad arguments reach the model
// as failed tool results it can read, and the turn goes on.
func TestEndToEndToolError(t *testing.T) {
	t.Parallel()
	server := mcptest.Connect(t, nodeServer(t, "everything", "mcp-server-everything", "stdio"))
	model := chattest.New(
		chattest.Calls(
			chattest.Call("get-sum", `{"a": "nineteen", "b": 23}`),
			chattest.Call("simulate-research-query", `{"topic": "go"}`),
		),
		answerFromToolResults("Errors: "),
	)
	resp, err := clienttest.New(t, model).Prompt("Add these").Tools(server).Call(testContext(t)).Content()
	if err != nil {
		t.Fatal(err)
	}
	results := model.Prompts()[1].Messages[len(model.Prompts()[1].Messages)-1].ToolResults
	if len(results) != 2 || !results[0].IsError || !results[1].IsError {
		t.Fatalf("tool results = %+v, want two errors", results)
	}
	if !strings.Contains(results[0].Content, "expected number") || !strings.Contains(results[1].Content, "task") {
		t.Errorf("the model reads %q and %q", results[0].Content, results[1].Content)
	}
	if !strings.HasPrefix(resp, "Errors: ") {
		t.Errorf("answer = %q", resp)
	}
}
