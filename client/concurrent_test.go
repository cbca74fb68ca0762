package client_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/chattest"
	"github.com/wield-ai/wield/client"
	"github.com/wield-ai/wield/internal/clienttest"
	"github.com/wield-ai/wield/memory"
	"github.com/wield-ai/wield/tool"
)

// echoModel asks for the echo tool once, then answers with the tool's result.
func echoModel() chattest.Reply {
	return chattest.Respond(func(_ context.Context, p *chat.Prompt) (*chat.Response, error) {
		last := p.Messages[len(p.Messages)-1]
		if last.Role == chat.RoleTool {
			return &chat.Response{Generations: []chat.Generation{{Message: chat.Assistant("echo: " + last.ToolResults[0].Content)}}}, nil
		}
		args := fmt.Sprintf(`{"text":%q}`, last.Content)
		return &chat.Response{Generations: []chat.Generation{{Message: chat.Assistant("", chat.ToolCall{ID: "c", Name: "echo", Arguments: args})}}}, nil
	})
}

func TestConcurrentCalls(t *testing.T) {
	echo := newTool("echo", func(ctx context.Context, args string) (string, error) {
		return args + " for " + tool.ContextFrom(ctx)["user"].(string), nil
	})
	m := chattest.New(echoModel()).Repeat().DiscardPrompts()
	repo := memory.NewInMemory()
	c := clienttest.New(t, m, client.WithTools(echo),
		client.WithAdvisors(memory.NewAdvisor(memory.NewWindow(repo, 50), memory.AdvisorConfig{})))
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			user := fmt.Sprint("u", i)
			for j := range 5 {
				q := fmt.Sprint(user, "-", j)
				spec := c.Prompt(q).ToolContext(tool.Context{"user": user}).Param(client.ParamConversationID, user)
				var text string
				if j%2 == 0 {
					var err error
					if text, err = spec.Call(context.Background()).Content(); err != nil {
						t.Error(err)
						return
					}
				} else {
					s := spec.Stream(context.Background())
					for _, err := range s.Events() {
						if err != nil {
							t.Error(err)
							return
						}
					}
					text = s.Response().Text()
				}
				if want := fmt.Sprintf(`echo: {"text":%q} for %s`, q, user); text != want {
					t.Errorf("got %q, want %q", text, want)
				}
			}
		}()
	}
	wg.Wait()
	for i := range 16 {
		msgs, _ := repo.Messages(context.Background(), fmt.Sprint("u", i))
		if len(msgs) != 10 || !strings.HasPrefix(msgs[9].Content, "echo:") {
			t.Fatalf("conversation u%d: %d messages", i, len(msgs))
		}
	}
}
