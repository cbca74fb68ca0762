package memory_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"testing"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/memory"
)

func call(id string) chat.ToolCall { return chat.ToolCall{ID: id, Name: "t"} }
func result(id string) chat.ToolResult {
	return chat.ToolResult{ID: id, Name: "t", Content: "r" + id}
}

func roles(msgs []chat.Message) string {
	s := ""
	for _, m := range msgs {
		switch {
		case m.Role == chat.RoleAssistant && len(m.ToolCalls) > 0:
			s += "C"
		case m.Role == chat.RoleAssistant:
			s += "A"
		case m.Role == chat.RoleTool:
			s += "T"
		case m.Role == chat.RoleUser:
			s += "U"
		case m.Role == chat.RoleSystem:
			s += "S"
		}
	}
	return s
}

func TestTrim(t *testing.T) {
	u, a, sys := chat.User("u"), chat.Assistant("a"), chat.System("s")
	c1 := chat.Assistant("", call("1"))
	c12 := chat.Assistant("", call("1"), call("2"))
	t1 := chat.ToolMessage(result("1"))
	t2 := chat.ToolMessage(result("2"))
	t12 := chat.ToolMessage(result("1"), result("2"))
	tests := []struct {
		name string
		msgs []chat.Message
		n    int
		want string
	}{
		{"fits", []chat.Message{u, a}, 5, "UA"},
		{"last n", []chat.Message{u, a, u, a, u, a}, 3, "AUA"},
		{"cut after call skips its results", []chat.Message{u, c1, t1, a}, 2, "A"},
		{"cut at call keeps group", []chat.Message{u, c1, t1, a}, 3, "CTA"},
		{"results in two messages", []chat.Message{u, c12, t1, t2, a}, 3, "A"},
		{"results in two messages kept", []chat.Message{u, c12, t1, t2, a}, 4, "CTTA"},
		{"one message, two results", []chat.Message{u, c12, t12, a}, 3, "CTA"},
		{"unanswered call at end dropped", []chat.Message{u, a, u, c1}, 4, "UAU"},
		{"partly answered call dropped", []chat.Message{u, c12, t1, a}, 4, "UA"},
		{"unanswered call keeps its text", []chat.Message{u, chat.Assistant("thinking", call("9"))}, 4, "UA"},
		{"orphan result dropped", []chat.Message{t1, u, a}, 5, "UA"},
		{"system kept and counted", []chat.Message{sys, u, a, u, a}, 3, "SUA"},
		{"latest system wins", []chat.Message{sys, u, chat.System("s2"), a}, 5, "SUA"},
		{"n below one", []chat.Message{u}, 0, ""},
		{"only system room", []chat.Message{sys, u, a}, 1, "S"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := memory.Trim(tt.msgs, tt.n)
			if r := roles(got); r != tt.want {
				t.Fatalf("Trim = %s (%v), want %s", r, got, tt.want)
			}
			if len(got) > tt.n {
				t.Fatalf("Trim returned %d > %d messages", len(got), tt.n)
			}
			if len(got) > 0 && got[0].Role == chat.RoleTool {
				t.Fatal("window starts with a tool result")
			}
		})
	}
	got := memory.Trim([]chat.Message{sys, u, chat.System("s2"), a}, 5)
	if got[0].Content != "s2" {
		t.Fatalf("system = %q, want the latest", got[0].Content)
	}
}

// TestTrimNeverOrphans checks every window size over a long conversation with tool loops.
func TestTrimNeverOrphans(t *testing.T) {
	var conv []chat.Message
	for i := range 10 {
		id := fmt.Sprint(i)
		conv = append(conv, chat.User("q"+id))
		for j := range i % 3 {
			cid := fmt.Sprint(id, "-", j)
			conv = append(conv, chat.Assistant("", call(cid+"a"), call(cid+"b")), chat.ToolMessage(result(cid+"a"), result(cid+"b")))
		}
		conv = append(conv, chat.Assistant("a"+id))
	}
	for n := 1; n <= len(conv)+1; n++ {
		got := memory.Trim(conv, n)
		if len(got) > n {
			t.Fatalf("n=%d: %d messages", n, len(got))
		}
		pending := map[string]bool{}
		for k, m := range got {
			if m.Role == chat.RoleTool {
				for _, r := range m.ToolResults {
					if !pending[r.ID] {
						t.Fatalf("n=%d: message %d answers call %s not in the window", n, k, r.ID)
					}
					delete(pending, r.ID)
				}
				continue
			}
			if len(pending) > 0 {
				t.Fatalf("n=%d: calls %v unanswered before message %d", n, pending, k)
			}
			for _, c := range m.ToolCalls {
				pending[c.ID] = true
			}
		}
		if len(pending) > 0 {
			t.Fatalf("n=%d: calls %v unanswered at the end", n, pending)
		}
	}
}

func TestWindow(t *testing.T) {
	ctx := context.Background()
	repo := memory.NewInMemory()
	w := memory.NewWindow(repo, 3)
	for i := range 5 {
		if err := w.Add(ctx, "c", chat.User(fmt.Sprint("u", i)), chat.Assistant(fmt.Sprint("a", i))); err != nil {
			t.Fatal(err)
		}
	}
	got, err := w.Get(ctx, "c")
	if err != nil {
		t.Fatal(err)
	}
	want := []chat.Message{chat.Assistant("a3"), chat.User("u4"), chat.Assistant("a4")}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Get = %v", got)
	}
	all, _ := repo.Messages(ctx, "c")
	if len(all) != 10 {
		t.Fatalf("repository holds %d messages, want all 10", len(all))
	}
	if err := w.Clear(ctx, "c"); err != nil {
		t.Fatal(err)
	}
	if got, _ := w.Get(ctx, "c"); len(got) != 0 {
		t.Fatalf("after Clear: %v", got)
	}
	for _, err := range []error{w.Add(ctx, "", chat.User("x")), w.Clear(ctx, "")} {
		if !errors.Is(err, memory.ErrNoConversationID) {
			t.Fatalf("err = %v", err)
		}
	}
	if _, err := w.Get(ctx, ""); !errors.Is(err, memory.ErrNoConversationID) {
		t.Fatalf("err = %v", err)
	}
	if d := memory.NewWindow(nil, 0); d.Size() != memory.DefaultWindowSize || d.Repository() == nil {
		t.Fatal("defaults")
	}
}

func TestWindowConcurrentWriters(t *testing.T) {
	ctx := context.Background()
	repo := memory.NewInMemory()
	w := memory.NewWindow(repo, 10)
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 10 {
				if err := w.Add(ctx, "c", chat.User(fmt.Sprint(i, "/", j))); err != nil {
					t.Error(err)
				}
				if _, err := w.Get(ctx, "c"); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	all, _ := repo.Messages(ctx, "c")
	if len(all) != 200 {
		t.Fatalf("%d messages stored, want 200: concurrent adds lost messages", len(all))
	}
}

type failingRepo struct{ memory.Repository }

func (failingRepo) Messages(context.Context, string) ([]chat.Message, error) {
	return nil, errors.New("db down")
}

func TestWindowRepositoryError(t *testing.T) {
	w := memory.NewWindow(failingRepo{memory.NewInMemory()}, 3)
	if _, err := w.Get(context.Background(), "c"); err == nil || err.Error() != "db down" {
		t.Fatalf("err = %v", err)
	}
}
