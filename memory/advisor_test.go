package memory_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/chattest"
	"github.com/wield-ai/wield/client"
	"github.com/wield-ai/wield/internal/clienttest"
	"github.com/wield-ai/wield/memory"
)

// constTool answers every call with result.
func constTool(name, result string) *chattest.Tool {
	return chattest.NewTool(name, func(context.Context, string) (string, error) { return result, nil })
}

// bothPaths runs test as a subtest of t for each path of a turn: Call, then Stream.
func bothPaths(t *testing.T, test func(t *testing.T, stream bool)) {
	for _, stream := range []bool{false, true} {
		t.Run(fmt.Sprint("stream=", stream), func(t *testing.T) { test(t, stream) })
	}
}

// run sends one turn by Call or by Stream and returns the answer.
func run(t *testing.T, s *client.Spec, stream bool) string {
	t.Helper()
	return respond(t, s, stream).Text()
}

// respond sends one turn by Call or by Stream and returns its response.
func respond(t *testing.T, s *client.Spec, stream bool) *client.Response {
	t.Helper()
	if !stream {
		resp, err := s.Call(context.Background()).Response()
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	st := s.Stream(context.Background())
	for _, err := range st.Events() {
		if err != nil {
			t.Fatal(err)
		}
	}
	return st.Response()
}

// weatherTurns is the model of two turns: the first calls weather and answers "Sunny.", the second
// answers next.
func weatherTurns(next string) *chattest.Model {
	return chattest.New(chattest.Calls(chattest.Call("weather", `{}`)), chattest.Text("Sunny."), chattest.Text(next))
}

func TestAdvisorOutsideLoop(t *testing.T) {
	bothPaths(t, func(t *testing.T, stream bool) {
		repo := memory.NewInMemory()
		m := weatherTurns("You asked about the weather.")
		c := clienttest.New(t, m, client.WithSystem("sys"),
			client.WithAdvisors(memory.NewAdvisor(memory.NewWindow(repo, 10), memory.AdvisorConfig{})))
		if got := run(t, c.Prompt("Weather?").Tools(constTool("weather", "sunny")).Param(client.ParamConversationID, "c1"), stream); got != "Sunny." {
			t.Fatalf("turn 1 = %q", got)
		}
		stored, _ := repo.Messages(context.Background(), "c1")
		if roles(stored) != "UA" || stored[1].Content != "Sunny." {
			t.Fatalf("stored after turn 1: %v", stored)
		}
		if got := run(t, c.Prompt("What did I ask?").Param(client.ParamConversationID, "c1"), stream); got != "You asked about the weather." {
			t.Fatalf("turn 2 = %q", got)
		}
		if p := m.Prompt(2).Messages; roles(p) != "SUAU" || p[1].Content != "Weather?" || p[3].Content != "What did I ask?" {
			t.Fatalf("turn 2 prompt = %v", p)
		}
		// Inside the turn the loop kept its own history.
		if p := m.Prompt(1).Messages; roles(p) != "SUCT" {
			t.Fatalf("second model call of turn 1 = %v", p)
		}
		stored, _ = repo.Messages(context.Background(), "c1")
		if roles(stored) != "UAUA" {
			t.Fatalf("stored after turn 2: %v", stored)
		}
	})
}

func TestAdvisorInsideLoop(t *testing.T) {
	bothPaths(t, func(t *testing.T, stream bool) {
		repo := memory.NewInMemory()
		m := weatherTurns("It was sunny.")
		adv := memory.NewAdvisor(memory.NewWindow(repo, 10), memory.AdvisorConfig{Order: client.OrderToolCalling + 100})
		if adv.Order() != client.OrderToolCalling+100 || !adv.KeepsHistory() {
			t.Fatal("advisor config")
		}
		c := clienttest.New(t, m, client.WithSystem("sys"), client.WithAdvisors(adv))
		if got := run(t, c.Prompt("Weather?").Tools(constTool("weather", "sunny")), stream); got != "Sunny." {
			t.Fatalf("turn 1 = %q", got)
		}
		stored, _ := repo.Messages(context.Background(), memory.DefaultConversationID)
		if roles(stored) != "UCTA" || stored[2].ToolResults[0].Content != "sunny" {
			t.Fatalf("stored: %v", stored)
		}
		// The loop's history is off: memory supplies it, without duplicates.
		if p := m.Prompt(1).Messages; roles(p) != "SUCT" {
			t.Fatalf("second model call = %v", p)
		}
		if got := run(t, c.Prompt("And then?").Tools(constTool("weather", "sunny")), stream); got != "It was sunny." {
			t.Fatalf("turn 2 = %q", got)
		}
		if p := m.Prompt(2).Messages; roles(p) != "SUCTAU" {
			t.Fatalf("turn 2 prompt = %v", p)
		}
	})
}

func TestAdvisorConversations(t *testing.T) {
	repo := memory.NewInMemory()
	m := chattest.New(chattest.Text("a1"), chattest.Text("b1"), chattest.Text("a2"))
	c := clienttest.New(t, m, client.WithAdvisors(memory.NewAdvisor(memory.NewWindow(repo, 10), memory.AdvisorConfig{ConversationID: "fallback"})))
	for _, id := range []string{"a", "b", "a"} {
		if err := c.Prompt("hi "+id).Param(client.ParamConversationID, id).Call(context.Background()).Err(); err != nil {
			t.Fatal(err)
		}
	}
	if p := m.Prompt(2).Messages; roles(p) != "UAU" || p[1].Content != "a1" {
		t.Fatalf("conversation a, turn 2: %v", p)
	}
	ids, _ := repo.Conversations(context.Background())
	if fmt.Sprint(ids) != "[a b]" {
		t.Fatalf("conversations = %v", ids)
	}
}

func TestAdvisorFailure(t *testing.T) {
	repo := memory.NewInMemory()
	m := chattest.New(chattest.Fail(errors.New("model down")))
	c := clienttest.New(t, m, client.WithAdvisors(memory.NewAdvisor(memory.NewWindow(repo, 10), memory.AdvisorConfig{})))
	if err := c.Prompt("hi").Call(context.Background()).Err(); err == nil {
		t.Fatal("no error")
	}
	if stored, _ := repo.Messages(context.Background(), memory.DefaultConversationID); roles(stored) != "U" {
		t.Fatalf("stored %v after a failed call, want the user message only", stored)
	}
	bad := memory.NewAdvisor(memory.NewWindow(failingRepo{memory.NewInMemory()}, 10), memory.AdvisorConfig{})
	if err := clienttest.New(t, chattest.New(chattest.Text("x")), client.WithAdvisors(bad)).Prompt("hi").Call(context.Background()).Err(); err == nil || !strings.Contains(err.Error(), "db down") {
		t.Fatalf("err = %v", err)
	}
}

func TestAdvisorMergesGenerations(t *testing.T) {
	repo := memory.NewInMemory()
	m := chattest.New(chattest.Respond(func(context.Context, *chat.Prompt) (*chat.Response, error) {
		return &chat.Response{Generations: []chat.Generation{
			{Message: chat.Assistant("I'll check")},
			{Index: 1, Message: chat.Assistant("", chat.ToolCall{ID: "x", Name: "weather"})},
		}}, nil
	}))
	c := clienttest.New(t, m, client.WithoutToolLoop(), client.WithAdvisors(memory.NewAdvisor(memory.NewWindow(repo, 10), memory.AdvisorConfig{})))
	if err := c.Prompt("hi").Call(context.Background()).Err(); err != nil {
		t.Fatal(err)
	}
	stored, _ := repo.Messages(context.Background(), memory.DefaultConversationID)
	if len(stored) != 2 || stored[1].Content != "I'll check" || len(stored[1].ToolCalls) != 1 {
		t.Fatalf("stored = %v", stored)
	}
}

// A hostile conversation id is refused before the model is called, and never echoed.
func TestAdvisorRefusesBadConversationID(t *testing.T) {
	m := chattest.New(chattest.Text("x"))
	mem := memory.NewWindow(memory.NewInMemory(), 10)
	c := clienttest.New(t, m, client.WithAdvisors(memory.NewAdvisor(mem, memory.AdvisorConfig{})))
	id := strings.Repeat("\x1b[31m", 200_000)
	err := c.Prompt("hi").Param(client.ParamConversationID, id).Call(context.Background()).Err()
	if !errors.Is(err, memory.ErrInvalidConversationID) || len(err.Error()) > 200 || strings.Contains(err.Error(), "\x1b") {
		t.Fatalf("err = %.300q", err)
	}
	if m.Requests() != 0 {
		t.Fatal("the model was called")
	}
}

// TestAdvisorInsideLoopCappedResult checks that a tool result over the window's cap does not
// fail a turn whose memory is inside the loop: the result is kept as an error result that says
// so, the model sees that, and the turn answers.
func TestAdvisorInsideLoopCappedResult(t *testing.T) {
	bothPaths(t, func(t *testing.T, stream bool) {
		repo := memory.NewInMemory()
		m := chattest.New(
			chattest.Calls(chattest.Call("read_file", `{}`)),
			chattest.Text("The file is too large to read whole."),
		)
		adv := memory.NewAdvisor(memory.NewWindow(repo, 10, memory.MaxMessageBytes(4096)), memory.AdvisorConfig{Order: client.OrderToolCalling + 100})
		c := clienttest.New(t, m, client.WithAdvisors(adv))
		if got := run(t, c.Prompt("Read the log.").Tools(constTool("read_file", strings.Repeat("log line\n", 100_000))), stream); got != "The file is too large to read whole." {
			t.Fatalf("turn = %q", got)
		}
		p := m.Prompt(1).Messages
		if roles(p) != "UCT" {
			t.Fatalf("second model call = %v", roles(p))
		}
		if r := p[2].ToolResults[0]; !r.IsError || !strings.Contains(r.Content, "over the 4096 bytes") || r.ID != p[1].ToolCalls[0].ID {
			t.Fatalf("the model was sent %+v", r)
		}
		stored, _ := repo.Messages(context.Background(), memory.DefaultConversationID)
		if roles(stored) != "UCTA" {
			t.Fatalf("stored %v", roles(stored))
		}
	})
}
