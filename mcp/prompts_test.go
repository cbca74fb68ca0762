package mcp_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/content"
	"github.com/wield-ai/wield/mcp"
	"github.com/wield-ai/wield/mcp/mcptest"
)

// TestEverythingPrompts lists and gets the reference server's prompts as chat messages: plain,
// with arguments, and with an embedded binary resource that becomes a media part.
func TestEverythingPrompts(t *testing.T) {
	ctx := context.Background()
	c := mcptest.Connect(t, nodeServer(t, "everything", "mcp-server-everything", "stdio"))
	ps, err := c.Prompts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]*sdk.Prompt{}
	for _, p := range ps {
		names[p.Name] = p
	}
	for _, n := range []string{"simple-prompt", "args-prompt", "resource-prompt"} {
		if names[n] == nil {
			t.Fatalf("no %s among %v", n, ps)
		}
	}
	msgs, err := c.GetPrompt(ctx, "simple-prompt", nil)
	if err != nil || len(msgs) != 1 || msgs[0].Role != chat.RoleUser || msgs[0].Content == "" {
		t.Fatalf("simple-prompt: %+v %v", msgs, err)
	}
	msgs, err = c.GetPrompt(ctx, "args-prompt", map[string]string{"city": "Lyon", "state": "Rhône"})
	if err != nil || len(msgs) != 1 || !strings.Contains(msgs[0].Content, "Lyon, Rhône") {
		t.Fatalf("args-prompt: %+v %v", msgs, err)
	}
	msgs, err = c.GetPrompt(ctx, "resource-prompt", map[string]string{"resourceType": "Blob", "resourceId": "2"})
	if err != nil {
		t.Fatal(err)
	}
	if len(msgs) != 1 || msgs[0].Content == "" || len(msgs[0].Parts) != 1 || msgs[0].Parts[0].IsText() {
		t.Fatalf("resource-prompt with a blob: %+v", msgs)
	}
	if _, err := c.GetPrompt(ctx, "args-prompt", nil); err == nil {
		t.Error("args-prompt without its required argument succeeded")
	}
	if _, err := c.GetPrompt(ctx, "no-such-prompt", nil); err == nil {
		t.Error("an unknown prompt succeeded")
	}
}

// TestServedPrompts serves prompts from Go values and gets them back through a wield client:
// messages round-trip with their parts; arguments are checked; a failing prompt tells the client
// nothing of its cause.
func TestServedPrompts(t *testing.T) {
	ctx := context.Background()
	png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x02\x00\x00\x00\x90wS\xde")
	s, err := mcp.Start(mcp.ServerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	fixed := []chat.Message{
		{Role: chat.RoleUser, Content: "What is in this picture?", Parts: []content.Part{content.Image(png, "image/png")}},
		{Role: chat.RoleAssistant, Content: "A single pixel."},
		chat.User("Describe it in French."),
	}
	err = s.AddPrompts(
		mcp.Prompt{Name: "fixed", Description: "a fixed conversation", Messages: fixed},
		mcp.Prompt{Name: "review", Arguments: []*sdk.PromptArgument{{Name: "file", Required: true}, {Name: "tone"}},
			Get: func(_ context.Context, args map[string]string) ([]chat.Message, error) {
				return []chat.Message{chat.User("Review " + args["file"] + " in a " + args["tone"] + " tone.")}, nil
			}},
		mcp.Prompt{Name: "broken", Get: func(context.Context, map[string]string) ([]chat.Message, error) {
			return nil, errors.New("secret token expired")
		}},
		mcp.Prompt{Name: "system", Get: func(context.Context, map[string]string) ([]chat.Message, error) {
			return []chat.Message{chat.System("be terse")}, nil
		}},
	)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.AddPrompts(mcp.Prompt{Name: "bad", Messages: []chat.Message{chat.System("x")}}); err == nil {
		t.Error("a prompt with a system message was accepted")
	}
	if err := s.AddPrompts(mcp.Prompt{Name: "none"}); err == nil {
		t.Error("a prompt without messages was accepted")
	}
	c := mcptest.Connect(t, inMemory("served", s))
	ps, err := c.Prompts(ctx)
	if err != nil || len(ps) != 4 {
		t.Fatalf("listed %v %v", ps, err)
	}
	got, err := c.GetPrompt(ctx, "fixed", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got[0].Content != fixed[0].Content || len(got[0].Parts) != 1 || got[0].Parts[0].Kind != content.KindImage ||
		string(got[0].Parts[0].Data) != string(png) || got[1].Role != chat.RoleAssistant || got[2].Content != "Describe it in French." {
		t.Errorf("fixed prompt came back as %+v", got)
	}
	got, err = c.GetPrompt(ctx, "review", map[string]string{"file": "main.go", "tone": "kind"})
	if err != nil || len(got) != 1 || got[0].Content != "Review main.go in a kind tone." {
		t.Errorf("review: %+v %v", got, err)
	}
	if _, err := c.GetPrompt(ctx, "review", map[string]string{"tone": "kind"}); err == nil || !strings.Contains(err.Error(), `needs the argument "file"`) {
		t.Errorf("missing required argument: %v", err)
	}
	if _, err := c.GetPrompt(ctx, "review", map[string]string{"file": "a", "colour": "red"}); err == nil || !strings.Contains(err.Error(), `no argument "colour"`) {
		t.Errorf("unknown argument: %v", err)
	}
	if _, err := c.GetPrompt(ctx, "broken", nil); err == nil || strings.Contains(err.Error(), "secret") {
		t.Errorf("a failing prompt gave the client %v", err)
	}
	if _, err := c.GetPrompt(ctx, "system", nil); err == nil {
		t.Error("a generated system message was served")
	}
}

// TestHugePrompt: a prompt of 100,000 messages is refused with ErrPromptTooLarge, from an SDK
// server by the client and by wield's own server before it sends it.
func TestHugePrompt(t *testing.T) {
	ctx := context.Background()
	many := make([]*sdk.PromptMessage, 100_000)
	for i := range many {
		many[i] = &sdk.PromptMessage{Role: "user", Content: &sdk.TextContent{Text: "hi"}}
	}
	raw := sdk.NewServer(&sdk.Implementation{Name: "raw"}, nil)
	raw.AddPrompt(&sdk.Prompt{Name: "many"}, func(context.Context, *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
		return &sdk.GetPromptResult{Messages: many}, nil
	})
	c := mcptest.Connect(t, mcptest.InMemory("raw", raw))
	if _, err := c.GetPrompt(ctx, "many", nil); !errors.Is(err, mcp.ErrPromptTooLarge) || !strings.Contains(err.Error(), "100000 messages") {
		t.Errorf("getting 100,000 messages: %v", err)
	}

	msgs := make([]chat.Message, 100_000)
	for i := range msgs {
		msgs[i] = chat.User("hi")
	}
	s, err := mcp.Start(mcp.ServerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.AddPrompts(mcp.Prompt{Name: "many", Messages: msgs}); !errors.Is(err, mcp.ErrPromptTooLarge) {
		t.Errorf("serving 100,000 fixed messages: %v", err)
	}
	if err := s.AddPrompts(mcp.Prompt{Name: "many", Get: func(context.Context, map[string]string) ([]chat.Message, error) { return msgs, nil }}); err != nil {
		t.Fatal(err)
	}
	c = mcptest.Connect(t, inMemory("served", s))
	if _, err := c.GetPrompt(ctx, "many", nil); err == nil {
		t.Error("100,000 generated messages were served")
	}
}
